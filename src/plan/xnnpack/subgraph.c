// SPDX-License-Identifier: Apache-2.0
/*
 * subgraph: the XNNPACK nodes and values one partition becomes, after the rewrites XNNPACK
 * makes before it creates the operators (docs/xnnpack-delegate.md, "The subgraph"): a PAD
 * of zeros folded into the convolution after it, a RELU-like clamp folded into the node
 * that writes its input, a 1x1 convolution run as a fully connected operator; then the
 * values' lifetimes and the in-place reuse of the runtime's memory planner.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/util/err.h"
#include "xnn_priv.h"

struct sctx {
	const struct ap_model *m;
	const struct ap_graph *g;
	const struct ap_model_subgraph *sg;
	const struct ap_xnn_part *part;
	struct xnn_partition *p;
	int32_t *vmap;		/* tensor -> value, -1 */
	bool *quasi;		/* tensor: an unpacked static's output */
	bool *removed;		/* node: folded away */
	bool *clamp;		/* node: a clamp (RELU, RELU6, RELU_N1_TO_1) */
	bool *has_clamp;	/* node: takes a clamp (convolutions, pools, FC) */
};

static bool in_list(const int32_t *v, uint32_t n, int32_t t)
{
	for (uint32_t i = 0; i < n; i++)
		if (v[i] == t)
			return true;
	return false;
}

static int32_t value_of(struct sctx *c, int32_t t)
{
	struct xnn_value *v;

	if (t < 0 || (uint32_t)t >= c->sg->n_tensors)
		return -1;
	if (c->vmap[t] >= 0)
		return c->vmap[t];
	v = &c->p->values[c->p->n_values];
	memset(v, 0, sizeof(*v));
	v->tfl_tensor = t;
	v->bytes = c->g->t[t].bytes;
	v->first = v->last = v->reuses = v->producer = -1;
	/* a constant is static even where the delegate node lists it among its inputs */
	if (c->g->t[t].alloc == AP_ALLOC_WEIGHTS || c->quasi[t])
		v->alloc = XNN_A_STATIC;
	else if (c->sg->tensors[t].type == AP_TT_RESOURCE)
		v->alloc = XNN_A_PERSISTENT;	/* a variable: external, no external id */
	else if (in_list(c->part->inputs, c->part->n_inputs, t) ||
		 in_list(c->part->outputs, c->part->n_outputs, t))
		v->alloc = XNN_A_EXTERNAL;
	else
		v->alloc = XNN_A_WORKSPACE;
	c->vmap[t] = (int32_t)c->p->n_values++;
	return c->vmap[t];
}

static enum xnn_dt dt_of(uint8_t type)
{
	switch (type) {
	case AP_TT_FLOAT32: return XNN_DT_F32;
	case AP_TT_FLOAT16: return XNN_DT_F16;
	case AP_TT_INT8: return XNN_DT_QS8;
	case AP_TT_UINT8: return XNN_DT_QU8;
	case AP_TT_INT4: return XNN_DT_QC4W;
	default: return XNN_DT_OTHER;
	}
}

static uint32_t dim(const struct ap_model_tensor *t, uint32_t k)
{
	return k < t->rank && t->shape[k] > 0 ? (uint32_t)t->shape[k] : 1;
}

/* TensorFlow's SAME padding of one axis, as XNNPACK computes it at reshape. */
static void same_pad(uint32_t in, uint32_t out, uint32_t k, uint32_t s, uint32_t d,
		     uint32_t *lo, uint32_t *hi)
{
	int64_t total = (int64_t)(out - 1) * s + (int64_t)(k - 1) * d + 1 - in;

	if (total < 0)
		total = 0;
	*lo = (uint32_t)(total / 2);
	*hi = (uint32_t)(total - total / 2);
}

/* One axis of MediaPipe's Convolution2DTransposeBias: its custom options (padding, strides)
 * are not read, so the stride is the one its shapes imply: VALID's out = (in - 1) * s + k
 * when that divides, else SAME's out = in * s (the two agree where both hold). */
static uint32_t deconv_stride(uint32_t in, uint32_t out, uint32_t k)
{
	if (in > 1 && out >= k && (out - k) % (in - 1) == 0 && (out - k) / (in - 1) >= 1)
		return (out - k) / (in - 1);
	return in && out % in == 0 && out >= in ? out / in : 1;
}

/* A transposed convolution's geometry: the filter is OHWI; the padding that trims the
 * output, (in - 1) * s + k - out an axis, split as TensorFlow's SAME does. */
static void deconv_geometry(const struct ap_model_tensor *f, struct xnn_node *n)
{
	n->out_c = dim(f, 0), n->k_h = dim(f, 1), n->k_w = dim(f, 2);
	n->stride_h = deconv_stride(n->in_h, n->out_h, n->k_h);
	n->stride_w = deconv_stride(n->in_w, n->out_w, n->k_w);
	same_pad(n->out_h, n->in_h, n->k_h, n->stride_h, 1, &n->pad_top, &n->pad_bottom);
	same_pad(n->out_w, n->in_w, n->k_w, n->stride_w, 1, &n->pad_left, &n->pad_right);
}

/* The geometry of a convolution, a pool or a resize from its tensors and options. */
static void geometry(struct sctx *c, const struct ap_model_op *mo, const struct ap_op *op,
		     struct xnn_node *n)
{
	const struct ap_model_tensor *in = &c->sg->tensors[op->in[0]];
	const struct ap_model_tensor *out = &c->sg->tensors[op->out[0]];
	const struct ap_model_tensor *f = op->n_in > 1 && op->in[1] >= 0 ?
					  &c->sg->tensors[op->in[1]] : NULL;
	bool conv = op->opcode == OP_CONV_2D, dw = op->opcode == OP_DEPTHWISE_CONV_2D;
	bool pool = op->opcode == OP_AVERAGE_POOL_2D || op->opcode == OP_MAX_POOL_2D;
	/* Padding: SAME (0) is the schema's default, which a writer may leave out */
	int64_t padding = ap_model_op_option(c->m, mo, 0, 1, 0);

	n->batch = dim(in, 0);
	n->in_h = dim(in, 1), n->in_w = dim(in, 2), n->in_c = dim(in, in->rank - 1);
	n->out_h = dim(out, 1), n->out_w = dim(out, 2), n->out_c = dim(out, out->rank - 1);
	n->stride_h = n->stride_w = n->dil_h = n->dil_w = n->groups = 1;
	n->k_h = n->k_w = 1;
	if (conv || dw) {
		n->stride_w = (uint32_t)ap_model_op_option(c->m, mo, 1, 4, 1);
		n->stride_h = (uint32_t)ap_model_op_option(c->m, mo, 2, 4, 1);
		n->dil_w = (uint32_t)ap_model_op_option(c->m, mo, dw ? 5 : 4, 4, 1);
		n->dil_h = (uint32_t)ap_model_op_option(c->m, mo, dw ? 6 : 5, 4, 1);
		n->k_h = dim(f, 1), n->k_w = dim(f, 2);
		if (dw) {
			n->depth_multiplier = (uint32_t)ap_model_op_option(c->m, mo, 3, 4, 1);
			n->groups = n->in_c;
		} else {
			n->groups = dim(f, 3) ? n->in_c / dim(f, 3) : 1;
		}
	} else if (pool) {
		n->stride_w = (uint32_t)ap_model_op_option(c->m, mo, 1, 4, 1);
		n->stride_h = (uint32_t)ap_model_op_option(c->m, mo, 2, 4, 1);
		n->k_w = (uint32_t)ap_model_op_option(c->m, mo, 3, 4, 1);
		n->k_h = (uint32_t)ap_model_op_option(c->m, mo, 4, 4, 1);
	} else if (op->opcode == OP_CUSTOM && f) {
		deconv_geometry(f, n);
	}
	if ((conv || dw || pool) && padding == 0) {
		n->same_padding = true;
		same_pad(n->in_h, n->out_h, n->k_h, n->stride_h, n->dil_h, &n->pad_top,
			 &n->pad_bottom);
		same_pad(n->in_w, n->out_w, n->k_w, n->stride_w, n->dil_w, &n->pad_left,
			 &n->pad_right);
	}
	n->w_dt = f ? dt_of(f->type) : XNN_DT_OTHER;
	if (f && f->type == AP_TT_INT8 && f->n_scales > 1)
		n->w_dt = XNN_DT_QC8W;
	n->has_bias = op->n_in > 2 && op->in[2] >= 0;
}

static enum xnn_kind kind_of(const struct ap_op *op, const struct xnn_node *n)
{
	switch (op->opcode) {
	case OP_CONV_2D:
		if (n->k_h == 1 && n->k_w == 1 && n->stride_h == 1 && n->stride_w == 1 &&
		    !(n->pad_top | n->pad_bottom | n->pad_left | n->pad_right) &&
		    n->groups == 1)
			return XNN_K_FC;
		return XNN_K_CONV_IGEMM;
	case OP_DEPTHWISE_CONV_2D: return XNN_K_DWCONV;
	case OP_FULLY_CONNECTED: return XNN_K_FC;
	case OP_CUSTOM: return XNN_K_DECONV;
	case OP_AVERAGE_POOL_2D:
		return n->k_h == 1 && n->k_w == 1 ? XNN_K_ELEMENTWISE : XNN_K_POOL_AVG;
	case OP_MAX_POOL_2D: return XNN_K_POOL_MAX;
	case OP_RESIZE_BILINEAR: return XNN_K_RESIZE_BILINEAR;
	case OP_RESHAPE: return XNN_K_COPY;
	case OP_CONCATENATION: return XNN_K_CONCAT;
	case OP_PAD: return XNN_K_PAD;
	case OP_SOFTMAX: return XNN_K_SOFTMAX;
	case OP_DEPTH_TO_SPACE: return XNN_K_DEPTH_TO_SPACE;
	/* convert: a unary elementwise node of XNNPACK's (in place when the sizes agree) */
	case OP_DEQUANTIZE: case OP_QUANTIZE: return XNN_K_ELEMENTWISE;
	case OP_SLICE: case OP_STRIDED_SLICE: return XNN_K_SLICE;
	case OP_TRANSPOSE: return XNN_K_TRANSPOSE;
	case OP_SPLIT: return XNN_K_SPLIT;
	case OP_MEAN: case OP_SUM: case OP_REDUCE_MAX: case OP_REDUCE_MIN: return XNN_K_REDUCE;
	default: return XNN_K_ELEMENTWISE;
	}
}

/* One XNNPACK node for a TFLite operator. */
/*
 * Whether input j of an operator is one of the delegate's values: every tensor a node
 * touches is (the constants too: the runtime keeps an entry for each, which its objects
 * count), but for the shape-like inputs the delegate reads as data and never defines.
 */
static bool is_value_input(int32_t opcode, uint32_t j)
{
	switch (opcode) {
	case OP_RESHAPE: case OP_RESIZE_BILINEAR: case OP_PAD: case OP_MEAN: case OP_SUM:
	case OP_REDUCE_MAX: case OP_REDUCE_MIN: case OP_SLICE: case OP_STRIDED_SLICE:
	case OP_EXPAND_DIMS: case OP_TRANSPOSE:
		return j == 0;
	case OP_SPLIT:
		return j == 1;
	case OP_TRANSPOSE_CONV:
		return j != 0;
	default:
		return true;
	}
}

/* A constant, or the output of a DEQUANTIZE or DENSIFY the delegate unpacked. */
static bool is_const(const struct sctx *c, int32_t t)
{
	return c->g->t[t].alloc == AP_ALLOC_WEIGHTS || c->quasi[t];
}

/*
 * Is t the output of an unpacked DEQUANTIZE of float16 that the delegate skips, defining
 * its fp16 input as the static value instead? It does so when every reader of t is a
 * CONV_2D, DEPTHWISE_CONV_2D or FULLY_CONNECTED that takes t as other than its input.
 */
static bool f16_skipped(const struct sctx *c, int32_t t)
{
	const struct ap_graph *g = c->g;
	bool src = false;

	if (!c->quasi[t])
		return false;
	for (uint32_t i = 0; i < g->n_ops; i++) {
		const struct ap_op *op = &g->ops[i];

		if (op->opcode == OP_DEQUANTIZE && op->n_in == 1 && op->n_out == 1 &&
		    op->out[0] == t && op->in[0] >= 0)
			src = c->sg->tensors[op->in[0]].type == AP_TT_FLOAT16;
		for (uint32_t j = 0; j < op->n_in; j++) {
			if (op->in[j] != t)
				continue;
			if ((op->opcode != OP_CONV_2D && op->opcode != OP_DEPTHWISE_CONV_2D &&
			     op->opcode != OP_FULLY_CONNECTED) || j == 0)
				return false;
		}
	}
	return src;
}

static uint64_t elements(const struct ap_model_tensor *t)
{
	uint64_t e = 1;

	for (uint32_t k = 0; k < t->rank; k++)
		e *= t->shape[k] > 0 ? (uint64_t)t->shape[k] : 1;
	return e;
}

/* A value the delegate defines itself (no TFLite tensor): in the workspace. */
static int32_t new_value(struct sctx *c, uint64_t bytes)
{
	struct xnn_value *v = &c->p->values[c->p->n_values];

	memset(v, 0, sizeof(*v));
	v->tfl_tensor = -1;
	v->bytes = bytes;
	v->alloc = XNN_A_WORKSPACE;
	v->first = v->last = v->reuses = v->producer = -1;
	return (int32_t)c->p->n_values++;
}

static void no_values(struct xnn_node *n)
{
	for (uint32_t j = 0; j < 4; j++)
		n->extra[j] = -1;
	for (uint32_t j = 0; j < 3; j++)
		n->more_out[j] = -1;
	n->op_ws = -1;
}

/*
 * A reduction's own workspace (reshape_reduce_nd): of a non-float32 input, an accumulator
 * (4 bytes) an output element and XNN_EXTRA_BYTES, a record of the memory plan over the
 * node alone; and, when the innermost axis is kept, the zero buffer's channels (the kept
 * run after the last reduced axis).
 */
static void reduce_geometry(struct sctx *c, const struct ap_op *op, struct xnn_node *n)
{
	const struct ap_model_tensor *in = &c->sg->tensors[op->in[0]];
	int64_t ax[6];
	uint32_t na = ap_model_tensor_ints(c->m, &c->sg->tensors[op->in[1]], ax, 6);
	bool red[8] = { false };
	uint64_t outs = 1, run = 1;
	int32_t last = -1;

	for (uint32_t k = 0; k < na; k++) {
		int64_t a = ax[k] < 0 ? ax[k] + in->rank : ax[k];

		if (a >= 0 && a < (int64_t)in->rank && a < 8)
			red[a] = true;
	}
	for (uint32_t d = 0; d < in->rank && d < 8; d++) {
		if (red[d]) {
			last = (int32_t)d;
			run = 1;
		} else {
			outs *= dim(in, d);
			run *= dim(in, d);
		}
	}
	/* a float32 reduction asks for none (reshape_reduce_operator passes no size) */
	if (in->type != AP_TT_FLOAT32) {
		n->op_ws = new_value(c, outs * 4 + 16);
		c->p->values[n->op_ws].tfl_tensor = -2;
	}
	n->reduce_channels = last >= 0 && !red[in->rank - 1] ? run : 0;
}

static void define(struct sctx *c, int32_t i, struct xnn_node *n, uint32_t at)
{
	const struct ap_op *op = &c->g->ops[i];
	const struct ap_model_op *mo = &c->sg->ops[i];
	bool weights = op->opcode == OP_CONV_2D || op->opcode == OP_DEPTHWISE_CONV_2D ||
		       op->opcode == OP_FULLY_CONNECTED || op->opcode == OP_CUSTOM;
	uint32_t k = 0;

	memset(n, 0, sizeof(*n));
	n->tfl_op = i;
	no_values(n);
	if (op->opcode == OP_SPLIT) {	/* the axis first, then the data */
		n->in_value = value_of(c, op->in[1]);
		for (uint32_t j = 1; j < op->n_out && j < 4; j++)
			n->more_out[j - 1] = value_of(c, op->out[j]);
	} else {
		n->in_value = value_of(c, op->in[0]);
	}
	n->out_value = value_of(c, op->out[0]);
	/* weights are static values, planned by nobody: only activations are kept */
	for (uint32_t j = 1; !weights && op->opcode != OP_SPLIT && j < op->n_in && k < 4; j++)
		if (op->in[j] >= 0 && !is_const(c, op->in[j]))
			n->extra[k++] = value_of(c, op->in[j]);
	/* mul(x, x) runs as square(x), a unary (optimize_common_subgraphs_mul_to_sqr) */
	if (op->opcode == OP_MUL && op->n_in == 2 && op->in[0] == op->in[1])
		n->extra[0] = -1;
	/* a binary node whatever its operands: a static one is a value it reads too */
	n->binary = op->n_in == 2 && op->in[0] != op->in[1] &&
		    (op->opcode == OP_ADD || op->opcode == OP_SUB || op->opcode == OP_MUL ||
		     op->opcode == OP_DIV || op->opcode == OP_MAXIMUM ||
		     op->opcode == OP_MINIMUM || op->opcode == OP_SQUARED_DIFFERENCE);
	/* the constants (an unpacked DEQUANTIZE's output too): values of their own */
	for (uint32_t j = 1; j < op->n_in; j++)
		if (op->in[j] >= 0 && is_const(c, op->in[j]) && is_value_input(op->opcode, j)) {
			value_of(c, op->in[j]);
			if (f16_skipped(c, op->in[j])) {
				n->n_f16_static++;
				n->f16_static_elems += elements(&c->sg->tensors[op->in[j]]);
			}
		}
	n->in_dt = dt_of(c->sg->tensors[op->in[0]].type);
	if (op->opcode != OP_RESHAPE && op->opcode != OP_CONCATENATION)
		geometry(c, mo, op, n);
	n->kind = kind_of(op, n);
	if (n->kind == XNN_K_REDUCE)
		reduce_geometry(c, op, n);
	/* a concatenation runs one copy operator an input, a split one an output */
	if (n->kind == XNN_K_CONCAT)
		n->n_parts = op->n_in;
	else if (n->kind == XNN_K_SPLIT)
		n->n_parts = op->n_out;
	c->clamp[at] = op->opcode == OP_RELU || op->opcode == OP_RELU6 ||
		       op->opcode == OP_RELU_N1_TO_1 || (op->opcode == OP_AVERAGE_POOL_2D &&
							 n->kind == XNN_K_ELEMENTWISE);
	c->has_clamp[at] = c->clamp[at] || op->opcode == OP_CONV_2D ||
			   op->opcode == OP_DEPTHWISE_CONV_2D || op->opcode == OP_FULLY_CONNECTED ||
			   op->opcode == OP_AVERAGE_POOL_2D || op->opcode == OP_MAX_POOL_2D ||
			   op->opcode == OP_CUSTOM;
	n->in_place = n->kind == XNN_K_ELEMENTWISE || n->kind == XNN_K_COPY ||
		      n->kind == XNN_K_SOFTMAX;
}

/* A READ_VARIABLE (the variable to its output) or an ASSIGN_VARIABLE (its input to the
 * variable): a copy node (VisitReadVariableNode, VisitAssignVariableNode). */
static void var_copy(struct sctx *c, int32_t i, uint32_t partition)
{
	const struct ap_op *op = &c->g->ops[i];
	struct xnn_node *n = &c->p->nodes[c->p->n_nodes];
	bool read = op->opcode == OP_READ_VARIABLE;

	memset(n, 0, sizeof(*n));
	n->tfl_op = i;
	n->partition = partition;
	n->kind = XNN_K_COPY;
	n->copy = n->in_place = true;
	no_values(n);
	n->in_value = value_of(c, read ? op->in[0] : op->in[1]);
	n->out_value = value_of(c, read ? op->out[0] : op->in[0]);
	n->in_dt = dt_of(c->sg->tensors[read ? op->out[0] : op->in[1]].type);
	c->p->n_nodes++;
}

/* A binary operator with a fused activation: XNNPACK's binary node clamps nothing, so
 * its definition inserts a clamp node after it (xnn_insert_clamp_node). */
static bool binary_clamps(const struct sctx *c, int32_t i)
{
	int32_t code = c->g->ops[i].opcode;

	return (code == OP_ADD || code == OP_SUB || code == OP_MUL || code == OP_DIV) &&
	       ap_model_op_option(c->m, &c->sg->ops[i], 0, 1, 0) != 0;
}

/* The inserted clamp: the binary node last defined now writes a new internal value of
 * its output's shape, which a unary clamp node reads to write the output. */
static void insert_clamp(struct sctx *c, uint32_t partition)
{
	struct xnn_partition *p = c->p;
	struct xnn_node *bin = &p->nodes[p->n_nodes - 1], *cl = &p->nodes[p->n_nodes];
	struct xnn_value *v = &p->values[p->n_values];

	memset(v, 0, sizeof(*v));
	v->tfl_tensor = -1;
	v->alloc = XNN_A_WORKSPACE;
	v->bytes = p->values[bin->out_value].bytes;
	v->first = v->last = v->reuses = v->producer = -1;
	*cl = *bin;
	cl->kind = XNN_K_ELEMENTWISE;
	cl->binary = false;
	cl->partition = partition;
	for (uint32_t j = 0; j < 4; j++)
		cl->extra[j] = -1;
	cl->in_value = (int32_t)p->n_values++;
	bin->out_value = cl->in_value;
	c->clamp[p->n_nodes] = c->has_clamp[p->n_nodes] = true;
	p->n_nodes++;
}

#define FOR_INPUTS(n, v, body) do { \
	int32_t ins_[5] = { (n)->in_value, (n)->extra[0], (n)->extra[1], (n)->extra[2], \
			    (n)->extra[3] }; \
	for (int j_ = 0; j_ < 5; j_++) { \
		int32_t v = ins_[j_]; \
		bool dup_ = false; \
		for (int k_ = 0; k_ < j_; k_++) \
			dup_ |= ins_[k_] == v; \
		if (v >= 0 && !dup_) { body; } \
	} \
} while (0)

/* xnn_subgraph_analyze_consumers_and_producers over the nodes left. */
static void analyze(struct sctx *c)
{
	struct xnn_partition *p = c->p;

	for (uint32_t v = 0; v < p->n_values; v++) {
		p->values[v].consumers = 0;
		p->values[v].producer = -1;
	}
	for (uint32_t n = 0; n < p->n_nodes; n++) {
		struct xnn_node *nd = &p->nodes[n];

		if (c->removed[n])
			continue;
		FOR_INPUTS(nd, v, p->values[v].consumers++);
		if (nd->out_value >= 0)
			p->values[nd->out_value].producer = (int32_t)n;
		for (uint32_t j = 0; j < 3; j++)
			if (nd->more_out[j] >= 0)
				p->values[nd->more_out[j]].producer = (int32_t)n;
	}
	for (uint32_t v = 0; v < p->n_values; v++)
		if (in_list(c->part->outputs, c->part->n_outputs, p->values[v].tfl_tensor))
			p->values[v].consumers++;
}

/* A PAD of zeros in H and W only, read by one convolution with explicit padding, folds
 * into it (xnn_subgraph_fusion). */
static void fold_pads(struct sctx *c)
{
	struct xnn_partition *p = c->p;

	for (uint32_t n = 0; n < p->n_nodes; n++) {
		struct xnn_node *pad = &p->nodes[n];
		const struct ap_op *op = &c->g->ops[pad->tfl_op];
		struct xnn_value *v;
		int64_t pd[8];
		uint32_t cn;

		if (c->removed[n] || pad->kind != XNN_K_PAD || pad->out_value < 0)
			continue;
		v = &p->values[pad->out_value];
		if (v->consumers != 1 || v->alloc != XNN_A_WORKSPACE ||
		    ap_model_tensor_ints(c->m, &c->sg->tensors[op->in[1]], pd, 8) != 8 ||
		    (pd[0] | pd[1] | pd[6] | pd[7]))
			continue;
		for (cn = n + 1; cn < p->n_nodes; cn++)
			if (!c->removed[cn] && p->nodes[cn].in_value == pad->out_value)
				break;
		if (cn == p->n_nodes)
			continue;
		{
			struct xnn_node *cv = &p->nodes[cn];
			const struct ap_model_op *mo = &c->sg->ops[cv->tfl_op];
			int32_t code = c->g->ops[cv->tfl_op].opcode;

			if ((code != OP_CONV_2D && code != OP_DEPTHWISE_CONV_2D) ||
			    ap_model_op_option(c->m, mo, 0, 1, 0) == 0)
				continue;
			cv->pad_top += (uint32_t)pd[2], cv->pad_bottom += (uint32_t)pd[3];
			cv->pad_left += (uint32_t)pd[4], cv->pad_right += (uint32_t)pd[5];
			cv->in_value = pad->in_value;
			cv->in_h = pad->in_h, cv->in_w = pad->in_w;
			if (code == OP_CONV_2D)
				cv->kind = kind_of(&c->g->ops[cv->tfl_op], cv);
			c->removed[n] = true;
		}
		analyze(c);
	}
}

/* No node between producer and consumer reads or writes value v (can_reorder_use). */
static bool reorderable(const struct sctx *c, int32_t v, uint32_t producer, uint32_t consumer)
{
	for (uint32_t k = producer + 1; k < consumer; k++) {
		const struct xnn_node *nd = &c->p->nodes[k];
		bool uses = nd->out_value == v;

		if (c->removed[k])
			continue;
		FOR_INPUTS(nd, u, uses |= u == v);
		for (uint32_t j = 0; j < 3; j++)
			uses |= nd->more_out[j] == v;
		if (uses)
			return false;
	}
	return true;
}

/*
 * xnn_subgraph_fusion's copies: a workspace value read once, whose reader is a copy node,
 * is written by its producer straight into the copy's output (upstream); else, whose writer
 * is a copy node, is read by its reader from the copy's input (downstream). The copy node
 * is cleared, keeping its slot.
 */
static void fuse_copies(struct sctx *c)
{
	struct xnn_partition *p = c->p;

	for (uint32_t v = 0; v < p->n_values; v++) {
		struct xnn_value *val = &p->values[v];
		struct xnn_node *pr, *cs;
		uint32_t k;

		if (val->consumers != 1 || val->producer < 0 || val->alloc != XNN_A_WORKSPACE)
			continue;
		for (k = (uint32_t)val->producer + 1; k < p->n_nodes; k++) {
			bool reads = false;

			if (!c->removed[k])
				FOR_INPUTS(&p->nodes[k], u, reads |= u == (int32_t)v);
			if (reads)
				break;
		}
		if (k == p->n_nodes)
			continue;
		pr = &p->nodes[val->producer], cs = &p->nodes[k];
		if (cs->copy && reorderable(c, cs->out_value, (uint32_t)val->producer, k)) {
			pr->out_value = cs->out_value;
			c->removed[k] = true;
		} else if (pr->copy && reorderable(c, pr->in_value, (uint32_t)val->producer, k)) {
			if (cs->in_value == (int32_t)v)
				cs->in_value = pr->in_value;
			else
				for (uint32_t j = 0; j < 4; j++)
					if (cs->extra[j] == (int32_t)v) {
						cs->extra[j] = pr->in_value;
						break;
					}
			c->removed[val->producer] = true;
		} else {
			continue;
		}
		analyze(c);
	}
}

/* A clamp whose input only it reads folds into the node writing that input
 * (optimize_common_subgraphs_merge_clamps). */
static uint32_t fold_clamps(struct sctx *c)
{
	struct xnn_partition *p = c->p;
	uint32_t folded = 0;

	for (uint32_t n = 0; n < p->n_nodes; n++) {
		struct xnn_node *cl = &p->nodes[n];
		struct xnn_value *in;

		if (c->removed[n] || !c->clamp[n] || cl->in_value < 0)
			continue;
		in = &p->values[cl->in_value];
		if (in->consumers > 1 || in->producer < 0 || !c->has_clamp[in->producer])
			continue;
		p->nodes[in->producer].out_value = cl->out_value;
		c->removed[n] = true;
		folded++;
		analyze(c);
	}
	return folded;
}

/* Lifetimes over the runtime's operators, then optimize_tensor_allocation_for_in_place_
 * operations. */
static void lifetimes(struct sctx *c)
{
	struct xnn_partition *p = c->p;

	for (uint32_t n = 0; n < p->n_nodes; n++) {
		struct xnn_node *nd = &p->nodes[n];
		int32_t vs[10] = { nd->in_value, nd->extra[0], nd->extra[1], nd->extra[2],
				   nd->extra[3], nd->out_value, nd->more_out[0], nd->more_out[1],
				   nd->more_out[2], nd->op_ws };

		if (c->removed[n])
			continue;
		for (int j = 0; j < 10; j++) {
			struct xnn_value *v;

			if (vs[j] < 0)
				continue;
			v = &p->values[vs[j]];
			if (v->first < 0)
				v->first = (int32_t)n;
			v->last = (int32_t)n;
		}
	}
	for (uint32_t n = 0; n < p->n_nodes; n++) {
		struct xnn_node *nd = &p->nodes[n];
		struct xnn_value *out;
		int32_t in = -1, root;

		if (c->removed[n] || !nd->in_place || nd->out_value < 0)
			continue;
		out = &p->values[nd->out_value];
		FOR_INPUTS(nd, v, {
			struct xnn_value *iv = &p->values[v];

			if (in < 0 && iv->alloc == XNN_A_WORKSPACE &&
			    out->alloc == XNN_A_WORKSPACE && iv->consumers == 1 &&
			    iv->bytes == out->bytes)
				in = v;
		});
		if (in < 0 || out->consumers != 1)
			continue;
		for (root = in; p->values[root].reuses >= 0; root = p->values[root].reuses)
			;
		out->reuses = root;
		/* the root lives on to the output's one consumer */
		for (uint32_t k = n + 1; k < p->n_nodes; k++) {
			bool reads = false;

			if (c->removed[k])
				continue;
			FOR_INPUTS(&p->nodes[k], v, reads |= v == nd->out_value);
			if (reads) {
				p->values[root].last = (int32_t)k;
				break;
			}
		}
	}
}

/* The nodes left, compacted, and the lifetimes renumbered to them: every lifetime starts
 * and ends at a node left (lifetimes() skips the removed), so which overlap is unchanged,
 * and a value's first and last name the nodes (and TFLite operators) of the runtime. */
static void compact(struct sctx *c)
{
	struct xnn_partition *p = c->p;
	uint32_t k = 0;

	for (uint32_t n = 0; n < p->n_nodes; n++) {
		if (c->removed[n])
			continue;
		for (uint32_t v = 0; v < p->n_values; v++) {
			if (p->values[v].first == (int32_t)n)
				p->values[v].first = (int32_t)k;
			if (p->values[v].last == (int32_t)n)
				p->values[v].last = (int32_t)k;
		}
		p->nodes[k++] = p->nodes[n];
	}
	p->n_nodes = k;
}

/*
 * The nodes the delegate defines ahead of a FULLY_CONNECTED (VisitFullyConnectedNode):
 * without keep_num_dims, a static reshape of the input to 2-D into a value of its own.
 * The value the fully connected node then reads, -1 when none was defined.
 */
static int32_t fc_prologue(struct sctx *c, int32_t i, uint32_t partition)
{
	const struct ap_op *op = &c->g->ops[i];
	const struct ap_model_op *mo = &c->sg->ops[i];
	struct xnn_partition *p = c->p;
	struct xnn_node *n;

	if (op->opcode != OP_FULLY_CONNECTED || ap_model_op_option(c->m, mo, 2, 1, 0))
		return -1;
	n = &p->nodes[p->n_nodes];
	memset(n, 0, sizeof(*n));
	n->tfl_op = i;
	n->kind = XNN_K_COPY;
	n->in_place = true;
	n->in_dt = dt_of(c->sg->tensors[op->in[0]].type);
	no_values(n);
	n->in_value = value_of(c, op->in[0]);
	n->out_value = new_value(c, c->g->t[op->in[0]].bytes);
	n->partition = partition;
	p->n_nodes++;
	return n->out_value;
}

/* A float32 input with int8 (or int4) weights: the delegate's dynamically quantized path. */
static bool dyn_quant(const struct sctx *c, int32_t i)
{
	const struct ap_op *op = &c->g->ops[i];
	uint8_t it, ft;

	if ((op->opcode != OP_CONV_2D && op->opcode != OP_FULLY_CONNECTED) || op->n_in < 2 ||
	    op->in[0] < 0 || op->in[1] < 0)
		return false;
	it = c->sg->tensors[op->in[0]].type, ft = c->sg->tensors[op->in[1]].type;
	return it == AP_TT_FLOAT32 &&
	       (ft == AP_TT_INT8 || (op->opcode == OP_FULLY_CONNECTED && ft == AP_TT_INT4));
}

/* An int8 FULLY_CONNECTED with int8 (or int4) weights: the delegate defines its filter
 * again as a per-channel value (VisitFullyConnectedNode's static quantization path). */
static bool srq_fc(const struct sctx *c, int32_t i)
{
	const struct ap_op *op = &c->g->ops[i];
	uint8_t ft;

	if (op->opcode != OP_FULLY_CONNECTED || op->n_in < 2 || op->in[0] < 0 || op->in[1] < 0 ||
	    c->sg->tensors[op->in[0]].type != AP_TT_INT8)
		return false;
	ft = c->sg->tensors[op->in[1]].type;
	return ft == AP_TT_INT8 || ft == AP_TT_INT4;
}

/* The rows of a tensor but its last nonbatch dimensions. */
static uint64_t batch_rows(const struct ap_model_tensor *t, uint32_t nonbatch)
{
	uint64_t r = 1;

	for (uint32_t k = 0; k + nonbatch < t->rank; k++)
		r *= dim(t, k);
	return r;
}

/*
 * The delegate's dynamically quantized path (VisitConv2DNode, VisitFullyConnectedNode): a
 * qdint8 value of the input's shape (its batch the first dimension of a convolution's, all
 * but the last of a fully connected's) and a unary convert node writing it from the float
 * input value (from the reshape fc_prologue defined, if any). The value the node then
 * reads.
 */
static int32_t dq_prologue(struct sctx *c, int32_t i, uint32_t partition, int32_t from)
{
	const struct ap_op *op = &c->g->ops[i];
	const struct ap_model_tensor *in = &c->sg->tensors[op->in[0]];
	struct xnn_partition *p = c->p;
	struct xnn_node *n = &p->nodes[p->n_nodes];
	int32_t q;

	memset(n, 0, sizeof(*n));
	n->tfl_op = i;
	n->kind = XNN_K_ELEMENTWISE;
	n->in_place = true;
	n->in_dt = XNN_DT_F32;
	no_values(n);
	n->in_value = from >= 0 ? from : value_of(c, op->in[0]);
	q = new_value(c, c->g->t[op->in[0]].bytes / 4);
	p->values[q].qd8_rows = batch_rows(in, op->opcode == OP_CONV_2D ? 3 : 1);
	n->out_value = q;
	n->partition = partition;
	p->n_nodes++;
	return q;
}

/* The node reading a qdint8 value: its filter redefined as a per-channel value of its own
 * (a per-tensor scale widened), static. */
static void dq_node(struct sctx *c, struct xnn_node *n, int32_t q)
{
	const struct ap_op *op = &c->g->ops[n->tfl_op];
	int32_t k = new_value(c, 0);

	c->p->values[k].alloc = XNN_A_STATIC;
	n->in_value = q;
	n->in_dt = XNN_DT_QD8;
	n->w_dt = c->sg->tensors[op->in[1]].type == AP_TT_INT4 ? XNN_DT_QC4W : XNN_DT_QC8W;
	n->rows = c->p->values[q].qd8_rows;
	if (op->opcode == OP_FULLY_CONNECTED) {
		uint32_t kc = dim(&c->sg->tensors[op->in[1]], 1);

		n->in_c = kc;
		n->out_c = dim(&c->sg->tensors[op->in[1]], 0);
		n->rows = kc ? c->g->t[op->in[0]].bytes / 4 / kc : 1;
	} else {
		n->rows = (uint64_t)n->batch * n->in_h * n->in_w;
	}
}

/*
 * The workspace a fully connected node asks for to pack its quantized LHS itself
 * (reshape_fully_connected_nc, one thread): mr rows (1 for a batch of 1) of a params
 * record (8 bytes) and k_stride int8s, 4-aligned, when a row of the GEMM fits the L2
 * (xnn_should_inline_lhs_packing); else the whole LHS packed ahead.
 */
static uint64_t lhs_workspace(const struct xnn_node *n, const struct ap_xnn_cpu *cpu)
{
	struct xnn_gemm_cfg g;
	uint64_t kr, k, row, mr, m = n->rows ? n->rows : 1, per, lines, nst;

	if (!xnn_cpu_gemm(cpu, n->in_dt, n->w_dt, &g))
		return 0;
	kr = (1ull << g.log2_kr) << g.log2_sr;
	k = n->w_dt == XNN_DT_QC4W ? (n->in_c + g.planes - 1) / g.planes * g.planes : n->in_c;
	k = (k + kr - 1) / kr * kr;
	row = (8 + k + 3) / 4 * 4;
	mr = m == 1 ? 1 : g.mr;
	per = mr * row;
	nst = (n->w_dt == XNN_DT_QC4W ? k / 2 : k) + 12;
	{
		uint64_t mr2 = g.mr < m ? g.mr : m;
		uint64_t mst = (per + mr - 1) / mr;

		lines = (mr2 * mst + 63) / 64 + (n->out_c * nst + 63) / 64 +
			mr2 * ((n->out_c * 4 + 63) / 64);
	}
	if (lines * 64 <= xnn_cpu_l2_bytes(cpu))
		return per;
	return (m + mr - 1) / mr * mr * row;
}

/*
 * xnn_subgraph_optimize_packed_lhs: a fully connected node reading a qdint8 value reads
 * the convert's float input instead and packs it itself (a workspace of its own); the
 * convert, its value unread, is cleared, and the clean-up after drops every node cleared.
 * Whether any changed.
 */
static bool packed_lhs(struct sctx *c, const struct ap_xnn_cpu *cpu)
{
	struct xnn_partition *p = c->p;
	bool changed = false;

	for (uint32_t n = 0; n < p->n_nodes; n++) {
		struct xnn_node *fc = &p->nodes[n];
		struct xnn_value *q;
		int32_t cv;

		if (c->removed[n] || fc->kind != XNN_K_FC || fc->in_dt != XNN_DT_QD8 ||
		    fc->in_value < 0)
			continue;
		q = &p->values[fc->in_value];
		cv = q->producer;
		if (cv < 0)
			continue;
		fc->in_value = p->nodes[cv].in_value;
		if (q->consumers <= 1)
			c->removed[cv] = true;
		fc->op_ws = new_value(c, lhs_workspace(fc, cpu));
		p->values[fc->op_ws].tfl_tensor = -2;
		changed = true;
		analyze(c);
	}
	return changed;
}

int xnn_subgraph(const struct ap_model *m, const struct ap_graph *g, uint32_t partition,
		 const struct ap_xnn_plan *x, struct xnn_partition *p, char *err)
{
	const struct ap_xnn_part *part = &x->parts[partition];
	struct sctx c = { .m = m, .g = g, .sg = &m->subgraphs[g->subgraph], .part = part,
			  .p = p };
	/* room for the nodes and values the delegate and XNNPACK add: a clamp after a
	 * binary, a reshape before a fully connected, an operator's workspace record */
	uint32_t nt = c.sg->n_tensors ? c.sg->n_tensors : 1, nv = 6 * part->n_ops;
	uint32_t nn = 5 * part->n_ops + 1;
	uint32_t folded;
	bool lhs;
	int rc = 0;

	memset(p, 0, sizeof(*p));
	for (uint32_t k = 0; k < part->n_ops; k++)
		nv += g->ops[part->ops[k]].n_in + g->ops[part->ops[k]].n_out;
	c.vmap = malloc(nt * sizeof(*c.vmap));
	c.quasi = calloc(nt, sizeof(*c.quasi));
	c.removed = calloc(nn, sizeof(bool));
	c.clamp = calloc(nn, sizeof(bool));
	c.has_clamp = calloc(nn, sizeof(bool));
	p->nodes = calloc(nn, sizeof(*p->nodes));
	p->values = calloc(nv + 1, sizeof(*p->values));
	if (!c.vmap || !c.quasi || !c.removed || !c.clamp || !c.has_clamp || !p->nodes ||
	    !p->values) {
		rc = ap_fail(err, -ENOMEM, "out of memory building partition %u", partition);
		goto out;
	}
	for (uint32_t t = 0; t < nt; t++)
		c.vmap[t] = -1;
	for (uint32_t k = 0; k < part->n_ops; k++)
		if (x->ops[part->ops[k]].unpacks)
			c.quasi[g->ops[part->ops[k]].out[0]] = true;
	for (uint32_t k = 0; k < part->n_ops; k++) {
		int32_t i = part->ops[k], in, q;

		if (g->ops[i].opcode == OP_READ_VARIABLE ||
		    g->ops[i].opcode == OP_ASSIGN_VARIABLE) {
			var_copy(&c, i, partition);
			continue;
		}
		/* a VAR_HANDLE defines no node: its variable is a value the copies use */
		if (x->ops[i].unpacks || !g->ops[i].n_in || !g->ops[i].n_out)
			continue;
		in = fc_prologue(&c, i, partition);
		q = dyn_quant(&c, i) ? dq_prologue(&c, i, partition, in) : -1;
		define(&c, i, &p->nodes[p->n_nodes], p->n_nodes);
		p->nodes[p->n_nodes].partition = partition;
		if (in >= 0)
			p->nodes[p->n_nodes].in_value = in;
		if (q >= 0)
			dq_node(&c, &p->nodes[p->n_nodes], q);
		else if (srq_fc(&c, i))	/* its filter redefined per channel, static */
			c.p->values[new_value(&c, 0)].alloc = XNN_A_STATIC;
		p->n_nodes++;
		if (binary_clamps(&c, i))
			insert_clamp(&c, partition);
	}
	p->n_defined = p->n_nodes;
	analyze(&c);
	fold_pads(&c);
	fuse_copies(&c);
	folded = fold_clamps(&c);
	lhs = packed_lhs(&c, &x->cpu);
	lifetimes(&c);
	compact(&c);
	/* a merged clamp is a change of xnn_subgraph_optimize_common_subgraphs, whose
	 * clean-up drops every node fused away (a folded PAD's too) before the runtime
	 * sizes its opdata; without one the fused nodes keep their slots */
	if (folded || lhs)
		p->n_defined = p->n_nodes;
out:
	free(c.vmap);
	free(c.quasi);
	free(c.removed);
	free(c.clamp);
	free(c.has_clamp);
	return rc;
}

void xnn_partition_free(struct xnn_partition *p)
{
	free(p->nodes);
	free(p->values);
	memset(p, 0, sizeof(*p));
}
