/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan_process: several models in one process (`plan A.tflite B.tflite ...`). Each model
 * runs in an interpreter of its own, and interpreters allocated side by side hold all
 * their memory at once: every TFLite arena, and on the XNNPACK path every delegate's own
 * workspace (one per delegate instance, so one per interpreter), operator buffers,
 * runtime objects and packed weights. The process's halves are the models' sums.
 */
#ifndef ARENAPROF_PLAN_PROCESS_H
#define ARENAPROF_PLAN_PROCESS_H

#include <stdint.h>

#include "arenaprof/plan/plan_build.h"

struct ap_plan_process {
	uint32_t n;		/* models */
	uint64_t anon_bytes;	/* non-reclaimable: every model's ap_plan_set_anon_bytes */
	uint64_t file_bytes;	/* reclaimable: every model's ap_plan_set_file_bytes */
	uint64_t total_bytes;	/* both */
	/* the model with the most non-reclaimable bytes (the first of a tie): the one whose
	 * plan decides the most of the verdict */
	uint32_t largest;
	uint64_t others_anon_bytes;	/* anon_bytes without the largest model's */
};

/* p from the n (>= 1) plan sets: 0, or -EOVERFLOW (a sum over 64 bits, said in err). */
int ap_plan_process_sum(const struct ap_plan_set *sets, uint32_t n, struct ap_plan_process *p,
			char *err);

#endif
