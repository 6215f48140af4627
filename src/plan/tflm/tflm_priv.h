/* SPDX-License-Identifier: Apache-2.0 */
/* tflm_priv: what tflm_plan.c computes and tflm_tplan.c turns into a plan. */
#ifndef ARENAPROF_TFLM_PRIV_H
#define ARENAPROF_TFLM_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/plan/model.h"
#include "arenaprof/plan/tflm_plan.h"

/* One AllocationInfo: a tensor or a scratch buffer. */
struct tflm_alloc {
	uint64_t bytes;
	int32_t first, last;	/* TFLM's clock; -1 unmarked */
	bool planned;		/* needs_allocating */
};

/* A scratch request and the node that made it. */
struct tflm_req {
	uint32_t sg, node;
	struct ap_tflm_scratch s;
};

/* A clock step: node `node` of subgraph sg, or (node -1) the step into subgraph sg. */
struct tflm_step {
	uint32_t sg;
	int32_t node;
};

struct tflm_view {
	const struct ap_model *m;
	const struct tflm_alloc *a;	/* every subgraph's tensors, then the scratch */
	uint32_t n_alloc;
	const struct tflm_req *req;	/* the scratch buffers' requests */
	const struct tflm_step *step;
	uint32_t n_step;
};

/* The plan of v with offsets off[v->n_alloc] (-1: not in the arena) into p (zeroed
 * first). 0, or -ENOMEM with err. */
int tflm_tplan(const struct tflm_view *v, const char *path, const int64_t *off,
	       const struct ap_tflm_info *info, struct ap_tplan *p, char *err);

/* Integer `key` of the flexbuffer map b[n] (tflm_flex.c); 0 when absent, as flexbuffers
 * reads it. */
int64_t tflm_flex_int(const uint8_t *b, uint32_t n, const char *key);
/* Element i of its root vector (a map's values, by key order) as a raw inline integer;
 * 0 when out of range. */
int64_t tflm_flex_elem(const uint8_t *b, uint32_t n, uint32_t i);

#endif
