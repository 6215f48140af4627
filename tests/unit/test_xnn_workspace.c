// SPDX-License-Identifier: Apache-2.0
/*
 * test_xnn_workspace: the workspace values' offsets (memplan.c, workspace.c) against
 * XNNPACK's own memory plan in LiteRT 2.3.0, read by the oracle
 * tests/litert/xnnpack/xnn_workspace_truth.py (bpftrace on the planner's usage records):
 *
 * - the size sort's ties follow XNNPACK's value ids (a TFLite tensor's value before the
 *   values the delegate's nodes make, whatever order subgraph.c made them in);
 * - gen_fc_int4 (five dynamically quantized fully connected layers, whose input converts
 *   the packed-LHS rewrite clears and the clean-up compacts away): every value's offset
 *   as measured on x86-64, and lifetimes named by the TFLite operators left.
 * Run from the repository root.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "xnn_fixture.h"

#include "arenaprof/plan/plan.h"
#include "../../src/plan/xnnpack/xnn_priv.h"

static void tie_order(void)
{
	struct xnn_value v[3] = {
		/* made by a node ahead of the tensor's value in subgraph.c's order */
		{ .tfl_tensor = -1, .alloc = XNN_A_WORKSPACE, .bytes = 256, .first = 0,
		  .last = 1, .reuses = -1 },
		{ .tfl_tensor = 7, .alloc = XNN_A_WORKSPACE, .bytes = 256, .first = 0,
		  .last = 1, .reuses = -1 },
		{ .tfl_tensor = 3, .alloc = XNN_A_WORKSPACE, .bytes = 256, .first = 1,
		  .last = 2, .reuses = -1 },
	};
	struct xnn_partition p = { .values = v, .n_values = 3 };
	struct ap_xnn_cpu cpu = { .arch = AP_ARCH_X86_64 };

	CHECK("memplan", !xnn_memplan(&p, &cpu), "failed");
	/* XNNPACK's order: tensor 3, tensor 7, then the made value */
	CHECK_U64("tie: tensor 3 first", v[2].offset, 0);
	CHECK_U64("tie: tensor 7 next", v[1].offset, 256);
	CHECK_U64("tie: the made value last", v[0].offset, 512);
	CHECK_U64("tie: plan", p.workspace_bytes, 3 * 256 + 32);
}

/* Measured: `xnn_workspace_truth.py tests/models/gen_fc_int4.tflite`, the plan's values
 * in its order (tensor fc4bit's, the nodes' values, the operators' own), on this
 * project's measuring host. */
static void fc_int4(void)
{
	static const int64_t want[] = { 768, 1280, 0, 0, 0, 0, 0, 1280, 128, 128 };
	const uint64_t want_features = AP_XF_AVX512VNNI | AP_XF_AVXVNNI | AP_XF_GFNI;
	struct ap_xnn_cpu cpu;
	struct ap_tplan w;
	struct xnn_fix f;
	char err[AP_ERR_LEN];
	uint32_t n = sizeof(want) / sizeof(want[0]);

	/* the operators' own workspaces follow the CPU's mr and L2 (inline LHS packing):
	 * the measuring host's, which no named CPU is (its L2 is 2 MiB) */
	if (ap_xnn_cpu_parse("host", &cpu, err) || ap_arch_resolve(cpu.arch) != AP_ARCH_X86_64 ||
	    (cpu.features & want_features) != want_features ||
	    xnn_cpu_l2_bytes(&cpu) != 2u << 20) {
		printf("SKIP: fc_int4: this host is not the measuring one (x86-64, AVX512-VNNI, "
		       "AVX-VNNI, GFNI, 2 MiB L2)\n");
		return;
	}
	if (!xnn_fix_plan(&f, "gen_fc_int4.tflite", "fc_int4: plan", &cpu))
		return;
	if (!ap_xnn_workspace_plan(&f.m, &f.g, &f.x, NULL, &w, err)) {
		CHECK_U64("fc_int4: values", w.n, n);
		for (uint32_t i = 0; i < w.n && i < n; i++)
			CHECK_EQ_I64(w.t[i].name, w.t[i].offset, want[i]);
		for (uint32_t i = 0; i < w.n; i++) {
			if (w.t[i].index != 2)
				continue;
			/* written by operator 0, read by operator 1 (fc4bit) */
			CHECK_EQ_I64("fc_int4: fc4bit first_op", w.t[i].first, 0);
			CHECK_EQ_I64("fc_int4: fc4bit last_op", w.t[i].last, 1);
		}
	} else {
		CHECK("fc_int4: workspace plan", 0, "%s", err);
	}
	ap_tplan_free(&w);
	xnn_fix_free(&f);
}

int main(void)
{
	tie_order();
	fc_int4();
	TEST_EXIT();
}
