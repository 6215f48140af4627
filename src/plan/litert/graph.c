// SPDX-License-Identifier: Apache-2.0
/*
 * graph: the planner's view of one subgraph. Sizes and allocation classes follow
 * LiteRT's InterpreterBuilder::ParseTensors and Subgraph::SetTensorParametersRead*.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/graph.h"

/* Bytes per element (LiteRT's GetSizeOfType); 0 = dynamic, <0 = packed sub-byte. */
static int type_size(uint8_t type)
{
	switch (type) {
	case AP_TT_FLOAT32: case AP_TT_INT32: case AP_TT_UINT32:
		return 4;
	case AP_TT_FLOAT16: case AP_TT_INT16: case AP_TT_UINT16: case AP_TT_BFLOAT16:
		return 2;
	case AP_TT_UINT8: case AP_TT_INT8: case AP_TT_BOOL:
	case AP_TT_FLOAT8_E4M3FN: case AP_TT_FLOAT8_E5M2:
		return 1;
	case AP_TT_INT64: case AP_TT_UINT64: case AP_TT_FLOAT64: case AP_TT_COMPLEX64:
		return 8;
	case AP_TT_COMPLEX128:
		return 16;
	case AP_TT_INT4: case AP_TT_UINT4:
		return -2;	/* two elements a byte */
	case AP_TT_INT2:
		return -4;	/* four elements a byte */
	default:
		return 0;	/* string, resource, variant, unknown */
	}
}

int ap_tensor_bytes(uint8_t type, const int32_t *shape, uint32_t rank, uint64_t *bytes)
{
	int sz = type_size(type);
	uint64_t n = 1;

	if (sz == 0)
		return 0;
	for (uint32_t i = 0; i < rank; i++) {
		/* A negative dimension in a static shape is treated as 0 (unknown size). */
		uint64_t d = shape[i] < 0 ? 0 : (uint64_t)shape[i];

		if (__builtin_mul_overflow(n, d, &n))
			return -EINVAL;
	}
	if (sz > 0) {
		if (__builtin_mul_overflow(n, (uint64_t)sz, &n))
			return -EINVAL;
	} else {
		n = n / (uint64_t)(-sz) + (n % (uint64_t)(-sz) != 0);
	}
	if (n > AP_PLAN_MAX_BYTES)
		return -EINVAL;
	*bytes = n;
	return 1;
}

/* "[d0, d1, ...]" of a shape, cut to fit buf. */
static const char *shape_text(const int32_t *shape, uint32_t rank, char *buf, size_t len)
{
	size_t at = 0;

	buf[at++] = '[';
	buf[at] = '\0';
	for (uint32_t i = 0; i < rank && at + 16 < len; i++)
		at += (size_t)snprintf(buf + at, len - at, "%s%d", i ? ", " : "", shape[i]);
	snprintf(buf + at, len - at, "%s]", rank && at + 16 >= len ? ", ..." : "");
	return buf;
}

int ap_graph_check_bytes(const struct ap_graph *g, char *err)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < g->n_tensors; i++) {
		if (g->t[i].bytes > AP_PLAN_MAX_BYTES ||
		    __builtin_add_overflow(sum, g->t[i].bytes + 64, &sum) ||
		    sum > AP_PLAN_MAX_BYTES) {
			ap_seterr(err, "implausible: the tensors' sizes add up to more than "
				  AP_PLAN_MAX_BYTES_TEXT " (at tensor %u of %u)", i, g->n_tensors);
			return -EINVAL;
		}
	}
	return 0;
}

/* Activations that --as-dtype float32 widens: the float and quantized value types. */
static bool is_activation_type(uint8_t type)
{
	switch (type) {
	case AP_TT_FLOAT32: case AP_TT_FLOAT16: case AP_TT_BFLOAT16:
	case AP_TT_UINT8: case AP_TT_INT8: case AP_TT_INT16: case AP_TT_INT4:
		return true;
	default:
		return false;
	}
}

static void mark(struct ap_graph *g, const int32_t *idx, uint32_t n, unsigned flag)
{
	for (uint32_t i = 0; i < n; i++)
		if (idx[i] >= 0 && (uint32_t)idx[i] < g->n_tensors)
			g->t[idx[i]].flags |= flag;
}

int ap_graph_read(const struct ap_model *m, uint32_t subgraph,
		  const struct ap_graph_opts *opts, struct ap_graph *g, char *err)
{
	const struct ap_model_subgraph *sg;

	memset(g, 0, sizeof(*g));
	g->first_split = -1;	/* until ap_lifetimes_tflite looks */
	if (subgraph >= m->n_subgraphs) {
		return ap_fail(err, -EINVAL, "model has %u subgraphs, no subgraph %u",
			       m->n_subgraphs, subgraph);
	}
	sg = &m->subgraphs[subgraph];
	g->model = m;
	g->subgraph = subgraph;
	g->n_tensors = sg->n_tensors;
	g->n_ops = sg->n_ops;
	g->n_inputs = sg->n_inputs;
	g->outputs = sg->outputs;
	g->n_outputs = sg->n_outputs;
	g->t = calloc(g->n_tensors ? g->n_tensors : 1, sizeof(*g->t));
	g->ops = calloc(g->n_ops ? g->n_ops : 1, sizeof(*g->ops));
	g->owned_inputs = malloc((g->n_inputs ? g->n_inputs : 1) * sizeof(*g->owned_inputs));
	if (!g->t || !g->ops || !g->owned_inputs) {
		ap_graph_release(g);
		return ap_fail(err, -ENOMEM, "out of memory building the graph");
	}
	for (uint32_t k = 0; k < g->n_inputs; k++)
		g->owned_inputs[k] = sg->inputs[k];
	g->inputs = g->owned_inputs;

	for (uint32_t i = 0; i < g->n_tensors; i++) {
		const struct ap_model_tensor *mt = &sg->tensors[i];
		struct ap_tensor *t = &g->t[i];
		int k;

		t->name = mt->name;
		t->type = mt->type;
		t->producer = -1;
		t->share_root = -1;
		t->first = t->last = AP_NODE_NONE;
		k = ap_tensor_bytes(mt->type, mt->shape, mt->rank, &t->bytes);
		if (k > 0 && opts->as_float32 && is_activation_type(mt->type) &&
		    !ap_model_buffer_is_constant(m, mt->buffer))
			k = ap_tensor_bytes(AP_TT_FLOAT32, mt->shape, mt->rank, &t->bytes);
		if (k < 0) {
			char sh[96];

			ap_seterr(err, "implausible: tensor %u (%s) of type %s and shape %s "
				  "would hold more than " AP_PLAN_MAX_BYTES_TEXT, i,
				  mt->name ? mt->name : "", ap_tensor_type_name(mt->type),
				  shape_text(mt->shape, mt->rank, sh, sizeof(sh)));
			ap_graph_release(g);
			return -EINVAL;
		}
		if (ap_model_buffer_is_constant(m, mt->buffer)) {
			t->alloc = AP_ALLOC_WEIGHTS;
			if (!k)
				t->bytes = 0;
			continue;
		}
		if (!k) {
			t->alloc = AP_ALLOC_DYNAMIC;
			t->bytes = 0;
			continue;
		}
		if (mt->is_variable) {
			t->alloc = AP_ALLOC_PERSISTENT;
			t->flags |= AP_TF_VARIABLE;
		} else {
			t->alloc = AP_ALLOC_ARENA;
		}
	}
	for (uint32_t i = 0; i < g->n_tensors; i++) {
		const struct ap_file_shape *fs = sg->file_shapes ? &sg->file_shapes[i] : NULL;
		uint8_t type = sg->tensors[i].type;

		g->t[i].read_alloc = g->t[i].alloc;
		g->t[i].read_bytes = g->t[i].bytes;
		if (!fs || !fs->d || g->t[i].alloc != AP_ALLOC_ARENA)
			continue;
		if (opts->as_float32 && is_activation_type(type))
			type = AP_TT_FLOAT32;
		if (ap_tensor_bytes(type, fs->d, fs->rank, &g->t[i].read_bytes) < 0)
			g->t[i].read_bytes = g->t[i].bytes;	/* the inferred one is plausible */
	}
	mark(g, sg->inputs, sg->n_inputs, AP_TF_INPUT);
	mark(g, sg->outputs, sg->n_outputs, AP_TF_OUTPUT);

	for (uint32_t i = 0; i < g->n_ops; i++) {
		const struct ap_model_op *mo = &sg->ops[i];
		struct ap_op *op = &g->ops[i];

		op->opcode = ap_model_op_code(m, mo);
		op->name = ap_model_op_name(m, mo);
		op->in = mo->inputs;
		op->n_in = mo->n_inputs;
		op->out = mo->outputs;
		op->n_out = mo->n_outputs;
		for (uint32_t j = 0; j < op->n_out; j++) {
			int32_t o = op->out[j];

			if (o >= 0 && (uint32_t)o < g->n_tensors && g->t[o].producer < 0)
				g->t[o].producer = (int32_t)i;
		}
	}
	return 0;
}

void ap_graph_release(struct ap_graph *g)
{
	free(g->t);
	free(g->ops);
	free(g->owned_inputs);
	memset(g, 0, sizeof(*g));
}
