/* SPDX-License-Identifier: Apache-2.0 */
/*
 * runtime: the TFLite runtime a plan is for, and the one place that names the rules in
 * which the runtimes arenaprof plans for differ (docs/runtimes.md says what each rule is
 * and which runtime version changed it). The planner asks a rule of the descriptor; it
 * never compares runtime names.
 */
#ifndef ARENAPROF_RUNTIME_H
#define ARENAPROF_RUNTIME_H

#include <stdbool.h>

/* The zero value is the default: LiteRT 2.3 and the 2.4 nightly. */
enum ap_runtime_id { AP_RUNTIME_LITERT, AP_RUNTIME_TFLITE_214, AP_RUNTIME_TFLM, AP_RUNTIME_COUNT };

struct ap_runtime {
	const char *name;	/* what --runtime takes and the plan JSON says */
	const char *what;	/* the releases it stands for, for the text report */
	/* num_threads when none is given: LiteRT's Python Interpreter passes 1; TFLite
	 * 2.14's leaves the interpreter's -1, so a float CONV_2D takes the multithreaded
	 * kernel (hwcn_weights, no im2col) on x86-64 */
	int default_threads;
	/* its XNNPACK delegate is modelled (plan's default path); else only --delegate none */
	bool xnnpack_modelled;
	/* bytes each SimpleMemoryArena allocates beyond its high-water mark: 0 (LiteRT's
	 * ResizableAlignedBuffer), 128 (2.14: the arena alignment and as much padding) */
	unsigned arena_buffer_padding;
	/* FULLY_CONNECTED, BATCH_MATMUL and the reduce kernels reserve their tensors in
	 * Init (so before every Prepare's); LiteRT reserves them at their first Prepare */
	bool matmul_reduce_init;
	/* RESHAPE with a computed shape makes its output kTfLiteDynamic at Prepare; LiteRT
	 * returns kTfLiteOutputShapeNotKnown and lets the output share its input's buffer */
	bool reshape_computed_dynamic;
	/* RFFT2D's temporaries: 4 (LiteRT), 2 (TFLite 2.14: no fft_input_output_rows and
	 * fft_input_output_data) */
	unsigned rfft2d_temporaries;
	/* CONV_3D keeps a transposed filter (the filter's bytes, kTfLiteArenaRw) after its
	 * im2col */
	bool conv3d_transposed_filter;
	/* FULLY_CONNECTED's 4-bit path: the most rows its kernel takes at a time, to which
	 * the batch is rounded (LiteRT 4, 2.14 1), and the temporaries it lists (5, 4) */
	int fc4bit_max_rows;
	unsigned fc4bit_temporaries;
	/* one arena for the whole model, every subgraph's tensors and every kernel's
	 * scratch buffers on one clock, placed by TFLite Micro's GreedyMemoryPlanner
	 * (tflm_plan.h); the rules above are LiteRT's and do not apply */
	bool one_arena;
};

/* The descriptor of id (the default's for an id out of range). */
const struct ap_runtime *ap_runtime_get(enum ap_runtime_id id);
/* A --runtime NAME: 0 and *id, or -EINVAL. */
int ap_runtime_parse(const char *s, enum ap_runtime_id *id);
/* "litert, tflite-runtime-2.14, tflm": the names, for an error message or --help. */
const char *ap_runtime_names(void);

#endif
