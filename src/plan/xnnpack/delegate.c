// SPDX-License-Identifier: Apache-2.0
/*
 * delegate: which TFLite operators LiteRT 2.3's XNNPACK delegate takes, and the partitions
 * TFLite's partitioner makes of them (docs/xnnpack-delegate.md). The delegate's default
 * flags are modelled: signed and unsigned 8-bit quantization on, no fp16 forcing, no
 * dynamic fully connected, dynamically quantized operators on.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/util/err.h"
#include "xnn_priv.h"

#define MAX_DIMS 6	/* XNN_MAX_TENSOR_DIMS */

struct dctx {
	const struct ap_model *m;
	const struct ap_graph *g;
	const struct ap_model_subgraph *sg;
	const struct ap_model_op *mo;
	bool *quasi;		/* by tensor: unpacked from static data by the delegate */
	int32_t *handle;	/* by resource tensor: the VAR_HANDLE writing it, -1 */
	int32_t *proxy;		/* by resource tensor: the tensor giving its type, -1 */
	int32_t node;		/* the operator visited */
	char gap[96];		/* an operator the rules here do not follow */
};

static const struct ap_model_tensor *mt(const struct dctx *c, int32_t t)
{
	return &c->sg->tensors[t];
}

static bool valid(const struct dctx *c, int32_t t)
{
	return t >= 0 && (uint32_t)t < c->sg->n_tensors;
}

static bool is_static(const struct dctx *c, int32_t t)
{
	return c->g->t[t].alloc == AP_ALLOC_WEIGHTS;
}

static bool static_or_quasi(const struct dctx *c, int32_t t)
{
	return is_static(c, t) || c->quasi[t];
}

static bool rank_in(const struct dctx *c, int32_t t, uint32_t lo, uint32_t hi)
{
	return mt(c, t)->rank >= lo && mt(c, t)->rank <= hi;
}

/* CheckTensorFloatOrQUInt8Type and its kin: float32 (float16 when f16), or 8-bit with
 * per-tensor affine quantization (one scale). */
static bool type_ok(const struct dctx *c, int32_t t, bool f16, bool q8)
{
	const struct ap_model_tensor *x = mt(c, t);

	switch (x->type) {
	case AP_TT_FLOAT32:
		return true;
	case AP_TT_FLOAT16:
		return f16;
	case AP_TT_INT8:
	case AP_TT_UINT8:
		return q8 && x->n_scales == 1;
	default:
		return false;
	}
}

/* The filter of a convolution: float, or int8 with per-tensor or per-channel scales. */
static bool filter_ok(const struct dctx *c, int32_t t)
{
	const struct ap_model_tensor *x = mt(c, t);

	switch (x->type) {
	case AP_TT_FLOAT32: case AP_TT_FLOAT16:
		return true;
	case AP_TT_INT8:
		return x->n_scales >= 1;
	case AP_TT_UINT8:
		return x->n_scales == 1;
	default:
		return false;
	}
}

static bool bias_ok(const struct dctx *c, int32_t t)
{
	uint8_t ty = mt(c, t)->type;

	return ty == AP_TT_FLOAT32 || ty == AP_TT_FLOAT16 || ty == AP_TT_INT32;
}

static int64_t opt(const struct dctx *c, unsigned field, unsigned size, int64_t def)
{
	return ap_model_op_option(c->m, c->mo, field, size, def);
}

/* ConvertActivationToOutputRange: NONE, RELU, RELU_N1_TO_1, RELU6. */
static bool act_ok(int64_t a)
{
	return a >= 0 && a <= 3;
}

static const char *conv_rules(const struct dctx *c, const struct ap_op *op, bool dw)
{
	int32_t in, f, b, out;
	int64_t sw, sh, dwf, dhf, act;

	if (op->n_in != 3 || op->n_out != 1)
		return "needs 3 inputs and 1 output";
	in = op->in[0], f = op->in[1], b = op->in[2], out = op->out[0];
	if (!valid(c, in) || !valid(c, f) || !valid(c, out))
		return "a missing tensor";
	sw = opt(c, 1, 4, 0), sh = opt(c, 2, 4, 0);
	act = opt(c, dw ? 4 : 3, 1, 0);
	dwf = opt(c, dw ? 5 : 4, 4, 1), dhf = opt(c, dw ? 6 : 5, 4, 1);
	if (sw <= 0 || sh <= 0 || dwf <= 0 || dhf <= 0)
		return "a stride or dilation not positive";
	if (!type_ok(c, in, true, true) || mt(c, in)->rank != 4)
		return "input not a 4-D float or 8-bit tensor";
	if (!filter_ok(c, f) || mt(c, f)->rank != 4)
		return "filter not a 4-D float or int8 tensor";
	if (!static_or_quasi(c, f))
		return "filter not static";
	if (!valid(c, b))
		return "no bias";
	if (!bias_ok(c, b) || mt(c, b)->rank != 1)
		return "bias not a 1-D float or int32 tensor";
	if (!static_or_quasi(c, b))
		return "bias not static";
	if (!type_ok(c, out, true, true) || mt(c, out)->rank != 4)
		return "output not a 4-D float or 8-bit tensor";
	if (mt(c, in)->type != mt(c, out)->type)
		return "input and output types differ";
	if (mt(c, in)->type != mt(c, f)->type &&
	    !(!dw && mt(c, in)->type == AP_TT_FLOAT32 && mt(c, f)->type == AP_TT_INT8))
		return "input and filter types differ";
	if (dw) {
		int64_t dm = opt(c, 3, 4, 0);
		int32_t oc = mt(c, f)->shape[3];

		if (dm <= 0 || oc % dm)
			return "depth multiplier does not divide the output channels";
	} else if (!mt(c, f)->shape[3] || mt(c, in)->shape[3] / mt(c, f)->shape[3] == 0) {
		return "no convolution groups";
	}
	if (!act_ok(act))
		return "unsupported fused activation";
	return NULL;
}

static const char *pool_rules(const struct dctx *c, const struct ap_op *op, bool avg)
{
	int64_t sw = opt(c, 1, 4, 0), sh = opt(c, 2, 4, 0);
	int64_t fw = opt(c, 3, 4, 0), fh = opt(c, 4, 4, 0);

	if (op->n_in != 1 || op->n_out != 1)
		return "needs 1 input and 1 output";
	if (avg ? !type_ok(c, op->in[0], true, false) : !type_ok(c, op->in[0], false, true))
		return avg ? "input not float" : "input not float32 or 8-bit";
	if (!type_ok(c, op->out[0], true, !avg))
		return "output type";
	if (sw <= 0 || sh <= 0 || fw <= 0 || fh <= 0)
		return "a stride or filter size not positive";
	if (sw > fw || sh > fh)
		return "stride wider than the filter";
	if (fw == 1 && fh == 1 && (sw > 1 || sh > 1))
		return "1x1 pooling with a stride";
	if (!act_ok(opt(c, 5, 1, 0)))
		return "unsupported fused activation";
	return NULL;
}

static const char *binary_rules(const struct dctx *c, const struct ap_op *op)
{
	int32_t a, b, o;
	bool arith = op->opcode == OP_ADD || op->opcode == OP_MUL || op->opcode == OP_SUB;

	if (op->n_in != 2 || op->n_out != 1)
		return "needs 2 inputs and 1 output";
	a = op->in[0], b = op->in[1], o = op->out[0];
	if (!valid(c, a) || !valid(c, b) || !valid(c, o))
		return "a missing tensor";
	if (!rank_in(c, a, 0, MAX_DIMS) || !rank_in(c, b, 0, MAX_DIMS))
		return "input of more than 6 dimensions";
	if (!type_ok(c, a, true, arith) || !type_ok(c, b, true, arith) ||
	    !type_ok(c, o, true, arith))
		return arith ? "a type not float or 8-bit" : "a type not float";
	if (arith && (mt(c, a)->type != mt(c, b)->type || mt(c, a)->type != mt(c, o)->type))
		return "input and output types differ";
	if (op->opcode == OP_PRELU && !static_or_quasi(c, b))
		return "slope not static";
	if ((arith || op->opcode == OP_DIV) && !act_ok(opt(c, 0, 1, 0)))
		return "unsupported fused activation";
	return NULL;
}

static const char *unary_rules(const struct dctx *c, const struct ap_op *op)
{
	int32_t in, out;

	if (op->n_in != 1 || op->n_out != 1)
		return "needs 1 input and 1 output";
	in = op->in[0], out = op->out[0];
	if (!valid(c, in) || !valid(c, out))
		return "a missing tensor";
	switch (op->opcode) {
	case OP_DEQUANTIZE:
		if (!type_ok(c, in, false, true) || mt(c, in)->type == AP_TT_FLOAT32 ||
		    !type_ok(c, out, true, false))
			return "not an 8-bit input to a float output";
		return NULL;
	case OP_ELU: case OP_LOGISTIC: case OP_TANH: case OP_LEAKY_RELU: case OP_QUANTIZE:
		if (!type_ok(c, in, true, true) || !type_ok(c, out, true, true))
			return "a type not float or 8-bit";
		if (op->opcode == OP_QUANTIZE && mt(c, in)->type != AP_TT_FLOAT32 &&
		    mt(c, in)->type != AP_TT_FLOAT16 && mt(c, in)->type != mt(c, out)->type)
			return "a requantization between types";
		return NULL;
	default:
		if (!type_ok(c, in, true, false) || !type_ok(c, out, true, false))
			return "a type not float";
		return NULL;
	}
}

static const char *reshape_rules(const struct dctx *c, const struct ap_op *op)
{
	if (op->n_in < 1 || op->n_in > 2 || op->n_out != 1)
		return "needs 1 or 2 inputs and 1 output";
	if (!type_ok(c, op->in[0], true, true) || !type_ok(c, op->out[0], true, true))
		return "a type not float or 8-bit";
	if (!rank_in(c, op->in[0], 0, MAX_DIMS) || !rank_in(c, op->out[0], 0, MAX_DIMS))
		return "more than 6 dimensions";
	if (op->n_in == 2 && valid(c, op->in[1])) {
		if (mt(c, op->in[1])->type != AP_TT_INT32)
			return "shape not int32";
		if (!is_static(c, op->in[1]))
			return "shape not static";
	}
	return NULL;
}

static const char *fc_rules(const struct dctx *c, const struct ap_op *op)
{
	int32_t in, f, out;
	uint8_t it, ft;

	if (opt(c, 1, 1, 0) != 0)
		return "non-default weights format";
	if (op->n_in < 2 || op->n_in > 3 || op->n_out != 1)
		return "needs 2 or 3 inputs and 1 output";
	in = op->in[0], f = op->in[1], out = op->out[0];
	if (!type_ok(c, in, true, true))
		return "input not float or 8-bit";
	if (mt(c, f)->rank != 2)
		return "filter not 2-D";
	if (!filter_ok(c, f) && mt(c, f)->type != AP_TT_INT4)
		return "filter type";
	if (!static_or_quasi(c, f))
		return "filter not static";
	if (op->n_in == 3 && valid(c, op->in[2])) {
		if (!bias_ok(c, op->in[2]))
			return "bias type";
		if (!static_or_quasi(c, op->in[2]))
			return "bias not static";
	}
	if (!type_ok(c, out, true, true))
		return "output not float or 8-bit";
	it = mt(c, in)->type, ft = mt(c, f)->type;
	if (it != mt(c, out)->type)
		return "input and output types differ";
	if (it != ft && !((it == AP_TT_FLOAT32 || it == AP_TT_FLOAT16) &&
			  (ft == AP_TT_INT8 || ft == AP_TT_INT4)) &&
	    !(it == AP_TT_INT8 && ft == AP_TT_INT4))
		return "input and filter types differ";
	if (ft == AP_TT_INT4 && mt(c, f)->shape[1] % 2)
		return "int4 filter of odd input channels";
	if (!act_ok(opt(c, 0, 1, 0)))
		return "unsupported fused activation";
	return NULL;
}

/* A static int32 (or int64 where allowed) 1-D tensor of the input's rank: its values. */
static bool static_ints(const struct dctx *c, int32_t t, bool i64, uint32_t n, int64_t *v)
{
	const struct ap_model_tensor *x;

	if (!valid(c, t) || !is_static(c, t))
		return false;
	x = mt(c, t);
	if (x->type != AP_TT_INT32 && !(i64 && x->type == AP_TT_INT64))
		return false;
	return x->rank == 1 && x->shape[0] == (int32_t)n && n <= MAX_DIMS &&
	       ap_model_tensor_ints(c->m, x, v, MAX_DIMS) == n;
}

/* VisitSliceNode and VisitStridedSliceNode: static begin/size (begin/end/strides, unit
 * strides, no ellipsis, new-axis or shrink mask), float or 8-bit data. */
static const char *slice_rules(const struct dctx *c, const struct ap_op *op, bool strided)
{
	int64_t a[MAX_DIMS], b[MAX_DIMS], st[MAX_DIMS];
	uint32_t r;

	if (op->n_in != (strided ? 4u : 3u) || op->n_out != 1 || !valid(c, op->in[0]) ||
	    !valid(c, op->out[0]))
		return strided ? "needs 4 inputs and 1 output" : "needs 3 inputs and 1 output";
	r = mt(c, op->in[0])->rank;
	if (strided && (opt(c, 2, 4, 0) || opt(c, 3, 4, 0) || opt(c, 4, 4, 0)))
		return "an ellipsis, new-axis or shrink mask";
	if (strided && !static_ints(c, op->in[3], false, r, st))
		return "strides not static int32 of the input's rank";
	for (uint32_t k = 0; strided && k < r; k++)
		if (st[k] != 1)
			return "a stride other than 1";
	if (!static_ints(c, op->in[1], !strided, r, a) ||
	    !static_ints(c, op->in[2], !strided, r, b))
		return "begin or size not static, of the input's rank";
	for (uint32_t k = 0; !strided && k < r; k++)
		if (a[k] < 0 || b[k] <= 0)
			return "a negative begin or a size not positive";
	if (!type_ok(c, op->in[0], true, true) || !type_ok(c, op->out[0], true, true))
		return "a type not float or 8-bit";
	return NULL;
}

/* VisitReduceNode: static int32 axes (at most 1-D, some), float or 8-bit data. */
static const char *reduce_rules(const struct dctx *c, const struct ap_op *op)
{
	const struct ap_model_tensor *ax;
	int64_t v[MAX_DIMS + 1];
	uint32_t n;

	if (op->n_in != 2 || op->n_out != 1 || !valid(c, op->in[1]))
		return "needs 2 inputs and 1 output";
	if (!type_ok(c, op->in[0], true, true))
		return "input not float or 8-bit";
	ax = mt(c, op->in[1]);
	if (ax->type != AP_TT_INT32 || ax->rank > 1 || !is_static(c, op->in[1]))
		return "axes not a static int32 vector";
	n = ap_model_tensor_ints(c->m, ax, v, MAX_DIMS + 1);
	if (!n || n > MAX_DIMS || (n == 1 && !v[0] && !mt(c, op->in[0])->rank))
		return "no axes, or more than 6";
	return type_ok(c, op->out[0], true, true) ? NULL : "output not float or 8-bit";
}

/*
 * A resource variable's proxy (ResourceInfo::AddProxyValue): a READ_VARIABLE's output or an
 * ASSIGN_VARIABLE's input gives the variable its type and shape, once a VAR_HANDLE before
 * named it; every later one must agree. NULL when taken.
 */
static const char *add_proxy(struct dctx *c, int32_t res, int32_t t)
{
	const struct ap_model_tensor *a, *b;

	if (!valid(c, res) || !valid(c, t))
		return "a missing tensor";
	if (!type_ok(c, t, true, true))
		return "a type not float or 8-bit";
	if (c->handle[res] < 0)
		return "no VAR_HANDLE before it";
	if (c->proxy[res] < 0) {
		c->proxy[res] = t;
		return NULL;
	}
	a = mt(c, c->proxy[res]), b = mt(c, t);
	if (a->type != b->type || a->rank != b->rank)
		return "a type or shape other than the variable's";
	for (uint32_t k = 0; k < a->rank; k++)
		if (a->shape[k] != b->shape[k])
			return "a type or shape other than the variable's";
	return NULL;
}

/*
 * VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE (VisitVarHandleNode, VisitReadVariableNode,
 * VisitAssignVariableNode): the dry run refuses a VAR_HANDLE, noting it as its output's
 * handle; a read (of a ranked output) or an assignment is taken when it gives the
 * variable a proxy (add_proxy); choose() then takes the VAR_HANDLE of every variable with
 * one.
 */
static const char *variable_rules(struct dctx *c, const struct ap_op *op)
{
	switch (op->opcode) {
	case OP_VAR_HANDLE:
		if (op->n_out == 1 && valid(c, op->out[0]))
			c->handle[op->out[0]] = c->node;
		return "a variable's handle: taken once a read or an assignment types it";
	case OP_READ_VARIABLE:
		if (op->n_in != 1 || op->n_out != 1 || !valid(c, op->out[0]))
			return "needs 1 input and 1 output";
		if (!mt(c, op->out[0])->rank)
			return "a scalar or unranked output";
		return add_proxy(c, op->in[0], op->out[0]);
	default:
		if (op->n_in != 2)
			return "needs 2 inputs";
		return add_proxy(c, op->in[0], op->in[1]);
	}
}

/* Subgraph::VisitNode as a dry run: NULL when the delegate takes op, else why not. */
static const char *visit(struct dctx *c, const struct ap_op *op)
{
	switch (op->opcode) {
	case OP_ABS: case OP_CEIL: case OP_COS: case OP_DEQUANTIZE: case OP_ELU: case OP_EXP:
	case OP_FLOOR: case OP_GELU: case OP_HARD_SWISH: case OP_LEAKY_RELU: case OP_LOGISTIC:
	case OP_LOG: case OP_NEG: case OP_QUANTIZE: case OP_RELU: case OP_RELU6:
	case OP_RELU_N1_TO_1: case OP_ROUND: case OP_RSQRT: case OP_SIN: case OP_SQRT:
	case OP_SQUARE: case OP_TANH:
		return unary_rules(c, op);
	case OP_ADD: case OP_DIV: case OP_MAXIMUM: case OP_MINIMUM: case OP_MUL: case OP_PRELU:
	case OP_SQUARED_DIFFERENCE: case OP_SUB:
		return binary_rules(c, op);
	case OP_AVERAGE_POOL_2D:
		return pool_rules(c, op, true);
	case OP_MAX_POOL_2D:
		return pool_rules(c, op, false);
	case OP_CONV_2D:
		return conv_rules(c, op, false);
	case OP_DEPTHWISE_CONV_2D:
		return conv_rules(c, op, true);
	case OP_FULLY_CONNECTED:
		return fc_rules(c, op);
	case OP_RESHAPE:
		return reshape_rules(c, op);
	case OP_CONCATENATION: {
		int64_t axis = opt(c, 0, 4, 0);

		if (op->n_in < 2 || op->n_in > 5 || op->n_out != 1)
			return "needs 2 to 5 inputs and 1 output";
		for (uint32_t k = 0; k < op->n_in; k++)
			if (!type_ok(c, op->in[k], true, true) ||
			    axis >= (int64_t)mt(c, op->in[k])->rank)
				return "an input type or the axis";
		return type_ok(c, op->out[0], true, true) ? NULL : "output type";
	}
	case OP_DEPTH_TO_SPACE:
		if (!type_ok(c, op->in[0], true, true) || !type_ok(c, op->out[0], true, true))
			return "a type not float or 8-bit";
		return opt(c, 0, 4, 0) > 1 ? NULL : "block size of 1";
	case OP_PAD:
		if (op->n_in != 2 || !type_ok(c, op->in[0], true, true) ||
		    !rank_in(c, op->in[0], 1, MAX_DIMS))
			return "input type or rank";
		if (mt(c, op->in[1])->type != AP_TT_INT32 || !is_static(c, op->in[1]))
			return "paddings not static int32";
		return NULL;
	case OP_RESIZE_BILINEAR:
		if (!type_ok(c, op->in[0], false, true) || mt(c, op->in[0])->rank != 4)
			return "input not 4-D float32 or 8-bit";
		if (mt(c, op->in[1])->type != AP_TT_INT32 || !is_static(c, op->in[1]))
			return "size not static int32";
		return NULL;
	case OP_SOFTMAX:
		if (opt(c, 0, 4, 0x3f800000) != 0x3f800000)
			return "beta other than 1";
		return type_ok(c, op->in[0], true, false) ? NULL : "input not float";
	case OP_CUSTOM:
		if (op->name && !strcmp(op->name, "Convolution2DTransposeBias")) {
			if (op->n_in != 3 || !type_ok(c, op->in[0], false, false) ||
			    !static_or_quasi(c, op->in[1]) || !static_or_quasi(c, op->in[2]))
				return "float32 input, static filter and bias needed";
			return NULL;
		}
		return "a custom operator the delegate does not know";
	case OP_SLICE:
		return slice_rules(c, op, false);
	case OP_STRIDED_SLICE:
		return slice_rules(c, op, true);
	case OP_MEAN: case OP_SUM: case OP_REDUCE_MAX: case OP_REDUCE_MIN:
		return reduce_rules(c, op);
	case OP_TRANSPOSE:
		if (op->n_in != 2 || op->n_out != 1 || !type_ok(c, op->in[0], true, true))
			return "input not float or 8-bit";
		for (uint32_t k = 0; k < mt(c, op->in[0])->rank; k++)
			if (mt(c, op->in[0])->shape[k] <= 0)
				return "a dimension not positive";
		if (!valid(c, op->in[1]) || !is_static(c, op->in[1]) ||
		    mt(c, op->in[1])->rank != 1 || mt(c, op->in[1])->shape[0] > MAX_DIMS)
			return "permutation not static, or of more than 6 dimensions";
		return NULL;
	case OP_SPLIT:
		if (op->n_in != 2 || op->n_out < 2 || op->n_out > 4)
			return "needs 2 inputs and 2 to 4 outputs";
		if (!valid(c, op->in[0]) || mt(c, op->in[0])->type != AP_TT_INT32 ||
		    !is_static(c, op->in[0]))
			return "axis not static int32";
		if (!type_ok(c, op->in[1], true, true))
			return "input not float or 8-bit";
		for (uint32_t k = 0; k < op->n_out; k++)
			if (!valid(c, op->out[k]) || !type_ok(c, op->out[k], true, true))
				return "an output not float or 8-bit";
		return NULL;
	case OP_EXPAND_DIMS:
		return "the delegate's rule refuses it before any check";
	case OP_VAR_HANDLE: case OP_READ_VARIABLE: case OP_ASSIGN_VARIABLE:
		return variable_rules(c, op);
	case OP_BATCH_MATMUL: case OP_TRANSPOSE_CONV:
	case OP_SPACE_TO_DEPTH: case OP_STABLEHLO_COMPOSITE:
		snprintf(c->gap, sizeof(c->gap), "%s (the delegate's rules for it)",
			 op->name ? op->name : "?");
		return "not modelled here: taken as refused";
	default:
		return "an operator the delegate does not handle";
	}
}

/* DEQUANTIZE or DENSIFY of static data, which the delegate unpacks itself
 * (PrepareOpsToDelegate): its output becomes quasi-static. */
static bool static_unpack(struct dctx *c, const struct ap_op *op)
{
	const struct ap_model_tensor *in, *out;

	if (op->n_in != 1 || op->n_out != 1 || !valid(c, op->in[0]) || !valid(c, op->out[0]))
		return false;
	in = mt(c, op->in[0]), out = mt(c, op->out[0]);
	if (op->opcode == OP_DEQUANTIZE)
		return !in->sparse && static_or_quasi(c, op->in[0]) &&
		       (in->type == AP_TT_FLOAT16 || (in->type == AP_TT_INT8 && in->n_scales)) &&
		       out->type == AP_TT_FLOAT32;
	if (op->opcode == OP_DENSIFY)
		return is_static(c, op->in[0]) && in->sparse && out->type == in->type &&
		       (in->type == AP_TT_FLOAT16 || in->type == AP_TT_INT8 ||
			in->type == AP_TT_FLOAT32);
	return false;
}

/* Which operators the delegate asks for (x->ops[i].delegated and .why). */
static void choose(struct dctx *c, struct ap_xnn_plan *x, int32_t *producer, bool *unpack)
{
	const struct ap_graph *g = c->g;

	for (uint32_t i = 0; i < g->n_ops; i++) {
		const struct ap_op *op = &g->ops[i];
		const char *why;

		c->mo = &c->sg->ops[i];
		c->node = (int32_t)i;
		if (static_unpack(c, op)) {
			unpack[i] = true;
			c->quasi[op->out[0]] = true;
			producer[op->out[0]] = (int32_t)i;
			x->ops[i].why = "static weights the delegate unpacks itself";
			continue;
		}
		why = visit(c, op);
		if (why) {
			x->ops[i].why = why;
			for (uint32_t k = 0; k < op->n_in; k++)
				if (valid(c, op->in[k]) && producer[op->in[k]] >= 0)
					unpack[producer[op->in[k]]] = false;
			if (c->gap[0] && !x->not_modelled[0])
				snprintf(x->not_modelled, sizeof(x->not_modelled),
					 "operator %u %s", i, c->gap);
			c->gap[0] = 0;
			continue;
		}
		x->ops[i].delegated = true;
	}
	/* the handle of every variable a read or an assignment typed */
	for (uint32_t t = 0; t < c->sg->n_tensors; t++)
		if (c->proxy[t] >= 0 && c->handle[t] >= 0) {
			x->ops[c->handle[t]].delegated = true;
			x->ops[c->handle[t]].why = NULL;
		}
	for (uint32_t i = 0; i < g->n_ops; i++)
		if (unpack[i]) {
			x->ops[i].delegated = true;
			x->ops[i].unpacks = true;
			x->ops[i].why = NULL;
		}
}

/* One node subset of TFLite's partitioner (graph_info.cc's NodeSubset). */
struct subset {
	int type;		/* -1 unexplored, 0 TFLite's, 1 the delegate's */
	int32_t *nodes, *in, *out;
	uint32_t n_nodes, n_in, n_out;
};

#define EPOCH_NOT_READY (-1)
#define EPOCH_ALWAYS (-2)

struct part_state {
	const struct ap_graph *g;
	const bool *mine;
	int32_t *tepoch, *nepoch, *ctl_in, *ctl_next;
	struct subset *ss;
	uint32_t n_ss;
};

static bool side_effect(const struct ap_graph *g, const struct ap_op *op)
{
	for (uint32_t k = 0; k < op->n_in; k++)
		if (op->in[k] >= 0 && g->t[op->in[k]].type == AP_TT_RESOURCE)
			return true;
	for (uint32_t k = 0; k < op->n_out; k++)
		if (op->out[k] >= 0 && g->t[op->out[k]].type == AP_TT_RESOURCE)
			return true;
	return op->opcode == OP_IF || op->opcode == OP_WHILE || op->opcode == OP_CALL_ONCE;
}

static bool update_node(struct part_state *s, uint32_t n)
{
	const struct ap_op *op = &s->g->ops[n];
	struct subset *cur = &s->ss[s->n_ss - 1];
	int32_t e = (int32_t)s->n_ss - 1;

	if (s->nepoch[n] != EPOCH_NOT_READY)
		return false;
	for (uint32_t k = 0; k < op->n_in; k++)
		if (op->in[k] >= 0 && s->tepoch[op->in[k]] == EPOCH_NOT_READY)
			return false;
	if (s->ctl_in[n])
		return false;
	if (cur->type < 0)
		cur->type = s->mine[n];
	if (cur->type != (int)s->mine[n])
		return false;
	s->nepoch[n] = e;
	cur->nodes[cur->n_nodes++] = (int32_t)n;
	for (uint32_t k = 0; k < op->n_out; k++)
		if (op->out[k] >= 0)
			s->tepoch[op->out[k]] = e;
	for (uint32_t k = 0; k < op->n_in; k++) {
		int32_t t = op->in[k], te;

		if (t < 0 || (te = s->tepoch[t]) == e)
			continue;
		cur->in[cur->n_in++] = t;
		if (te >= 0) {
			struct subset *from = &s->ss[te];

			from->out[from->n_out++] = t;
		}
	}
	if (s->ctl_next[n] >= 0)
		s->ctl_in[s->ctl_next[n]]--;
	return true;
}

static int cmp_i32(const void *a, const void *b)
{
	int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;

	return (x > y) - (x < y);
}

static uint32_t uniquefy(int32_t *v, uint32_t n)
{
	uint32_t k = 0;

	qsort(v, n, sizeof(*v), cmp_i32);
	for (uint32_t i = 0; i < n; i++)
		if (!k || v[k - 1] != v[i])
			v[k++] = v[i];
	return k;
}

/* Room for a subset's lists: every node, every input and output of every node. */
static int subset_new(struct part_state *s, uint32_t edges)
{
	struct subset *ss = &s->ss[s->n_ss];
	uint32_t n = s->g->n_ops;

	ss->type = -1;
	ss->n_nodes = ss->n_in = ss->n_out = 0;
	ss->nodes = malloc((n + 1) * sizeof(int32_t));
	ss->in = malloc((edges + 1) * sizeof(int32_t));
	ss->out = malloc((edges + s->g->n_outputs + 1) * sizeof(int32_t));
	s->n_ss++;
	return ss->nodes && ss->in && ss->out ? 0 : -ENOMEM;
}

/* PartitionGraphIntoIndependentNodeSubsets, greedily, with the control edges that chain
 * the operators with side effects. */
static int partition(struct part_state *s)
{
	const struct ap_graph *g = s->g;
	uint32_t edges = 0;
	int32_t last = -1;

	for (uint32_t i = 0; i < g->n_tensors; i++)
		s->tepoch[i] = EPOCH_ALWAYS;
	for (uint32_t n = 0; n < g->n_ops; n++) {
		const struct ap_op *op = &g->ops[n];

		s->nepoch[n] = EPOCH_NOT_READY;
		s->ctl_in[n] = 0;
		s->ctl_next[n] = -1;
		edges += op->n_in + op->n_out;
		for (uint32_t k = 0; k < op->n_out; k++)
			if (op->out[k] >= 0)
				s->tepoch[op->out[k]] = EPOCH_NOT_READY;
		if (side_effect(g, op)) {
			if (last >= 0) {
				s->ctl_next[last] = (int32_t)n;
				s->ctl_in[n]++;
			}
			last = (int32_t)n;
		}
	}
	for (;;) {
		bool any = false, did;

		if (subset_new(s, edges))
			return -ENOMEM;
		do {
			did = false;
			for (uint32_t n = 0; n < g->n_ops; n++)
				did |= update_node(s, n);
			any |= did;
		} while (did);
		if (!any) {
			s->n_ss--;
			free(s->ss[s->n_ss].nodes);
			free(s->ss[s->n_ss].in);
			free(s->ss[s->n_ss].out);
			break;
		}
	}
	for (uint32_t n = 0; n < g->n_ops; n++)
		if (s->nepoch[n] == EPOCH_NOT_READY)
			return -EINVAL;
	for (uint32_t k = 0; k < g->n_outputs; k++) {
		int32_t t = g->outputs[k];

		if (t >= 0 && (uint32_t)t < g->n_tensors && s->tepoch[t] >= 0) {
			struct subset *o = &s->ss[s->tepoch[t]];

			o->out[o->n_out++] = t;
		}
	}
	for (uint32_t i = 0; i < s->n_ss; i++) {
		s->ss[i].n_in = uniquefy(s->ss[i].in, s->ss[i].n_in);
		s->ss[i].n_out = uniquefy(s->ss[i].out, s->ss[i].n_out);
	}
	return 0;
}

/* The subsets into x: the delegate's become parts, the execution plan after it. */
static int take_subsets(struct part_state *s, struct ap_xnn_plan *x)
{
	uint32_t np = 0, no = 0;

	for (uint32_t i = 0; i < s->n_ss; i++)
		np += s->ss[i].type == 1;
	x->parts = calloc(np ? np : 1, sizeof(*x->parts));
	x->order = malloc((s->g->n_ops + 1) * sizeof(*x->order));
	if (!x->parts || !x->order)
		return -ENOMEM;
	for (uint32_t i = 0; i < s->n_ss; i++) {
		struct subset *ss = &s->ss[i];
		struct ap_xnn_part *p;

		if (ss->type != 1) {
			for (uint32_t k = 0; k < ss->n_nodes; k++)
				x->order[no++] = ss->nodes[k];
			continue;
		}
		p = &x->parts[x->n_parts];
		x->order[no++] = -(int32_t)x->n_parts - 1;
		p->n_ops = ss->n_nodes;
		p->first_op = ss->nodes[0];
		p->ops = ss->nodes, p->inputs = ss->in, p->outputs = ss->out;
		p->n_inputs = ss->n_in, p->n_outputs = ss->n_out;
		ss->nodes = ss->in = ss->out = NULL;
		for (uint32_t k = 0; k < p->n_ops; k++) {
			x->ops[p->ops[k]].partition = x->n_parts;
			x->delegated_ops++;
		}
		x->n_parts++;
	}
	x->n_order = no;
	return 0;
}

int xnn_delegate(const struct ap_model *m, const struct ap_graph *g, struct ap_xnn_plan *x,
		 char *err)
{
	struct dctx c = { .m = m, .g = g, .sg = &m->subgraphs[g->subgraph] };
	struct part_state s = { .g = g };
	uint32_t nt = g->n_tensors ? g->n_tensors : 1, nn = g->n_ops ? g->n_ops : 1;
	int32_t *producer = malloc(nt * sizeof(*producer));
	bool *unpack = calloc(nn, sizeof(*unpack)), *mine = calloc(nn, sizeof(*mine));
	int rc = -ENOMEM;

	c.quasi = calloc(nt, sizeof(*c.quasi));
	c.handle = malloc(nt * sizeof(*c.handle));
	c.proxy = malloc(nt * sizeof(*c.proxy));
	s.tepoch = malloc(nt * sizeof(int32_t));
	s.nepoch = malloc(nn * sizeof(int32_t));
	s.ctl_in = malloc(nn * sizeof(int32_t));
	s.ctl_next = malloc(nn * sizeof(int32_t));
	s.ss = calloc(nn + 1, sizeof(*s.ss));
	x->ops = calloc(nn, sizeof(*x->ops));
	x->n_ops = g->n_ops;
	if (!producer || !unpack || !mine || !c.quasi || !c.handle || !c.proxy || !s.tepoch ||
	    !s.nepoch || !s.ctl_in || !s.ctl_next || !s.ss || !x->ops)
		goto out;
	/* the graph's own tensors only: kernel temporaries are not the delegate's to see */
	if (g->n_tensors < c.sg->n_tensors) {
		rc = ap_fail(err, -EINVAL, "the graph does not match its model");
		goto out;
	}
	for (uint32_t i = 0; i < nt; i++)
		producer[i] = c.handle[i] = c.proxy[i] = -1;
	choose(&c, x, producer, unpack);
	for (uint32_t i = 0; i < g->n_ops; i++)
		mine[i] = x->ops[i].delegated;
	s.mine = mine;
	rc = partition(&s);
	if (rc == -EINVAL)
		ap_seterr(err, "TFLite's partitioner left operators unscheduled");
	if (!rc)
		rc = take_subsets(&s, x);
out:
	if (rc == -ENOMEM)
		ap_seterr(err, "out of memory partitioning the graph");
	for (uint32_t i = 0; s.ss && i < s.n_ss; i++) {
		free(s.ss[i].nodes);
		free(s.ss[i].in);
		free(s.ss[i].out);
	}
	free(s.ss);
	free(s.tepoch);
	free(s.nepoch);
	free(s.ctl_in);
	free(s.ctl_next);
	free(c.quasi);
	free(c.handle);
	free(c.proxy);
	free(producer);
	free(unpack);
	free(mine);
	return rc;
}
