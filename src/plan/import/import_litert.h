/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A LiteRT PrintInterpreterState dump as read (import_litert.c), before the plan is built
 * from it (import_litert_build.c). Private to src/plan/.
 */
#ifndef ARENAPROF_PLAN_IMPORT_LITERT_H
#define ARENAPROF_PLAN_IMPORT_LITERT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/plan/plan.h"
#include "import_priv.h"

struct range {
	int64_t lo, hi;		/* inclusive */
};

struct rlist {
	struct range *r;
	size_t n, cap;
	int64_t count;		/* entries, runs expanded */
	long line;		/* where it was read, 0: not read */
};

struct lnode {
	char *opname;
	struct rlist in, out, tmp;
};

enum lstate {
	L_START,	/* before subgraph 0 */
	L_HEAD,		/* subgraph 0 header seen: Inputs, Outputs, table header */
	L_TABLE,	/* in subgraph 0's tensor table */
	L_BODY,		/* after the table: nodes, execution plan */
	L_SKIP,		/* another subgraph, or between subgraphs */
	L_STATUS,	/* memory arena status */
	L_DONE,		/* the first dump is over */
};

struct litert {
	struct reader *r;
	enum lstate st;
	bool seen_sg0, in_dump, have_exec;
	int64_t want_tensors, want_nodes;
	struct rlist inputs, outputs;
	struct ap_ptensor *t;
	size_t nt, cap_t;
	struct lnode *nodes;
	size_t nn, cap_n;
	int32_t *exec;
	size_t n_exec;
	uint64_t status_normal, status_persistent;
	bool have_status_normal, have_status_persistent;
};

/*
 * Lifetimes, kinds, sharing, ops and sizes from what was read (see the top of
 * import_litert_build.c); L->t moves into p. -1 (err set) on failure.
 */
int imp_litert_build(struct litert *L, struct ap_tplan *p);

#endif
