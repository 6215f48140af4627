// SPDX-License-Identifier: Apache-2.0
/* plan_load: the --plan option, through plan_build (include/arenaprof/plan/plan_load.h). */
#include "arenaprof/plan/plan_build.h"
#include "arenaprof/plan/plan_load.h"

static int load(const char *path, enum ap_delegate d, bool bound, enum ap_runtime_id rt,
		struct ap_tplan *p, char *err)
{
	struct ap_plan_req rq = { .path = path, .src = AP_PLAN_ANY, .strat = AP_STRAT_TFLITE,
				  .delegate = d, .io_bound = bound, .gopts.runtime = rt };
	struct ap_plan_set s = { 0 };
	int rc = ap_plan_build(&rq, &s, err);

	if (!rc && s.have_xnn_arena) {
		*p = s.xnn_arena;
		s.xnn_arena = (struct ap_tplan){ 0 };
	} else if (!rc) {
		*p = s.plan;
		s.plan = (struct ap_tplan){ 0 };
	}
	ap_plan_set_free(&s);
	return rc;
}

int ap_plan_load_for(const char *path, enum ap_delegate d, enum ap_runtime_id rt,
		     struct ap_tplan *p, char *err)
{
	return load(path, d, false, rt, p, err);
}

int ap_plan_load_compiled(const char *path, enum ap_runtime_id rt, struct ap_tplan *p,
			  char *err)
{
	return load(path, AP_DELEGATE_XNNPACK, true, rt, p, err);
}

int ap_plan_load(const char *path, struct ap_tplan *p, char *err)
{
	return ap_plan_load_for(path, AP_DELEGATE_NONE, AP_RUNTIME_LITERT, p, err);
}
