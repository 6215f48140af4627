// SPDX-License-Identifier: Apache-2.0
/*
 * kernels_conv: convolutions and matrix products (conv.cc, depthwise_conv.cc, conv3d.cc,
 * transpose_conv.cc, fully_connected.cc, batch_matmul.cc): their temporaries.
 */
#include <string.h>

#include "kernels_priv.h"

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
	if (kt_new_tmp(k, "input_quantized", AP_TT_INT8, in->shape, in->rank, AP_ALLOC_ARENA) ||
	    kt_new_tmp(k, "scaling_factors", AP_TT_FLOAT32, flat, 1, AP_ALLOC_ARENA) ||
	    kt_new_tmp(k, "accum_scratch", AP_TT_INT32, acc, 2, AP_ALLOC_ARENA))
		return -1;
	if (per_channel &&
	    (kt_new_tmp(k, "input_offsets", AP_TT_INT32, flat, 1, AP_ALLOC_ARENA) ||
	     kt_new_tmp(k, "row_sums", AP_TT_INT32, rows, 1, AP_ALLOC_PERSISTENT)))
		return -1;
	return 0;
}

/*
 * Register_CONV_2D() is kMultithreadOptimized (TFLITE_WITH_MULTITHREADED_EIGEN, as in the
 * x86-64 Linux builds), or kGenericOptimized where TFLITE_WITH_RUY is set (aarch64): no
 * multithreaded path, so no hwcn_weights and im2col whenever the shape asks. Prepare:
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
int kt_prep_conv(struct kctx *k)
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
	multi = !k->generic_conv && k->threads != 1 && !hybrid && dw == 1 && dh == 1 &&
	     k->g->t[fi].alloc != AP_ALLOC_ARENA && k->g->t[fi].alloc != AP_ALLOC_DYNAMIC;
	hwcn = it == AP_TT_FLOAT32 && multi;
	im2col = !hwcn && (dw != 1 || dh != 1 || sw != 1 || sh != 1 || kw != 1 || kh != 1) &&
		 (is_quantized_8_16(it) || !multi);
	if (im2col) {
		int32_t d[4] = { batch, oh, ow, depth };
		uint8_t t = !hybrid ? it : ft == AP_TT_INT4 ? AP_TT_INT8 : ft;

		if (kt_new_tmp(k, "im2col", t, d, 4, AP_ALLOC_ARENA))
			return -1;
	}
	if (hwcn) {
		int32_t d[2] = { depth, cout };

		if (kt_new_tmp(k, "hwcn_weights", it, d, 2, AP_ALLOC_PERSISTENT))
			return -1;
	}
	return hybrid ? conv_hybrid(k, in, f, oh, ow) : 0;
}

/* CONV_3D's transposed filter, where the runtime keeps one (conv3d_transposed_filter). */
static int conv3d_transposed(struct kctx *k, const struct ap_model_tensor *f)
{
	int32_t d[5] = { dim(f, 4), dim(f, 0), dim(f, 1), dim(f, 2), dim(f, 3) };

	if (!k->rt->conv3d_transposed_filter)
		return 0;
	return kt_new_tmp(k, "transposed_filter", AP_TT_FLOAT32, d, 5, AP_ALLOC_ARENA);
}

/*
 * CONV_3D: conv3d.cc, Prepare<kGenericOptimized> (Register_CONV_3D). Float32 only. When
 * any stride or dilation is not 1 or the filter [kd, kh, kw, cin, cout] is not 1x1x1, one
 * AddTensors(1) on the first Prepare: im2col, the input's type, [batch, out_d, out_h,
 * out_w, kd*kh*kw*cin], kTfLiteArenaRw. (The 1 GB im2col limit applies on mobile
 * platforms only.) Runtimes with conv3d_transposed_filter add one more after it:
 * transposed_filter, float32 [cout, kd, kh, kw, cin], kTfLiteArenaRw.
 */
int kt_prep_conv3d(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *f = input(k, 1);
	int64_t pad, sd, sw, sh, dd, dw, dh;
	int32_t od, oh, ow, depth;

	if (!in || !f || (k->mo->n_inputs != 2 && k->mo->n_inputs != 3) ||
	    k->mo->n_outputs != 1 || k->mo->options_type != OPT_CONV_3D || in->rank != 5 ||
	    f->rank != 5 || ttype(k, in_index(k, 0)) != AP_TT_FLOAT32 ||
	    ttype(k, in_index(k, 1)) != AP_TT_FLOAT32 || dim(in, 4) != dim(f, 3))
		return 0;
	pad = option(k, 0, 1, 0);
	sd = option(k, 1, 4, 0);
	sw = option(k, 2, 4, 0);
	sh = option(k, 3, 4, 0);
	dd = option(k, 5, 4, 1);
	dw = option(k, 6, 4, 1);
	dh = option(k, 7, 4, 1);
	for (uint32_t d = 1; d < 5; d++)
		if (dim(in, d) <= 0 || dim(f, d - 1) <= 0 || dim(f, 4) <= 0)
			return 0;
	if (sd <= 0 || sw <= 0 || sh <= 0 || dd <= 0 || dw <= 0 || dh <= 0)
		return 0;
	if (sd == 1 && sw == 1 && sh == 1 && dd == 1 && dw == 1 && dh == 1 &&
	    dim(f, 0) == 1 && dim(f, 1) == 1 && dim(f, 2) == 1)
		return conv3d_transposed(k, f);
	od = out_size(pad, dim(in, 1), dim(f, 0), sd, dd);
	oh = out_size(pad, dim(in, 2), dim(f, 1), sh, dh);
	ow = out_size(pad, dim(in, 3), dim(f, 2), sw, dw);
	depth = mul(mul(mul(dim(f, 0), dim(f, 1)), dim(f, 2)), dim(f, 3));
	if (od < 0 || oh < 0 || ow < 0 || depth < 0)
		return 0;
	{
		int32_t d[5] = { dim(in, 0), od, oh, ow, depth };

		if (kt_new_tmp(k, "im2col", AP_TT_FLOAT32, d, 5, AP_ALLOC_ARENA))
			return -1;
	}
	return conv3d_transposed(k, f);
}

/*
 * CONV_3D_TRANSPOSE: conv3d_transpose.cc, Prepare<kGenericOptimized> and
 * ResizeOutputAndTemporaryTensors. Float32 input, filter [kd, kh, kw, cout, cin] and
 * output; int32 output_shape of 5 elements. Unless a dilation factor is above 1 (then the
 * reference kernel, no temporary), AddTensors(1) on the first Prepare: col2im, float32
 * [in_d * in_h * in_w, kd * kh * kw * cout], kTfLiteDynamic (heap). An output_shape that
 * is not const or ro makes the output dynamic and leaves col2im unsized.
 */
int kt_prep_conv3d_transpose(struct kctx *k)
{
	const struct ap_model_tensor *os = input(k, 0), *f = input(k, 1), *in = input(k, 2);
	int32_t o = k->mo->n_outputs == 1 ? k->mo->outputs[0] : -1, col[2];
	bool known, dilated = k->mo->options_type == OPT_CONV_3D &&
			      (option(k, 5, 4, 1) > 1 || option(k, 6, 4, 1) > 1 ||
			       option(k, 7, 4, 1) > 1);

	if (!os || !f || !in || (k->mo->n_inputs != 3 && k->mo->n_inputs != 4) || !mt(k, o) ||
	    os->rank != 1 || numel(os) != 5 || in->rank != 5 || f->rank != 5 ||
	    dim(in, 4) != dim(f, 4) || ttype(k, in_index(k, 0)) != AP_TT_INT32 ||
	    ttype(k, in_index(k, 1)) != AP_TT_FLOAT32 ||
	    ttype(k, in_index(k, 2)) != AP_TT_FLOAT32 || ttype(k, o) != AP_TT_FLOAT32)
		return 0;
	known = const_or_ro(k, in_index(k, 0));
	if (!known && k->g->t[o].alloc == AP_ALLOC_ARENA)
		k->g->t[o].alloc = AP_ALLOC_DYNAMIC;
	if (dilated)
		return 0;
	col[0] = mul(mul(dim(in, 1), dim(in, 2)), dim(in, 3));
	col[1] = mul(mul(mul(dim(f, 0), dim(f, 1)), dim(f, 2)), dim(f, 3));
	/* too many rows or columns fail Prepare after AddTensors */
	if (col[0] < 0 || col[1] < 0)
		return kt_add_tensors(k, 1, "kernel tensor") < 0 ? -1 : 0;
	return kt_new_tmp(k, "col2im", AP_TT_FLOAT32, known ? col : NULL, 2, AP_ALLOC_DYNAMIC);
}

/*
 * DEPTHWISE_CONV_2D: depthwise_conv.cc, Prepare. Temporaries only when hybrid (float32
 * input, int8 filter): AddTensors(1) each for input_quantized int8 [input shape],
 * scaling_factors float32 [batch], input_offsets int32 [batch], all kTfLiteArenaRw.
 */
int kt_prep_depthwise_conv(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *f = input(k, 1);
	int32_t batch[1];

	if (!in || !f || in->rank != 4 || f->rank != 4 || k->mo->n_outputs != 1 ||
	    ttype(k, in_index(k, 0)) != AP_TT_FLOAT32 || ttype(k, in_index(k, 1)) != AP_TT_INT8)
		return 0;
	batch[0] = dim(in, 0);
	if (kt_new_tmp(k, "input_quantized", AP_TT_INT8, in->shape, in->rank, AP_ALLOC_ARENA) ||
	    kt_new_tmp(k, "scaling_factors", AP_TT_FLOAT32, batch, 1, AP_ALLOC_ARENA) ||
	    kt_new_tmp(k, "input_offsets", AP_TT_INT32, batch, 1, AP_ALLOC_ARENA))
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
 * int8 [input shape], float32 and int32 [input elements / input channels]. An
 * output_shape not in the file (IsConstantTensor: a ro one counts as computed) makes the
 * output dynamic and leaves col2im and scratch unsized.
 */
int kt_prep_transpose_conv(struct kctx *k)
{
	const struct ap_model_tensor *os = input(k, 0), *w = input(k, 1), *in = input(k, 2);
	const struct ap_model_tensor *out;
	int32_t wi = in_index(k, 1), n, col[2], h[1];
	uint8_t it, wt, st;
	bool quant, hybrid, known;

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
	known = k->g->t[in_index(k, 0)].alloc == AP_ALLOC_WEIGHTS;
	if (!known && k->g->t[k->mo->outputs[0]].alloc == AP_ALLOC_ARENA)
		k->g->t[k->mo->outputs[0]].alloc = AP_ALLOC_DYNAMIC;
	col[0] = mul(dim(in, 1), dim(in, 2));
	col[1] = mul(mul(dim(w, 0), dim(w, 1)), dim(w, 2));
	if (col[0] < 0 || col[1] < 0 || numel(in) < 0)
		return kt_add_tensors(k, (uint32_t)n, "kernel tensor") < 0 ? -1 : 0;
	if (kt_new_tmp(k, "col2im", it == AP_TT_FLOAT32 ? AP_TT_FLOAT32 : AP_TT_INT32,
		       known ? col : NULL, 2, AP_ALLOC_DYNAMIC) ||
	    kt_new_tmp(k, "transposed_weights", wt,
		       k->g->t[wi].alloc == AP_ALLOC_WEIGHTS ? w->shape : NULL, w->rank,
		    AP_ALLOC_DYNAMIC))
		return -1;
	if (quant) {
		int64_t qb = k->mo->options_type == OPT_TRANSPOSE_CONV ? option(k, 4, 1, 0) : 0;

		st = AP_TT_INT32;
		if (it == AP_TT_INT16)
			st = qb == AP_TT_INT32 || qb == AP_TT_INT64 ? (uint8_t)qb : AP_TT_INT64;
		if (kt_new_tmp(k, "scratch", st, known ? out->shape : NULL, out->rank,
			       AP_ALLOC_DYNAMIC))
			return -1;
	}
	if (hybrid) {
		h[0] = numel(in) / dim(w, 3);
		if (kt_new_tmp(k, "input_quantized", AP_TT_INT8, in->shape, in->rank,
			       AP_ALLOC_ARENA) ||
		    kt_new_tmp(k, "scaling_factors", AP_TT_FLOAT32, h, 1, AP_ALLOC_ARENA) ||
		    kt_new_tmp(k, "input_offsets", AP_TT_INT32, h, 1, AP_ALLOC_ARENA))
			return -1;
	}
	return 0;
}

/* x rounded up to a multiple of m, a power of two (PrepareImpl4Bit's layouts). */
static int32_t round_up(int32_t x, int32_t m)
{
	return x > INT32_MAX - (m - 1) ? -1 : (x + m - 1) & ~(m - 1);
}

/*
 * The 4-bit path (PrepareImpl4Bit): 5 temporaries listed, 4 configured, all arena:
 * input_quantized int8 [R, C], scaling_factors float32 [R], accum_scratch int32 [R, U],
 * input_offsets int32 [R]; the 5th stays none-type. C = cols rounded up to FilterDepth
 * 32, U = units rounded up to FilterWidth 4, R = batch rounded up to rr, the largest of
 * GetMaxSupportedRows() (4 with SSSE3 on x86-64, and on aarch64), 2, 1 not above batch.
 * The runtime's fc4bit_max_rows caps GetMaxSupportedRows(), and its fc4bit_temporaries
 * says whether the 5th is listed.
 */
static int fc_4bit(struct kctx *k, int32_t base, int32_t batch, int32_t cols, int32_t units)
{
	int32_t most = k->rt->fc4bit_max_rows;
	int32_t rr = batch >= 4 && most >= 4 ? 4 : batch >= 2 && most >= 2 ? 2 : 1;
	int32_t r[1] = { round_up(batch, rr) }, c = round_up(cols, 32), u = round_up(units, 4);
	int32_t in[2] = { r[0], c }, acc[2] = { r[0], u };
	const struct kt_tmp t[] = {
		{ "input_quantized", AP_TT_INT8, in, 2, AP_ALLOC_ARENA },
		{ "scaling_factors", AP_TT_FLOAT32, r, 1, AP_ALLOC_ARENA },
		{ "accum_scratch", AP_TT_INT32, acc, 2, AP_ALLOC_ARENA },
		{ "input_offsets", AP_TT_INT32, r, 1, AP_ALLOC_ARENA },
		{ "kernel tensor", AP_TT_INT8, NULL, 0, AP_ALLOC_ARENA },
	};

	if (r[0] < 0 || c < 0 || u < 0)
		return 0;
	return kt_set_tmps(k, 0, base, t, k->rt->fc4bit_temporaries);
}

/* fully_connected.cc's condition for PrepareImpl4Bit (kGenericOptimized). */
static bool fc_takes_4bit(struct kctx *k, int32_t batch, int32_t units, int32_t cols)
{
	return ttype(k, in_index(k, 1)) == AP_TT_INT4 &&
	       k->g->t[in_index(k, 1)].alloc == AP_ALLOC_WEIGHTS && batch && cols % 2 == 0 &&
	       units >= 4 && cols >= 32;
}

/*
 * FULLY_CONNECTED: fully_connected.cc. Init reserves nothing; Prepare<kGenericOptimized>
 * calls AddTensors(6) on its first run, for every FULLY_CONNECTED. Only the hybrid path
 * (float32 input, uint8/int8/int4/int2 filter) uses them. An int4 constant filter may
 * take the 4-bit path (fc_4bit); else 5 temporaries: input_quantized int8 [input shape],
 * scaling_factors float32 [batch], accum_scratch int32 [units, batch], input_offsets int32
 * [batch] (kTfLiteArenaRw), row_sums int32 [units] (kTfLiteArenaRwPersistent), and for a
 * sparse filter a 6th, ledger uint8 [len(array_indices) + len(array_segments) - 1] of its
 * dim 1 (kTfLiteArenaRwPersistent; coverage.c names a dim 1 that is not CSR). batch =
 * elements(input) / filter dim 1. A float sparse filter adds nothing at Prepare.
 */
int kt_prep_fully_connected(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *f = input(k, 1);
	int32_t base = kt_reserve(k, 6), units, batch, ledger;
	uint8_t ft;

	if (base < 0)
		return -1;
	if (!in || !f || f->rank != 2 || ttype(k, in_index(k, 0)) != AP_TT_FLOAT32)
		return 0;
	ft = ttype(k, in_index(k, 1));
	if ((ft != AP_TT_UINT8 && ft != AP_TT_INT8 && ft != AP_TT_INT4 && ft != AP_TT_INT2) ||
	    dim(f, 1) <= 0 || numel(in) < 0)
		return 0;
	units = dim(f, 0);
	batch = numel(in) / dim(f, 1);
	if (fc_takes_4bit(k, batch, units, numel(in) / (batch ? batch : 1)))
		return fc_4bit(k, base, batch, numel(in) / batch, units);
	ledger = f->sparse ? ap_model_sparse_ledger(k->sg, in_index(k, 1)) : -1;
	{
		int32_t b[1] = { batch }, acc[2] = { units, batch }, u[1] = { units };
		int32_t l[1] = { ledger };
		const struct kt_tmp t[] = {
			{ "input_quantized", AP_TT_INT8, in->shape, in->rank, AP_ALLOC_ARENA },
			{ "scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "accum_scratch", AP_TT_INT32, acc, 2, AP_ALLOC_ARENA },
			{ "input_offsets", AP_TT_INT32, b, 1, AP_ALLOC_ARENA },
			{ "row_sums", AP_TT_INT32, u, 1, AP_ALLOC_PERSISTENT },
			{ "ledger", AP_TT_UINT8, l, 1, AP_ALLOC_PERSISTENT },
		};

		return kt_set_tmps(k, 0, base, t, ledger >= 0 ? 6 : 5);
	}
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
int kt_prep_batch_matmul(struct kctx *k)
{
	const struct ap_model_tensor *l = input(k, 0), *r = input(k, 1);
	int32_t base = kt_reserve(k, 7), dl[8], dr[8];
	int32_t li = in_index(k, 0), ri = in_index(k, 1);
	bool adj_x = false, adj_y = false;
	enum ap_alloc rhs_alloc;
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
	rhs_alloc = k->g->t[ri].alloc == AP_ALLOC_WEIGHTS ? AP_ALLOC_PERSISTENT : AP_ALLOC_ARENA;
	if (kt_set_tmp(k, 0, base, "lhs_transposed", lt, dl, l->rank, AP_ALLOC_ARENA) ||
	    kt_set_tmp(k, 1, base + 1, "rhs_transposed", rt, dr, r->rank, rhs_alloc))
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
			const struct kt_tmp t[] = {
				{ "input_quantized", rt, l->shape, l->rank, AP_ALLOC_ARENA },
				{ "scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
				{ "accum_scratch", AP_TT_INT32, acc, 2, AP_ALLOC_ARENA },
				{ "input_offsets", AP_TT_INT32, b, 1, AP_ALLOC_ARENA },
				{ "row_sums", AP_TT_INT32, u, 1, AP_ALLOC_PERSISTENT },
			};

			return kt_set_tmps(k, 2, base + 2, t, 5);
		}
	}
	return 0;
}
