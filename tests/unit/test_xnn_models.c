// SPDX-License-Identifier: Apache-2.0
/*
 * test_xnn_models: the whole XNNPACK model (ap_xnn_plan_build) against LiteRT 2.3.0's
 * XNNPACK allocator on the bundled models, to the byte.
 *
 * The expected numbers are the live bytes of XNNPACK's allocator right after the first
 * invoke of Interpreter(model_path=M) (default resolver, XNNPACK on, one thread) on an
 * x86-64 AVX-512 VNNI host without AMX, measured by the issue-24 oracle (bpftrace uprobes
 * on xnn_allocate .. xnn_aligned_deallocate in libpywrap_litert_common.so):
 *
 *   python xnnpack_truth.py --modes interpreter --out t.json tests/models/MODEL.tflite
 *
 * and split by its categories: the block xnn_plan_memory allocates (workspace), the
 * blocks under xnn_get_pointer_to_write_weights (packed weights), the blocks
 * xnn_create_runtime_v4 and xnn_create_workspace allocate themselves (the runtime's
 * descriptor, opdata and value arrays, the workspace descriptor: other_bytes), and the
 * rest, every operator's descriptors, zero buffers and reshape-time buffers
 * (scratch_bytes). docs/xnnpack-delegate.md, "Agreement", has the table.
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

struct measured {
	const char *model;
	uint64_t total, workspace, packed, scratch, other;
};

static const struct measured measured[] = {
	{ "mobilenet_v2_1.0_224_quant.tflite", 6808832, 1505312, 3556224, 1677312, 69984 },
	{ "deeplabv3_mnv2_dm05_pascal_quant.tflite", 22889076, 3969184, 720960, 18124308,
	  74624 },
	{ "mobilenet_v1_0.25_128_quant.tflite", 1172968, 98336, 482240, 558008, 34384 },
	{ "face_detection_short_range.tflite", 3411084, 1572896, 429248, 1335132, 73808 },
	{ "pose_detection.tflite", 18355068, 4315168, 11909824, 2021388, 108688 },
	{ "selfie_segmentation.tflite", 9431244, 3276832, 453568, 5594636, 106208 },
	{ "face_detection_full_range_sparse.tflite", 7824580, 2949152, 2040704, 2680516,
	  154208 },
};

static void check_model(const struct ap_xnn_cpu *cpu, const struct measured *w)
{
	struct xnn_fix f;
	char label[128];

	if (xnn_fix_plan(&f, w->model, w->model, cpu)) {
		snprintf(label, sizeof(label), "%s: total", w->model);
		CHECK_U64(label, f.x.total_bytes, w->total);
		snprintf(label, sizeof(label), "%s: workspace", w->model);
		CHECK_U64(label, f.x.workspace_bytes, w->workspace);
		snprintf(label, sizeof(label), "%s: packed weights", w->model);
		CHECK_U64(label, f.x.packed_weights_bytes, w->packed);
		snprintf(label, sizeof(label), "%s: operators' own buffers", w->model);
		CHECK_U64(label, f.x.scratch_bytes, w->scratch);
		snprintf(label, sizeof(label), "%s: runtime objects", w->model);
		CHECK_U64(label, f.x.other_bytes, w->other);
		snprintf(label, sizeof(label), "%s: modelled whole", w->model);
		CHECK(label, !f.x.not_modelled[0], "%s", f.x.not_modelled);
	}
	xnn_fix_free(&f);
}

int main(void)
{
	struct ap_xnn_cpu cpu;
	char err[AP_ERR_LEN];

	if (ap_xnn_cpu_parse("x86-64-avx512vnni", &cpu, err)) {
		CHECK("cpu", 0, "%s", err);
		TEST_EXIT();
	}
	for (size_t i = 0; i < sizeof(measured) / sizeof(measured[0]); i++)
		check_model(&cpu, &measured[i]);
	TEST_EXIT();
}
