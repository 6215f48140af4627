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

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/trace/trace.h"

#define AP_ARENA_SLACK 128	/* bytes a runtime's arena block may exceed the plan */
#define AP_ARENA_ALIGN 64	/* LiteRT's kDefaultArenaAlignment */

/* One allocation as the probe saw it: from its return to its free. */
struct ap_block {
	uint64_t ptr, size, align, caller;
	uint64_t t_alloc, t_free;	/* ns; t_free 0: not freed in the trace */
	int32_t run_alloc, run_free;	/* runs begun minus 1 at those times */
	uint32_t fn;			/* enum ap_alloc_fn */
	uint32_t tid;
};

struct ap_allocs {
	struct ap_block *b;		/* in allocation order */
	uint32_t n, cap;
	uint64_t records;		/* AP_REC_ALLOC records read */
	bool given;			/* record --arena ADDR */
	uint64_t given_addr;
	bool probe_noted;		/* the trace says the probe was attached */
	bool static_noted;		/* the trace says the target mapped no C library */
	uint64_t quiet_ns;		/* from then on only aligned allocations were probed */
};

/*
 * Reads the allocation records of a trace: a pre-pass for a pass that reads every record.
 * It stops at the first fault record when nothing before it says the probe was on (its
 * attach note, a record), which makes it nearly free for traces without the probe; it
 * checks the CRC of the records it uses only, and a corrupt trace ends it quietly (the
 * checked pass says where). 0, or -1 with err (cannot open, out of memory).
 */
int ap_allocs_read(const char *trace, struct ap_allocs *al, char *err);
/* The same record by record, for a pass that reads the trace anyway. 0, or -1 (memory). */
int ap_allocs_add(struct ap_allocs *al, const struct ap_rec_alloc *r);
void ap_allocs_note(struct ap_allocs *al, uint64_t ts_ns, const char *text);
void ap_allocs_free(struct ap_allocs *al);

const char *ap_alloc_fn_name(uint32_t fn);

enum ap_arid_rule {
	AP_ARID_NONE = 0,	/* no block identified */
	AP_ARID_PLAN_SIZE,	/* rule 1: the block of the plan's size */
	AP_ARID_RUNTIME,	/* rule 2: the runtime's own (smaller) arena block */
	AP_ARID_GIVEN,		/* record --arena ADDR: the base given, the plan's bytes */
};

/* The arena after a re-plan. */
struct ap_arena_move {
	int32_t block;			/* the new block */
	uint64_t base;
	uint64_t bytes;			/* usable: the block less the alignment slack */
	int32_t run;			/* the run in which it was allocated */
	uint64_t ts_ns;
	bool free_seen;			/* the block it replaced was seen freed */
};

#define AP_MAX_MOVES 16

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
 * The two steps for a trace: reads its allocation records (ap_allocs_read) and
 * applies the rules for a plan of arena_bytes; a trace recorded with --arena ADDR gives
 * AP_ARID_GIVEN, the base ADDR and the plan's bytes (no block). 1 when a block was found
 * or given (rule: len bytes for the analysis' arena_rule), 0 when none, -1 with err.
 */
int ap_arid_from_trace(const char *trace, uint64_t arena_bytes, struct ap_arid *id,
		       char *rule, size_t len, char *err);

/* The arena block's call for a report line ("aligned_alloc(64, 1655872)"). */
const char *ap_block_call(const struct ap_block *b, char *buf, size_t len);

/*
 * Names an address of the target with the trace's mappings and the ELF file's symbols:
 * "tflite::ResizableAlignedBuffer::Resize (libpywrap_litert_common.so)", or
 * "libfoo.so+0x1234" without a symbol, or "0x7f.." outside every file mapping.
 */
const char *ap_addr_name(const struct ap_analysis *a, uint64_t addr, char *buf, size_t len);

#endif
