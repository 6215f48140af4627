// SPDX-License-Identifier: Apache-2.0
/*
 * Kernel tensors (kernels.c) against the real runtime: for each bundled model LiteRT can
 * plan, the tensors its kernels added, as measured from LiteRT 2.3.0 (the x86-64 Python wheel,
 * BUILTIN_WITHOUT_DEFAULT_DELEGATES) with tests/litert/litert_plan.py --details
 * [--threads 4]: the "# n<node> ... temporaries=[...]" lines give node and index, the
 * "# t<index> <allocation type> <bytes>" lines bytes and arena, the "tensors_in_model" /
 * "tensors_in_runtime" header the counts, and the "# persistent" lines the persistent
 * arena's tensors (count and total bytes).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/kernels.h"
#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/shapes.h"
#include "test.h"

struct want_tmp {
	int32_t index;
	uint32_t node;
	uint64_t bytes;
	enum ap_alloc alloc;
};

struct want {
	const char *model;
	int threads;
	uint32_t n_model, n_runtime;	/* tensors_in_model, tensors_in_runtime */
	const struct want_tmp *tmp;	/* every node temporary */
	size_t n_tmp;
	uint32_t n_persistent;		/* kTfLiteArenaRwPersistent tensors ... */
	uint64_t persistent_bytes;	/* ... and their bytes */
};

#define A AP_ALLOC_ARENA
#define P AP_ALLOC_PERSISTENT
#define D AP_ALLOC_DYNAMIC
#define N(a) (sizeof(a) / sizeof((a)[0]))

/* n0 CONV_2D temporaries=[186]: t186 kTfLiteArenaRw 1783323 (uint8 im2col 257*257*27) */
static const struct want_tmp deeplab[] = { { 186, 0, 1783323, A } };
/* n2 CONV_2D temporaries=[250]: t250 kTfLiteArenaRw 1228800 (float32 im2col; 1 thread) */
static const struct want_tmp face1[] = { { 250, 2, 1228800, A } };
/* face_detection_short_range.threads4.details.csv: "# kernel_tensor t<i> <temporary
 * node=<n> op=CONV_2D #0> type=kTfLiteArenaRwPersistent bytes=<b>" (hwcn_weights) */
static const struct want_tmp face4[] = {
	{ 250, 2, 7200, P }, { 251, 9, 2304, P }, { 252, 17, 2688, P },
	{ 253, 27, 3584, P }, { 254, 36, 4608, P }, { 255, 45, 6048, P },
	{ 256, 55, 8064, P }, { 257, 64, 10752, P }, { 258, 73, 14336, P },
	{ 259, 82, 18432, P }, { 260, 91, 23040, P }, { 261, 100, 28160, P },
	{ 262, 110, 33792, P }, { 263, 119, 36864, P }, { 264, 127, 36864, P },
	{ 265, 135, 36864, P }, { 266, 143, 36864, P }, { 267, 148, 704, P },
	{ 268, 151, 2304, P }, { 269, 154, 11264, P }, { 270, 157, 36864, P },
};
/* n1 UNIDIRECTIONAL_SEQUENCE_LSTM temporaries=[29..34]: 4 x 40 B, 20 B, 80 B; t35..t46
 * "kernel tensor ... not a node temporary" kTfLiteMemNone 0 B */
static const struct want_tmp lstm[] = {
	{ 29, 1, 40, A }, { 30, 1, 40, A }, { 31, 1, 40, A }, { 32, 1, 40, A },
	{ 33, 1, 20, A }, { 34, 1, 80, A },
};
/* n0 CONV_2D temporaries=[89]: t89 kTfLiteArenaRw 110592 */
static const struct want_tmp mnv1[] = { { 89, 0, 110592, A } };
/* n0 CONV_2D temporaries=[174]: t174 kTfLiteArenaRw 338688 (112*112*27) */
static const struct want_tmp mnv2[] = { { 174, 0, 338688, A } };
/* n1 RFFT2D, fft_length 8x16: temporaries=[15..18] kTfLiteArenaRw 16, 64, 64, 1152 B; n3, a
 * computed fft_length: [19..22] kTfLiteDynamic (sized by Eval; Prepare leaves them 0 B); n6,
 * fft_length SHAPE(a)[2:4] = 16x32 folded at Prepare: [23..26] kTfLiteArenaRw 24, 128, 128,
 * 4352 B (litert_plan.py --details --invoke: tensors_in_runtime=27) */
static const struct want_tmp rfft[] = {
	{ 15, 1, 16, A }, { 16, 1, 64, A }, { 17, 1, 64, A }, { 18, 1, 1152, A },
	{ 19, 3, 0, D }, { 20, 3, 0, D }, { 21, 3, 0, D }, { 22, 3, 0, D },
	{ 23, 6, 24, A }, { 24, 6, 128, A }, { 25, 6, 128, A }, { 26, 6, 4352, A },
};
/* n3 NumericVerify temporaries=[6]: kTfLiteDynamic 256 B; "# persistent t4 verify
 * offset=0 bytes=256" */
static const struct want_tmp verify[] = { { 6, 3, 256, D } };
/* n1 STABLEHLO_REDUCE_WINDOW temporaries=[6, 7]: kTfLiteArenaRw 768 B (dilated: the input's
 * shape), 1200 B (padded [1, 10, 10, 3]); n2 [8, 9]: 2700 B each ([1, 15, 15, 3]) */
static const struct want_tmp reduce_window[] = {
	{ 6, 1, 768, A }, { 7, 1, 1200, A }, { 8, 2, 2700, A }, { 9, 2, 2700, A },
};
/* gen_bidi_lstm_hybrid: n0 BIDIRECTIONAL_SEQUENCE_LSTM temporaries=[67..84] (18, no aux
 * input), t83, t84 the fw/bw row_sums kTfLiteArenaRwPersistent 240, 192 B ([10, 6], [8, 6]:
 * a projection adds ceil(10 / 6) rows); t85 not a temporary; n1 temporaries=[86..104] (19,
 * an aux input), row_sums t102, t103 480, 384 B ([15, 8], [12, 8]) */
static const struct want_tmp bidi_hybrid[] = {
	{ 67, 0, 552, A }, { 68, 0, 288, A }, { 69, 0, 180, A }, { 70, 0, 30, A },
	{ 71, 0, 30, A }, { 72, 0, 18, A }, { 73, 0, 18, A }, { 74, 0, 12, A },
	{ 75, 0, 12, A }, { 76, 0, 12, A }, { 77, 0, 12, A }, { 78, 0, 24, A },
	{ 79, 0, 72, A }, { 80, 0, 12, A }, { 81, 0, 12, A }, { 82, 0, 12, A },
	{ 83, 0, 240, P }, { 84, 0, 192, P },
	{ 86, 1, 672, A }, { 87, 1, 384, A }, { 88, 1, 150, A }, { 89, 1, 60, A },
	{ 90, 1, 60, A }, { 91, 1, 24, A }, { 92, 1, 24, A }, { 93, 1, 12, A },
	{ 94, 1, 12, A }, { 95, 1, 12, A }, { 96, 1, 12, A }, { 97, 1, 32, A },
	{ 98, 1, 96, A }, { 99, 1, 12, A }, { 100, 1, 12, A }, { 101, 1, 12, A },
	{ 102, 1, 480, P }, { 103, 1, 384, P }, { 104, 1, 150, A },
};
/* gen_lstm_integer: n0 LSTM, int8 input, 5 intermediates: temporaries=[48..53] int16 x 4
 * 72 B, int8 36 B, int32 144 B ([3, 12]); n1, 12 intermediates: [69..76] int8 x 2 30 B,
 * int16 x 6 60 B ([3, 10]); the other 15 and 13 of the 21 reserved are not temporaries */
static const struct want_tmp lstm_int[] = {
	{ 48, 0, 72, A }, { 49, 0, 72, A }, { 50, 0, 72, A }, { 51, 0, 72, A },
	{ 52, 0, 36, A }, { 53, 0, 144, A },
	{ 69, 1, 30, A }, { 70, 1, 30, A }, { 71, 1, 60, A }, { 72, 1, 60, A },
	{ 73, 1, 60, A }, { 74, 1, 60, A }, { 75, 1, 60, A }, { 76, 1, 60, A },
};
/* gen_fc_int4 (temporaries listed 5 per node, the 4-bit path's 5th kTfLiteMemNone 0 B):
 * n0, 4-bit, 3 rows: [4, 64] int8 256 B, [4] 16 B, [4, 20] int32 320 B, [4] 16 B; n1, 18
 * cols: 54, 12, 96, 12 B, row_sums kTfLiteArenaRwPersistent 32 B; n2, 4-bit, 5 rows: [8,
 * 64] 512 B, 32, [8, 8] 256 B, 32; n3, 4-bit, 1 row: 32, 4, 16, 4 B; n4, 33 cols (odd):
 * 33, 4, 16, 4 B, row_sums 16 B; n5, 3 units: 32, 4, 12, 4 B, row_sums 12 B */
static const struct want_tmp fc_int4[] = {
	{ 16, 0, 256, A }, { 17, 0, 16, A }, { 18, 0, 320, A }, { 19, 0, 16, A }, { 20, 0, 0, A },
	{ 22, 1, 54, A }, { 23, 1, 12, A }, { 24, 1, 96, A }, { 25, 1, 12, A }, { 26, 1, 32, P },
	{ 28, 2, 512, A }, { 29, 2, 32, A }, { 30, 2, 256, A }, { 31, 2, 32, A }, { 32, 2, 0, A },
	{ 34, 3, 32, A }, { 35, 3, 4, A }, { 36, 3, 16, A }, { 37, 3, 4, A }, { 38, 3, 0, A },
	{ 40, 4, 33, A }, { 41, 4, 4, A }, { 42, 4, 16, A }, { 43, 4, 4, A }, { 44, 4, 16, P },
	{ 46, 5, 32, A }, { 47, 5, 4, A }, { 48, 5, 12, A }, { 49, 5, 4, A }, { 50, 5, 12, P },
};
/* gen_fc_sparse: n0 (float) none; n1 (hybrid) temporaries=[14..19]: 48, 8, 128, 8 B, then
 * kTfLiteArenaRwPersistent row_sums 64 B and the ledger 130 B (114 values + 16 rows); n2
 * (Uint16Vector segments, Uint8Vector indices) [20..25]: 40, 4, 96, 4 B, row_sums 96 B,
 * the ledger 320 B (296 values + 24 rows) */
static const struct want_tmp fc_sparse[] = {
	{ 14, 1, 48, A }, { 15, 1, 8, A }, { 16, 1, 128, A }, { 17, 1, 8, A },
	{ 18, 1, 64, P }, { 19, 1, 130, P },
	{ 20, 2, 40, A }, { 21, 2, 4, A }, { 22, 2, 96, A }, { 23, 2, 4, A },
	{ 24, 2, 96, P }, { 25, 2, 320, P },
};

static const struct want wants[] = {
	{ "deeplabv3_mnv2_dm05_pascal_quant", 1, 186, 187, deeplab, N(deeplab), 0, 0 },
	/* 74 DEQUANTIZE outputs of constants, t176..t249 */
	{ "face_detection_short_range", 1, 250, 251, face1, N(face1), 74, 405560 },
	/* the same 74 plus the 21 hwcn_weights */
	{ "face_detection_short_range", 4, 250, 271, face4, N(face4), 95, 767160 },
	/* the 2 variables t17, t18 */
	{ "keras_lstm_mnist_ptq", 1, 29, 47, lstm, N(lstm), 2, 60 },
	{ "mobilenet_v1_0.25_128_quant", 1, 89, 90, mnv1, N(mnv1), 0, 0 },
	{ "mobilenet_v2_1.0_224_quant", 1, 174, 175, mnv2, N(mnv2), 0, 0 },
	{ "split_concat", 1, 12, 12, NULL, 0, 0, 0 },
	{ "gen_rfft2d", 1, 15, 27, rfft, N(rfft), 0, 0 },
	{ "gen_numeric_verify", 1, 6, 7, verify, N(verify), 1, 256 },
	{ "gen_stablehlo_reduce_window", 1, 6, 10, reduce_window, N(reduce_window), 0, 0 },
	/* the 8 state variables (1056 B) and the 4 row_sums */
	{ "gen_bidi_lstm_hybrid", 1, 67, 105, bidi_hybrid, N(bidi_hybrid), 12, 2352 },
	/* basic LSTM kernel: no temporaries; "# persistent" t1, t2 (graph inputs) and t5, t6
	 * (the first node's outputs), the states Prepare moves there, 48 B each */
	{ "gen_lstm_basic", 1, 16, 16, NULL, 0, 4, 192 },
	/* the 4 state variables */
	{ "gen_lstm_integer", 1, 48, 90, lstm_int, N(lstm_int), 4, 198 },
	{ "gen_fc_int4", 1, 16, 52, fc_int4, N(fc_int4), 3, 60 },
	{ "gen_fc_sparse", 1, 8, 26, fc_sparse, N(fc_sparse), 4, 610 },
};

static int load(const char *model, int threads, struct ap_model *m, struct ap_graph *g,
		char *err)
{
	/* ap_graph_build applies the kernels with these threads, for the x86-64 wheel the
	 * measurements come from (on an arm64 build too) */
	struct ap_graph_opts o = { .threads = threads, .arch = AP_ARCH_X86_64 };
	struct ap_shapes_report shapes;
	char path[256];

	snprintf(path, sizeof(path), "%s/%s.tflite", TEST_MODELS, model);
	if (ap_model_load(path, m, err))
		return -1;
	/* as plan does: shapes and folded values first */
	if (ap_shapes_infer(m, NULL, 0, &shapes, err) || ap_graph_build(m, 0, &o, g, err)) {
		ap_model_free(m);
		return -1;
	}
	return 0;
}

static void unload(struct ap_model *m, struct ap_graph *g)
{
	ap_kernels_free(g);
	ap_graph_free(g);
	ap_model_free(m);
}

static void check_model(const struct want *w)
{
	char err[AP_ERR_LEN], name[160];
	struct ap_model m;
	struct ap_graph g;
	uint32_t n_tmp = 0, n_pers = 0;
	uint64_t pers = 0;
	bool all_found = true, unused_zero = true;

	snprintf(name, sizeof(name), "%s threads=%d: load and apply", w->model, w->threads);
	if (load(w->model, w->threads, &m, &g, err)) {
		CHECK(name, 0, "%s", err);
		return;
	}
	CHECK(name, 1, "ok");
	snprintf(name, sizeof(name), "%s threads=%d: tensor count", w->model, w->threads);
	CHECK_EQ_I64(name, g.n_tensors, w->n_runtime);
	snprintf(name, sizeof(name), "%s threads=%d: owned names", w->model, w->threads);
	CHECK_EQ_I64(name, g.n_owned_names, w->n_runtime - w->n_model);

	for (uint32_t i = 0; i < g.n_ops; i++)
		n_tmp += g.ops[i].n_tmp;
	snprintf(name, sizeof(name), "%s threads=%d: temporaries", w->model, w->threads);
	CHECK_EQ_I64(name, n_tmp, w->n_tmp);

	for (size_t k = 0; k < w->n_tmp; k++) {
		const struct want_tmp *e = &w->tmp[k];
		const struct ap_op *op = e->node < g.n_ops ? &g.ops[e->node] : NULL;
		const struct ap_tensor *t;
		bool listed = false;

		for (uint32_t j = 0; op && j < op->n_tmp; j++)
			listed |= op->tmp[j] == e->index;
		if (!listed || (uint32_t)e->index >= g.n_tensors) {
			snprintf(name, sizeof(name), "%s threads=%d: t%d temporary of node %u",
				 w->model, w->threads, e->index, e->node);
			CHECK(name, 0, "not listed");
			all_found = false;
			continue;
		}
		t = &g.t[e->index];
		snprintf(name, sizeof(name), "%s threads=%d: t%d bytes/arena/lifetime", w->model,
			 w->threads, e->index);
		CHECK(name, t->bytes == e->bytes && t->alloc == e->alloc && t->producer == -1 &&
		      t->share_root == -1,
		      "bytes %" PRIu64 " alloc %d producer %d, want %" PRIu64 " alloc %d",
		      t->bytes, (int)t->alloc, t->producer, e->bytes, (int)e->alloc);
	}
	snprintf(name, sizeof(name), "%s threads=%d: every temporary as measured", w->model,
		 w->threads);
	CHECK(name, all_found, "see above");

	/* Added tensors that are no node's temporary were reserved but never used: 0 bytes. */
	for (uint32_t i = w->n_model; i < g.n_tensors; i++) {
		bool used = false;

		for (size_t k = 0; k < w->n_tmp; k++)
			used |= w->tmp[k].index == (int32_t)i;
		if (!used && g.t[i].bytes)
			unused_zero = false;
	}
	snprintf(name, sizeof(name), "%s threads=%d: reserved tensors have 0 bytes", w->model,
		 w->threads);
	CHECK(name, unused_zero, "a reserved tensor has bytes");

	for (uint32_t i = 0; i < g.n_tensors; i++) {
		if (g.t[i].alloc == AP_ALLOC_PERSISTENT) {
			n_pers++;
			pers += g.t[i].bytes;
		}
	}
	snprintf(name, sizeof(name), "%s threads=%d: persistent tensors", w->model, w->threads);
	CHECK_EQ_I64(name, n_pers, w->n_persistent);
	snprintf(name, sizeof(name), "%s threads=%d: persistent bytes", w->model, w->threads);
	CHECK_EQ_I64(name, pers, w->persistent_bytes);
	unload(&m, &g);
}

/* Names, and the LSTM/FULLY_CONNECTED split of keras_lstm's 18 added tensors: the
 * LSTM's Init reserves 12 (t29..t40, it uses t29..t34), the FULLY_CONNECTED's Prepare
 * adds 6 more (t41..t46) that only its hybrid path would use. */
static void test_names(void)
{
	char err[AP_ERR_LEN];
	struct ap_model m;
	struct ap_graph g;

	if (load("mobilenet_v2_1.0_224_quant", 1, &m, &g, err)) {
		CHECK("names: load", 0, "%s", err);
		return;
	}
	CHECK("names: im2col", g.t[174].name && !strcmp(g.t[174].name, "<im2col node=0 CONV_2D>"),
	      "%s", g.t[174].name ? g.t[174].name : "(null)");
	unload(&m, &g);

	if (load("keras_lstm_mnist_ptq", 1, &m, &g, err)) {
		CHECK("names: load lstm", 0, "%s", err);
		return;
	}
	CHECK("names: lstm reserved", !strcmp(g.t[40].name,
	      "<kernel tensor node=1 UNIDIRECTIONAL_SEQUENCE_LSTM>"), "%s", g.t[40].name);
	CHECK("names: fully_connected reserved", !strcmp(g.t[41].name,
	      "<kernel tensor node=3 FULLY_CONNECTED>") && !strcmp(g.t[46].name,
	      "<kernel tensor node=3 FULLY_CONNECTED>"), "%s / %s", g.t[41].name, g.t[46].name);
	unload(&m, &g);
}

/*
 * DENSIFY (densify.cc): every output persistent, of its input's type and dense size; the
 * DEQUANTIZE after it stays in the arena (LiteRT 2.3.0: t15 "Densify_output", 512 bytes,
 * persistent; t16 its float32 dequantized copy, 1024 bytes, arena).
 */
static void test_densify(void)
{
	char err[AP_ERR_LEN];
	struct ap_model m;
	struct ap_graph g;
	unsigned n = 0, pers = 0;

	if (load("face_detection_full_range_sparse", 1, &m, &g, err)) {
		CHECK("densify: load", 0, "%s", err);
		return;
	}
	for (uint32_t i = 0; i < g.n_ops; i++) {
		int32_t o = g.ops[i].out[0];

		if (g.ops[i].opcode != 124)
			continue;
		n++;
		pers += g.t[o].alloc == AP_ALLOC_PERSISTENT &&
			g.t[o].type == g.t[g.ops[i].in[0]].type;
	}
	CHECK("densify: 46 nodes, every output persistent", n == 46 && pers == n,
	      "%u nodes, %u persistent", n, pers);
	CHECK("densify: t15 float16 512 bytes", g.t[15].alloc == AP_ALLOC_PERSISTENT &&
	      g.t[15].type == AP_TT_FLOAT16 && g.t[15].bytes == 512, "alloc %d type %u bytes %llu",
	      g.t[15].alloc, g.t[15].type, (unsigned long long)g.t[15].bytes);
	CHECK("densify: its DEQUANTIZE stays in the arena", g.t[16].alloc == AP_ALLOC_ARENA &&
	      g.t[16].type == AP_TT_FLOAT32 && g.t[16].bytes == 1024, "alloc %d type %u bytes %llu",
	      g.t[16].alloc, g.t[16].type, (unsigned long long)g.t[16].bytes);
	unload(&m, &g);
}

/* The tensor named name, -1 when none is. */
static int32_t by_name(const struct ap_graph *g, const char *name)
{
	for (uint32_t i = 0; i < g->n_tensors; i++)
		if (g->t[i].name && !strcmp(g->t[i].name, name))
			return (int32_t)i;
	return -1;
}

/* In model, the tensors named in dyn are dynamic, those in stay sized in the arena. */
static void check_dyn(const char *model, const char *const *dyn, size_t n_dyn,
		      const char *const *stay, size_t n_stay)
{
	char err[AP_ERR_LEN];
	struct ap_model m;
	struct ap_graph g;

	if (load(model, 1, &m, &g, err)) {
		CHECK("dyn: load", 0, "%s: %s", model, err);
		return;
	}
	for (size_t i = 0; i < n_dyn; i++) {
		int32_t t = by_name(&g, dyn[i]);

		CHECK("dyn: dynamic", t >= 0 && g.t[t].alloc == AP_ALLOC_DYNAMIC, "%s %s: %d",
		      model, dyn[i], t >= 0 ? (int)g.t[t].alloc : -1);
	}
	for (size_t i = 0; i < n_stay; i++) {
		int32_t t = by_name(&g, stay[i]);

		CHECK("dyn: arena", t >= 0 && g.t[t].alloc == AP_ALLOC_ARENA && g.t[t].bytes > 0,
		      "%s %s: %d", model, stay[i], t >= 0 ? (int)g.t[t].alloc : -1);
	}
	unload(&m, &g);
}

/*
 * Outputs a computed shape input makes dyn, and those that stay (LiteRT 2.3.0 on
 * gen_dynamic_ops, litert_plan.py --invoke --details: the "# dynamic t<index>" lines): an
 * offset STRIDED_SLICE and a SLICE of a given shape stay, as do the NMS counts and UNIQUE's
 * index; a ro output_shape still makes TRANSPOSE_CONV's output dyn (IsConstantTensor).
 * MEAN over a computed axis: temp_index 16 bytes in the arena, the other three dyn.
 */
static void test_dynamic_ops(void)
{
	static const char *const dyn[] = {
		"strided", "range", "sliced", "space_to_batch", "batch_to_space", "mean", "sum",
		"max", "topk_values", "topk_indices", "split_v0", "split_v1", "padded_v2",
		"mirror_padded", "resized_nn", "argmax", "argmin", "one_hot", "expanded", "dense",
		"where", "scattered", "nms4_indices", "nms5_indices", "nms5_scores",
		"segment_sum", "unsorted_sum", "tconv", "tconv_ro", "unique",
		"<resolved_axis node=17 MEAN>", "<temp_accum node=17 MEAN>",
		"<normalized_dims node=17 MEAN>",
	};
	static const char *const stay[] = {
		"strided_offset", "sliced_static", "nms4_valid", "nms5_valid", "unique_idx",
		"<temp_index node=17 MEAN>",
	};
	check_dyn("gen_dynamic_ops", dyn, N(dyn), stay, N(stay));
}

/*
 * The special cases (LiteRT 2.3.0 on gen_dynamic_edges, as above): PAD and PADV2 of a
 * scalar, TOPK_V2 and SLICE of unknown dims, an offset STRIDED_SLICE of computed strides,
 * UNSORTED_SEGMENT_MAX of dyn data, DILATE of ro dilations are dyn; UNSORTED_SEGMENT_SUM of constants stays, as does
 * the normalized_dims of a REDUCE_PROD of a constant input over a computed axis.
 * CONV_3D_TRANSPOSE: col2im on the heap, none when dilated (the MEAN at node 39 numbers its
 * temporaries after two), the output dyn with a computed output_shape. READ_VARIABLE of a
 * scalar: dyn.
 */
static void test_dynamic_edges(void)
{
	static const char *const dyn[] = {
		"prod", "min", "any", "all", "padded_scalar", "padded_scalar_v2", "sliced_unknown",
		"topk_values", "topk_indices",
		"strided", "seg_data", "useg_max", "useg_prod", "useg_min", "uniform", "normal",
		"multinomial", "embedded", "dilated", "c3t_computed",
		"<col2im node=35 CONV_3D_TRANSPOSE>", "<col2im node=37 CONV_3D_TRANSPOSE>",
		"var_read",
	};
	static const char *const stay[] = {
		"useg_sum_static", "<temp_index node=2 REDUCE_PROD>",
		"<normalized_dims node=2 REDUCE_PROD>", "c3t", "c3t_dilated",
		"<temp_index node=39 MEAN>",
	};
	check_dyn("gen_dynamic_edges", dyn, N(dyn), stay, N(stay));
}

/*
 * RFFT2D (rfft2d.cc): the output becomes complex64, [1, 3, 8, 9] from a constant fft_length
 * 8x16 (t3, 1728 B arena); of a computed one it is dynamic with the file's shape (t7
 * [1, 3, 32, 33], 25344 B after LiteRT's Eval); of a folded one (t12, SHAPE sliced, values
 * from shape inference) [1, 3, 16, 17] in the arena (t13).
 */
static void test_rfft2d(void)
{
	char err[AP_ERR_LEN];
	struct ap_model m;
	struct ap_graph g;

	if (load("gen_rfft2d", 1, &m, &g, err)) {
		CHECK("rfft2d: load", 0, "%s", err);
		return;
	}
	CHECK("rfft2d: t3 complex64 1728 bytes in the arena", g.t[3].alloc == A &&
	      g.t[3].type == AP_TT_COMPLEX64 && g.t[3].bytes == 1728,
	      "alloc %d type %u bytes %llu", g.t[3].alloc, g.t[3].type,
	      (unsigned long long)g.t[3].bytes);
	CHECK("rfft2d: t7 complex64 dynamic", g.t[7].alloc == D &&
	      g.t[7].type == AP_TT_COMPLEX64 && g.t[7].bytes == 25344,
	      "alloc %d type %u bytes %llu", g.t[7].alloc, g.t[7].type,
	      (unsigned long long)g.t[7].bytes);
	CHECK("rfft2d: t13 of a folded fft_length complex64 6528 bytes in the arena",
	      g.t[13].alloc == A && g.t[13].type == AP_TT_COMPLEX64 && g.t[13].bytes == 6528,
	      "alloc %d type %u bytes %llu", g.t[13].alloc, g.t[13].type,
	      (unsigned long long)g.t[13].bytes);
	unload(&m, &g);
}

/*
 * An fft_length folded at Prepare (ro) has no values in the file: coverage.c names the
 * node (the kernel leaves it unsized), only that node.
 */
static void test_rfft2d_folded_named(void)
{
	char err[AP_ERR_LEN];
	struct ap_gap *gaps = NULL;
	struct ap_model m;
	struct ap_graph g;
	int n;

	if (load("gen_rfft2d", 1, &m, &g, err)) {
		CHECK("rfft2d folded: load", 0, "%s", err);
		return;
	}
	g.t[2].alloc = AP_ALLOC_RO;
	n = ap_kernel_gaps(&g, &gaps);
	CHECK("rfft2d: a folded fft_length (t2) names node 1", n >= 1 && gaps[0].node == 1 &&
	      strstr(gaps[0].why, "folded"), "%d gaps, first node %u: %s", n,
	      n > 0 ? gaps[0].node : 0, n > 0 ? gaps[0].why : "-");
	free(gaps);
	unload(&m, &g);
}

/* Applying twice, or to a graph not built from its model, is refused. */
static void test_errors(void)
{
	char err[AP_ERR_LEN];
	struct ap_model m;
	struct ap_graph g;

	if (load("mobilenet_v1_0.25_128_quant", 1, &m, &g, err)) {
		CHECK("errors: load", 0, "%s", err);
		return;
	}
	CHECK("errors: second apply refused", ap_kernels_apply(&g, NULL, err) == -EINVAL &&
	      g.n_tensors == 90, "n_tensors %u", g.n_tensors);
	unload(&m, &g);
}

int main(void)
{
	for (size_t i = 0; i < N(wants); i++)
		check_model(&wants[i]);
	test_names();
	test_densify();
	test_dynamic_ops();
	test_dynamic_edges();
	test_rfft2d();
	test_rfft2d_folded_named();
	test_errors();
	TEST_EXIT();
}
