// SPDX-License-Identifier: Apache-2.0
/*
 * The XNNPACK model on arm64 (include/arenaprof/plan/xnnpack.h), computed on any host
 * with a named CPU, against what XNNPACK's allocator holds after the first invoke in the
 * aarch64 wheel of ai-edge-litert 2.3.0 under qemu-system-aarch64 (TCG, Debian 12's qemu
 * 7.2) with that -cpu: Interpreter(model_path=M) (default resolver, XNNPACK on, one
 * thread, three invokes), counted by tests/litert/xnnpack/xnn_preload.so in the guest:
 *   scripts/vm/xnn-truth --cpu cortex-a72 tests/models/MODEL.tflite
 * (its "XNNTRUTH CPU MODEL mark3 LIVE" line: the live bytes after invoke 1, equal after
 * invokes 2 and 3). What differs from x86-64 (docs/xnnpack-packing.md, "arm64"): the
 * microkernels (Cortex-A72 f32 4x8, Cortex-A76 6x8; qu8 4x16 on both), XNN_ALLOCATION_-
 * ALIGNMENT 16, four struct sizes, and on the Cortex-A72 (no fp16 arithmetic) XNNPACK's
 * fp32 copies of the fp16 weights. Run from the repository root.
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
	const char *cpu;
	const char *model;
	uint64_t total;
};

static const struct want wants[] = {
	{ "cortex-a72", "mobilenet_v2_1.0_224_quant.tflite", 6875067 },
	{ "cortex-a72", "deeplabv3_mnv2_dm05_pascal_quant.tflite", 22956591 },
	/* 74 fp32 copies of fp16 weights (FallbackToFp32): 406,744 B of them */
	{ "cortex-a72", "face_detection_short_range.tflite", 3852868 },
	{ "cortex-a72", "mobilenet_v1_0.25_128_quant.tflite", 1207283 },
	{ "cortex-a72", "selfie_segmentation.tflite", 9918692 },
	{ "cortex-a72", "gen_float16_weights.tflite", 32632 },
	{ "cortex-a76", "mobilenet_v2_1.0_224_quant.tflite", 6875067 },
	{ "cortex-a76", "deeplabv3_mnv2_dm05_pascal_quant.tflite", 22956591 },
	{ "cortex-a76", "face_detection_short_range.tflite", 3434684 },
	{ "cortex-a76", "mobilenet_v1_0.25_128_quant.tflite", 1207283 },
	{ "cortex-a76", "selfie_segmentation.tflite", 9474484 },
	{ "neoverse-n1", "mobilenet_v2_1.0_224_quant.tflite", 6875067 },
	{ "neoverse-n1", "face_detection_short_range.tflite", 3434684 },
};

static void check_model(const struct want *w)
{
	struct ap_xnn_cpu cpu;
	struct xnn_fix f;
	char name[160], err[AP_ERR_LEN];

	snprintf(name, sizeof(name), "%s %s", w->cpu, w->model);
	if (ap_xnn_cpu_parse(w->cpu, &cpu, err)) {
		CHECK(name, 0, "%s", err);
		return;
	}
	if (xnn_fix_plan(&f, w->model, name, &cpu))
		CHECK_U64(name, f.x.total_bytes, w->total);
	xnn_fix_free(&f);
}

int main(void)
{
	for (size_t i = 0; i < sizeof(wants) / sizeof(wants[0]); i++)
		check_model(&wants[i]);
	TEST_EXIT();
}
