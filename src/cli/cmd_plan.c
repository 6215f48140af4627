// SPDX-License-Identifier: Apache-2.0
/*
 * arenaprof plan: the arena plan of a model, or of a plan someone else computed; of
 * several models, what they hold in one process (plan_process.h).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/procmem.h"
#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/plan/plan_build.h"
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
		"usage: arenaprof plan MODEL.tflite [MODEL.tflite ...] [--delegate xnnpack|none]\n"
		"                      [--cpu NAME] [--strategy S] [--budget SIZE] "
		"[--json | --csv]\n"
		"                      [--top N] [--as-dtype float32] [--no-inplace] [--subgraph "
		"K]\n"
		"                      [--threads N] [--arch arm64|x86-64] [--no-kernels]\n"
		"                      [--runtime litert|tflite-runtime-2.14|tflm]\n"
		"                      [--weights mmap|copy]\n"
		"                      [--input-shape [K=]D,D,...]\n"
		"       arenaprof plan --import FILE [--budget SIZE] [--json | --csv] [--top N]\n\n"
		"Plans what LiteRT holds for a model and says what it needs. By default that\n"
		"is LiteRT's default CPU path: the XNNPACK delegate's workspace, operator\n"
		"buffers and packed weights (anonymous memory) beside the TFLite arena that\n"
		"remains; --delegate none plans the builtin kernels alone. Each subgraph has\n"
		"arenas of its own: the text and JSON list every subgraph's sizes and show\n"
		"one subgraph's plan, tensor by tensor.\n\n"
		"Several MODELs: models that share a process, an interpreter each, planned\n"
		"alike; a block per model, then the process's sums (each interpreter holds its\n"
		"arenas, XNNPACK workspace and packed weights at once) and the verdict of\n"
		"--budget on them; --json: each model's plan object beside the sums; --csv:\n"
		"one tensor table with a model column. --input-shape, --subgraph and --top\n"
		"are one model's.\n\n"
		"  --delegate D        xnnpack (default, as LiteRT) or none (the builtin kernels:\n"
		"                      BUILTIN_WITHOUT_DEFAULT_DELEGATES)\n"
		"  --cpu NAME          the CPU XNNPACK picks its microkernels for (default host:\n"
		"                      this machine); with --delegate xnnpack\n"
		"  --subgraph K        the subgraph shown (default 0, the primary): a WHILE's "
		"cond\n"
		"                      or body, an IF's branch, a CALL_ONCE's init subgraph\n"
		"  --strategy S        tflite (default), greedy-size, greedy-breadth, naive, "
		"micro\n"
		"                      (micro: TFLite Micro's order and lifetimes on LiteRT's "
		"graph of\n"
		"                      the shown subgraph; TFLM's own arena is --runtime tflm)\n"
		"  --budget SIZE       verdict and cgroup v2 settings for a budget (64M, 1.5G);\n"
		"                      exit 3 when the non-reclaimable memory (the arena alone\n"
		"                      with --delegate none) does not fit it; the model's memory\n"
		"                      alone, unless --baseline adds the runtime's\n"
		"  --baseline TRACE    with --budget: the runtime's own cost (heap, stacks, code)\n"
		"                      from a trace of the process (arenaprof record): what it\n"
		"                      held beyond this model's planned halves; the verdict, exit\n"
		"                      status and cgroup settings are then the process's\n"
		"  --json              one JSON object; --csv: the tensor table\n"
		"  --top N             list the N widest operators (default 5)\n"
		"  --as-dtype float32  plan as if every activation were float32\n"
		"  --no-inplace        disable LiteRT's in-place sharing (RESHAPE, ADD, ...)\n"
		"  --threads N         LiteRT num_threads the kernels plan for (default 1;\n"
		"                      tflite-runtime-2.14: -1, what its Interpreter leaves)\n"
		"  --arch A            the CPU LiteRT runs on, arm64 or x86-64 (default: this\n"
		"                      build's, " AP_BUILD_ARCH "): with --threads N != 1 a float\n"
		"                      CONV_2D keeps transposed weights on x86-64, im2col on "
		"arm64\n"
		"  --weights mmap      (default) the runtime maps the model file (LiteRT's\n"
		"                      BuildFromFile, model_path=): its weights are file-backed,\n"
		"                      reclaimable\n"
		"  --weights copy      it holds the model in memory of its own (model_content=,\n"
		"                      CompiledModel.from_buffer, a file read into a buffer): the\n"
		"                      weights are anonymous, with the arena in the verdict\n"
		"  --runtime R         the runtime whose planner and kernels apply: litert\n"
		"                      (default: LiteRT 2.3 and the 2.4 nightly) or\n"
		"                      tflite-runtime-2.14 (TensorFlow Lite 2.14's wheel; its\n"
		"                      builtin kernels: with --delegate none) or tflm (TFLite\n"
		"                      Micro: every subgraph and its kernels' scratch buffers in\n"
		"                      one arena, its non-persistent head; no --strategy)\n"
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
	struct ap_plan_req rq;
	struct ap_plan_set s;		/* top, budget */
	struct ap_shape_override ov[AP_MAX_INPUT_SHAPES];
	bool json, csv, have_sg, have_delegate, have_arch, have_top, have_runtime, have_strat;
	const char *baseline;		/* --baseline TRACE, or NULL */
	enum ap_arch cpu_arch;		/* --cpu's, resolved */
	char **models;			/* the MODELs, n_models of them (none with --import) */
	uint32_t n_models;
};

/* --cpu NAME, read after every option (a --delegate none after it refuses it first): a
 * CPU ap_xnn_cpu_parse knows, whose arch the TFLite side plans for. 0, or AP_EXIT_USAGE
 * (said, one line). */
static int cpu_option(struct args *a, const char *arg)
{
	struct ap_xnn_cpu cpu;
	char err[AP_ERR_LEN];

	if (ap_xnn_cpu_parse(arg, &cpu, err)) {
		err[strcspn(err, "\n")] = 0;
		ap_cli_say("plan", "%s", err);
		return AP_EXIT_USAGE;
	}
	a->cpu_arch = ap_arch_resolve(cpu.arch);
	return 0;
}

#define GO_ON AP_CMD_GO_ON	/* parse_args: plan; else the exit code */

/* One option with its value into a: 0, 2 for a bad value (said), -1 for an unknown one. */
static int set_option(struct args *a, int c, const char *arg)
{
	uint64_t v = 0;

	switch (c) {
	case 's':
		if (ap_strategy_parse(arg, &a->rq.strat)) {
			ap_cli_say("plan", "unknown strategy '%s' (tflite, "
				"greedy-size, greedy-breadth, naive, micro)", arg);
			return AP_EXIT_USAGE;
		}
		a->have_strat = true;
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
		a->have_top = true;
		break;
	case 'd':
		if (strcmp(arg, "float32")) {
			ap_cli_say("plan", "--as-dtype supports float32 only");
			return AP_EXIT_USAGE;
		}
		a->rq.gopts.as_float32 = true;
		break;
	case 'n': a->rq.gopts.no_inplace = true; break;
	case 'K': a->rq.gopts.no_kernels = true; break;
	case 'T':
		if (ap_parse_u64(arg, 10, 1, 1024, &v)) {
			ap_cli_say("plan", "--threads '%s' is not a thread count "
				"(1-1024)", arg);
			return AP_EXIT_USAGE;
		}
		a->rq.gopts.threads = (int)v;
		break;
	case 'G':
		if (ap_parse_u64(arg, 10, 0, UINT32_MAX - 1, &v)) {
			ap_cli_say("plan", "--subgraph '%s' is not a subgraph index", arg);
			return AP_EXIT_USAGE;
		}
		a->rq.subgraph = (uint32_t)v;
		a->have_sg = true;
		break;
	case 'A':
		if (ap_arch_parse(arg, &a->rq.gopts.arch)) {
			ap_cli_say("plan", "--arch '%s': arm64 or x86-64", arg);
			return AP_EXIT_USAGE;
		}
		a->have_arch = true;
		break;
	case 'R':
		if (ap_runtime_parse(arg, &a->rq.gopts.runtime)) {
			ap_cli_say("plan", "--runtime '%s': %s", arg, ap_runtime_names());
			return AP_EXIT_USAGE;
		}
		a->have_runtime = true;
		break;
	case 'D':
		if (ap_delegate_parse(arg, &a->rq.delegate)) {
			ap_cli_say("plan", "--delegate '%s': xnnpack or none", arg);
			return AP_EXIT_USAGE;
		}
		a->have_delegate = true;
		break;
	case 'U': a->rq.cpu = arg; break;	/* read by delegate_args */
	case 'W':
		if (strcmp(arg, "mmap") && strcmp(arg, "copy")) {
			ap_cli_say("plan", "--weights '%s': mmap or copy", arg);
			return AP_EXIT_USAGE;
		}
		a->rq.weights_copy = !strcmp(arg, "copy");
		break;
	case 'I':
		if (a->rq.n_ov == AP_MAX_INPUT_SHAPES) {
			ap_cli_say("plan", "--input-shape: at most %d", AP_MAX_INPUT_SHAPES);
			return AP_EXIT_USAGE;
		}
		if (input_shape(arg, &a->ov[a->rq.n_ov]))
			return AP_EXIT_USAGE;
		a->rq.n_ov++;
		break;
	case 'i':
		a->rq.path = arg;
		a->rq.src = AP_PLAN_IMPORT;
		break;
	case 'B': a->baseline = arg; break;
	default: return -1;
	}
	return 0;
}

/* --runtime tflm: TFLite Micro's own planner on the file's shapes, builtin kernels only;
 * LiteRT's options refused. GO_ON, or AP_EXIT_USAGE (said). */
static int tflm_args(struct args *a)
{
	const struct ap_graph_opts *o = &a->rq.gopts;
	const char *why =
		a->have_delegate && a->rq.delegate == AP_DELEGATE_XNNPACK ?
			"TFLite Micro has no XNNPACK delegate (leave --delegate out, or give "
			"none)" :
		a->rq.cpu ? "--cpu is XNNPACK's target" :
		a->have_strat ? "TFLite Micro's GreedyMemoryPlanner plans it (--strategy micro is "
				"that order on LiteRT's graph, a subgraph at a time)" :
		a->have_sg ? "every subgraph is in one arena (no --subgraph)" :
		a->rq.n_ov ? "TFLite Micro plans the file's shapes (no --input-shape)" :
		o->as_float32 || o->no_inplace || o->no_kernels || o->threads ?
			"--as-dtype, --no-inplace, --no-kernels and --threads are LiteRT's" : NULL;

	if (why) {
		ap_cli_say("plan", "--runtime tflm: %s", why);
		return AP_EXIT_USAGE;
	}
	a->rq.delegate = AP_DELEGATE_NONE;
	return GO_ON;
}

/* --delegate and --cpu against the rest: GO_ON, or AP_EXIT_USAGE (said). */
static int delegate_args(struct args *a, bool import)
{
	if (import && a->have_runtime) {
		ap_cli_say("plan", "--runtime needs a MODEL: an imported plan is planned already");
		return AP_EXIT_USAGE;
	}
	if (!import && a->rq.delegate == AP_DELEGATE_XNNPACK &&
	    !ap_runtime_get(a->rq.gopts.runtime)->xnnpack_modelled) {
		ap_cli_say("plan", "--runtime %s plans the builtin kernels: give --delegate none "
			   "(its XNNPACK delegate is not modelled)",
			   ap_runtime_get(a->rq.gopts.runtime)->name);
		return AP_EXIT_USAGE;
	}
	if (import && (a->have_delegate || a->rq.cpu)) {
		ap_cli_say("plan", "--%s needs a MODEL: an imported plan has no delegate",
			   a->rq.cpu ? "cpu" : "delegate");
		return AP_EXIT_USAGE;
	}
	if (a->rq.cpu && a->rq.delegate == AP_DELEGATE_NONE) {
		ap_cli_say("plan", "--cpu is XNNPACK's target; --delegate none plans the builtin "
			   "kernels (--arch)");
		return AP_EXIT_USAGE;
	}
	if (!a->rq.cpu)
		return GO_ON;
	if (cpu_option(a, a->rq.cpu))
		return AP_EXIT_USAGE;
	if (a->have_arch && ap_arch_resolve(a->rq.gopts.arch) != a->cpu_arch) {
		ap_cli_say("plan", "--cpu %s is %s, not --arch %s", a->rq.cpu,
			   ap_arch_name(a->cpu_arch),
			   ap_arch_name(ap_arch_resolve(a->rq.gopts.arch)));
		return AP_EXIT_USAGE;
	}
	a->rq.gopts.arch = a->cpu_arch;	/* the TFLite side runs on the same CPU */
	return GO_ON;
}

/* Options that are one model's, refused with several: 0, or -1 (said). */
static int one_model_options(const struct args *a)
{
	const char *why = a->rq.n_ov ? "--input-shape resizes one model's input (models' "
				       "inputs differ)" :
			  a->have_sg ? "--subgraph shows one model's subgraph" :
			  a->have_top ? "--top lists one model's widest operators (each model's "
					"block names its widest)" : NULL;

	if (!why)
		return 0;
	ap_cli_say("plan", "%s: give one MODEL, not %u", why, a->n_models);
	return -1;
}

/* The command line into a: GO_ON, or the exit code (--help, a bad option, said). */
static int parse_args(struct args *a, int argc, char **argv)
{
	int c, rc;
	struct ap_opts op;
	bool import;

	*a = (struct args){ .s = { .top = 5 } };
	a->rq = (struct ap_plan_req){ .src = AP_PLAN_MODEL, .strat = AP_STRAT_TFLITE,
				      .ov = a->ov, .report = true };
	ap_opts_init(&op, "s|strategy: b|budget: j|json c|csv t|top: d|as-dtype: n|no-inplace "
		     "i|import: T|threads: K|no-kernels G|subgraph: A|arch: R|runtime: "
		     "I|input-shape: D=delegate: U=cpu: B=baseline: W=weights: h|help");
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
	import = a->rq.src == AP_PLAN_IMPORT;
	if (import ? optind != argc : optind >= argc) {
		ap_cli_say("plan", "expected %s (see 'arenaprof plan --help')",
			import ? "no MODEL with --import" : "a MODEL.tflite, or several");
		return AP_EXIT_USAGE;
	}
	if (!import) {
		a->models = argv + optind;
		a->n_models = (uint32_t)(argc - optind);
		a->rq.path = a->models[0];
	}
	if (a->n_models > 1 && one_model_options(a))
		return AP_EXIT_USAGE;
	if (a->baseline && (!a->s.have_budget || a->n_models > 1)) {
		ap_cli_say("plan", "--baseline TRACE %s", a->s.have_budget ? "is one model's "
			   "runtime: give one MODEL" : "needs --budget SIZE");
		return AP_EXIT_USAGE;
	}
	if (import && a->rq.n_ov) {
		ap_cli_say("plan", "--input-shape needs a MODEL, not --import");
		return AP_EXIT_USAGE;
	}
	if (import && a->have_sg) {
		ap_cli_say("plan", "--subgraph needs a MODEL, not --import");
		return AP_EXIT_USAGE;
	}
	if (!import && ap_runtime_get(a->rq.gopts.runtime)->one_arena &&
	    tflm_args(a) != GO_ON)
		return AP_EXIT_USAGE;
	return delegate_args(a, import);
}

int cmd_plan_parse(int argc, char **argv)
{
	struct args a;

	return parse_args(&a, argc, argv);
}

/* Several models in one process: each planned as alone, then their sums. */
static int plan_models(struct args *a)
{
	struct ap_plan_set *sets = calloc(a->n_models, sizeof(*sets));
	struct ap_plan_process p;
	char err[AP_ERR_LEN];
	uint32_t n = 0;
	int rc = 0;

	if (!sets) {
		ap_cli_say("plan", "out of memory");
		return AP_EXIT_RUNTIME;
	}
	for (; n < a->n_models && !rc; n++) {
		sets[n] = a->s;		/* the report's options, the same for each */
		a->rq.path = a->models[n];
		rc = ap_plan_build(&a->rq, &sets[n], err);
		/* one model among several: the line names its file (most errors do already) */
		if (rc && !strstr(err, a->models[n]))
			ap_cli_say("plan", "%s: %s", a->models[n], err);
		else if (rc)
			ap_cli_say("plan", "%s", err);
	}
	if (!rc && (rc = ap_plan_process_sum(sets, n, &p, err)))
		ap_cli_say("plan", "%s", err);
	if (rc) {
		rc = ap_cli_exit(rc);
		goto out;
	}
	if (a->json)
		ap_plan_print_multi_json(stdout, sets, &p);
	else if (a->csv)
		ap_plan_print_multi_csv(stdout, sets, &p);
	else
		ap_plan_print_multi_text(stdout, sets, &p);
	rc = fflush(stdout) ? AP_EXIT_RUNTIME : AP_EXIT_OK;
	if (!rc && !ap_plan_multi_fits(sets, &p))
		rc = AP_EXIT_OVER;	/* as one model's: the anonymous half does not fit */
out:
	for (uint32_t i = 0; i < n; i++)
		ap_plan_set_free(&sets[i]);
	free(sets);
	return rc;
}

/* A .tflite file the trace's process mapped whose name is not model's, or NULL. */
static const char *other_model(const struct ap_analysis *a, const char *model)
{
	const char *mb = strrchr(model, '/') ? strrchr(model, '/') + 1 : model;
	const char *found = NULL;

	for (uint32_t i = 0; i < a->as.n_maps; i++) {
		const char *p = a->as.maps[i].path, *b = strrchr(p, '/') ? strrchr(p, '/') + 1 : p;
		size_t n = strlen(b);

		if (n <= 7 || strcmp(b + n - 7, ".tflite"))
			continue;
		if (!strcmp(b, mb))
			return NULL;
		found = found ? found : p;
	}
	return found;
}

/*
 * --baseline TRACE: the process's peak and non-reclaimable memory measured there
 * (procmem.h), less the model's planned halves, into s->baseline; x keeps the strings.
 * 0, or the exit code (said).
 */
static int load_baseline(struct args *a, struct ap_corr_all *x)
{
	struct ap_corr_in in = { .trace = a->baseline };
	struct ap_budget_baseline *b = &a->s.baseline;
	struct ap_procmem m;
	char err[AP_ERR_LEN];
	int rc;

	rc = ap_corr_load(&in, x, err);
	if (rc) {
		ap_cli_say("plan", "--baseline %s: %s", a->baseline, err);
		return ap_cli_exit(rc);
	}
	ap_procmem_of(x, &m);
	ap_budget_baseline(m.peak, m.nonreclaimable, ap_plan_set_anon_bytes(&a->s),
			   ap_plan_set_file_bytes(&a->s), b);
	b->trace = a->baseline;
	b->peak_text = ap_pm_peak_text(m.peak_src);
	b->peak_key = ap_pm_peak_key(m.peak_src);
	b->nonrecl_text = ap_pm_nonrecl_text(m.nonrecl_src);
	b->nonrecl_key = ap_pm_nonrecl_key(m.nonrecl_src);
	b->other_model = other_model(&x->a, a->rq.path);
	a->s.have_baseline = true;
	return 0;
}

int cmd_plan(int argc, char **argv)
{
	struct ap_corr_all bx = { 0 };	/* --baseline's trace */
	char err[AP_ERR_LEN];
	struct args a;
	struct ap_plan_set *s = &a.s;
	int rc = parse_args(&a, argc, argv);

	if (rc != GO_ON)
		return rc;
	if (a.n_models > 1)
		return plan_models(&a);
	rc = ap_plan_build(&a.rq, s, err);
	if (rc) {
		ap_cli_say("plan", "%s", err);
		rc = ap_cli_exit(rc);
		goto out;
	}
	if (a.baseline && (rc = load_baseline(&a, &bx)))
		goto out;
	if (s->overlap[0])
		ap_cli_say("plan", "warning: %s: tensors live at the same time "
			"share bytes: %s", a.rq.path, s->overlap);
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
	ap_plan_set_free(s);
	ap_corr_all_free(&bx);
	return rc;
}
