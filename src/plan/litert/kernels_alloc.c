// SPDX-License-Identifier: Apache-2.0
/*
 * kernels_alloc: kernels that move outputs out of the normal arena: into the persistent
 * arena (DEQUANTIZE of a constant, DENSIFY, VAR_HANDLE) or the heap (constant folding, and
 * the dyn outputs of computed shape inputs).
 */
#include "kernels_priv.h"

/*
 * The output of a node with one input and one output, both model tensors, when the output
 * is still planned in an arena (not already heap or read-only); -1 otherwise.
 */
static int32_t unary_out(const struct kctx *k)
{
	int32_t o;

	if (!input(k, 0) || k->mo->n_inputs != 1 || k->mo->n_outputs != 1 ||
	    !mt(k, k->mo->outputs[0]))
		return -1;
	o = k->mo->outputs[0];
	return k->g->t[o].alloc == AP_ALLOC_ARENA || k->g->t[o].alloc == AP_ALLOC_PERSISTENT ?
	       o : -1;
}

/*
 * DEQUANTIZE: dequantize.cc, Prepare. The output becomes float32 with the input's shape;
 * when the input is constant (kTfLiteMmapRo) the output is kTfLiteArenaRwPersistent
 * (dequantized once, kept for the whole run).
 */
int kt_prep_dequantize(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0);
	int32_t ii = in_index(k, 0), o = unary_out(k);
	uint8_t it = in ? ttype(k, ii) : 0;

	if (o < 0 || (it != AP_TT_INT2 && it != AP_TT_INT4 && it != AP_TT_UINT4 &&
		      it != AP_TT_UINT8 && it != AP_TT_INT8 && it != AP_TT_INT16 &&
		      it != AP_TT_FLOAT16))
		return 0;
	k->g->t[o].type = AP_TT_FLOAT32;
	if (kt_bytes_of(k, "float32 output", AP_TT_FLOAT32, in->shape, in->rank, &k->g->t[o].bytes))
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
int kt_prep_densify(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0);
	int32_t ii = in_index(k, 0), o = unary_out(k);
	uint8_t it;

	if (o < 0)
		return 0;
	it = ttype(k, ii);
	if (it == AP_TT_STRING || k->g->t[ii].alloc != AP_ALLOC_WEIGHTS || !in->sparse)
		return 0;
	k->g->t[o].type = it;
	k->g->t[o].alloc = AP_ALLOC_PERSISTENT;
	return kt_bytes_of(k, "dense output", it, in->shape, in->rank, &k->g->t[o].bytes);
}

/*
 * Constant folding at Prepare: the output becomes kTfLitePersistentRo (heap, computed
 * once, in no arena) when every input in the mask is const or ro; 0xff means every input,
 * an absent optional input counts as const. SHAPE and RANK (shape.cc, rank.cc) always;
 * RESHAPE of a non-string (reshape.cc; its shape input too when given), STRIDED_SLICE
 * (input, begin, end, strides), TILE, GATHER, MUL, CONCATENATION, RANGE and
 * BROADCAST_ARGS (their Prepare's IsConstantOrPersistentTensor tests). Folded outputs
 * feed the same test downstream, so SHAPE -> STRIDED_SLICE chains fold whole. TILE,
 * STRIDED_SLICE and RANGE of computed shapes make their output kTfLiteDynamic instead
 * (kt_make_dyn below), which splits the plan (planner.c).
 */
static const struct fold {
	int32_t opcode;
	uint8_t mask;
} folds[] = {
	{ OP_SHAPE, 0 }, { OP_RANK, 0 }, { OP_RESHAPE, 0x03 }, { OP_STRIDED_SLICE, 0x0f },
	{ OP_TILE, 0x03 }, { OP_GATHER, 0x03 }, { OP_MUL, 0x03 }, { OP_CONCATENATION, 0xff },
	{ OP_RANGE, 0x07 }, { OP_BROADCAST_ARGS, 0x03 },
};

int kt_prep_fold(struct kctx *k)
{
	int32_t opc = k->g->ops[k->node].opcode, o;
	uint8_t mask = 0;

	for (size_t i = 0; i < sizeof(folds) / sizeof(folds[0]); i++)
		if (folds[i].opcode == opc)
			mask = folds[i].mask;
	if (k->mo->n_outputs != 1 || !mt(k, k->mo->outputs[0]))
		return 0;
	o = k->mo->outputs[0];
	/* TILE, STRIDED_SLICE and RANGE test for a computed shape before they fold */
	if (kt_make_dyn(k))
		return 0;
	for (uint32_t j = 0; j < k->mo->n_inputs; j++)
		if ((mask == 0xff || (j < 8 && (mask >> j & 1))) && in_index(k, j) >= 0 &&
		    !const_or_ro(k, in_index(k, j)))
			return 0;
	if (opc == OP_RESHAPE && ttype(k, o) == AP_TT_STRING)
		return 0;
	if (k->g->t[o].alloc == AP_ALLOC_ARENA)
		k->g->t[o].alloc = AP_ALLOC_RO;
	return 0;
}

/*
 * RESHAPE: reshape.cc, Prepare. A computed shape input (neither const nor ro) leaves the
 * output's shape to Eval: Prepare returns kTfLiteOutputShapeNotKnown, which ends LiteRT's
 * step after this node (planner.c), and gives an arena output its input's byte count so
 * that it may share the input's buffer (lifetimes.c decides, and marks the output dyn in
 * Eval when it does not). A string output is sized in Eval only. Else: the fold above.
 * Runtimes with reshape_computed_dynamic make that output dynamic at Prepare instead.
 */
int kt_prep_reshape(struct kctx *k)
{
	int32_t o, ii = in_index(k, 0), si = in_index(k, 1);

	if (si < 0 || const_or_ro(k, si))
		return kt_prep_fold(k);
	if (ii < 0 || k->mo->n_outputs != 1 || !mt(k, k->mo->outputs[0]))
		return 0;
	o = k->mo->outputs[0];
	if (ttype(k, o) == AP_TT_STRING)
		return 0;
	if (k->rt->reshape_computed_dynamic) {
		if (k->g->t[o].alloc == AP_ALLOC_ARENA)
			k->g->t[o].alloc = AP_ALLOC_DYNAMIC;
		return 0;
	}
	k->g->ops[k->node].shape_not_known = true;
	if (k->g->t[o].alloc == AP_ALLOC_ARENA)
		k->g->t[o].bytes = k->g->t[ii].bytes;
	return 0;
}

/*
 * Outputs whose shape a computed input gives (docs/litert-kernels.md, "Outputs that become
 * dyn"): when an input in the mask is not const or ro (IsConstantOrPersistentTensor), Prepare
 * makes the outputs in outs kTfLiteDynamic (heap, sized in Eval), which splits the plan
 * (planner.c). how says what else decides, from each kernel's Prepare.
 */
enum dyn_how {
	DYN_MASK,	/* a computed input in the mask */
	DYN_ALWAYS,	/* whatever the inputs: unique.cc, embedding_lookup_sparse.cc */
	DYN_FILE,	/* IsConstantTensor only: a ro input counts as computed (dilate.cc) */
	DYN_SCALAR,	/* pad.cc: a rank-0 input too */
	DYN_UNKNOWN,	/* topk_v2.cc: input 0 with an unknown dimension too */
	DYN_SLICE,	/* slice.cc: never when the model gives a static output shape */
	DYN_OFFSET,	/* strided_slice.cc: begin and end do not count with the offset option */
	DYN_DATA_DYN,	/* unsorted_segment.cc: a dyn data input too */
	DYN_OUT_SCALAR,	/* read_variable.cc: only an output of rank 0 (scalar or unranked) */
};

static const struct dyn_rule {
	int32_t opcode;
	uint8_t mask;	/* inputs: bit j = input j */
	uint8_t outs;	/* outputs made dyn: bit j = output j */
	enum dyn_how how;
} dyn_rules[] = {
	{ OP_TRANSPOSE, 0x02, 0xff, DYN_MASK }, { OP_PAD, 0x02, 0xff, DYN_SCALAR },
	{ OP_PADV2, 0x02, 0xff, DYN_SCALAR }, { OP_RESIZE_BILINEAR, 0x02, 0xff, DYN_MASK },
	{ OP_RESIZE_NEAREST_NEIGHBOR, 0x02, 0xff, DYN_MASK },
	{ OP_BROADCAST_TO, 0x02, 0xff, DYN_MASK }, { OP_SPLIT, 0x01, 0xff, DYN_MASK },
	{ OP_SPLIT_V, 0x06, 0xff, DYN_MASK }, { OP_FILL, 0x01, 0xff, DYN_MASK },
	{ OP_TILE, 0x02, 0xff, DYN_MASK }, { OP_RANGE, 0x07, 0xff, DYN_MASK },
	{ OP_STRIDED_SLICE, 0x0e, 0xff, DYN_OFFSET }, { OP_SLICE, 0x06, 0xff, DYN_SLICE },
	{ OP_SPACE_TO_BATCH_ND, 0x06, 0xff, DYN_MASK },
	{ OP_BATCH_TO_SPACE_ND, 0x06, 0xff, DYN_MASK }, { OP_MIRROR_PAD, 0x02, 0xff, DYN_MASK },
	{ OP_TOPK_V2, 0x02, 0xff, DYN_UNKNOWN }, { OP_ARG_MAX, 0x02, 0xff, DYN_MASK },
	{ OP_ARG_MIN, 0x02, 0xff, DYN_MASK }, { OP_ONE_HOT, 0x02, 0xff, DYN_MASK },
	{ OP_EXPAND_DIMS, 0x02, 0xff, DYN_MASK }, { OP_SPARSE_TO_DENSE, 0x02, 0xff, DYN_MASK },
	{ OP_WHERE, 0x01, 0xff, DYN_MASK }, { OP_SCATTER_ND, 0x04, 0xff, DYN_MASK },
	/* selected indices, and V5's selected scores; the count stays sized */
	{ OP_NON_MAX_SUPPRESSION_V4, 0x04, 0x01, DYN_MASK },
	{ OP_NON_MAX_SUPPRESSION_V5, 0x04, 0x03, DYN_MASK },
	{ OP_SEGMENT_SUM, 0x03, 0xff, DYN_MASK },
	{ OP_UNSORTED_SEGMENT_PROD, 0x06, 0xff, DYN_DATA_DYN },
	{ OP_UNSORTED_SEGMENT_MAX, 0x06, 0xff, DYN_DATA_DYN },
	{ OP_UNSORTED_SEGMENT_SUM, 0x06, 0xff, DYN_DATA_DYN },
	{ OP_UNSORTED_SEGMENT_MIN, 0x06, 0xff, DYN_DATA_DYN },
	{ OP_RANDOM_STANDARD_NORMAL, 0x01, 0xff, DYN_MASK },
	{ OP_RANDOM_UNIFORM, 0x01, 0xff, DYN_MASK }, { OP_MULTINOMIAL, 0x03, 0xff, DYN_MASK },
	{ OP_DILATE, 0x02, 0xff, DYN_FILE },
	/* the unique values; the index output is sized */
	{ OP_UNIQUE, 0, 0x01, DYN_ALWAYS }, { OP_EMBEDDING_LOOKUP_SPARSE, 0, 0xff, DYN_ALWAYS },
	{ OP_READ_VARIABLE, 0, 0xff, DYN_OUT_SCALAR },
};

/* Input j is present and computed: not const or ro (file_only: not in the file). */
static bool computed(const struct kctx *k, uint32_t j, bool file_only)
{
	int32_t t = in_index(k, j);

	if (t < 0 || (uint32_t)t >= k->g->n_tensors)
		return false;
	return file_only ? k->g->t[t].alloc != AP_ALLOC_WEIGHTS : !const_or_ro(k, t);
}

/* What the rule's special case decides before its mask: 1 dyn, 0 static, -1 the mask
 * decides (*mask: the inputs it looks at). */
static int dyn_special(const struct kctx *k, const struct dyn_rule *r, uint8_t *mask)
{
	const struct ap_model_tensor *in0 = input(k, 0), *out;
	int32_t d = in_index(k, 0);

	switch (r->how) {
	case DYN_ALWAYS:
		return 1;
	case DYN_SCALAR:
		return in0 && in0->rank == 0 ? 1 : -1;
	case DYN_UNKNOWN:
		return ap_model_tensor_open(in0) ? 1 : -1;
	case DYN_SLICE:
		/* a fully specified output of some rank is kept as the model gives it */
		out = k->mo->n_outputs ? mt(k, k->mo->outputs[0]) : NULL;
		if (out && out->rank > 0 && !ap_model_tensor_open(out))
			return 0;
		return ap_model_tensor_open(in0) ? 1 : -1;
	case DYN_OFFSET:
		/* StridedSliceOptions.offset: end is a size, only the strides must be known */
		if (k->mo->options_type == OPT_STRIDED_SLICE && option(k, 5, 1, 0))
			*mask = 0x08;
		return -1;
	case DYN_DATA_DYN:
		return d >= 0 && (uint32_t)d < k->g->n_tensors &&
		       k->g->t[d].alloc == AP_ALLOC_DYNAMIC ? 1 : -1;
	case DYN_OUT_SCALAR:
		out = k->mo->n_outputs ? mt(k, k->mo->outputs[0]) : NULL;
		return out && out->rank == 0;
	default:
		return -1;
	}
}

/* The rule's inputs make the outputs dyn, as the kernel's Prepare tests them. */
static bool dyn_test(const struct kctx *k, const struct dyn_rule *r)
{
	uint8_t mask = r->mask;
	int special = dyn_special(k, r, &mask);

	if (special >= 0)
		return special;
	for (uint32_t j = 0; j < k->mo->n_inputs && j < 8; j++)
		if ((mask >> j & 1) && computed(k, j, r->how == DYN_FILE))
			return true;
	return false;
}

bool kt_make_dyn(struct kctx *k)
{
	int32_t opc = k->g->ops[k->node].opcode;
	const struct dyn_rule *r = NULL;

	for (size_t i = 0; i < sizeof(dyn_rules) / sizeof(dyn_rules[0]); i++)
		if (dyn_rules[i].opcode == opc)
			r = &dyn_rules[i];
	if (!r || !dyn_test(k, r))
		return false;
	for (uint32_t j = 0; j < k->mo->n_outputs; j++) {
		int32_t o = k->mo->outputs[j];

		if ((j >= 8 || (r->outs >> j & 1)) && mt(k, o) &&
		    k->g->t[o].alloc == AP_ALLOC_ARENA)
			k->g->t[o].alloc = AP_ALLOC_DYNAMIC;
	}
	return true;
}

int kt_prep_dyn(struct kctx *k)
{
	kt_make_dyn(k);
	return 0;
}

/*
 * VAR_HANDLE: var_handle.cc, Prepare. The resource output becomes kTfLiteArenaRwPersistent
 * with 4 bytes (the resource id): one aligned slot of the persistent arena per node. The
 * variable's own storage is a heap tensor inside the resource, in no arena.
 */
int kt_prep_var_handle(struct kctx *k)
{
	int32_t o;

	if (k->mo->n_outputs != 1 || !mt(k, k->mo->outputs[0]))
		return 0;
	o = k->mo->outputs[0];
	k->g->t[o].alloc = AP_ALLOC_PERSISTENT;
	k->g->t[o].bytes = 4;
	return 0;
}
