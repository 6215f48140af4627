/* SPDX-License-Identifier: Apache-2.0 */
/*
 * coverage: the operators of a graph whose LiteRT kernel changes the plan in a way
 * kernels.c does not model (docs/litert-kernels.md), so that a plan never hides them.
 */
#ifndef ARENAPROF_COVERAGE_H
#define ARENAPROF_COVERAGE_H

#include <stdint.h>

#include "arenaprof/plan/graph.h"

struct ap_gap {
	uint32_t node;		/* execution index */
	const char *why;	/* static text: what LiteRT does that the plan leaves out */
};

/*
 * The nodes of g (built with its kernels applied) whose kernel's Init or Prepare does
 * something kernels.c does not model, in execution order. Returns how many, with *gaps
 * malloc'd (NULL when none); -ENOMEM when out of memory.
 */
int ap_kernel_gaps(const struct ap_graph *g, struct ap_gap **gaps);

/* Why node's WHILE, IF or CALL_ONCE is not planned as LiteRT plans it, or NULL: also NULL
 * for every other operator (coverage_flow.c). */
const char *ap_flow_gap(const struct ap_graph *g, uint32_t node);

/* An operator up a subgraph's chain of callers that LiteRT runs otherwise than modelled. */
struct ap_caller_gap {
	uint32_t subgraph;	/* the caller's subgraph and node */
	uint32_t node;
	const char *opcode;	/* its name: static or in the model */
	const char *why;	/* ap_flow_gap's text; NULL: none */
};

/*
 * A subgraph is planned from the model's shapes, as its caller's operator would plan it;
 * when that operator, or one further up, is named by ap_flow_gap, LiteRT's plan of the
 * subgraph is not this one either. out[m->n_subgraphs]: out[s].why is NULL when none
 * (subgraph 0, one LiteRT does not plan, every caller modelled, a caller that cannot be
 * built). Each caller's graph is built once. 0, or -ENOMEM when out of memory.
 */
int ap_caller_gaps(const struct ap_model *m, struct ap_caller_gap *out);

#endif
