// SPDX-License-Identifier: Apache-2.0
/*
 * kernels_alloc: kernels that move outputs out of the normal arena: into the persistent
 * arena (DEQUANTIZE of a constant, DENSIFY, VAR_HANDLE) or the heap (constant folding).
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
 * feed the same test downstream, so SHAPE -> STRIDED_SLICE chains fold whole. TILE of
 * computed multiples makes its output kTfLiteDynamic instead, which splits the plan
 * (planner.c).
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
	/* tile.cc Prepare: computed multiples leave the output's shape to Eval */
	if (opc == OP_TILE && in_index(k, 1) >= 0 && !const_or_ro(k, in_index(k, 1)) &&
	    k->g->t[o].alloc == AP_ALLOC_ARENA) {
		k->g->t[o].alloc = AP_ALLOC_DYNAMIC;
		return 0;
	}
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
	k->g->ops[k->node].shape_not_known = true;
	if (k->g->t[o].alloc == AP_ALLOC_ARENA)
		k->g->t[o].bytes = k->g->t[ii].bytes;
	return 0;
}

/*
 * Outputs whose shape a computed input gives (docs/litert-kernels.md, "Outputs that become
 * dyn"): when an input in the mask is not const or ro, Prepare makes every output
 * kTfLiteDynamic (heap, sized in Eval), which splits the plan (planner.c). The operators
 * checked against LiteRT on gen_dynamic_shapes; the others stay in the arena, named.
 */
static const struct dyn_rule {
	int32_t opcode;
	uint8_t mask;
} dyn_rules[] = {
	{ OP_TRANSPOSE, 0x02 }, { OP_PAD, 0x02 }, { OP_RESIZE_BILINEAR, 0x02 },
	{ OP_BROADCAST_TO, 0x02 }, { OP_SPLIT, 0x01 }, { OP_FILL, 0x01 },
};

int kt_prep_dyn(struct kctx *k)
{
	int32_t opc = k->g->ops[k->node].opcode;
	uint8_t mask = 0;
	bool computed = false;

	for (size_t i = 0; i < sizeof(dyn_rules) / sizeof(dyn_rules[0]); i++)
		if (dyn_rules[i].opcode == opc)
			mask = dyn_rules[i].mask;
	for (uint32_t j = 0; j < k->mo->n_inputs && j < 8; j++)
		if ((mask >> j & 1) && in_index(k, j) >= 0 && !const_or_ro(k, in_index(k, j)))
			computed = true;
	for (uint32_t j = 0; computed && j < k->mo->n_outputs; j++) {
		int32_t o = k->mo->outputs[j];

		if (mt(k, o) && k->g->t[o].alloc == AP_ALLOC_ARENA)
			k->g->t[o].alloc = AP_ALLOC_DYNAMIC;
	}
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
