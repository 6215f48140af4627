// SPDX-License-Identifier: Apache-2.0
/*
 * coverage: which operators kernels.c does not model, from the audit of LiteRT's kernels in
 * docs/litert-kernels.md (its tables say, per operator, what Prepare does and whether
 * kernels.c matches it). An operator listed here is still planned, as an ordinary
 * operator; the plan names it so that its numbers are not taken as LiteRT's.
 *
 * "const" below is LiteRT's IsConstantOrPersistentTensor: data in the file, or folded at
 * Prepare (kernels.c makes those ro). DILATE asks IsConstantTensor only; a ro dilations
 * input is not named there.
 */
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/coverage.h"

/* BuiltinOperator codes (schema.fbs) with a rule below that is not a mask. */
enum {
	OP_FULLY_CONNECTED = 9, OP_LSTM = 16, OP_CUSTOM = 32, OP_PAD = 34,
	OP_BIDIRECTIONAL_SEQUENCE_LSTM = 52, OP_PADV2 = 60, OP_SLICE = 65, OP_READ_VARIABLE = 143,
};

enum { OPT_LSTM = 14 };	/* BuiltinOptions: LSTMOptions */

/* What kernels.c models of a dyn output, and what it cannot: the sizes after it. */
#define LATER "output dyn (heap), plan split after it; later sizes are the file's, " \
	      "LiteRT's come from the data"

enum rule {
	ALWAYS,		/* whatever the node's inputs */
	DYN,		/* output dyn unless every input in mask is const */
	LATER_SIZES,	/* as DYN, when shapes.c could not give every later shape */
	SPECIAL,	/* a function below decides */
};

static const struct cover {
	int32_t opcode;
	enum rule rule;
	uint8_t mask;		/* inputs the rule looks at: bit j = input j */
	const char *why;
} covers[] = {
	{ 22, LATER_SIZES, 0x02, "with a computed shape: shape known in Eval, plan split after "
				 "it; later sizes are the file's, LiteRT's come from the data" },
	{ 23, LATER_SIZES, 0x02, "with a computed size: " LATER },
	{ 33, ALWAYS, 0, "output always dyn" },
	{ 34, LATER_SIZES, 0x02, "with computed paddings: " LATER },
	{ 37, DYN, 0x06, "with computed block or crops: output dyn" },
	{ 38, DYN, 0x06, "with computed block or paddings: output dyn" },
	{ 39, LATER_SIZES, 0x02, "with a computed perm: " LATER },
	{ 40, DYN, 0x02, "over a computed axis: output dyn" },
	{ 45, DYN, 0x0e, "with computed begin, end or strides: output dyn" },
	{ 48, DYN, 0x02, "with a computed k: outputs dyn" },
	{ 49, LATER_SIZES, 0x01, "on a computed axis: " LATER },
	{ 56, DYN, 0x02, "over a computed axis: output dyn" },
	{ 60, DYN, 0x02, "with computed paddings: output dyn, plan split" },
	{ 67, DYN, 0x01, "with a computed output_shape: output dyn" },
	{ 68, DYN, 0x02, "with a computed output_shape: output dyn" },
	{ 69, LATER_SIZES, 0x02, "with computed multiples: " LATER },
	{ 70, DYN, 0x02, "on a computed axis: output dyn" },
	{ 74, DYN, 0x02, "over a computed axis: output dyn" },
	{ 79, DYN, 0x02, "over a computed axis: output dyn" },
	{ 81, DYN, 0x02, "over a computed axis: output dyn" },
	{ 82, DYN, 0x02, "over a computed axis: output dyn" },
	{ 85, DYN, 0x02, "with a computed depth: output dyn" },
	{ 89, DYN, 0x02, "over a computed axis: output dyn" },
	{ 91, DYN, 0x02, "over a computed axis: output dyn" },
	{ 94, LATER_SIZES, 0x01, "with computed dims: " LATER },
	{ 96, DYN, 0x07, "of computed bounds: output dyn" },
	{ 97, DYN, 0x02, "with a computed size: output dyn" },
	{ 100, DYN, 0x02, "with computed paddings: output dyn" },
	{ 102, DYN, 0x06, "with computed sizes or axis: outputs dyn" },
	{ 103, ALWAYS, 0, "output always dyn" },
	{ 109, DYN, 0x01, "with a computed condition: output dyn" },
	{ 120, DYN, 0x04, "with a computed max_output_size: dyn" },
	{ 121, DYN, 0x04, "with a computed max_output_size: dyn" },
	{ 122, DYN, 0x04, "with a computed shape: output dyn" },
	{ 125, DYN, 0x03, "of computed data or ids: output dyn" },
	{ 130, LATER_SIZES, 0x02, "to a computed shape: " LATER },
	{ 131, ALWAYS, 0, "Prepare's 4 temporaries not modelled" },
	{ 140, DYN, 0x02, "over a computed axis: output dyn" },
	{ 141, ALWAYS, 0, "col2im and output_shape not modelled" },
	{ 146, DYN, 0x01, "of a computed shape: output dyn" },
	{ 148, DYN, 0x01, "of a computed shape: output dyn" },
	{ 149, DYN, 0x03, "of computed inputs: output dyn" },
	{ 153, DYN, 0x07, "of computed ids or count: output dyn" },
	{ 154, DYN, 0x07, "of computed ids or count: output dyn" },
	{ 155, DYN, 0x07, "of computed ids or count: output dyn" },
	{ 157, DYN, 0x07, "of computed ids or count: output dyn" },
	{ 198, ALWAYS, 0, "Prepare's 2 temporaries not modelled" },
	{ 203, DYN, 0x02, "with computed dilations: output dyn" },
	{ 206, ALWAYS, 0, "decomposition subgraph not planned" },
	{ 209, ALWAYS, 0, "branch subgraphs not planned" },
	{ OP_FULLY_CONNECTED, SPECIAL, 0, "with an int4 or sparse filter: not modelled" },
	{ OP_LSTM, SPECIAL, 0, "basic or integer kernel: its Prepare is not modelled" },
	{ OP_BIDIRECTIONAL_SEQUENCE_LSTM, SPECIAL, 0, "hybrid: its temporaries are not modelled" },
	{ OP_PAD, SPECIAL, 0, "of a scalar: output dyn" },
	{ OP_PADV2, SPECIAL, 0, "of a scalar: output dyn" },
	{ OP_SLICE, SPECIAL, 0, "with computed begin or size and no static shape: output dyn" },
	{ OP_READ_VARIABLE, SPECIAL, 0, "of rank 0: output dyn" },
	{ OP_CUSTOM, SPECIAL, 0, "custom operator: its kernel is not modelled" },
};

/* Custom operators of LiteRT's default resolver whose Prepare changes nothing, or that
 * kernels_custom.c models. */
static const char *const plain_customs[] = { "Mfcc", "AudioSpectrogram",
					     "aeq.hadamard_rotation",
					     "TFLite_Detection_PostProcess" };

static const struct ap_model_tensor *mtensor(const struct ap_graph *g, int32_t t)
{
	const struct ap_model_subgraph *sg = &g->model->subgraphs[g->subgraph];

	return t >= 0 && (uint32_t)t < sg->n_tensors ? &sg->tensors[t] : NULL;
}

/* Input j of op is const or ro (absent inputs count as const: nothing to compute). */
static bool is_const(const struct ap_graph *g, const struct ap_op *op, uint32_t j)
{
	int32_t t = j < op->n_in ? op->in[j] : -1;

	return t < 0 || (uint32_t)t >= g->n_tensors || g->t[t].alloc == AP_ALLOC_WEIGHTS ||
	       g->t[t].alloc == AP_ALLOC_RO;
}

/* Every input in mask is const; mask 0xff: every input, however many. */
static bool all_const(const struct ap_graph *g, const struct ap_op *op, uint8_t mask)
{
	for (uint32_t j = 0; j < op->n_in; j++)
		if ((mask == 0xff || (j < 8 && (mask >> j & 1))) && !is_const(g, op, j))
			return false;
	return true;
}

static uint8_t in_type(const struct ap_graph *g, const struct ap_op *op, uint32_t j)
{
	int32_t t = j < op->n_in ? op->in[j] : -1;

	return t >= 0 && (uint32_t)t < g->n_tensors ? g->t[t].type : 0xff;
}

/* A shape with an unknown dimension (shape_signature -1). */
static bool unknown_dims(const struct ap_model_tensor *t)
{
	for (uint32_t d = 0; t && t->shape_signature && d < t->sig_rank; d++)
		if (t->shape_signature[d] < 0)
			return true;
	return false;
}

static bool special(const struct ap_graph *g, uint32_t node)
{
	const struct ap_op *op = &g->ops[node];
	const struct ap_model_tensor *in0 = mtensor(g, op->n_in ? op->in[0] : -1);
	const struct ap_model_tensor *out0 = mtensor(g, op->n_out ? op->out[0] : -1);

	switch (op->opcode) {
	case OP_FULLY_CONNECTED: {
		const struct ap_model_tensor *f = mtensor(g, op->n_in > 1 ? op->in[1] : -1);

		return in_type(g, op, 1) == AP_TT_INT4 || (f && f->sparse);
	}
	case OP_LSTM: {
		/* kernels_rnn.c models the full kernel (LSTMOptions.kernel_type 0), float input */
		const struct ap_model_op *mo = &g->model->subgraphs[g->subgraph].ops[node];

		return mo->options_type != OPT_LSTM || in_type(g, op, 0) != AP_TT_FLOAT32 ||
		       ap_model_op_option(g->model, mo, 3, 1, 0) != 0;
	}
	case OP_BIDIRECTIONAL_SEQUENCE_LSTM:
		/* kernels_rnn.c models the float kernel only */
		return in_type(g, op, 0) != AP_TT_FLOAT32 || in_type(g, op, 4) != AP_TT_FLOAT32;
	case OP_PAD:
	case OP_PADV2:
		return in0 && in0->rank == 0;
	case OP_SLICE:
		return !all_const(g, op, 0x06) && (unknown_dims(out0) || !out0);
	case OP_READ_VARIABLE:
		return out0 && out0->rank == 0;
	case OP_CUSTOM:
		for (size_t i = 0; i < sizeof(plain_customs) / sizeof(plain_customs[0]); i++)
			if (op->name && !strcmp(op->name, plain_customs[i]))
				return false;
		return true;
	}
	return false;
}

/* shapes.c gave every open shape of the graph (subgraph 0 only): none is the file's. */
static bool shapes_known(const struct ap_graph *g)
{
	return g->subgraph == 0 && g->model->shapes_inferred &&
	       g->model->shapes_unresolved_op < 0 && g->model->shapes_refused_op < 0;
}

/* Why node's kernel is not modelled, or NULL. */
static const char *gap_of(const struct ap_graph *g, uint32_t node)
{
	const struct ap_op *op = &g->ops[node];
	const char *flow;

	/* ops past the model's own (none today) are the kernels' business */
	if (!g->model || node >= g->model->subgraphs[g->subgraph].n_ops)
		return NULL;
	flow = ap_flow_gap(g, node);
	if (flow)
		return flow;
	if (g->subgraph == 0 && g->model->shapes_inferred &&
	    g->model->shapes_refused_op == (int32_t)node)
		return "LiteRT's Prepare refuses its input shapes (elements that do not match, "
		       "shapes that do not broadcast, a window wider than its input)";
	if (g->subgraph == 0 && g->model->shapes_inferred &&
	    g->model->shapes_unresolved_op == (int32_t)node)
		return "its output's shape is not inferred (a shape the data gives, or inputs "
		       "its kernel refuses): planned at the file's, and the sizes after it";
	for (size_t i = 0; i < sizeof(covers) / sizeof(covers[0]); i++) {
		const struct cover *c = &covers[i];
		bool hit = false;

		if (c->opcode != op->opcode)
			continue;
		switch (c->rule) {
		case ALWAYS:
			hit = true;
			break;
		case DYN:
			hit = !all_const(g, op, c->mask);
			break;
		case LATER_SIZES:
			hit = !all_const(g, op, c->mask) && !shapes_known(g);
			break;
		case SPECIAL:
			hit = special(g, node);
			break;
		}
		if (hit)
			return c->why;
	}
	return NULL;
}

int ap_kernel_gaps(const struct ap_graph *g, struct ap_gap **gaps)
{
	uint32_t n = 0;

	*gaps = NULL;
	for (uint32_t i = 0; i < g->n_ops; i++)
		n += gap_of(g, i) != NULL;
	if (!n)
		return 0;
	*gaps = malloc(n * sizeof(**gaps));
	if (!*gaps)
		return -1;
	n = 0;
	for (uint32_t i = 0; i < g->n_ops; i++) {
		const char *why = gap_of(g, i);

		if (why)
			(*gaps)[n++] = (struct ap_gap){ .node = i, .why = why };
	}
	return (int)n;
}
