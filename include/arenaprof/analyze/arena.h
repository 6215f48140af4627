/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arena: the two rules that tie a traced process to a plan, for every view of a session
 * (report's analysis of a trace, the live model of the TUI):
 *  - which mapping is the arena: the anonymous mapping of the plan's arena size (or holding
 *    it with up to two pages of malloc slack; the smallest, then the earliest first touch),
 *    else the largest faulted anonymous mapping. [stack] and other bracketed names are
 *    never candidates, [heap] is;
 *  - which operator owns each page of the arena (plan attribution, docs/design.md,
 *    "Correlation and the arena"): of the tensors whose bytes cover the page, the earliest writer; graph
 *    inputs are written before operator 0.
 */
#ifndef ARENAPROF_ARENA_H
#define ARENAPROF_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/plan/plan.h"

/* One mapping as the arena rule sees it. */
struct ap_arena_cand {
	uint64_t start, end;
	uint64_t pages;		/* held: first touched while traced + resident at attach */
	int32_t first_run;	/* run of its first first touch, INT32_MAX none */
	bool anon;
	const char *path;	/* "" anonymous, "[heap]", "[stack]", a file */
};

/*
 * The index of the arena among c[0..n), or -1. plan: NULL without one. rule (len bytes)
 * says which rule chose it, in report's words.
 */
int32_t ap_arena_pick(const struct ap_arena_cand *c, uint32_t n, const struct ap_tplan *plan,
		      uint64_t page_size, char *rule, size_t len);

#define AP_OWNER_INPUT (-1)		/* written as a graph input, before operator 0 */
#define AP_OWNER_NONE INT32_MIN		/* no planned writer covers the page */

/*
 * The owner of every page of the planned arena: (arena_bytes + page_size - 1) / page_size
 * entries, each an operator's execution index, AP_OWNER_INPUT or AP_OWNER_NONE, into a
 * malloc'd *owner. Writers: graph inputs, and for arena, output and temporary tensors the
 * operator that first allocates them (an in-place sharer writes its root's bytes: the
 * root's writer counts). Returns the page count, or -1 on allocation failure.
 */
int64_t ap_arena_page_owners(const struct ap_tplan *plan, uint64_t page_size, int32_t **owner);

#endif
