// SPDX-License-Identifier: Apache-2.0
/*
 * kernels_rnn: the recurrent kernels' Prepare (unidirectional_sequence_lstm.cc, lstm.cc,
 * bidirectional_sequence_lstm.cc, svdf.cc, basic_rnn.cc, unidirectional_sequence_rnn.cc,
 * bidirectional_sequence_rnn.cc).
 */
#include "kernels_priv.h"

/*
 * The temporaries both LSTM kernels make of the tensors their Init reserved, as
 * UNIDIRECTIONAL_SEQUENCE_LSTM (unidirectional_sequence_lstm.cc) does: Init reserves 12
 * (kNumTemporaryTensors). Prepare (20 or 24 inputs) makes the first of them temporaries,
 * all kTfLiteArenaRw unless said otherwise; n_batch/n_input from the input (time_major
 * swaps dims 0 and 1), n_cell = input_to_output_weights dim 0, n_output =
 * recurrent_to_output_weights dim 1 (dim 0 when 1-D), cifg = no input_to_input_weights:
 *  - integer (int8 input, 8x8_16): 6 of [n_batch, n_cell]: 4 int16, 1 int8, 1 int32;
 *  - float: 1, scratch_buffer of the input type [n_batch, n_cell * (cifg ? 4 : 5) + pad];
 *  - hybrid (float32 input, uint8/int8 weights): all 12: that scratch_buffer; input,
 *    output_state and cell_state quantized to the weight type (their shapes); 3 scaling
 *    factors float32 [n_batch]; recovered_cell_weights float32 [n_cell]; accum_scratch
 *    int32 [n_cell, n_batch]; 2 zero points float32 [n_batch]; row_sums int32 [(cifg ? 6
 *    : 8) + (projection ? ceil(n_output / n_cell) : 0), n_cell] kTfLiteArenaRwPersistent.
 */
static int lstm_temporaries(struct kctx *k, int32_t nb, int32_t pad)
{
	const struct ap_model_tensor *in = input(k, 0), *w = input(k, 4), *rw = input(k, 8);
	const struct ap_model_tensor *os = input(k, 18), *cs = input(k, 19);
	int32_t base = k->init_base[k->node], nc, no, sb[2];
	bool cifg, hybrid, integer;
	uint8_t it, wt;

	if (base < 0 || !in || !w || !rw || (k->mo->n_inputs != 20 && k->mo->n_inputs != 24) ||
	    k->mo->n_outputs != 1 || w->rank != 2 || !os || !cs)
		return 0;
	nc = dim(w, 0);
	no = rw->rank == 1 ? dim(rw, 0) : dim(rw, 1);
	it = ttype(k, in_index(k, 0));
	wt = ttype(k, in_index(k, 4));
	integer = it == AP_TT_INT8;
	hybrid = it == AP_TT_FLOAT32 && (wt == AP_TT_UINT8 || wt == AP_TT_INT8);
	cifg = !input(k, 1);
	sb[0] = nb;
	sb[1] = mul(nc, cifg ? 4 : 5);
	if (sb[1] < 0 || sb[1] > INT32_MAX - pad)
		return 0;
	sb[1] += pad;
	if (integer) {
		static const uint8_t type[6] = { AP_TT_INT16, AP_TT_INT16, AP_TT_INT16,
						 AP_TT_INT16, AP_TT_INT8, AP_TT_INT32 };
		static const char *const what[6] = { "scratch0", "scratch1", "scratch2",
						     "scratch3", "scratch4", "scratch5" };
		int32_t d[2] = { nb, nc };

		for (uint32_t j = 0; j < 6; j++)
			if (kt_set_tmp(k, j, base + (int32_t)j, what[j], type[j], d, 2,
				       AP_ALLOC_ARENA))
				return -1;
		return 0;
	}
	if (kt_set_tmp(k, 0, base, "scratch_buffer", it, sb, 2, AP_ALLOC_ARENA))
		return -1;
	if (hybrid) {
		int32_t b[1] = { nb }, c[1] = { nc }, acc[2] = { nc, nb };
		int64_t rows = (cifg ? 6 : 8) +
			       (input(k, 16) && nc > 0 && no > 0 ? ((int64_t)no + nc - 1) / nc : 0);
		int32_t rs[2] = { rows > INT32_MAX ? 0 : (int32_t)rows, nc };
		const struct kt_tmp t[] = {
			{ "input_quantized", wt, in->shape, in->rank, AP_ALLOC_ARENA },
			{ "output_state_quantized", wt, os->shape, os->rank, AP_ALLOC_ARENA },
			{ "cell_state_quantized", wt, cs->shape, cs->rank, AP_ALLOC_ARENA },
			{ "input_scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "output_state_scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "product_scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "recovered_cell_weights", AP_TT_FLOAT32, c, 1, AP_ALLOC_ARENA },
			{ "accum_scratch", AP_TT_INT32, acc, 2, AP_ALLOC_ARENA },
			{ "input_zero_points", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "output_state_zero_points", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "row_sums", AP_TT_INT32, rs, 2, AP_ALLOC_PERSISTENT },
		};

		return kt_set_tmps(k, 1, base + 1, t, 11);
	}
	return 0;
}

/* UNIDIRECTIONAL_SEQUENCE_LSTM: n_batch from dim 1 when time major, a padding of 16. */
int kt_prep_unidirectional_sequence_lstm(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0);
	bool tm;

	if (!in || in->rank < 3)
		return 0;
	tm = k->mo->options_type == OPT_UNIDIRECTIONAL_SEQUENCE_LSTM && option(k, 3, 1, 0);
	return lstm_temporaries(k, tm ? dim(in, 1) : dim(in, 0), 16);
}

/*
 * LSTM of the basic kernel (lstm.cc basic::Prepare): 5 inputs, 4 outputs, no temporaries.
 * Its outputs are resized to shapes the file gives (activation and state as the previous
 * ones, concat_temp [batch, input + activation depth], activation_temp [batch, 4 * depth]);
 * the previous activation and state (inputs 1 and 4) become kTfLiteArenaRwPersistent,
 * wherever they come from. A constant state keeps its place here: LiteRT would mark it
 * too, a case not measured against it.
 */
static int lstm_basic(struct kctx *k)
{
	static const uint32_t states[2] = { 1, 4 };
	const struct ap_model_tensor *in = input(k, 0), *act = input(k, 1);
	const struct ap_model_tensor *w = input(k, 2), *b = input(k, 3), *st = input(k, 4);

	if (k->mo->n_inputs != 5 || k->mo->n_outputs != 4 || !in || !act || !w || !b || !st ||
	    in->rank != 2 || act->rank != 2 || w->rank != 2 || b->rank != 1 || st->rank != 2)
		return 0;
	for (uint32_t i = 0; i < 2; i++) {
		int32_t t = in_index(k, states[i]);

		if (!const_or_ro(k, t))
			k->g->t[t].alloc = AP_ALLOC_PERSISTENT;
	}
	return 0;
}

/*
 * The full LSTM kernel with an int8 input: 5 intermediates (8x8_16) make the sequence
 * kernel's 6 temporaries; 12 (8x8_8) make 8 of [n_batch, n_cell]: int8 x 2, int16 x 6
 * (kTfLiteArenaRw). Prepare refuses any other count.
 */
static int lstm_integer(struct kctx *k, int32_t nb)
{
	const struct ap_model_tensor *w = input(k, 4);
	int32_t base = k->init_base[k->node], d[2] = { nb, w ? dim(w, 0) : 0 };

	if (k->mo->n_intermediates == 5)
		return lstm_temporaries(k, nb, 0);
	if (k->mo->n_intermediates != 12 || base < 0 || !w || w->rank != 2)
		return 0;
	for (uint32_t j = 0; j < 8; j++)
		if (kt_set_tmp(k, j, base + (int32_t)j, j < 2 ? "scratch_int8" : "scratch_int16",
			       j < 2 ? AP_TT_INT8 : AP_TT_INT16, d, 2, AP_ALLOC_ARENA))
			return -1;
	return 0;
}

/*
 * The sparse hybrid LSTM (lstm.cc make_ledger): when the input_to_output weights have
 * sparsity, temporaries 12 to 20 are the 9 tensors Init reserved after the 12, one ledger
 * per weight (input_to_input, _forget, _cell, _output, recurrent_to_input, _forget,
 * _cell, _output, projection), uint8 kTfLiteArenaRwPersistent, sized len(array_indices) +
 * len(array_segments) - 1 of the weight's dim 1 when it is sparse, else never sized (0
 * bytes). coverage.c names what LiteRT does not survive: no projection, or a sparse weight
 * whose dim 1 is not CSR.
 */
const uint32_t ap_lstm_ledger_inputs[9] = { 1, 2, 3, 4, 5, 6, 7, 8, 16 };

static int lstm_ledgers(struct kctx *k)
{
	const uint32_t *weights = ap_lstm_ledger_inputs;
	static const char *const what[9] = {
		"input_to_input_ledger", "input_to_forget_ledger", "input_to_cell_ledger",
		"input_to_output_ledger", "recurrent_to_input_ledger",
		"recurrent_to_forget_ledger", "recurrent_to_cell_ledger",
		"recurrent_to_output_ledger", "projection_ledger" };
	const struct ap_model_tensor *io = input(k, 4);
	int32_t base = k->init_base[k->node] + 12;

	/* 12 temporaries: the hybrid kernel's */
	if (k->n_tmp != 12 || !io || !io->sparse)
		return 0;
	for (uint32_t j = 0; j < 9; j++) {
		const struct ap_model_tensor *w = input(k, weights[j]);
		int32_t l[1] = { w && w->sparse ?
				 ap_model_sparse_ledger(k->sg, in_index(k, weights[j])) : -1 };

		if (kt_set_tmp(k, 12 + j, base + (int32_t)j, what[j], AP_TT_UINT8,
			       l[0] >= 0 ? l : NULL, 1, AP_ALLOC_PERSISTENT))
			return -1;
	}
	return 0;
}

/*
 * LSTM: lstm.cc, the full kernel (LSTMOptions.kernel_type FULL, the default), float or
 * hybrid: as the sequence kernel, for one step: n_batch is input dim 0 and the
 * scratch_buffer has no 16 elements of padding; the sparse hybrid adds lstm_ledgers. With
 * an int8 input lstm_integer. The basic kernel (kernel_type BASIC) in lstm_basic.
 */
int kt_prep_lstm(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0);
	int64_t kind = option(k, 3, 1, 0);

	if (k->mo->options_type == OPT_LSTM && kind == 1)
		return lstm_basic(k);
	if (!in || in->rank != 2 || k->mo->options_type != OPT_LSTM || kind != 0)
		return 0;
	if (ttype(k, in_index(k, 0)) == AP_TT_INT8)
		return lstm_integer(k, dim(in, 0));
	if (lstm_temporaries(k, dim(in, 0), 0))
		return -1;
	return lstm_ledgers(k);
}


/*
 * SVDF: svdf.cc. Init reserves 6 tensors; Prepare makes the first a scratch [batch,
 * num_filters] (int32 for an int8 input, else float32) in the arena. Hybrid (float32
 * input, uint8/int8 weights_feature) makes all 6 temporaries: input_quantized (the
 * weights' type, input shape), scaling_factors float32 [batch], float_weights_time
 * float32 [weights_time shape] (persistent), zero_points float32 [batch], row_sums float32
 * [num_filters] (persistent). An int8 input adds output_temp int32 [num_units, batch].
 * batch is input dim 0, num_filters weights_feature dim 0, num_units num_filters / rank.
 */
int kt_prep_svdf(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *wf = input(k, 1), *wt = input(k, 2);
	int32_t base = k->init_base[k->node], rank, batch, filters;
	uint8_t it, ft;

	if (base < 0 || !in || !wf || !wt || k->mo->n_inputs != 5 || k->mo->n_outputs != 1 ||
	    k->mo->options_type != OPT_SVDF || in->rank < 2 || wf->rank < 2 || wt->rank < 2)
		return 0;
	it = ttype(k, in_index(k, 0));
	ft = ttype(k, in_index(k, 1));
	rank = (int32_t)option(k, 0, 4, 0);
	batch = dim(in, 0);
	filters = dim(wf, 0);
	if ((it != AP_TT_FLOAT32 && it != AP_TT_INT8) || rank <= 0 || filters % rank)
		return 0;
	{
		int32_t sc[2] = { batch, filters }, b[1] = { batch }, f[1] = { filters };
		int32_t ot[2] = { filters / rank, batch };
		bool hybrid = it == AP_TT_FLOAT32 && (ft == AP_TT_UINT8 || ft == AP_TT_INT8);

		if (kt_set_tmp(k, 0, base, "scratch", it == AP_TT_INT8 ? AP_TT_INT32 :
			       AP_TT_FLOAT32, sc, 2, AP_ALLOC_ARENA))
			return -1;
		if (it == AP_TT_INT8)
			return kt_set_tmp(k, 1, base + 1, "output_temp", AP_TT_INT32, ot, 2,
					  AP_ALLOC_ARENA);
		if (hybrid) {
			const struct kt_tmp t[] = {
				{ "input_quantized", ft, in->shape, in->rank, AP_ALLOC_ARENA },
				{ "scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
				{ "float_weights_time", AP_TT_FLOAT32, wt->shape, wt->rank,
				  AP_ALLOC_PERSISTENT },
				{ "zero_points", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
				{ "row_sums", AP_TT_FLOAT32, f, 1, AP_ALLOC_PERSISTENT },
			};

			return kt_set_tmps(k, 1, base + 1, t, 5);
		}
	}
	return 0;
}

/*
 * RNN (basic_rnn.cc) and UNIDIRECTIONAL_SEQUENCE_RNN (unidirectional_sequence_rnn.cc).
 * Init reserves 6 tensors; only the hybrid kernel (float32 input, uint8/int8 weights)
 * uses them: input_quantized (weights type, input shape), hidden_state_quantized (weights
 * type, hidden state shape), scaling_factors float32 [batch], accum_scratch int32 [units,
 * batch], zero_points int32 [batch] (kTfLiteArenaRw) and row_sums int32 [2, units]
 * (kTfLiteArenaRwPersistent). batch is input dim 0, or dim 1 for a time-major sequence;
 * units is weights dim 0.
 */
int kt_prep_rnn(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *w = input(k, 1), *hs = input(k, 4);
	int32_t base = k->init_base[k->node], batch_dim = 0;
	uint8_t wt;

	if (base < 0 || !in || !w || !hs || k->mo->n_inputs != 5 || k->mo->n_outputs != 1 ||
	    in->rank < 2 || w->rank != 2 || hs->rank != 2)
		return 0;
	wt = ttype(k, in_index(k, 1));
	if (ttype(k, in_index(k, 0)) != AP_TT_FLOAT32 || (wt != AP_TT_UINT8 && wt != AP_TT_INT8))
		return 0;
	if (k->g->ops[k->node].opcode == OP_UNIDIRECTIONAL_SEQUENCE_RNN &&
	    k->mo->options_type == OPT_SEQUENCE_RNN && option(k, 0, 1, 0))
		batch_dim = 1;
	{
		int32_t b[1] = { dim(in, (uint32_t)batch_dim) }, units = dim(w, 0);
		int32_t acc[2] = { units, b[0] }, rs[2] = { 2, units };
		const struct kt_tmp t[] = {
			{ "input_quantized", wt, in->shape, in->rank, AP_ALLOC_ARENA },
			{ "hidden_state_quantized", wt, hs->shape, hs->rank, AP_ALLOC_ARENA },
			{ "scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "accum_scratch", AP_TT_INT32, acc, 2, AP_ALLOC_ARENA },
			{ "zero_points", AP_TT_INT32, b, 1, AP_ALLOC_ARENA },
			{ "row_sums", AP_TT_INT32, rs, 2, AP_ALLOC_PERSISTENT },
		};

		return kt_set_tmps(k, 0, base, t, 6);
	}
}

/*
 * BIDIRECTIONAL_SEQUENCE_RNN: bidirectional_sequence_rnn.cc. Init reserves 9 tensors; only
 * the hybrid kernel (float32 input, uint8/int8 forward weights) uses them, 8 without an
 * aux input and 9 with: input_quantized (weights type, input shape), fw and bw
 * hidden_state_quantized (their shapes), scaling_factors float32 [batch], accum_scratch
 * int32 [max(fw units, bw units), batch], zero_points int32 [batch], fw and bw row_sums
 * int32 [2 or 3 with aux, units] (persistent), aux_input_quantized (aux input shape).
 */
int kt_prep_bidirectional_sequence_rnn(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *fw = input(k, 1), *bw = input(k, 5);
	const struct ap_model_tensor *fh = input(k, 4), *bh = input(k, 8), *aux = input(k, 9);
	int32_t base = k->init_base[k->node];
	bool tm, has_aux;
	uint8_t wt;

	if (base < 0 || !in || !fw || !bw || !fh || !bh || k->mo->n_inputs != 12 ||
	    in->rank != 3 || fw->rank != 2 || bw->rank != 2)
		return 0;
	wt = ttype(k, in_index(k, 1));
	if (ttype(k, in_index(k, 0)) != AP_TT_FLOAT32 || (wt != AP_TT_UINT8 && wt != AP_TT_INT8))
		return 0;
	tm = k->mo->options_type == OPT_BIDIRECTIONAL_SEQUENCE_RNN && option(k, 0, 1, 0);
	has_aux = input(k, 10) && input(k, 11);
	if (has_aux && !aux)
		return 0;
	{
		int32_t b[1] = { dim(in, tm ? 1 : 0) }, fu = dim(fw, 0), bu = dim(bw, 0);
		int32_t acc[2] = { fu > bu ? fu : bu, b[0] }, nr = has_aux ? 3 : 2;
		int32_t frs[2] = { nr, fu }, brs[2] = { nr, bu };
		const struct kt_tmp t[] = {
			{ "input_quantized", wt, in->shape, in->rank, AP_ALLOC_ARENA },
			{ "fw_hidden_state_quantized", wt, fh->shape, fh->rank, AP_ALLOC_ARENA },
			{ "bw_hidden_state_quantized", wt, bh->shape, bh->rank, AP_ALLOC_ARENA },
			{ "scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "accum_scratch", AP_TT_INT32, acc, 2, AP_ALLOC_ARENA },
			{ "zero_points", AP_TT_INT32, b, 1, AP_ALLOC_ARENA },
			{ "fw_row_sums", AP_TT_INT32, frs, 2, AP_ALLOC_PERSISTENT },
			{ "bw_row_sums", AP_TT_INT32, brs, 2, AP_ALLOC_PERSISTENT },
			{ "aux_input_quantized", wt, aux ? aux->shape : NULL, aux ? aux->rank : 0,
			  AP_ALLOC_ARENA },
		};

		return kt_set_tmps(k, 0, base, t, has_aux ? 9 : 8);
	}
}

/* Row sums rows of one side: 8, or 6 with CIFG; the aux weights add 4 (3); a projection
 * adds ceil(n_output / n_cell). 0 when beyond int32 (the tensor is then refused). */
static int32_t row_sums_rows(const struct kctx *k, bool cifg, bool aux, uint32_t proj,
			     int32_t nc, int32_t no)
{
	int64_t rows = (cifg ? 6 : 8) + (aux ? (cifg ? 3 : 4) : 0);

	if (input(k, proj) && nc > 0 && no > 0)
		rows += ((int64_t)no + nc - 1) / nc;
	return rows > INT32_MAX ? 0 : (int32_t)rows;
}

/*
 * The hybrid BIDIRECTIONAL_SEQUENCE_LSTM's temporaries 2 on (kTfLiteArenaRw unless said):
 * input_quantized (the weights' type, input shape); fw and bw activation and cell states
 * quantized (their shapes); input, aux_input, output_state and product scaling factors
 * float32 [n_batch]; recovered_cell_weights float32 [n_fw_cell]; accum_scratch int32
 * [max(n_fw_cell, n_bw_cell, the aux input_to_output weights' dim 0s), n_batch]; input,
 * aux_input and output_state zero points float32 [n_batch]; fw and bw row_sums int32
 * [rows, n_cell] kTfLiteArenaRwPersistent; with an aux input (its fw input_to_forget
 * weights given) aux_input_quantized (aux input shape), the 19th.
 */
static int bidi_lstm_hybrid(struct kctx *k, int32_t base, int32_t nb, uint8_t wt)
{
	const struct ap_model_tensor *in = input(k, 0), *fw = input(k, 4), *bw = input(k, 21);
	const struct ap_model_tensor *fo = input(k, 8), *bo = input(k, 25);
	const struct ap_model_tensor *fa = input(k, 35), *fc = input(k, 36);
	const struct ap_model_tensor *ba = input(k, 37), *bc = input(k, 38);
	const struct ap_model_tensor *aux = input(k, 39), *fao = input(k, 43), *bao = input(k, 47);
	bool has_aux = input(k, 41);
	int32_t nfc = dim(fw, 0), nbc = dim(bw, 0), acc, frows, brows;

	if (!fo || !bo || !fa || !fc || !ba || !bc || (has_aux && (!aux || !fao || !bao)))
		return 0;
	acc = nfc > nbc ? nfc : nbc;
	if (has_aux) {
		acc = dim(fao, 0) > acc ? dim(fao, 0) : acc;
		acc = dim(bao, 0) > acc ? dim(bao, 0) : acc;
	}
	frows = row_sums_rows(k, !input(k, 1), has_aux, 16, nfc, dim(fo, 1));
	brows = row_sums_rows(k, !input(k, 18), has_aux, 33, nbc, dim(bo, 1));
	{
		int32_t b[1] = { nb }, c[1] = { nfc }, ad[2] = { acc, nb };
		int32_t frs[2] = { frows, nfc }, brs[2] = { brows, nbc };
		const struct kt_tmp t[] = {
			{ "input_quantized", wt, in->shape, in->rank, AP_ALLOC_ARENA },
			{ "fw_activation_state_quantized", wt, fa->shape, fa->rank,
			  AP_ALLOC_ARENA },
			{ "bw_activation_state_quantized", wt, ba->shape, ba->rank,
			  AP_ALLOC_ARENA },
			{ "fw_cell_state_quantized", wt, fc->shape, fc->rank, AP_ALLOC_ARENA },
			{ "bw_cell_state_quantized", wt, bc->shape, bc->rank, AP_ALLOC_ARENA },
			{ "input_scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "aux_input_scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "output_state_scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "product_scaling_factors", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "recovered_cell_weights", AP_TT_FLOAT32, c, 1, AP_ALLOC_ARENA },
			{ "accum_scratch", AP_TT_INT32, ad, 2, AP_ALLOC_ARENA },
			{ "input_zero_points", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "aux_input_zero_points", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "output_state_zero_points", AP_TT_FLOAT32, b, 1, AP_ALLOC_ARENA },
			{ "fw_row_sums", AP_TT_INT32, frs, 2, AP_ALLOC_PERSISTENT },
			{ "bw_row_sums", AP_TT_INT32, brs, 2, AP_ALLOC_PERSISTENT },
			{ "aux_input_quantized", wt, aux ? aux->shape : NULL, aux ? aux->rank : 0,
			  AP_ALLOC_ARENA },
		};

		return kt_set_tmps(k, 2, base + 2, t, has_aux ? 17 : 16);
	}
}

/*
 * BIDIRECTIONAL_SEQUENCE_LSTM: bidirectional_sequence_lstm.cc. Init reserves 19 tensors;
 * Prepare makes the first two the scratch buffers, of the input type: forward [n_batch,
 * n_fw_cell * (cifg ? 4 : 5) + 16], backward [n_batch, n_bw_cell * (cifg ? 4 : 5)] (no
 * padding on that side), each side's cifg its own input_to_input weights being absent.
 * n_batch is input dim 1 when time major (the option's default), else dim 0; n_cell is
 * each side's input_to_output weights dim 0. The hybrid kernel (uint8/int8 weights) adds
 * 16 or 17 more (bidi_lstm_hybrid). Prepare refuses any input but float32.
 */
int kt_prep_bidirectional_sequence_lstm(struct kctx *k)
{
	const struct ap_model_tensor *in = input(k, 0), *fw = input(k, 4), *bw = input(k, 21);
	int32_t base = k->init_base[k->node], nb, f, b;
	uint8_t wt;
	bool tm;

	if (base < 0 || !in || !fw || !bw || k->mo->n_inputs != 48 || in->rank != 3 ||
	    fw->rank != 2 || bw->rank != 2 || ttype(k, in_index(k, 0)) != AP_TT_FLOAT32)
		return 0;
	wt = ttype(k, in_index(k, 4));
	tm = k->mo->options_type != OPT_BIDIRECTIONAL_SEQUENCE_LSTM || option(k, 4, 1, 1);
	nb = dim(in, tm ? 1 : 0);
	f = mul(dim(fw, 0), input(k, 1) ? 5 : 4);
	b = mul(dim(bw, 0), input(k, 18) ? 5 : 4);
	if (f < 0 || f > INT32_MAX - 16 || b < 0)
		return 0;
	{
		int32_t fd[2] = { nb, f + 16 }, bd[2] = { nb, b };
		const struct kt_tmp t[] = {
			{ "fw_scratch_buffer", AP_TT_FLOAT32, fd, 2, AP_ALLOC_ARENA },
			{ "bw_scratch_buffer", AP_TT_FLOAT32, bd, 2, AP_ALLOC_ARENA },
		};

		if (kt_set_tmps(k, 0, base, t, 2))
			return -1;
	}
	/* IsHybridOp: any other weight type gets the float kernel's Prepare */
	return wt == AP_TT_UINT8 || wt == AP_TT_INT8 ? bidi_lstm_hybrid(k, base, nb, wt) : 0;
}
