// SPDX-License-Identifier: Apache-2.0
/*
 * coverage: which operators kernels.c does not model, from the audit of LiteRT's kernels in
 * docs/litert-kernels.md (its tables say, per operator, what Prepare does and whether
 * kernels.c matches it). An operator listed here is still planned, as an ordinary
 * operator; the plan names it so that its numbers are not taken as LiteRT's.
 *
 * "const" below is LiteRT's IsConstantOrPersistentTensor: data in the file, or folded at
 * Prepare (kernels.c makes those ro). A SPLIT rule names the node when its kernel made an
 * output dyn (kernels_alloc.c's dyn rules, the reductions, TRANSPOSE_CONV and
 * CONV_3D_TRANSPOSE, each with its Prepare's own test): that much is modelled, but the
 * sizes after it are the file's.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/kernels.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/shapes.h"

/* BuiltinOperator codes (schema.fbs) with a rule below that is not a mask. */
enum { OPT_LSTM = 14 };	/* BuiltinOptions: LSTMOptions */

/* What kernels.c models of a dyn output, and what it cannot: the sizes after it. */
#define LATER "output dyn (heap), plan split after it; later sizes are the file's, " \
	      "LiteRT's come from the data"

enum rule {
	ALWAYS,		/* whatever the node's inputs */
	DYN,		/* output dyn unless every input in mask is const */
	SPECIAL,	/* a function below decides */
	SPLIT,		/* the kernel made an output dyn or its shape unknown (modelled):
			 * the plan splits */
};

static const struct cover {
	int32_t opcode;
	enum rule rule;
	uint8_t mask;		/* inputs the rule looks at: bit j = input j */
	const char *why;
} covers[] = {
	{ OP_RESHAPE, SPLIT, 0, "with a computed shape: shape known in Eval only, plan split "
			"after it; later sizes are the file's, LiteRT's come from the data" },
	{ OP_RESIZE_BILINEAR, SPLIT, 0, "with a computed size: " LATER },
	{ OP_EMBEDDING_LOOKUP_SPARSE, SPLIT, 0, "always: " LATER },
	{ OP_PAD, SPLIT, 0, "with computed paddings or of a scalar: " LATER },
	{ OP_BATCH_TO_SPACE_ND, SPLIT, 0, "with computed block or crops: " LATER },
	{ OP_SPACE_TO_BATCH_ND, SPLIT, 0, "with computed block or paddings: " LATER },
	{ OP_TRANSPOSE, SPLIT, 0, "with a computed perm: " LATER },
	{ OP_MEAN, SPLIT, 0, "over a computed axis: " LATER },
	{ OP_STRIDED_SLICE, SPLIT, 0, "with computed begin, end or strides: " LATER },
	{ OP_TOPK_V2, SPLIT, 0, "with a computed k or an input of unknown dims: " LATER },
	{ OP_SPLIT, SPLIT, 0, "on a computed axis: " LATER },
	{ OP_ARG_MAX, SPLIT, 0, "over a computed axis: " LATER },
	{ OP_PADV2, SPLIT, 0, "with computed paddings or of a scalar: " LATER },
	{ OP_TRANSPOSE_CONV, SPLIT, 0, "with a computed output_shape: " LATER },
	{ OP_SPARSE_TO_DENSE, SPLIT, 0, "with a computed output_shape: " LATER },
	{ OP_TILE, SPLIT, 0, "with computed multiples: " LATER },
	{ OP_EXPAND_DIMS, SPLIT, 0, "on a computed axis: " LATER },
	{ OP_SUM, SPLIT, 0, "over a computed axis: " LATER },
	{ OP_ARG_MIN, SPLIT, 0, "over a computed axis: " LATER },
	{ OP_REDUCE_PROD, SPLIT, 0, "over a computed axis: " LATER },
	{ OP_REDUCE_MAX, SPLIT, 0, "over a computed axis: " LATER },
	{ OP_ONE_HOT, SPLIT, 0, "with a computed depth: " LATER },
	{ OP_REDUCE_MIN, SPLIT, 0, "over a computed axis: " LATER },
	{ OP_REDUCE_ANY, SPLIT, 0, "over a computed axis: " LATER },
	{ OP_FILL, SPLIT, 0, "with computed dims: " LATER },
	{ OP_RANGE, SPLIT, 0, "of computed bounds: " LATER },
	{ OP_RESIZE_NEAREST_NEIGHBOR, SPLIT, 0, "with a computed size: " LATER },
	{ OP_MIRROR_PAD, SPLIT, 0, "with computed paddings: " LATER },
	{ OP_SPLIT_V, SPLIT, 0, "with computed sizes or axis: " LATER },
	{ OP_UNIQUE, SPLIT, 0, "always: " LATER },
	{ OP_WHERE, SPLIT, 0, "with a computed condition: " LATER },
	{ OP_NON_MAX_SUPPRESSION_V4, SPLIT, 0, "with a computed max_output_size: " LATER },
	{ OP_NON_MAX_SUPPRESSION_V5, SPLIT, 0, "with a computed max_output_size: " LATER },
	{ OP_SCATTER_ND, SPLIT, 0, "with a computed shape: " LATER },
	{ OP_SLICE, SPLIT, 0, "with computed begin or size and no static output shape: " LATER },
	{ OP_SEGMENT_SUM, SPLIT, 0, "of computed data or ids: " LATER },
	{ OP_BROADCAST_TO, SPLIT, 0, "to a computed shape: " LATER },
	{ OP_RFFT2D, SPLIT, 0, "with a computed fft_length: " LATER },
	{ OP_REDUCE_ALL, SPLIT, 0, "over a computed axis: " LATER },
	{ OP_CONV_3D_TRANSPOSE, SPLIT, 0, "with a computed output_shape: " LATER },
	{ OP_READ_VARIABLE, SPLIT, 0, "of rank 0: " LATER },
	{ OP_RANDOM_STANDARD_NORMAL, SPLIT, 0, "of a computed shape: " LATER },
	{ OP_RANDOM_UNIFORM, SPLIT, 0, "of a computed shape: " LATER },
	{ OP_MULTINOMIAL, SPLIT, 0, "of computed inputs: " LATER },
	{ OP_UNSORTED_SEGMENT_PROD, SPLIT, 0, "of dyn data, computed ids or count: " LATER },
	{ OP_UNSORTED_SEGMENT_MAX, SPLIT, 0, "of dyn data, computed ids or count: " LATER },
	{ OP_UNSORTED_SEGMENT_SUM, SPLIT, 0, "of dyn data, computed ids or count: " LATER },
	{ OP_UNSORTED_SEGMENT_MIN, SPLIT, 0, "of dyn data, computed ids or count: " LATER },
	{ OP_DILATE, SPLIT, 0, "with computed dilations: " LATER },
	{ OP_FULLY_CONNECTED, SPECIAL, 0, "hybrid, with a sparse filter whose dim 1 is not CSR: "
	  "its ledger is not modelled" },
	{ OP_LSTM, SPECIAL, 0, "sparse hybrid without projection weights, or with a sparse "
	  "weight whose dim 1 is not CSR: LiteRT crashes preparing its ledgers" },
	{ OP_RFFT2D, SPECIAL, 0, "with an fft_length folded at Prepare whose values are not "
	  "inferred: temporaries not sized" },
	{ OP_STABLEHLO_REDUCE_WINDOW, SPECIAL, 0, "window rank not the input's: not modelled" },
	{ OP_CUSTOM, SPECIAL, 0, "custom operator: its kernel is not modelled" },
};

/* Custom operators of LiteRT's default resolver whose Prepare changes nothing, or that
 * kernels_custom.c models. */
static const char *const plain_customs[] = { "Mfcc", "AudioSpectrogram",
					     "aeq.hadamard_rotation",
					     "TFLite_Detection_PostProcess", "NumericVerify" };

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

static bool special(const struct ap_graph *g, uint32_t node)
{
	const struct ap_op *op = &g->ops[node];

	switch (op->opcode) {
	case OP_FULLY_CONNECTED: {
		/* kernels_conv.c sizes the hybrid ledger from dim 1's CSR index vectors */
		const struct ap_model_tensor *f = mtensor(g, op->n_in > 1 ? op->in[1] : -1);
		uint8_t ft = in_type(g, op, 1);

		return f && f->sparse && in_type(g, op, 0) == AP_TT_FLOAT32 &&
		       (ft == AP_TT_UINT8 || ft == AP_TT_INT8 || ft == AP_TT_INT4 ||
			ft == AP_TT_INT2) &&
		       ap_model_sparse_ledger(&g->model->subgraphs[g->subgraph], op->in[1]) < 0;
	}
	case OP_LSTM: {
		/* kernels_rnn.c sizes the sparse hybrid's ledgers from each sparse weight's
		 * dim 1, and LiteRT's make_ledger reads that dim and the projection weights
		 * unchecked (LiteRT refuses an LSTM without LSTMOptions or of another
		 * kernel_type) */
		const uint32_t *weights = ap_lstm_ledger_inputs;
		const struct ap_model_subgraph *sg = &g->model->subgraphs[g->subgraph];
		const struct ap_model_tensor *w = mtensor(g, op->n_in > 4 ? op->in[4] : -1);
		uint8_t wt = in_type(g, op, 4);

		if (sg->ops[node].options_type != OPT_LSTM ||
		    ap_model_op_option(g->model, &sg->ops[node], 3, 1, 0) || !w || !w->sparse ||
		    in_type(g, op, 0) != AP_TT_FLOAT32 || (wt != AP_TT_INT8 && wt != AP_TT_UINT8))
			return false;
		if (!mtensor(g, op->n_in > weights[8] ? op->in[weights[8]] : -1))
			return true;
		for (uint32_t j = 0; j < 9; j++) {
			int32_t t = weights[j] < op->n_in ? op->in[weights[j]] : -1;

			w = mtensor(g, t);
			if (w && w->sparse && ap_model_sparse_ledger(sg, t) < 0)
				return true;
		}
		return false;
	}
	case OP_RFFT2D: {
		/* kernels_fft.c reads a folded fft_length from shapes.c (subgraph 0) */
		int32_t t = op->n_in > 1 ? op->in[1] : -1;
		int64_t hw[2];

		return t >= 0 && (uint32_t)t < g->n_tensors && g->t[t].alloc == AP_ALLOC_RO &&
		       ap_shapes_values(&g->model->subgraphs[g->subgraph], t, hw, 2) != 2;
	}
	case OP_STABLEHLO_REDUCE_WINDOW: {
		/* LiteRT reads the options' arrays to the input's rank */
		const struct ap_model_op_vecs *v = g->model->subgraphs[g->subgraph].ops[node].vecs;
		const struct ap_model_tensor *in0 = mtensor(g, op->n_in ? op->in[0] : -1);

		return in0 && (!v || v->longs[0].n != in0->rank);
	}
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
		case SPECIAL:
			hit = special(g, node);
			break;
		case SPLIT:	/* named while shapes.c leaves a later shape the file's */
			hit = ap_graph_ends_prepare(g, node) && !shapes_known(g);
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

	/* one pass: a control-flow node's reason builds its subgraphs' graphs */
	*gaps = malloc((g->n_ops ? g->n_ops : 1) * sizeof(**gaps));
	if (!*gaps)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n_ops; i++) {
		const char *why = gap_of(g, i);

		if (why)
			(*gaps)[n++] = (struct ap_gap){ .node = i, .why = why };
	}
	if (!n) {
		free(*gaps);
		*gaps = NULL;
	}
	return (int)n;
}
