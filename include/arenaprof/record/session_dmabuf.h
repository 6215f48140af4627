/* SPDX-License-Identifier: Apache-2.0 */
/*
 * session_dmabuf: the session's sampler of the target's dma-bufs (kernel/dmabuf.h): at
 * each sample, the buffers it holds by fd and by mapping, their sizes and exporters from
 * the BPF dma-buf iterator where the kernel has one (dmabuf_iter.h), else from fdinfo,
 * and CMA from /proc/meminfo. The iterator is loaded at the first buffer seen, so a
 * process without dma-bufs costs one scan of its fds a sample and nothing more. A
 * sample is handed on only when it differs from the last one handed on, and the first
 * only once the target holds a buffer: a process without dma-bufs gets no record in its
 * trace.
 *
 * Where the kernel lets it, the target's exports and releases are traced besides, as they
 * happen (dmabuf_events.h), and handed on at each poll: a buffer held for less than one
 * interval is then seen too.
 */
#ifndef ARENAPROF_RECORD_SESSION_DMABUF_H
#define ARENAPROF_RECORD_SESSION_DMABUF_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "arenaprof/kernel/dmabuf.h"
#include "arenaprof/record/dmabuf_events.h"
#include "arenaprof/record/dmabuf_iter.h"
#include "arenaprof/trace/trace.h"
#include "arenaprof/util/err.h"

struct ap_dmabuf_sampler {
	struct ap_dmabuf_set cur;	/* the latest poll's buffers */
	struct ap_dmabuf_set last;	/* those last handed on */
	struct ap_dmabuf_set all;	/* the iterator's system-wide list */
	struct ap_dmabuf_iter *iter;	/* NULL: fdinfo */
	struct ap_dmabuf_events *events;	/* NULL: polled only */
	char events_why[AP_ERR_LEN];	/* why not, when NULL */
	bool seen;			/* a buffer or an event seen: iterator tried, note made */
	bool sent;			/* a sample was handed on */
	/*
	 * Set at the first buffer seen, for the caller to note once and clear: the source
	 * and the poll rate (and, for fdinfo, why not the iterator).
	 */
	char note[1024];
	bool failed;			/* a read failed: noted once, then quiet */
	uint32_t interval_ms;
};

/* The events are attached here, for pid, before it runs (those it allows). */
void ap_dmabuf_sampler_init(struct ap_dmabuf_sampler *d, uint32_t interval_ms, int pid);

typedef void (*ap_dmabuf_ev_rec_fn)(void *ctx, const struct ap_rec_dmabuf_ev *e);

/* The events queued since the last call, in order, to fn: 0 or a negative errno. */
int ap_dmabuf_sampler_drain(struct ap_dmabuf_sampler *d, ap_dmabuf_ev_rec_fn fn, void *ctx,
			    char *err);
/*
 * Drains the events to fn, then polls pid at ts_ns: 1 with rec filled (and d->cur the
 * buffers) when the sample is to be recorded, 0 when not, a negative errno with err when
 * a read failed (-ESRCH: gone).
 */
int ap_dmabuf_sampler_poll(struct ap_dmabuf_sampler *d, int pid, uint64_t ts_ns,
			   struct ap_rec_dmabuf *rec, ap_dmabuf_ev_rec_fn fn, void *ctx,
			   char *err);
/* At the end: what the events lost, for a warning; "" nothing. */
void ap_dmabuf_sampler_losses(const struct ap_dmabuf_sampler *d, char *buf, size_t len);
/* The trace record of buffer i of d->cur at ts_ns. */
void ap_dmabuf_sampler_buf(const struct ap_dmabuf_sampler *d, uint32_t i, uint64_t ts_ns,
			   struct ap_rec_dmabuf_buf *b);
void ap_dmabuf_sampler_free(struct ap_dmabuf_sampler *d);

#endif
