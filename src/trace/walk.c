// SPDX-License-Identifier: Apache-2.0
/* walk: the one loop over a trace's records (walk.h). */
#include <errno.h>
#include <stdbool.h>
#include <string.h>

#include "arenaprof/trace/walk.h"
#include "arenaprof/util/escape.h"

#define GET(rec, v) ap_trace_get((rec), &(v), sizeof(v))

/* One record to its callback: the callback's value, 0 when none is wanted. */
static int dispatch(const struct ap_trace_consumer *c, const struct ap_trace_rec *rec)
{
	switch (rec->type) {
	case AP_REC_FAULT: {
		struct ap_rec_fault f;

		return c->fault ? (GET(rec, f), c->fault(c->ctx, &f)) : 0;
	}
	case AP_REC_MAPPING: {
		struct ap_rec_mapping m;

		if (!c->mapping)
			return 0;
		GET(rec, m);
		return c->mapping(c->ctx, &m, ap_trace_str(rec, sizeof(m)));
	}
	case AP_REC_RESIDENT: {
		struct ap_rec_resident r;

		if (!c->resident || rec->len < sizeof(r))
			return 0;
		GET(rec, r);
		return c->resident(c->ctx, &r, rec->payload + sizeof(r),
				   (uint64_t)(rec->len - sizeof(r)) * 8);
	}
	case AP_REC_RUN_BEGIN:
	case AP_REC_RUN_END:
	case AP_REC_OP_BEGIN:
	case AP_REC_OP_END: {
		struct ap_rec_marker m;

		return c->marker ? (GET(rec, m), c->marker(c->ctx, rec->type, &m)) : 0;
	}
	case AP_REC_SAMPLE: {
		struct ap_rec_sample s;

		return c->sample ? (GET(rec, s), c->sample(c->ctx, &s)) : 0;
	}
	case AP_REC_DROPS: {
		struct ap_rec_drops d;

		return c->drops ? (GET(rec, d), c->drops(c->ctx, &d)) : 0;
	}
	case AP_REC_NOTE: {
		struct ap_rec_note n;

		if (!c->note)
			return 0;
		GET(rec, n);
		return c->note(c->ctx, &n, ap_trace_str(rec, sizeof(n)));
	}
	case AP_REC_ALLOC: {
		struct ap_rec_alloc a;

		return c->alloc ? (GET(rec, a), c->alloc(c->ctx, &a)) : 0;
	}
	case AP_REC_DMABUF: {
		struct ap_rec_dmabuf d;

		return c->dmabuf ? (GET(rec, d), c->dmabuf(c->ctx, &d)) : 0;
	}
	case AP_REC_DMABUF_BUF: {
		struct ap_rec_dmabuf_buf b;

		if (!c->dmabuf_buf)
			return 0;
		GET(rec, b);
		b.exporter[sizeof(b.exporter) - 1] = 0;
		b.name[sizeof(b.name) - 1] = 0;
		ap_name_clean(b.exporter);
		ap_name_clean(b.name);
		return c->dmabuf_buf(c->ctx, &b);
	}
	case AP_REC_DMABUF_EV: {
		struct ap_rec_dmabuf_ev e;

		if (!c->dmabuf_ev)
			return 0;
		GET(rec, e);
		e.exporter[sizeof(e.exporter) - 1] = 0;
		ap_name_clean(e.exporter);
		return c->dmabuf_ev(c->ctx, &e);
	}
	case AP_REC_RUN_OBJ: {
		struct ap_rec_run_obj o;

		return c->run_obj ? (GET(rec, o), c->run_obj(c->ctx, &o)) : 0;
	}
	case AP_REC_END: {
		struct ap_rec_end e;

		return c->end ? (GET(rec, e), c->end(c->ctx, &e)) : 0;
	}
	}
	return 0;
}

/* Every record type the walk hands on starts with its time. */
static bool timed(uint32_t type)
{
	return (type >= AP_REC_FAULT && type <= AP_REC_ALLOC) ||
	       (type >= AP_REC_DMABUF && type <= AP_REC_DMABUF_EV);
}

int ap_trace_walk(struct ap_trace_reader *r, const struct ap_trace_consumer *c,
		  struct ap_trace_span *span, char *err)
{
	struct ap_trace_rec rec;
	int rc;

	if (span)
		*span = (struct ap_trace_span){ 0 };
	while ((rc = ap_trace_next(r, &rec, err)) == 1) {
		uint64_t ts = 0;
		int bad = dispatch(c, &rec);

		if (bad)
			return bad;
		if (span && timed(rec.type) && rec.len >= 8)
			memcpy(&ts, rec.payload, 8);
		if (ts) {
			if (!span->t_first || ts < span->t_first)
				span->t_first = ts;
			if (ts > span->t_last)
				span->t_last = ts;
		}
	}
	return rc < 0 ? -EBADMSG : 0;
}
