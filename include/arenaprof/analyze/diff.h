/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diff: two plans (models or plan files), two traces, or a trace and a plan, side by side,
 * for CI jobs that must fail on a memory regression (`arenaprof diff`). Each side gives
 * the same figures: the arena (planned, or found and first touched), the peak (the plan's
 * pinned memory and weights, or the trace's VmHWM), the weights; a trace also gives its
 * resident memory per kind, a plan its per-operator breadth.
 */
#ifndef ARENAPROF_DIFF_H
#define ARENAPROF_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/plan/profile.h"

struct ap_diff_side {
	const char *path;
	bool is_trace;
	struct ap_tplan plan;		/* a plan side */
	struct ap_profile prof;
	struct ap_corr_all x;		/* a trace side */
	uint64_t arena;			/* planned bytes; or the arena's first-touched bytes */
	uint64_t peak;			/* arena + persistent + weights; or VmHWM, or every
					 * page the trace saw resident when more */
	uint64_t weights;		/* the model's weights; or its mapping's resident bytes */
	uint64_t kind[AP_GROUP_COUNT];	/* a trace: resident bytes per kind of memory */
};

/*
 * Opens path as a trace (by its magic) or a plan. plan: the model a trace's arena is
 * identified with (NULL: by the mapping rule). 0, or -errno with err. Close it in either
 * case.
 */
int ap_diff_open(const char *path, const char *plan, struct ap_diff_side *s, char *err);
void ap_diff_close(struct ap_diff_side *s);

/* Change of new over old in percent: 0 when both are 0, +inf from 0 to more. */
double ap_diff_pct(uint64_t old, uint64_t new);

#endif
