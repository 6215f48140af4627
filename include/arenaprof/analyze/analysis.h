/* SPDX-License-Identifier: Apache-2.0 */
/*
 * analysis: one streaming pass over a trace into the figures `report` prints: per mapping
 * faults and first-touch pages (by run and by operator marker), the arena and the rule
 * that identified it, runs, drops and the sample series. Memory is bounded by the number
 * of distinct pages touched, not by the number of faults.
 */
#ifndef ARENAPROF_ANALYSIS_H
#define ARENAPROF_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/analyze/arena.h"
#include "arenaprof/analyze/aspace.h"
#include "arenaprof/analyze/dmabuf_seen.h"
#include "arenaprof/analyze/newest.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/trace/trace.h"

struct ap_allocs;

/* An object runs were begun on (AP_REC_RUN_OBJ): an interpreter, a compiled model. */
struct ap_run_obj {
	uint64_t obj;			/* the run probe's first argument */
	uint64_t runs;			/* runs begun on it */
	int32_t first_run;
};

#define AP_MAX_RUN_OBJS 64

struct ap_analysis {
	struct ap_rec_header hdr;
	char *strings[AP_HS_COUNT];	/* the header's, enum ap_hdr_str */
	uint64_t faults;
	uint64_t runs_begun, runs_completed;
	uint64_t op_events;
	uint64_t t_first, t_last;	/* ns, monotonic */
	struct ap_rec_drops drops;
	struct ap_rec_end end;
	bool saw_end, truncated;
	/* with ap_analysis_opts.salvage (kept in salvage, for a consumer's second pass over
	 * the trace): bytes skipped, records they held (an estimate) */
	bool salvage;
	uint64_t salvaged_bytes, salvaged_records;
	/* the mappings, their pages and first touches (aspace.h), by_index counted */
	struct ap_aspace as;
	/* the arena, found once at the end of the pass (arena.h; id.map: its mapping) */
	struct ap_arena_id id;
	/* the blocks that replaced the arena (re-plans) have this role */
#define AP_ROLE_MOVED_ARENA "moved-arena"
#define AP_ROLE_XNN_WORKSPACE "xnn-ws"	/* XNNPACK's workspace block */
	/*
	 * Read in the same pass: the allocation probe's records (record --arena auto,
	 * allocs.h; never NULL after ap_analysis_run) and the completed runs' durations from
	 * the run probe's markers (run_ns[i]: RUN_BEGIN to RUN_END of run i, 0 when it did
	 * not complete).
	 */
	struct ap_allocs *allocs;
	uint64_t *run_ns;
	uint64_t *run_begin;		/* by run index: its RUN_BEGIN time, 0 none */
	uint32_t n_run_ns;		/* entries of run_ns, run_begin and run_obj_of */
	/*
	 * The objects the runs were begun on, in order of their first run, and each run's
	 * (run_obj_of[i]: an index into run_objs, -1 unknown). More distinct objects than
	 * AP_MAX_RUN_OBJS (run_objs_over): the probe's first argument names no interpreter
	 * (a --run-probe function of another signature); the runs are not told apart.
	 */
	struct ap_run_obj run_objs[AP_MAX_RUN_OBJS];
	uint32_t n_run_objs;
	bool run_objs_over;
	int16_t *run_obj_of;
	struct ap_rec_sample *samples;
	uint32_t n_samples, cap_samples;
	char **notes;
	uint32_t n_notes, cap_notes;
	bool *note_setup;		/* per note: the recorder's set-up line (AP_NOTE_SETUP) */
	uint32_t cap_note_setup;
	/* the accelerator half: the target's dma-bufs (samples 0 when it held none) */
	struct ap_dmabuf_seen dmabuf;
	/* internal */
	void *priv;
};


struct ap_analysis_opts {
	const struct ap_tplan *plan;	/* NULL: no plan */
	const char *model_path;		/* to name the weights mapping, or NULL */
	uint64_t arena_addr;		/* --arena ADDR: planned offset 0; 0 = identify */
	/*
	 * Called for every fault record once the pass has counted it (mi: its mapping, -1
	 * none): a consumer that needs every fault (heatmap --faults all) takes them here
	 * instead of reading the trace again. NULL: none.
	 */
	void (*on_fault)(void *ctx, const struct ap_analysis *a, const struct ap_rec_fault *f,
			 int32_t mi);
	void *ctx;
	bool salvage;	/* skip records that fail their check (trace.h, salvage) */
};

/*
 * Reads the whole trace. 0, or -EINVAL (not a trace, corrupt), -ENOMEM or the system's
 * error opening it, with err; a cut file is not an error: a->truncated says so. Call
 * ap_analysis_free afterwards in either case.
 */
int ap_analysis_run(const char *path, const struct ap_analysis_opts *o,
		    struct ap_analysis *a, char *err);
void ap_analysis_free(struct ap_analysis *a);

/* Whether first touch t came inside its run: between the run's begin and its end (when
 * seen). A touch before run 0 or between two runs (an input set, a copy) is not. */
bool ap_analysis_in_run(const struct ap_analysis *a, const struct ap_touch *t);

/* The largest value of a sample field (offsetof(struct ap_rec_sample, f)), 0 without one. */
uint64_t ap_analysis_sample_max(const struct ap_analysis *a, size_t field);
#define AP_SAMPLE_MAX(a, f) ap_analysis_sample_max((a), offsetof(struct ap_rec_sample, f))

/*
 * After the pass: keeps the pages of [base, base + bytes) apart as the arena's block is
 * (a mapping of its own, role `role`, static), taking their first touches from the
 * mappings that held them; ap_analysis_map_of then counts its faults there too. block: the
 * allocs' block. The mapping's index, or -ENOMEM, -ENOSPC (too many kept apart),
 * AP_AS_EMPTY (no page).
 */
int32_t ap_analysis_keep_block(struct ap_analysis *a, uint64_t base, uint64_t bytes,
			       int32_t block, const char *role);

/*
 * The mapping a fault record was counted in by the pass (the same rule: its vma bounds,
 * or the newest mapping holding its address when the vma is unknown); -1 for none.
 * Valid until ap_analysis_free.
 */
int32_t ap_analysis_map_of(const struct ap_analysis *a, const struct ap_rec_fault *f);

#endif
