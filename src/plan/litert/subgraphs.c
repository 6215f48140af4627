// SPDX-License-Identifier: Apache-2.0
/*
 * subgraphs: the caller of every subgraph and what its kernel does to it before LiteRT
 * plans it (include/arenaprof/plan/subgraphs.h). WHILE and IF plan their subgraphs in
 * their Prepare (while.cc, if.cc), and so does STABLEHLO_COMPOSITE its decomposition
 * (stablehlo_composite.cc, which releases that arena after every Eval); CALL_ONCE plans
 * its init subgraph in its first Eval (call_once.cc). STABLEHLO_CASE's Prepare plans every
 * subgraph but 0, listed as its branch or not, and trims subgraph 0's inputs before
 * subgraph 0 is planned (stablehlo_case.cc). Each has an ArenaPlanner of its own.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/subgraphs.h"

enum { OPT_IF = 92, OPT_WHILE = 93, OPT_CALL_ONCE = 103 };	/* BuiltinOptions */

static const char *const role_names[] = {
	[AP_SG_PRIMARY] = "primary", [AP_SG_WHILE_COND] = "WHILE cond",
	[AP_SG_WHILE_BODY] = "WHILE body", [AP_SG_IF_BRANCH] = "IF branch",
	[AP_SG_CALL_ONCE] = "CALL_ONCE init", [AP_SG_COMPOSITE] = "COMPOSITE decomposition",
	[AP_SG_CASE_BRANCH] = "CASE branch", [AP_SG_UNCALLED] = "not called",
	[AP_SG_OTHER] = "other caller",
};

const char *ap_sg_role_name(enum ap_sg_role r)
{
	return r <= AP_SG_OTHER ? role_names[r] : "?";
}

const char *ap_sg_planned_at(const struct ap_sg_info *info)
{
	switch (info->role) {
	case AP_SG_UNCALLED:
		return "never";
	case AP_SG_OTHER:
		return "unknown";
	default:
		return info->at_invoke ? "first invoke" : "allocate_tensors";
	}
}

const char *ap_sg_not_modelled(enum ap_sg_role r)
{
	if (r == AP_SG_OTHER)
		return "run by an operator other than WHILE, IF, CALL_ONCE, "
		       "STABLEHLO_COMPOSITE and STABLEHLO_CASE, or by more than one: how LiteRT "
		       "plans it is not modelled";
	return NULL;
}

/* Gives subgraph `sg` the role r from (caller, node); a second caller makes it OTHER. */
static void claim(const struct ap_model *m, struct ap_sg_info *out, int64_t sg,
		  enum ap_sg_role r, uint32_t caller, uint32_t node)
{
	if (sg <= 0 || sg >= m->n_subgraphs)
		return;		/* LiteRT refuses the model; 0 is never a child */
	if (out[sg].role != AP_SG_UNCALLED)
		r = AP_SG_OTHER;
	out[sg] = (struct ap_sg_info){ .role = r, .caller = caller, .node = node };
}

/*
 * STABLEHLO_CASE's Prepare plans every subgraph but 0, whichever its branch indices list,
 * after removing the unused inputs of every subgraph, subgraph 0 included: in subgraph 0's
 * first Prepare pass, before subgraph 0's ArenaPlanner exists. A second CASE makes them
 * all OTHER; the ones after it change nothing, and cost nothing in a hostile file.
 */
static void claim_case(const struct ap_model *m, struct ap_sg_info *out, uint32_t caller,
		       uint32_t node, uint32_t nth)
{
	if (nth == 1 && caller == 0)
		out[0].case_trims = true;
	if (nth > 2)
		return;
	for (uint32_t k = 1; k < m->n_subgraphs; k++)
		claim(m, out, k, AP_SG_CASE_BRANCH, caller, node);
}

uint32_t ap_op_runs(const struct ap_model *m, const struct ap_model_op *op, int64_t runs[2])
{
	int32_t code = ap_model_op_code(m, op);

	if ((code == OP_WHILE && op->options_type == OPT_WHILE) ||
	    (code == OP_IF && op->options_type == OPT_IF)) {
		runs[0] = ap_model_op_option(m, op, 0, 4, -1);
		runs[1] = ap_model_op_option(m, op, 1, 4, -1);
		return 2;
	}
	if (code == OP_CALL_ONCE && op->options_type == OPT_CALL_ONCE) {
		runs[0] = ap_model_op_option(m, op, 0, 4, -1);
		return 1;
	}
	if (code == OP_STABLEHLO_COMPOSITE && op->vecs) {
		runs[0] = op->vecs->composite_subgraph;
		return 1;
	}
	return 0;
}

static void find_roles(const struct ap_model *m, struct ap_sg_info *out)
{
	uint32_t cases = 0;

	for (uint32_t s = 0; s < m->n_subgraphs; s++)
		out[s] = (struct ap_sg_info){ .role = s ? AP_SG_UNCALLED : AP_SG_PRIMARY };
	for (uint32_t s = 0; s < m->n_subgraphs; s++) {
		const struct ap_model_subgraph *sg = &m->subgraphs[s];

		for (uint32_t i = 0; i < sg->n_ops; i++) {
			const struct ap_model_op *op = &sg->ops[i];
			int32_t code = ap_model_op_code(m, op);
			int64_t runs[2];
			uint32_t n = ap_op_runs(m, op, runs);

			if (code == OP_WHILE && n == 2) {
				claim(m, out, runs[0], AP_SG_WHILE_COND, s, i);
				claim(m, out, runs[1], AP_SG_WHILE_BODY, s, i);
			} else if (code == OP_IF && n == 2) {
				claim(m, out, runs[0], AP_SG_IF_BRANCH, s, i);
				claim(m, out, runs[1], AP_SG_IF_BRANCH, s, i);
			} else if (code == OP_CALL_ONCE && n == 1) {
				claim(m, out, runs[0], AP_SG_CALL_ONCE, s, i);
			} else if (code == OP_STABLEHLO_COMPOSITE && n == 1) {
				claim(m, out, runs[0], AP_SG_COMPOSITE, s, i);
			} else if (code == OP_STABLEHLO_CASE) {
				claim_case(m, out, s, i, ++cases);
			}
		}
	}
	/* Only a subgraph whose callers lead back to subgraph 0 is one LiteRT plans as
	 * modelled: not one in a cycle, nor one run from a subgraph never planned. */
	for (uint32_t s = 1; s < m->n_subgraphs; s++) {
		uint32_t c = s, hops = 0;

		if (!ap_sg_planned(out[s].role))
			continue;
		while (c && hops++ < m->n_subgraphs && ap_sg_planned(out[c].role))
			c = out[c].caller;
		if (c)
			out[s].role = AP_SG_OTHER;
	}
	/* a WHILE or IF inside a CALL_ONCE init subgraph plans its own there, in its Prepare */
	for (uint32_t s = 1; s < m->n_subgraphs; s++) {
		uint32_t c = s;

		for (uint32_t hops = 0; c && hops < m->n_subgraphs; hops++) {
			if (out[c].role == AP_SG_CALL_ONCE)
				out[s].at_invoke = true;
			if (!ap_sg_planned(out[c].role))
				break;
			c = out[c].caller;
		}
	}
}

const struct ap_sg_info *ap_subgraph_roles(const struct ap_model *m)
{
	struct ap_sg_info *out;

	if (m->sg_roles || !m->n_subgraphs)
		return m->sg_roles;
	out = malloc(m->n_subgraphs * sizeof(*out));
	if (!out)
		return NULL;
	find_roles(m, out);
	/* a cache of what the file says, not a change to it: m is otherwise read-only */
	((struct ap_model *)m)->sg_roles = out;
	return out;
}

uint32_t ap_subgraph_depth(const struct ap_model *m, const struct ap_sg_info *roles,
			   uint32_t sg)
{
	uint32_t d = 0;

	while (sg && sg < m->n_subgraphs && d <= AP_SG_MAX_DEPTH) {
		if (!ap_sg_planned(roles[sg].role))
			return AP_SG_MAX_DEPTH + 1;
		sg = roles[sg].caller;
		d++;
	}
	return d;
}

const struct ap_model_tensor *ap_sg_tensor(const struct ap_model *m, uint32_t sg, int32_t t)
{
	const struct ap_model_subgraph *s = &m->subgraphs[sg];

	return t >= 0 && (uint32_t)t < s->n_tensors ? &s->tensors[t] : NULL;
}

bool ap_sg_same_dims(const struct ap_model_tensor *a, const struct ap_model_tensor *b)
{
	if (!a || !b || a->rank != b->rank)
		return false;
	for (uint32_t d = 0; d < a->rank; d++)
		if (a->shape[d] != b->shape[d])
			return false;
	return true;
}

bool ap_sg_branches_differ(const struct ap_model *m, uint32_t a, uint32_t b)
{
	const struct ap_model_subgraph *x = &m->subgraphs[a], *y = &m->subgraphs[b];

	for (uint32_t k = 0; k < x->n_outputs && k < y->n_outputs; k++)
		if (!ap_sg_same_dims(ap_sg_tensor(m, a, x->outputs[k]),
				     ap_sg_tensor(m, b, y->outputs[k])))
			return true;
	return false;
}

bool ap_sg_body_changes_shape(const struct ap_model *m, uint32_t body)
{
	const struct ap_model_subgraph *b = &m->subgraphs[body];

	for (uint32_t k = 0; k < b->n_inputs && k < b->n_outputs; k++) {
		const struct ap_model_tensor *x = ap_sg_tensor(m, body, b->inputs[k]);
		const struct ap_model_tensor *y = ap_sg_tensor(m, body, b->outputs[k]);

		if (!x || !y || ap_sg_same_dims(x, y))
			continue;
		/* while.cc lets a scalar pass for a tensor of one element, by adding the
		 * first dims (a scalar counts 0) and comparing the sum with 1 */
		if ((x->rank ? (int64_t)x->shape[0] : 0) +
		    (y->rank ? (int64_t)y->shape[0] : 0) == 1)
			continue;
		return true;
	}
	return false;
}

bool ap_case_outputs_differ(const struct ap_model *m, const struct ap_model_op *op)
{
	const struct ap_model_op_vecs *v = op->vecs;

	if (!v || !v->n_branches || v->branches[0] < 1 ||
	    (uint32_t)v->branches[0] >= m->n_subgraphs)
		return false;
	/* stablehlo_case.cc compares branch_subgraph_indices[1 .. subgraphs - 2] */
	for (uint32_t j = 1; j + 1 < m->n_subgraphs && j < v->n_branches; j++) {
		if (v->branches[j] < 1 || (uint32_t)v->branches[j] >= m->n_subgraphs)
			continue;
		if (ap_sg_branches_differ(m, (uint32_t)v->branches[0], (uint32_t)v->branches[j]))
			return true;
	}
	return false;
}

int64_t ap_flow_taken(const struct ap_model *m, uint32_t caller, uint32_t node)
{
	const struct ap_model_op *op = &m->subgraphs[caller].ops[node];
	int32_t code = ap_model_op_code(m, op);
	const struct ap_model_tensor *c;
	const struct ap_model_buffer *b;
	int64_t runs[2], i;

	if (!op->n_inputs)
		return -1;
	c = ap_sg_tensor(m, caller, op->inputs[0]);
	if (!c || !c->buffer || c->buffer >= m->n_buffers)
		return -1;
	b = &m->buffers[c->buffer];
	if (code == OP_STABLEHLO_CASE) {
		if (!op->vecs || !op->vecs->n_branches || ap_model_tensor_ints(m, c, &i, 1) != 1)
			return -1;
		/* stablehlo_case.cc runs the last listed for an index out of range */
		if (i < 0 || i >= op->vecs->n_branches)
			i = op->vecs->n_branches - 1;
		return op->vecs->branches[i];
	}
	if (code != OP_IF || ap_op_runs(m, op, runs) != 2 || c->type != AP_TT_BOOL ||
	    b->data_len != 1 || !b->small)
		return -1;
	return b->small[0] ? runs[0] : runs[1];	/* if.cc reads cond->data.b[0] */
}

/* A counting sort of the called subgraphs by caller, in one block: start, then list. */
int ap_sg_callees(const struct ap_model *m, struct ap_sg_callees *cl)
{
	const struct ap_sg_info *roles = ap_subgraph_roles(m);
	uint32_t n = m->n_subgraphs, *start, *list;

	if (!roles)
		return n ? -ENOMEM : -EINVAL;
	if (!m->sg_callees) {
		start = calloc(2 * (size_t)n + 3, sizeof(*start));
		if (!start)
			return -ENOMEM;
		list = start + n + 2;
		for (uint32_t s = 1; s < n; s++)
			if (roles[s].role != AP_SG_UNCALLED && roles[s].caller < n)
				start[roles[s].caller + 2]++;
		for (uint32_t c = 0; c < n; c++)
			start[c + 2] += start[c + 1];
		for (uint32_t s = 1; s < n; s++)
			if (roles[s].role != AP_SG_UNCALLED && roles[s].caller < n)
				list[start[roles[s].caller + 1]++] = s;
		/* a cache, as the roles are */
		((struct ap_model *)m)->sg_callees = start;
	}
	cl->start = m->sg_callees;
	cl->list = m->sg_callees + n + 2;
	return 0;
}

static bool read_by_an_op(const struct ap_graph *g, int32_t t)
{
	for (uint32_t i = 0; i < g->n_ops; i++)
		for (uint32_t k = 0; k < g->ops[i].n_in; k++)
			if (g->ops[i].in[k] == t)
				return true;
	return false;
}

static bool graph_output(const struct ap_graph *g, int32_t t)
{
	for (uint32_t k = 0; k < g->n_outputs; k++)
		if (g->outputs[k] == t)
			return true;
	return false;
}

void ap_subgraph_prepare(struct ap_graph *g, const struct ap_sg_info *info)
{
	bool branch = info->role == AP_SG_IF_BRANCH || info->role == AP_SG_COMPOSITE ||
		      info->role == AP_SG_CASE_BRANCH;
	/* stablehlo_case.cc trims subgraph 0 too, before subgraph 0 is planned */
	bool trim = info->role == AP_SG_WHILE_COND || branch || info->case_trims;
	bool custom = info->role == AP_SG_WHILE_BODY || branch;

	for (uint32_t k = 0; k < g->n_inputs; k++) {
		int32_t t = g->inputs[k];
		struct ap_tensor *tt;

		if (t < 0 || (uint32_t)t >= g->n_tensors)
			continue;
		tt = &g->t[t];
		/* RemoveUnusedInputs (GetInputTensorsCount): operator inputs and graph
		 * outputs count, so an input a branch returns as it is stays */
		if (trim && !read_by_an_op(g, t) && !graph_output(g, t)) {
			g->owned_inputs[k] = -1;
			tt->flags &= ~AP_TF_INPUT;
			tt->bytes = 0;	/* no shape is copied into it either */
			continue;
		}
		if (custom && tt->type != AP_TT_RESOURCE && tt->type != AP_TT_VARIANT &&
		    tt->alloc != AP_ALLOC_WEIGHTS)
			tt->alloc = tt->read_alloc = AP_ALLOC_CUSTOM;
	}
}
