// SPDX-License-Identifier: Apache-2.0
/*
 * prepare: the graph, the kernels' additions and the lifetimes, in LiteRT's order
 * (include/arenaprof/plan/prepare.h). Kept apart from graph.c so that the kernels, which
 * read the graph, are not called by it. WHILE, IF, STABLEHLO_COMPOSITE and STABLEHLO_CASE
 * prepare their subgraphs in their own Prepare, so a graph's build builds those of the
 * subgraphs they run, down to AP_SG_MAX_DEPTH; which subgraphs LiteRT plans only in the
 * first invoke is found once per model (ap_subgraph_late).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/kernels.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/subgraphs.h"
#include "arenaprof/util/err.h"

static const struct ap_graph_opts no_opts;

/* The subgraphs' roles and callees (subgraphs.h), kept in the model, and which are
 * planned in the first invoke (NULL while that is being found). */
struct sg_index {
	const struct ap_sg_info *roles;
	struct ap_sg_callees cl;
	const bool *late;
};

static int build(const struct ap_model *m, uint32_t subgraph, const struct ap_graph_opts *opts,
		 const struct sg_index *ix, struct ap_graph *g, char *err);

/* 0, or -1 when out of memory. */
static int index_get(const struct ap_model *m, struct sg_index *ix)
{
	ix->roles = ap_subgraph_roles(m);
	ix->late = NULL;
	return ix->roles && !ap_sg_callees(m, &ix->cl) ? 0 : -ENOMEM;
}

/* Subgraph::HasDynamicTensors: a dynamic graph output, or a node whose Prepare made an
 * output dynamic or its shape unknown; dynamic temporaries (a reduction's
 * normalized_dims) do not count. g's kernels are applied. */
static bool graph_dynamic(const struct ap_graph *g)
{
	for (uint32_t i = 0; i < g->n_ops; i++)
		if (ap_graph_ends_prepare(g, i))
			return true;
	for (uint32_t k = 0; k < g->n_outputs; k++)
		if (g->outputs[k] >= 0 && (uint32_t)g->outputs[k] < g->n_tensors &&
		    g->t[g->outputs[k]].alloc == AP_ALLOC_DYNAMIC)
			return true;
	return false;
}

static int dynamic(const struct ap_model *m, uint32_t sg, const struct ap_graph_opts *opts,
		   const struct sg_index *ix)
{
	/* what Eval leaves of a plan (run_outputs) changes no dynamic tensor */
	struct sg_index plain = { .roles = ix->roles, .cl = ix->cl };
	struct ap_graph g;
	char err[AP_ERR_LEN];
	int dyn = build(m, sg, opts, &plain, &g, err);

	if (dyn)
		return dyn;
	dyn = graph_dynamic(&g);
	ap_graph_free(&g);
	return dyn;
}

/*
 * The subgraphs LiteRT plans in the first invoke: those under a CALL_ONCE (subgraphs.c),
 * those run by a node after its graph's first dynamic output (the interpreter prepares
 * the rest of the graph, and so plans what the node runs, in the invoke), and every
 * subgraph below one of them. Each caller is built once, callers before their callees
 * (by depth); subgraphs past AP_SG_MAX_DEPTH are not looked at (coverage names them).
 */
static int find_late(const struct ap_model *m, const struct sg_index *ix, bool *late)
{
	uint32_t n = m->n_subgraphs;
	int32_t *split = malloc(n * sizeof(*split));
	uint8_t *depth = malloc(n);

	if (!split || !depth) {
		free(split);
		free(depth);
		return -ENOMEM;
	}
	for (uint32_t s = 0; s < n; s++) {
		uint32_t d = s ? ap_subgraph_depth(m, ix->roles, s) : 0;

		depth[s] = d > AP_SG_MAX_DEPTH ? 0 : (uint8_t)d;
		split[s] = INT32_MIN;	/* not built yet */
		late[s] = ix->roles[s].at_invoke;
	}
	for (uint32_t d = 1; d <= AP_SG_MAX_DEPTH; d++) {
		for (uint32_t s = 1; s < n; s++) {
			uint32_t c = ix->roles[s].caller;
			struct ap_graph g;
			char err[AP_ERR_LEN];

			if (depth[s] != d)
				continue;
			if (split[c] == INT32_MIN) {
				split[c] = -1;
				if (!build(m, c, &no_opts, ix, &g, err)) {
					split[c] = g.first_split;
					ap_graph_free(&g);
				}
			}
			late[s] |= late[c] ||
				   (split[c] >= 0 && ix->roles[s].node > (uint32_t)split[c]);
		}
	}
	free(split);
	free(depth);
	return 0;
}

const bool *ap_subgraph_late(const struct ap_model *m)
{
	struct sg_index ix;
	bool *late;

	if (m->sg_late || !m->n_subgraphs)
		return m->sg_late;
	late = calloc(m->n_subgraphs, sizeof(*late));
	if (!late)
		return NULL;
	if (m->n_subgraphs > 1 && (index_get(m, &ix) || find_late(m, &ix, late))) {
		free(late);
		return NULL;
	}
	/* a cache, as the roles are (model.h) */
	((struct ap_model *)m)->sg_late = late;
	return late;
}

int ap_subgraph_dynamic(const struct ap_model *m, uint32_t sg, const struct ap_graph_opts *opts)
{
	struct sg_index ix;
	int rc;

	if (sg == 0 || sg >= m->n_subgraphs)
		return -EINVAL;
	rc = index_get(m, &ix);
	if (rc)
		return rc;
	return dynamic(m, sg, opts ? opts : &no_opts, &ix);
}

/* The other branch of IF branch b, or 0 (never a branch) when there is none. */
static uint32_t other_branch(const struct ap_model *m, const struct sg_index *ix, uint32_t b)
{
	const struct ap_sg_info *r = &ix->roles[b];
	int64_t runs[2];
	uint32_t n = ap_op_runs(m, &m->subgraphs[r->caller].ops[r->node], runs);

	for (uint32_t k = 0; k < n; k++) {
		int64_t s = runs[k];

		if (s > 0 && s < m->n_subgraphs && s != b &&
		    ix->roles[s].role == AP_SG_IF_BRANCH && ix->roles[s].caller == r->caller &&
		    ix->roles[s].node == r->node)
			return (uint32_t)s;
	}
	return 0;
}

/* Node op's outputs are already dyn (or none is in the arena): nothing left to decide. */
static bool outputs_decided(const struct ap_graph *g, const struct ap_op *op)
{
	for (uint32_t j = 0; j < op->n_out; j++)
		if (op->out[j] >= 0 && (uint32_t)op->out[j] < g->n_tensors &&
		    g->t[op->out[j]].alloc == AP_ALLOC_ARENA)
			return false;
	return true;
}

/*
 * The outputs of g's WHILE, IF, STABLEHLO_COMPOSITE and STABLEHLO_CASE nodes that their
 * Prepare makes kTfLiteDynamic (SetTensorToDynamic, which splits the plan after the node,
 * planner.c): WHILE's when its body holds a dynamic tensor or changes a shape (while.cc),
 * IF's when a branch does or the branches' outputs differ in shape (if.cc),
 * STABLEHLO_COMPOSITE's when its decomposition holds one (stablehlo_composite.cc),
 * STABLEHLO_CASE's when one of its subgraphs does or a branch it compares gives other
 * dims (stablehlo_case.cc). A cond's dynamic tensors change no output.
 */
static void flow_outputs(const struct ap_model *m, struct ap_graph *g,
			 const struct ap_graph_opts *opts, const struct sg_index *ix)
{
	/* a CASE's branches all have its node: its comparison is made once */
	int64_t case_node = -1;
	bool case_differ = false;

	for (uint32_t k = ix->cl.start[g->subgraph]; k < ix->cl.start[g->subgraph + 1]; k++) {
		uint32_t s = ix->cl.list[k], other;
		const struct ap_sg_info *r = &ix->roles[s];
		const struct ap_op *op;

		if ((r->role != AP_SG_WHILE_BODY && r->role != AP_SG_IF_BRANCH &&
		     r->role != AP_SG_COMPOSITE && r->role != AP_SG_CASE_BRANCH) ||
		    r->node >= g->n_ops || outputs_decided(g, &g->ops[r->node]) ||
		    ap_subgraph_depth(m, ix->roles, s) > AP_SG_MAX_DEPTH)
			continue;
		if (r->role == AP_SG_CASE_BRANCH && case_node != r->node) {
			case_node = r->node;
			case_differ = ap_case_outputs_differ(
				m, &m->subgraphs[g->subgraph].ops[r->node]);
		}
		other = r->role == AP_SG_IF_BRANCH ? other_branch(m, ix, s) : 0;
		if (!(other && ap_sg_branches_differ(m, s, other)) &&
		    !(r->role == AP_SG_WHILE_BODY && ap_sg_body_changes_shape(m, s)) &&
		    !(r->role == AP_SG_CASE_BRANCH && case_differ) &&
		    dynamic(m, s, opts, ix) != 1)
			continue;
		op = &g->ops[r->node];
		for (uint32_t j = 0; j < op->n_out; j++)
			if (op->out[j] >= 0 && (uint32_t)op->out[j] < g->n_tensors &&
			    g->t[op->out[j]].alloc == AP_ALLOC_ARENA)
				g->t[op->out[j]].alloc = AP_ALLOC_DYNAMIC;
	}
}

/* STABLEHLO_CASE's subgraphs other than sg hold no dynamic tensor, and the branches it
 * compares agree in dims: its Eval runs Eval_static (stablehlo_case.cc). */
static bool case_static(const struct ap_model *m, uint32_t sg, const struct ap_graph_opts *opts,
			const struct sg_index *ix)
{
	const struct ap_sg_info *r = &ix->roles[sg];

	if (ap_case_outputs_differ(m, &m->subgraphs[r->caller].ops[r->node]))
		return false;
	for (uint32_t k = ix->cl.start[r->caller]; k < ix->cl.start[r->caller + 1]; k++) {
		uint32_t s = ix->cl.list[k];

		if (s != sg && ix->roles[s].role == AP_SG_CASE_BRANCH &&
		    ix->roles[s].node == r->node && dynamic(m, s, opts, ix) != 0)
			return false;
	}
	return true;
}

/*
 * Eval_static of IF, STABLEHLO_COMPOSITE and STABLEHLO_CASE (if.cc, stablehlo_composite.cc,
 * stablehlo_case.cc) turns the outputs of the subgraph it runs kTfLiteCustom, pointed at
 * the caller's, and that subgraph's next plan leaves them out. For a subgraph first planned
 * in the first invoke that is the plan LiteRT keeps: a decomposition's, and the branch a
 * constant condition or index picks. Eval_dynamic (a dynamic subgraph, branches of other
 * dims) keeps them. The cheap tests come first: only the branch that runs builds others.
 */
static void run_outputs(const struct ap_model *m, struct ap_graph *g,
			const struct ap_graph_opts *opts, const struct sg_index *ix)
{
	const struct ap_sg_info *r = &ix->roles[g->subgraph];
	bool branch = r->role == AP_SG_IF_BRANCH || r->role == AP_SG_CASE_BRANCH;

	if (!ix->late[g->subgraph] || (r->role != AP_SG_COMPOSITE && !branch) ||
	    graph_dynamic(g) ||
	    (branch && ap_flow_taken(m, r->caller, r->node) != g->subgraph))
		return;
	if (r->role == AP_SG_IF_BRANCH) {
		uint32_t other = other_branch(m, ix, g->subgraph);

		if (!other || ap_sg_branches_differ(m, g->subgraph, other) ||
		    dynamic(m, other, opts, ix) != 0)
			return;
	} else if (r->role == AP_SG_CASE_BRANCH && !case_static(m, g->subgraph, opts, ix)) {
		return;
	}
	for (uint32_t k = 0; k < g->n_outputs; k++) {
		struct ap_tensor *t;

		if (g->outputs[k] < 0 || (uint32_t)g->outputs[k] >= g->n_tensors)
			continue;
		t = &g->t[g->outputs[k]];
		if (t->type != AP_TT_RESOURCE && t->type != AP_TT_VARIANT &&
		    t->alloc != AP_ALLOC_WEIGHTS)
			t->alloc = AP_ALLOC_CUSTOM;
	}
}

/* Subgraph 0's STABLEHLO_CASE is prepared in the first invoke. */
static bool case_late(const struct sg_index *ix)
{
	for (uint32_t k = ix->cl.start[0]; ix->late && k < ix->cl.start[1]; k++)
		if (ix->roles[ix->cl.list[k]].role == AP_SG_CASE_BRANCH)
			return ix->late[ix->cl.list[k]];
	return false;
}

static int build(const struct ap_model *m, uint32_t subgraph, const struct ap_graph_opts *opts,
		 const struct sg_index *ix, struct ap_graph *g, char *err)
{
	int rc = ap_graph_read(m, subgraph, opts, g, err);

	if (rc)
		return rc;
	if (ix) {
		struct ap_sg_info info = ix->roles[subgraph];

		/* a STABLEHLO_CASE trims subgraph 0 too, unless it is prepared after subgraph
		 * 0's first plan, in the first invoke (its branches are late) */
		if (info.case_trims)
			info.case_trims = !case_late(ix);
		ap_subgraph_prepare(g, &info);
		flow_outputs(m, g, opts, ix);
	}
	if (!opts->no_kernels) {
		struct ap_kernel_opts ko = { .threads = opts->threads ? opts->threads :
					     ap_runtime_get(opts->runtime)->default_threads,
					     .arch = opts->arch, .runtime = opts->runtime };

		rc = ap_kernels_apply(g, &ko, err);
		if (rc) {
			ap_graph_free(g);
			return rc;
		}
	}
	if (ix && ix->late)
		run_outputs(m, g, opts, ix);
	rc = ap_graph_check_bytes(g, err);
	if (rc) {
		ap_graph_free(g);
		return rc;
	}
	ap_lifetimes_tflite(g, !opts->no_inplace);
	return 0;
}

int ap_graph_build(const struct ap_model *m, uint32_t subgraph,
		   const struct ap_graph_opts *opts, struct ap_graph *g, char *err)
{
	struct sg_index ix;

	memset(g, 0, sizeof(*g));
	if (m->n_subgraphs > 1 && (index_get(m, &ix) || !(ix.late = ap_subgraph_late(m)))) {
		return ap_fail(err, -ENOMEM, "out of memory reading the subgraphs' callers");
	}
	return build(m, subgraph, opts ? opts : &no_opts, m->n_subgraphs > 1 ? &ix : NULL, g,
		     err);
}

void ap_graph_free(struct ap_graph *g)
{
	ap_kernels_free(g);	/* op temporaries and the added tensors' names */
	ap_graph_release(g);
}
