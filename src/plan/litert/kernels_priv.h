/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels_priv: what kernels.c shares with the files that model one operator family each
 * (kernels_conv.c, kernels_rnn.c, kernels_reduce.c, kernels_alloc.c, kernels_custom.c):
 * the context of the node being prepared, the tensor helpers, and each family's Prepare
 * functions.
 */
#ifndef ARENAPROF_KERNELS_PRIV_H
#define ARENAPROF_KERNELS_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/kernels.h"
#include "arenaprof/plan/runtime.h"


/* BuiltinOptions union types (schema.fbs). */
enum {
	OPT_CONV_2D = 1,
	OPT_SVDF = 6,
	OPT_SEQUENCE_RNN = 31,
	OPT_BIDIRECTIONAL_SEQUENCE_LSTM = 69,
	OPT_BIDIRECTIONAL_SEQUENCE_RNN = 70,
	OPT_CONV_3D = 106,
	OPT_LSTM = 14,
	OPT_TRANSPOSE_CONV = 49,
	OPT_UNIDIRECTIONAL_SEQUENCE_LSTM = 71,
	OPT_BATCH_MATMUL = 101,
	OPT_STRIDED_SLICE = 32,
};

#define MAX_TMP 24		/* the most: hybrid BIDIRECTIONAL_SEQUENCE_LSTM, 19 */

struct kctx {
	struct ap_graph *g;
	const struct ap_model_subgraph *sg;
	int threads;
	bool generic_conv;		/* CONV_2D is kGenericOptimized (aarch64 builds) */
	const struct ap_runtime *rt;	/* whose kernels: the rules that differ */
	uint32_t node;			/* the node being prepared */
	const struct ap_model_op *mo;
	int32_t *init_base;		/* per node: first tensor its Init reserved, or -1 */
	int32_t tmp[MAX_TMP];		/* node->temporaries being built */
	uint32_t n_tmp;
	char *err;			/* set (and failed true) by a failure that is not OOM:
					 * the helpers' -1 is -EINVAL then, else -ENOMEM
					 * (ap_kernels_apply) */
	bool failed;
	uint64_t max_added;		/* tensors the kernels may add (KT_FILE_BYTES) */
	uint32_t t_cap, names_cap;	/* room in g->t and g->owned_names */
	bool *read;			/* per model tensor: a node input or graph output
					 * (GetInputTensorsCount > 0); made on first use */
};

/* ---- tensors ---- */

/* The model tensor t (shape, type), or NULL for -1 and tensors the kernels added. */
static inline const struct ap_model_tensor *mt(const struct kctx *k, int32_t t)
{
	return t >= 0 && (uint32_t)t < k->sg->n_tensors ? &k->sg->tensors[t] : NULL;
}

/* Input j of the node being prepared: the model tensor, or NULL when absent (-1). */
static inline const struct ap_model_tensor *input(const struct kctx *k, uint32_t j)
{
	return j < k->mo->n_inputs ? mt(k, k->mo->inputs[j]) : NULL;
}

static inline int32_t in_index(const struct kctx *k, uint32_t j)
{
	return j < k->mo->n_inputs ? k->mo->inputs[j] : -1;
}

/* Type and allocation as the kernels see them now: earlier Prepares may have changed
 * them (DEQUANTIZE), so they come from the graph, not the model. */
static inline uint8_t ttype(const struct kctx *k, int32_t t)
{
	return k->g->t[t].type;
}

/* IsConstantOrPersistentTensor: in the file (kTfLiteMmapRo) or computed at Prepare
 * (kTfLitePersistentRo); a kTfLiteArenaRwPersistent tensor is neither. */
static inline bool const_or_ro(const struct kctx *k, int32_t t)
{
	return t >= 0 && (uint32_t)t < k->g->n_tensors &&
	       (k->g->t[t].alloc == AP_ALLOC_WEIGHTS || k->g->t[t].alloc == AP_ALLOC_RO);
}

static inline int32_t dim(const struct ap_model_tensor *t, uint32_t d)
{
	return d < t->rank ? t->shape[d] : 0;
}

/* a * b for shape arithmetic: -1 when negative or beyond int32 (LiteRT's checked
 * products fail Prepare there; nothing is added then). */
static inline int32_t mul(int64_t a, int64_t b)
{
	if (a < 0 || b < 0 || (b && a > INT32_MAX / b))
		return -1;
	return (int32_t)(a * b);
}

/* Elements of t (negative dimensions count as 0), -1 beyond int32. */
static inline int32_t numel(const struct ap_model_tensor *t)
{
	int32_t n = 1;

	for (uint32_t d = 0; d < t->rank && n >= 0; d++)
		n = mul(n, t->shape[d] < 0 ? 0 : t->shape[d]);
	return n;
}

static inline int64_t option(const struct kctx *k, unsigned field, unsigned size, int64_t def)
{
	return ap_model_op_option(k->g->model, k->mo, field, size, def);
}

static inline bool is_quantized_8_16(uint8_t type)
{
	return type == AP_TT_UINT8 || type == AP_TT_INT8 || type == AP_TT_INT16;
}

/* The bytes of a tensor the kernel sizes: 0 when dynamic; -1 with the error set
 * beyond AP_PLAN_MAX_BYTES. */
int kt_bytes_of(struct kctx *k, const char *what, uint8_t type, const int32_t *dims,
		uint32_t rank, uint64_t *bytes);
/* Appends n tensors of 0 bytes named "<what node=N OP>": context->AddTensors. Returns the
 * index of the first, -1 when out of memory or beyond the limit. */
int32_t kt_add_tensors(struct kctx *k, uint32_t n, const char *what);
/* The n tensors a kernel reserves once (kernels.c once_count): the ones its Init reserved
 * where the runtime's kernel does so, else kt_add_tensors now, at its first Prepare. */
int32_t kt_reserve(struct kctx *k, uint32_t n);
/* Makes tensor t (one the kernels added) temporary j of the node, sized by dims (NULL:
 * never sized, 0 bytes) with the given type and allocation. -1 when out of memory. */
int kt_set_tmp(struct kctx *k, uint32_t j, int32_t t, const char *what, uint8_t type,
	       const int32_t *dims, uint32_t rank, enum ap_alloc alloc);
/* One temporary of a list for kt_set_tmps; dims NULL leaves it unsized. */
struct kt_tmp {
	const char *what;
	uint8_t type;
	const int32_t *dims;
	uint32_t rank;
	enum ap_alloc alloc;
};

/* kt_set_tmp for n temporaries: t[i] is temporary first + i, tensor base + i. */
int kt_set_tmps(struct kctx *k, uint32_t first, int32_t base, const struct kt_tmp *t,
		uint32_t n);
/* kt_add_tensors(1) then kt_set_tmp as the next temporary. */
int kt_new_tmp(struct kctx *k, const char *what, uint8_t type, const int32_t *dims,
	       uint32_t rank, enum ap_alloc alloc);

/* Prepare of each modelled kernel: 0, or -1 (out of memory, or k->failed with k->err). */
int kt_prep_conv(struct kctx *k);
int kt_prep_depthwise_conv(struct kctx *k);
int kt_prep_conv3d(struct kctx *k);
int kt_prep_conv3d_transpose(struct kctx *k);
int kt_prep_transpose_conv(struct kctx *k);
int kt_prep_fully_connected(struct kctx *k);
int kt_prep_batch_matmul(struct kctx *k);
int kt_prep_unidirectional_sequence_lstm(struct kctx *k);
int kt_prep_lstm(struct kctx *k);
int kt_prep_svdf(struct kctx *k);
int kt_prep_rnn(struct kctx *k);
int kt_prep_bidirectional_sequence_rnn(struct kctx *k);
int kt_prep_bidirectional_sequence_lstm(struct kctx *k);
int kt_prep_reduce(struct kctx *k);
int kt_prep_add_n(struct kctx *k);
int kt_prep_dequantize(struct kctx *k);
int kt_prep_densify(struct kctx *k);
int kt_prep_fold(struct kctx *k);
int kt_prep_reshape(struct kctx *k);
int kt_prep_dyn(struct kctx *k);
/* Makes the node's outputs dyn as its Prepare does with a computed shape input; true when
 * it did (kernels_alloc.c). */
bool kt_make_dyn(struct kctx *k);
int kt_prep_var_handle(struct kctx *k);
int kt_prep_detection_postprocess(struct kctx *k);
int kt_prep_numeric_verify(struct kctx *k);
int kt_prep_rfft2d(struct kctx *k);
int kt_prep_stablehlo_reduce_window(struct kctx *k);
int kt_prep_while(struct kctx *k);

#endif
