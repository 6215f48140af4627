// SPDX-License-Identifier: Apache-2.0
/*
 * runtime: the runtimes' descriptors (include/arenaprof/plan/runtime.h). Each rule's
 * value and the runtime source it comes from are in docs/runtimes.md.
 */
#include <errno.h>
#include <string.h>

#include "arenaprof/plan/runtime.h"

static const struct ap_runtime runtimes[AP_RUNTIME_COUNT] = {
	[AP_RUNTIME_LITERT] = {
		.name = "litert",
		.what = "LiteRT 2.3 and the 2.4 nightly",
		.default_threads = 1,
		.xnnpack_modelled = true,
		.rfft2d_temporaries = 4,
		.fc4bit_max_rows = 4,
		.fc4bit_temporaries = 5,
	},
	[AP_RUNTIME_TFLITE_214] = {
		.name = "tflite-runtime-2.14",
		.what = "tflite-runtime 2.14 (TensorFlow Lite 2.14)",
		.default_threads = -1,
		.matmul_reduce_init = true,
		.reshape_computed_dynamic = true,
		.rfft2d_temporaries = 2,
		.arena_buffer_padding = 128,
		.conv3d_transposed_filter = true,
		.fc4bit_max_rows = 1,
		.fc4bit_temporaries = 4,
	},
	[AP_RUNTIME_TFLM] = {
		.name = "tflm",
		.what = "TFLite Micro (tflite-micro 0.dev20261023, reference kernels)",
		.one_arena = true,
	},
};

const struct ap_runtime *ap_runtime_get(enum ap_runtime_id id)
{
	return &runtimes[(unsigned)id < AP_RUNTIME_COUNT ? id : AP_RUNTIME_LITERT];
}

int ap_runtime_parse(const char *s, enum ap_runtime_id *id)
{
	for (unsigned i = 0; i < AP_RUNTIME_COUNT; i++) {
		if (!strcmp(s, runtimes[i].name)) {
			*id = (enum ap_runtime_id)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *ap_runtime_names(void)
{
	return "litert, tflite-runtime-2.14, tflm";
}
