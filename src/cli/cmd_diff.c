// SPDX-License-Identifier: Apache-2.0
/* arenaprof diff: two plans or traces side by side; exit 3 past a growth threshold. */
#include <stdio.h>

#include "arenaprof/analyze/diff.h"
#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/render/diff_report.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/util/units.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof diff OLD NEW [--plan MODEL] [--fail-above PCT]\n"
		"                      [--fail-above-latency PCT] [--budget SIZE] [--json]\n\n"
		"Two plans (.tflite models or plan files), two traces, or a trace and a plan, "
		"side\n"
		"by side: the arena (planned, or found and first touched), the peak (a plan's "
		"model\n"
		"memory: arena, persistent arena, weights; a trace's VmHWM), the weights, and "
		"for\n"
		"traces run 0, the median and p99 run. A row is compared only where both sides "
		"give\n"
		"the same quantity, else it is n/a with the reason (a plan's model memory is not "
		"a\n"
		"process's peak, a plan has no runs). A trace's model is --plan's, else the one "
		"its\n"
		"own mappings name; operators are paired by opcode and output name, and "
		"different\n"
		"graphs are said to be.\n"
		"  --plan MODEL       the traces' model (default: the model each trace mapped)\n"
		"  --fail-above PCT   exit 3 when NEW's arena or peak is more than PCT %% above\n"
		"                     OLD's (a gate for CI); 0 = any growth\n"
		"  --fail-above-latency PCT\n"
		"                     exit 3 when NEW's median or p99 run is more than PCT %%\n"
		"                     above OLD's (two traces with timed runs)\n"
		"  --budget SIZE      does each side fit SIZE (64M, 1.5G)? A trace's process as\n"
		"                     'report --budget' judges it (its peak and non-reclaimable\n"
		"                     part), a plan's model memory alone; exit 3 when NEW does\n"
		"                     not fit or has no verdict (it ended before run 0)\n"
		"  --json             one JSON object\n"
		"Exit 0; 3 when a gate fails; 2 for bad usage, a file that is neither a trace nor "
		"a\n"
		"plan, or a gate the pair cannot judge (its rows n/a).\n");
}

/* The command line: the plan for the traces, the gates, the format. */
struct args {
	struct ap_diff_gate g;
	const char *plan;
	bool json;
};

#define GO_ON AP_CMD_GO_ON	/* parse_args: diff; else the exit code */

/* A gate's threshold: true, or false having said why. */
static bool pct_arg(const char *opt, const char *v, double *pct)
{
	if (!ap_parse_f64(v, 0, 1e6, pct))
		return true;
	ap_cli_say("diff", "%s '%s' is not a percentage (0 to 1000000)", opt, v);
	return false;
}

/* The command line into a: GO_ON, or the exit code (--help, a bad option, said). */
static int parse_args(struct args *a, int argc, char **argv)
{
	struct ap_opts op;
	int c;

	*a = (struct args){ 0 };
	ap_opts_init(&op, "p|plan: F=fail-above: L=fail-above-latency: b|budget: j|json "
		     "h|help");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		switch (c) {
		case 'p': a->plan = optarg; break;
		case 'F':
			a->g.on = pct_arg("--fail-above", optarg, &a->g.pct);
			if (!a->g.on)
				return AP_EXIT_USAGE;
			break;
		case 'L':
			a->g.lat_on = pct_arg("--fail-above-latency", optarg, &a->g.lat_pct);
			if (!a->g.lat_on)
				return AP_EXIT_USAGE;
			break;
		case 'b':
			if (ap_parse_size(optarg, &a->g.budget) || !a->g.budget) {
				ap_cli_say("diff", "--budget '%s' is not a size (e.g. 64M, 1.5G)",
					   optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case 'j': a->json = true; break;
		case 'h': usage(stdout); return AP_EXIT_OK;
		default: return ap_cli_bad_option("diff", argv);
		}
	}
	if (optind != argc - 2) {
		ap_cli_say("diff", "expected OLD and NEW (see 'arenaprof diff --help')");
		return AP_EXIT_USAGE;
	}
	return GO_ON;
}

int cmd_diff_parse(int argc, char **argv)
{
	struct args a;

	return parse_args(&a, argc, argv);
}

int cmd_diff(int argc, char **argv)
{
	static struct ap_diff d;	/* two traces' analyses: kept off the stack */
	char err[AP_ERR_LEN];
	struct args a;
	struct ap_diff_gate *g = &a.g;
	int rc = parse_args(&a, argc, argv);

	if (rc != GO_ON)
		return rc;
	rc = ap_diff_open(argv[optind], argv[optind + 1], a.plan, &d, err);
	if (rc) {
		ap_cli_say("diff", "%s", err);
		ap_diff_close(&d);
		return ap_cli_exit(rc);
	}
	ap_diff_judge(&d, g);
	if (a.json)
		ap_diff_json(stdout, &d, g);
	else
		ap_diff_text(stdout, &d, g);
	rc = fflush(stdout) ? AP_EXIT_RUNTIME : ap_diff_failed(g) ? AP_EXIT_OVER :
	     g->cannot[0] ? AP_EXIT_USAGE : AP_EXIT_OK;
	if (g->cannot[0])
		ap_cli_say("diff", "%s", g->cannot);
	ap_diff_close(&d);
	return rc;
}
