/* SPDX-License-Identifier: Apache-2.0 */
/*
 * allocs: the allocation probe's records in a trace (AP_REC_ALLOC, record --arena auto)
 * as blocks with lifetimes, and the rules that find a runtime's tensor arena among them:
 *
 *  1. the block whose requested size is the plan's arena plus the runtime's alignment
 *     slack (LiteRT: aligned_alloc(64, roundup(size + 63, 64)), or malloc(size + 63);
 *     older TFLite: size + 128), at most AP_ARENA_SLACK bytes more. Its base, the address
 *     of planned offset 0, is the pointer returned rounded up to 64 bytes: exact, in its
 *     own mapping or inside [heap];
 *  2. (no plan match, the plan much larger) the runtime's own arena buffer: the first
 *     block from aligned_alloc or memalign with 64-byte alignment, the call LiteRT's
 *     arena buffer makes: a delegate took most of the graph and its tensors;
 * and follows the arena when a re-plan replaces it: a larger block from the same function
 * allocated while the arena lives, and the arena freed after it (LiteRT grows its buffer by
 * allocate, copy, free). After the first run the recorder probes aligned allocations only
 * (frees are no longer seen): then the first larger block from the arena's own call site
 * is the re-plan.
 *
 * Caller addresses are named through the trace's mappings and the ELF symbol tables
 * (when the files are still there).
 */
#ifndef ARENAPROF_ALLOCS_H
#define ARENAPROF_ALLOCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/analyze/arena.h"
#include "arenaprof/trace/trace.h"

struct ap_analysis;

#define AP_ARENA_SLACK 128	/* bytes a runtime's arena block may exceed the plan */
#define AP_ARENA_ALIGN 64	/* LiteRT's kDefaultArenaAlignment */

/* One allocation as the probe saw it: from its return to its free. */
struct ap_block {
	uint64_t ptr, size, align, caller;
	uint64_t caller_up;		/* XNNPACK's blocks: the caller's caller, 0 unknown */
	uint64_t t_alloc, t_free;	/* ns; t_free 0: not freed in the trace */
	int32_t run_alloc, run_free;	/* runs begun minus 1 at those times */
	uint32_t fn;			/* enum ap_alloc_fn */
	uint32_t tid;
};

/* The newest block at one pointer (ap_allocs.slot): open addressing, idx + 1, 0 empty. */
struct ap_ptr_slot {
	uint64_t ptr;
	uint32_t idx;
};

struct ap_allocs {
	struct ap_block *b;		/* in allocation order */
	uint32_t n, cap;
	struct ap_ptr_slot *slot;	/* every pointer's newest block: O(1) a record */
	uint32_t n_slot, n_ptrs;	/* a power of two, at most half full */
	uint64_t records;		/* AP_REC_ALLOC records read */
	bool given;			/* record --arena ADDR */
	uint64_t given_addr;
	bool probe_noted;		/* the trace says the probe was attached */
	bool static_noted;		/* the trace says the target mapped no C library */
	uint64_t quiet_ns;		/* from then on only aligned allocations were probed */
};

/* Adds one allocation record, as the analysis pass reads it. 0, or -ENOMEM. */
int ap_allocs_add(struct ap_allocs *al, const struct ap_rec_alloc *r);
void ap_allocs_note(struct ap_allocs *al, uint64_t ts_ns, const char *text);
void ap_allocs_free(struct ap_allocs *al);

const char *ap_alloc_fn_name(uint32_t fn);
/* One of XNNPACK's allocator functions (AP_ALLOC_XNN_*). */
bool ap_alloc_fn_xnn(uint32_t fn);

enum ap_arid_rule {
	AP_ARID_NONE = 0,	/* no block identified */
	AP_ARID_PLAN_SIZE,	/* rule 1: the block of the plan's size */
	AP_ARID_RUNTIME,	/* rule 2: the runtime's own (smaller) arena block */
	AP_ARID_GIVEN,		/* record --arena ADDR: the base given, the plan's bytes */
};

struct ap_arid {
	enum ap_arid_rule rule;
	int32_t block;			/* index in the allocs, -1 */
	uint64_t base;			/* the address of planned offset 0 */
	uint64_t bytes;			/* the runtime's arena bytes (rule 1: the plan's) */
	uint32_t matches;		/* blocks of the plan's size (rule 1) */
	struct ap_arena_move moves[AP_MAX_MOVES];
	uint32_t n_moves;
	char why[256];			/* rule 2 and none: why rule 1 did not fire */
};

/*
 * Applies the rules to the blocks for a plan of arena_bytes (0: no plan; rule 1 cannot
 * fire). Never fails.
 */
void ap_arid_find(const struct ap_allocs *al, uint64_t arena_bytes, struct ap_arid *id);
/*
 * Rule 1 alone, among the blocks not in taken[0..n_taken) (other models' arenas in one
 * process): AP_ARID_PLAN_SIZE, or AP_ARID_NONE with why.
 */
void ap_arid_find_among(const struct ap_allocs *al, uint64_t arena_bytes,
			const int32_t *taken, uint32_t n_taken, struct ap_arid *id);

/* Rule 1's test: a block of the plan's size (and slack, with room past its base). */
bool ap_arid_plan_sized(const struct ap_block *b, uint64_t arena_bytes);
/* The address of planned offset 0 in a block: its pointer rounded up to 64 bytes. */
uint64_t ap_block_base(const struct ap_block *b);
/*
 * For a pass that keeps the blocks that may become the arena apart while it reads: a
 * block rule 1 or rule 2 could choose (ap_arid_may_be), one that may follow prev as its
 * re-plan (ap_arid_may_follow), and the bytes from its base such a block holds.
 */
bool ap_arid_may_be(const struct ap_block *b, uint64_t arena_bytes);
bool ap_arid_may_follow(const struct ap_block *prev, const struct ap_block *b);
uint64_t ap_arid_region_bytes(const struct ap_block *b, uint64_t arena_bytes);

/* The arena block's call for a report line ("aligned_alloc(64, 1655872)"). */
const char *ap_block_call(const struct ap_block *b, char *buf, size_t len);

#endif
