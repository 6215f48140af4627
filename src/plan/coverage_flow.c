// SPDX-License-Identifier: Apache-2.0
/*
 * coverage_flow: when WHILE, IF, CALL_ONCE, STABLEHLO_COMPOSITE and STABLEHLO_CASE do
 * something to the plan that subgraphs.c does not model (coverage.h). Their subgraphs are
 * planned from the model's shapes; LiteRT copies the caller's input shapes into them and
 * resizes the caller's outputs to theirs, so a model whose shapes disagree is named, as is
 * a subgraph with a dynamic tensor (the caller's outputs become dyn).
 */
#include <stdbool.h>
#include <stdlib.h>

#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/subgraphs.h"
#include "arenaprof/util/err.h"

enum {
	OP_IF = 118, OP_WHILE = 119, OP_CALL_ONCE = 129, OP_STABLEHLO_COMPOSITE = 206,
	OP_STABLEHLO_CASE = 209,
};

static const struct ap_model_tensor *mt(const struct ap_model *m, uint32_t sg, int32_t t)
{
	const struct ap_model_subgraph *s = &m->subgraphs[sg];

	return t >= 0 && (uint32_t)t < s->n_tensors ? &s->tensors[t] : NULL;
}

static bool same_shape(const struct ap_model_tensor *a, const struct ap_model_tensor *b)
{
	if (!a || !b || a->rank != b->rank || a->type != b->type)
		return false;
	for (uint32_t d = 0; d < a->rank; d++)
		if (a->shape[d] != b->shape[d])
			return false;
	return true;
}

/* Tensors a[k] of subgraph sa and b[k] of sb (k < n) have the same type and shape. */
static bool shapes_agree(const struct ap_model *m, uint32_t sa, const int32_t *a,
			 uint32_t sb, const int32_t *b, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++)
		if (a[k] >= 0 && b[k] >= 0 && !same_shape(mt(m, sa, a[k]), mt(m, sb, b[k])))
			return false;
	return true;
}

/* A tensor of the prepared subgraph is dynamic: LiteRT's HasDynamicTensors. */
static int has_dynamic(const struct ap_model *m, uint32_t sg)
{
	struct ap_graph g;
	char err[AP_ERR_LEN];
	int dyn = 0;

	if (ap_graph_build(m, sg, NULL, &g, err))
		return -1;
	for (uint32_t t = 0; t < g.n_tensors; t++)
		dyn |= g.t[t].alloc == AP_ALLOC_DYNAMIC;
	ap_graph_free(&g);
	return dyn;
}

static const char *while_gap(const struct ap_graph *g, const struct ap_op *op,
			     const struct ap_model_subgraph *cond, uint32_t ci,
			     const struct ap_model_subgraph *body, uint32_t bi)
{
	const struct ap_model *m = g->model;

	if (cond->n_inputs != op->n_in || body->n_inputs != op->n_in ||
	    body->n_outputs != op->n_in || op->n_out != op->n_in)
		return "cond or body does not match its inputs: LiteRT refuses it";
	if (!shapes_agree(m, g->subgraph, op->in, ci, cond->inputs, op->n_in) ||
	    !shapes_agree(m, g->subgraph, op->in, bi, body->inputs, op->n_in) ||
	    !shapes_agree(m, bi, body->inputs, bi, body->outputs, op->n_in) ||
	    !shapes_agree(m, g->subgraph, op->out, bi, body->outputs, op->n_in))
		return "loop shapes differ between the caller and its subgraphs: outputs "
		       "dyn or resized, not modelled";
	if (has_dynamic(m, bi) != 0)
		return "body with a dynamic tensor: outputs dyn, not modelled";
	return NULL;
}

static const char *if_gap(const struct ap_graph *g, const struct ap_op *op,
			  const struct ap_model_subgraph *br[2], const uint32_t bi[2])
{
	const struct ap_model *m = g->model;

	for (int b = 0; b < 2; b++) {
		if (op->n_in < 1 || br[b]->n_inputs != op->n_in - 1 ||
		    br[b]->n_outputs != op->n_out)
			return "a branch does not match its inputs: LiteRT refuses it";
		if (!shapes_agree(m, g->subgraph, op->in + 1, bi[b], br[b]->inputs,
				  op->n_in - 1) ||
		    !shapes_agree(m, g->subgraph, op->out, bi[b], br[b]->outputs, op->n_out))
			return "branch shapes differ from the caller's: outputs dyn or "
			       "resized, not modelled";
		if (has_dynamic(m, bi[b]) != 0)
			return "branch with a dynamic tensor: outputs dyn, not modelled";
	}
	return NULL;
}

/* stablehlo_composite.cc Prepare: copies the inputs' shapes in, resizes the outputs. */
static const char *composite_gap(const struct ap_graph *g, const struct ap_op *op,
				 const struct ap_model_subgraph *dec, uint32_t di)
{
	const struct ap_model *m = g->model;

	if (!op->n_in || dec->n_inputs != op->n_in || dec->n_outputs != op->n_out)
		return "the decomposition does not match its inputs: LiteRT refuses it";
	if (!shapes_agree(m, g->subgraph, op->in, di, dec->inputs, op->n_in) ||
	    !shapes_agree(m, g->subgraph, op->out, di, dec->outputs, op->n_out))
		return "decomposition shapes differ from the caller's: outputs resized, not "
		       "modelled";
	if (has_dynamic(m, di) != 0)
		return "decomposition with a dynamic tensor: outputs dyn, not modelled";
	return NULL;
}

/*
 * stablehlo_case.cc Prepare reads branch_subgraph_indices[j] for j up to the number of
 * subgraphs - 2 (the reference 0 and the ones its dyn test compares) and trusts them.
 */
static const char *case_indices_gap(const struct ap_model *m, const struct ap_model_op *mo)
{
	const struct ap_model_op_vecs *v = mo->vecs;

	if (!v || !v->n_branches)
		return "no branch subgraphs: LiteRT refuses it";
	if (v->n_branches < m->n_subgraphs - 1)
		return "fewer branch indices than subgraphs after 0: LiteRT's Prepare reads past "
		       "them, not modelled";
	for (uint32_t j = 0; j < v->n_branches; j++)
		if (v->branches[j] < 1 || (uint32_t)v->branches[j] >= m->n_subgraphs)
			return "a branch index that is not a subgraph after 0: not modelled";
	return NULL;
}

/* Every output of every subgraph after 0 has one type, or LiteRT refuses the model. */
static bool case_types_agree(const struct ap_model *m)
{
	const struct ap_model_tensor *first = NULL;

	for (uint32_t k = 1; k < m->n_subgraphs; k++) {
		const struct ap_model_subgraph *sg = &m->subgraphs[k];

		for (uint32_t j = 0; j < sg->n_outputs; j++) {
			const struct ap_model_tensor *t = mt(m, k, sg->outputs[j]);

			if (!t || (first && t->type != first->type))
				return false;
			first = first ? first : t;
		}
	}
	return true;
}

/*
 * The Prepare copies the caller's input shapes into every subgraph after 0, plans it, and
 * makes the outputs dyn when one has a dynamic tensor or when a branch its test compares
 * (branch_subgraph_indices[1 .. subgraphs - 2]) has outputs other than the reference's,
 * branch_subgraph_indices[0], which size them.
 */
static const char *case_shapes_gap(const struct ap_graph *g, const struct ap_op *op,
				   const struct ap_model_op *mo)
{
	const struct ap_model *m = g->model;

	for (uint32_t k = 1; k < m->n_subgraphs; k++) {
		const struct ap_model_subgraph *sg = &m->subgraphs[k];

		if (op->n_in < 1 || sg->n_inputs != op->n_in - 1 || sg->n_outputs != op->n_out)
			return "a subgraph does not match its inputs: LiteRT refuses it";
	}
	if (!case_types_agree(m))
		return "subgraph outputs of different types: LiteRT refuses it";
	for (uint32_t k = 1; k < m->n_subgraphs; k++)
		if (!shapes_agree(m, g->subgraph, op->in + 1, k, m->subgraphs[k].inputs,
				  op->n_in - 1))
			return "subgraph input shapes differ from the caller's: resized, not "
			       "modelled";
	for (uint32_t j = 0; j + 1 < m->n_subgraphs; j++) {
		uint32_t b = (uint32_t)mo->vecs->branches[j];

		if (!shapes_agree(m, g->subgraph, op->out, b, m->subgraphs[b].outputs, op->n_out))
			return "branch output shapes differ from the caller's: outputs dyn or "
			       "resized, not modelled";
	}
	for (uint32_t k = 1; k < m->n_subgraphs; k++)
		if (has_dynamic(m, k) != 0)
			return "a subgraph with a dynamic tensor: outputs dyn, not modelled";
	return NULL;
}

static bool index_ok(const struct ap_graph *g, int32_t t)
{
	return t >= 0 && (uint32_t)t < g->n_tensors && g->t[t].type == AP_TT_INT32 &&
	       g->t[t].bytes == 4;
}

/* stablehlo_case.cc: one CASE in subgraph 0, prepared before subgraph 0 is planned. */
static const char *case_gap(const struct ap_graph *g, uint32_t node,
			    const struct ap_sg_info *roles)
{
	const struct ap_model *m = g->model;
	const struct ap_model_op *mo = &m->subgraphs[g->subgraph].ops[node];
	const char *why;

	if (g->subgraph != 0)
		return "in a subgraph after 0: its Prepare plans its own subgraph, not modelled";
	if (!g->ops[node].n_in || !index_ok(g, g->ops[node].in[0]))
		return "an index that is not one int32: LiteRT refuses it";
	for (uint32_t i = 0; i < node; i++)
		if (ap_graph_ends_prepare(g, i))
			return "after a dynamic output: prepared at the first invoke, after "
			       "subgraph 0's plan, not modelled";
	why = case_indices_gap(m, mo);
	if (why)
		return why;
	for (uint32_t k = 1; k < m->n_subgraphs; k++)
		if (roles[k].role != AP_SG_CASE_BRANCH)
			return "a subgraph it plans is run by another operator too: not modelled";
	return case_shapes_gap(g, &g->ops[node], mo);
}

const char *ap_flow_gap(const struct ap_graph *g, uint32_t node)
{
	const struct ap_model *m = g->model;
	const struct ap_op *op = &g->ops[node];
	struct ap_sg_info *roles;
	int32_t kids[2] = { -1, -1 };
	const char *why = NULL;
	uint32_t n = 0;

	if (op->opcode != OP_WHILE && op->opcode != OP_IF && op->opcode != OP_CALL_ONCE &&
	    op->opcode != OP_STABLEHLO_COMPOSITE && op->opcode != OP_STABLEHLO_CASE)
		return NULL;
	roles = malloc(m->n_subgraphs * sizeof(*roles));
	if (!roles)
		return "subgraphs not planned (out of memory)";
	ap_subgraph_roles(m, roles);
	if (op->opcode == OP_STABLEHLO_CASE) {
		why = case_gap(g, node, roles);
		free(roles);
		return why;
	}
	for (uint32_t s = 1; s < m->n_subgraphs && n < 2; s++)
		if (roles[s].role != AP_SG_UNCALLED && roles[s].caller == g->subgraph &&
		    roles[s].node == node)
			kids[n++] = (int32_t)s;
	if (roles[g->subgraph].role == AP_SG_OTHER || roles[g->subgraph].role == AP_SG_UNCALLED)
		why = "in a subgraph LiteRT does not plan as modelled";
	else if (n != (op->opcode == OP_CALL_ONCE || op->opcode == OP_STABLEHLO_COMPOSITE ?
		       1u : 2u))
		why = "its subgraphs are missing or shared: not modelled";
	for (uint32_t k = 0; !why && k < n; k++)
		if (ap_sg_not_modelled(roles[kids[k]].role))
			why = "a subgraph it runs is run by another operator too: not modelled";
	if (!why && op->opcode == OP_WHILE) {
		bool cond_first = roles[kids[0]].role == AP_SG_WHILE_COND;
		uint32_t ci = (uint32_t)kids[cond_first ? 0 : 1];
		uint32_t bi = (uint32_t)kids[cond_first ? 1 : 0];

		why = while_gap(g, op, &m->subgraphs[ci], ci, &m->subgraphs[bi], bi);
	} else if (!why && op->opcode == OP_IF) {
		const uint32_t bi[2] = { (uint32_t)kids[0], (uint32_t)kids[1] };
		const struct ap_model_subgraph *br[2] = { &m->subgraphs[bi[0]],
							  &m->subgraphs[bi[1]] };

		why = if_gap(g, op, br, bi);
	} else if (!why && op->opcode == OP_STABLEHLO_COMPOSITE) {
		why = composite_gap(g, op, &m->subgraphs[kids[0]], (uint32_t)kids[0]);
	}
	free(roles);
	return why;
}

int ap_caller_gap(const struct ap_model *m, uint32_t sg, struct ap_caller_gap *out)
{
	struct ap_sg_info *roles;
	int found = 0;

	if (!sg || sg >= m->n_subgraphs)
		return 0;
	roles = malloc(m->n_subgraphs * sizeof(*roles));
	if (!roles)
		return -1;
	ap_subgraph_roles(m, roles);
	/* roles lead back to 0 for every subgraph LiteRT plans: at most n_subgraphs hops */
	for (uint32_t s = sg, hops = 0; s && hops < m->n_subgraphs && !found; hops++) {
		struct ap_graph g;
		char err[AP_ERR_LEN];
		const char *why;

		if (roles[s].role == AP_SG_UNCALLED || roles[s].role == AP_SG_OTHER)
			break;
		if (ap_graph_build(m, roles[s].caller, NULL, &g, err))
			break;	/* the caller's own plan reports it */
		why = roles[s].node < g.n_ops ? ap_flow_gap(&g, roles[s].node) : NULL;
		if (why) {
			*out = (struct ap_caller_gap){ .subgraph = roles[s].caller,
						       .node = roles[s].node,
						       .opcode = g.ops[roles[s].node].name,
						       .why = why };
			found = 1;
		}
		ap_graph_free(&g);
		s = roles[s].caller;
	}
	free(roles);
	return found;
}
