// SPDX-License-Identifier: Apache-2.0
/*
 * The XNNPACK model's dynamically quantized path (docs/xnnpack-delegate.md, "Dynamically
 * quantized nodes"): a float32 input with int8 or int4 weights runs through a qdint8 value
 * and a convert node; a fully connected node packs its own LHS instead. Each constant is
 * what XNNPACK's allocator holds after the first invoke of Interpreter(model_path=M)
 * (default resolver, XNNPACK on, one thread) on this x86-64 host (AVX-512 VNNI, GFNI,
 * AVX-VNNI, no AMX), measured by the issue-24 oracle:
 *   python xnnpack_truth.py --out t.json --md t.md MODEL.tflite
 * (bpftrace uprobes on xnn_allocate .. xnn_aligned_deallocate in LiteRT 2.3.0's
 * libpywrap_litert_common.so), its interpreter / invoke1 "live_bytes" and by_site sums.
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
	uint64_t total, workspace, packed;	/* 0: not checked */
};

static const struct want wants[] = {
	/* three convolutions (one 1x1, run as fully connected), a fully connected */
	{ "gen_hybrid_conv.tflite", 75352, 8352, 39168 },
	/* int4 weights: the qdu8 qc4w GFNI config, 14x16c8, two planes */
	{ "gen_fc_int4.tflite", 26464, 2336, 3200 },
	/* a float fully connected beside two dynamically quantized ones */
	{ "gen_fc_sparse.tflite", 22720, 0, 9856 },
};

static void check_model(const struct want *w, const struct ap_xnn_cpu *cpu)
{
	struct xnn_fix f;

	if (xnn_fix_plan(&f, w->model, w->model, cpu)) {
		CHECK_U64(w->model, f.x.total_bytes, w->total);
		if (w->workspace)
			CHECK_U64("workspace", f.x.workspace_bytes, w->workspace);
		CHECK_U64("packed", f.x.packed_weights_bytes, w->packed);
		CHECK("nothing unmodelled", !f.x.not_modelled[0], "%s", f.x.not_modelled);
	}
	xnn_fix_free(&f);
}

/* gen_hybrid_conv: partition 0 is convert, conv, fully connected (its convert dropped),
 * convert, conv: 5 operator slots (1200 B), 24 values; the depthwise convolution, a float
 * input with int8 weights, is refused. */
static void check_hybrid_parts(const struct ap_xnn_cpu *cpu)
{
	struct ap_model m;
	struct ap_graph g;
	struct ap_xnn_plan x;
	struct ap_shapes_report sr;
	char err[AP_ERR_LEN];
	int rc;

	memset(&sr, 0, sizeof(sr));
	if (ap_model_load(TEST_MODELS "/gen_hybrid_conv.tflite", &m, err)) {
		CHECK("hybrid model", 0, "%s", err);
		return;
	}
	rc = ap_shapes_infer(&m, NULL, 0, &sr, err) || ap_graph_build(&m, 0, NULL, &g, err);
	if (!rc && !ap_xnn_plan_build(&m, &g, cpu, &x, err)) {
		CHECK_U64("parts", x.n_parts, 2);
		CHECK("dw refused", !x.ops[3].delegated, "op 3 delegated");
		/* measured: 7,712 B of runtime objects and the 32 B workspace descriptor */
		CHECK_U64("other", x.other_bytes, 7744);
		/* FC 1x1 packs 64 x (16 + 12); conv 3x3 8->16: 16 x (9 x 8 + 12) */
		CHECK_U64("pw conv1", x.ops[1].packed_bytes, 1792);
		CHECK_U64("pw conv0", x.ops[0].packed_bytes, 1344);
		CHECK_U64("pw conv2", x.ops[2].packed_bytes, 2496);
		CHECK_U64("pw fc", x.ops[5].packed_bytes, 33536);
		ap_xnn_plan_free(&x);
	} else {
		CHECK("hybrid plan", 0, "%s", err);
	}
	ap_graph_free(&g);
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
	/* the measuring host's features beyond the named CPU's: GFNI and AVX-VNNI */
	cpu.features |= AP_XF_GFNI | AP_XF_AVXVNNI;
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		check_model(&wants[i], &cpu);
	check_hybrid_parts(&cpu);
	TEST_EXIT();
}
