/* SPDX-License-Identifier: Apache-2.0 */
/*
 * arena: the one identity of the arena, for every view of a session (report, export,
 * heatmap, the TUI). Where the arena is and how that is known, from the strongest
 * evidence to the weakest (docs/design.md, "The arena, found once"):
 *
 *  1. an address given: report --arena ADDR or record --arena ADDR, planned offset 0;
 *  2. the allocation probe (allocs.h): the block of the plan's size, else the runtime's
 *     own smaller arena buffer, followed across re-plans;
 *  3. the mapping rule: the anonymous mapping of the plan's arena size (or holding it
 *     with up to two pages of malloc slack; the smallest, then the earliest first touch),
 *     else the largest faulted anonymous mapping. [stack] and other bracketed names are
 *     never candidates, [heap] is. With a plan its base is then searched: the candidate
 *     offset whose plan attribution explains the most first touches.
 *
 * The analysis pass (analysis.h) gathers the evidence and calls this module once at its
 * end; the result, struct ap_arena_id, is written here only and read by everything after.
 * The page owner rule (which operator owns a page of the plan's arena) lives here too.
 */
#ifndef ARENAPROF_ARENA_H
#define ARENAPROF_ARENA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/analyze/aspace.h"
#include "arenaprof/plan/plan.h"

/* One mapping as the mapping rule sees it. */
struct ap_arena_cand {
	uint64_t start, end;
	uint64_t pages;		/* held: first touched while traced + resident at attach */
	int32_t first_run;	/* run of its first first touch, INT32_MAX none */
	bool anon;
	const char *path;	/* "" anonymous, "[heap]", "[stack]", a file */
};

/* A mapping of the address-space model (aspace.h) as the rule sees it. */
struct ap_arena_cand ap_arena_cand_of(const struct ap_amap *m);

/*
 * The mapping rule: the index of the arena among c[0..n), or -1. plan: NULL without one.
 * rule (len bytes) says which rule chose it, in report's words; *by_size: chosen for the
 * plan's size (else the largest).
 */
int32_t ap_arena_pick(const struct ap_arena_cand *c, uint32_t n, const struct ap_tplan *plan,
		      uint64_t page_size, char *rule, size_t len, bool *by_size);
/* Whether the rule would look at the mapping at all: anonymous or [heap], pages held. */
bool ap_arena_candidate(const struct ap_arena_cand *m);

/*
 * The arena after a re-plan: the allocation probe saw the runtime replace its block, or
 * (without it) a later anonymous mapping at least the arena's size was first touched in a
 * later run (a resized input).
 */
struct ap_arena_move {
	int32_t block;			/* the new block, in the allocs; -1: by mapping */
	int32_t map;			/* its mapping in the analysis, -1 none */
	uint64_t base;
	uint64_t bytes;			/* usable: the block less the alignment slack */
	int32_t run;			/* the run in which it was allocated */
	uint64_t ts_ns;
	bool free_seen;			/* the block it replaced was seen freed */
};

#define AP_MAX_MOVES 16

enum ap_arena_rule {
	AP_AR_NONE = 0,	/* no arena identified */
	AP_AR_GIVEN,		/* report --arena ADDR, or record --arena ADDR */
	AP_AR_ALLOC,		/* the allocation of the plan's size */
	AP_AR_RUNTIME,	/* the runtime's own arena buffer, smaller than the plan */
	AP_AR_MAPPING,	/* an anonymous mapping of the plan's size */
	AP_AR_LARGEST,	/* the largest faulted anonymous mapping */
};

/* One candidate base of the mapping rule's search, as scored. */
struct ap_arena_score {
	int64_t delta;		/* base - mapping start */
	uint64_t explained;	/* first touches the plan explains (see ap_arena_id.why) */
	uint64_t exact;		/* faults whose offset is exactly a planned tensor's start */
};

#define AP_ARENA_MAX_CAND 24

struct ap_arena_id {
	enum ap_arena_rule rule;
	bool by_record;			/* AP_AR_GIVEN: record's --arena (else report's) */
	int32_t map;			/* the analysis mapping holding it, -1 none */
	uint64_t base;			/* the address of planned offset 0 (no plan: the
					 * mapping start) */
	uint64_t bytes;			/* the plan's arena (AP_AR_RUNTIME: the runtime's
					 * block; no plan: the mapping) */
	int32_t block;			/* the allocs' block, -1 */
	uint32_t matches;		/* blocks of the plan's size */
	struct ap_arena_move moves[AP_MAX_MOVES];
	uint32_t n_moves;
	struct ap_arena_score cand[AP_ARENA_MAX_CAND];	/* the base search, best first */
	uint32_t n_cand;
	char why[640];			/* the rule and its evidence, one line */
	char alloc_why[256];		/* why the allocation probe did not find it, or "" */
};

/*
 * The mapping rule's answer into id (ap_arena_pick's index map of [start, end), its rule
 * text and by_size): the whole identity of a view that sees mappings only (the TUI).
 */
void ap_arena_id_mapping(struct ap_arena_id *id, int32_t map, bool by_size, uint64_t start,
			 uint64_t end, const struct ap_tplan *p, const char *rule);

/* The rule's key in JSON: "given", "allocation", "runtime_block", "mapping",
 * "largest_mapping", "none". */
const char *ap_arena_rule_key(enum ap_arena_rule r);

/* Whether the plan describes the arena's bytes: a plan, an arena, not the runtime's
 * smaller block nor the largest mapping. */
bool ap_arena_planned(const struct ap_arena_id *id, const struct ap_tplan *plan);

/* Whether the arena is a block of its own (an allocation, or record --arena's address)
 * whose mapping the pass cut to its pages, rather than a whole mapping. */
bool ap_arena_is_block(const struct ap_arena_id *id);

#define AP_OWNER_INPUT (-1)		/* written as a graph input, before operator 0 */
#define AP_OWNER_NONE INT32_MIN		/* no planned writer covers the page */

/*
 * The owner of every page of the planned arena: (arena_bytes + page_size - 1) / page_size
 * entries, each an operator's execution index, AP_OWNER_INPUT or AP_OWNER_NONE, into a
 * malloc'd *owner. Writers: graph inputs, and for arena, output and temporary tensors the
 * operator that first allocates them (an in-place sharer writes its root's bytes: the
 * root's writer counts). Returns the page count, or -ENOMEM.
 */
int64_t ap_arena_page_owners(const struct ap_tplan *plan, uint64_t page_size, int32_t **owner);

/*
 * Plan attribution of every page of a mapping of n_pages pages whose planned offset 0 is
 * delta bytes past its start: the earliest owner of the bytes the page covers, from the
 * owners blk[0..n_blk) at gran bytes each (ap_arena_page_owners). Returns the pages the
 * plan's extent reaches.
 */
uint64_t ap_arena_page_table(const struct ap_tplan *p, const int32_t *blk, uint64_t n_blk,
			     uint64_t gran, uint64_t ps, uint64_t n_pages, int64_t delta,
			     int32_t *op);

struct ap_analysis;

/*
 * Longest non-decreasing run of (run, plan owner) over the first touches of mapping map
 * in trace order, op: the owners per page of the mapping (ap_arena_page_table); tails:
 * room for every first touch of the mapping. Operators run in order: a right base puts
 * nearly every first touch in it.
 */
uint64_t ap_arena_in_order(const struct ap_analysis *a, int32_t map, const int32_t *op,
			   uint64_t n_pages, uint64_t *tails);

/*
 * The allocation probe's verdict, from the pass's allocation records: id->rule
 * AP_AR_ALLOC or AP_AR_RUNTIME with block, base, bytes and moves, or
 * AP_AR_NONE with alloc_why. The pass calls it first, to keep the chosen regions.
 */
void ap_arena_by_alloc(const struct ap_analysis *a, const struct ap_tplan *p,
		       struct ap_arena_id *id);

/*
 * Completes id (after ap_arena_by_alloc) once the pass is over: the mapping that holds the
 * arena (region_map: the pass's mapping for the allocation block, -1; move_map[k]: for
 * moves[k]), a given address (given: report --arena ADDR, 0 none), else the mapping rule,
 * the base search and the moves by mapping. 0, or -ENOMEM.
 */
int ap_arena_identify(const struct ap_analysis *a, const struct ap_tplan *p, uint64_t given,
		      int32_t region_map, const int32_t *move_map, struct ap_arena_id *id);

#endif
