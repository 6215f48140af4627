// SPDX-License-Identifier: Apache-2.0
/* budget: the verdict `plan --budget` prints, for one model or a process of several. */
#include "arenaprof/plan/budget.h"

/* memory.high: 95 % of the budget, a tripwire below memory.max. */
static uint64_t high_of(uint64_t budget)
{
	return budget > UINT64_MAX / 95 ? budget / 100 * 95 : budget * 95 / 100;
}

static uint64_t page_up(uint64_t v)
{
	return (v + 4095) / 4096 * 4096;
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
	/* memory.min never above memory.high (min <= high <= max, or the kernel protects
	 * more than the tripwire allows) */
	v->min = w < v->high ? w : v->high / 4096 * 4096;
	v->min_clamped = v->min < w;
}
