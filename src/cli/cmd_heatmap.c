// SPDX-License-Identifier: Apache-2.0
/* arenaprof heatmap: arena faults by operator or run against arena offset. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/cli/cmd.h"
#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/analyze/heatmap.h"
#include "arenaprof/plan/plan_load.h"

#define PROG "arenaprof heatmap"

enum fmt { F_AUTO, F_SVG, F_PNG, F_CSV, F_ANSI };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof heatmap TRACE --plan MODEL.tflite|PLAN\n"
		"                -o OUT.svg|OUT.png|OUT.csv|- [--by op|run] [--faults first|all]\n"
		"                [--cols N] [--rows N]\n"
		"                [--runs A-B] [--log] [--attr marker|plan] [--format F]\n"
		"                [--arena ADDR] [--arena-base ADDR] [--width N] [--force]\n\n"
		"Arena page faults of a trace as a matrix: columns are arena offset buckets\n"
		"(a page each, or --cols buckets), rows are operators in execution order (--by op,\n"
		"the "
		"default: 'index opcode output-tensor') or runs (--by run). A cell counts\n"
		"the "
		"faults attributed to that row in that bucket; all cells add up to the faults\n"
		"counted. The output format follows -o's extension; '-' draws in the\n"
		"terminal "
		"(256 colours, fitted to its width).\n"
		"  --by op|run        rows: operators (default) or runs\n"
		"  --faults first|all first touches only (default), or every fault (reclaimed\n"
		"                     pages that refault under memory.high pressure)\n"
		"  --cols N           at most N offset buckets of whole pages (default: a page\n"
		"                     each up to %d pages, else %d)\n"
		"  --rows N           --by run: at most N rows of equal run ranges (default %d)\n"
		"  --log              --by run: rows of run 0, 1, 2-3, 4-7, ... (doubling)\n"
		"  --runs A-B         only faults of runs A to B (-1: before run 0)\n"
		"  --attr marker|plan --by op: the operator a fault counts for: the op marker\n"
		"                     recorded (default when the trace has markers) or the plan's\n"
		"                     earliest writer of the page\n"
		"  --format F         svg, png, csv or ansi, whatever -o's name says\n"
		"  --arena ADDR       the arena is the mapping holding ADDR (hex)\n"
		"  --arena-base ADDR  planned offset 0 is at ADDR (hex)\n"
		"  --width N          terminal width for -o - (default: the terminal's)\n"
		"  --force            draw even when the plan does not match the trace (marked)\n"
		"Exit 2 for bad usage, a plan that does not match the trace (without --force) or\n"
		"an unreadable trace.\n", AP_HM_AUTO_PAGES, AP_HM_AUTO_COLS, AP_HM_RUN_ROWS);
}

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v;

	if (ap_parse_u64(s, 10, lo, hi, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "A-B", "A" or "A-"; A may be -1 */
static int parse_runs(const char *s, int32_t *lo, int32_t *hi)
{
	char *end;
	long a, b;

	errno = 0;
	a = strtol(s, &end, 10);
	if (errno || end == s || a < -1 || a > INT32_MAX)
		return -1;
	if (!*end) {
		*lo = *hi = (int32_t)a;
		return 0;
	}
	if (*end != '-')
		return -1;
	s = end + 1;
	if (!*s) {
		*lo = (int32_t)a;
		*hi = INT32_MAX;
		return 0;
	}
	b = strtol(s, &end, 10);
	if (errno || end == s || *end || b < a || b > INT32_MAX)
		return -1;
	*lo = (int32_t)a;
	*hi = (int32_t)b;
	return 0;
}

static enum fmt fmt_of(const char *out)
{
	const char *dot = strrchr(out, '.');

	if (!strcmp(out, "-"))
		return F_ANSI;
	if (!dot)
		return F_AUTO;
	if (!strcasecmp(dot, ".svg"))
		return F_SVG;
	if (!strcasecmp(dot, ".png"))
		return F_PNG;
	if (!strcasecmp(dot, ".csv"))
		return F_CSV;
	return F_AUTO;
}

static int render(const struct ap_heatmap *h, enum fmt fmt, const char *out, unsigned width,
		  char *err)
{
	FILE *f = strcmp(out, "-") ? fopen(out, "wbe") : stdout;
	uint32_t w, ht;
	int rc;

	if (!f) {
		ap_seterr(err, "%s: %s", out, strerror(errno));
		return AP_EXIT_RUNTIME;
	}
	switch (fmt) {
	case F_SVG: rc = ap_heatmap_svg(h, f, err); break;
	case F_PNG: rc = ap_heatmap_png(h, f, &w, &ht, err); break;
	case F_CSV: rc = ap_heatmap_csv(h, f, err); break;
	default: rc = ap_heatmap_ansi(h, f, width, err); break;
	}
	if (f != stdout && fclose(f) && !rc) {
		ap_seterr(err, "%s: %s", out, strerror(errno));
		rc = -1;
	}
	if (rc)
		return AP_EXIT_RUNTIME;
	if (f != stdout) {
		fprintf(stderr, "%s: wrote %s: %u rows x %u columns, %" PRIu64 " %s", PROG, out,
			h->rows, h->cols, h->total, h->all_faults ? "faults" : "first touches");
		if (fmt == F_PNG)
			fprintf(stderr, ", %ux%u pixels", w, ht);
		if (h->passes2)
			fputs(" (read the trace twice)", stderr);
		fputc('\n', stderr);
	}
	return 0;
}

int cmd_heatmap(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "plan", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "by", required_argument, NULL, 'B' },
		{ "faults", required_argument, NULL, 'F' },
		{ "cols", required_argument, NULL, 'c' },
		{ "rows", required_argument, NULL, 'r' },
		{ "runs", required_argument, NULL, 'R' },
		{ "log", no_argument, NULL, 'l' },
		{ "attr", required_argument, NULL, 'A' },
		{ "format", required_argument, NULL, 'f' },
		{ "arena", required_argument, NULL, 'a' },
		{ "arena-base", required_argument, NULL, 'b' },
		{ "width", required_argument, NULL, 'w' },
		{ "force", no_argument, NULL, 'x' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ap_hm_opts ho = { 0 };
	struct ap_corr_in in = { 0 };
	struct ap_corr_all x;
	struct ap_heatmap h;
	struct ap_hm_pre *pre = NULL;
	const char *out = NULL;
	enum fmt fmt = F_AUTO;
	uint32_t width = 0;
	bool force = false;
	char err[AP_ERR_LEN];
	int c, rc;

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "p:o:h", opts, NULL)) != -1) {
		bool bad = false;

		switch (c) {
		case 'p': in.plan_path = optarg; break;
		case 'o': out = optarg; break;
		case 'B':
			if (!strcmp(optarg, "op"))
				ho.by = AP_HM_BY_OP;
			else if (!strcmp(optarg, "run"))
				ho.by = AP_HM_BY_RUN;
			else
				bad = true;
			break;
		case 'F':
			if (!strcmp(optarg, "first") || !strcmp(optarg, "all"))
				ho.all_faults = !strcmp(optarg, "all");
			else
				bad = true;
			break;
		case 'c': bad = parse_u32(optarg, 1, 1u << 20, &ho.cols); break;
		case 'r': bad = parse_u32(optarg, 1, 100000, &ho.rows); break;
		case 'R':
			bad = parse_runs(optarg, &ho.run_lo, &ho.run_hi);
			ho.have_runs = true;
			break;
		case 'l': ho.log_rows = true; break;
		case 'A':
			if (!strcmp(optarg, "marker"))
				ho.attr = AP_HM_ATTR_MARKER;
			else if (!strcmp(optarg, "plan"))
				ho.attr = AP_HM_ATTR_PLAN;
			else
				bad = true;
			break;
		case 'f':
			fmt = !strcmp(optarg, "svg") ? F_SVG : !strcmp(optarg, "png") ? F_PNG :
			      !strcmp(optarg, "csv") ? F_CSV : !strcmp(optarg, "ansi") ? F_ANSI :
			      F_AUTO;
			bad = fmt == F_AUTO;
			break;
		case 'a': bad = ap_parse_addr(optarg, &in.arena_addr); break;
		case 'b': bad = ap_parse_addr(optarg, &in.arena_base); break;
		case 'w': bad = parse_u32(optarg, 40, 10000, &width); break;
		case 'x': force = true; break;
		case 'h': usage(stdout); return AP_EXIT_OK;
		default:
			fprintf(stderr, PROG ": bad option or missing value: '%s' (see 'arenaprof "
				"heatmap --help')\n", argv[optind - 1]);
			return AP_EXIT_USAGE;
		}
		if (bad) {
			fprintf(stderr, PROG ": bad value '%s' for --%s (see 'arenaprof heatmap "
				"--help')\n", optarg, c == 'c' ? "cols" : c == 'r' ? "rows" :
				c == 'R' ? "runs" : c == 'A' ? "attr" : c == 'f' ? "format" :
				c == 'a' ? "arena" : c == 'b' ? "arena-base" : c == 'w' ? "width" :
				c == 'B' ? "by" : "faults");
			return AP_EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		fprintf(stderr, PROG ": expected one TRACE (see 'arenaprof heatmap --help')\n");
		return AP_EXIT_USAGE;
	}
	if (!in.plan_path) {
		fprintf(stderr, PROG ": needs --plan MODEL.tflite (or a plan file)\n");
		return AP_EXIT_USAGE;
	}
	if (!out) {
		fprintf(stderr, PROG ": needs -o OUT.svg, OUT.png, OUT.csv or - (terminal)\n");
		return AP_EXIT_USAGE;
	}
	if (fmt == F_AUTO)
		fmt = fmt_of(out);
	if (fmt == F_AUTO) {
		fprintf(stderr, PROG ": cannot tell the format of '%s': name it .svg, .png or "
			".csv, or give --format\n", out);
		return AP_EXIT_USAGE;
	}
	if (fmt == F_PNG && !strcmp(out, "-") && isatty(STDOUT_FILENO)) {
		fprintf(stderr, PROG ": not writing a PNG to a terminal\n");
		return AP_EXIT_USAGE;
	}
	in.trace = argv[optind];
	if (ho.all_faults) {
		struct ap_tplan pl = { 0 };

		/* the plan is loaded twice: once here for its size and operator count */
		if (!ap_plan_load(in.plan_path, &pl, err)) {
			pre = ap_hm_pre_new(&ho, &pl, in.arena_base ? in.arena_base :
					    in.arena_addr);
			ap_tplan_free(&pl);
		}
		if (pre) {
			in.on_fault = ap_hm_pre_fault;
			in.ctx = pre;
		}
	}
	rc = ap_corr_load(&in, &x, err);
	if (rc) {
		fprintf(stderr, PROG ": %s\n", err);
		ap_corr_all_free(&x);
		ap_hm_pre_free(pre);
		return rc;
	}
	if (x.a.truncated)
		fprintf(stderr, PROG ": warning: %s was cut short; drawing every whole record "
			"up to the cut\n", in.trace);
	if (x.c.mismatch && !force) {
		fprintf(stderr, PROG ": the plan %s does not match this trace, not drawn "
			"(--force draws it marked as such):\n", in.plan_path);
		for (uint32_t i = 0; i < x.c.n_reasons; i++)
			fprintf(stderr, "  - %s\n", x.c.reasons[i]);
		ap_corr_all_free(&x);
		ap_hm_pre_free(pre);
		return AP_EXIT_USAGE;
	}
	rc = ap_heatmap_build(&x, in.trace, &ho, pre, &h, err);
	if (!rc)
		rc = render(&h, fmt, out, width, err);
	if (rc)
		fprintf(stderr, PROG ": %s\n", err);
	ap_heatmap_free(&h);
	ap_corr_all_free(&x);
	ap_hm_pre_free(pre);
	return rc;
}
