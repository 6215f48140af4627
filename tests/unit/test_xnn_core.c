// SPDX-License-Identifier: Apache-2.0
/*
 * The XNNPACK model's core (src/plan/xnnpack/delegate.c, subgraph.c, memplan.c,
 * xnnpack.c) against measurements of LiteRT 2.3.0 itself on this project's models:
 *
 * - workspace: the live bytes of XNNPACK's allocator in the block xnn_plan_memory
 *   allocates, after the first invoke of Interpreter(model_path=M) (default resolver,
 *   XNNPACK on, one thread), on x86-64, measured by the issue-24 oracle:
 *   `python xnnpack_truth.py --out t.json MODEL.tflite` (bpftrace uprobes on
 *   xnn_allocate .. xnn_aligned_deallocate), its "workspace" category;
 * - arena: LiteRT's own arena with the delegate applied, read as
 *   tests/litert/litert_plan.py reads it with the default resolver instead of
 *   BUILTIN_WITHOUT_DEFAULT_DELEGATES ("# arena_bytes=");
 * - delegate nodes: the DELEGATE nodes Interpreter._get_ops_details() lists after
 *   allocate_tensors().
 * Run from the repository root.
 */
#include <stdio.h>
#include <string.h>

#include "test.h"
#include "xnn_fixture.h"

#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/shapes.h"
#include "arenaprof/plan/xnnpack.h"
#include "arenaprof/util/err.h"
#include "../../src/plan/xnnpack/xnn_priv.h"

struct want {
	const char *model;
	uint64_t workspace, arena;
	uint32_t parts, delegated, n_ops;
};

static const struct want wants[] = {
	{ "mobilenet_v2_1.0_224_quant.tflite", 1505312, 214528, 2, 64, 66 },
	{ "mobilenet_v1_0.25_128_quant.tflite", 98336, 53504, 0, 0, 0 },
	{ "deeplabv3_mnv2_dm05_pascal_quant.tflite", 3969184, 8421512, 0, 0, 0 },
	{ "face_detection_short_range.tflite", 1572896, 257536, 0, 0, 0 },
	{ "selfie_segmentation.tflite", 3276832, 1048576, 0, 0, 0 },
	{ "pose_detection.tflite", 4315168, 719328, 0, 0, 0 },
};

static void check_model(const struct want *w)
{
	struct ap_xnn_cpu cpu = { .name = "host", .arch = AP_ARCH_X86_64 };
	struct xnn_fix f;
	struct ap_graph d;
	struct ap_tplan p;
	char err[AP_ERR_LEN];
	int rc;

	if (xnn_fix_plan(&f, w->model, w->model, &cpu)) {
		CHECK_U64(w->model, f.x.workspace_bytes, w->workspace);
		if (w->parts) {
			CHECK_U64("partitions", f.x.n_parts, w->parts);
			CHECK_U64("delegated operators", f.x.delegated_ops, w->delegated);
			CHECK_U64("operators", f.x.n_ops, w->n_ops);
		}
		rc = ap_xnn_delegated_graph(&f.g, &f.x, &d, err) ||
		     ap_plan_graph(&d, AP_STRAT_TFLITE, &p, err);
		CHECK("delegated graph", !rc, "%s", err);
		if (!rc) {
			CHECK_U64("delegated arena", p.arena_bytes, w->arena);
			ap_tplan_free(&p);
		}
		ap_xnn_delegated_graph_free(&d);
	}
	xnn_fix_free(&f);
}

/* MobileNet v2's delegate nodes as LiteRT makes them: the 62 operators up to Conv_1,
 * then the logits convolution with the squeeze; the pool and the softmax stay. */
static void check_mnv2_partitions(void)
{
	struct ap_model m;
	struct ap_graph g;
	struct ap_xnn_plan x;
	struct ap_shapes_report sr;
	struct ap_xnn_cpu cpu = { .name = "host", .arch = AP_ARCH_X86_64 };
	char err[AP_ERR_LEN];

	memset(&sr, 0, sizeof(sr));
	if (ap_model_load(TEST_MODELS "/mobilenet_v2_1.0_224_quant.tflite", &m, err) ||
	    ap_shapes_infer(&m, NULL, 0, &sr, err) || ap_graph_build(&m, 0, NULL, &g, err)) {
		CHECK("mnv2", 0, "%s", err);
		return;
	}
	if (!ap_xnn_plan_build(&m, &g, &cpu, &x, err) && x.n_parts == 2) {
		CHECK_U64("part 0 operators", x.parts[0].n_ops, 62);
		CHECK_U64("part 0 inputs", x.parts[0].n_inputs, 105);
		CHECK_U64("part 0 output", x.parts[0].outputs[0], 168);
		CHECK_U64("part 1 inputs", x.parts[1].n_inputs, 4);
		CHECK_U64("part 1 output", x.parts[1].outputs[0], 172);
		CHECK("pool refused", !x.ops[62].delegated && x.ops[62].why, "pool taken");
		CHECK_U64("execution plan", x.n_order, 4);
	} else {
		CHECK("mnv2 plan", 0, "%s", err);
	}
	ap_xnn_plan_free(&x);
	ap_graph_free(&g);
	ap_model_free(&m);
}

int main(void)
{
	enum ap_delegate dl;

	CHECK("parse xnnpack", !ap_delegate_parse("xnnpack", &dl) && dl == AP_DELEGATE_XNNPACK,
	      "xnnpack");
	CHECK("parse none", !ap_delegate_parse("none", &dl) && dl == AP_DELEGATE_NONE, "none");
	CHECK("parse bad", ap_delegate_parse("gpu", &dl) < 0, "gpu accepted");
	CHECK("name", !strcmp(ap_delegate_name(AP_DELEGATE_NONE), "none"), "name");
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		check_model(&wants[i]);
	check_mnv2_partitions();
	TEST_EXIT();
}
