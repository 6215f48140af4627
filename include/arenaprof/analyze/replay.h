/* SPDX-License-Identifier: Apache-2.0 */
/*
 * replay: the correlated second pass over a trace, in one place. Once the analysis has
 * found the arena and correlation has its page tables (correlate.h), a consumer that
 * wants every fault in order (export, heatmap --faults all) reads the trace again here:
 * each fault comes with the mapping the analysis counted it in, its group, whether it is
 * the first on its page, and in the arena its page, planned offset, the plan's operator
 * and the tensor naming the page. Markers, samples, drops and notes are handed on as
 * they are (the mappings, allocations and the end are the analysis'). render/ lays out
 * what it gets and computes nothing of its own.
 */
#ifndef ARENAPROF_REPLAY_H
#define ARENAPROF_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/trace/walk.h"

struct ap_corr_fault {
	const struct ap_rec_fault *f;
	int32_t map;		/* the analysis' mapping, -1 none */
	enum ap_group group;
	bool first;		/* the first fault on its page of its mapping in the trace */
	bool in_arena;		/* in the arena's mapping (with a plan: correlate.h's bounds) */
	uint64_t page;		/* in_arena: the page of the arena mapping */
	int64_t offset;		/* in_arena: the address less the base (a planned offset) */
	int32_t plan_op;	/* in_arena: the plan's attribution of the page, AP_OP_NONE */
	int32_t tensor;		/* with a plan_op: the tensor that names the page, -1 */
};

/*
 * Reads the trace x was loaded from again, as the analysis read it (the same records
 * salvaged): every fault to `fault`, markers, samples, drops and notes to rest's
 * callbacks (NULL: not wanted; rest->fault is not called; rest->ctx is both's). 0; the
 * consumer's nonzero value; -ENOMEM, or -EINVAL with err when the trace cannot be read.
 */
int ap_corr_replay(const struct ap_corr_all *x, const char *trace,
		   int (*fault)(void *ctx, const struct ap_corr_fault *cf),
		   const struct ap_trace_consumer *rest, char *err);

#endif
