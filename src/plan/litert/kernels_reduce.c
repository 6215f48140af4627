// SPDX-License-Identifier: Apache-2.0
/*
 * kernels_reduce: the reductions' temporaries and REDUCE_PROD's fold (reduce.cc), ADD_N's
 * scratch (add_n.cc), and STABLEHLO_REDUCE_WINDOW's dilated and padded copies
 * (stablehlo_reduce_window.cc).
 */
#include "kernels_priv.h"

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
 * A reduction over a computed axis: the output and resolved_axis dynamic and unsized,
 * temp_accum too for MEAN, SUM and PROD (else typed only, as with a const axis); temp_index
 * and normalized_dims as with a const axis.
 */
static int reduce_dyn(struct kctx *k, int32_t base, uint8_t acc, bool sum_like, bool in_const)
{
	int32_t rank[1] = { (int32_t)input(k, 0)->rank }, o = k->mo->outputs[0];

	if (k->g->t[o].alloc == AP_ALLOC_ARENA)
		k->g->t[o].alloc = AP_ALLOC_DYNAMIC;
	if (kt_set_tmp(k, 0, base, "temp_index", AP_TT_INT32, rank, 1, AP_ALLOC_ARENA) ||
	    kt_set_tmp(k, 1, base + 1, "resolved_axis", AP_TT_INT32, NULL, 1, AP_ALLOC_DYNAMIC) ||
	    kt_set_tmp(k, 2, base + 2, "temp_accum", acc, NULL, 1,
		       sum_like ? AP_ALLOC_DYNAMIC : AP_ALLOC_ARENA) ||
	    kt_set_tmp(k, 3, base + 3, "normalized_dims", AP_TT_INT32, in_const ? rank : NULL, 1,
		       in_const ? AP_ALLOC_ARENA : AP_ALLOC_DYNAMIC))
		return -1;
	return 0;
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
 * temp_index is planned and the other three are dynamic. With an axis that is not const
 * or ro, PrepareSimple makes the output and resolved_axis dynamic, unsized, and
 * PrepareMeanOrSum and PrepareProd temp_accum too (reduce_dyn).
 */
int kt_prep_reduce(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *axis = input(k, 1), *out;
	int32_t opc = k->g->ops[k->node].opcode, base, rank[1], na[1], no[1];
	bool sum_like = opc == OP_MEAN || opc == OP_SUM || opc == OP_REDUCE_PROD;
	bool in_const;
	uint8_t acc;

	if (!in || !axis)
		return 0;
	base = kt_reserve(k, 4);
	if (base < 0)
		return -1;
	out = k->mo->n_outputs == 1 ? mt(k, k->mo->outputs[0]) : NULL;
	if (k->mo->n_inputs != 2 || !out || ttype(k, in_index(k, 1)) != AP_TT_INT32)
		return 0;
	acc = reduce_accum_type(ttype(k, in_index(k, 0)));
	if (acc == 0xff || ((opc == OP_REDUCE_ANY || opc == OP_REDUCE_ALL) && acc != AP_TT_BOOL))
		return 0;
	in_const = const_or_ro(k, in_index(k, 0));
	rank[0] = (int32_t)in->rank;
	if (!const_or_ro(k, in_index(k, 1)))
		return reduce_dyn(k, base, acc, sum_like, in_const);
	na[0] = numel(axis);
	no[0] = numel(out);
	if (na[0] < 0 || no[0] < 0)
		return 0;
	if (opc == OP_REDUCE_PROD && in_const && no[0] <= 8) {
		/* folded at Prepare (kMaxConstantOutputTensorSize): the output is ro; only
		 * temp_index is planned, the other three are left dynamic */
		if (k->g->t[k->mo->outputs[0]].alloc == AP_ALLOC_ARENA)
			k->g->t[k->mo->outputs[0]].alloc = AP_ALLOC_RO;
		return kt_set_tmp(k, 0, base, "temp_index", AP_TT_INT32, rank, 1, AP_ALLOC_ARENA) ||
		       kt_set_tmp(k, 1, base + 1, "resolved_axis", AP_TT_INT32, NULL, 1,
				  AP_ALLOC_DYNAMIC) ||
		       kt_set_tmp(k, 2, base + 2, "temp_prod", acc, NULL, 1, AP_ALLOC_DYNAMIC) ||
		       kt_set_tmp(k, 3, base + 3, "normalized_dims", AP_TT_INT32, NULL, 1,
				  AP_ALLOC_DYNAMIC) ? -1 : 0;
	}
	if (kt_set_tmp(k, 0, base, "temp_index", AP_TT_INT32, rank, 1, AP_ALLOC_ARENA) ||
	    kt_set_tmp(k, 1, base + 1, "resolved_axis", AP_TT_INT32, na, 1, AP_ALLOC_ARENA) ||
	    kt_set_tmp(k, 2, base + 2, "temp_accum", acc, sum_like ? no : NULL, 1,
		       AP_ALLOC_ARENA) ||
	    kt_set_tmp(k, 3, base + 3, "normalized_dims", AP_TT_INT32, in_const ? rank : NULL, 1,
		       in_const ? AP_ALLOC_ARENA : AP_ALLOC_DYNAMIC))
		return -1;
	return 0;
}

/*
 * ADD_N: add_n.cc. Init reserves 1 tensor; Prepare makes it the scratch, of input 0's type
 * and min(max(1, inputs / 2), T) * elements(input 0) elements, kTfLiteArenaRw. T is the CPU
 * backend's thread limit: num_threads, 1 when it is the default (-1).
 */
int kt_prep_add_n(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0);
	int32_t base = k->init_base[k->node], n = (int32_t)k->mo->n_inputs / 2, e[1];
	int32_t threads = k->threads > 0 ? k->threads : 1;

	if (base < 0 || !in || k->mo->n_inputs < 2 || k->mo->n_outputs != 1)
		return 0;
	if (n < 1)
		n = 1;
	e[0] = mul(n < threads ? n : threads, numel(in));
	if (e[0] < 0)
		return 0;
	return kt_set_tmp(k, 0, base, "scratch", ttype(k, in_index(k, 0)), e, 1,
			  AP_ALLOC_ARENA);
}

enum { RW_MAX_RANK = 6 };	/* kMaxReduceWindowRank */

/* StablehloReduceWindowOptions vector f (AP_MODEL_OPT2_LONGS order) at d, or def when the
 * field is absent (ParseStablehloReduceWindow's fill value). */
static int64_t rw_attr(const struct kctx *k, unsigned int f, uint32_t d, int64_t def)
{
	const struct ap_model_longs *l = &k->mo->vecs->longs[f];	/* checked non-NULL */

	return l->v ? l->v[d] : def;
}

/* An int64 shape dimension as ResizeTensor's int32 gets it; -1 when negative or beyond. */
static int32_t rw_dim(int64_t v)
{
	return v < 0 || v > INT32_MAX ? -1 : (int32_t)v;
}

/*
 * STABLEHLO_REDUCE_WINDOW: stablehlo_reduce_window.cc, StablehloInit and
 * Prepare<StablehloData> (Check, Initialize, Setup). Init reserves 2 tensors; Prepare
 * makes them the temporaries dilated and padded, both the input's type and
 * kTfLiteArenaRw, whether or not Eval uses them: dilated [(d - 1) * base_dilation + 1],
 * padded [dilated + low + high padding]. The output is resized to the windows over
 * padded: [(padded - ((window - 1) * window_dilation + 1)) / stride + 1], 0 when the
 * window is larger. The options' rank must be the input's (LiteRT reads the rest of its
 * arrays uninitialised otherwise): coverage.c names that case.
 */
int kt_prep_stablehlo_reduce_window(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0);
	int32_t base = k->init_base[k->node], o, dil[RW_MAX_RANK], pad[RW_MAX_RANK];
	int32_t out[RW_MAX_RANK];
	uint8_t it;
	uint32_t rank;

	if (base < 0 || k->mo->n_inputs != 2 || k->mo->n_outputs != 1 || !in || !input(k, 1) ||
	    !mt(k, k->mo->outputs[0]) || !in->rank || in->rank > RW_MAX_RANK ||
	    !k->mo->vecs || k->mo->vecs->longs[0].n != in->rank)
		return 0;
	o = k->mo->outputs[0];
	it = ttype(k, in_index(k, 0));
	rank = in->rank;
	if (ttype(k, o) != it || ttype(k, in_index(k, 1)) != it)
		return 0;
	for (unsigned int f = 1; f < AP_MODEL_OPT2_LONGS; f++)
		if (k->mo->vecs->longs[f].v &&
		    k->mo->vecs->longs[f].n != (f == 4 ? 2 * rank : rank))
			return 0;
	for (uint32_t d = 0; d < rank; d++) {
		int64_t bd = rw_attr(k, 2, d, 1), w = rw_attr(k, 0, d, 1);
		int64_t s = rw_attr(k, 1, d, 1), wd = rw_attr(k, 3, d, 1), dw;
		int64_t lo = rw_attr(k, 4, 2 * d, 0), hi = rw_attr(k, 4, 2 * d + 1, 0);

		/* int32 attributes keep every product below 2^63 (the file may say more) */
		if (bd <= 0 || w <= 0 || s <= 0 || wd <= 0 || in->shape[d] < 0 ||
		    bd > INT32_MAX || w > INT32_MAX || wd > INT32_MAX || lo < INT32_MIN ||
		    lo > INT32_MAX || hi < INT32_MIN || hi > INT32_MAX)
			return 0;
		dil[d] = rw_dim(((int64_t)in->shape[d] - 1) * bd + 1);
		pad[d] = rw_dim((int64_t)dil[d] + lo + hi);
		dw = (w - 1) * wd + 1;
		out[d] = pad[d] < dw ? 0 : rw_dim((pad[d] - dw) / s + 1);
		if (dil[d] < 0 || pad[d] < 0 || out[d] < 0)
			return 0;
	}
	if (kt_set_tmp(k, 0, base, "dilated", it, dil, rank, AP_ALLOC_ARENA) ||
	    kt_set_tmp(k, 1, base + 1, "padded", it, pad, rank, AP_ALLOC_ARENA))
		return -1;
	return kt_bytes_of(k, "output", it, out, rank, &k->g->t[o].bytes);
}
