// SPDX-License-Identifier: Apache-2.0
/*
 * kernels_fft: RFFT2D's output and working areas (rfft2d.cc).
 */
#include "arenaprof/plan/shapes.h"
#include "kernels_priv.h"

enum { RFFT_TMP = 4 };		/* the most: kTemporaryTensorCount (runtime.h) */

/* A power of two that fits an int32 (fft_length's type) */
static bool power_of_two(int64_t v)
{
	return v > 0 && v <= INT32_MAX && !(v & (v - 1));
}

/* The temporaries, unsized and dynamic: Eval sizes them from a computed fft_length. */
static int rfft2d_dyn(struct kctx *k, int32_t base)
{
	static const char *const what[RFFT_TMP] = {
		"fft_integer_working_area", "fft_double_working_area",
		"fft_input_output_rows", "fft_input_output_data",
	};

	for (uint32_t i = 0; i < k->rt->rfft2d_temporaries; i++)
		if (kt_set_tmp(k, i, base + (int32_t)i, what[i], i ? AP_TT_INT64 : AP_TT_INT32,
			       NULL, 1, AP_ALLOC_DYNAMIC))
			return -1;
	return 0;
}

/* static_cast<int>(sqrt(v)), without floating point. */
static int32_t isqrt(int32_t v)
{
	int32_t r = 0;

	while ((int64_t)(r + 1) * (r + 1) <= v)
		r++;
	return r;
}

/* ResizeOutputandTemporaryTensors of fft_length h x w (powers of 2): W = max(h, w / 2). */
static int rfft2d_sized(struct kctx *k, int32_t base, int32_t o, int32_t h, int32_t w)
{
	const struct ap_model_tensor *in = input(k, 0);
	/* the output's bytes: the input's leading dimensions, then [h, w / 2 + 1] */
	int32_t wl = h > w / 2 ? h : w / 2, shape[3] = { 1, h, w / 2 + 1 };
	int32_t iwa[1] = { 2 + isqrt(wl) }, dwa[1] = { wl / 2 + w / 4 }, rows[1] = { h };
	int32_t data[2] = { h, w + 2 };
	const struct kt_tmp t[RFFT_TMP] = {
		{ "fft_integer_working_area", AP_TT_INT32, iwa, 1, AP_ALLOC_ARENA },
		{ "fft_double_working_area", AP_TT_INT64, dwa, 1, AP_ALLOC_ARENA },
		{ "fft_input_output_rows", AP_TT_INT64, rows, 1, AP_ALLOC_ARENA },
		{ "fft_input_output_data", AP_TT_INT64, data, 2, AP_ALLOC_ARENA },
	};

	for (uint32_t d = 0; d + 2 < in->rank; d++)
		shape[0] = mul(shape[0], in->shape[d] < 0 ? 0 : in->shape[d]);
	if (shape[0] < 0)
		return 0;
	if (kt_bytes_of(k, "complex64 output", AP_TT_COMPLEX64, shape, 3, &k->g->t[o].bytes))
		return -1;
	return kt_set_tmps(k, 0, base, t, k->rt->rfft2d_temporaries);
}

/*
 * RFFT2D: rfft2d.cc, Prepare. Needs a float32 input of rank >= 2 and an int32 fft_length
 * of shape [2]. Its first run adds 4 tensors (InitTemporaryTensors): int32
 * fft_integer_working_area, int64 fft_double_working_area, fft_input_output_rows and
 * fft_input_output_data, all kTfLiteArenaRw (the first 2 alone where the runtime's
 * rfft2d_temporaries says so). The output becomes complex64. When fft_length
 * is not const or ro, the output and the 4 temporaries are kTfLiteDynamic (sized in Eval;
 * the plan splits after the node). Otherwise, with fft_length h x w and W = max(h, w / 2):
 * the output is the input's shape with [h, w / 2 + 1] last; the temporaries are
 * [2 + floor(sqrt(W))], [W / 2 + w / 4], [h] and [h, w + 2]. An fft_length folded at
 * Prepare (ro) has no values in the file: shapes.c's are used, and without them the
 * temporaries stay unsized (coverage.c names it).
 */
int kt_prep_rfft2d(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *len = input(k, 1);
	int32_t li = in_index(k, 1), o, base;
	int64_t hw[2];

	if (k->mo->n_inputs != 2 || k->mo->n_outputs != 1 || !in || !len ||
	    !mt(k, k->mo->outputs[0]) || in->rank < 2 ||
	    ttype(k, in_index(k, 0)) != AP_TT_FLOAT32 ||
	    len->rank != 1 || len->shape[0] != 2 || ttype(k, li) != AP_TT_INT32)
		return 0;
	base = kt_add_tensors(k, k->rt->rfft2d_temporaries, "kernel tensor");
	if (base < 0)
		return -1;
	o = k->mo->outputs[0];
	k->g->t[o].type = AP_TT_COMPLEX64;
	if (kt_bytes_of(k, "complex64 output", AP_TT_COMPLEX64, mt(k, o)->shape, mt(k, o)->rank,
			&k->g->t[o].bytes))
		return -1;
	if (!const_or_ro(k, li)) {
		if (k->g->t[o].alloc == AP_ALLOC_ARENA)
			k->g->t[o].alloc = AP_ALLOC_DYNAMIC;
		return rfft2d_dyn(k, base);
	}
	if ((k->g->t[li].alloc == AP_ALLOC_WEIGHTS ?
	     ap_model_tensor_ints(k->g->model, len, hw, 2) :
	     ap_shapes_values(&k->g->model->subgraphs[k->g->subgraph], li, hw, 2)) != 2 ||
	    !power_of_two(hw[0]) || !power_of_two(hw[1]))
		return 0;
	return rfft2d_sized(k, base, o, (int32_t)hw[0], (int32_t)hw[1]);
}
