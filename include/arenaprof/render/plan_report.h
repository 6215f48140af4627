/* SPDX-License-Identifier: Apache-2.0 */
/* plan_report: `arenaprof plan` output as text, JSON and CSV, from one plan set. */
#ifndef ARENAPROF_PLAN_REPORT_H
#define ARENAPROF_PLAN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/plan/shapes.h"
#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/model.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_subgraphs.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/profile.h"

struct ap_plan_set {
	const struct ap_model *model;	/* NULL for an imported plan */
	struct ap_tplan plan;		/* the selected strategy, or the import */
	struct ap_profile prof;		/* from the plan's lifetimes */
	bool have_strategies;
	uint64_t strat_bytes[AP_STRAT_COUNT];
	uint64_t strat_lb[AP_STRAT_COUNT];	/* lower bound under its own lifetimes */
	uint64_t naive_bytes;
	bool as_float32;
	bool have_budget;
	uint64_t budget;
	unsigned top;
	struct ap_gap *gaps;		/* operators kernels.c does not model (coverage.h) */
	uint32_t n_gaps;
	struct ap_caller_gap caller_gap;	/* why set: a caller up the subgraph's chain is
						 * not modelled */
	uint32_t subgraph;		/* the one plan shows */
	enum ap_arch arch;		/* the CPU the plan is for (resolved) */
	int32_t *split_after;		/* nodes whose dynamic output ends a planning step */
	uint32_t n_split;
	struct ap_sg_plan *sgs;		/* every subgraph's sizes; NULL for an import */
	bool have_shapes;		/* shapes: what shape inference did (not for an import) */
	struct ap_shapes_report shapes;
	uint32_t n_input_shapes;	/* --input-shape given */
};

/* With a budget: whether the model's pinned memory (arena and persistent arena) fits it. */
bool ap_plan_fits(const struct ap_plan_set *s);
void ap_plan_print_text(FILE *f, const struct ap_plan_set *s);
void ap_plan_print_json(FILE *f, const struct ap_plan_set *s);
void ap_plan_print_csv(FILE *f, const struct ap_tplan *p);

#endif
