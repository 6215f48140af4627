// SPDX-License-Identifier: Apache-2.0
/*
 * tflm_scratch: the scratch buffers TFLite Micro's reference kernels request in Prepare
 * (RequestScratchBufferInArena), from the file's shapes and types, which TFLM never
 * changes. docs/runtimes.md ("TFLite Micro") lists each kernel's; a kernel not listed here
 * requests none. Sizes are as requested: the planner rounds them to 16 bytes.
 */
#include <errno.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/util/err.h"
#include "tflm_priv.h"

struct req {
	const struct ap_model *m;
	const struct ap_model_subgraph *sg;
	const struct ap_model_op *op;
	struct ap_tflm_scratch *out;
	int n;
};

/* input k of the node, NULL when absent or out of range */
static const struct ap_model_tensor *in(const struct req *r, uint32_t k)
{
	int32_t t = k < r->op->n_inputs ? r->op->inputs[k] : -1;

	return t >= 0 && (uint32_t)t < r->sg->n_tensors ? &r->sg->tensors[t] : NULL;
}

static const struct ap_model_tensor *out0(const struct req *r)
{
	int32_t t = r->op->n_outputs ? r->op->outputs[0] : -1;

	return t >= 0 && (uint32_t)t < r->sg->n_tensors ? &r->sg->tensors[t] : NULL;
}

/* dimension d, 0 when the tensor has fewer (or a negative one) */
static uint64_t dim(const struct ap_model_tensor *t, uint32_t d)
{
	return t && d < t->rank && t->shape[d] > 0 ? (uint64_t)t->shape[d] : 0;
}

static uint64_t elements(const struct ap_model_tensor *t)
{
	uint64_t n = 1;

	for (uint32_t d = 0; t && d < t->rank; d++)
		n *= dim(t, d);
	return t ? n : 0;
}

static void add(struct req *r, uint64_t bytes, const char *what)
{
	if (r->n < AP_TFLM_MAX_SCRATCH)
		r->out[r->n++] = (struct ap_tflm_scratch){ bytes, what };
}

/* CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED: an int4 filter is unpacked into a buffer
 * of one byte per weight. */
static void filter_int4(struct req *r)
{
	const struct ap_model_tensor *f = in(r, 1);

	if (f && f->type == AP_TT_INT4)
		add(r, elements(f), "unpacked int4 filter");
}

/* ADD_N: a pointer per input, for float32 and int8 outputs. */
static void add_n(struct req *r)
{
	const struct ap_model_tensor *o = out0(r);

	if (o && (o->type == AP_TT_FLOAT32 || o->type == AP_TT_INT8))
		add(r, 8 * (uint64_t)r->op->n_inputs, "input pointers");
}

/* MEAN, SUM, REDUCE_MAX, REDUCE_MIN, REDUCE_ALL: index buffers of an int
 * each over the input's rank and the axis, and for a quantized MEAN or SUM an int32
 * accumulator per output element first. */
static void reduce(struct req *r, int32_t code)
{
	const struct ap_model_tensor *i = in(r, 0), *axis = in(r, 1);

	if (!i || !axis)
		return;
	if ((code == OP_MEAN || code == OP_SUM) &&
	    (i->type == AP_TT_INT8 || i->type == AP_TT_INT16))
		add(r, 4 * elements(out0(r)), "accumulator");
	add(r, 4 * (uint64_t)i->rank, "input iterator");
	add(r, 4 * elements(axis), "resolved axis");
}

/* MIRROR_PAD: two int per input dimension. */
static void mirror_pad(struct req *r)
{
	const struct ap_model_tensor *i = in(r, 0);

	if (!i)
		return;
	add(r, 4 * (uint64_t)i->rank, "output dims elements");
	add(r, 4 * (uint64_t)i->rank, "input dims elements");
}

/* SVDF: [batch, filters] of int32 or float, and for int8 [batch, units] of int32; the
 * units are the output's dim 1. */
static void svdf(struct req *r)
{
	const struct ap_model_tensor *i = in(r, 0), *wf = in(r, 1);
	uint64_t batch = dim(i, 0), filters = dim(wf, 0);

	if (!i || !wf)
		return;
	add(r, 4 * batch * filters, "scratch");
	if (i->type == AP_TT_INT8)
		add(r, 4 * batch * dim(out0(r), 1), "scratch output");
}

/* UNIDIRECTIONAL_SEQUENCE_LSTM: four [batch, state] buffers of the cell state's type. The
 * batch is the input's dim 1 when time major (option 3), else dim 0; the state size the
 * output state's (input 18) dim 1; the cell state is input 19. */
static void lstm(struct req *r)
{
	const struct ap_model_tensor *i = in(r, 0), *hs = in(r, 18), *cs = in(r, 19);
	bool time_major = ap_model_op_option(r->m, r->op, 3, 1, 0) != 0;
	uint64_t each;

	if (!i || !hs || !cs)
		return;
	each = dim(i, time_major ? 1 : 0) * dim(hs, 1) * (cs->type == AP_TT_INT16 ? 2 : 4);
	for (int k = 0; k < 4; k++)
		add(r, each, "gate buffer");
}

/* TRANSPOSE_CONV: for an int8 input an int32 per output element, for int16 an int64, and
 * then, when its bias is int16, the bias widened to int64. */
static void transpose_conv(struct req *r)
{
	const struct ap_model_tensor *i = in(r, 2), *bias = in(r, 3);

	if (!i || (i->type != AP_TT_INT8 && i->type != AP_TT_INT16))
		return;
	add(r, (i->type == AP_TT_INT8 ? 4 : 8) * elements(out0(r)), "accumulator");
	if (i->type == AP_TT_INT16 && bias && bias->type == AP_TT_INT16)
		add(r, 8 * elements(bias), "int64 bias");
}

/* TFLite_Detection_PostProcess: eleven buffers over the boxes (box_encodings dim 1), from
 * the options its Init reads (max_detections, num_classes) and the class predictions'
 * dims 1 and 2. */
static void detection_postprocess(struct req *r)
{
	const struct ap_model_tensor *box = in(r, 0), *cls = in(r, 1);
	const struct ap_model_op_vecs *v = r->op->vecs;
	uint64_t boxes = dim(box, 1), det, classes;

	if (!box || !cls || r->op->n_inputs != 3)
		return;
	det = (uint64_t)tflm_flex_int(v ? v->custom : NULL, v ? v->n_custom : 0,
				      "max_detections");
	classes = (uint64_t)tflm_flex_int(v ? v->custom : NULL, v ? v->n_custom : 0,
					  "num_classes");
	det = det > INT32_MAX ? 0 : det;
	classes = classes > INT32_MAX ? 0 : classes;
	add(r, boxes, "active candidates");
	add(r, boxes * 4 * 4, "decoded boxes");
	add(r, dim(cls, 1) * dim(cls, 2) * 4, "scores");
	add(r, boxes * 4, "score buffer");
	add(r, boxes * 4, "keep scores");
	add(r, det * boxes * 4, "scores after regular nms");
	add(r, det * boxes * 4, "sorted values");
	add(r, boxes * 4, "keep indices");
	add(r, det * boxes * 4, "sorted indices");
	add(r, (classes > det ? classes : det) * boxes * 4, "buffer");
	add(r, (boxes < det ? boxes : det) * boxes * 4, "selected");
}

/* SignalRfft (the signal library's): fft_length (its options' element 1) elements of the
 * input's type, int16, int32 or float32. */
static void signal_rfft(struct req *r)
{
	const struct ap_model_tensor *i = in(r, 0);
	const struct ap_model_op_vecs *v = r->op->vecs;
	int64_t len = v ? tflm_flex_elem(v->custom, v->n_custom, 1) : 0;

	if (!i || len < 0 || len > INT32_MAX)
		return;
	add(r, (uint64_t)len * (i->type == AP_TT_INT16 ? 2 : 4), "fft");
}

static void custom(struct req *r, const char *name)
{
	if (!name)
		return;
	if (!strcmp(name, "TFLite_Detection_PostProcess"))
		detection_postprocess(r);
	else if (!strcmp(name, "SignalRfft"))
		signal_rfft(r);
}

int ap_tflm_scratch(const struct ap_model *m, uint32_t sg, uint32_t node,
		    struct ap_tflm_scratch *out, char *err)
{
	struct req r = { .m = m, .sg = &m->subgraphs[sg], .out = out };
	int32_t code;

	if (sg >= m->n_subgraphs || node >= m->subgraphs[sg].n_ops)
		return ap_fail(err, -EINVAL, "internal error: no node %u in subgraph %u", node,
			       sg);
	r.op = &r.sg->ops[node];
	code = ap_model_op_code(m, r.op);
	switch (code) {
	case OP_CONV_2D:
	case OP_DEPTHWISE_CONV_2D:
	case OP_FULLY_CONNECTED:
		filter_int4(&r);
		break;
	case OP_ADD_N:
		add_n(&r);
		break;
	case OP_MEAN:
	case OP_SUM:
	case OP_REDUCE_MAX:
	case OP_REDUCE_MIN:
	case OP_REDUCE_ALL:
		reduce(&r, code);
		break;
	case OP_MIRROR_PAD:
		mirror_pad(&r);
		break;
	case OP_TRANSPOSE_CONV:
		transpose_conv(&r);
		break;
	case OP_SVDF:
		svdf(&r);
		break;
	case OP_UNIDIRECTIONAL_SEQUENCE_LSTM:
		lstm(&r);
		break;
	case OP_CUSTOM:
		custom(&r, m->opcodes[r.op->opcode_index].custom_name);
		break;
	default:
		break;
	}
	return r.n;
}
