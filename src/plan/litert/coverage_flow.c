// SPDX-License-Identifier: Apache-2.0
/*
 * coverage_flow: when WHILE, IF, CALL_ONCE, STABLEHLO_COMPOSITE and STABLEHLO_CASE do
 * something to the plan that subgraphs.c, prepare.c and shapes.c do not model
 * (coverage.h). Their subgraphs are planned from the model's shapes; LiteRT copies the
 * caller's input shapes into them and resizes the caller's outputs to theirs. For WHILE, IF
 * and STABLEHLO_COMPOSITE, shapes.c infers both from subgraph 0 down and prepare.c makes
 * the outputs dyn as their Prepare does; what is not inferred is named, as are a node
 * prepared in the first invoke and subgraphs nested deeper than AP_SG_MAX_DEPTH. For
 * STABLEHLO_CASE, as for them; what it refuses or reads past is named.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/subgraphs.h"
#include "arenaprof/util/err.h"

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

#define INPUTS_DIFFER "the caller's input shapes differ from the subgraph's, and its shapes " \
	"on them are not all inferred (an operator without a shape function, a shape the data " \
	"gives, nesting past AP_SG_MAX_DEPTH): not modelled"
#define RESIZED "outputs resized to the subgraph's, and the caller's shapes are not all " \
	"inferred from them: not modelled"
#define UNPLANNED "a subgraph it runs cannot be planned: not modelled"

/* The cond's dynamic tensors change no output of WHILE (while.cc). */
static const char *while_gap(const struct ap_graph *g, const struct ap_op *op, uint32_t ci,
			     uint32_t bi)
{
	const struct ap_model *m = g->model;
	const struct ap_model_subgraph *cond = &m->subgraphs[ci], *body = &m->subgraphs[bi];
	int dyn;

	if (cond->n_inputs != op->n_in || body->n_inputs != op->n_in ||
	    body->n_outputs != op->n_in || op->n_out != op->n_in)
		return "cond or body does not match its inputs: LiteRT refuses it";
	if (!shapes_agree(m, g->subgraph, op->in, ci, cond->inputs, op->n_in) ||
	    !shapes_agree(m, g->subgraph, op->in, bi, body->inputs, op->n_in))
		return INPUTS_DIFFER;
	dyn = ap_subgraph_dynamic(m, bi, NULL);
	if (dyn < 0)
		return UNPLANNED;
	/* a dynamic body makes the outputs dyn whatever their shapes, and so does one that
	 * changes a shape: when shapes.c settled the body's shapes, they are its Prepares' */
	if (!dyn && ap_sg_body_changes_shape(m, bi))
		return body->shapes_settled ? NULL :
		       "the body's output shapes in the file differ from its inputs' (outputs "
		       "dyn), and its Prepares' shapes are not all inferred: not modelled";
	return !dyn && !shapes_agree(m, g->subgraph, op->out, bi, body->outputs, op->n_in) ?
	       RESIZED : NULL;
}

static const char *if_gap(const struct ap_graph *g, uint32_t node, const uint32_t bi[2],
			  bool late)
{
	const struct ap_op *op = &g->ops[node];
	const struct ap_model *m = g->model;
	bool dyn = ap_sg_branches_differ(m, bi[0], bi[1]);

	for (int b = 0; b < 2; b++) {
		const struct ap_model_subgraph *br = &m->subgraphs[bi[b]];
		int d;

		if (op->n_in < 1 || br->n_inputs != op->n_in - 1 || br->n_outputs != op->n_out)
			return "a branch does not match its inputs: LiteRT refuses it";
		if (!shapes_agree(m, g->subgraph, op->in + 1, bi[b], br->inputs, op->n_in - 1))
			return INPUTS_DIFFER;
		d = ap_subgraph_dynamic(m, bi[b], NULL);
		if (d < 0)
			return UNPLANNED;
		dyn |= d;
	}
	/* dyn outputs take no shape from the branches (if.cc) */
	if (!dyn && !shapes_agree(m, g->subgraph, op->out, bi[0], m->subgraphs[bi[0]].outputs,
				  op->n_out))
		return RESIZED;
	/* prepare.c's run_outputs: the plan LiteRT keeps is the one the first Eval_static
	 * leaves, which depends on the branch it runs */
	if (late && !dyn && ap_flow_taken(m, g->subgraph, node) < 0)
		return "prepared in the first invoke (after a dynamic output, or under a "
		       "CALL_ONCE): the branch the data picks gives its outputs to the caller "
		       "(if.cc Eval_static), and its plan is made again without them: not "
		       "modelled";
	return NULL;
}

/* stablehlo_composite.cc Prepare: copies the inputs' shapes in, resizes the outputs. */
static const char *composite_gap(const struct ap_graph *g, const struct ap_op *op,
				 uint32_t di)
{
	const struct ap_model *m = g->model;
	const struct ap_model_subgraph *dec = &m->subgraphs[di];
	int dyn;

	if (!op->n_in || dec->n_inputs != op->n_in || dec->n_outputs != op->n_out)
		return "the decomposition does not match its inputs: LiteRT refuses it";
	if (!shapes_agree(m, g->subgraph, op->in, di, dec->inputs, op->n_in))
		return INPUTS_DIFFER;
	dyn = ap_subgraph_dynamic(m, di, NULL);
	if (dyn < 0)
		return UNPLANNED;
	if (!dyn && !shapes_agree(m, g->subgraph, op->out, di, dec->outputs, op->n_out))
		return RESIZED;
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
			const struct ap_model_tensor *t = ap_sg_tensor(m, k, sg->outputs[j]);

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
static const char *case_shapes_gap(const struct ap_graph *g, uint32_t node,
				   const struct ap_model_op *mo)
{
	const struct ap_model *m = g->model;
	const struct ap_op *op = &g->ops[node];
	const bool *late = ap_subgraph_late(m);
	uint32_t ref = (uint32_t)mo->vecs->branches[0];
	bool dyn = false, settled = true;

	for (uint32_t k = 1; k < m->n_subgraphs; k++) {
		const struct ap_model_subgraph *sg = &m->subgraphs[k];

		if (op->n_in < 1 || sg->n_inputs != op->n_in - 1 || sg->n_outputs != op->n_out)
			return "a subgraph does not match its inputs: LiteRT refuses it";
	}
	if (!case_types_agree(m))
		return "subgraph outputs of different types: LiteRT refuses it";
	/* shapes.c prepared every subgraph on the caller's shapes when it could */
	for (uint32_t k = 1; k < m->n_subgraphs; k++) {
		int d;

		if (!shapes_agree(m, g->subgraph, op->in + 1, k, m->subgraphs[k].inputs,
				  op->n_in - 1))
			return INPUTS_DIFFER;
		d = ap_subgraph_dynamic(m, k, NULL);
		if (d < 0)
			return UNPLANNED;
		dyn |= d;
		settled &= m->subgraphs[k].shapes_settled;
	}
	if (!dyn && ap_case_outputs_differ(m, mo))
		return settled ? NULL :
		       "branch output shapes in the file differ (outputs dyn), and their "
		       "Prepares' shapes are not all inferred: not modelled";
	if (!dyn && !shapes_agree(m, g->subgraph, op->out, ref, m->subgraphs[ref].outputs,
				  op->n_out))
		return RESIZED;
	/* after a dynamic output: prepare.c's run_outputs, as for IF */
	if (!late)
		return "subgraphs not planned (out of memory)";
	if (late[ref] && !dyn && ap_flow_taken(m, g->subgraph, node) < 0)
		return "prepared in the first invoke, after a dynamic output: the branch the "
		       "index picks gives its outputs to the caller (stablehlo_case.cc "
		       "Eval_static), and its plan is made again without them: not modelled";
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
	why = case_indices_gap(m, mo);
	if (why)
		return why;
	for (uint32_t k = 1; k < m->n_subgraphs; k++)
		if (roles[k].role != AP_SG_CASE_BRANCH)
			return "a subgraph it plans is run by another operator too: not modelled";
	return case_shapes_gap(g, node, mo);
}

/* Subgraph sg, depth calls below subgraph 0, or one it runs lies deeper than prepare.c
 * follows: their dynamic tensors are not seen by the nodes above. Walks at most
 * AP_SG_MAX_DEPTH levels. */
static bool too_deep(const struct ap_sg_info *roles, const struct ap_sg_callees *cl,
		     uint32_t sg, uint32_t depth)
{
	if (depth > AP_SG_MAX_DEPTH)
		return true;
	for (uint32_t k = cl->start[sg]; k < cl->start[sg + 1]; k++)
		if (roles[cl->list[k]].role != AP_SG_OTHER &&
		    too_deep(roles, cl, cl->list[k], depth + 1))
			return true;
	return false;
}

const char *ap_flow_gap(const struct ap_graph *g, uint32_t node)
{
	const struct ap_model *m = g->model;
	const struct ap_op *op = &g->ops[node];
	const struct ap_sg_info *roles;
	struct ap_sg_callees cl;
	int32_t kids[2] = { -1, -1 };
	const char *why = NULL;
	int64_t runs[2];
	uint32_t n = 0;

	if (op->opcode != OP_WHILE && op->opcode != OP_IF && op->opcode != OP_CALL_ONCE &&
	    op->opcode != OP_STABLEHLO_COMPOSITE && op->opcode != OP_STABLEHLO_CASE)
		return NULL;
	roles = ap_subgraph_roles(m);
	if (!roles)
		return "subgraphs not planned (out of memory)";
	if (op->opcode == OP_STABLEHLO_CASE)
		return case_gap(g, node, roles);
	/* the subgraphs its options name that it runs (a repeated one counts once) */
	for (uint32_t k = 0, nr = ap_op_runs(m, &m->subgraphs[g->subgraph].ops[node], runs);
	     k < nr; k++) {
		int64_t s = runs[k];

		if (s > 0 && s < m->n_subgraphs && s != kids[0] &&
		    roles[s].role != AP_SG_UNCALLED && roles[s].caller == g->subgraph &&
		    roles[s].node == node)
			kids[n++] = (int32_t)s;
	}
	if (!ap_sg_planned(roles[g->subgraph].role))
		why = "in a subgraph LiteRT does not plan as modelled";
	else if (n != (op->opcode == OP_CALL_ONCE || op->opcode == OP_STABLEHLO_COMPOSITE ?
		       1u : 2u))
		why = "its subgraphs are missing or shared: not modelled";
	for (uint32_t k = 0; !why && k < n; k++)
		if (ap_sg_not_modelled(roles[kids[k]].role))
			why = "a subgraph it runs is run by another operator too: not modelled";
	for (uint32_t k = 0; !why && k < n; k++)
		if (ap_sg_callees(m, &cl) ||
		    too_deep(roles, &cl, (uint32_t)kids[k],
			     ap_subgraph_depth(m, roles, (uint32_t)kids[k])))
			why = "it nests subgraphs deeper than arenaprof follows LiteRT's "
			      "Prepares (AP_SG_MAX_DEPTH): not modelled";
	if (!why && op->opcode == OP_WHILE) {
		bool cond_first = roles[kids[0]].role == AP_SG_WHILE_COND;

		why = while_gap(g, op, (uint32_t)kids[cond_first ? 0 : 1],
				(uint32_t)kids[cond_first ? 1 : 0]);
	} else if (!why && op->opcode == OP_IF) {
		const uint32_t bi[2] = { (uint32_t)kids[0], (uint32_t)kids[1] };

		const bool *late = ap_subgraph_late(m);

		why = late ? if_gap(g, node, bi, late[bi[0]]) :
		      "subgraphs not planned (out of memory)";
	} else if (!why && op->opcode == OP_STABLEHLO_COMPOSITE) {
		why = composite_gap(g, op, (uint32_t)kids[0]);
	}
	return why;
}

/* Subgraph s is planned as its caller's operator plans it (not UNCALLED, not OTHER). */
static bool planned_child(const struct ap_sg_info *roles, uint32_t s)
{
	return s && ap_sg_planned(roles[s].role);
}

/* The direct gaps: each caller's graph built once, its flow gap for each subgraph it runs. */
static int direct_gaps(const struct ap_model *m, const struct ap_sg_info *roles,
		       struct ap_caller_gap *out)
{
	struct ap_sg_callees cl;
	int rc = ap_sg_callees(m, &cl);

	if (rc)
		return rc;
	for (uint32_t c = 0; c < m->n_subgraphs; c++) {
		struct ap_graph g;
		char err[AP_ERR_LEN];
		int64_t last = -1;	/* a CASE's subgraphs share its node: one gap */
		const char *why = NULL;

		if (cl.start[c] == cl.start[c + 1] || ap_graph_build(m, c, NULL, &g, err))
			continue;	/* none, or the caller's own plan reports it */
		for (uint32_t k = cl.start[c]; k < cl.start[c + 1]; k++) {
			uint32_t s = cl.list[k], node = roles[s].node;

			if (!planned_child(roles, s) || node >= g.n_ops)
				continue;
			if (node != last)
				why = ap_flow_gap(&g, node);
			last = node;
			if (why)
				out[s] = (struct ap_caller_gap){ .subgraph = c, .node = node,
								 .opcode = g.ops[node].name,
								 .why = why };
		}
		ap_graph_free(&g);
	}
	return 0;
}

int ap_caller_gaps(const struct ap_model *m, struct ap_caller_gap *out)
{
	const struct ap_sg_info *roles = ap_subgraph_roles(m);
	uint32_t n = m->n_subgraphs;
	bool *done;

	memset(out, 0, n * sizeof(*out));
	if (!n)
		return 0;
	done = calloc(n, sizeof(*done));
	if (!roles || !done || direct_gaps(m, roles, out)) {
		free(done);
		return -ENOMEM;	/* roles, callees and flags: what can fail is memory */
	}
	/* down the chains: a subgraph under a caller not modelled is not either; each
	 * subgraph is walked past once (planned chains lead back to 0) */
	for (uint32_t s = 1; s < n; s++) {
		uint32_t c = s;
		const struct ap_caller_gap *src;

		while (planned_child(roles, c) && !out[c].why && !done[c])
			c = roles[c].caller;
		src = planned_child(roles, c) && out[c].why ? &out[c] : NULL;
		for (uint32_t d = s; planned_child(roles, d) && d != c; d = roles[d].caller) {
			if (src)
				out[d] = *src;
			done[d] = true;
		}
	}
	free(done);
	return 0;
}
