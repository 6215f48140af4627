// SPDX-License-Identifier: Apache-2.0
/* arenaprof report: what a trace says the process made resident, when, and where. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/attrib.h"
#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/cli/trace_in.h"
#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/render/attrib_report.h"
#include "arenaprof/render/openmetrics.h"
#include "arenaprof/plan/plan_build.h"
#include "arenaprof/render/report.h"
#include "arenaprof/render/summary.h"
#include "arenaprof/util/units.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof report TRACE [--plan MODEL.tflite|PLAN ...] [--arena auto|ADDR]\n"
		"                       [--delegate auto|xnnpack|none] [--runtime auto|NAME]\n"
		"                       [--json | --format text|json|openmetrics] [--pages]\n"
		"                       [--mappings] [--disagree N] [--budget SIZE] [--salvage]\n\n"
		"What a trace of `arenaprof record` says: faults and first-touch pages per "
		"mapping,\n"
		"the arena (and how it was identified), first touches per run and per operator\n"
		"marker, drops, and memory samples over time. With a plan: the arena base, every\n"
		"first-touch page attributed to an operator by the plan and by the op marker, "
		"their\n"
		"agreement, the widest operator, and whether the plan matches the trace at all.\n"
		"  --plan FILE        a .tflite model (planned with the tflite strategy) or a "
		"plan\n"
		"                     (LiteRT dump, TFLM plan, CSV): identifies the arena by\n"
		"                     size;"
" again (up to 8) for models sharing the process:\n"
		"                     each one's"
" arena, runs (by interpreter) and pages\n"
		"                     (report(1) MODELS)\n"
		"  --plan-csv FILE    the same, for a CSV plan\n"
		AP_TRACE_IN_HELP
		"  --json             one JSON object (--format json)\n"
		"  --format openmetrics  OpenMetrics text for node_exporter's textfile collector\n"
		"                     (arena planned and found, peak, runs, run latency, drops)\n"
		"  --pages            with --json: every first-touched arena page (page, run, op)\n"
		"  --mappings         text: every mapping (vma), not one line per object\n"
		"  --disagree N       text: list up to N pages where the attributions differ "
		"(20)\n"
		"  --budget SIZE      does the measured process fit SIZE (64M, 1.5G)? Its peak\n"
		"                     (VmHWM, cgroup v2 memory.peak) and its non-reclaimable\n"
		"                     part (Pss_Anon + Pss_Shmem) against it, with --plan the\n"
		"                     model's share: the first line, JSON \"budget\"; exit 3 when\n"
		"                     either is over it\n");
}

/* The command line: the trace, how to read it and what to print. */
struct args {
	struct ap_corr_in in;
	struct ap_report r;		/* pages, all_mappings, max_disagree */
	bool json;
	int fmt;			/* --format: 0 text, 1 json, 2 openmetrics */
};

#define GO_ON AP_CMD_GO_ON	/* parse_args: report; else the exit code */

/* The command line into a: GO_ON, or the exit code (--help, a bad option, said). */
static int parse_args(struct args *a, int argc, char **argv)
{
	uint64_t v = 0;
	int c, rc;
	struct ap_opts op;

	*a = (struct args){ 0 };
	a->in.many_plans = true;
	ap_opts_init(&op, AP_TRACE_IN_SPEC
		     " j|json P|pages M=mappings f=format: d|disagree: b|budget: h|help");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		switch (c) {
		case 'j': a->json = true; break;
		case 'P': a->r.pages = a->json = true; break;
		case 'M': a->r.all_mappings = true; break;
		case 'f':
			a->fmt = ap_cli_word(optarg, "text", "json", "openmetrics", NULL);
			if (a->fmt < 0) {
				ap_cli_say("report", "--format '%s': text, json or openmetrics",
					   optarg);
				return AP_EXIT_USAGE;
			}
			a->json = a->fmt == 1;
			break;
		case 'd':
			if (ap_cli_count("report", "disagree", optarg, 0, 1000000, &v))
				return AP_EXIT_USAGE;
			a->r.max_disagree = v ? (unsigned)v : 1;
			break;
		case 'b':
			if (ap_parse_size(optarg, &a->r.budget) || !a->r.budget) {
				ap_cli_say("report", "--budget '%s' is not a size (e.g. 64M, "
					   "1.5G, 4194304)", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case 'h': usage(stdout); return AP_EXIT_OK;
		default:
			rc = ap_trace_in_opt("report", c, optarg, &a->in, argv);
			if (rc)
				return rc;
		}
	}
	rc = ap_trace_in_arg("report", argc, argv, &a->in);
	return rc ? rc : GO_ON;
}

int cmd_report_parse(int argc, char **argv)
{
	struct args a;

	return parse_args(&a, argc, argv);
}

/*
 * With --budget and --plan: the models' two halves as `plan` computes them for the
 * delegate the report took (each plan set built again in full: the report's plans are the
 * TFLite arenas alone), summed over every --plan. 0, or the exit code (said).
 */
static int model_share(struct ap_report *r, const struct ap_corr_in *in,
		       const struct ap_corr_all *x)
{
	struct ap_plan_req rq = { .src = AP_PLAN_ANY, .strat = AP_STRAT_TFLITE, .report = true,
				  .delegate = x->delegate, .gopts.runtime = x->rt.id,
				  .io_bound = x->compiled && !x->io_late };
	char err[AP_ERR_LEN];
	int rc;

	if (!r->budget || !in->plan_path)
		return 0;
	for (uint32_t i = 0; i < x->n_models; i++) {
		struct ap_plan_set s = { 0 };

		rq.path = x->model_path[i];
		rc = ap_plan_build(&rq, &s, err);
		if (rc) {
			ap_cli_say("report", "%s", err);
			ap_plan_set_free(&s);
			return ap_cli_exit(rc);
		}
		r->model_anon += ap_plan_set_anon_bytes(&s);
		r->model_file += ap_plan_set_file_bytes(&s);
		ap_plan_set_free(&s);
	}
	r->have_model = true;
	return 0;
}

/* The exit status of the report's gate: 3 when the process does not fit --budget. */
static int budget_gate(const struct ap_report *r, int rc)
{
	struct ap_budget_process v;
	struct ap_procmem m;

	if (rc || !r->budget)
		return rc;
	ap_summary_budget(r, &m, &v);
	return v.fits ? rc : AP_EXIT_OVER;
}

int cmd_report(int argc, char **argv)
{
	struct ap_corr_all x = { 0 };
	struct ap_attrib at;
	char err[AP_ERR_LEN];
	struct args a;
	struct ap_report *r = &a.r;
	int rc = parse_args(&a, argc, argv);

	if (rc != GO_ON)
		return rc;
	rc = ap_trace_in_load("report", &a.in, &x);
	if (rc) {
		ap_corr_all_free(&x);
		return rc;
	}
	/* the arena by address, attribution without markers (attrib.h) */
	if (ap_attrib_build(&x, &at, err)) {
		ap_cli_say("report", "%s", err);
		ap_corr_all_free(&x);
		return AP_EXIT_RUNTIME;
	}
	r->attrib = &at;
	r->path = argv[optind];
	r->x = &x;
	rc = model_share(r, &a.in, &x);
	if (rc) {
		ap_attrib_free(&at);
		ap_corr_all_free(&x);
		return rc;
	}
	if (a.fmt == 2) {
		ap_openmetrics_report(stdout, r, AP_VERSION);
	} else if (a.json) {
		ap_report_json(stdout, r);
	} else {
		ap_report_text(stdout, r);
		ap_attrib_text(stdout, &x, &at);
	}
	rc = fflush(stdout) ? AP_EXIT_RUNTIME : AP_EXIT_OK;
	rc = ap_trace_in_salvaged("report", &a.in, &x, "the report above", rc);
	rc = budget_gate(r, rc);
	ap_attrib_free(&at);
	ap_corr_all_free(&x);
	return rc;
}
