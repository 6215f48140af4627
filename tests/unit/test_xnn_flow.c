// SPDX-License-Identifier: Apache-2.0
/*
 * The XNNPACK model over a whole model (include/arenaprof/plan/xnnpack.h): the delegate on
 * every subgraph (WHILE and IF bodies, CALL_ONCE init, decompositions, CASE branches), the
 * one workspace the max over all their runtimes, and the operators whose delegate rules
 * came with them (slices, transpose, split, reductions, the fully connected node's
 * reshape). Each constant is what XNNPACK's allocator holds after the first invoke of
 * Interpreter(model_path=M) (default resolver, XNNPACK on, one thread) on this x86-64
 * AVX-512 VNNI host (no AMX), measured by the issue-24 oracle:
 *   python xnnpack_truth.py --out t.json --md t.md MODEL.tflite
 * (bpftrace uprobes on xnn_allocate .. xnn_aligned_deallocate in LiteRT 2.3.0's
 * libpywrap_litert_common.so), its interpreter / invoke1 "live_bytes".
 * Run from the repository root.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "xnn_fixture.h"

#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/shapes.h"
#include "arenaprof/plan/xnnpack.h"
#include "arenaprof/util/err.h"

struct want {
	const char *model;
	uint64_t total;
};

static const struct want wants[] = {
	/* control flow: the delegate on the bodies and branches */
	{ "gen_while_loop.tflite", 3992 },	/* mul(x, x) runs as square(x) */
	{ "gen_while_scalar.tflite", 3992 },
	{ "gen_while_late.tflite", 5520 },
	{ "gen_while_dynamic.tflite", 6872 },
	{ "gen_while_resize.tflite", 7616 },
	{ "gen_if_else.tflite", 5456 },
	{ "gen_if_late.tflite", 8192 },
	{ "gen_if_dynamic.tflite", 8400 },
	{ "gen_if_resize.tflite", 11920 },
	{ "gen_if_shapes.tflite", 7872 },
	{ "gen_case_dynamic.tflite", 6888 },
	{ "gen_case_late.tflite", 7000 },
	{ "gen_case_resize.tflite", 6952 },
	{ "gen_case_shapes.tflite", 7584 },
	{ "gen_composite_dynamic.tflite", 7000 },
	{ "gen_composite_late.tflite", 5648 },
	{ "gen_composite_resize.tflite", 7280 },
	{ "gen_stablehlo_composite.tflite", 5536 },
	{ "gen_stablehlo_reduce_window.tflite", 4152 },
	{ "gen_flow_inputs.tflite", 16672 },
	{ "tf_while_batch.tflite", 5992 },
	/* a fully connected node's input reshape, in a WHILE body */
	{ "tf_simplernn_seq.tflite", 18384 },
	/* slices, split, transpose */
	{ "tf_gru.tflite", 35472 },
	{ "tf_gru_seq_dr.tflite", 40944 },
	{ "gen_bidi_lstm.tflite", 4400 },
	{ "gen_const_fold.tflite", 8568 },
	{ "gen_rfft2d.tflite", 2432 },
	{ "gen_dynamic_tile.tflite", 5328 },
	/* a concatenation: one copy operator an input; a SPLIT of 6 outputs refused */
	{ "split_concat.tflite", 5304 },
	/* a binary node with a static operand stays binary (not a unary's two blocks) */
	{ "gen_dynamic_reshape.tflite", 9736 },
	{ "tf_cond_diff.tflite", 3704 },
	{ "tf_cond_pass.tflite", 3280 },
	{ "tf_while_static.tflite", 4568 },
	/* a float32 reduction asks for no workspace of its own */
	{ "tf_cond_same.tflite", 5176 },
	/* variables: VAR_HANDLE taken once typed, reads and assignments copy nodes, a copy
	 * fused over a workspace value read once (xnn_subgraph_fusion) */
	{ "gen_resource_vars.tflite", 8776 },
	{ "gen_dynamic_edges.tflite", 11636 },
	/* an int8 fully connected node's filter defined again per channel */
	{ "keras_lstm_mnist_ptq.tflite", 15432 },
};

static void check_model(const struct want *w, const struct ap_xnn_cpu *cpu)
{
	struct xnn_fix f;

	if (xnn_fix_plan(&f, w->model, w->model, cpu)) {
		uint64_t sum = 0;

		CHECK_U64(w->model, f.x.total_bytes, w->total);
		CHECK_U64("subgraphs", f.x.n_sgs, f.m.n_subgraphs);
		for (uint32_t i = 0; i < f.x.n_sgs; i++)
			sum += f.x.sgs[i].packed_weights_bytes + f.x.sgs[i].scratch_bytes +
			       f.x.sgs[i].other_bytes;
		/* the shares add up; the workspace is the largest, not the sum */
		CHECK_U64("shares", sum + f.x.workspace_bytes + 32, f.x.total_bytes);
	}
	xnn_fix_free(&f);
}

/*
 * gen_resource_vars: main's CALL_ONCE left to TFLite, its two VAR_HANDLEs, two reads, two
 * adds and an assignment one partition; the reads' copies fused into the adds, leaving one
 * 256-byte value in the workspace (288 with the 32 extra bytes); the init subgraph's two
 * assignments of constants a partition of their own.
 */
static void check_variables(const struct ap_xnn_cpu *cpu)
{
	struct ap_model m;
	struct ap_graph g;
	struct ap_xnn_plan x;
	struct ap_shapes_report sr;
	char err[AP_ERR_LEN];
	int rc;

	memset(&sr, 0, sizeof(sr));
	if (ap_model_load(TEST_MODELS "/gen_resource_vars.tflite", &m, err)) {
		CHECK("variables model", 0, "%s", err);
		return;
	}
	rc = ap_shapes_infer(&m, NULL, 0, &sr, err) || ap_graph_build(&m, 0, NULL, &g, err);
	CHECK("variables graph", !rc, "%s", err);
	if (!rc && !ap_xnn_plan_build(&m, &g, cpu, &x, err)) {
		CHECK_U64("main delegated", x.delegated_ops, 7);
		CHECK_U64("main parts", x.n_parts, 1);
		CHECK("call_once refused", !x.ops[0].delegated, "CALL_ONCE delegated");
		CHECK("var_handle taken", x.ops[1].delegated && x.ops[2].delegated,
		      "a VAR_HANDLE refused");
		CHECK_U64("workspace", x.workspace_bytes, 288);
		CHECK_U64("init delegated", x.sgs[1].delegated_ops, 4);
		CHECK_U64("init parts", x.sgs[1].n_parts, 1);
		/* main: 3 copies' worth of objects less the 2 fused, 2 binaries; init: 2 copies */
		CHECK_U64("scratch", x.scratch_bytes, 696 + 2 * 648 + 2 * 696);
		CHECK("modelled", !x.not_modelled[0], "%s", x.not_modelled);
		ap_xnn_plan_free(&x);
	}
	ap_graph_free(&g);
	ap_model_free(&m);
}

/* The shown subgraph's operators stay its own; the totals cover the model. */
static void check_shown(const struct ap_xnn_cpu *cpu)
{
	struct ap_model m;
	struct ap_graph g0, g2;
	struct ap_xnn_plan x0, x2;
	struct ap_shapes_report sr;
	char err[AP_ERR_LEN];
	int rc;

	memset(&sr, 0, sizeof(sr));
	if (ap_model_load(TEST_MODELS "/gen_while_loop.tflite", &m, err)) {
		CHECK("while model", 0, "%s", err);
		return;
	}
	rc = ap_shapes_infer(&m, NULL, 0, &sr, err) || ap_graph_build(&m, 0, NULL, &g0, err) ||
	     ap_graph_build(&m, 2, NULL, &g2, err);
	CHECK("while graphs", !rc, "%s", err);
	if (!rc && !ap_xnn_plan_build(&m, &g0, cpu, &x0, err) &&
	    !ap_xnn_plan_build(&m, &g2, cpu, &x2, err)) {
		CHECK_U64("same total", x2.total_bytes, x0.total_bytes);
		CHECK_U64("main ops", x0.n_ops, 3);
		CHECK_U64("body ops", x2.n_ops, 2);
		CHECK_U64("body delegated", x2.delegated_ops, 1);
		CHECK("cond not delegated", x0.sgs[1].delegated && !x0.sgs[1].n_parts,
		      "cond: %u parts", x0.sgs[1].n_parts);
		CHECK_U64("main parts", x0.sgs[0].n_parts, 2);
		CHECK_U64("body parts", x0.sgs[2].n_parts, 1);
		ap_xnn_plan_free(&x0);
		ap_xnn_plan_free(&x2);
	}
	ap_graph_free(&g0);
	ap_graph_free(&g2);
	ap_model_free(&m);
}

int main(void)
{
	struct ap_xnn_cpu cpu;
	char err[AP_ERR_LEN];

	if (ap_xnn_cpu_parse("x86-64-avx512vnni", &cpu, err)) {
		CHECK("cpu", 0, "%s", err);
		TEST_EXIT();
	}
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		check_model(&wants[i], &cpu);
	check_shown(&cpu);
	check_variables(&cpu);
	TEST_EXIT();
}
