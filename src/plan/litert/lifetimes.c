// SPDX-License-Identifier: Apache-2.0
/*
 * lifetimes: tensor lifetimes and in-place sharing exactly as LiteRT's
 * ArenaPlanner::PlanAllocations and IdentifyInPlaceTensors compute them (docs/design.md,
 * "Lifetimes and in-place sharing"). Node numbers are execution indices.
 */
#include <stdlib.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/graph.h"
#include "arenaprof/plan/planner.h"

enum {
	INPLACE_DATA_UNMODIFIED = 1,
	INPLACE_INPUT0_SHARED = 4,	/* input k: INPUT0_SHARED << k */
	MAX_SHARABLE_INPUTS = 3,
	SCALAR_TENSOR_BYTES = 4,
};

/* BuiltinOperator codes of the kernels that set TfLiteRegistration::inplace_operator. */
unsigned ap_inplace_flags(int32_t opcode)
{
	switch (opcode) {
	case OP_RESHAPE:
	case OP_SQUEEZE:
	case OP_EXPAND_DIMS:
	case OP_BITCAST:
		return INPLACE_INPUT0_SHARED | INPLACE_DATA_UNMODIFIED;
	case OP_ADD:
	case OP_SUB:
	case OP_MUL:
	case OP_DIV:
		return INPLACE_INPUT0_SHARED | (INPLACE_INPUT0_SHARED << 1);
	case OP_SOFTMAX:
	case OP_DYNAMIC_UPDATE_SLICE:
		return INPLACE_INPUT0_SHARED;
	default:
		return 0;
	}
}

static int32_t find_shared(const struct ap_graph *g, int32_t t)
{
	int32_t r = g->t[t].share_root;

	return r >= 0 ? r : t;
}

static bool valid(const struct ap_graph *g, int32_t t)
{
	return t >= 0 && (uint32_t)t < g->n_tensors;
}

/*
 * A tensor's allocation type when LiteRT's PlanAllocations runs: after the Prepares up to
 * the first dynamic output (first_step_end), before those of the nodes after it.
 */
static enum ap_alloc planned_alloc(const struct ap_tensor *t, int32_t first_step_end)
{
	return first_step_end >= 0 && t->producer > first_step_end ? t->read_alloc : t->alloc;
}

/* Its size then: the file's for a node past the first step (shapes.c may have changed it). */
static uint64_t planned_bytes(const struct ap_tensor *t, int32_t first_step_end)
{
	return first_step_end >= 0 && t->producer > first_step_end ? t->read_bytes : t->bytes;
}

/* InputTensorCanBeShared. */
static bool can_share(const struct ap_graph *g, const int *refs, int32_t in, int32_t out,
		      bool changed, int32_t first_step_end)
{
	const struct ap_tensor *ti = &g->t[in], *to = &g->t[out];
	enum ap_alloc ai = planned_alloc(ti, first_step_end);
	uint64_t bi = planned_bytes(ti, first_step_end);

	if (changed) {
		if (bi != planned_bytes(to, first_step_end) || bi <= SCALAR_TENSOR_BYTES)
			return false;
		if (refs[in] > 1)
			return false;
	}
	if ((ti->flags & AP_TF_INPUT) || (to->flags & AP_TF_OUTPUT))
		return false;
	/* Types as Prepare left them (LiteRT plans after the Prepares of its first step):
	 * the same, or the input in the normal arena. */
	return ai == planned_alloc(to, first_step_end) || ai == AP_ALLOC_ARENA;
}

static void identify_inplace(struct ap_graph *g, const int *refs, int32_t first_step_end)
{
	for (uint32_t i = 0; i < g->n_ops; i++) {
		const struct ap_op *op = &g->ops[i];
		unsigned flags = ap_inplace_flags(op->opcode);
		bool changed = !(flags & INPLACE_DATA_UNMODIFIED);
		int32_t out, in = -1, root;

		if (!flags || op->n_out < 1 || !valid(g, op->out[0]))
			continue;
		out = op->out[0];
		for (uint32_t k = 0; k < op->n_in && k < MAX_SHARABLE_INPUTS; k++) {
			int32_t c = op->in[k];

			if (!valid(g, c) || !(flags & (INPLACE_INPUT0_SHARED << k)))
				continue;
			if (can_share(g, refs, c, out, changed, first_step_end)) {
				in = c;
				break;
			}
		}
		if (in < 0)
			continue;
		root = find_shared(g, in);
		if (changed && refs[root] > 1)
			continue;
		if (root != out)
			g->t[out].share_root = root;
	}
}

/*
 * CalculateAllocations drops a sharing whose root a later Prepare or Eval moved out of the
 * arena (or resized): the sharer gets a buffer of its own, never freed, as its reads were
 * credited to the root.
 */
static void drop_moved_shares(struct ap_graph *g)
{
	for (uint32_t t = 0; t < g->n_tensors; t++) {
		int32_t r = g->t[t].share_root;

		if (r >= 0 && (g->t[r].alloc != AP_ALLOC_ARENA || g->t[r].bytes != g->t[t].bytes ||
			       (g->t[r].flags & AP_TF_DYN_IN_EVAL)))
			g->t[t].share_root = -1;
	}
}

static void allocate(struct ap_graph *g, int32_t node, int32_t t)
{
	if (g->t[t].first == AP_NODE_NONE)
		g->t[t].first = node;
}

static void deallocate(struct ap_graph *g, int32_t node, int32_t t)
{
	if (g->t[t].first != AP_NODE_NONE)
		g->t[t].last = node;
}

void ap_lifetimes_tflite(struct ap_graph *g, bool inplace)
{
	int *refs = calloc(g->n_tensors + 1, sizeof(*refs));
	int *count = calloc(g->n_tensors + 1, sizeof(*count));
	int32_t first_step_end = -1;

	g->first_split = -1;
	for (uint32_t i = 0; i < g->n_ops && g->first_split < 0; i++)
		if (ap_graph_ends_prepare(g, i))
			g->first_split = (int32_t)i;
	if (!refs || !count)
		goto out;	/* lifetimes stay AP_NODE_NONE: nothing is planned */
	for (uint32_t t = 0; t < g->n_tensors; t++) {
		g->t[t].first = g->t[t].last = AP_NODE_NONE;
		g->t[t].share_root = -1;
		g->t[t].flags &= ~(unsigned)AP_TF_DYN_IN_EVAL;
	}
	/* Graph outputs, variables and inputs are never freed: one extra reference. */
	for (uint32_t k = 0; k < g->n_outputs; k++)
		if (valid(g, g->outputs[k]))
			refs[g->outputs[k]]++;
	for (uint32_t t = 0; t < g->n_tensors; t++) {
		if (g->t[t].flags & AP_TF_VARIABLE) {
			refs[t]++;
			allocate(g, 0, (int32_t)t);
		}
	}
	for (uint32_t k = 0; k < g->n_inputs; k++) {
		if (valid(g, g->inputs[k])) {
			refs[g->inputs[k]]++;
			allocate(g, 0, g->inputs[k]);
		}
	}
	for (uint32_t t = 0; t < g->n_tensors; t++)
		count[t] = refs[t];
	/* refs now gains every input occurrence: it decides in-place sharing only. */
	for (uint32_t i = 0; i < g->n_ops; i++)
		for (uint32_t k = 0; k < g->ops[i].n_in; k++)
			if (valid(g, g->ops[i].in[k]))
				refs[g->ops[i].in[k]]++;
	first_step_end = g->first_split;
	if (inplace)
		identify_inplace(g, refs, first_step_end);
	/* Input occurrences are credited to the tensor that owns the buffer. */
	for (uint32_t i = 0; i < g->n_ops; i++)
		for (uint32_t k = 0; k < g->ops[i].n_in; k++)
			if (valid(g, g->ops[i].in[k]))
				count[find_shared(g, g->ops[i].in[k])]++;
	for (uint32_t i = 0; i < g->n_ops; i++) {
		const struct ap_op *op = &g->ops[i];

		for (uint32_t k = 0; k < op->n_out; k++)
			if (valid(g, op->out[k]) && !(g->t[op->out[k]].flags & AP_TF_DROPPED))
				allocate(g, (int32_t)i, op->out[k]);
		for (uint32_t k = 0; k < op->n_in; k++) {
			int32_t t;

			if (!valid(g, op->in[k]))
				continue;
			t = find_shared(g, op->in[k]);
			if (--count[t] == 0)
				deallocate(g, (int32_t)i, t);
		}
	}
	drop_moved_shares(g);
	/* reshape.cc Eval: an output of unknown shape that shares no buffer turns dyn; the
	 * slot its step placed stays, and a sharing rooted on it is dropped in turn. */
	for (uint32_t i = 0; i < g->n_ops; i++) {
		int32_t o = g->ops[i].n_out ? g->ops[i].out[0] : -1;

		if (g->ops[i].shape_not_known && valid(g, o) && g->t[o].alloc == AP_ALLOC_ARENA &&
		    g->t[o].share_root < 0)
			g->t[o].flags |= AP_TF_DYN_IN_EVAL;
	}
	drop_moved_shares(g);
	/* ExecuteAllocations: a node's temporaries live during that node only. */
	for (uint32_t i = 0; i < g->n_ops; i++) {
		const struct ap_op *op = &g->ops[i];

		for (uint32_t k = 0; k < op->n_tmp; k++)
			if (valid(g, op->tmp[k]))
				g->t[op->tmp[k]].first = g->t[op->tmp[k]].last = (int32_t)i;
	}
out:
	free(refs);
	free(count);
}
