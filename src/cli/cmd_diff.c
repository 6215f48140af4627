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

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof diff OLD NEW [--plan MODEL] [--fail-above PCT] [--json]\n\n"
		"Two plans (.tflite models or plan files), two traces, or a trace and a plan, "
		"side\n"
		"by side: the arena (planned, or found and first touched), the peak (the plan's\n"
		"arena, persistent arena and weights; the trace's VmHWM), the weights; per kind "
		"of\n"
		"memory for two traces, the operators whose breadth changed most for two plans.\n"
		"  --plan MODEL       identify the traces' arena with this model's plan\n"
		"  --fail-above PCT   exit 3 when NEW's arena or peak is more than PCT %% above\n"
		"                     OLD's (a gate for CI); 0 = any growth\n"
		"  --json             one JSON object\n"
		"Exit 0, or 3 when the gate fails; 2 for bad usage or a file that is neither a\n"
		"trace nor a plan.\n");
}

/* The command line: the plan for the traces, the gate, the format. */
struct args {
	struct ap_diff_gate g;
	const char *plan;
	bool json;
};

#define GO_ON AP_CMD_GO_ON	/* parse_args: diff; else the exit code */

/* The command line into a: GO_ON, or the exit code (--help, a bad option, said). */
static int parse_args(struct args *a, int argc, char **argv)
{
	struct ap_opts op;
	int c;

	*a = (struct args){ 0 };
	ap_opts_init(&op, "p|plan: F=fail-above: j|json h|help");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		switch (c) {
		case 'p': a->plan = optarg; break;
		case 'F':
			a->g.on = !ap_parse_f64(optarg, 0, 1e6, &a->g.pct);
			if (a->g.on)
				break;
			ap_cli_say("diff", "--fail-above '%s' is not a percentage (0 to 1000000)",
				   optarg);
			return AP_EXIT_USAGE;
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
	struct ap_diff_side o, n;
	char err[AP_ERR_LEN];
	struct args a;
	struct ap_diff_gate *g = &a.g;
	int rc = parse_args(&a, argc, argv);

	if (rc != GO_ON)
		return rc;
	rc = ap_diff_open(argv[optind], a.plan, &o, err);
	if (!rc) {
		rc = ap_diff_open(argv[optind + 1], a.plan, &n, err);
		if (rc)
			ap_diff_close(&n);
	}
	if (rc) {
		ap_cli_say("diff", "%s", err);
		ap_diff_close(&o);
		return ap_cli_exit(rc);
	}
	ap_diff_judge(&o, &n, g);
	if (a.json)
		ap_diff_json(stdout, &o, &n, g);
	else
		ap_diff_text(stdout, &o, &n, g);
	rc = fflush(stdout) ? AP_EXIT_RUNTIME :
	     g->arena_over || g->peak_over ? AP_EXIT_OVER : AP_EXIT_OK;
	ap_diff_close(&o);
	ap_diff_close(&n);
	return rc;
}
