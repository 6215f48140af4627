// SPDX-License-Identifier: Apache-2.0
/*
 * kernels: the tensors LiteRT's builtin kernels add to a subgraph, as LiteRT 2.3 on
 * x86-64 Linux does (google-ai-edge/LiteRT tflite/kernels/<op>.cc). This file holds the
 * two passes, the tensor bookkeeping and the table; each operator family's Prepare is in
 * kernels_conv.c, kernels_rnn.c, kernels_reduce.c, kernels_alloc.c, kernels_custom.c or
 * kernels_fft.c, with its rule in the comment above its function.
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
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "kernels_priv.h"

#define KT_FILE_BYTES 8		/* model file bytes per tensor the kernels may add */
#define KT_SLACK 65536		/* tensors any model's kernels may add */

/* ---- tensors ---- */

/* The bytes of a tensor the kernel sizes: 0 when dynamic; -1 with the error set when
 * beyond AP_PLAN_MAX_BYTES. */
int kt_bytes_of(struct kctx *k, const char *what, uint8_t type, const int32_t *dims,
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

#define NAME_MAX_LEN 127	/* longer names are cut there */

/* Appends s to the name at *at, up to NAME_MAX_LEN. */
static void name_put(char *buf, size_t *at, const char *s, size_t len)
{
	if (len > NAME_MAX_LEN - *at)
		len = NAME_MAX_LEN - *at;
	memcpy(buf + *at, s, len);
	*at += len;
}

/* "<what node=N OP>", malloc'd; NULL when out of memory. Written by hand: snprintf was a
 * tenth of planning a graph of 100k FULLY_CONNECTEDs, each naming 12 tensors. */
static char *tensor_name(const struct kctx *k, const char *what)
{
	const char *op = k->g->ops[k->node].name ? k->g->ops[k->node].name : "?";
	char buf[NAME_MAX_LEN + 1], num[12];
	size_t at = 0, d = sizeof(num);

	for (uint32_t v = k->node; d == sizeof(num) || v; v /= 10)
		num[--d] = (char)('0' + v % 10);
	name_put(buf, &at, "<", 1);
	name_put(buf, &at, what, strlen(what));
	name_put(buf, &at, " node=", 6);
	name_put(buf, &at, num + d, sizeof(num) - d);
	name_put(buf, &at, " ", 1);
	name_put(buf, &at, op, strlen(op));
	name_put(buf, &at, ">", 1);
	buf[at] = '\0';
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
int32_t kt_add_tensors(struct kctx *k, uint32_t n, const char *what)
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
int kt_set_tmp(struct kctx *k, uint32_t j, int32_t t, const char *what, uint8_t type,
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
	if (dims && kt_bytes_of(k, what, type, dims, rank, &g->t[t].bytes))
		return -1;
	g->t[t].alloc = alloc;
	k->tmp[j] = t;
	if (j >= k->n_tmp)
		k->n_tmp = j + 1;
	return 0;
}

int kt_set_tmps(struct kctx *k, uint32_t first, int32_t base, const struct kt_tmp *t,
		uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (kt_set_tmp(k, first + i, base + (int32_t)i, t[i].what, t[i].type, t[i].dims,
			       t[i].rank, t[i].alloc))
			return -1;
	return 0;
}

/* AddTensors(1) then set_tmp: the usual "if (id == kTensorNotAllocated) AddTensors". */
int kt_new_tmp(struct kctx *k, const char *what, uint8_t type, const int32_t *dims,
	       uint32_t rank, enum ap_alloc alloc)
{
	int32_t t = kt_add_tensors(k, 1, what);

	return t < 0 ? -1 : kt_set_tmp(k, k->n_tmp, t, what, type, dims, rank, alloc);
}

/* ---- the table ---- */

/*
 * init: tensors Init reserves with AddTensors, whatever the node's types:
 * unidirectional_sequence_lstm.cc 12; lstm.cc full kernel 12 + 9 ledgers (basic kernel
 * 0); bidirectional_sequence_lstm.cc 19; bidirectional_sequence_rnn.cc 9; basic_rnn.cc
 * (RNN), unidirectional_sequence_rnn.cc and svdf.cc 6; add_n.cc 1;
 * stablehlo_reduce_window.cc 2; detection_postprocess.cc 1 + 1. prepare: NULL when the
 * kernel's Prepare is not modelled.
 */
static const struct kernel {
	int32_t opcode;
	uint8_t init;
	int (*prepare)(struct kctx *k);
} kernels[] = {
	{ OP_CONV_2D, 0, kt_prep_conv },
	{ OP_DEPTHWISE_CONV_2D, 0, kt_prep_depthwise_conv },
	{ OP_CONV_3D, 0, kt_prep_conv3d },
	{ OP_CONV_3D_TRANSPOSE, 0, kt_prep_conv3d_transpose },
	{ OP_DEQUANTIZE, 0, kt_prep_dequantize },
	{ OP_DENSIFY, 0, kt_prep_densify },
	{ OP_VAR_HANDLE, 0, kt_prep_var_handle },
	{ OP_SHAPE, 0, kt_prep_fold },
	{ OP_RANK, 0, kt_prep_fold },
	{ OP_RESHAPE, 0, kt_prep_reshape },
	{ OP_STRIDED_SLICE, 0, kt_prep_fold },
	{ OP_TILE, 0, kt_prep_fold },
	{ OP_GATHER, 0, kt_prep_fold },
	{ OP_MUL, 0, kt_prep_fold },
	{ OP_CONCATENATION, 0, kt_prep_fold },
	{ OP_RANGE, 0, kt_prep_fold },
	{ OP_BROADCAST_ARGS, 0, kt_prep_fold },
	{ OP_TRANSPOSE, 0, kt_prep_dyn },
	{ OP_PAD, 0, kt_prep_dyn },
	{ OP_RESIZE_BILINEAR, 0, kt_prep_dyn },
	{ OP_BROADCAST_TO, 0, kt_prep_dyn },
	{ OP_SPLIT, 0, kt_prep_dyn },
	{ OP_FILL, 0, kt_prep_dyn },
	{ OP_PADV2, 0, kt_prep_dyn },
	{ OP_RESIZE_NEAREST_NEIGHBOR, 0, kt_prep_dyn },
	{ OP_SPLIT_V, 0, kt_prep_dyn },
	{ OP_SLICE, 0, kt_prep_dyn },
	{ OP_SPACE_TO_BATCH_ND, 0, kt_prep_dyn },
	{ OP_BATCH_TO_SPACE_ND, 0, kt_prep_dyn },
	{ OP_MIRROR_PAD, 0, kt_prep_dyn },
	{ OP_TOPK_V2, 0, kt_prep_dyn },
	{ OP_ARG_MAX, 0, kt_prep_dyn },
	{ OP_ARG_MIN, 0, kt_prep_dyn },
	{ OP_ONE_HOT, 0, kt_prep_dyn },
	{ OP_EXPAND_DIMS, 0, kt_prep_dyn },
	{ OP_SPARSE_TO_DENSE, 0, kt_prep_dyn },
	{ OP_WHERE, 0, kt_prep_dyn },
	{ OP_SCATTER_ND, 0, kt_prep_dyn },
	{ OP_NON_MAX_SUPPRESSION_V4, 0, kt_prep_dyn },
	{ OP_NON_MAX_SUPPRESSION_V5, 0, kt_prep_dyn },
	{ OP_SEGMENT_SUM, 0, kt_prep_dyn },
	{ OP_UNSORTED_SEGMENT_PROD, 0, kt_prep_dyn },
	{ OP_UNSORTED_SEGMENT_MAX, 0, kt_prep_dyn },
	{ OP_UNSORTED_SEGMENT_SUM, 0, kt_prep_dyn },
	{ OP_UNSORTED_SEGMENT_MIN, 0, kt_prep_dyn },
	{ OP_RANDOM_STANDARD_NORMAL, 0, kt_prep_dyn },
	{ OP_RANDOM_UNIFORM, 0, kt_prep_dyn },
	{ OP_MULTINOMIAL, 0, kt_prep_dyn },
	{ OP_DILATE, 0, kt_prep_dyn },
	{ OP_UNIQUE, 0, kt_prep_dyn },
	{ OP_EMBEDDING_LOOKUP_SPARSE, 0, kt_prep_dyn },
	{ OP_READ_VARIABLE, 0, kt_prep_dyn },
	{ OP_FULLY_CONNECTED, 0, kt_prep_fully_connected },
	{ OP_UNIDIRECTIONAL_SEQUENCE_LSTM, 12, kt_prep_unidirectional_sequence_lstm },
	{ OP_BATCH_MATMUL, 0, kt_prep_batch_matmul },
	{ OP_TRANSPOSE_CONV, 0, kt_prep_transpose_conv },
	{ OP_MEAN, 0, kt_prep_reduce },
	{ OP_SUM, 0, kt_prep_reduce },
	{ OP_REDUCE_PROD, 0, kt_prep_reduce },
	{ OP_REDUCE_MAX, 0, kt_prep_reduce },
	{ OP_REDUCE_MIN, 0, kt_prep_reduce },
	{ OP_REDUCE_ANY, 0, kt_prep_reduce },
	{ OP_REDUCE_ALL, 0, kt_prep_reduce },
	{ OP_LSTM, 12 + 9, kt_prep_lstm },
	{ OP_BIDIRECTIONAL_SEQUENCE_LSTM, 19, kt_prep_bidirectional_sequence_lstm },
	{ OP_BIDIRECTIONAL_SEQUENCE_RNN, 9, kt_prep_bidirectional_sequence_rnn },
	{ OP_RNN, 6, kt_prep_rnn },
	{ OP_UNIDIRECTIONAL_SEQUENCE_RNN, 6, kt_prep_rnn },
	{ OP_SVDF, 6, kt_prep_svdf },
	{ OP_ADD_N, 1, kt_prep_add_n },
	{ OP_RFFT2D, 0, kt_prep_rfft2d },
	{ OP_STABLEHLO_REDUCE_WINDOW, 2, kt_prep_stablehlo_reduce_window },
	{ OP_WHILE, 0, kt_prep_while },
};

/* Custom operators, by name (LiteRT's default resolver registers them with AddCustom). */
static const struct custom {
	const char *name;
	struct kernel k;
} customs[] = {
	{ "TFLite_Detection_PostProcess", { OP_CUSTOM, 2, kt_prep_detection_postprocess } },
	{ "NumericVerify", { OP_CUSTOM, 0, kt_prep_numeric_verify } },
};

static const struct kernel *find_kernel(const struct ap_op *op)
{
	for (size_t i = 0; op->opcode == OP_CUSTOM && i < sizeof(customs) / sizeof(customs[0]);
	     i++)
		if (op->name && !strcmp(op->name, customs[i].name))
			return &customs[i].k;
	for (size_t i = 0; i < sizeof(kernels) / sizeof(kernels[0]); i++)
		if (kernels[i].opcode == op->opcode)
			return &kernels[i];
	return NULL;
}

/* Tensors a kernel reserves once, which LiteRT's does at its first Prepare and older
 * runtimes' (matmul_reduce_init) in Init: fully_connected.cc 6, batch_matmul.cc 7 (2 for
 * the transposes, 5 hybrid), reduce.cc 4. */
static uint32_t once_count(int32_t opcode)
{
	switch (opcode) {
	case OP_FULLY_CONNECTED: return 6;
	case OP_BATCH_MATMUL: return 7;
	case OP_MEAN: case OP_SUM: case OP_REDUCE_PROD: case OP_REDUCE_MAX: case OP_REDUCE_MIN:
	case OP_REDUCE_ANY: case OP_REDUCE_ALL: return 4;
	default: return 0;
	}
}

int32_t kt_reserve(struct kctx *k, uint32_t n)
{
	int32_t base = k->init_base[k->node];

	return base >= 0 ? base : kt_add_tensors(k, n, "kernel tensor");
}

static uint32_t init_count(const struct kctx *k, const struct kernel *kn)
{
	/* lstm.cc Init: only the full kernel (LSTMOptions.kernel_type FULL = 0) adds. */
	if (kn->opcode == OP_LSTM)
		return k->mo->options_type == OPT_LSTM && option(k, 3, 1, 0) == 0 ? kn->init : 0;
	return kn->init + (k->rt->matmul_reduce_init ? once_count(kn->opcode) : 0);
}

int ap_kernels_apply(struct ap_graph *g, const struct ap_kernel_opts *o, char *err)
{
	struct kctx k = { .g = g, .threads = o ? o->threads : 1, .err = err,
			  .rt = ap_runtime_get(o ? o->runtime : AP_RUNTIME_LITERT),
			  .generic_conv = ap_arch_resolve(o ? o->arch : AP_ARCH_HOST) ==
					  AP_ARCH_ARM64 };
	int rc;

	if (!g->model || g->subgraph >= g->model->n_subgraphs ||
	    g->model->subgraphs[g->subgraph].n_ops != g->n_ops ||
	    g->model->subgraphs[g->subgraph].n_tensors != g->n_tensors) {
		return ap_fail(err, -EINVAL, "kernel tensors: already added, or the graph does "
			       "not match its model");
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
			const struct kernel *kn = find_kernel(&g->ops[k.node]);

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
		const struct kernel *kn = find_kernel(&g->ops[k.node]);
		uint32_t n;

		k.mo = &k.sg->ops[k.node];
		k.init_base[k.node] = -1;
		n = kn ? init_count(&k, kn) : 0;
		if (n && (k.init_base[k.node] = kt_add_tensors(&k, n, "kernel tensor")) < 0)
			goto oom;
	}
	/* AllocateTensors: every node's Prepare, in execution order. */
	for (k.node = 0; k.node < g->n_ops; k.node++) {
		const struct kernel *kn = find_kernel(&g->ops[k.node]);
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
oom:	/* the helpers' -1: k.failed when they said why (bad input), else memory */
	rc = k.failed ? -EINVAL : ap_fail(err, -ENOMEM, "out of memory adding kernel tensors");
out:
	free(k.init_base);
	free(k.read);
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
