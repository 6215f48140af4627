/* SPDX-License-Identifier: Apache-2.0 */
/*
 * walk: the one loop over a trace's records. Each record is read into its struct and
 * handed to the consumer's callback for its type (a NULL callback: the type is not
 * wanted), so the passes above (the analysis, the correlated replay) never decode a
 * record themselves.
 */
#ifndef ARENAPROF_TRACE_WALK_H
#define ARENAPROF_TRACE_WALK_H

#include <stdint.h>

#include "arenaprof/trace/trace.h"

/*
 * A callback's nonzero return (a negative errno) ends the walk with that value; a
 * positive one pauses it after that record: the walk returns it, and a later call on the
 * same reader goes on from the next record.
 */
struct ap_trace_consumer {
	int (*fault)(void *ctx, const struct ap_rec_fault *f);
	int (*mapping)(void *ctx, const struct ap_rec_mapping *m, const char *path);
	/* the bitmap's bits: nbits of them, bit i of byte i / 8 */
	int (*resident)(void *ctx, const struct ap_rec_resident *r, const uint8_t *bits,
			uint64_t nbits);
	/* AP_REC_RUN_BEGIN, AP_REC_RUN_END, AP_REC_OP_BEGIN, AP_REC_OP_END */
	int (*marker)(void *ctx, uint32_t type, const struct ap_rec_marker *m);
	int (*sample)(void *ctx, const struct ap_rec_sample *s);
	int (*drops)(void *ctx, const struct ap_rec_drops *d);
	int (*note)(void *ctx, const struct ap_rec_note *n, const char *text);
	int (*alloc)(void *ctx, const struct ap_rec_alloc *a);
	int (*end)(void *ctx, const struct ap_rec_end *e);
	/* the target's dma-bufs at a poll, then each of its buffers (names cleaned) */
	int (*dmabuf)(void *ctx, const struct ap_rec_dmabuf *d);
	int (*dmabuf_buf)(void *ctx, const struct ap_rec_dmabuf_buf *b);
	/* a dma-buf the target exported, or its release (exporter cleaned) */
	int (*dmabuf_ev)(void *ctx, const struct ap_rec_dmabuf_ev *e);
	/* the object a run was begun on (AP_REC_RUN_OBJ) */
	int (*run_obj)(void *ctx, const struct ap_rec_run_obj *o);
	void *ctx;
};

/* The times the records span: the earliest and the latest, 0 without a timed record. */
struct ap_trace_span {
	uint64_t t_first, t_last;
};

/*
 * Walks the rest of an open reader (ap_trace_open, its salvage and fold_map_copies set
 * as the pass wants) to its end. 0; a callback's nonzero value; or -EBADMSG with err
 * when the reader fails (corrupt, unreadable). span, when not NULL, gets the times.
 */
int ap_trace_walk(struct ap_trace_reader *r, const struct ap_trace_consumer *c,
		  struct ap_trace_span *span, char *err);

#endif
