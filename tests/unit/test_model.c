// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the TFLite model reader (src/plan/model/model.c, src/plan/model/opnames.c) on
 * the bundled models, and of the names of builtin operators and tensor types.
 *
 * The facts about the bundled models were checked independently of this reader: with
 * LiteRT's Python interpreter (get_tensor_details, _get_ops_details) and with the flatbuffers
 * Python runtime over LiteRT's generated schema (schema_py_generated), which also gave the
 * fields the interpreter does not show (is_variable, buffers, opcode versions).
 *
 * test_model_synth.c tests what no bundled model has on synthetic models (model_fixture.h
 * builds them); test_model_robust.c truncates and bit-flips every bundled model many times.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/model.h"
#include "model_fixture.h"

static bool load(const char *file, struct ap_model *m)
{
	char path[256], err[AP_ERR_LEN];

	snprintf(path, sizeof(path), TEST_MODELS "/%s", file);
	err[0] = 0;
	if (ap_model_load(path, m, err)) {
		CHECK(nm("%s loads", file), 0, "%s", err);
		return false;
	}
	CHECK(nm("%s loads", file), 1, "%s", "");
	CHECK_STR(nm("%s path kept", file), m->path, path);
	return true;
}

static int find_tensor(const struct ap_model_subgraph *sg, const char *name)
{
	uint32_t i;

	for (i = 0; i < sg->n_tensors; i++) {
		if (!strcmp(sg->tensors[i].name, name))
			return (int)i;
	}
	return -1;
}

/* ---- facts about the bundled models ---- */

static void test_mobilenet_v2(void)
{
	static const char *const ops_want[] = {
		"ADD", "AVERAGE_POOL_2D", "CONV_2D", "DEPTHWISE_CONV_2D", "RESHAPE", "SOFTMAX",
	};
	const char *f = "mobilenet_v2_1.0_224_quant.tflite";
	const struct ap_model_subgraph *sg;
	const struct ap_model_tensor *t;
	bool seen[6] = { 0 }, other = false;
	struct ap_model m;
	uint32_t i, k;

	if (!load(f, &m))
		return;
	CHECK_EQ_I64("mnv2 file_size", m.file_size, 3610798);
	CHECK_EQ_I64("mnv2 version", m.version, 3);
	CHECK_STR("mnv2 description", m.description, "MLIR Converted.");
	CHECK_EQ_I64("mnv2 subgraphs", m.n_subgraphs, 1);
	CHECK_EQ_I64("mnv2 opcodes", m.n_opcodes, 6);
	CHECK_EQ_I64("mnv2 buffers", m.n_buffers, 177);
	CHECK_EQ_I64("mnv2 metadata", m.n_metadata, 2);
	if (m.n_metadata == 2) {
		CHECK_STR("mnv2 metadata 0", m.metadata[0].name, "min_runtime_version");
		CHECK_EQ_I64("mnv2 metadata 0 buffer", m.metadata[0].buffer, 175);
		CHECK_STR("mnv2 metadata 1", m.metadata[1].name, "TFLITE_METADATA");
	}
	CHECK("mnv2 no offline plan", !m.offline_offsets && !m.n_offline_offsets, "has one");
	sg = &m.subgraphs[0];
	CHECK_STR("mnv2 subgraph name", sg->name, "main");
	CHECK_EQ_I64("mnv2 tensors", sg->n_tensors, 174);
	CHECK_EQ_I64("mnv2 ops", sg->n_ops, 66);
	CHECK_INTS("mnv2 inputs", sg->inputs, sg->n_inputs, 0);
	CHECK_INTS("mnv2 outputs", sg->outputs, sg->n_outputs, 173);
	if (sg->n_tensors != 174 || sg->n_ops != 66)
		goto out;
	t = &sg->tensors[0];
	CHECK_STR("mnv2 input name", t->name, "input");
	CHECK_INTS("mnv2 input shape", t->shape, t->rank, 1, 224, 224, 3);
	CHECK_STR("mnv2 input type", ap_tensor_type_name(t->type), "UINT8");
	CHECK("mnv2 input has no shape_signature", !t->shape_signature, "has one");
	CHECK("mnv2 input not constant", !ap_model_buffer_is_constant(&m, t->buffer), "is");
	CHECK("mnv2 input not variable", !t->is_variable, "is");
	t = &sg->tensors[173];
	CHECK_STR("mnv2 output name", t->name, "MobilenetV2/Predictions/Softmax");
	CHECK_INTS("mnv2 output shape", t->shape, t->rank, 1, 1001);
	CHECK_STR("mnv2 op 0", ap_model_op_name(&m, &sg->ops[0]), "CONV_2D");
	CHECK_INTS("mnv2 op 0 inputs", sg->ops[0].inputs, sg->ops[0].n_inputs, 0, 55, 54);
	CHECK_INTS("mnv2 op 0 outputs", sg->ops[0].outputs, sg->ops[0].n_outputs, 56);
	CHECK("mnv2 op 0 weights constant",
	      ap_model_buffer_is_constant(&m, sg->tensors[55].buffer), "not constant");
	CHECK_EQ_I64("mnv2 op 0 Conv2DOptions", sg->ops[0].options_type, 1);
	CHECK_EQ_I64("mnv2 op 0 padding SAME", ap_model_op_option(&m, &sg->ops[0], 0, 1, 0), 0);
	CHECK_EQ_I64("mnv2 op 0 stride_w", ap_model_op_option(&m, &sg->ops[0], 1, 4, 0), 2);
	CHECK_EQ_I64("mnv2 op 0 stride_h", ap_model_op_option(&m, &sg->ops[0], 2, 4, 0), 2);
	CHECK_EQ_I64("mnv2 op 0 RELU6", ap_model_op_option(&m, &sg->ops[0], 3, 1, 0), 3);
	CHECK_EQ_I64("mnv2 op 0 dilation_w", ap_model_op_option(&m, &sg->ops[0], 4, 4, 1), 1);
	CHECK_STR("mnv2 op 1", ap_model_op_name(&m, &sg->ops[1]), "DEPTHWISE_CONV_2D");
	CHECK_EQ_I64("mnv2 op 1 DepthwiseConv2DOptions", sg->ops[1].options_type, 2);
	CHECK_EQ_I64("mnv2 op 1 stride_w", ap_model_op_option(&m, &sg->ops[1], 1, 4, 0), 1);
	CHECK_EQ_I64("mnv2 op 1 depth_multiplier", ap_model_op_option(&m, &sg->ops[1], 3, 4, 0),
		     1);
	CHECK_INTS("mnv2 op 1 inputs", sg->ops[1].inputs, sg->ops[1].n_inputs, 56, 57, 52);
	CHECK_STR("mnv2 op 65", ap_model_op_name(&m, &sg->ops[65]), "SOFTMAX");
	CHECK_INTS("mnv2 op 65 inputs", sg->ops[65].inputs, sg->ops[65].n_inputs, 172);
	CHECK_INTS("mnv2 op 65 outputs", sg->ops[65].outputs, sg->ops[65].n_outputs, 173);
	CHECK_EQ_I64("mnv2 op 65 SoftmaxOptions", sg->ops[65].options_type, 9);
	CHECK_EQ_I64("mnv2 op 65 beta 1.0f", ap_model_op_option(&m, &sg->ops[65], 0, 4, 0),
		     0x3f800000);
	for (i = 0; i < sg->n_ops; i++) {
		const char *n = ap_model_op_name(&m, &sg->ops[i]);

		for (k = 0; k < 6 && strcmp(n, ops_want[k]); k++)
			;
		if (k < 6)
			seen[k] = true;
		else
			other = true;
	}
	CHECK("mnv2 op kinds", !other && seen[0] && seen[1] && seen[2] && seen[3] && seen[4] &&
	      seen[5], "not exactly ADD AVERAGE_POOL_2D CONV_2D DEPTHWISE_CONV_2D RESHAPE SOFTMAX");
out:
	ap_model_free(&m);
	CHECK("mnv2 free zeroes", !m.subgraphs && !m.n_subgraphs && !m.path, "not zeroed");
}

static void test_split_concat(void)
{
	static const struct {
		const char *name;
		int32_t c;
		uint8_t type;
	} tw[12] = {
		{ "input1", 3, AP_TT_UINT8 }, { "inputs/rnn1", 1, AP_TT_UINT8 },
		{ "inputs/rnn2", 2, AP_TT_UINT8 }, { "concat", 6, AP_TT_UINT8 },
		{ "concat/split0", 1, AP_TT_UINT8 }, { "outputs/rnn1", 1, AP_TT_UINT8 },
		{ "concat/split2", 1, AP_TT_UINT8 }, { "concat/split3", 1, AP_TT_UINT8 },
		{ "concat/split4", 1, AP_TT_UINT8 }, { "concat/split5", 1, AP_TT_UINT8 },
		{ "outputs/rnn2", 2, AP_TT_UINT8 }, { "split_dim", 0, AP_TT_INT32 },
	};
	const struct ap_model_subgraph *sg;
	struct ap_model m;
	uint32_t i;

	if (!load("split_concat.tflite", &m))
		return;
	CHECK("split_concat no description", !m.description, "got \"%s\"", m.description);
	CHECK_EQ_I64("split_concat buffers", m.n_buffers, 2);
	CHECK_EQ_I64("split_concat opcodes", m.n_opcodes, 2);
	sg = &m.subgraphs[0];
	CHECK_STR("split_concat subgraph name is empty", sg->name, "");
	CHECK_INTS("split_concat inputs", sg->inputs, sg->n_inputs, 0, 1, 2);
	CHECK_INTS("split_concat outputs", sg->outputs, sg->n_outputs, 4, 6, 8, 5, 10);
	CHECK_EQ_I64("split_concat tensors", sg->n_tensors, 12);
	CHECK_EQ_I64("split_concat ops", sg->n_ops, 3);
	if (sg->n_tensors != 12 || sg->n_ops != 3)
		goto out;
	for (i = 0; i < 12; i++) {
		const struct ap_model_tensor *t = &sg->tensors[i];

		CHECK_STR(nm("split_concat tensor %u name", i), t->name, tw[i].name);
		CHECK_STR(nm("split_concat tensor %u type", i), ap_tensor_type_name(t->type),
			  ap_tensor_type_name(tw[i].type));
		if (tw[i].c) {
			CHECK("split_concat tensor shape", t->rank == 4 && t->shape[0] == 1 &&
			      t->shape[1] == 8 && t->shape[2] == 8 && t->shape[3] == tw[i].c,
			      "tensor %u: [%s], want [1,8,8,%d]", i, ints_str(t->shape, t->rank),
			      tw[i].c);
			CHECK(nm("split_concat tensor %u not constant", i),
			      !ap_model_buffer_is_constant(&m, t->buffer), "buffer %u", t->buffer);
		} else {
			CHECK_EQ_I64("split_concat split_dim is a scalar", t->rank, 0);
			CHECK_EQ_I64("split_concat split_dim buffer", t->buffer, 1);
			CHECK("split_concat split_dim constant",
			      ap_model_buffer_is_constant(&m, t->buffer), "not constant");
			CHECK_EQ_I64("split_concat split_dim data", m.buffers[1].data_len, 4);
		}
	}
	CHECK_STR("split_concat op 0", ap_model_op_name(&m, &sg->ops[0]), "CONCATENATION");
	CHECK_INTS("split_concat op 0 in", sg->ops[0].inputs, sg->ops[0].n_inputs, 0, 1, 2);
	CHECK_INTS("split_concat op 0 out", sg->ops[0].outputs, sg->ops[0].n_outputs, 3);
	CHECK_EQ_I64("split_concat op 0 axis", ap_model_op_option(&m, &sg->ops[0], 0, 4, -1), 3);
	CHECK_STR("split_concat op 1", ap_model_op_name(&m, &sg->ops[1]), "SPLIT");
	CHECK_EQ_I64("split_concat op 1 SplitOptions", sg->ops[1].options_type, 35);
	CHECK_EQ_I64("split_concat op 1 num_splits", ap_model_op_option(&m, &sg->ops[1], 0, 4, 0),
		     6);
	CHECK_INTS("split_concat op 1 in", sg->ops[1].inputs, sg->ops[1].n_inputs, 11, 3);
	CHECK_INTS("split_concat op 1 out", sg->ops[1].outputs, sg->ops[1].n_outputs,
		   4, 5, 6, 7, 8, 9);
	CHECK_STR("split_concat op 2", ap_model_op_name(&m, &sg->ops[2]), "CONCATENATION");
	CHECK_INTS("split_concat op 2 in", sg->ops[2].inputs, sg->ops[2].n_inputs, 7, 9);
	CHECK_INTS("split_concat op 2 out", sg->ops[2].outputs, sg->ops[2].n_outputs, 10);
	CHECK_EQ_I64("split_concat op 2 intermediates", sg->ops[2].n_intermediates, 0);
out:
	ap_model_free(&m);
}

/* StablehloReduceWindowOptions (builtin_options_2): its [long] vectors are kept. */
static void test_reduce_window_options(void)
{
	const struct ap_model_op *op;
	struct ap_model m;

	if (!load("gen_stablehlo_reduce_window.tflite", &m))
		return;
	op = m.subgraphs[0].n_ops > 2 ? &m.subgraphs[0].ops[1] : NULL;
	CHECK("reduce window: options_2 type 13", op && op->options2_type == 13 && op->vecs,
	      "type %d", op ? op->options2_type : -1);
	if (!op || !op->vecs || !m.subgraphs[0].ops[2].vecs) {
		ap_model_free(&m);
		return;
	}
	CHECK("reduce window: window [1, 3, 3, 1], padding 8 values, no base dilations",
	      op->vecs->longs[0].n == 4 && op->vecs->longs[0].v[1] == 3 &&
	      op->vecs->longs[4].n == 8 && op->vecs->longs[4].v[2] == 1 && !op->vecs->longs[2].v,
	      "window %u, padding %u", op->vecs->longs[0].n, op->vecs->longs[4].n);
	op = &m.subgraphs[0].ops[2];
	CHECK("reduce window: base dilations [1, 2, 2, 1]", op->vecs->longs[2].n == 4 &&
	      op->vecs->longs[2].v[1] == 2, "%u values", op->vecs->longs[2].n);
	ap_model_free(&m);
}

/* ReshapeOptions.new_shape and SqueezeOptions.squeeze_dims are kept (shapes.c). */
static void test_option_ints(void)
{
	const struct ap_model_op *sq = NULL;
	struct ap_model m;

	if (!load("gen_open_shapes.tflite", &m))
		return;
	for (uint32_t i = 0; i < m.subgraphs[0].n_ops; i++)
		if (m.subgraphs[0].ops[i].options_type == 30)	/* SqueezeOptions */
			sq = &m.subgraphs[0].ops[i];
	CHECK("squeeze_dims [2] kept", sq && sq->vecs && sq->vecs->n_ints == 1 &&
	      sq->vecs->ints[0] == 2, "%s", sq ? "wrong values" : "no SQUEEZE");
	ap_model_free(&m);
}

/* Sparse tensors and their FULLY_CONNECTED ledger lengths (the schema module counted
 * len(array_segments) + len(array_indices) - 1 of dim 1). */
static void test_sparse(void)
{
	const struct ap_model_subgraph *sg;
	struct ap_model m;

	if (!load("gen_fc_sparse.tflite", &m))
		return;
	sg = &m.subgraphs[0];
	CHECK_EQ_I64("fc_sparse: 3 sparse tensors", sg->n_sparse, 3);
	CHECK_EQ_I64("fc_sparse: float filter ledger", ap_model_sparse_ledger(sg, 1), 249);
	CHECK_EQ_I64("fc_sparse: int8 filter ledger", ap_model_sparse_ledger(sg, 3), 130);
	CHECK_EQ_I64("fc_sparse: uint16 segments, uint8 indices", ap_model_sparse_ledger(sg, 6),
		     320);
	CHECK_EQ_I64("fc_sparse: a dense tensor has none", ap_model_sparse_ledger(sg, 0), -1);
	CHECK_EQ_I64("fc_sparse: nor does tensor -1", ap_model_sparse_ledger(sg, -1), -1);
	ap_model_free(&m);
	/* 46 DENSIFY inputs, dims dense, dense, dense, CSR: dim 1 is not CSR */
	if (!load("face_detection_full_range_sparse.tflite", &m))
		return;
	sg = &m.subgraphs[0];
	CHECK_EQ_I64("face sparse: 46 sparse tensors", sg->n_sparse, 46);
	CHECK_EQ_I64("face sparse: first t14", sg->n_sparse ? sg->sparse[0].tensor : 0, 14);
	CHECK_EQ_I64("face sparse: t14's dim 1 dense, no ledger", ap_model_sparse_ledger(sg, 14),
		     -1);
	ap_model_free(&m);
}

static void test_lstm(void)
{
	const struct ap_model_subgraph *sg;
	const struct ap_model_op *op;
	struct ap_model m;
	uint32_t i, n_var = 0;

	if (!load("keras_lstm_mnist_ptq.tflite", &m))
		return;
	sg = &m.subgraphs[0];
	CHECK_EQ_I64("lstm tensors", sg->n_tensors, 29);
	CHECK_EQ_I64("lstm ops", sg->n_ops, 6);
	if (sg->n_tensors != 29 || sg->n_ops != 6)
		goto out;
	for (i = 0; i < sg->n_tensors; i++)
		n_var += sg->tensors[i].is_variable;
	CHECK_EQ_I64("lstm has two variable tensors", n_var, 2);
	CHECK("lstm tensor 17 variable", sg->tensors[17].is_variable, "not variable");
	CHECK_STR("lstm tensor 17 name", sg->tensors[17].name, "tfl.pseudo_qconst");
	CHECK_STR("lstm tensor 17 type", ap_tensor_type_name(sg->tensors[17].type), "INT8");
	CHECK_INTS("lstm tensor 17 shape", sg->tensors[17].shape, sg->tensors[17].rank, 1, 20);
	CHECK_EQ_I64("lstm tensor 17 no buffer", sg->tensors[17].buffer, 0);
	CHECK("lstm tensor 18 variable", sg->tensors[18].is_variable, "not variable");
	CHECK_STR("lstm tensor 18 type", ap_tensor_type_name(sg->tensors[18].type), "INT16");
	op = &sg->ops[1];
	CHECK_STR("lstm op 1", ap_model_op_name(&m, op), "UNIDIRECTIONAL_SEQUENCE_LSTM");
	CHECK_INTS("lstm op 1 inputs", op->inputs, op->n_inputs, 16, 8, 9, 10, 11, 12, 13, 14,
		   15, -1, -1, -1, 2, 3, 4, 5, -1, -1, 17, 18, -1, -1, -1, -1);
	CHECK_INTS("lstm op 1 outputs", op->outputs, op->n_outputs, 24);
	CHECK_EQ_I64("lstm op 1 UnidirectionalSequenceLSTMOptions", op->options_type, 71);
	CHECK_EQ_I64("lstm op 1 TANH", ap_model_op_option(&m, op, 0, 1, -1), 4);
	CHECK_EQ_I64("lstm op 1 cell_clip 10.0f", ap_model_op_option(&m, op, 1, 4, 0), 0x41200000);
	CHECK_EQ_I64("lstm op 1 not time_major", ap_model_op_option(&m, op, 3, 1, 0), 0);
	CHECK_EQ_I64("lstm op 0 QUANTIZE has no options", sg->ops[0].options_type, 0);
	CHECK_INTS("lstm op 1 intermediates", op->intermediates, op->n_intermediates,
		   19, 20, 21, 22, 23);
	CHECK_INTS("lstm intermediate shape", sg->tensors[19].shape, sg->tensors[19].rank, 0);
	CHECK_STR("lstm op 3", ap_model_op_name(&m, &sg->ops[3]), "FULLY_CONNECTED");
	CHECK_EQ_I64("lstm FULLY_CONNECTED version", m.opcodes[sg->ops[3].opcode_index].version,
		     4);
	CHECK_EQ_I64("lstm QUANTIZE version", m.opcodes[sg->ops[0].opcode_index].version, 1);
	CHECK_EQ_I64("lstm buffer 7 data", m.buffers[7].data_len, 5600);
	CHECK_EQ_I64("lstm buffer 7 offset", m.buffers[7].data_off, 4484);
out:
	ap_model_free(&m);
}

static void test_posenet(void)
{
	const struct ap_model_subgraph *sg;
	const struct ap_model_op *op;
	struct ap_model m;

	if (!load("posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite", &m))
		return;
	sg = &m.subgraphs[0];
	CHECK_EQ_I64("posenet tensors", sg->n_tensors, 105);
	CHECK_EQ_I64("posenet ops", sg->n_ops, 38);
	CHECK_EQ_I64("posenet opcodes", m.n_opcodes, 7);
	if (sg->n_tensors != 105 || sg->n_ops != 38 || m.n_opcodes != 7)
		goto out;
	CHECK_INTS("posenet input shape", sg->tensors[0].shape, sg->tensors[0].rank,
		   1, 353, 481, 3);
	CHECK_STR("posenet input type", ap_tensor_type_name(sg->tensors[0].type), "UINT8");
	CHECK_EQ_I64("posenet custom opcode builtin", m.opcodes[6].builtin, 32);
	CHECK_STR("posenet custom opcode name", m.opcodes[6].custom_name, "PosenetDecoderOp");
	CHECK("posenet builtin opcodes have no custom name", !m.opcodes[0].custom_name,
	      "got %s", m.opcodes[0].custom_name);
	op = &sg->ops[37];
	CHECK_STR("posenet last op", ap_model_op_name(&m, op), "PosenetDecoderOp");
	CHECK_INTS("posenet last op inputs", op->inputs, op->n_inputs, 98, 100, 96);
	CHECK_INTS("posenet last op outputs", op->outputs, op->n_outputs, 101, 102, 103, 104);
	CHECK_INTS("posenet outputs", sg->outputs, sg->n_outputs, 101, 102, 103, 104);
	CHECK_STR("posenet output 101", sg->tensors[101].name, "poses");
	CHECK_STR("posenet output type", ap_tensor_type_name(sg->tensors[101].type), "FLOAT32");
	CHECK_STR("posenet op 0", ap_model_op_name(&m, &sg->ops[0]), "QUANTIZE");
	CHECK_STR("posenet op 1", ap_model_op_name(&m, &sg->ops[1]), "PAD");
out:
	ap_model_free(&m);
}

static void test_face_detection(void)
{
	const struct ap_model_subgraph *sg;
	struct ap_model m;
	int t;

	if (!load("face_detection_short_range.tflite", &m))
		return;
	sg = &m.subgraphs[0];
	CHECK_EQ_I64("face tensors", sg->n_tensors, 250);
	CHECK_EQ_I64("face ops", sg->n_ops, 164);
	CHECK_INTS("face inputs", sg->inputs, sg->n_inputs, 0);
	CHECK_INTS("face outputs", sg->outputs, sg->n_outputs, 175, 174);
	if (sg->n_tensors != 250 || sg->n_ops != 164)
		goto out;
	CHECK_STR("face input name", sg->tensors[0].name, "input");
	CHECK_INTS("face input shape", sg->tensors[0].shape, sg->tensors[0].rank, 1, 128, 128, 3);
	CHECK_STR("face input type", ap_tensor_type_name(sg->tensors[0].type), "FLOAT32");
	t = find_tensor(sg, "regressors");
	CHECK_EQ_I64("face regressors index", t, 175);
	if (t == 175) {
		CHECK_INTS("face regressors shape", sg->tensors[t].shape, sg->tensors[t].rank,
			   1, 896, 16);
		CHECK_STR("face regressors type", ap_tensor_type_name(sg->tensors[t].type),
			  "FLOAT32");
	}
	CHECK_EQ_I64("face classificators index", find_tensor(sg, "classificators"), 174);
	CHECK_STR("face op 0", ap_model_op_name(&m, &sg->ops[0]), "DEQUANTIZE");
	CHECK_STR("face op 163", ap_model_op_name(&m, &sg->ops[163]), "CONCATENATION");
out:
	ap_model_free(&m);
}

static void test_small_models(void)
{
	static const struct {
		const char *file;
		uint32_t tensors, ops;
	} w[] = {
		{ "deeplabv3_mnv2_dm05_pascal_quant.tflite", 186, 72 },
		{ "mobilenet_v1_0.25_128_quant.tflite", 89, 31 },
		{ "selfie_segmentation.tflite", 360, 246 },
	};
	struct ap_model m;
	size_t i;

	for (i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		if (!load(w[i].file, &m))
			continue;
		CHECK_EQ_I64(nm("%s tensors", w[i].file), m.subgraphs[0].n_tensors, w[i].tensors);
		CHECK_EQ_I64(nm("%s ops", w[i].file), m.subgraphs[0].n_ops, w[i].ops);
		ap_model_free(&m);
	}

	if (!load("model_invoking_error.tflite", &m))
		return;
	CHECK_EQ_I64("invoking_error has no buffers", m.n_buffers, 0);
	CHECK_STR("invoking_error description", m.description, "programmatic model");
	CHECK_EQ_I64("invoking_error tensors", m.subgraphs[0].n_tensors, 2);
	if (m.subgraphs[0].n_tensors == 2 && m.subgraphs[0].n_ops == 1) {
		CHECK_STR("invoking_error tensor name empty", m.subgraphs[0].tensors[0].name, "");
		CHECK_STR("invoking_error custom op", ap_model_op_name(&m, &m.subgraphs[0].ops[0]),
			  "fake-op-double");
		CHECK("invoking_error buffer 0 not constant",
		      !ap_model_buffer_is_constant(&m, 0), "is");
	}
	ap_model_free(&m);
}

static void test_names(void)
{
	struct ap_model_opcode oc[4] = {
		{ .builtin = 32, .custom_name = NULL, .version = 1 },
		{ .builtin = 300, .custom_name = NULL, .version = 1 },
		{ .builtin = 150, .custom_name = NULL, .version = 1 },
		{ .builtin = 301, .custom_name = NULL, .version = 1 },
	};
	struct ap_model m = { .opcodes = oc, .n_opcodes = 4 };
	struct ap_model_op op = { 0 };
	const char *n300, *n301;

	CHECK_STR("builtin 0", ap_builtin_name(0), "ADD");
	CHECK_STR("builtin 1", ap_builtin_name(1), "AVERAGE_POOL_2D");
	CHECK_STR("builtin 3", ap_builtin_name(3), "CONV_2D");
	CHECK_STR("builtin 20", ap_builtin_name(20), "RELU_N1_TO_1");
	CHECK_STR("builtin 32", ap_builtin_name(32), "CUSTOM");
	CHECK_STR("builtin 44", ap_builtin_name(44), "UNIDIRECTIONAL_SEQUENCE_LSTM");
	CHECK_STR("builtin 102", ap_builtin_name(102), "SPLIT_V");
	CHECK_STR("builtin 126", ap_builtin_name(126), "BATCH_MATMUL");
	CHECK_STR("builtin 127", ap_builtin_name(127), "PLACEHOLDER_FOR_GREATER_OP_CODES");
	CHECK_STR("builtin 128", ap_builtin_name(128), "CUMSUM");
	CHECK_STR("builtin 150", ap_builtin_name(150), "GELU");
	CHECK_STR("builtin 159", ap_builtin_name(159), "BITCAST");
	CHECK_STR("builtin 203", ap_builtin_name(203), "DILATE");
	CHECK_STR("builtin 209", ap_builtin_name(209), "STABLEHLO_CASE");
	CHECK("builtin 210 unknown", !ap_builtin_name(210), "got %s", ap_builtin_name(210));
	CHECK("builtin -1 unknown", !ap_builtin_name(-1), "got %s", ap_builtin_name(-1));
	CHECK_STR("type 0", ap_tensor_type_name(0), "FLOAT32");
	CHECK_STR("type 9", ap_tensor_type_name(9), "INT8");
	CHECK_STR("type 17", ap_tensor_type_name(17), "INT4");
	CHECK_STR("type 22", ap_tensor_type_name(22), "FLOAT8_E5M2");
	CHECK_STR("type 23", ap_tensor_type_name(23), "UNKNOWN");
	CHECK_STR("type 255", ap_tensor_type_name(255), "UNKNOWN");
	op.opcode_index = 0;
	CHECK_STR("op name CUSTOM without a name", ap_model_op_name(&m, &op), "CUSTOM");
	op.opcode_index = 1;
	CHECK_STR("op name unknown code", ap_model_op_name(&m, &op), "OP_300");
	op.opcode_index = 2;
	CHECK_STR("op name GELU", ap_model_op_name(&m, &op), "GELU");
	op.opcode_index = 3;
	n301 = ap_model_op_name(&m, &op);
	op.opcode_index = 1;
	n300 = ap_model_op_name(&m, &op);
	op.opcode_index = 3;
	ap_model_op_name(&m, &op);
	CHECK("unknown op names can be kept", !strcmp(n300, "OP_300") && !strcmp(n301, "OP_301"),
	      "got %s and %s", n300, n301);
	op.opcode_index = 4;
	CHECK_STR("op name bad opcode index", ap_model_op_name(&m, &op), "INVALID_OPCODE");
}

int main(void)
{
	/* A hang is a failure too: SIGALRM ends the run with a non-zero status. */
	alarm(120);
	test_names();
	test_mobilenet_v2();
	test_split_concat();
	test_reduce_window_options();
	test_option_ints();
	test_sparse();
	test_lstm();
	test_posenet();
	test_face_detection();
	test_small_models();
	TEST_EXIT();
}
