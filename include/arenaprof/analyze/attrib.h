/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attrib: attribution without markers, over the arena as the analysis found it (arena.h:
 * a->id), for `report`:
 *  - the arena's region, [base, base + bytes), and the mapping that holds it;
 *  - every first-touched page of the arena region [base, base + bytes), by address (so an
 *    arena inside [heap] is counted right), attributed by the plan to the earliest
 *    operator that writes a tensor covering it, and counted by run;
 *  - consistency: within run 0 (the first inference), the share of first touches whose
 *    planned operator index does not go back from the previous first touch's, in time
 *    order; and what the others are;
 *  - the arena after a re-plan (a larger block, the old one freed) and its first touches;
 *  - not planned: first-touched anonymous pages outside the arena, per mapping, named by
 *    the allocations that hold them (XNNPACK's workspace and packed weights, the
 *    interpreter's heap...), and per allocating function;
 *  - weights: faults on the model file's mapping (file-backed, reclaimable).
 * Its text and JSON are render/attrib_report.h's.
 */
#ifndef ARENAPROF_ATTRIB_H
#define ARENAPROF_ATTRIB_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/correlate.h"

/* One step back in planned operator order within run 0. */
struct ap_attrib_back {
	uint64_t offset;	/* of the page in the arena (from the base; may be < 0 -> 0) */
	int32_t op, prev_op;	/* planned writers: this touch's, the previous touch's */
	int32_t tensor;		/* the plan tensor naming op, -1 */
	uint32_t flags;		/* of the fault */
	bool prev_ahead;	/* the previous touch was ahead of both its neighbours */
};

#define AP_ATTRIB_MAX_BACK 32

/* First-touched anonymous memory outside the arena: one mapping (heap versions merged). */
struct ap_attrib_map {
	uint64_t start, end;
	const char *path;	/* "", "[heap]", "[stack]"... (the analysis' string) */
	uint64_t ft_pages, faults;
	uint32_t blocks;	/* allocations inside it */
	uint64_t block_bytes;
	uint64_t top_caller;	/* the caller of its largest first-touched block, 0 none */
	uint32_t top_fn;
	uint64_t top_size, top_align;
};

/* First-touched pages outside the arena, by the function that allocated their block. */
struct ap_attrib_caller {
	uint64_t caller;	/* a representative return address */
	char name[200];		/* the caller's symbol (library) */
	uint32_t fn;
	uint32_t blocks;
	uint64_t bytes;		/* requested */
	uint64_t ft_pages;
	uint32_t first_block;	/* the first of its blocks (the allocation index) */
};

#define AP_ATTRIB_MAX_CALLERS 12

struct ap_attrib {
	const struct ap_allocs *al;	/* the analysis' allocation records */
	bool have_plan;
	uint64_t page_size;
	int32_t pers_block;		/* the block of the plan's persistent arena, -1 */
	uint64_t base;			/* address of planned offset 0; 0 none */
	uint64_t bytes;			/* the region: the plan's arena (or the runtime's) */
	uint64_t map_start, map_end;	/* the mapping holding base */
	bool in_larger_mapping;		/* shares it with other memory ([heap]) */
	uint64_t plan_bytes;
	/* first touches of the region */
	uint64_t ft_pages, attributed, unplanned;
	uint64_t ft_before, ft_run0, ft_later;	/* by run: < 0, 0, > 0 */
	uint64_t ft_before_input;	/* of ft_before: pages the plan gives to graph inputs */
	int32_t last_run;		/* latest run with a first touch, -1 */
	/* consistency, run 0 */
	uint64_t cons_total, cons_ok;
	struct ap_attrib_back back[AP_ATTRIB_MAX_BACK];
	uint32_t n_back;
	uint64_t back_reads, back_ahead;	/* of the steps back: read faults; spikes */
	/* re-plans */
	uint64_t moved_ft_pages;	/* first touches in the later arena blocks */
	/* outside the arena */
	struct ap_attrib_map *maps;
	uint32_t n_maps, cap_maps;
	uint64_t np_pages;		/* anonymous first-touch pages outside the arena */
	struct ap_attrib_caller callers[AP_ATTRIB_MAX_CALLERS];
	uint32_t n_callers;
	uint64_t np_unblocked_pages;	/* in no reported allocation */
	/* weights */
	uint32_t w_maps;
	uint64_t w_faults, w_major, w_ft_pages, w_bytes;
	const char *w_path;
	uint32_t w_files;		/* more than one: several models' files (their own
					 * pages in report's models section) */
	/* runs: the run probe's markers (entry to return, the first thread's runs) */
	uint64_t runs_completed;
	uint64_t run_first_ns, run_median_ns, run_p99_ns;	/* 0: no markers */
	uint64_t run0_touches;		/* first touches in run 0, every mapping */
	uint64_t run_median_touches;	/* in the run of median duration */
};

/*
 * After ap_corr_load, whose analysis pass found the arena (a->id) and kept the allocation
 * records and run durations: everything above. 0, or -ENOMEM with err. Free
 * with ap_attrib_free.
 */
int ap_attrib_build(const struct ap_corr_all *x, struct ap_attrib *at, char *err);
void ap_attrib_free(struct ap_attrib *at);
/* Whether the plan attributes the region's first touches (ap_arena_planned, a region). */
bool ap_attrib_by_plan(const struct ap_attrib *at, const struct ap_corr_all *x);

#endif
