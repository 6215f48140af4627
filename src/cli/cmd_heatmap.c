// SPDX-License-Identifier: Apache-2.0
/* arenaprof heatmap: arena faults by operator or run against arena offset. */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/cli/trace_in.h"
#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/util/outfile.h"
#include "arenaprof/analyze/heatmap.h"


enum fmt { F_AUTO, F_SVG, F_PNG, F_CSV, F_ANSI };

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof heatmap TRACE --plan MODEL.tflite|PLAN [--plan MODEL2 ...]\n"
		"                -o OUT.svg|OUT.png|OUT.csv|- [--by op|run] [--faults first|all]\n"
		"                [--cols N] [--rows N]\n"
		"                [--runs A-B] [--log] [--attr marker|plan] [--format F]\n"
		"                [--arena auto|ADDR] [--width N] [--force] [--skip-empty]\n"
		"                [--region arena|workspace] [--salvage]\n\n"
		"Arena page faults of a trace as a matrix: columns are arena offset buckets\n"
		"(a page each, or --cols buckets), rows are operators in execution order (--by "
		"op,\n"
		"the "
		"default: 'index opcode output-tensor') or runs (--by run). A cell counts\n"
		"the "
		"faults attributed to that row in that bucket; all cells add up to the faults\n"
		"counted. The output format follows -o's extension; '-' draws in the\n"
		"terminal "
		"(256 colours, fitted to its width).\n"
		"  --plan M           again for each model of a process that ran several (at\n"
		"                     most %d): one matrix, each model's rows labelled\n"
		"                     'model:op', its columns its own arena's pages\n"
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
		AP_TRACE_IN_HELP
		"  --width N          terminal width for -o - (default: the terminal's)\n"
		"  --force            draw even when the plan does not match the trace (marked)\n"
		"  --skip-empty       leave out the rows nothing was counted in\n"
		"  --region arena|workspace  the TFLite arena (default) or, on LiteRT's default\n"
		"                     path, XNNPACK's workspace: its pages by the operator whose\n"
		"                     value lies there first (XNNPACK zeroes it at reshape: first\n"
		"                     touches, by plan)\n"
		"Exit 2 for bad usage, a plan that does not match the trace (without --force) or\n"
		"an unreadable trace.\n", AP_MAX_MODELS, AP_HM_AUTO_PAGES, AP_HM_AUTO_COLS,
		AP_HM_RUN_ROWS);
}

static int parse_u32(const char *s, uint32_t lo, uint32_t hi, uint32_t *out)
{
	uint64_t v;

	if (ap_parse_u64(s, 10, lo, hi, &v))
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/* "A-B", "A" or "A-"; A may be -1 (the dash after A's own sign separates them) */
static int parse_runs(const char *s, int32_t *lo, int32_t *hi)
{
	const char *dash = *s ? strchr(s + 1, '-') : NULL;
	char a[24];
	int64_t x, y = INT32_MAX;
	size_t n = dash ? (size_t)(dash - s) : strlen(s);

	if (n >= sizeof(a))
		return -1;
	memcpy(a, s, n);
	a[n] = '\0';
	if (ap_parse_i64(a, -1, INT32_MAX, &x))
		return -1;
	if (!dash)
		y = x;
	else if (dash[1] && ap_parse_i64(dash + 1, x, INT32_MAX, &y))
		return -1;
	*lo = (int32_t)x;
	*hi = (int32_t)y;
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
	FILE *f = strcmp(out, "-") ? ap_outfile_fopen(out, 0644, err) : stdout;
	uint32_t w, ht;
	int rc;

	if (!f)
		return AP_EXIT_USAGE;	/* a refused or unusable path, as record's -o */
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
		char px[48] = "";

		if (fmt == F_PNG)
			snprintf(px, sizeof(px), ", %ux%u pixels", w, ht);
		ap_cli_say("heatmap", "wrote %s: %u rows x %u columns, %" PRIu64 " %s%s%s", out,
			   h->rows, h->cols, h->total, h->all_faults ? "faults" : "first touches",
			   px, h->passes2 ? " (read the trace twice)" : "");
	}
	return 0;
}

/* The command line: what to read, what to draw and where. */
struct args {
	struct ap_hm_opts ho;
	struct ap_corr_in in;
	struct ap_hm_pre *pre;		/* --faults all's accumulator, NULL */
	const char *out;
	enum fmt fmt;
	uint32_t width;
	bool force;
};

#define GO_ON AP_CMD_GO_ON	/* parse_args: draw; else the exit code */

/* One option with its value into a: 0, 1 for a bad value, -1 for an unknown option. */
static int set_option(struct args *a, int c, const char *arg)
{
	int w;

	switch (c) {
	case 'o': a->out = arg; break;
	case 'B':
		w = ap_cli_word(arg, "op", "run", NULL);
		a->ho.by = w ? AP_HM_BY_RUN : AP_HM_BY_OP;
		return w < 0;
	case 'F':
		w = ap_cli_word(arg, "first", "all", NULL);
		a->ho.all_faults = w == 1;
		return w < 0;
	case 'c': return parse_u32(arg, 1, 1u << 20, &a->ho.cols) ? 1 : 0;
	case 'r': return parse_u32(arg, 1, 100000, &a->ho.rows) ? 1 : 0;
	case 'R':
		a->ho.have_runs = true;
		return parse_runs(arg, &a->ho.run_lo, &a->ho.run_hi) ? 1 : 0;
	case 'l': a->ho.log_rows = true; break;
	case 'A':
		w = ap_cli_word(arg, "marker", "plan", NULL);
		a->ho.attr = w ? AP_HM_ATTR_PLAN : AP_HM_ATTR_MARKER;
		return w < 0;
	case 'f':	/* the words in enum fmt's order, after F_AUTO */
		a->fmt = (enum fmt)(ap_cli_word(arg, "svg", "png", "csv", "ansi", NULL) + 1);
		return a->fmt == F_AUTO;
	case 'w': return parse_u32(arg, 40, 10000, &a->width) ? 1 : 0;
	case 'x': a->force = true; break;
	case 'E': a->ho.skip_empty = true; break;
	case 'G':
		w = ap_cli_word(arg, "arena", "workspace", NULL);
		a->ho.workspace = w == 1;
		return w < 0;
	default: return -1;
	}
	return 0;
}

/* What the trace, -o and the format must be, once every option is read. */
static int check_args(struct args *a, int argc, char **argv)
{
	int rc = ap_trace_in_arg("heatmap", argc, argv, &a->in);

	if (rc)
		return rc;
	if (!a->in.plan_path) {
		ap_cli_say("heatmap", "needs --plan MODEL.tflite (or a plan file)");
		return AP_EXIT_USAGE;
	}
	if (!a->out) {
		ap_cli_say("heatmap", "needs -o OUT.svg, OUT.png, OUT.csv or - (terminal)");
		return AP_EXIT_USAGE;
	}
	if (a->fmt == F_AUTO)
		a->fmt = fmt_of(a->out);
	if (a->fmt == F_AUTO) {
		ap_cli_say("heatmap", "cannot tell the format of '%s': name it .svg, .png or "
			".csv, or give --format", a->out);
		return AP_EXIT_USAGE;
	}
	if (a->fmt == F_PNG && !strcmp(a->out, "-") && isatty(STDOUT_FILENO)) {
		ap_cli_say("heatmap", "not writing a PNG to a terminal");
		return AP_EXIT_USAGE;
	}
	return GO_ON;
}

static int parse_args(struct args *a, int argc, char **argv)
{
	int c, r;
	struct ap_opts op;

	a->in.many_plans = true;
	ap_opts_init(&op, AP_TRACE_IN_SPEC " o|output: B=by: F=faults: c=cols: r=rows: R=runs: "
		     "l=log A=attr: f=format: w=width: x=force E=skip-empty G=region: h|help");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return AP_EXIT_OK;
		}
		r = set_option(a, c, optarg);
		if (r < 0) {
			r = ap_trace_in_opt("heatmap", c, optarg, &a->in, argv);
			if (r)
				return r;
			continue;
		}
		if (r) {
			ap_cli_say("heatmap", "bad value '%s' for --%s (see 'arenaprof heatmap "
				"--help')", optarg, c == 'c' ? "cols" : c == 'r' ? "rows" :
				c == 'R' ? "runs" : c == 'A' ? "attr" : c == 'f' ? "format" :
				c == 'w' ? "width" : c == 'G' ? "region" :
				c == 'B' ? "by" : "faults");
			return AP_EXIT_USAGE;
		}
	}
	return check_args(a, argc, argv);
}

int cmd_heatmap_parse(int argc, char **argv)
{
	struct args a = { .fmt = F_AUTO };

	return parse_args(&a, argc, argv);
}

/*
 * --faults all: the faults counted on the way through the trace (heatmap.h), sized by the
 * plan once ap_corr_load has loaded it. Without the accumulator (out of memory) the build
 * reads the trace twice.
 */
static void pre_on_plan(void *ctx, const struct ap_tplan *p)
{
	struct args *a = ctx;

	a->pre = ap_hm_pre_new(&a->ho, p, a->in.arena_addr);
}

static void pre_on_fault(void *ctx, const struct ap_analysis *an, const struct ap_rec_fault *f,
			 int32_t mi)
{
	struct args *a = ctx;

	if (a->pre)
		ap_hm_pre_fault(a->pre, an, f, mi);
}

/* The correlated trace, or an exit code: unreadable, or a plan that does not match it. */
static int load(struct args *a, struct ap_corr_all *x)
{
	int rc = ap_trace_in_load("heatmap", &a->in, x);
	struct ap_corr_model m;

	if (rc)
		return rc;
	/* the workspace's pages are judged apart (its section in report) */
	for (uint32_t i = 0; i < x->n_models && !a->force && !a->ho.workspace; i++) {
		ap_corr_model(x, i, &m);
		if (!m.c->mismatch)
			continue;
		ap_cli_say("heatmap", "the plan %s does not match this trace, not drawn "
			"(--force draws it marked as such):", m.path);
		for (uint32_t k = 0; k < m.c->n_reasons; k++)
			ap_cli_item("%s", m.c->reasons[k]);
		return AP_EXIT_USAGE;
	}
	return 0;
}

int cmd_heatmap(int argc, char **argv)
{
	struct args a = { .fmt = F_AUTO };
	struct ap_corr_all x;
	struct ap_heatmap h;
	char err[AP_ERR_LEN];
	int rc = parse_args(&a, argc, argv);

	if (rc != GO_ON)
		return rc;
	if (a.ho.all_faults) {
		a.in.on_plan = pre_on_plan;
		a.in.on_fault = pre_on_fault;
		a.in.ctx = &a;
	}
	rc = load(&a, &x);
	if (rc) {
		ap_corr_all_free(&x);
		ap_hm_pre_free(a.pre);
		return rc;
	}
	rc = ap_cli_exit(ap_heatmap_build(&x, a.in.trace, &a.ho, a.pre, &h, err));
	if (!rc)
		rc = render(&h, a.fmt, a.out, a.width, err);
	if (!rc && x.have_ws && !a.ho.workspace)
		ap_cli_say("heatmap", "the trace also holds XNNPACK's workspace (%" PRIu64 " pages "
			   "first touched): --region workspace draws it by operator",
			   x.ws.ft_pages);
	if (rc)
		ap_cli_say("heatmap", "%s", err);
	if (!rc)
		rc = ap_trace_in_salvaged("heatmap", &a.in, &x, "the heatmap", rc);
	ap_heatmap_free(&h);
	ap_corr_all_free(&x);
	ap_hm_pre_free(a.pre);
	return rc;
}
