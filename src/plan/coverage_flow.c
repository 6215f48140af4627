// SPDX-License-Identifier: Apache-2.0
/*
 * coverage_flow: when WHILE, IF, CALL_ONCE and STABLEHLO_COMPOSITE do something to the
 * plan that subgraphs.c, prepare.c and shapes.c do not model (coverage.h). Their subgraphs
 * are planned from the model's shapes; LiteRT copies the caller's input shapes into them
 * and resizes the caller's outputs to theirs: shapes.c infers both from subgraph 0 down,
 * and what it cannot infer is named. Dyn outputs (prepare.c) are modelled; a node
 * prepared in the first invoke (after a dynamic output), WHILE's dropped read-only outputs
 * and subgraphs nested deeper than AP_SG_MAX_DEPTH are named.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/subgraphs.h"
#include "arenaprof/util/err.h"

enum { OP_IF = 118, OP_WHILE = 119, OP_CALL_ONCE = 129, OP_STABLEHLO_COMPOSITE = 206 };

/* Tensors a[k] of subgraph sa and b[k] of sb (k < n) have the same type and shape. */
static bool shapes_agree(const struct ap_model *m, uint32_t sa, const int32_t *a,
			 uint32_t sb, const int32_t *b, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		const struct ap_model_tensor *x = ap_sg_tensor(m, sa, a[k]);
		const struct ap_model_tensor *y = ap_sg_tensor(m, sb, b[k]);

		if (a[k] >= 0 && b[k] >= 0 && (!ap_sg_same_dims(x, y) || x->type != y->type))
			return false;
	}
	return true;
}

static bool read_in(const struct ap_graph *g, int32_t t)
{
	for (uint32_t i = 0; i < g->n_ops; i++)
		for (uint32_t k = 0; k < g->ops[i].n_in; k++)
			if (g->ops[i].in[k] == t)
				return true;
	return false;
}

#define INPUTS_DIFFER "the caller's input shapes differ from the subgraph's, and its shapes " \
	"on them are not all inferred (an operator without a shape function, a shape the data " \
	"gives, nesting past AP_SG_MAX_DEPTH): not modelled"
#define RESIZED "outputs resized to the subgraph's, and the caller's shapes are not all " \
	"inferred from them: not modelled"
#define UNPLANNED "a subgraph it runs cannot be planned: not modelled"

/* 1: the kid is dynamic, and the caller's outputs with it (modelled); 0: static; -1 error. */
static int kid_dynamic(const struct ap_model *m, uint32_t kid, const struct ap_sg_info *roles)
{
	return ap_subgraph_dynamic(m, kid, NULL, roles);
}

/* The cond's dynamic tensors change no output of WHILE (while.cc). */
static const char *while_gap(const struct ap_graph *g, const struct ap_op *op,
			     const struct ap_sg_info *roles, uint32_t ci, uint32_t bi)
{
	const struct ap_model *m = g->model;
	const struct ap_model_subgraph *cond = &m->subgraphs[ci], *body = &m->subgraphs[bi];
	int dyn;

	if (cond->n_inputs != op->n_in || body->n_inputs != op->n_in ||
	    body->n_outputs != op->n_in || op->n_out != op->n_in)
		return "cond or body does not match its inputs: LiteRT refuses it";
	for (uint32_t k = 0; k < op->n_in; k++)
		if (body->inputs[k] == body->outputs[k] && !read_in(g, op->out[k]))
			return "a loop variable the body passes through and nobody reads: "
			       "LiteRT drops its output, not modelled";
	if (!shapes_agree(m, g->subgraph, op->in, ci, cond->inputs, op->n_in) ||
	    !shapes_agree(m, g->subgraph, op->in, bi, body->inputs, op->n_in))
		return INPUTS_DIFFER;
	dyn = kid_dynamic(m, bi, roles);
	if (dyn < 0)
		return UNPLANNED;
	/* a dynamic body makes the outputs dyn whatever their shapes (while.cc) */
	if (!dyn && !shapes_agree(m, bi, body->inputs, bi, body->outputs, op->n_in))
		return "the body's output shapes differ from its inputs' (outputs dyn), or its "
		       "file shapes are not the ones its Prepares give: not modelled";
	return !dyn && !shapes_agree(m, g->subgraph, op->out, bi, body->outputs, op->n_in) ?
	       RESIZED : NULL;
}

static const char *if_gap(const struct ap_graph *g, const struct ap_op *op,
			  const struct ap_sg_info *roles, const uint32_t bi[2])
{
	const struct ap_model *m = g->model;
	bool dyn = ap_sg_branches_differ(m, bi[0], bi[1]);

	for (int b = 0; b < 2; b++) {
		const struct ap_model_subgraph *br = &m->subgraphs[bi[b]];
		int d;

		if (op->n_in < 1 || br->n_inputs != op->n_in - 1 || br->n_outputs != op->n_out)
			return "a branch does not match its inputs: LiteRT refuses it";
		if (!shapes_agree(m, g->subgraph, op->in + 1, bi[b], br->inputs, op->n_in - 1))
			return INPUTS_DIFFER;
		d = kid_dynamic(m, bi[b], roles);
		if (d < 0)
			return UNPLANNED;
		dyn |= d;
	}
	/* dyn outputs take no shape from the branches (if.cc) */
	if (!dyn && !shapes_agree(m, g->subgraph, op->out, bi[0], m->subgraphs[bi[0]].outputs,
				  op->n_out))
		return RESIZED;
	return NULL;
}

/* stablehlo_composite.cc Prepare: copies the inputs' shapes in, resizes the outputs. */
static const char *composite_gap(const struct ap_graph *g, const struct ap_op *op,
				 const struct ap_sg_info *roles, uint32_t di)
{
	const struct ap_model *m = g->model;
	const struct ap_model_subgraph *dec = &m->subgraphs[di];
	int dyn;

	if (!op->n_in || dec->n_inputs != op->n_in || dec->n_outputs != op->n_out)
		return "the decomposition does not match its inputs: LiteRT refuses it";
	if (!shapes_agree(m, g->subgraph, op->in, di, dec->inputs, op->n_in))
		return INPUTS_DIFFER;
	dyn = kid_dynamic(m, di, roles);
	if (dyn < 0)
		return UNPLANNED;
	if (!dyn && !shapes_agree(m, g->subgraph, op->out, di, dec->outputs, op->n_out))
		return RESIZED;
	return NULL;
}

/* A planned subgraph lies deeper than prepare.c follows: the dynamic tensors there are not
 * seen by the WHILE, IF or STABLEHLO_COMPOSITE above, nor by theirs. */
static bool too_deep(const struct ap_model *m, const struct ap_sg_info *roles)
{
	for (uint32_t s = 1; s < m->n_subgraphs; s++)
		if (roles[s].role != AP_SG_UNCALLED && roles[s].role != AP_SG_OTHER &&
		    ap_subgraph_depth(m, roles, s) > AP_SG_MAX_DEPTH)
			return true;
	return false;
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
	    op->opcode != OP_STABLEHLO_COMPOSITE)
		return NULL;
	roles = malloc(m->n_subgraphs * sizeof(*roles));
	if (!roles)
		return "subgraphs not planned (out of memory)";
	ap_subgraph_roles(m, roles);
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
	for (uint32_t i = 0; !why && i < node; i++)
		if (ap_graph_ends_prepare(g, i))
			why = "prepared in the first invoke, after a dynamic output: its subgraphs "
			      "are planned then, not modelled";
	if (!why && too_deep(m, roles))
		why = "the model nests subgraphs deeper than arenaprof follows LiteRT's "
		      "Prepares (AP_SG_MAX_DEPTH): not modelled";
	if (!why && op->opcode == OP_WHILE) {
		bool cond_first = roles[kids[0]].role == AP_SG_WHILE_COND;

		why = while_gap(g, op, roles, (uint32_t)kids[cond_first ? 0 : 1],
				(uint32_t)kids[cond_first ? 1 : 0]);
	} else if (!why && op->opcode == OP_IF) {
		const uint32_t bi[2] = { (uint32_t)kids[0], (uint32_t)kids[1] };

		why = if_gap(g, op, roles, bi);
	} else if (!why && op->opcode == OP_STABLEHLO_COMPOSITE) {
		why = composite_gap(g, op, roles, (uint32_t)kids[0]);
	}
	free(roles);
	return why;
}
