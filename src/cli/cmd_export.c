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

int cmd_export(int argc, char **argv)
{
	struct ap_export_opts eo = { 0 };
	struct ap_corr_in in = { 0 };
	struct ap_corr_all x;
	const char *fmt = NULL, *out = NULL;
	char err[AP_ERR_LEN];
	FILE *f;
	int c, rc = 0;
	struct ap_opts op;

	ap_opts_init(&op, "f|format: o|output: " AP_TRACE_IN_SPEC " m=max-instants: h|help");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		switch (c) {
		case 'f': fmt = optarg; break;
		case 'o': out = optarg; break;
		case 'm':
			rc = ap_cli_count("export", "max-instants", optarg, 1, UINT64_MAX,
					  &eo.max_instants);
			break;
		case 'h':
			usage(stdout);
			return AP_EXIT_OK;
		default:	/* --plan, --arena, --salvage, or a bad option */
			rc = ap_trace_in_opt("export", c, optarg, &in, argv);
		}
		if (rc)
			return rc;
	}
	rc = ap_trace_in_arg("export", argc, argv, &in);
	if (rc)
		return rc;
	if (!fmt)
		fmt = format_of(out);
	if (!fmt || (strcmp(fmt, "chrome") && strcmp(fmt, "csv") && strcmp(fmt, "json"))) {
		ap_cli_say("export", "needs --format chrome, csv or json (-o NAME.json is chrome, "
			   "NAME.csv csv)");
		return AP_EXIT_USAGE;
	}
	if (!out) {
		ap_cli_say("export", "needs -o OUT (or - for stdout)");
		return AP_EXIT_USAGE;
	}
	rc = ap_trace_in_load("export", &in, &x);
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
		rc = ap_cli_exit(ap_export_chrome(&x, in.trace, f, &eo, err));
	} else if (!strcmp(fmt, "csv")) {
		rc = ap_cli_exit(ap_export_csv(&x, in.trace, f, err));
	} else {
		/* report's JSON, as report builds it (attrib.h's part included) */
		struct ap_report r = { .path = in.trace, .x = &x, .pages = true };
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
		rc = ap_trace_in_salvaged("export", &in, &x, "the export", rc);
	ap_corr_all_free(&x);
	return rc;
}
