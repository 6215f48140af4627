// SPDX-License-Identifier: Apache-2.0
/* arenaprof report: what a trace says the process made resident, when, and where. */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/attrib.h"
#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/render/attrib_report.h"
#include "arenaprof/render/report.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof report TRACE [--plan MODEL.tflite|PLAN] [--arena ADDR]\n"
		"                       [--arena-base ADDR] [--json] [--pages] [--disagree N]\n"
		"                       [--salvage]\n\n"
		"What a trace of `arenaprof record` says: faults and first-touch pages per mapping,\n"
		"the arena (and how it was identified), first touches per run and per operator\n"
		"marker, drops, and memory samples over time. With a plan: the arena base, every\n"
		"first-touch page attributed to an operator by the plan and by the op marker, their\n"
		"agreement, the widest operator, and whether the plan matches the trace at all.\n"
		"  --plan FILE       a .tflite model (planned with the tflite strategy) or a plan\n"
		"                    (LiteRT dump, TFLM plan, CSV): identifies the arena by size\n"
		"  --plan-csv FILE   the same, for a CSV plan\n"
		"  --arena auto      (default) the allocation probe's block of the plan's size\n"
		"                    (record --arena auto), else the mapping of the plan's size\n"
		"  --arena ADDR      the arena is the mapping holding ADDR (hex)\n"
		"  --arena-base ADDR planned offset 0 is at ADDR (hex): no base search\n"
		"  --json            one JSON object\n"
		"  --pages           with --json: every first-touched arena page (page, run, op)\n"
		"  --disagree N      text: list up to N pages where the attributions differ (20)\n"
		"  --salvage         a corrupt trace: skip the records that fail their check,\n"
		"                    report the rest, say how much was skipped, and exit 1\n");
}

int cmd_report(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "plan", required_argument, NULL, 'p' },
		{ "plan-csv", required_argument, NULL, 'p' },
		{ "arena", required_argument, NULL, 'a' },
		{ "arena-base", required_argument, NULL, 'b' },
		{ "json", no_argument, NULL, 'j' },
		{ "pages", no_argument, NULL, 'P' },
		{ "disagree", required_argument, NULL, 'd' },
		{ "salvage", no_argument, NULL, 'S' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ap_corr_in in = { 0 };
	struct ap_corr_all x;
	struct ap_report r = { 0 };
	enum ap_attrib_arena arena_mode = AP_ATTRIB_AUTO;
	struct ap_attrib at;
	bool json = false;
	char err[AP_ERR_LEN];
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:a:b:jPd:Sh", opts, NULL)) != -1) {
		switch (c) {
		case 'p': in.plan_path = optarg; break;
		case 'a':
			if (!strcmp(optarg, "auto"))
				break;
			arena_mode = AP_ATTRIB_GIVEN;
			/* fall through */
		case 'b':
			if (c == 'b')
				arena_mode = AP_ATTRIB_GIVEN;
			if (ap_parse_addr(optarg, c == 'a' ? &in.arena_addr : &in.arena_base)) {
				ap_cli_say("report", "--%s '%s' is not an address",
					c == 'a' ? "arena" : "arena-base", optarg);
				return AP_EXIT_USAGE;
			}
			break;
		case 'j': json = true; break;
		case 'S': in.salvage = true; break;
		case 'P': r.pages = json = true; break;
		case 'd': {
			uint64_t v;

			if (ap_parse_u64(optarg, 10, 0, 1000000, &v)) {
				ap_cli_say("report", "--disagree '%s' is not a count",
					optarg);
				return AP_EXIT_USAGE;
			}
			r.max_disagree = v ? (unsigned)v : 1;
			break;
		}
		case 'h': usage(stdout); return AP_EXIT_OK;
		default:
			ap_cli_say("report", "bad option or missing value: '%s' "
				"(see 'arenaprof report --help')", argv[optind - 1]);
			return AP_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		ap_cli_say("report", "expected one TRACE (see 'arenaprof report "
			"--help')");
		return AP_EXIT_USAGE;
	}
	in.trace = argv[optind];
	rc = ap_corr_load(&in, &x, err);
	if (rc) {
		ap_cli_say("report", "%s%s", err, !in.salvage && strstr(err, "corrupt record") ?
			" (--salvage skips what fails its check)" : "");
		ap_corr_all_free(&x);
		return rc;
	}
	/* the arena by address, attribution without markers (attrib.h) */
	if (ap_attrib_build(&x, arena_mode, &at, err)) {
		ap_cli_say("report", "%s", err);
		ap_corr_all_free(&x);
		return AP_EXIT_RUNTIME;
	}
	r.attrib = &at;
	if (x.a.truncated)
		ap_cli_say("report", "warning: %s was cut short; reporting every "
			"whole record up to the cut", argv[optind]);
	r.path = argv[optind];
	r.x = &x;
	if (json) {
		ap_report_json(stdout, &r);
	} else {
		ap_report_text(stdout, &r);
		ap_attrib_text(stdout, &x, &at);
	}
	rc = fflush(stdout) ? AP_EXIT_RUNTIME : AP_EXIT_OK;
	if (x.a.salvaged_bytes) {
		ap_cli_say("report", "%s: salvaged: %" PRIu64 " bytes skipped (about %" PRIu64
			" records) that failed their check; the report above misses them",
			argv[optind], x.a.salvaged_bytes, x.a.salvaged_records);
		rc = AP_EXIT_RUNTIME;
	}
	ap_attrib_free(&at);
	ap_corr_all_free(&x);
	return rc;
}
