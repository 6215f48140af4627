// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the planner behind the model reader: the bytes as a .tflite model
 * -> the graph of subgraph 0 and of the last one (prepare.c: lifetimes, kernel temporaries,
 * what a WHILE, IF or CALL_ONCE does to its subgraphs), every subgraph's sizes
 * (plan_subgraphs.c) and the operators not modelled (coverage.c) -> every strategy
 * (planner.c) -> profile -> `arenaprof plan`'s text, JSON and CSV reports, as plan_build.c
 * does, with the default graph options and with --as-dtype float32 --no-inplace
 * --threads 2 --arch arm64; and TFLite Micro's one arena (tflm_plan.c, on the file's
 * shapes, before shape inference). Never a crash, a leak or a hang; a failure is one line;
 * every plan it computes passes the overlap check (a plan that overlaps is a planner bug, not bad
 * input). Built and run by tests/fuzz/run-fuzz.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/shapes.h"
#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/model.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/plan/tflm_plan.h"
#include "arenaprof/render/plan_report.h"
#include "arenaprof/util/err.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void plan(const struct ap_model *m, const struct ap_graph_opts *o, uint32_t sg)
{
	struct ap_plan_set s = { .model = m, .have_strategies = true, .top = 5, .subgraph = sg };
	char err[AP_ERR_LEN];
	FILE *f = fuzz_null();
	struct ap_graph g;
	int ng;

	s.as_float32 = o->as_float32;
	err[0] = 0;
	if (ap_plan_subgraphs(m, o, AP_STRAT_TFLITE, NULL, &s.sgs, err)) {
		if (!fuzz_one_line(err))
			__builtin_trap();
		return;
	}
	if (ap_graph_build(m, sg, o, &g, err)) {
		if (!fuzz_one_line(err))
			__builtin_trap();
		ap_graph_free(&g);
		free(s.sgs);
		return;
	}
	ng = ap_kernel_gaps(&g, &s.gaps);
	s.n_gaps = ng > 0 ? (uint32_t)ng : 0;
	for (int i = 0; i < AP_STRAT_COUNT; i++) {
		struct ap_profile pr;
		struct ap_tplan p;

		if (ap_plan_graph(&g, (enum ap_strategy)i, &p, err)) {
			if (!fuzz_one_line(err))
				__builtin_trap();
			goto out;
		}
		s.strat_bytes[i] = p.arena_bytes;
		if (ap_profile_compute(&p, &pr) == 0)
			s.strat_lb[i] = pr.lower_bound;
		ap_profile_free(&pr);
		if (ap_tplan_check(&p, err))
			__builtin_trap();
		if (i == AP_STRAT_TFLITE)
			s.plan = p;
		else
			ap_tplan_free(&p);
	}
	s.naive_bytes = s.strat_bytes[AP_STRAT_NAIVE];
	if (!ap_profile_compute(&s.plan, &s.prof)) {
		ap_plan_print_text(f, &s);
		ap_plan_print_json(f, &s);
		ap_plan_print_csv(f, &s.plan);
	}
	ap_profile_free(&s.prof);
out:
	ap_tplan_free(&s.plan);
	ap_graph_free(&g);
	free(s.gaps);
	free(s.sgs);
}

/* --runtime tflm: the whole model in one arena */
static void plan_tflm(const struct ap_model *m)
{
	struct ap_tflm_info info;
	struct ap_tplan p;
	char err[AP_ERR_LEN];

	err[0] = 0;
	if (ap_tflm_plan(m, "fuzz", &p, &info, err)) {
		if (!fuzz_one_line(err))
			__builtin_trap();
		return;
	}
	if (ap_tplan_check(&p, err) || p.arena_bytes != info.head_bytes)
		__builtin_trap();
	ap_tplan_free(&p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ap_graph_opts dflt = { 0 };
	static const struct ap_graph_opts other = {
		.as_float32 = true, .no_inplace = true, .threads = 2, .arch = AP_ARCH_ARM64,
	};
	char err[AP_ERR_LEN];
	struct ap_model m;

	err[0] = 0;
	if (ap_model_parse(data, size, &m, err))
		return 0;
	if (m.n_subgraphs) {
		struct ap_shapes_report rep;

		plan_tflm(&m);	/* TFLM plans the file's shapes: before shapes.c rewrites them */

		/* shapes.c rewrites the open shapes in place: the plans below see them */
		if (!ap_shapes_infer(&m, NULL, 0, &rep, err))
			plan(&m, &dflt, 0);
		plan(&m, &other, 0);
		if (m.n_subgraphs > 1)
			plan(&m, &dflt, m.n_subgraphs - 1);
	}
	ap_model_free(&m);
	return 0;
}
