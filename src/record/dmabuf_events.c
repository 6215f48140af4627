// SPDX-License-Identifier: Apache-2.0
/* dmabuf_events: the target's dma-buf exports and releases (dmabuf_events.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "arenaprof/record/bpf_attach.h"
#include "arenaprof/record/bpf_load.h"
#include "arenaprof/record/dmabuf_events.h"
#include "arenaprof/record/method.h"
#include "arenaprof/util/err.h"
#include "dmabuf_events.skel.h"

struct ap_dmabuf_events {
	struct dmabuf_events_bpf *skel;
	struct ap_bpf_loaded ld;
	struct ap_bpf_link export, release;
	struct ring_buffer *rb;
	ap_dmabuf_ev_fn fn;		/* the drain's, for the ring's callback */
	void *ctx;
};

void ap_dmabuf_events_close(struct ap_dmabuf_events *ev)
{
	if (!ev)
		return;
	ring_buffer__free(ev->rb);
	ap_bpf_link_close(&ev->export);
	ap_bpf_link_close(&ev->release);
	ap_bpf_unload(&ev->ld);
	dmabuf_events_bpf__destroy(ev->skel);
	free(ev);
}

static int on_ring(void *ctx, void *data, size_t len)
{
	struct ap_dmabuf_events *ev = ctx;
	struct ap_dmabuf_ev_raw e;

	if (len < sizeof(e))
		return 0;
	memcpy(&e, data, sizeof(e));
	e.exporter[sizeof(e.exporter) - 1] = 0;
	ev->fn(ev->ctx, &e);
	return 0;
}

static int attach(struct ap_dmabuf_events *ev, char *err)
{
	char eb[96];
	int rc;

	rc = ap_bpf_attach_tracing(ap_bpf_prog_fd(&ev->ld, ev->skel->progs.dmabuf_export),
				   &ev->export);
	if (rc)
		return ap_fail(err, rc, "fexit of dma_buf_export refused: %s",
			       ap_probe_errstr(rc, eb, sizeof(eb)));
	rc = ap_bpf_attach_tracing(ap_bpf_prog_fd(&ev->ld, ev->skel->progs.dmabuf_release),
				   &ev->release);
	if (rc)
		return ap_fail(err, rc, "fentry of dma_buf_release refused: %s",
			       ap_probe_errstr(rc, eb, sizeof(eb)));
	ev->rb = ring_buffer__new(ap_bpf_map_fd(&ev->ld, ev->skel->maps.dmabuf_ring), on_ring,
				  ev, NULL);
	if (!ev->rb)
		return ap_fail(err, -errno, "the dma-buf events' ring buffer: %s",
			       ap_probe_errstr(errno, eb, sizeof(eb)));
	return 0;
}

int ap_dmabuf_events_open(struct ap_dmabuf_events **out, int tgid, char *err)
{
	struct ap_dmabuf_events *ev = calloc(1, sizeof(*ev));
	char why[AP_ERR_LEN];
	int rc;

	*out = NULL;
	if (!ev)
		return ap_fail(err, -ENOMEM, "out of memory");
	ev->export = ev->release = AP_BPF_LINK_NONE;
	ev->skel = dmabuf_events_bpf__open();
	if (!ev->skel) {
		rc = -errno;
		free(ev);
		return ap_fail(err, rc, "opening the dma-buf events' BPF object failed: %s",
			       strerror(-rc));
	}
	ev->skel->rodata->target_tgid = (__u32)tgid;
	rc = ap_bpf_load(ev->skel->obj, &ev->ld, false, why);
	if (rc) {
		ap_dmabuf_events_close(ev);
		return ap_fail(err, rc, "loading the dma-buf events' programs (fexit of "
			       "dma_buf_export, fentry of dma_buf_release) failed: %s", why);
	}
	rc = attach(ev, err);
	if (rc) {
		ap_dmabuf_events_close(ev);
		return rc;
	}
	*out = ev;
	return 0;
}

int ap_dmabuf_events_drain(struct ap_dmabuf_events *ev, ap_dmabuf_ev_fn fn, void *ctx,
			   char *err)
{
	int n;

	ev->fn = fn;
	ev->ctx = ctx;
	n = ring_buffer__consume(ev->rb);
	if (n < 0)
		return ap_fail(err, n, "reading the dma-buf events failed: %s", strerror(-n));
	return n;
}

void ap_dmabuf_events_counters(const struct ap_dmabuf_events *ev,
			       struct ap_dmabuf_ev_counters *c)
{
	*c = (struct ap_dmabuf_ev_counters){
		.ring_drops = __atomic_load_n(&ev->skel->bss->counters.ring_drops,
					      __ATOMIC_RELAXED),
		.untracked = __atomic_load_n(&ev->skel->bss->counters.untracked,
					     __ATOMIC_RELAXED),
	};
}
