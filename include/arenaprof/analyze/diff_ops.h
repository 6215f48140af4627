/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diff_ops: two plans' operators paired by a key that survives a re-export of the graph:
 * the opcode and the name of the operator's output 0 (the k-th operator of a key with the
 * k-th of the same key, in execution order), never by index, so that an operator added
 * early in a graph does not shift every comparison after it.
 */
#ifndef ARENAPROF_DIFF_OPS_H
#define ARENAPROF_DIFF_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/plan/plan.h"

struct ap_diff_pair {
	uint32_t o, n;		/* the operator's index in the old plan and in the new */
};

struct ap_diff_ops {
	struct ap_diff_pair *pairs;	/* matched, by the new plan's order */
	uint32_t matched;
	uint32_t old_only, new_only;	/* no operator of that key on the other side */
	bool same_graph;	/* every operator matched, in the same order */
};

/* Pairs o's operators with n's into d (free with ap_diff_ops_free): 0, or -ENOMEM. */
int ap_diff_ops_match(const struct ap_tplan *o, const struct ap_tplan *n, struct ap_diff_ops *d);
void ap_diff_ops_free(struct ap_diff_ops *d);

#endif
