/* SPDX-License-Identifier: Apache-2.0 */
/*
 * budget: a budget's verdict on the two halves of memory (docs/design.md, "The question
 * and the two halves of memory"), a model's or a process's, and the cgroup v2 settings
 * `plan --budget` suggests. Arithmetic only: the reports print it.
 */
#ifndef ARENAPROF_PLAN_BUDGET_H
#define ARENAPROF_PLAN_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct ap_budget_verdict {
	uint64_t budget;
	uint64_t anon;		/* non-reclaimable: resident once written, never reclaimed */
	uint64_t file;		/* reclaimable: file-backed weights the runtime keeps reading */
	uint64_t total;		/* anon + file: both halves resident */
	bool fits;		/* total <= budget */
	bool anon_fits;		/* anon <= budget: the gate (exit 3 when false); the weights
				 * can be paged out and read again, the anonymous half cannot */
	int64_t margin;		/* budget - total, negative over it */
	uint64_t high;		/* memory.high: 95 % of the budget, a tripwire below max */
	uint64_t min;		/* memory.min: the mapped weights, page-rounded, <= high */
	bool min_clamped;	/* min is below the weights: memory.high allows no more */
};

/* v from the two halves against budget; anon + file must not overflow (each is bounded
 * by the plans' AP_PLAN_MAX_BYTES, or checked by the caller). */
void ap_budget_judge(uint64_t budget, uint64_t anon, uint64_t file,
		     struct ap_budget_verdict *v);

#endif
