// SPDX-License-Identifier: Apache-2.0
/* xnn_workspace: XNNPACK's workspace block as an arena identity (xnn_workspace.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/xnn_workspace.h"

/*
 * The blocks that took the workspace's place later: XNNPACK grows it at a reshape (a
 * resized input) by a new block from the same call, which the old block's pages no longer
 * hold. Each is kept apart too, as the arena's re-plans are.
 */
static void follow_moves(struct ap_analysis *a, int32_t bi, struct ap_arena_id *id)
{
	const struct ap_allocs *al = a->allocs;
	const struct ap_block *w = &al->b[bi];
	uint64_t last = w->size;

	for (uint32_t j = (uint32_t)bi + 1; j < al->n && id->n_moves < AP_MAX_MOVES; j++) {
		const struct ap_block *b = &al->b[j];
		struct ap_arena_move *mv = &id->moves[id->n_moves];

		if (b->fn != w->fn || b->caller != w->caller || b->caller_up != w->caller_up ||
		    b->size <= last)
			continue;
		*mv = (struct ap_arena_move){
			.block = (int32_t)j, .base = b->ptr, .bytes = b->size,
			.run = b->run_alloc, .ts_ns = b->t_alloc,
			.free_seen = id->n_moves ? al->b[id->moves[id->n_moves - 1].block].t_free
					       != 0 : w->t_free != 0,
		};
		mv->map = ap_analysis_keep_block(a, b->ptr, b->size, (int32_t)j,
						 AP_ROLE_XNN_WORKSPACE);
		last = b->size;
		id->n_moves++;
	}
}

bool ap_xnn_ws_locate(struct ap_analysis *a, const struct ap_xnn_measured *m,
		      uint64_t plan_bytes, struct ap_arena_id *id)
{
	const struct ap_block *best = NULL;
	int32_t bi = -1;

	memset(id, 0, sizeof(*id));
	id->map = id->block = -1;
	for (uint32_t i = 0; i < m->n; i++) {
		const struct ap_block *b = &a->allocs->b[m->b[i].block];

		if (m->b[i].cls == AP_XNN_WORKSPACE && (!best || b->size > best->size)) {
			best = b;
			bi = (int32_t)m->b[i].block;
		}
	}
	if (!best) {
		snprintf(id->why, sizeof(id->why), "no workspace block of XNNPACK's allocator");
		return false;
	}
	/* its pages apart, as the arena's: the vma that held them may have grown since */
	id->map = ap_analysis_keep_block(a, best->ptr, best->size, bi, AP_ROLE_XNN_WORKSPACE);
	if (id->map < 0) {
		snprintf(id->why, sizeof(id->why), "the workspace block at 0x%" PRIx64 " could "
			 "not be kept apart (%s)", best->ptr, id->map == -ENOMEM ?
			 "out of memory" : "too many blocks kept apart");
		return false;
	}
	id->rule = AP_AR_ALLOC;
	id->base = best->ptr;
	id->bytes = plan_bytes;
	id->block = bi;
	id->matches = best->size == plan_bytes;
	follow_moves(a, bi, id);
	snprintf(id->why, sizeof(id->why), "XNNPACK's workspace block: %" PRIu64 " bytes at "
		 "0x%" PRIx64 ", allocated in run %d", best->size, best->ptr, best->run_alloc);
	return true;
}
