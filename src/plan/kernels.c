// SPDX-License-Identifier: Apache-2.0
/*
 * kernels: the tensors LiteRT's builtin kernels add to a subgraph, as LiteRT 2.3 on
 * x86-64 Linux does (google-ai-edge/LiteRT tflite/kernels/<op>.cc; the rule of each
 * kernel is in the comment above its function).
 *
 * Two passes, like the interpreter. InterpreterBuilder calls every node's Init in
 * execution order; a kernel that calls context->AddTensors there reserves tensors at the
 * end of the tensor list. Then AllocateTensors calls every node's Prepare in execution
 * order; AddTensors calls there append after everything reserved before. Prepare lists
 * the node's temporaries (planned for that node only) and may change an output's
 * allocation type. Tensors reserved but never made a temporary get 0 bytes.
 *
 * Kernels not listed in the table add nothing here. A kernel whose Prepare would fail
 * in LiteRT (bad shapes, missing options) adds nothing either.
 *
 * What the kernels add is bounded by the model file's size, as the model reader's own
 * allocations are (flatbuf.h): at most one tensor per KT_FILE_BYTES bytes of the file plus
 * KT_SLACK, checked for the tensors Init reserves before any is added. An honest operator
 * costs tens of file bytes per tensor its kernel adds, at the very least (a
 * FULLY_CONNECTED, 6 tensors, needs an operator table, its input and output vectors and
 * their tensors; the bundled LSTM model has over 200 bytes besides weights per tensor
 * added); operators that share one table cost 4 bytes each, and 130,000 such LSTMs took
 * 600 MB and 2.5 s to plan before this limit.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/kernels.h"

/* BuiltinOperator codes (schema.fbs). */
enum {
	OP_CONV_2D = 3,
	OP_DEPTHWISE_CONV_2D = 4,
	OP_DEQUANTIZE = 6,
	OP_CONCATENATION = 2,
	OP_FULLY_CONNECTED = 9,
	OP_LSTM = 16,
	OP_MUL = 18,
	OP_RESHAPE = 22,
	OP_RNN = 24,
	OP_SVDF = 27,
	OP_UNIDIRECTIONAL_SEQUENCE_RNN = 35,
	OP_GATHER = 36,
	OP_MEAN = 40,
	OP_UNIDIRECTIONAL_SEQUENCE_LSTM = 44,
	OP_STRIDED_SLICE = 45,
	OP_BIDIRECTIONAL_SEQUENCE_RNN = 46,
	OP_BIDIRECTIONAL_SEQUENCE_LSTM = 52,
	OP_TRANSPOSE_CONV = 67,
	OP_TILE = 69,
	OP_SUM = 74,
	OP_SHAPE = 77,
	OP_REDUCE_PROD = 81,
	OP_REDUCE_MAX = 82,
	OP_REDUCE_MIN = 89,
	OP_REDUCE_ANY = 91,
	OP_RANGE = 96,
	OP_ADD_N = 106,
	OP_RANK = 110,
	OP_DENSIFY = 124,
	OP_BATCH_MATMUL = 126,
	OP_REDUCE_ALL = 140,
	OP_VAR_HANDLE = 142,
	OP_BROADCAST_ARGS = 145,
	OP_STABLEHLO_REDUCE_WINDOW = 198,
};

/* BuiltinOptions union types (schema.fbs). */
enum {
	OPT_CONV_2D = 1,
	OPT_LSTM = 14,
	OPT_TRANSPOSE_CONV = 49,
	OPT_UNIDIRECTIONAL_SEQUENCE_LSTM = 71,
	OPT_BATCH_MATMUL = 101,
};

#define MAX_TMP 16
#define KT_FILE_BYTES 8		/* model file bytes per tensor the kernels may add */
#define KT_SLACK 65536		/* tensors any model's kernels may add */

struct kctx {
	struct ap_graph *g;
	const struct ap_model_subgraph *sg;
	int threads;
	uint32_t node;			/* the node being prepared */
	const struct ap_model_op *mo;
	int32_t *init_base;		/* per node: first tensor its Init reserved, or -1 */
	int32_t tmp[MAX_TMP];		/* node->temporaries being built */
	uint32_t n_tmp;
	char *err;			/* set (and failed true) by a failure that is not OOM */
	bool failed;
	uint64_t max_added;		/* tensors the kernels may add (KT_FILE_BYTES) */
	uint32_t t_cap, names_cap;	/* room in g->t and g->owned_names */
};

/* ---- tensors ---- */

/* The model tensor t (shape, type), or NULL for -1 and tensors the kernels added. */
static const struct ap_model_tensor *mt(const struct kctx *k, int32_t t)
{
	return t >= 0 && (uint32_t)t < k->sg->n_tensors ? &k->sg->tensors[t] : NULL;
}

/* Input j of the node being prepared: the model tensor, or NULL when absent (-1). */
static const struct ap_model_tensor *input(const struct kctx *k, uint32_t j)
{
	return j < k->mo->n_inputs ? mt(k, k->mo->inputs[j]) : NULL;
}

static int32_t in_index(const struct kctx *k, uint32_t j)
{
	return j < k->mo->n_inputs ? k->mo->inputs[j] : -1;
}

/* Type and allocation as the kernels see them now: earlier Prepares may have changed
 * them (DEQUANTIZE), so they come from the graph, not the model. */
static uint8_t ttype(const struct kctx *k, int32_t t)
{
	return k->g->t[t].type;
}

/* IsConstantOrPersistentTensor: in the file (kTfLiteMmapRo) or computed at Prepare
 * (kTfLitePersistentRo); a kTfLiteArenaRwPersistent tensor is neither. */
static bool const_or_ro(const struct kctx *k, int32_t t)
{
	return t >= 0 && (uint32_t)t < k->g->n_tensors &&
	       (k->g->t[t].alloc == AP_ALLOC_WEIGHTS || k->g->t[t].alloc == AP_ALLOC_RO);
}

static int32_t dim(const struct ap_model_tensor *t, uint32_t d)
{
	return d < t->rank ? t->shape[d] : 0;
}

/* a * b for shape arithmetic: -1 when negative or beyond int32 (LiteRT's checked
 * products fail Prepare there; nothing is added then). */
static int32_t mul(int64_t a, int64_t b)
{
	if (a < 0 || b < 0 || (b && a > INT32_MAX / b))
		return -1;
	return (int32_t)(a * b);
}

/* Elements of t (negative dimensions count as 0), -1 beyond int32. */
static int32_t numel(const struct ap_model_tensor *t)
{
	int32_t n = 1;

	for (uint32_t d = 0; d < t->rank && n >= 0; d++)
		n = mul(n, t->shape[d] < 0 ? 0 : t->shape[d]);
	return n;
}

/* The bytes of a tensor the kernel sizes: 0 when dynamic; -1 with the error set when
 * beyond AP_PLAN_MAX_BYTES. */
static int bytes_of(struct kctx *k, const char *what, uint8_t type, const int32_t *dims,
		    uint32_t rank, uint64_t *bytes)
{
	int r = ap_tensor_bytes(type, dims, rank, bytes);

	if (r < 0) {
		const char *op = k->g->ops[k->node].name;

		ap_seterr(k->err, "implausible: operator %u (%s): its kernel's %s would hold "
			  "more than " AP_PLAN_MAX_BYTES_TEXT, k->node, op ? op : "?", what);
		k->failed = true;
		return -1;
	}
	if (!r)
		*bytes = 0;
	return 0;
}

/* "<what node=N OP>", malloc'd; NULL when out of memory. */
static char *tensor_name(const struct kctx *k, const char *what)
{
	const char *op = k->g->ops[k->node].name;
	char buf[128];

	snprintf(buf, sizeof(buf), "<%s node=%u %s>", what, k->node, op ? op : "?");
	return strdup(buf);
}

/* The refusal of more kernel tensors than KT_FILE_BYTES allows, at node k->node: -1. */
static int too_many(struct kctx *k)
{
	const char *op = k->g->ops[k->node].name;

	ap_seterr(k->err, "implausible: the kernels of a %" PRIu64 "-byte model would add "
		  "more than %" PRIu64 " tensors (one per %d bytes of the file, plus %d), at "
		  "operator %u (%s)", k->g->model->file_size, k->max_added, KT_FILE_BYTES,
		  KT_SLACK, k->node, op ? op : "?");
	k->failed = true;
	return -1;
}

/* Appends n tensors of 0 bytes named "<what node=N OP>": context->AddTensors. Returns the
 * index of the first, -1 when out of memory. */
static int32_t add_tensors(struct kctx *k, uint32_t n, const char *what)
{
	struct ap_graph *g = k->g;
	uint32_t base = g->n_tensors;

	if (!n)
		return (int32_t)base;
	if ((uint64_t)g->n_owned_names + n > k->max_added)
		return too_many(k);
	/* grown by half again each time: one realloc per node was quadratic */
	if (base + n > k->t_cap) {
		uint32_t cap = k->t_cap + k->t_cap / 2 + n;
		struct ap_tensor *t = realloc(g->t, (size_t)cap * sizeof(*t));

		if (!t)
			return -1;
		g->t = t;
		k->t_cap = cap;
	}
	if (g->n_owned_names + n > k->names_cap) {
		uint32_t cap = k->names_cap + k->names_cap / 2 + n;
		char **names = realloc(g->owned_names, (size_t)cap * sizeof(*names));

		if (!names)
			return -1;
		g->owned_names = names;
		k->names_cap = cap;
	}
	for (uint32_t i = 0; i < n; i++) {
		char *name = tensor_name(k, what);

		if (!name)
			return -1;
		g->owned_names[g->n_owned_names++] = name;
		g->t[base + i] = (struct ap_tensor){
			.name = name, .type = AP_TT_INT8, .bytes = 0, .alloc = AP_ALLOC_ARENA,
			.producer = -1, .first = AP_NODE_NONE, .last = AP_NODE_NONE,
			.share_root = -1,
		};
		g->n_tensors++;
	}
	return (int32_t)base;
}

/* Makes tensor t (one the kernels added) temporary j of the node: its name says what it
 * is, its type, shape and allocation are the kernel's (dims NULL: never sized, 0 bytes).
 * -1 when out of memory. */
static int set_tmp(struct kctx *k, uint32_t j, int32_t t, const char *what, uint8_t type,
		   const int32_t *dims, uint32_t rank, enum ap_alloc alloc)
{
	struct ap_graph *g = k->g;
	uint32_t o = (uint32_t)t - (g->n_tensors - g->n_owned_names);
	char *name = tensor_name(k, what);

	if (!name)
		return -1;
	free(g->owned_names[o]);
	g->owned_names[o] = name;
	g->t[t].name = name;
	g->t[t].type = type;
	g->t[t].bytes = 0;
	if (dims && bytes_of(k, what, type, dims, rank, &g->t[t].bytes))
		return -1;
	g->t[t].alloc = alloc;
	k->tmp[j] = t;
	if (j >= k->n_tmp)
		k->n_tmp = j + 1;
	return 0;
}

/* AddTensors(1) then set_tmp: the usual "if (id == kTensorNotAllocated) AddTensors". */
static int new_tmp(struct kctx *k, const char *what, uint8_t type, const int32_t *dims,
		   uint32_t rank, enum ap_alloc alloc)
{
	int32_t t = add_tensors(k, 1, what);

	return t < 0 ? -1 : set_tmp(k, k->n_tmp, t, what, type, dims, rank, alloc);
}

static int64_t option(const struct kctx *k, unsigned field, unsigned size, int64_t def)
{
	return ap_model_op_option(k->g->model, k->mo, field, size, def);
}

static bool is_quantized_8_16(uint8_t type)
{
	return type == AP_TT_UINT8 || type == AP_TT_INT8 || type == AP_TT_INT16;
}

/* ---- CONV_2D: conv.cc, Prepare and AllocateTemporaryTensorsIfRequired ---- */

/* ComputeOutSizeChecked (padding.h): SAME 0, VALID 1; -1 when Prepare would fail. */
static int32_t out_size(int64_t padding, int32_t in, int32_t filter, int64_t stride,
			int64_t dilation)
{
	int64_t eff = ((int64_t)filter - 1) * dilation + 1, v;

	if (padding == 0)
		v = (in + stride - 1) / stride;
	else if (padding == 1)
		v = (in + stride - eff) / stride;
	else
		return -1;
	return v < 0 || v > INT32_MAX ? -1 : (int32_t)v;
}

/* The hybrid CONV_2D temporaries after im2col (prep_conv); shapes checked by the caller. */
static int conv_hybrid(struct kctx *k, const struct ap_model_tensor *in,
		       const struct ap_model_tensor *f, int32_t oh, int32_t ow)
{
	uint8_t ft = ttype(k, in_index(k, 1));
	int32_t groups = dim(in, 3) / dim(f, 3), cout = dim(f, 0);
	int32_t flat[1] = { mul(mul(mul(dim(in, 0), dim(in, 1)), dim(in, 2)), groups) };
	int32_t acc[2] = { cout, mul(mul(dim(in, 0), oh), ow) }, rows[1] = { cout };
	bool per_channel = (ft == AP_TT_INT8 || ft == AP_TT_INT4) && f->n_scales > 1 &&
			   f->scales_differ;

	/* LiteRT's checked products fail Prepare beyond int32 after AddTensors */
	if (flat[0] < 0 || acc[1] < 0 || mul(acc[0], acc[1]) < 0)
		return 0;
	if (new_tmp(k, "input_quantized", AP_TT_INT8, in->shape, in->rank, AP_ALLOC_ARENA) ||
	    new_tmp(k, "scaling_factors", AP_TT_FLOAT32, flat, 1, AP_ALLOC_ARENA) ||
	    new_tmp(k, "accum_scratch", AP_TT_INT32, acc, 2, AP_ALLOC_ARENA))
		return -1;
	if (per_channel &&
	    (new_tmp(k, "input_offsets", AP_TT_INT32, flat, 1, AP_ALLOC_ARENA) ||
	     new_tmp(k, "row_sums", AP_TT_INT32, rows, 1, AP_ALLOC_PERSISTENT)))
		return -1;
	return 0;
}

/*
 * Register_CONV_2D() is kMultithreadOptimized (TFLITE_WITH_MULTITHREADED_EIGEN, as in the
 * x86-64 Linux builds). Prepare:
 *  - supports_multithreaded_kernel = recommended_num_threads != 1 && !hybrid && no
 *    dilation && filter neither kTfLiteArenaRw nor dynamic (constant, or persistent like
 *    a dequantized constant);
 *  - need_hwcn_weights = float32 input && multithreaded: temporary hwcn_weights, float32
 *    [fh*fw*fin, cout], kTfLiteArenaRwPersistent;
 *  - IsIm2ColRequired: not when hwcn; else when dilated, strided or the filter is not
 *    1x1, and (kMultithreadOptimized) the input is quantized (uint8/int8/int16) or the
 *    multithreaded kernel is not used: temporary im2col, input type (hybrid: filter
 *    type, int4 as int8), [batch, out_h, out_w, fh*fw*fin], kTfLiteArenaRw. (The 1 GB
 *    im2col limit applies on mobile platforms only.)
 * Each temporary is AddTensors(1) on the first Prepare, im2col before hwcn_weights.
 * Hybrid convolutions (float32 input, uint8/int8/int4 filter; never multithreaded) type
 * im2col like the filter (int4 as int8) and add, all kTfLiteArenaRw: input_quantized int8
 * [input shape], scaling_factors float32 [batch*in_h*in_w*groups], accum_scratch int32
 * [cout, batch*out_h*out_w]; per channel (int8/int4 filter with more than one scale, not
 * all equal) also input_offsets int32 [batch*in_h*in_w*groups] and row_sums int32 [cout],
 * kTfLiteArenaRwPersistent.
 */
static int prep_conv(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *f = input(k, 1);
	int32_t fi = in_index(k, 1), ii = in_index(k, 0);
	int64_t padding, sw, sh, dw, dh;
	int32_t oh, ow, cin, cout, kh, kw, batch, depth;
	uint8_t it, ft;
	bool hybrid, multi, hwcn, im2col;

	if (!in || !f || k->mo->n_inputs != 3 || !input(k, 2) || k->mo->n_outputs != 1 ||
	    k->mo->options_type != OPT_CONV_2D || in->rank != 4 || f->rank != 4)
		return 0;
	it = ttype(k, ii);
	ft = ttype(k, fi);
	if (it != AP_TT_FLOAT32 && !is_quantized_8_16(it))
		return 0;
	hybrid = it == AP_TT_FLOAT32 &&
		 (ft == AP_TT_UINT8 || ft == AP_TT_INT8 || ft == AP_TT_INT4);
	padding = option(k, 0, 1, 0);
	sw = option(k, 1, 4, 0);
	sh = option(k, 2, 4, 0);
	dw = option(k, 4, 4, 1);
	dh = option(k, 5, 4, 1);
	batch = dim(in, 0);
	cin = dim(f, 3);
	cout = dim(f, 0);
	kh = dim(f, 1);
	kw = dim(f, 2);
	if (sw <= 0 || sh <= 0 || dw <= 0 || dh <= 0 || dim(in, 1) <= 0 || dim(in, 2) <= 0 ||
	    dim(in, 3) <= 0 || kh <= 0 || kw <= 0 || cout <= 0 || cin <= 0 ||
	    dim(in, 3) % cin || cout % (dim(in, 3) / cin))
		return 0;
	oh = out_size(padding, dim(in, 1), kh, sh, dh);
	ow = out_size(padding, dim(in, 2), kw, sw, dw);
	depth = mul(mul(kh, kw), cin);
	if (oh < 0 || ow < 0 || depth < 0)
		return 0;
	multi = k->threads != 1 && !hybrid && dw == 1 && dh == 1 &&
	     k->g->t[fi].alloc != AP_ALLOC_ARENA && k->g->t[fi].alloc != AP_ALLOC_DYNAMIC;
	hwcn = it == AP_TT_FLOAT32 && multi;
	im2col = !hwcn && (dw != 1 || dh != 1 || sw != 1 || sh != 1 || kw != 1 || kh != 1) &&
		 (is_quantized_8_16(it) || !multi);
	if (im2col) {
		int32_t d[4] = { batch, oh, ow, depth };
		uint8_t t = !hybrid ? it : ft == AP_TT_INT4 ? AP_TT_INT8 : ft;

		if (new_tmp(k, "im2col", t, d, 4, AP_ALLOC_ARENA))
			return -1;
	}
	if (hwcn) {
		int32_t d[2] = { depth, cout };

		if (new_tmp(k, "hwcn_weights", it, d, 2, AP_ALLOC_PERSISTENT))
			return -1;
	}
	return hybrid ? conv_hybrid(k, in, f, oh, ow) : 0;
}

/*
 * DEPTHWISE_CONV_2D: depthwise_conv.cc, Prepare. Temporaries only when hybrid (float32
 * input, int8 filter): AddTensors(1) each for input_quantized int8 [input shape],
 * scaling_factors float32 [batch], input_offsets int32 [batch], all kTfLiteArenaRw.
 */
static int prep_depthwise_conv(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *f = input(k, 1);
	int32_t batch[1];

	if (!in || !f || in->rank != 4 || f->rank != 4 || k->mo->n_outputs != 1 ||
	    ttype(k, in_index(k, 0)) != AP_TT_FLOAT32 || ttype(k, in_index(k, 1)) != AP_TT_INT8)
		return 0;
	batch[0] = dim(in, 0);
	if (new_tmp(k, "input_quantized", AP_TT_INT8, in->shape, in->rank, AP_ALLOC_ARENA) ||
	    new_tmp(k, "scaling_factors", AP_TT_FLOAT32, batch, 1, AP_ALLOC_ARENA) ||
	    new_tmp(k, "input_offsets", AP_TT_INT32, batch, 1, AP_ALLOC_ARENA))
		return -1;
	return 0;
}

/*
 * DEQUANTIZE: dequantize.cc, Prepare. The output becomes float32 with the input's shape;
 * when the input is constant (kTfLiteMmapRo) the output is kTfLiteArenaRwPersistent
 * (dequantized once, kept for the whole run).
 */
static int prep_dequantize(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0);
	int32_t ii = in_index(k, 0), o;
	uint8_t it;

	if (!in || k->mo->n_inputs != 1 || k->mo->n_outputs != 1 || !mt(k, k->mo->outputs[0]))
		return 0;
	it = ttype(k, ii);
	if (it != AP_TT_INT2 && it != AP_TT_INT4 && it != AP_TT_UINT4 && it != AP_TT_UINT8 &&
	    it != AP_TT_INT8 && it != AP_TT_INT16 && it != AP_TT_FLOAT16)
		return 0;
	o = k->mo->outputs[0];
	k->g->t[o].type = AP_TT_FLOAT32;
	if (k->g->t[o].alloc != AP_ALLOC_ARENA && k->g->t[o].alloc != AP_ALLOC_PERSISTENT)
		return 0;
	if (bytes_of(k, "float32 output", AP_TT_FLOAT32, in->shape, in->rank, &k->g->t[o].bytes))
		return -1;
	if (k->g->t[ii].alloc == AP_ALLOC_WEIGHTS)
		k->g->t[o].alloc = AP_ALLOC_PERSISTENT;
	return 0;
}

/*
 * DENSIFY: densify.cc, Prepare. The input must be constant (kTfLiteMmapRo), not a string,
 * and carry SparsityParameters; the output takes its type and dense shape and becomes
 * kTfLiteArenaRwPersistent (densified once, kept for the whole run). A DEQUANTIZE after
 * it keeps its output in the arena: its input is persistent, not constant.
 */
static int prep_densify(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0);
	int32_t ii = in_index(k, 0), o;
	uint8_t it;

	if (!in || k->mo->n_inputs != 1 || k->mo->n_outputs != 1 || !mt(k, k->mo->outputs[0]))
		return 0;
	it = ttype(k, ii);
	if (it == AP_TT_STRING || k->g->t[ii].alloc != AP_ALLOC_WEIGHTS || !in->sparse)
		return 0;
	o = k->mo->outputs[0];
	if (k->g->t[o].alloc != AP_ALLOC_ARENA && k->g->t[o].alloc != AP_ALLOC_PERSISTENT)
		return 0;
	k->g->t[o].type = it;
	k->g->t[o].alloc = AP_ALLOC_PERSISTENT;
	return bytes_of(k, "dense output", it, in->shape, in->rank, &k->g->t[o].bytes);
}

/*
 * Constant folding at Prepare: the output becomes kTfLitePersistentRo (heap, computed
 * once, in no arena) when every input in the mask is const or ro; 0xff means every input,
 * an absent optional input counts as const. SHAPE and RANK (shape.cc, rank.cc) always;
 * RESHAPE of a non-string (reshape.cc; its shape input too when given), STRIDED_SLICE
 * (input, begin, end, strides), TILE, GATHER, MUL, CONCATENATION, RANGE and
 * BROADCAST_ARGS (their Prepare's IsConstantOrPersistentTensor tests). Folded outputs
 * feed the same test downstream, so SHAPE -> STRIDED_SLICE chains fold whole.
 */
static const struct fold {
	int32_t opcode;
	uint8_t mask;
} folds[] = {
	{ OP_SHAPE, 0 }, { OP_RANK, 0 }, { OP_RESHAPE, 0x03 }, { OP_STRIDED_SLICE, 0x0f },
	{ OP_TILE, 0x03 }, { OP_GATHER, 0x03 }, { OP_MUL, 0x03 }, { OP_CONCATENATION, 0xff },
	{ OP_RANGE, 0x07 }, { OP_BROADCAST_ARGS, 0x03 },
};

static int prep_fold(struct kctx *k)
{
	int32_t opc = k->g->ops[k->node].opcode, o;
	uint8_t mask = 0;

	for (size_t i = 0; i < sizeof(folds) / sizeof(folds[0]); i++)
		if (folds[i].opcode == opc)
			mask = folds[i].mask;
	if (k->mo->n_outputs != 1 || !mt(k, k->mo->outputs[0]))
		return 0;
	for (uint32_t j = 0; j < k->mo->n_inputs; j++)
		if ((mask == 0xff || (j < 8 && (mask >> j & 1))) && in_index(k, j) >= 0 &&
		    !const_or_ro(k, in_index(k, j)))
			return 0;
	o = k->mo->outputs[0];
	if (opc == OP_RESHAPE && ttype(k, o) == AP_TT_STRING)
		return 0;
	if (k->g->t[o].alloc == AP_ALLOC_ARENA)
		k->g->t[o].alloc = AP_ALLOC_RO;
	return 0;
}

/*
 * VAR_HANDLE: var_handle.cc, Prepare. The resource output becomes kTfLiteArenaRwPersistent
 * with 4 bytes (the resource id): one aligned slot of the persistent arena per node. The
 * variable's own storage is a heap tensor inside the resource, in no arena.
 */
static int prep_var_handle(struct kctx *k)
{
	int32_t o;

	if (k->mo->n_outputs != 1 || !mt(k, k->mo->outputs[0]))
		return 0;
	o = k->mo->outputs[0];
	k->g->t[o].alloc = AP_ALLOC_PERSISTENT;
	k->g->t[o].bytes = 4;
	return 0;
}

/*
 * FULLY_CONNECTED: fully_connected.cc. Init reserves nothing; Prepare<kGenericOptimized>
 * calls AddTensors(6) on its first run, for every FULLY_CONNECTED. Only the hybrid path
 * (float32 input, uint8/int8/int2 filter) uses them, as 5 temporaries: input_quantized
 * int8 [input shape], scaling_factors float32 [batch], accum_scratch int32 [units, batch],
 * input_offsets int32 [batch] (kTfLiteArenaRw), row_sums int32 [units]
 * (kTfLiteArenaRwPersistent); batch = elements(input) / filter dim 1. Not modelled: the
 * int4 filter path (PrepareImpl4Bit) and sparse filters (a 6th, ledger temporary).
 */
static int prep_fully_connected(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *f = input(k, 1);
	int32_t base = add_tensors(k, 6, "kernel tensor"), units, batch;
	uint8_t ft;

	if (base < 0)
		return -1;
	if (!in || !f || f->rank != 2 || ttype(k, in_index(k, 0)) != AP_TT_FLOAT32)
		return 0;
	ft = ttype(k, in_index(k, 1));
	if ((ft != AP_TT_UINT8 && ft != AP_TT_INT8 && ft != AP_TT_INT2) || dim(f, 1) <= 0 ||
	    numel(in) < 0)
		return 0;
	units = dim(f, 0);
	batch = numel(in) / dim(f, 1);
	{
		int32_t b[1] = { batch }, acc[2] = { units, batch }, u[1] = { units };

		if (set_tmp(k, 0, base, "input_quantized", AP_TT_INT8, in->shape, in->rank,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 1, base + 1, "scaling_factors", AP_TT_FLOAT32, b, 1,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 2, base + 2, "accum_scratch", AP_TT_INT32, acc, 2,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 3, base + 3, "input_offsets", AP_TT_INT32, b, 1, AP_ALLOC_ARENA) ||
		    set_tmp(k, 4, base + 4, "row_sums", AP_TT_INT32, u, 1, AP_ALLOC_PERSISTENT))
			return -1;
	}
	return 0;
}

/*
 * UNIDIRECTIONAL_SEQUENCE_LSTM: unidirectional_sequence_lstm.cc. Init reserves 12 tensors
 * (kNumTemporaryTensors). Prepare (20 or 24 inputs) makes the first of them temporaries,
 * all kTfLiteArenaRw unless said otherwise; n_batch/n_input from the input (time_major
 * swaps dims 0 and 1), n_cell = input_to_output_weights dim 0, n_output =
 * recurrent_to_output_weights dim 1 (dim 0 when 1-D), cifg = no input_to_input_weights:
 *  - integer (int8 input, 8x8_16): 6 of [n_batch, n_cell]: 4 int16, 1 int8, 1 int32;
 *  - float: 1, scratch_buffer of the input type [n_batch, n_cell * (cifg ? 4 : 5) + 16];
 *  - hybrid (float32 input, uint8/int8 weights): all 12: that scratch_buffer; input,
 *    output_state and cell_state quantized to the weight type (their shapes); 3 scaling
 *    factors float32 [n_batch]; recovered_cell_weights float32 [n_cell]; accum_scratch
 *    int32 [n_cell, n_batch]; 2 zero points float32 [n_batch]; row_sums int32 [(cifg ? 6
 *    : 8) + (projection ? ceil(n_output / n_cell) : 0), n_cell] kTfLiteArenaRwPersistent.
 */
static int prep_unidirectional_sequence_lstm(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *w = input(k, 4), *rw = input(k, 8);
	const struct ap_model_tensor *os = input(k, 18), *cs = input(k, 19);
	int32_t base = k->init_base[k->node], nb, nc, no, sb[2];
	bool tm, cifg, hybrid, integer;
	uint8_t it, wt;

	if (base < 0 || !in || !w || !rw || (k->mo->n_inputs != 20 && k->mo->n_inputs != 24) ||
	    k->mo->n_outputs != 1 || in->rank < 3 || w->rank != 2 || !os || !cs)
		return 0;
	tm = k->mo->options_type == OPT_UNIDIRECTIONAL_SEQUENCE_LSTM && option(k, 3, 1, 0);
	nb = tm ? dim(in, 1) : dim(in, 0);
	nc = dim(w, 0);
	no = rw->rank == 1 ? dim(rw, 0) : dim(rw, 1);
	it = ttype(k, in_index(k, 0));
	wt = ttype(k, in_index(k, 4));
	integer = it == AP_TT_INT8;
	hybrid = it == AP_TT_FLOAT32 && (wt == AP_TT_UINT8 || wt == AP_TT_INT8);
	cifg = !input(k, 1);
	sb[0] = nb;
	sb[1] = mul(nc, cifg ? 4 : 5);
	if (sb[1] < 0 || sb[1] > INT32_MAX - 16)
		return 0;
	sb[1] += 16;
	if (integer) {
		static const uint8_t type[6] = { AP_TT_INT16, AP_TT_INT16, AP_TT_INT16,
						 AP_TT_INT16, AP_TT_INT8, AP_TT_INT32 };
		static const char *const what[6] = { "scratch0", "scratch1", "scratch2",
						     "scratch3", "scratch4", "scratch5" };
		int32_t d[2] = { nb, nc };

		for (uint32_t j = 0; j < 6; j++)
			if (set_tmp(k, j, base + (int32_t)j, what[j], type[j], d, 2,
				    AP_ALLOC_ARENA))
				return -1;
		return 0;
	}
	if (set_tmp(k, 0, base, "scratch_buffer", it, sb, 2, AP_ALLOC_ARENA))
		return -1;
	if (hybrid) {
		int32_t b[1] = { nb }, c[1] = { nc }, acc[2] = { nc, nb };
		int64_t rows = (cifg ? 6 : 8) +
			       (input(k, 16) && nc > 0 && no > 0 ? ((int64_t)no + nc - 1) / nc : 0);
		int32_t rs[2] = { rows > INT32_MAX ? 0 : (int32_t)rows, nc };

		if (set_tmp(k, 1, base + 1, "input_quantized", wt, in->shape, in->rank,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 2, base + 2, "output_state_quantized", wt, os->shape, os->rank,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 3, base + 3, "cell_state_quantized", wt, cs->shape, cs->rank,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 4, base + 4, "input_scaling_factors", AP_TT_FLOAT32, b, 1,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 5, base + 5, "output_state_scaling_factors", AP_TT_FLOAT32, b, 1,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 6, base + 6, "product_scaling_factors", AP_TT_FLOAT32, b, 1,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 7, base + 7, "recovered_cell_weights", AP_TT_FLOAT32, c, 1,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 8, base + 8, "accum_scratch", AP_TT_INT32, acc, 2,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 9, base + 9, "input_zero_points", AP_TT_FLOAT32, b, 1,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 10, base + 10, "output_state_zero_points", AP_TT_FLOAT32, b, 1,
			    AP_ALLOC_ARENA) ||
		    set_tmp(k, 11, base + 11, "row_sums", AP_TT_INT32, rs, 2,
			    AP_ALLOC_PERSISTENT))
			return -1;
	}
	return 0;
}

/* Dims of t with the last two swapped. */
static void swap_last2(const struct ap_model_tensor *t, int32_t *d)
{
	memcpy(d, t->shape, t->rank * sizeof(*d));
	d[t->rank - 2] = t->shape[t->rank - 1];
	d[t->rank - 1] = t->shape[t->rank - 2];
}

/*
 * BATCH_MATMUL: batch_matmul.cc, Prepare and InitializeTemporaries. Prepare calls
 * AddTensors(2 + 5) on its first run. Temporaries: the transposed LHS (LHS type and shape,
 * last two dims swapped, kTfLiteArenaRw) and the transposed RHS (likewise;
 * kTfLiteArenaRwPersistent when the RHS is constant). Hybrid (float32 LHS, int8 RHS) adds
 * input_quantized (RHS type, LHS shape), scaling_factors float32 [batches * rows],
 * accum_scratch int32 [units, rows], input_offsets int32 [batches * rows]
 * (kTfLiteArenaRw) and row_sums int32 [rhs batches * units] (kTfLiteArenaRwPersistent);
 * rows = LHS dim -2 (-1 if adj_x), units = RHS dim -1 (-2 if adj_y), batches = product
 * of the leading dims.
 */
static int prep_batch_matmul(struct kctx *k)
{
	const struct ap_model_tensor *l = input(k, 0), *r = input(k, 1);
	int32_t base = add_tensors(k, 7, "kernel tensor"), dl[8], dr[8];
	int32_t li = in_index(k, 0), ri = in_index(k, 1);
	bool adj_x = false, adj_y = false;
	uint8_t lt, rt;

	if (base < 0)
		return -1;
	if (!l || !r || k->mo->n_inputs != 2 || k->mo->n_outputs != 1 || l->rank < 2 ||
	    r->rank < 2 || l->rank > 8 || r->rank > 8)
		return 0;
	if (k->mo->options_type == OPT_BATCH_MATMUL) {
		adj_x = option(k, 0, 1, 0) != 0;
		adj_y = option(k, 1, 1, 0) != 0;
	}
	lt = ttype(k, li);
	rt = ttype(k, ri);
	swap_last2(l, dl);
	swap_last2(r, dr);
	if (set_tmp(k, 0, base, "lhs_transposed", lt, dl, l->rank, AP_ALLOC_ARENA) ||
	    set_tmp(k, 1, base + 1, "rhs_transposed", rt, dr, r->rank,
		    k->g->t[ri].alloc == AP_ALLOC_WEIGHTS ? AP_ALLOC_PERSISTENT : AP_ALLOC_ARENA))
		return -1;
	if (lt == AP_TT_FLOAT32 && rt == AP_TT_INT8) {
		int32_t rows = adj_x ? dim(l, l->rank - 1) : dim(l, l->rank - 2);
		int32_t units = adj_y ? dim(r, r->rank - 2) : dim(r, r->rank - 1);
		int32_t nb = 1, nw = 1;

		for (uint32_t d = 0; d + 2 < l->rank; d++)
			nb = mul(nb, dim(l, d));
		for (uint32_t d = 0; d + 2 < r->rank; d++)
			nw = mul(nw, dim(r, d));
		if (mul(nb, rows) < 0 || mul(nw, units) < 0)
			return 0;
		{
			int32_t b[1] = { mul(nb, rows) }, acc[2] = { units, rows };
			int32_t u[1] = { mul(nw, units) };

			if (set_tmp(k, 2, base + 2, "input_quantized", rt, l->shape, l->rank,
				    AP_ALLOC_ARENA) ||
			    set_tmp(k, 3, base + 3, "scaling_factors", AP_TT_FLOAT32, b, 1,
				    AP_ALLOC_ARENA) ||
			    set_tmp(k, 4, base + 4, "accum_scratch", AP_TT_INT32, acc, 2,
				    AP_ALLOC_ARENA) ||
			    set_tmp(k, 5, base + 5, "input_offsets", AP_TT_INT32, b, 1,
				    AP_ALLOC_ARENA) ||
			    set_tmp(k, 6, base + 6, "row_sums", AP_TT_INT32, u, 1,
				    AP_ALLOC_PERSISTENT))
				return -1;
		}
	}
	return 0;
}

/* temp_accum type of reduce.cc InitializeTemporaries; 0xff when Prepare fails. */
static uint8_t reduce_accum_type(uint8_t t)
{
	switch (t) {
	case AP_TT_FLOAT32:
		return AP_TT_FLOAT32;
	case AP_TT_INT32: case AP_TT_INT64:
		return AP_TT_INT64;
	case AP_TT_UINT8: case AP_TT_INT8: case AP_TT_INT16:
		return AP_TT_INT32;
	case AP_TT_BOOL:
		return AP_TT_BOOL;
	default:
		return 0xff;
	}
}

/*
 * MEAN, SUM, REDUCE_PROD, REDUCE_MAX, REDUCE_MIN, REDUCE_ANY, REDUCE_ALL: reduce.cc,
 * PrepareSimple (+ PrepareMeanOrSum, PrepareProd, PrepareAllOrAny). Prepare calls
 * AddTensors(4) on its first run; the 4 temporaries: temp_index int32 [input rank]
 * (kTfLiteArenaRw); resolved_axis int32 [axis elements] (kTfLiteArenaRw; dynamic when the
 * axis is not constant); temp_accum (float32 -> float32, int32/int64 -> int64,
 * uint8/int8/int16 -> int32, bool -> bool) [output elements], kTfLiteArenaRw for MEAN,
 * SUM and PROD, never sized for the others; normalized_dims int32 [input rank],
 * kTfLiteArenaRw when the input is const or ro, else dynamic. A REDUCE_PROD of a const or
 * ro input and axis with at most 8 output elements is folded at Prepare: its output is ro,
 * temp_index is planned and the other three are dynamic. Not modelled (only the 4 reserved tensors are added): a
 * non-constant axis (the output becomes dynamic).
 */
static int prep_reduce(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *axis = input(k, 1), *out;
	int32_t opc = k->g->ops[k->node].opcode, base, rank[1], na[1], no[1];
	bool sum_like = opc == OP_MEAN || opc == OP_SUM || opc == OP_REDUCE_PROD;
	bool in_const;
	uint8_t acc;

	if (!in || !axis)
		return 0;
	base = add_tensors(k, 4, "kernel tensor");
	if (base < 0)
		return -1;
	out = k->mo->n_outputs == 1 ? mt(k, k->mo->outputs[0]) : NULL;
	if (k->mo->n_inputs != 2 || !out || ttype(k, in_index(k, 1)) != AP_TT_INT32 ||
	    !const_or_ro(k, in_index(k, 1)))
		return 0;
	acc = reduce_accum_type(ttype(k, in_index(k, 0)));
	if (acc == 0xff || ((opc == OP_REDUCE_ANY || opc == OP_REDUCE_ALL) && acc != AP_TT_BOOL))
		return 0;
	in_const = const_or_ro(k, in_index(k, 0));
	rank[0] = (int32_t)in->rank;
	na[0] = numel(axis);
	no[0] = numel(out);
	if (na[0] < 0 || no[0] < 0)
		return 0;
	if (opc == OP_REDUCE_PROD && in_const && no[0] <= 8) {
		/* folded at Prepare (kMaxConstantOutputTensorSize): the output is ro; only
		 * temp_index is planned, the other three are left dynamic */
		if (k->g->t[k->mo->outputs[0]].alloc == AP_ALLOC_ARENA)
			k->g->t[k->mo->outputs[0]].alloc = AP_ALLOC_RO;
		return set_tmp(k, 0, base, "temp_index", AP_TT_INT32, rank, 1, AP_ALLOC_ARENA) ||
		       set_tmp(k, 1, base + 1, "resolved_axis", AP_TT_INT32, NULL, 1,
			       AP_ALLOC_DYNAMIC) ||
		       set_tmp(k, 2, base + 2, "temp_prod", acc, NULL, 1, AP_ALLOC_DYNAMIC) ||
		       set_tmp(k, 3, base + 3, "normalized_dims", AP_TT_INT32, NULL, 1,
			       AP_ALLOC_DYNAMIC) ? -1 : 0;
	}
	if (set_tmp(k, 0, base, "temp_index", AP_TT_INT32, rank, 1, AP_ALLOC_ARENA) ||
	    set_tmp(k, 1, base + 1, "resolved_axis", AP_TT_INT32, na, 1, AP_ALLOC_ARENA) ||
	    set_tmp(k, 2, base + 2, "temp_accum", acc, sum_like ? no : NULL, 1,
		    AP_ALLOC_ARENA) ||
	    set_tmp(k, 3, base + 3, "normalized_dims", AP_TT_INT32, in_const ? rank : NULL, 1,
		    in_const ? AP_ALLOC_ARENA : AP_ALLOC_DYNAMIC))
		return -1;
	return 0;
}

/*
 * TRANSPOSE_CONV: transpose_conv.cc, Prepare<kGenericOptimized> and
 * AllocateTemporaryTensorsIfRequired. AddTensors(1) each, in this order: col2im and
 * transposed_weights (always), scratch (uint8/int8/int16 input), then for hybrid (float32
 * input, int8 weights) input_quantized, scaling_factors, input_offsets. col2im, the
 * transposed weights and scratch are kTfLiteDynamic (heap, outside the arenas): col2im
 * float32 (else int32) [in_h * in_w, weights dims 0*1*2], the weights' type and size when
 * they are constant (else unsized), scratch int32 (int16 input: int64, or the
 * quantized_bias_type option) of the output shape. The hybrid ones are kTfLiteArenaRw:
 * int8 [input shape], float32 and int32 [input elements / input channels]. With a
 * non-constant output_shape the output becomes dynamic: not modelled, the tensors are
 * only reserved.
 */
static int prep_transpose_conv(struct kctx *k)
{
	const struct ap_model_tensor *os = input(k, 0), *w = input(k, 1), *in = input(k, 2);
	const struct ap_model_tensor *out;
	int32_t wi = in_index(k, 1), n, col[2], h[1];
	uint8_t it, wt, st;
	bool quant, hybrid;

	if (!os || !w || !in || (k->mo->n_inputs != 3 && k->mo->n_inputs != 4) ||
	    k->mo->n_outputs != 1 || !(out = mt(k, k->mo->outputs[0])) || os->rank != 1 ||
	    in->rank != 4 || w->rank != 4 || dim(in, 1) <= 0 || dim(in, 2) <= 0 ||
	    dim(in, 3) <= 0 || dim(w, 0) <= 0 || dim(w, 1) <= 0 || dim(w, 2) <= 0 ||
	    dim(in, 3) != dim(w, 3))
		return 0;
	it = ttype(k, in_index(k, 2));
	wt = ttype(k, wi);
	if (!(it == AP_TT_FLOAT32 && (wt == AP_TT_FLOAT32 || wt == AP_TT_INT8)) &&
	    !(it == AP_TT_UINT8 && wt == AP_TT_UINT8) && !(is_quantized_8_16(it) &&
	    it != AP_TT_UINT8 && wt == AP_TT_INT8))
		return 0;
	quant = is_quantized_8_16(it);
	hybrid = it == AP_TT_FLOAT32 && wt == AP_TT_INT8;
	n = 2 + (quant ? 1 : 0) + (hybrid ? 3 : 0);
	if (!const_or_ro(k, in_index(k, 0)))
		return add_tensors(k, (uint32_t)n, "kernel tensor") < 0 ? -1 : 0;
	col[0] = mul(dim(in, 1), dim(in, 2));
	col[1] = mul(mul(dim(w, 0), dim(w, 1)), dim(w, 2));
	if (col[0] < 0 || col[1] < 0 || numel(in) < 0)
		return add_tensors(k, (uint32_t)n, "kernel tensor") < 0 ? -1 : 0;
	if (new_tmp(k, "col2im", it == AP_TT_FLOAT32 ? AP_TT_FLOAT32 : AP_TT_INT32, col, 2,
		    AP_ALLOC_DYNAMIC) ||
	    new_tmp(k, "transposed_weights", wt,
		    k->g->t[wi].alloc == AP_ALLOC_WEIGHTS ? w->shape : NULL, w->rank,
		    AP_ALLOC_DYNAMIC))
		return -1;
	if (quant) {
		int64_t qb = k->mo->options_type == OPT_TRANSPOSE_CONV ? option(k, 4, 1, 0) : 0;

		st = AP_TT_INT32;
		if (it == AP_TT_INT16)
			st = qb == AP_TT_INT32 || qb == AP_TT_INT64 ? (uint8_t)qb : AP_TT_INT64;
		if (new_tmp(k, "scratch", st, out->shape, out->rank, AP_ALLOC_DYNAMIC))
			return -1;
	}
	if (hybrid) {
		h[0] = numel(in) / dim(w, 3);
		if (new_tmp(k, "input_quantized", AP_TT_INT8, in->shape, in->rank,
			    AP_ALLOC_ARENA) ||
		    new_tmp(k, "scaling_factors", AP_TT_FLOAT32, h, 1, AP_ALLOC_ARENA) ||
		    new_tmp(k, "input_offsets", AP_TT_INT32, h, 1, AP_ALLOC_ARENA))
			return -1;
	}
	return 0;
}

/* ---- the table ---- */

/*
 * init: tensors Init reserves with AddTensors, whatever the node's types:
 * unidirectional_sequence_lstm.cc 12; lstm.cc full kernel 12 + 9 ledgers (basic kernel
 * 0); bidirectional_sequence_lstm.cc 19; bidirectional_sequence_rnn.cc 9; basic_rnn.cc
 * (RNN), unidirectional_sequence_rnn.cc and svdf.cc 6; add_n.cc 1;
 * stablehlo_reduce_window.cc 2. prepare: NULL when the kernel's Prepare is not modelled.
 */
static const struct kernel {
	int32_t opcode;
	uint8_t init;
	int (*prepare)(struct kctx *k);
} kernels[] = {
	{ OP_CONV_2D, 0, prep_conv },
	{ OP_DEPTHWISE_CONV_2D, 0, prep_depthwise_conv },
	{ OP_DEQUANTIZE, 0, prep_dequantize },
	{ OP_DENSIFY, 0, prep_densify },
	{ OP_VAR_HANDLE, 0, prep_var_handle },
	{ OP_SHAPE, 0, prep_fold },
	{ OP_RANK, 0, prep_fold },
	{ OP_RESHAPE, 0, prep_fold },
	{ OP_STRIDED_SLICE, 0, prep_fold },
	{ OP_TILE, 0, prep_fold },
	{ OP_GATHER, 0, prep_fold },
	{ OP_MUL, 0, prep_fold },
	{ OP_CONCATENATION, 0, prep_fold },
	{ OP_RANGE, 0, prep_fold },
	{ OP_BROADCAST_ARGS, 0, prep_fold },
	{ OP_FULLY_CONNECTED, 0, prep_fully_connected },
	{ OP_UNIDIRECTIONAL_SEQUENCE_LSTM, 12, prep_unidirectional_sequence_lstm },
	{ OP_BATCH_MATMUL, 0, prep_batch_matmul },
	{ OP_TRANSPOSE_CONV, 0, prep_transpose_conv },
	{ OP_MEAN, 0, prep_reduce },
	{ OP_SUM, 0, prep_reduce },
	{ OP_REDUCE_PROD, 0, prep_reduce },
	{ OP_REDUCE_MAX, 0, prep_reduce },
	{ OP_REDUCE_MIN, 0, prep_reduce },
	{ OP_REDUCE_ANY, 0, prep_reduce },
	{ OP_REDUCE_ALL, 0, prep_reduce },
	{ OP_LSTM, 12 + 9, NULL },
	{ OP_BIDIRECTIONAL_SEQUENCE_LSTM, 19, NULL },
	{ OP_BIDIRECTIONAL_SEQUENCE_RNN, 9, NULL },
	{ OP_RNN, 6, NULL },
	{ OP_UNIDIRECTIONAL_SEQUENCE_RNN, 6, NULL },
	{ OP_SVDF, 6, NULL },
	{ OP_ADD_N, 1, NULL },
	{ OP_STABLEHLO_REDUCE_WINDOW, 2, NULL },
};

static const struct kernel *find_kernel(int32_t opcode)
{
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (kernels[i].opcode == opcode)
			return &kernels[i];
	return NULL;
}

static uint32_t init_count(const struct kctx *k, const struct kernel *kn)
{
	/* lstm.cc Init: only the full kernel (LSTMOptions.kernel_type FULL = 0) adds. */
	if (kn->opcode == OP_LSTM)
		return k->mo->options_type == OPT_LSTM && option(k, 3, 1, 0) == 0 ? kn->init : 0;
	return kn->init;
}

int ap_kernels_apply(struct ap_graph *g, const struct ap_kernel_opts *o, char *err)
{
	struct kctx k = { .g = g, .threads = o ? o->threads : 1, .err = err };
	int rc = -1;

	if (!g->model || g->subgraph >= g->model->n_subgraphs ||
	    g->model->subgraphs[g->subgraph].n_ops != g->n_ops ||
	    g->model->subgraphs[g->subgraph].n_tensors != g->n_tensors) {
		ap_seterr(err, "kernel tensors: already added, or the graph does not match "
			  "its model");
		return -1;
	}
	k.sg = &g->model->subgraphs[g->subgraph];
	k.max_added = g->model->file_size / KT_FILE_BYTES + KT_SLACK;
	k.t_cap = g->n_tensors;
	k.init_base = malloc((g->n_ops + 1) * sizeof(*k.init_base));
	if (!k.init_base)
		goto oom;
	/* What Init will reserve, refused before anything is allocated */
	{
		uint64_t n = 0;

		for (k.node = 0; k.node < g->n_ops && n <= k.max_added; k.node++) {
			const struct kernel *kn = find_kernel(g->ops[k.node].opcode);

			k.mo = &k.sg->ops[k.node];
			n += kn ? init_count(&k, kn) : 0;
		}
		if (n > k.max_added) {
			k.node--;
			too_many(&k);
			goto oom;
		}
	}
	/* InterpreterBuilder: every node's Init, in execution order. */
	for (k.node = 0; k.node < g->n_ops; k.node++) {
		const struct kernel *kn = find_kernel(g->ops[k.node].opcode);
		uint32_t n;

		k.mo = &k.sg->ops[k.node];
		k.init_base[k.node] = -1;
		n = kn ? init_count(&k, kn) : 0;
		if (n && (k.init_base[k.node] = add_tensors(&k, n, "kernel tensor")) < 0)
			goto oom;
	}
	/* AllocateTensors: every node's Prepare, in execution order. */
	for (k.node = 0; k.node < g->n_ops; k.node++) {
		const struct kernel *kn = find_kernel(g->ops[k.node].opcode);
		struct ap_op *op = &g->ops[k.node];

		if (!kn || !kn->prepare)
			continue;
		k.mo = &k.sg->ops[k.node];
		k.n_tmp = 0;
		if (kn->prepare(&k))
			goto oom;
		if (!k.n_tmp)
			continue;
		free(op->tmp);
		op->n_tmp = 0;
		op->tmp = malloc(k.n_tmp * sizeof(*op->tmp));
		if (!op->tmp)
			goto oom;
		memcpy(op->tmp, k.tmp, k.n_tmp * sizeof(*op->tmp));
		op->n_tmp = k.n_tmp;
	}
	rc = 0;
	goto out;
oom:
	if (!k.failed)
		ap_seterr(err, "out of memory adding kernel tensors");
out:
	free(k.init_base);
	return rc;
}

void ap_kernels_free(struct ap_graph *g)
{
	for (uint32_t i = 0; g->ops && i < g->n_ops; i++) {
		free(g->ops[i].tmp);
		g->ops[i].tmp = NULL;
		g->ops[i].n_tmp = 0;
	}
	for (uint32_t i = 0; i < g->n_owned_names; i++)
		free(g->owned_names[i]);
	free(g->owned_names);
	g->owned_names = NULL;
	g->n_owned_names = 0;
}
