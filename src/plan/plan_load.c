// SPDX-License-Identifier: Apache-2.0
/* plan_load: the --plan option, through plan_build (include/arenaprof/plan/plan_load.h). */
#include "arenaprof/plan/plan_build.h"
#include "arenaprof/plan/plan_load.h"

int ap_plan_load(const char *path, struct ap_tplan *p, char *err)
{
	/* the builtin plan: attributing a trace against XNNPACK's is issue 25's */
	struct ap_plan_req rq = { .path = path, .src = AP_PLAN_ANY, .strat = AP_STRAT_TFLITE,
				  .delegate = AP_DELEGATE_NONE };
	struct ap_plan_set s = { 0 };
	int rc = ap_plan_build(&rq, &s, err);

	if (!rc) {
		*p = s.plan;
		s.plan = (struct ap_tplan){ 0 };
	}
	ap_plan_set_free(&s);
	return rc;
}
