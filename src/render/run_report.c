// SPDX-License-Identifier: Apache-2.0
/* run_report: `arenaprof run`'s results (include/arenaprof/render/run_report.h). */
#include <inttypes.h>
#include <stdio.h>

#include "arenaprof/render/run_report.h"
#include "arenaprof/util/json.h"
#include "arenaprof/util/units.h"

void ap_run_print_header(FILE *f, const struct ap_run_req *rq, const char *parent,
			 const struct ap_tplan *plan)
{
	char b1[32], b2[32];

	fprintf(f, "arenaprof run: %ld run%s of %s in fresh cgroups under %s", rq->repeat,
		rq->repeat == 1 ? "" : "s", rq->argv[0], parent);
	if (rq->max != AP_NO_VALUE)
		fprintf(f, "; memory.max %s", ap_fmt_bytes(rq->max, b1, sizeof(b1)));
	if (rq->high != AP_NO_VALUE)
		fprintf(f, "; memory.high %s", ap_fmt_bytes(rq->high, b1, sizeof(b1)));
	if (rq->min != AP_NO_VALUE)
		fprintf(f, "; memory.min %s", ap_fmt_bytes(rq->min, b1, sizeof(b1)));
	fprintf(f, "\n");
	if (plan)
		fprintf(f, "plan: arena %s, weights %s\n",
			ap_fmt_bytes(plan->arena_bytes, b1, sizeof(b1)),
			ap_fmt_bytes(plan->weights_bytes, b2, sizeof(b2)));
}

static void print_u64_or(FILE *f, uint64_t v)
{
	if (v == AP_NO_VALUE)
		fputs("?", f);
	else
		fprintf(f, "%" PRIu64, v);
}

void ap_run_print_text(FILE *f, const struct ap_run_req *rq, const struct ap_run_result *r)
{
	char b1[32], b2[32];

	fprintf(f, "run %d/%ld (%s): ", r->index, rq->repeat, r->cgroup);
	if (r->exited)
		fprintf(f, "exit %d\n", r->exit_status);
	else if (r->oom_killed)
		fprintf(f, "killed by SIGKILL: OOM kill (memory.max %s)\n",
			rq->max != AP_NO_VALUE ? ap_fmt_bytes(rq->max, b1, sizeof(b1)) : "max");
	else if (r->signal)
		fprintf(f, "killed by %s\n", ap_run_sig_name(r->signal, b1, sizeof(b1)));
	else
		fprintf(f, "status unknown (the child was not reaped here)\n");
	if (r->peak != AP_NO_VALUE)
		fprintf(f, "  memory.peak     %s (%" PRIu64 " bytes)%s\n",
			ap_fmt_bytes(r->peak, b1, sizeof(b1)), r->peak,
			r->peak_polled ? ", polled memory.current: a lower bound" : "");
	else
		fprintf(f, "  memory.peak     ?\n");
	if (r->vmhwm != AP_NO_VALUE)
		fprintf(f, "  VmHWM           %s\n", ap_fmt_bytes(r->vmhwm, b2, sizeof(b2)));
	fprintf(f, "  events.local    low ");
	print_u64_or(f, r->ev.low);
	fprintf(f, ", high ");
	print_u64_or(f, r->ev.high);
	fprintf(f, ", max ");
	print_u64_or(f, r->ev.max);
	fprintf(f, ", oom ");
	print_u64_or(f, r->ev.oom);
	fprintf(f, ", oom_kill ");
	print_u64_or(f, r->ev.oom_kill);
	fprintf(f, "\n  pressure        some ");
	print_u64_or(f, r->some_us);
	fprintf(f, " us, full ");
	print_u64_or(f, r->full_us);
	fprintf(f, " us (stalled on memory during the run)\n");
	for (size_t i = 0; i < r->n_trig; i++) {
		const struct ap_run_trig *tr = &r->trig[i];

		fprintf(f, "  psi trigger     '%s': ", tr->t.spec);
		if (!tr->armed) {
			fprintf(f, "not armed: %s\n", tr->error);
			continue;
		}
		fprintf(f, "armed, fired %" PRIu64 " time%s", tr->t.fired,
			tr->t.fired == 1 ? "" : "s");
		for (size_t k = 0; k < tr->n_times && k < 20; k++)
			fprintf(f, "%s%.3f s", k ? ", " : " at ", tr->times[k]);
		if (tr->n_times > 20)
			fprintf(f, ", ...");
		fprintf(f, "%s\n", tr->t.gone ? " (then the cgroup was gone)" : "");
	}
	if (r->paid_in_reclaim)
		fprintf(f, "  paid in reclaim memory.high was crossed %" PRIu64 " times and "
			"nothing was OOM-killed: the excess was paid in reclaim and throttling\n",
			r->ev.high);
	fprintf(f, "  wall time       %.3f s\n", r->wall_s);
}

static void json_u64_or_null(struct ap_json *j, const char *key, uint64_t v)
{
	if (v == AP_NO_VALUE)
		ap_json_null(j, key);
	else
		ap_json_u64(j, key, v);
}

void ap_run_print_json(FILE *f, const struct ap_run_req *rq, const struct ap_tplan *plan,
			const struct ap_run_result *runs, long n)
{
	struct ap_json j;
	char b[32];

	ap_json_init(&j, f);
	ap_json_obj(&j, NULL);
	ap_json_u64(&j, "schema_version", AP_RUN_SCHEMA);
	ap_json_obj(&j, "limits");
	json_u64_or_null(&j, "memory_max_bytes", rq->max);
	json_u64_or_null(&j, "memory_high_bytes", rq->high);
	json_u64_or_null(&j, "memory_min_bytes", rq->min);
	ap_json_end_obj(&j);
	if (plan) {
		ap_json_obj(&j, "plan");
		ap_json_u64(&j, "arena_bytes", plan->arena_bytes);
		ap_json_u64(&j, "weights_bytes", plan->weights_bytes);
		ap_json_end_obj(&j);
	}
	ap_json_arr(&j, "runs");
	for (long i = 0; i < n; i++) {
		const struct ap_run_result *r = &runs[i];

		ap_json_obj(&j, NULL);
		ap_json_i64(&j, "run", r->index);
		ap_json_str(&j, "cgroup", r->cgroup);
		if (r->exited)
			ap_json_i64(&j, "exit_status", r->exit_status);
		else
			ap_json_null(&j, "exit_status");
		if (r->signal) {
			ap_json_i64(&j, "signal", r->signal);
			ap_json_str(&j, "signal_name", ap_run_sig_name(r->signal, b, sizeof(b)));
		} else {
			ap_json_null(&j, "signal");
		}
		ap_json_bool(&j, "oom_killed", r->oom_killed);
		json_u64_or_null(&j, "memory_peak_bytes", r->peak);
		ap_json_str(&j, "memory_peak_source", r->peak_polled ? "polled memory.current" :
			    "memory.peak");
		json_u64_or_null(&j, "vmhwm_bytes", r->vmhwm);
		ap_json_obj(&j, "events");
		json_u64_or_null(&j, "low", r->ev.low);
		json_u64_or_null(&j, "high", r->ev.high);
		json_u64_or_null(&j, "max", r->ev.max);
		json_u64_or_null(&j, "oom", r->ev.oom);
		json_u64_or_null(&j, "oom_kill", r->ev.oom_kill);
		ap_json_end_obj(&j);
		ap_json_obj(&j, "pressure");
		json_u64_or_null(&j, "some_total_us", r->some_us);
		json_u64_or_null(&j, "full_total_us", r->full_us);
		ap_json_end_obj(&j);
		ap_json_bool(&j, "paid_in_reclaim", r->paid_in_reclaim);
		ap_json_arr(&j, "triggers");
		for (size_t k = 0; k < r->n_trig; k++) {
			const struct ap_run_trig *tr = &r->trig[k];

			ap_json_obj(&j, NULL);
			ap_json_str(&j, "spec", tr->t.spec);
			ap_json_bool(&j, "armed", tr->armed);
			if (!tr->armed)
				ap_json_str(&j, "error", tr->error);
			ap_json_u64(&j, "fired", tr->t.fired);
			ap_json_arr(&j, "times_s");
			for (size_t m = 0; m < tr->n_times; m++)
				ap_json_f64(&j, NULL, tr->times[m]);
			ap_json_end_arr(&j);
			ap_json_bool(&j, "source_gone", tr->t.gone);
			ap_json_end_obj(&j);
		}
		ap_json_end_arr(&j);
		ap_json_f64(&j, "wall_s", r->wall_s);
		ap_json_end_obj(&j);
	}
	ap_json_end_arr(&j);
	ap_json_end_obj(&j);
	ap_json_finish(&j);
}
