// SPDX-License-Identifier: Apache-2.0
/*
 * arenaprof run: runs a command N times, each time in a fresh cgroup v2 with the memory
 * limits asked for, and reports what the memory controller saw (the runs:
 * record/run_harness.c; the report: render/run_report.c). Nothing is written anywhere
 * before the checks have passed: a host without cgroup v2 and its memory controller gets
 * one line and exit 1.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/kernel/psi.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/record/run_harness.h"
#include "arenaprof/record/spawn.h"
#include "arenaprof/render/run_report.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/util/units.h"

#define MAX_REPEAT 100000

struct opts {
	struct ap_run_req rq;		/* limits (AP_NO_VALUE: not set), triggers, CMD */
	bool high_auto, min_weights;
	const char *plan;
	bool json;
	const char *user;		/* --user, looked up into u */
	struct ap_spawn_user u;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof run [--memory-max SIZE] [--memory-high SIZE|auto]\n"
		"           [--memory-min SIZE|weights] [--plan MODEL.tflite]\n"
		"           [--psi-trigger 'some|full STALL_US WINDOW_US']...\n"
		"           [--repeat N] [--cgroup-parent DIR] [--json] [--user USER]\n"
		"           -- CMD ARGS...\n\n"
		"Runs CMD in a fresh cgroup v2 (one per repetition) with these memory\n"
		"limits and reports what the memory controller saw. Needs cgroup v2 with\n"
		"the memory controller (a cgroup v1 host is refused, nothing is changed)\n"
		"and root.\n"
		"  --memory-max SIZE    hard limit: over it, reclaim, then the OOM killer\n"
		"  --memory-high SIZE   throttle limit: over it, reclaim and penalty\n"
		"                       sleeps, never an OOM kill; auto = 95%% of max\n"
		"  --memory-min SIZE    protected from reclaim; weights = the plan's\n"
		"                       weights bytes\n"
		"  --plan MODEL         the model (or plan file) CMD runs\n"
		"  --psi-trigger SPEC   wake on memory pressure in the cgroup:\n"
		"                       'some 150000 1000000' = 150 ms stalled within any\n"
		"                       1 s window (window 500000 to 10000000 us);\n"
		"                       repeatable; each firing is reported with its time\n"
		"  --repeat N           run N times, each in a new cgroup (default 1)\n"
		"  --cgroup-parent DIR  create the cgroups under DIR (default: arenaprof's\n"
		"                       own cgroup v2; +memory is enabled in its\n"
		"                       cgroup.subtree_control if needed)\n"
		"  --json               {\"runs\": [{\"exit_status\", \"signal\",\n"
		"                       \"oom_killed\", \"memory_peak_bytes\", \"vmhwm_bytes\",\n"
		"                       \"events\", \"pressure\", \"triggers\", ...}]} on\n"
		"                       stdout; CMD's own stdout then goes to stderr\n"
		"  --user USER          run CMD as USER (name or uid, with its groups);\n"
		"                       default: as run itself, so root under sudo, as\n"
		"                       'sudo CMD' does (devices and files the service\n"
		"                       uses stay reachable); under sudo, --user\n"
		"                       \"$SUDO_USER\" runs it as you. CMD gets SIGKILL if\n"
		"                       run dies\n"
		"Exit 0 when every run was measured (whatever CMD's own status), 1 runtime\n"
		"failure (no cgroup v2 memory controller, a cgroup that cannot be created,\n"
		"interrupted), 2 bad usage or a command that cannot be run.\n");
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ap_cli_vsay("run", fmt, ap);
	va_end(ap);
}

#define GO_ON AP_CMD_GO_ON	/* parse_opts: run; else the exit code */

/* The command line into o: GO_ON, or the exit code (--help, a bad option, said). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	char err[AP_ERR_LEN];
	int c;
	struct ap_opts op;

	o->rq.max = o->rq.high = o->rq.min = AP_NO_VALUE;
	o->rq.repeat = 1;
	ap_opts_init(&op, "+M=memory-max: H=memory-high: N=memory-min: P=plan: T=psi-trigger: "
		     "r=repeat: C=cgroup-parent: j=json u=user: h|help");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		switch (c) {
		case 'M':
			if (ap_parse_size(optarg, &o->rq.max) || !o->rq.max)
				goto bad_value;
			break;
		case 'H':
			if (!strcmp(optarg, "auto"))
				o->high_auto = true;
			else if (ap_parse_size(optarg, &o->rq.high) || !o->rq.high)
				goto bad_value;
			break;
		case 'N':
			if (!strcmp(optarg, "weights"))
				o->min_weights = true;
			else if (ap_parse_size(optarg, &o->rq.min))
				goto bad_value;
			break;
		case 'P': o->plan = optarg; break;
		case 'T': {
			struct ap_psi_trigger t;

			if (o->rq.n_trig == AP_RUN_MAX_TRIGGERS) {
				note("at most %d --psi-trigger options", AP_RUN_MAX_TRIGGERS);
				return AP_EXIT_USAGE;
			}
			if (ap_psi_trigger_parse(optarg, &t, err)) {
				note("--psi-trigger: %s", err);
				return AP_EXIT_USAGE;
			}
			o->rq.trig_spec[o->rq.n_trig++] = optarg;
			break;
		}
		case 'r': {
			int64_t v;

			if (ap_parse_i64(optarg, 1, MAX_REPEAT, &v))
				goto bad_value;
			o->rq.repeat = (int)v;
			break;
		}
		case 'C': o->rq.parent = optarg; break;
		case 'j': o->json = true; break;
		case 'u': o->user = optarg; break;
		case 'h': usage(stdout); return AP_EXIT_OK;
		default: return ap_cli_bad_option("run", argv);
		}
		continue;
bad_value:
		note("bad value '%s' for %s", optarg, argv[optind - 1]);
		return AP_EXIT_USAGE;
	}
	if (optind >= argc) {
		note("no command given: arenaprof run [OPTIONS] -- CMD ARGS... (see --help)");
		return AP_EXIT_USAGE;
	}
	if (o->high_auto && o->rq.max == AP_NO_VALUE) {
		note("--memory-high auto is 95%% of --memory-max: give --memory-max too");
		return AP_EXIT_USAGE;
	}
	if (o->min_weights && !o->plan) {
		note("--memory-min weights needs --plan MODEL.tflite");
		return AP_EXIT_USAGE;
	}
	o->rq.argv = argv + optind;
	return GO_ON;
}

int cmd_run_parse(int argc, char **argv)
{
	struct opts o = { 0 };

	return parse_opts(argc, argv, &o);
}

static void say(void *ctx, const char *fmt, va_list ap)
{
	(void)ctx;
	ap_cli_vsay("run", fmt, ap);
}

/* Each run as it ends: the text report prints it, JSON waits for all. */
static void on_run(void *ctx, const struct ap_run_result *r)
{
	const struct opts *o = ctx;

	if (!o->json)
		ap_run_print_text(stdout, &o->rq, r);
	fflush(stdout);
}

/* The limits --plan gives: 0, or the exit code of a refusal said. */
static int plan_limits(struct opts *o, struct ap_tplan *plan)
{
	struct ap_run_req *rq = &o->rq;
	char err[AP_ERR_LEN], b1[32], b2[32];

	if (o->plan && ap_plan_load(o->plan, plan, err)) {
		note("--plan: %s", err);
		return AP_EXIT_USAGE;
	}
	if (o->min_weights) {
		if (!plan->weights_bytes) {
			note("--memory-min weights: the plan %s has no weights size", o->plan);
			ap_tplan_free(plan);
			return AP_EXIT_USAGE;
		}
		rq->min = plan->weights_bytes;
	}
	if (o->high_auto)
		rq->high = rq->max / 100 * 95 + rq->max % 100 * 95 / 100;
	if (rq->min != AP_NO_VALUE && rq->max != AP_NO_VALUE && rq->min > rq->max)
		note("warning: --memory-min %s is above --memory-max %s",
		     ap_fmt_bytes(rq->min, b1, sizeof(b1)), ap_fmt_bytes(rq->max, b2, sizeof(b2)));
	return 0;
}

static int run_all(struct opts *o)
{
	struct ap_tplan plan = { 0 };
	const struct ap_tplan *have_plan = o->plan ? &plan : NULL;
	struct ap_run_set set;
	int rc = plan_limits(o, &plan);

	if (rc)
		return rc;
	o->rq.note = say;
	o->rq.on_run = on_run;
	o->rq.ctx = o;
	o->rq.out_to_err = o->json;
	o->rq.user = o->user ? &o->u : NULL;
	rc = ap_run_prepare(&o->rq, &set);
	if (!rc) {
		if (!o->json)
			ap_run_print_header(stdout, &o->rq, set.parent, have_plan);
		rc = ap_run_all(&o->rq, &set);
		if (o->json && set.done)
			ap_run_print_json(stdout, &o->rq, have_plan, set.runs, set.done);
	}
	ap_run_free(&set);
	ap_tplan_free(&plan);
	/* a command that cannot be run is bad input; every other failure is the host's */
	return !rc ? AP_EXIT_OK : rc == -ENOEXEC ? AP_EXIT_USAGE : AP_EXIT_RUNTIME;
}

int cmd_run(int argc, char **argv)
{
	char err[AP_ERR_LEN];
	struct opts o = { 0 };
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc != GO_ON)
		return rc;
	if (o.user && ap_spawn_user_lookup(o.user, &o.u, err)) {
		note("%s", err);
		return AP_EXIT_USAGE;
	}
	rc = run_all(&o);
	if (o.user)
		ap_spawn_user_free(&o.u);
	return rc;
}
