/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace_in: what report, export and heatmap share: the options that say how to read a
 * trace (--plan, --arena) and loading it, with the one exit code policy for its errors.
 */
#ifndef ARENAPROF_CLI_TRACE_IN_H
#define ARENAPROF_CLI_TRACE_IN_H

#include "arenaprof/analyze/correlate.h"

/* Their part of a command's option spec (cli/opts.h): 'p' for --plan and --plan-csv, 'D'
 * for --delegate, 'u' for --runtime, 'a' for --arena, 'S' for --salvage. */
#define AP_TRACE_IN_SPEC "p|plan: p=plan-csv: D=delegate: u=runtime: a|arena: S|salvage"


/* Their lines in --help. */
#define AP_TRACE_IN_HELP \
	"  --delegate auto    (default) a model's plan for what the trace ran: the TFLite\n" \
	"                     arena left beside XNNPACK (LiteRT's default path) when the\n" \
	"                     allocation probe saw that arena allocated, else the builtin\n" \
	"                     kernels' plan\n" \
	"  --delegate xnnpack|none  that plan, as `arenaprof plan --delegate` computes it\n" \
	"  --runtime auto     (default) a model planned by the rules of the runtime the\n" \
	"                     trace names: tflite-runtime-2.14 for a tflite-runtime 2.14\n" \
	"                     process, else litert (LiteRT 2.3's)\n" \
	"  --runtime litert|tflite-runtime-2.14|tflm  those rules, as `arenaprof plan\n" \
	"                     --runtime` plans (at the runtime's default num_threads)\n" \
	"  --arena auto       (default) the arena as found: record --arena's address, the\n" \
	"                     allocation probe's block of the plan's size, else the\n" \
	"                     mapping of the plan's size and the base that fits it best\n" \
	"  --arena ADDR       planned offset 0 is at ADDR (hex); the arena is the mapping\n" \
	"                     holding it\n" \
	"  --salvage          a corrupt trace: skip the records that fail their check, use\n" \
	"                     the rest, say how much was skipped, and exit 1\n"

/*
 * For a command's options its own switch did not take: option c if it is one of these (0),
 * else the exit code of a bad value or an unknown option (2, said).
 */
int ap_trace_in_opt(const char *cmd, int c, const char *arg, struct ap_corr_in *in,
		    char **argv);

/* After the options: the one TRACE argument into in->trace (0), or 2 said (also for a
 * --runtime whose XNNPACK is not modelled with --delegate xnnpack). */
int ap_trace_in_arg(const char *cmd, int argc, char **argv, struct ap_corr_in *in);

/*
 * Loads and correlates in->trace (ap_corr_load) and warns when it was cut short. 0, or the
 * exit code of its error (said): 2 for a bad trace, plan or --arena, 1 out of memory.
 * Free x with ap_corr_all_free in either case.
 */
int ap_trace_in_load(const char *cmd, const struct ap_corr_in *in, struct ap_corr_all *x);

/*
 * After the command's output: with --salvage, when records were skipped, one line saying
 * how much (what: "the report above", "the export"...) and exit code 1; else rc.
 */
int ap_trace_in_salvaged(const char *cmd, const struct ap_corr_in *in,
			 const struct ap_corr_all *x, const char *what, int rc);

#endif
