// SPDX-License-Identifier: Apache-2.0
/* plan_process: the sums of several models' plans in one process (plan_process.h). */
#include <errno.h>

#include "arenaprof/plan/plan_process.h"

int ap_plan_process_sum(const struct ap_plan_set *sets, uint32_t n, struct ap_plan_process *p,
			char *err)
{
	uint64_t best = 0;

	*p = (struct ap_plan_process){ .n = n };
	for (uint32_t i = 0; i < n; i++) {
		uint64_t anon = ap_plan_set_anon_bytes(&sets[i]);

		/* each model is bounded by AP_PLAN_MAX_BYTES, but not thousands of them */
		if (__builtin_add_overflow(p->anon_bytes, anon, &p->anon_bytes) ||
		    __builtin_add_overflow(p->file_bytes, ap_plan_set_file_bytes(&sets[i]),
					   &p->file_bytes))
			return ap_fail(err, -EOVERFLOW, "the models' memory sums to more than "
				       "2^64 bytes");
		if (!i || anon > best) {
			best = anon;
			p->largest = i;
		}
	}
	p->others_anon_bytes = p->anon_bytes - best;
	if (__builtin_add_overflow(p->anon_bytes, p->file_bytes, &p->total_bytes))
		return ap_fail(err, -EOVERFLOW, "the models' memory sums to more than 2^64 bytes");
	return 0;
}
