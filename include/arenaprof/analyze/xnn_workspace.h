/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xnn_workspace: where XNNPACK's workspace lies in a trace, so that its pages are
 * correlated with the plan of its values as the TFLite arena's are with the arena plan
 * (correlate.h, ap_corr_build_at).
 *
 * The workspace is the largest block of the workspace class (xnn_blocks.h) live at the end
 * of the first run: XNNPACK allocates one for the delegate and grows it to the largest
 * partition's plan. Its offset 0 is the block's pointer (the values start there: LiteRT's
 * delegate keeps no persistent part in it). XNNPACK zeroes the block when it allocates it,
 * at reshape, so every page of it is first touched then, before run 0: the pages are named
 * by the plan (the operator that writes a value there first), never by a marker.
 */
#ifndef ARENAPROF_XNN_WORKSPACE_H
#define ARENAPROF_XNN_WORKSPACE_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/analyze/arena.h"
#include "arenaprof/analyze/xnn_blocks.h"

/*
 * The workspace block of m (measured from a) as an arena identity: its pages kept apart
 * in a (ap_analysis_keep_block, role AP_ROLE_XNN_WORKSPACE), its base, plan_bytes (the
 * plan's workspace) and the block; id->moves the larger blocks from the same call that took
 * its place later (a reshape to larger shapes), each kept apart too (map -1: it could not
 * be). false when the trace has no such block or it could not be kept apart (id->why says
 * which).
 */
bool ap_xnn_ws_locate(struct ap_analysis *a, const struct ap_xnn_measured *m,
		      uint64_t plan_bytes, struct ap_arena_id *id);

#endif
