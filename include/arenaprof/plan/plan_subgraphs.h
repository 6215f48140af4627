/* SPDX-License-Identifier: Apache-2.0 */
/* plan_subgraphs: the arena sizes of every subgraph of a model, each planned on its own. */
#ifndef ARENAPROF_PLAN_SUBGRAPHS_H
#define ARENAPROF_PLAN_SUBGRAPHS_H

#include <stdint.h>

#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/graph.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/subgraphs.h"

struct ap_sg_plan {
	struct ap_sg_info info;	/* its role, with at_invoke from ap_subgraph_late (a
				 * subgraph run after a dynamic output too) */
	bool planned;		/* LiteRT plans it (role other than UNCALLED and OTHER) */
	uint64_t arena_bytes, persistent_bytes;
	uint32_t n_gaps;	/* its operators that are not modelled, and 1 for a caller
				 * not modelled (coverage.h) */
	struct ap_caller_gap caller_gap;	/* why NULL: its callers are modelled */
};

/*
 * A subgraph its caller plans itself (the one `plan` shows, with every strategy), so that
 * it is not built and planned twice: plan does what plan_one would (build the graph, find
 * its gaps, plan it with the strategy) and sets sp's sizes and n_gaps. 0, or a negative
 * errno with err.
 */
struct ap_sg_hook {
	uint32_t subgraph;
	int (*plan)(void *ctx, struct ap_sg_plan *sp, char *err);
	void *ctx;
};

/*
 * Plans every subgraph of m with strategy s: out[m->n_subgraphs], malloc'd; the hook's
 * subgraph (hook may be NULL) through the hook. A subgraph LiteRT never plans has planned
 * false and no sizes. 0, or a negative errno with err: the graph's or the planner's
 * (-EINVAL: bad input), or -ENOMEM.
 */
int ap_plan_subgraphs(const struct ap_model *m, const struct ap_graph_opts *o,
		      enum ap_strategy s, const struct ap_sg_hook *hook,
		      struct ap_sg_plan **out, char *err);

#endif
