/* SPDX-License-Identifier: Apache-2.0 */
/*
 * profile: figures derived from any plan (computed or imported): the per-operator
 * breadth (bytes of arena tensors live while it runs), the lower bound (the largest
 * breadth) and the operator that sets it, and a checker that no two tensors that are
 * live at the same time share bytes.
 */
#ifndef ARENAPROF_PROFILE_H
#define ARENAPROF_PROFILE_H

#include <stdint.h>

#include "arenaprof/plan/plan.h"

struct ap_profile {
	uint64_t *breadth;	/* n_ops entries */
	uint32_t n_ops;
	uint64_t lower_bound;
	int32_t widest_op;	/* -1 when there are no operators */
};

/* The breadth profile of p's lifetimes into pr (ap_profile_free it): 0, or -ENOMEM. */
int ap_profile_compute(const struct ap_tplan *p, struct ap_profile *pr);
void ap_profile_free(struct ap_profile *pr);

/* Whether arena tensor t is live while operator op runs (inputs count from op 0). */
int ap_ptensor_live_at(const struct ap_ptensor *t, int32_t op);

/*
 * Indices of the arena tensors live at op, largest first, into a malloc'd array;
 * returns the count or -ENOMEM on allocation failure.
 */
int ap_profile_live(const struct ap_tplan *p, int32_t op, int32_t **out);

/* Operators sorted by breadth, widest first (ties: execution order); malloc'd. */
uint32_t *ap_profile_rank(const struct ap_profile *pr);

/*
 * 0 when no two arena tensors with intersecting lifetimes overlap in memory;
 * otherwise -EINVAL and err names the first pair found (-ENOMEM: out of memory).
 */
int ap_tplan_check(const struct ap_tplan *p, char *err);

#endif
