/* SPDX-License-Identifier: Apache-2.0 */
/*
 * subgraphs: which operator runs each subgraph of a model, and what its kernel does to the
 * subgraph before LiteRT plans it. Every subgraph has an ArenaPlanner of its own, so its
 * arena and persistent arena are heap blocks apart from its caller's
 * (docs/litert-kernels.md, "Subgraphs").
 */
#ifndef ARENAPROF_SUBGRAPHS_H
#define ARENAPROF_SUBGRAPHS_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/plan/graph.h"

enum ap_sg_role {
	AP_SG_PRIMARY,		/* subgraph 0: planned by AllocateTensors */
	AP_SG_WHILE_COND,	/* planned in WHILE's Prepare, unused inputs removed */
	AP_SG_WHILE_BODY,	/* planned in WHILE's Prepare, inputs custom */
	AP_SG_IF_BRANCH,	/* planned in IF's Prepare, unused inputs removed, inputs custom */
	AP_SG_CALL_ONCE,	/* planned in CALL_ONCE's first Eval, then released */
	AP_SG_COMPOSITE,	/* STABLEHLO_COMPOSITE's decomposition: as an IF branch,
				 * its arena released after every Eval */
	AP_SG_CASE_BRANCH,	/* every subgraph but 0 of a model with a STABLEHLO_CASE, listed
				 * as its branch or not: planned in its Prepare as an IF branch */
	AP_SG_UNCALLED,		/* no operator runs it: LiteRT never plans it */
	AP_SG_OTHER,		/* run by another operator, or by more than one: not modelled */
};

struct ap_sg_info {
	enum ap_sg_role role;
	uint32_t caller;	/* the calling subgraph and its operator (not for 0, UNCALLED) */
	uint32_t node;
	bool at_invoke;		/* it or a caller up the chain is a CALL_ONCE init subgraph */
	bool case_trims;	/* subgraph 0 runs a STABLEHLO_CASE, whose Prepare removes
				 * subgraph 0's unused inputs before its plan too */
};

/* The role of every subgraph of m, m->n_subgraphs of them, computed once and kept in m
 * (freed by ap_model_free); NULL when out of memory or m has no subgraph. */
const struct ap_sg_info *ap_subgraph_roles(const struct ap_model *m);

/*
 * How far down LiteRT's Prepares are followed: a WHILE, IF or STABLEHLO_COMPOSITE whose
 * subgraphs sit deeper than this below subgraph 0 is not looked into (its outputs are taken
 * as static, and coverage names it), which bounds the work and the recursion of a hostile
 * model's chains of subgraphs.
 */
#define AP_SG_MAX_DEPTH 16

/* The calls from subgraph 0 down to sg (0 for 0), by roles from ap_subgraph_roles; more
 * than AP_SG_MAX_DEPTH (not counted further) for a subgraph that is not planned. */
uint32_t ap_subgraph_depth(const struct ap_model *m, const struct ap_sg_info *roles,
			   uint32_t sg);

/* Tensor t of subgraph sg in the model, NULL when out of range. */
const struct ap_model_tensor *ap_sg_tensor(const struct ap_model *m, uint32_t sg, int32_t t);
/* Both tensors exist and have the same dims (TfLiteIntArrayEqual). */
bool ap_sg_same_dims(const struct ap_model_tensor *a, const struct ap_model_tensor *b);
/* The outputs of IF branches a and b differ in dims (if.cc then makes the IF's outputs
 * dyn). Compares the file's shapes. */
bool ap_sg_branches_differ(const struct ap_model *m, uint32_t a, uint32_t b);
/* WHILE body `body` gives an output whose dims are not its input's, as while.cc tests
 * them after the body's Prepares: the WHILE's outputs are dyn. Compares the model's
 * shapes, which shapes.c rewrites to the Prepares' (shapes_settled). */
bool ap_sg_body_changes_shape(const struct ap_model *m, uint32_t body);
/* STABLEHLO_CASE node op (in subgraph 0) has a branch its Prepare compares whose outputs
 * differ in dims from branch_subgraph_indices[0]'s, which size the node's: its outputs
 * are dyn. Compares the model's shapes, as ap_sg_body_changes_shape. */
bool ap_case_outputs_differ(const struct ap_model *m, const struct ap_model_op *op);
/* The subgraph IF or STABLEHLO_CASE node `node` of subgraph `caller` runs when its
 * condition or index is a constant in the file (then for true, else for false; the
 * listed branch of that index, the last one past them), or -1 when the data decides. */
int64_t ap_flow_taken(const struct ap_model *m, uint32_t caller, uint32_t node);

/* The subgraphs each subgraph's operators run: list[start[c] .. start[c + 1]) are those
 * whose caller is c (by ap_subgraph_roles), so that a walk looks at its own only. */
struct ap_sg_callees {
	const uint32_t *start, *list;
};

/* m's callees, computed on first use and kept in m with its roles: 0, or -ENOMEM when out
 * of memory (-EINVAL: m has no subgraph). */
int ap_sg_callees(const struct ap_model *m, struct ap_sg_callees *cl);

/* The subgraphs a WHILE (cond, body), IF (then, else), CALL_ONCE or STABLEHLO_COMPOSITE
 * names in its options, as the file gives them (unchecked): how many, 0 for other operators
 * and for STABLEHLO_CASE (it runs every subgraph but 0). */
uint32_t ap_op_runs(const struct ap_model *m, const struct ap_model_op *op, int64_t runs[2]);

/* "primary", "WHILE cond", ... */
const char *ap_sg_role_name(enum ap_sg_role r);
/* When LiteRT plans the subgraph: "allocate_tensors", "first invoke" (at_invoke: from the
 * roles, a CALL_ONCE init subgraph or one it runs; in ap_sg_plan, every subgraph
 * ap_subgraph_late gives), "never", or "unknown" (OTHER). */
const char *ap_sg_planned_at(const struct ap_sg_info *info);
/* LiteRT plans a subgraph of this role as subgraphs.c models it: not UNCALLED (never
 * planned), not OTHER (planned otherwise). */
static inline bool ap_sg_planned(enum ap_sg_role r)
{
	return r != AP_SG_UNCALLED && r != AP_SG_OTHER;
}

/* Why a role is not modelled, or NULL when it is. */
const char *ap_sg_not_modelled(enum ap_sg_role r);

/*
 * What the caller's Prepare does to g (subgraph g->subgraph, read but not yet prepared)
 * before it plans it: inputs no operator reads stop being inputs (RemoveUnusedInputs),
 * and the remaining inputs of a WHILE body or IF branch become custom (they use the
 * caller's buffers), unless they are resources or variants. STABLEHLO_CASE does the first
 * to subgraph 0 as well.
 */
void ap_subgraph_prepare(struct ap_graph *g, const struct ap_sg_info *info);

#endif
