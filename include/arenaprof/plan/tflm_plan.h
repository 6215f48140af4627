/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tflm: the arena TFLite Micro plans for a model (plan --runtime tflm, docs/runtimes.md
 * "TFLite Micro"). Unlike LiteRT's, one arena holds every subgraph: the lifetimes of all
 * subgraphs' tensors are counted on one clock that steps into a control-flow operator's
 * subgraphs where it runs them, and each kernel's scratch buffers, as its Prepare requests
 * them, are planned beside the tensors by the GreedyMemoryPlanner.
 */
#ifndef ARENAPROF_TFLM_PLAN_H
#define ARENAPROF_TFLM_PLAN_H

#include <stdint.h>

#include "arenaprof/plan/plan.h"

struct ap_model;

#define AP_TFLM_ALIGN 16		/* MicroArenaBufferAlignment */
#define AP_TFLM_MAX_SCRATCH 12		/* kMaxScratchBuffersPerOp */

/* One RequestScratchBufferInArena of a kernel's Prepare. */
struct ap_tflm_scratch {
	uint64_t bytes;
	const char *what;	/* the kernel's name for it: "scores", "accumulator" */
};

/*
 * The scratch buffers node `node` of subgraph sg requests in its Prepare, in request
 * order, into out[AP_TFLM_MAX_SCRATCH]: how many (0 for a kernel that requests none), or
 * -EINVAL with err when its tensors are not what its Prepare accepts.
 */
int ap_tflm_scratch(const struct ap_model *m, uint32_t sg, uint32_t node,
		    struct ap_tflm_scratch *out, char *err);

/* What the plan holds beyond its tensors, for the report. */
struct ap_tflm_info {
	uint64_t head_bytes;		/* the non-persistent head: the planner's extent */
	uint32_t n_buffers;		/* buffers planned, scratch ones included */
	uint32_t n_scratch;
	uint64_t scratch_bytes;		/* their sizes, 16-byte aligned, summed */
};

/*
 * TFLite Micro's plan of model m (path names it) into p: every subgraph's tensors, indexed
 * as TFLM's AllocationInfo does (subgraph 0's, then 1's, ...), then the scratch buffers;
 * lifetimes on TFLM's clock less one (its time 0, the inputs, is -1; a buffer it never
 * marks, time -1, is -2); operators one per clock step. 0, or a negative errno with err:
 * -EINVAL for a model TFLM refuses (an unsupported tensor type, an offline plan, control
 * flow deeper than it can follow) or -ENOMEM.
 */
int ap_tflm_plan(const struct ap_model *m, const char *path, struct ap_tplan *p,
		 struct ap_tflm_info *info, char *err);

#endif
