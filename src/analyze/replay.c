// SPDX-License-Identifier: Apache-2.0
/* replay: the correlated second pass over a trace (replay.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/pageset.h"
#include "arenaprof/analyze/replay.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"

struct replay {
	const struct ap_corr_all *x;
	int (*fault)(void *ctx, const struct ap_corr_fault *cf);
	const struct ap_trace_consumer *rest;
	struct ap_pageset seen;	/* pages faulted so far: mapping << 40 | page */
};

/* The records handed on, each to the consumer's callback if it has one. */
static int on_marker(void *ctx, uint32_t type, const struct ap_rec_marker *m)
{
	const struct ap_trace_consumer *c = ((struct replay *)ctx)->rest;

	return c->marker ? c->marker(c->ctx, type, m) : 0;
}

static int on_sample(void *ctx, const struct ap_rec_sample *s)
{
	const struct ap_trace_consumer *c = ((struct replay *)ctx)->rest;

	return c->sample ? c->sample(c->ctx, s) : 0;
}

static int on_drops(void *ctx, const struct ap_rec_drops *d)
{
	const struct ap_trace_consumer *c = ((struct replay *)ctx)->rest;

	return c->drops ? c->drops(c->ctx, d) : 0;
}

/* A trace's note, made printable where it is read (escape.h). */
static int on_note(void *ctx, const struct ap_rec_note *n, const char *text)
{
	const struct ap_trace_consumer *c = ((struct replay *)ctx)->rest;
	char *clean;
	int rc;

	if (!c->note)
		return 0;
	clean = ap_name_clean(strdup(text));
	if (!clean)
		return -ENOMEM;
	rc = c->note(c->ctx, n, clean);
	free(clean);
	return rc;
}

static int on_fault(void *ctx, const struct ap_rec_fault *f)
{
	struct replay *rp = ctx;
	const struct ap_analysis *a = &rp->x->a;
	const struct ap_corr *co = &rp->x->c;
	int32_t mi = ap_analysis_map_of(a, f);
	struct ap_corr_fault cf = {
		.f = f, .map = mi, .group = ap_corr_group_of(a, mi), .plan_op = AP_OP_NONE,
		.tensor = -1,
	};

	if (mi >= 0 && f->addr >= a->as.maps[mi].start && f->addr < a->as.maps[mi].end) {
		int added = ap_pageset_add(&rp->seen, (uint64_t)mi << AP_AS_MAP_BITS |
					   (f->addr - a->as.maps[mi].start) >> a->as.page_shift);

		if (added < 0)
			return -ENOMEM;
		cf.first = added;
	}
	if (mi >= 0 && mi == co->arena && f->addr >= co->map_start && f->addr < co->map_end) {
		cf.in_arena = true;
		cf.page = (f->addr - co->map_start) / co->page_size;
		cf.offset = (int64_t)(f->addr - co->base);
		cf.plan_op = ap_corr_plan_op_at(co, f->addr);
		if (cf.plan_op != AP_OP_NONE)
			cf.tensor = co->page_tensor[cf.page];
	}
	return rp->fault(rp->rest->ctx, &cf);
}

int ap_corr_replay(const struct ap_corr_all *x, const char *trace,
		   int (*fault)(void *ctx, const struct ap_corr_fault *cf),
		   const struct ap_trace_consumer *rest, char *err)
{
	struct replay rp = { .x = x, .fault = fault, .rest = rest };
	struct ap_trace_consumer c = {
		.fault = on_fault, .marker = on_marker, .sample = on_sample, .drops = on_drops,
		.note = on_note, .ctx = &rp,
	};
	struct ap_trace_reader r;
	int rc;

	if (ap_trace_open(&r, trace, err))
		return -EINVAL;
	r.salvage = x->a.salvage;	/* the analysis pass's records, the same skipped */
	r.fold_map_copies = true;	/* the mappings are the analysis' */
	ap_pageset_init(&rp.seen);
	rc = ap_trace_walk(&r, &c, NULL, err);
	ap_trace_reader_close(&r);
	ap_pageset_free(&rp.seen);
	if (rc == -EBADMSG)
		return -EINVAL;
	if (rc == -ENOMEM)
		ap_seterr(err, "out of memory");
	return rc;
}
