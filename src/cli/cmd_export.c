// SPDX-License-Identifier: Apache-2.0
/* arenaprof export: a trace for other tools (Perfetto / chrome://tracing, CSV, JSON). */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arenaprof/analyze/attrib.h"
#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/cli/trace_in.h"
#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/util/outfile.h"
#include "arenaprof/render/export.h"
#include "arenaprof/render/report.h"


static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof export TRACE [--format chrome|csv|json] -o OUT|- [--plan MODEL]\n"
		"                [--arena auto|ADDR] [--max-instants N] [--salvage]\n\n"
		"  chrome  Chrome trace-event JSON for Perfetto UI and chrome://tracing: a track\n"
		"          per thread with run and operator slices (from the markers), an instant\n"
		"          per fault (past --max-instants faults, default %d: fault counts on\n"
		"          the operator slices instead), counters VmRSS, Pss_Anon, arena resident\n"
		"          bytes and PSI\n"
		"  csv     one row per fault: time, thread, address, mapping group, first touch,\n"
		"          run, op marker and, in the arena, offset and plan attribution\n"
		"  json    report's JSON (report --json --pages)\n"
		"Without --format, -o's name says: NAME.json is chrome, NAME.csv csv.\n"
		"--plan attributes arena faults to operators and names them.\n"
		AP_TRACE_IN_HELP,
		AP_EXPORT_MAX_INSTANTS);
}

/* The format -o's name says: .csv is csv, .json Chrome trace-event JSON (Perfetto). */
static const char *format_of(const char *out)
{
	const char *dot = out ? strrchr(out, '.') : NULL;

	if (!dot || strchr(dot, '/'))
		return NULL;
	return !strcasecmp(dot, ".csv") ? "csv" : !strcasecmp(dot, ".json") ? "chrome" : NULL;
}

/* The command line: the trace, how to read it, the format and where it goes. */
struct args {
	struct ap_export_opts eo;
	struct ap_corr_in in;
	const char *fmt, *out;
};

#define GO_ON AP_CMD_GO_ON	/* parse_args: export; else the exit code */

/* The command line into a: GO_ON, or the exit code (--help, a bad option, said). */
static int parse_args(struct args *a, int argc, char **argv)
{
	int c, rc = 0;
	struct ap_opts op;

	*a = (struct args){ 0 };
	ap_opts_init(&op, "f|format: o|output: " AP_TRACE_IN_SPEC " m=max-instants: h|help");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		switch (c) {
		case 'f': a->fmt = optarg; break;
		case 'o': a->out = optarg; break;
		case 'm':
			rc = ap_cli_count("export", "max-instants", optarg, 1, UINT64_MAX,
					  &a->eo.max_instants);
			break;
		case 'h':
			usage(stdout);
			return AP_EXIT_OK;
		default:	/* --plan, --arena, --salvage, or a bad option */
			rc = ap_trace_in_opt("export", c, optarg, &a->in, argv);
		}
		if (rc)
			return rc;
	}
	rc = ap_trace_in_arg("export", argc, argv, &a->in);
	if (rc)
		return rc;
	if (!a->fmt)
		a->fmt = format_of(a->out);
	if (!a->fmt || (strcmp(a->fmt, "chrome") && strcmp(a->fmt, "csv") &&
			strcmp(a->fmt, "json"))) {
		ap_cli_say("export", "needs --format chrome, csv or json (-o NAME.json is chrome, "
			   "NAME.csv csv)");
		return AP_EXIT_USAGE;
	}
	if (!a->out) {
		ap_cli_say("export", "needs -o OUT (or - for stdout)");
		return AP_EXIT_USAGE;
	}
	return GO_ON;
}

int cmd_export_parse(int argc, char **argv)
{
	struct args a;

	return parse_args(&a, argc, argv);
}

int cmd_export(int argc, char **argv)
{
	struct ap_corr_all x;
	char err[AP_ERR_LEN];
	struct args a;
	const char *fmt, *out;
	FILE *f;
	int rc = parse_args(&a, argc, argv);

	if (rc != GO_ON)
		return rc;
	fmt = a.fmt;
	out = a.out;
	rc = ap_trace_in_load("export", &a.in, &x);
	if (rc) {
		ap_corr_all_free(&x);
		return rc;
	}
	if (x.have_plan && x.c.mismatch) {
		ap_cli_say("export", "warning: the plan does not match this trace; plan "
			"attribution is not to be trusted:");
		for (uint32_t i = 0; i < x.c.n_reasons; i++)
			ap_cli_item("%s", x.c.reasons[i]);
	}
	f = strcmp(out, "-") ? ap_outfile_fopen(out, 0644, err) : stdout;
	if (!f) {
		ap_cli_say("export", "%s", err);
		ap_corr_all_free(&x);
		return AP_EXIT_USAGE;	/* a refused or unusable path, as record's -o */
	}
	if (!strcmp(fmt, "chrome")) {
		rc = ap_cli_exit(ap_export_chrome(&x, a.in.trace, f, &a.eo, err));
	} else if (!strcmp(fmt, "csv")) {
		rc = ap_cli_exit(ap_export_csv(&x, a.in.trace, f, err));
	} else {
		/* report's JSON, as report builds it (attrib.h's part included) */
		struct ap_report r = { .path = a.in.trace, .x = &x, .pages = true };
		struct ap_attrib at;

		if (ap_attrib_build(&x, &at, err)) {
			rc = AP_EXIT_RUNTIME;
		} else {
			r.attrib = &at;
			ap_report_json(f, &r);
			ap_attrib_free(&at);
			rc = fflush(f) || ferror(f) ? AP_EXIT_RUNTIME : 0;
			if (rc)
				ap_seterr(err, "%s: write error", out);
		}
	}
	if (f != stdout && fclose(f) && !rc) {
		ap_seterr(err, "%s: %s", out, strerror(errno));
		rc = AP_EXIT_RUNTIME;
	}
	if (rc)
		ap_cli_say("export", "%s", err);
	if (!rc)
		rc = ap_trace_in_salvaged("export", &a.in, &x, "the export", rc);
	ap_corr_all_free(&x);
	return rc;
}
