/* SPDX-License-Identifier: Apache-2.0 */
/*
 * prepare: one subgraph as LiteRT's interpreter has it after Prepare, what every plan
 * starts from: the model's tensors and operators (graph.h), what the builtin kernels add
 * (kernels.h) and LiteRT's lifetimes with in-place sharing (lifetimes.c).
 */
#ifndef ARENAPROF_PREPARE_H
#define ARENAPROF_PREPARE_H

#include <stdbool.h>

#include "arenaprof/plan/graph.h"

/* Builds the graph of one subgraph and computes LiteRT lifetimes. opts may be NULL (the
 * defaults). 0, or a negative errno with err (-EINVAL: bad input, -ENOMEM); free with
 * ap_graph_free in either case. */
int ap_graph_build(const struct ap_model *m, uint32_t subgraph,
		   const struct ap_graph_opts *opts, struct ap_graph *g, char *err);
void ap_graph_free(struct ap_graph *g);

/* Subgraph sg holds a dynamic tensor once its caller's Prepare has prepared it
 * (HasDynamicTensors): 1 or 0; a negative errno when it cannot be built (-EINVAL: sg is 0
 * or out of range, or a bad graph; -ENOMEM). opts may be NULL. */
int ap_subgraph_dynamic(const struct ap_model *m, uint32_t sg, const struct ap_graph_opts *opts);

/* For each subgraph of m, whether LiteRT plans it in the first invoke rather than in
 * AllocateTensors: under a CALL_ONCE, or run by a node after a dynamic output, or below
 * such a subgraph. Computed once and kept in m (dropped when shapes.c rewrites shapes);
 * NULL when out of memory or m has no subgraph. */
const bool *ap_subgraph_late(const struct ap_model *m);

#endif
