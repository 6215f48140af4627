// SPDX-License-Identifier: Apache-2.0
/* session_dmabuf: the target's dma-bufs at each sample (session_dmabuf.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/record/session_dmabuf.h"
#include "arenaprof/util/err.h"

_Static_assert(AP_DMABUF_EV_EXPORT == AP_DMABUF_EV_EXPORTED &&
	       AP_DMABUF_EV_RELEASE == AP_DMABUF_EV_RELEASED, "the ring's kinds are the trace's");

void ap_dmabuf_sampler_init(struct ap_dmabuf_sampler *d, uint32_t interval_ms, int pid)
{
	memset(d, 0, sizeof(*d));
	d->interval_ms = interval_ms;
	if (ap_dmabuf_events_open(&d->events, pid, d->events_why))
		d->events = NULL;
}

/*
 * At the first buffer or event: the iterator if the kernel has one, and the note that
 * says how the buffers are seen.
 */
static void choose_source(struct ap_dmabuf_sampler *d)
{
	char why[AP_ERR_LEN], ev[AP_ERR_LEN + 96];

	d->seen = true;
	if (d->events)
		snprintf(ev, sizeof(ev), "exports and releases traced as they happen (fentry); ");
	else
		snprintf(ev, sizeof(ev), "no events (%s): a buffer held for less than one poll "
			 "may be missed; ", d->events_why);
	if (!ap_dmabuf_iter_open(&d->iter, why)) {
		snprintf(d->note, sizeof(d->note), "dma-bufs: %ssampled every %u ms; sizes and "
			 "exporters from the BPF dma-buf iterator (bpf_iter)", ev, d->interval_ms);
		return;
	}
	snprintf(d->note, sizeof(d->note), "dma-bufs: %ssampled every %u ms; sizes and "
		 "exporters from /proc/PID/fdinfo (no BPF iterator: %s)", ev, d->interval_ms,
		 why);
}

struct drain {
	ap_dmabuf_ev_rec_fn fn;
	void *ctx;
	uint32_t n;
};

static void one_event(void *ctx, const struct ap_dmabuf_ev_raw *e)
{
	struct drain *dr = ctx;
	struct ap_rec_dmabuf_ev r = {
		.ts_ns = e->ts_ns, .inode = e->inode, .size = e->size, .kind = e->kind,
		.tid = e->tid, .method = AP_DMABUF_EVENTS_FENTRY,
	};

	memcpy(r.exporter, e->exporter, sizeof(r.exporter));
	dr->fn(dr->ctx, &r);
	dr->n++;
}

int ap_dmabuf_sampler_drain(struct ap_dmabuf_sampler *d, ap_dmabuf_ev_rec_fn fn, void *ctx,
			    char *err)
{
	struct drain dr = { .fn = fn, .ctx = ctx };
	int rc;

	if (!d->events)
		return 0;
	rc = ap_dmabuf_events_drain(d->events, one_event, &dr, err);
	if (rc < 0)
		return rc;
	if (dr.n && !d->seen)
		choose_source(d);
	return 0;
}

void ap_dmabuf_sampler_losses(const struct ap_dmabuf_sampler *d, char *buf, size_t len)
{
	struct ap_dmabuf_ev_counters c = { 0 };

	buf[0] = 0;
	if (d->events)
		ap_dmabuf_events_counters(d->events, &c);
	if (c.ring_drops || c.untracked)
		snprintf(buf, len, "dma-buf events: %llu lost to a full ring, %llu exports past "
			 "the %u tracked whose release goes unseen",
			 (unsigned long long)c.ring_drops, (unsigned long long)c.untracked,
			 AP_DMABUF_EV_KEPT);
}

int ap_dmabuf_sampler_poll(struct ap_dmabuf_sampler *d, int pid, uint64_t ts_ns,
			   struct ap_rec_dmabuf *rec, ap_dmabuf_ev_rec_fn fn, void *ctx,
			   char *err)
{
	struct ap_cma cma;
	char e2[AP_ERR_LEN];
	int rc;

	rc = ap_dmabuf_sampler_drain(d, fn, ctx, err);
	if (!rc)
		rc = ap_dmabuf_read(pid, &d->cur, err);
	if (!rc && d->cur.n && !d->seen)
		choose_source(d);
	if (!rc && d->iter && d->cur.n) {
		rc = ap_dmabuf_iter_read(d->iter, &d->all, err);
		if (!rc)
			ap_dmabuf_fill(&d->cur, &d->all);
	}
	if (rc)
		return rc;
	if (d->iter)	/* none held: nothing to fill, the source is still the iterator */
		d->cur.source = AP_DMABUF_SRC_BPF_ITER;
	else
		d->all.n = 0;
	if (!d->sent ? !d->cur.n : ap_dmabuf_equal(&d->cur, &d->last))
		return 0;
	if (ap_dmabuf_cma(&cma, e2))
		cma.total = cma.free = AP_NO_VALUE;
	*rec = (struct ap_rec_dmabuf){
		.ts_ns = ts_ns, .bytes = d->cur.bytes, .mapped_rss = d->cur.mapped_rss,
		.cma_total = cma.total, .cma_free = cma.free,
		.sys_bytes = d->iter && d->cur.n ? d->all.bytes : AP_NO_VALUE,
		.buffers = d->cur.n, .source = d->cur.source, .interval_ms = d->interval_ms,
		.sys_buffers = d->iter && d->cur.n ? d->all.n : 0,
		.events = d->events ? AP_DMABUF_EVENTS_FENTRY : AP_DMABUF_EVENTS_NONE,
	};
	/* keep what was handed on, to tell a change from the next poll */
	d->last.n = 0;
	for (uint32_t i = 0; i < d->cur.n; i++) {
		struct ap_dmabuf *b = ap_dmabuf_get(&d->last, d->cur.b[i].inode);

		if (!b)
			return ap_fail(err, -ENOMEM, "out of memory");
		*b = d->cur.b[i];
	}
	d->last.source = d->cur.source;
	d->sent = true;
	return 1;
}

void ap_dmabuf_sampler_buf(const struct ap_dmabuf_sampler *d, uint32_t i, uint64_t ts_ns,
			   struct ap_rec_dmabuf_buf *r)
{
	const struct ap_dmabuf *b = &d->cur.b[i];

	memset(r, 0, sizeof(*r));
	r->ts_ns = ts_ns;
	r->inode = b->inode;
	r->size = b->size;
	r->mapped_bytes = b->mapped_bytes;
	r->mapped_rss = b->mapped_rss;
	r->fds = b->fds;
	r->maps = b->maps;
	r->flags = b->size_from_map ? AP_DMABUF_F_SIZE_FROM_MAP : 0;
	memcpy(r->exporter, b->exporter, sizeof(r->exporter));
	memcpy(r->name, b->name, sizeof(r->name));
}

void ap_dmabuf_sampler_free(struct ap_dmabuf_sampler *d)
{
	ap_dmabuf_iter_close(d->iter);
	ap_dmabuf_events_close(d->events);
	ap_dmabuf_free(&d->cur);
	ap_dmabuf_free(&d->last);
	ap_dmabuf_free(&d->all);
	memset(d, 0, sizeof(*d));
}
