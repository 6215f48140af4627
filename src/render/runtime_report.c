// SPDX-License-Identifier: Apache-2.0
/* runtime_report: the runtime a trace ran and its plan rules (runtime_report.h). */
#include <string.h>

#include "arenaprof/render/runtime_report.h"
#include "arenaprof/util/escape.h"

#define TS(s) ap_text_safe((s), (char[600]){ 0 }, 600)

/* A model was planned (an imported plan has no rules applied). */
static bool planned(const struct ap_corr_all *x)
{
	return x->have_plan && strncmp(x->plan.strategy, "import:", 7);
}

void ap_runtime_report_text(FILE *f, const struct ap_corr_all *x)
{
	const struct ap_trace_runtime *rt = &x->rt;
	const struct ap_runtime *d = ap_runtime_get(rt->id);
	char seen[140], why[400];

	if (!rt->n_seen && !planned(x))
		return;
	if (rt->n_seen)
		fprintf(f, "runtime    %s (from %s)", TS(ap_trace_runtime_seen(rt, seen,
			sizeof(seen))), TS(rt->seen.source));
	else
		fprintf(f, "runtime    none named by the trace");
	if (planned(x))
		fprintf(f, "; planned by %s's rules (%s), %s", d->name, d->what,
			TS(ap_trace_runtime_why(rt, why, sizeof(why))));
	fprintf(f, "\n");
	if (planned(x) && rt->xnn_unmodelled)
		fprintf(f, "           %s's XNNPACK delegate is not modelled: the plan of its "
			"default path is LiteRT 2.3's delegate over %s's kernels (--delegate none "
			"plans the builtin kernels)\n", d->name, d->name);
}

void ap_runtime_report_json(struct ap_json *j, const struct ap_corr_all *x)
{
	const struct ap_trace_runtime *rt = &x->rt;
	const struct ap_runtime *d = ap_runtime_get(rt->id);
	char buf[400];

	ap_json_obj(j, "runtime");
	if (planned(x)) {
		ap_json_str(j, "name", d->name);
		ap_json_str(j, "what", d->what);
		ap_json_str(j, "chosen", rt->given ? "given" : "auto");
		ap_json_str(j, "why", ap_trace_runtime_why(rt, buf, sizeof(buf)));
		ap_json_bool(j, "xnnpack_not_modelled", rt->xnn_unmodelled);
	} else {
		ap_json_null(j, "name");
	}
	if (rt->n_seen) {
		ap_json_str(j, "version_seen", ap_trace_runtime_seen(rt, buf, sizeof(buf)));
		ap_json_str(j, "distribution", rt->seen.name);
		ap_json_str(j, "version", rt->seen.version);
		ap_json_str(j, "source", rt->seen.source);
		ap_json_str(j, "library", rt->seen.lib);
	} else {
		ap_json_null(j, "version_seen");
		ap_json_null(j, "source");
	}
	ap_json_u64(j, "runtimes_seen", rt->n_seen);
	ap_json_end_obj(j);
}
