// SPDX-License-Identifier: Apache-2.0
/* arenaprof plan: the arena plan of a model, or of a plan someone else computed. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/plan_subgraphs.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/plan_import.h"
#include "arenaprof/render/plan_report.h"
#include "arenaprof/util/units.h"

#if defined(__aarch64__)
#define AP_BUILD_ARCH "arm64"
#else
#define AP_BUILD_ARCH "x86-64"
#endif

#define AP_MAX_INPUT_SHAPES 16

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof plan MODEL.tflite [--strategy S] [--budget SIZE] [--json | "
		"--csv]\n"
		"                      [--top N] [--as-dtype float32] [--no-inplace] [--subgraph "
		"K]\n"
		"                      [--threads N] [--arch arm64|x86-64] [--no-kernels]\n"
		"                      [--input-shape [K=]D,D,...]\n"
		"       arenaprof plan --import FILE [--budget SIZE] [--json | --csv] [--top N]\n\n"
		"Plans the tensor arenas of a model as LiteRT would and says what they need. Each\n"
		"subgraph has arenas of its own: the text and JSON list every subgraph's sizes "
		"and\n"
		"show one subgraph's plan, tensor by tensor.\n"
		"  --subgraph K        the subgraph shown (default 0, the primary): a WHILE's "
		"cond\n"
		"                      or body, an IF's branch, a CALL_ONCE's init subgraph\n"
		"  --strategy S        tflite (default), greedy-size, greedy-breadth, naive, "
		"micro\n"
		"  --budget SIZE       verdict and cgroup v2 settings for a budget (64M, 1.5G);\n"
		"                      exit 3 when the arena alone does not fit it\n"
		"  --json              one JSON object; --csv: the tensor table\n"
		"  --top N             list the N widest operators (default 5)\n"
		"  --as-dtype float32  plan as if every activation were float32\n"
		"  --no-inplace        disable LiteRT's in-place sharing (RESHAPE, ADD, ...)\n"
		"  --threads N         LiteRT num_threads the kernels plan for (default 1)\n"
		"  --arch A            the CPU LiteRT runs on, arm64 or x86-64 (default: this\n"
		"                      build's, " AP_BUILD_ARCH "): with --threads N != 1 a float\n"
		"                      CONV_2D keeps transposed weights on x86-64, im2col on "
		"arm64\n"
		"  --input-shape [K=]D,D,...  plan with input K (default 0) resized to that\n"
		"                      shape, as resize_tensor_input does; its fixed\n"
		"                      dimensions must stay (repeat for more inputs)\n"
		"  --no-kernels        leave out kernel temporaries (im2col, LSTM scratch) and\n"
		"                      the outputs kernels keep persistent (dequantized "
		"constants)\n"
		"  --import FILE       read a plan: LiteRT PrintInterpreterState output\n"
		"                      (benchmark_model --print_preinvoke_state), TFLM\n"
		"                      PrintMemoryPlan, or CSV "
		"tensor,name,offset,size,first_node,last_node\n");
}

/* The subgraph plan shows: built once, for its own sizes and for every strategy. */
struct shown {
	const struct ap_model *m;
	const struct ap_graph_opts *o;
	uint32_t sg;
	enum ap_strategy strat;
	struct ap_plan_set *s;
	struct ap_graph g;
	bool built, planned;	/* the graph and its gaps; s->plan, with strat */
};

/* The graph and the operators not modelled: 0, -1 with err (ap_graph_build's). */
static int shown_build(struct shown *c, char *err)
{
	int n;

	if (ap_graph_build(c->m, c->sg, c->o, &c->g, err))
		return -1;
	c->built = true;
	n = ap_kernel_gaps(&c->g, &c->s->gaps);
	if (n < 0) {
		ap_seterr(err, "out of memory");
		return -1;
	}
	c->s->n_gaps = (uint32_t)n;
	return 0;
}

/* ap_sg_hook: what plan_subgraphs.c would do for the shown subgraph, kept. */
static int shown_hook(void *ctx, struct ap_sg_plan *sp, char *err)
{
	struct shown *c = ctx;

	if (shown_build(c, err) || ap_plan_graph(&c->g, c->strat, &c->s->plan, err))
		return -1;
	c->planned = true;
	sp->n_gaps = c->s->n_gaps + !!sp->caller_gap.why;	/* a caller counts as one */
	sp->arena_bytes = c->s->plan.arena_bytes;
	sp->persistent_bytes = c->s->plan.persistent_bytes;
	return 0;
}

/* Every strategy's plan of the shown subgraph: its sizes, and the chosen one kept. */
static int plan_strategies(const char *path, struct shown *c)
{
	struct ap_plan_set *s = c->s;
	struct ap_tplan other = { 0 };	/* the other strategies, one after the other */
	bool have_other = false;
	char err[AP_ERR_LEN];

	for (int i = 0; i < AP_STRAT_COUNT; i++) {
		struct ap_profile pr;
		struct ap_tplan *p = i == (int)c->strat ? &s->plan : &other;
		int rc = 0;

		if (p == &s->plan && !c->planned)
			rc = ap_plan_graph(&c->g, i, p, err);
		else if (p == &other)
			rc = (have_other ? ap_plan_graph_again : ap_plan_graph)(&c->g, i, p, err);
		if (rc) {
			ap_cli_say("plan", "%s: %s", path, err);
			return AP_EXIT_RUNTIME;
		}
		if (p == &s->plan)
			c->planned = true;
		else
			have_other = true;
		s->strat_bytes[i] = p->arena_bytes;
		if (ap_profile_compute(p, &pr) == 0)
			s->strat_lb[i] = pr.lower_bound;
		ap_profile_free(&pr);
		/* A computed plan that overlaps is a bug here, not bad input. */
		if (ap_tplan_check(p, err)) {
			ap_cli_say("plan", "internal error: %s plan of %s is "
				"inconsistent: %s", ap_strategy_name(i), path, err);
			ap_tplan_free(&other);
			return AP_EXIT_RUNTIME;
		}
	}
	ap_tplan_free(&other);
	s->naive_bytes = s->strat_bytes[AP_STRAT_NAIVE];
	return AP_EXIT_OK;
}

static int plan_model(const char *path, enum ap_strategy strat, const struct ap_graph_opts *o,
		      uint32_t sg, const struct ap_shape_override *ov, struct ap_model *m,
		      struct ap_plan_set *s)
{
	struct shown c = { .m = m, .o = o, .sg = sg, .strat = strat, .s = s };
	struct ap_sg_hook hook = { .subgraph = sg, .plan = shown_hook, .ctx = &c };
	char err[AP_ERR_LEN];
	int rc = AP_EXIT_USAGE;

	if (ap_model_load(path, m, err)) {
		ap_cli_say("plan", "%s", err);
		return AP_EXIT_USAGE;
	}
	if (!m->n_subgraphs) {
		ap_cli_say("plan", "%s: model has no subgraph", path);
		return AP_EXIT_USAGE;
	}
	if (ap_shapes_infer(m, ov, s->n_input_shapes, &s->shapes, err)) {
		ap_cli_say("plan", "%s: %s", path, err);
		return AP_EXIT_USAGE;
	}
	s->have_shapes = true;
	if (sg >= m->n_subgraphs) {
		ap_cli_say("plan", "%s: --subgraph %u: the model has %u subgraph%s", path, sg,
			   m->n_subgraphs, m->n_subgraphs == 1 ? "" : "s");
		return AP_EXIT_USAGE;
	}
	if (ap_plan_subgraphs(m, o, strat, &hook, &s->sgs, err)) {
		ap_cli_say("plan", "%s: %s", path, err);
		goto out;
	}
	s->subgraph = sg;
	if (!c.built && shown_build(&c, err)) {	/* a subgraph LiteRT never plans */
		ap_cli_say("plan", "%s: %s", path, err);
		rc = c.built ? AP_EXIT_RUNTIME : AP_EXIT_USAGE;
		goto out;
	}
	s->model = m;
	s->have_strategies = true;
	s->arch = ap_arch_resolve(o->arch);
	s->caller_gap = s->sgs[sg].caller_gap;
	s->split_after = malloc((c.g.n_ops + 1) * sizeof(*s->split_after));
	if (!s->split_after) {
		ap_cli_say("plan", "out of memory");
		rc = AP_EXIT_RUNTIME;
		goto out;
	}
	for (uint32_t i = 0; i + 1 < c.g.n_ops; i++)
		if (ap_graph_ends_prepare(&c.g, i))
			s->split_after[s->n_split++] = (int32_t)i;
	rc = plan_strategies(path, &c);
out:
	if (c.built)
		ap_graph_free(&c.g);
	return rc;
}

/* --input-shape [K=]D,D,...: input K (default 0) planned at that shape. */
static int input_shape(const char *arg, struct ap_shape_override *o)
{
	const char *eq = strchr(arg, '=');
	uint64_t k = 0;

	if (eq) {
		char idx[16];

		if ((size_t)(eq - arg) >= sizeof(idx)) {
			ap_cli_say("plan", "--input-shape '%s': K=D,D,... or D,D,...", arg);
			return -1;
		}
		memcpy(idx, arg, (size_t)(eq - arg));
		idx[eq - arg] = 0;
		if (ap_parse_u64(idx, 10, 0, INT32_MAX, &k)) {
			ap_cli_say("plan", "--input-shape '%s': '%s' is not an input index", arg,
				   idx);
			return -1;
		}
	}
	o->input = (int32_t)k;
	if (ap_shape_parse(eq ? eq + 1 : arg, o)) {
		ap_cli_say("plan", "--input-shape '%s': dimensions are 1 to %d counts, comma "
			   "separated (1,16000)", arg, AP_SHAPE_MAX_RANK);
		return -1;
	}
	return 0;
}

/* The command line: what to plan, how, and what to print. */
struct args {
	struct ap_plan_set s;		/* top, budget, as_float32, n_input_shapes */
	struct ap_graph_opts gopts;
	struct ap_shape_override ov[AP_MAX_INPUT_SHAPES];
	enum ap_strategy strat;
	const char *import;
	bool json, csv, have_sg;
	uint32_t sg;
};

#define GO_ON AP_CMD_GO_ON	/* parse_args: plan; else the exit code */

/* One option with its value into a: 0, 2 for a bad value (said), -1 for an unknown one. */
static int set_option(struct args *a, int c, const char *arg)
{
	uint64_t v = 0;

	switch (c) {
	case 's':
		if (ap_strategy_parse(arg, &a->strat)) {
			ap_cli_say("plan", "unknown strategy '%s' (tflite, "
				"greedy-size, greedy-breadth, naive, micro)", arg);
			return AP_EXIT_USAGE;
		}
		break;
	case 'b':
		if (ap_parse_size(arg, &a->s.budget) || !a->s.budget) {
			ap_cli_say("plan", "--budget '%s' is not a size "
				"(e.g. 64M, 1.5G, 4194304)", arg);
			return AP_EXIT_USAGE;
		}
		a->s.have_budget = true;
		break;
	case 'j': a->json = true; break;
	case 'c': a->csv = true; break;
	case 't':
		if (ap_cli_count("plan", "top", arg, 0, 100000, &v))
			return AP_EXIT_USAGE;
		a->s.top = (unsigned)v;
		break;
	case 'd':
		if (strcmp(arg, "float32")) {
			ap_cli_say("plan", "--as-dtype supports float32 only");
			return AP_EXIT_USAGE;
		}
		a->gopts.as_float32 = a->s.as_float32 = true;
		break;
	case 'n': a->gopts.no_inplace = true; break;
	case 'K': a->gopts.no_kernels = true; break;
	case 'T':
		if (ap_parse_u64(arg, 10, 1, 1024, &v)) {
			ap_cli_say("plan", "--threads '%s' is not a thread count "
				"(1-1024)", arg);
			return AP_EXIT_USAGE;
		}
		a->gopts.threads = (int)v;
		break;
	case 'G':
		if (ap_parse_u64(arg, 10, 0, UINT32_MAX - 1, &v)) {
			ap_cli_say("plan", "--subgraph '%s' is not a subgraph index", arg);
			return AP_EXIT_USAGE;
		}
		a->sg = (uint32_t)v;
		a->have_sg = true;
		break;
	case 'A':
		if (ap_arch_parse(arg, &a->gopts.arch)) {
			ap_cli_say("plan", "--arch '%s': arm64 or x86-64", arg);
			return AP_EXIT_USAGE;
		}
		break;
	case 'I':
		if (a->s.n_input_shapes == AP_MAX_INPUT_SHAPES) {
			ap_cli_say("plan", "--input-shape: at most %d", AP_MAX_INPUT_SHAPES);
			return AP_EXIT_USAGE;
		}
		if (input_shape(arg, &a->ov[a->s.n_input_shapes]))
			return AP_EXIT_USAGE;
		a->s.n_input_shapes++;
		break;
	case 'i': a->import = arg; break;
	default: return -1;
	}
	return 0;
}

/* The command line into a: GO_ON, or the exit code (--help, a bad option, said). */
static int parse_args(struct args *a, int argc, char **argv)
{
	int c, rc;
	struct ap_opts op;

	*a = (struct args){ .s = { .top = 5 }, .strat = AP_STRAT_TFLITE };
	ap_opts_init(&op, "s|strategy: b|budget: j|json c|csv t|top: d|as-dtype: n|no-inplace "
		     "i|import: T|threads: K|no-kernels G|subgraph: A|arch: I|input-shape: h|help");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		if (c == 'h') {
			usage(stdout);
			return AP_EXIT_OK;
		}
		rc = set_option(a, c, optarg);
		if (rc < 0)
			return ap_cli_bad_option("plan", argv);
		if (rc)
			return rc;
	}
	if (a->json && a->csv) {
		ap_cli_say("plan", "--json and --csv are exclusive");
		return AP_EXIT_USAGE;
	}
	if (a->import ? optind != argc : optind != argc - 1) {
		ap_cli_say("plan", "expected %s (see 'arenaprof plan --help')",
			a->import ? "no MODEL with --import" : "one MODEL.tflite");
		return AP_EXIT_USAGE;
	}
	if (a->import && a->s.n_input_shapes) {
		ap_cli_say("plan", "--input-shape needs a MODEL, not --import");
		return AP_EXIT_USAGE;
	}
	if (a->import && a->have_sg) {
		ap_cli_say("plan", "--subgraph needs a MODEL, not --import");
		return AP_EXIT_USAGE;
	}
	return GO_ON;
}

int cmd_plan_parse(int argc, char **argv)
{
	struct args a;

	return parse_args(&a, argc, argv);
}

int cmd_plan(int argc, char **argv)
{
	struct ap_model m = { 0 };
	char err[AP_ERR_LEN];
	struct args a;
	struct ap_plan_set *s = &a.s;
	int rc = parse_args(&a, argc, argv);

	if (rc != GO_ON)
		return rc;
	if (a.import) {
		if (ap_plan_import(a.import, &s->plan, err)) {
			ap_cli_say("plan", "%s", err);
			return AP_EXIT_USAGE;
		}
	} else {
		rc = plan_model(argv[optind], a.strat, &a.gopts, a.sg, a.ov, &m, s);
		if (rc)
			goto out;
	}
	if (ap_profile_compute(&s->plan, &s->prof)) {
		ap_cli_say("plan", "out of memory");
		rc = AP_EXIT_RUNTIME;
		goto out;
	}
	if (a.import && ap_tplan_check(&s->plan, err))
		ap_cli_say("plan", "warning: %s: tensors live at the same time "
			"share bytes: %s", a.import, err);
	if (a.json)
		ap_plan_print_json(stdout, s);
	else if (a.csv)
		ap_plan_print_csv(stdout, &s->plan);
	else
		ap_plan_print_text(stdout, s);
	rc = fflush(stdout) ? AP_EXIT_RUNTIME : AP_EXIT_OK;
	if (!rc && !ap_plan_fits(s))
		rc = AP_EXIT_OVER;	/* a gate for CI: the model does not fit the budget */
out:
	ap_profile_free(&s->prof);
	ap_tplan_free(&s->plan);
	free(s->gaps);
	free(s->sgs);
	free(s->split_after);
	ap_model_free(&m);
	return rc;
}
