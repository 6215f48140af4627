// SPDX-License-Identifier: Apache-2.0
/*
 * budget: the verdict `plan --budget` prints, for one model or a process of several; the
 * verdict of `report --budget` on a measured process; plan --baseline's runtime cost.
 */
#include "arenaprof/plan/budget.h"

/* memory.high: 95 % of the budget, a tripwire below memory.max. */
static uint64_t high_of(uint64_t budget)
{
	return budget > UINT64_MAX / 95 ? budget / 100 * 95 : budget * 95 / 100;
}

static uint64_t page_up(uint64_t v)
{
	return v > UINT64_MAX - 4095 ? UINT64_MAX / 4096 * 4096 : (v + 4095) / 4096 * 4096;
}

void ap_budget_judge(uint64_t budget, uint64_t anon, uint64_t file,
		     struct ap_budget_verdict *v)
{
	uint64_t w = page_up(file);

	*v = (struct ap_budget_verdict){ .budget = budget, .anon = anon, .file = file,
					 .total = anon + file };
	v->fits = v->total <= budget;
	v->anon_fits = anon <= budget;
	v->margin = (int64_t)budget - (int64_t)v->total;
	v->high = high_of(budget);
	v->high_raised = v->anon_fits && anon > v->high;
	if (v->high_raised)
		v->high = anon;
	/* memory.min never above memory.high (min <= high <= max, or the kernel protects
	 * more than the tripwire allows) */
	v->min = w < v->high ? w : v->high / 4096 * 4096;
	v->min_clamped = v->min < w;
	v->needed = page_up(anon);
}

void ap_budget_protect(struct ap_budget_verdict *v, uint64_t need)
{
	uint64_t n = page_up(need), cap = v->high / 4096 * 4096;

	if (n <= v->min)
		return;
	v->min = n < cap ? n : cap;
	v->min_clamped = v->min < n;
	v->min_need = true;
}

void ap_budget_judge_process(uint64_t budget, uint64_t peak, uint64_t nonreclaimable,
			     struct ap_budget_process *v)
{
	*v = (struct ap_budget_process){ .budget = budget, .peak = peak,
					 .nonreclaimable = nonreclaimable };
	v->reclaimable = peak > nonreclaimable ? peak - nonreclaimable : 0;
	if (nonreclaimable > budget) {
		v->decided_by = AP_BUDGET_BY_NONRECLAIMABLE;
		v->margin = (int64_t)budget - (int64_t)nonreclaimable;
	} else {
		v->decided_by = AP_BUDGET_BY_PEAK;
		v->margin = (int64_t)budget - (int64_t)peak;
	}
	v->fits = nonreclaimable <= budget && peak <= budget;
}

void ap_budget_no_run(struct ap_budget_process *v)
{
	if (!v->fits)
		return;
	v->fits = false;
	v->unknown = true;
	v->decided_by = AP_BUDGET_BY_NO_RUN;
}

const char *ap_budget_decider_key(enum ap_budget_decider d)
{
	return d == AP_BUDGET_BY_NONRECLAIMABLE ? "nonreclaimable" :
	       d == AP_BUDGET_BY_PEAK ? "peak" : "no_run";
}

void ap_budget_baseline(uint64_t peak, uint64_t nonreclaimable, uint64_t model_anon,
			uint64_t model_file, struct ap_budget_baseline *b)
{
	uint64_t recl = peak > nonreclaimable ? peak - nonreclaimable : 0;

	b->measured_peak = peak;
	b->measured_nonreclaimable = nonreclaimable;
	b->runtime_anon = nonreclaimable > model_anon ? nonreclaimable - model_anon : 0;
	b->runtime_file = recl > model_file ? recl - model_file : 0;
}
