// SPDX-License-Identifier: Apache-2.0
/*
 * Plan speed: every strategy on MobileNet v2 and on a generated 10,000-operator
 * chain-with-skips graph (op i reads t[i] and t[i-4], writes t[i+1]); then the whole of
 * what `plan` computes for a model (ap_plan_build: reading it, shapes, the plan and the
 * report's strategies), builtin and on LiteRT's default XNNPACK path side by side. Prints
 * median wall times over repeated runs, with the min..max band.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/plan_build.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/planner.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Median of `reps` timings of one strategy (lifetimes included for the model case). */
static double time_plan(struct ap_graph *g, enum ap_strategy s, int reps, uint64_t *arena)
{
	double *t = calloc((size_t)reps, sizeof(*t)), med;
	char err[AP_ERR_LEN];

	for (int i = 0; i < reps; i++) {
		struct ap_tplan p;
		double t0 = now_ms();

		ap_lifetimes_tflite(g, true);
		if (ap_plan_graph(g, s, &p, err)) {
			fprintf(stderr, "bench_plan: %s\n", err);
			exit(1);
		}
		t[i] = now_ms() - t0;
		*arena = p.arena_bytes;
		ap_tplan_free(&p);
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp_d);
	med = t[reps / 2];
	free(t);
	return med;
}

/* Median, min and max of `reps` runs of `plan`'s whole computation of model on delegate d. */
static void time_build(const char *model, enum ap_delegate d, int reps, double out[3])
{
	double *t = calloc((size_t)reps, sizeof(*t));
	struct ap_plan_req rq = { .path = model, .src = AP_PLAN_MODEL, .strat = AP_STRAT_TFLITE,
				  .report = true, .delegate = d };
	char err[AP_ERR_LEN];

	for (int i = 0; i < reps; i++) {
		struct ap_plan_set s = { 0 };
		double t0 = now_ms();

		if (ap_plan_build(&rq, &s, err)) {
			fprintf(stderr, "bench_plan: %s\n", err);
			exit(1);
		}
		t[i] = now_ms() - t0;
		ap_plan_set_free(&s);
	}
	qsort(t, (size_t)reps, sizeof(*t), cmp_d);
	out[0] = t[reps / 2];
	out[1] = t[0];
	out[2] = t[reps - 1];
	free(t);
}

static void chain_graph(struct ap_graph *g, uint32_t n_ops)
{
	uint32_t nt = n_ops + 1;
	struct ap_tensor *t = calloc(nt, sizeof(*t));
	struct ap_op *ops = calloc(n_ops, sizeof(*ops));
	int32_t *io = calloc(3 * (size_t)n_ops + 2, sizeof(*io));
	int32_t *gin = io + 3 * (size_t)n_ops, *gout = gin + 1;

	for (uint32_t i = 0; i < nt; i++)
		t[i] = (struct ap_tensor){ .bytes = 1024 * (1 + (i * 7919) % 97),
					   .alloc = AP_ALLOC_ARENA, .producer = -1 };
	for (uint32_t i = 0; i < n_ops; i++) {
		int32_t *in = io + 3 * i;

		in[0] = (int32_t)i;
		in[1] = (int32_t)(i >= 4 ? i - 4 : i);
		in[2] = (int32_t)i + 1;
		ops[i] = (struct ap_op){ .opcode = 3, .name = "CONV_2D", .in = in, .n_in = 2,
					 .out = in + 2, .n_out = 1 };
	}
	*gin = 0;
	*gout = (int32_t)n_ops;
	t[0].flags |= AP_TF_INPUT;
	t[n_ops].flags |= AP_TF_OUTPUT;
	*g = (struct ap_graph){ .t = t, .n_tensors = nt, .ops = ops, .n_ops = n_ops,
				.inputs = gin, .n_inputs = 1, .outputs = gout, .n_outputs = 1 };
}

int main(int argc, char **argv)
{
	const char *model = argc > 1 ? argv[1] : "tests/models/mobilenet_v2_1.0_224_quant.tflite";
	char err[AP_ERR_LEN];
	struct ap_model m;
	struct ap_graph g, chain;
	uint64_t arena;

	if (ap_model_load(model, &m, err) || ap_graph_build(&m, 0, NULL, &g, err)) {
		fprintf(stderr, "bench_plan: %s\n", err);
		return 1;
	}
	chain_graph(&chain, 10000);
	printf("%-16s %-34s %12s %14s\n", "strategy", "graph", "median ms", "arena bytes");
	for (int s = 0; s < AP_STRAT_COUNT; s++) {
		double ms = time_plan(&g, (enum ap_strategy)s, 101, &arena);

		printf("%-16s %-34s %12.3f %14llu\n", ap_strategy_name(s),
		       "mobilenet_v2 (66 ops)", ms, (unsigned long long)arena);
	}
	for (int s = 0; s < AP_STRAT_COUNT; s++) {
		double ms = time_plan(&chain, (enum ap_strategy)s, 5, &arena);

		printf("%-16s %-34s %12.3f %14llu\n", ap_strategy_name(s),
		       "chain-with-skips (10,000 ops)", ms, (unsigned long long)arena);
	}
	printf("\n%-34s %12s %20s\n", "plan (the whole computation)", "median ms", "min..max");
	for (int d = AP_DELEGATE_XNNPACK; d <= AP_DELEGATE_NONE; d++) {
		double b[3];

		time_build(model, (enum ap_delegate)d, 51, b);
		printf("--delegate %-23s %12.3f %9.3f..%-9.3f\n", ap_delegate_name(d), b[0], b[1],
		       b[2]);
	}
	ap_graph_free(&g);
	ap_model_free(&m);
	return 0;
}
