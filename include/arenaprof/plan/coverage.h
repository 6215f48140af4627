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
 * malloc'd (NULL when none); -1 when out of memory.
 */
int ap_kernel_gaps(const struct ap_graph *g, struct ap_gap **gaps);

/* Why node's WHILE, IF or CALL_ONCE is not planned as LiteRT plans it, or NULL: also NULL
 * for every other operator (coverage_flow.c). */
const char *ap_flow_gap(const struct ap_graph *g, uint32_t node);

#endif
