/* SPDX-License-Identifier: Apache-2.0 */
/*
 * models: several models in one process (report --plan A --plan B). Each model's arena is
 * the allocation probe's block of its plan's size that no other model's arena is, kept
 * apart as the first model's is; each model's runs are those begun on its interpreter:
 * the object the run probe saw each run begun on (trace.h's AP_REC_RUN_OBJ) whose runs
 * first touched that arena's pages, else the order they came in.
 */
#ifndef ARENAPROF_MODELS_H
#define ARENAPROF_MODELS_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/plan/plan.h"

#define AP_MAX_MODELS 8
#define AP_ROLE_MODEL_ARENA "model-arena"	/* a model's arena after the first's */

/* Which runs were one model's, and how that is known. */
enum ap_model_runs_rule {
	AP_MR_PROCESS = 0,	/* runs not told apart: the process's (one model, or the trace
				 * has no run objects) */
	AP_MR_TOUCHES,		/* its object's runs first touched its arena */
	AP_MR_ORDER,		/* the k-th arena allocated, the k-th object run */
	AP_MR_NONE,		/* no object left for it: no run of its own seen */
};

struct ap_model_runs {
	enum ap_model_runs_rule rule;
	int32_t obj;			/* index into the analysis' run_objs, -1 */
	uint64_t votes;			/* AP_MR_TOUCHES: its arena's pages first touched in
					 * those runs */
	uint64_t runs, completed;	/* begun, and with their end seen */
	uint64_t first_ns, median_ns, p99_ns;	/* of the completed runs; 0 none */
};

/*
 * The arena of plan p (of the model at path, whose mappings become its weights) among the
 * blocks not in taken[0..n_taken): id (rule AP_AR_ALLOC, its block kept apart as a
 * mapping of role AP_ROLE_MODEL_ARENA), or false with id->why.
 */
bool ap_model_arena_locate(struct ap_analysis *a, const char *path, const struct ap_tplan *p,
			   const int32_t *taken, uint32_t n_taken, struct ap_arena_id *id);

/*
 * The runs of each of n models whose arenas are ids[0..n) (an id without a mapping: none
 * found), into out[0..n).
 */
void ap_models_runs(const struct ap_analysis *a, const struct ap_arena_id *const *ids,
		    uint32_t n, struct ap_model_runs *out);

/*
 * Which run object each of n models is (out[m].obj and rule), from votes[m *
 * AP_MAX_RUN_OBJS + o] (its arena's pages first touched in object o's runs; the pair with
 * the most first, each used once) and for several models then t_alloc[m] (when its arena
 * was allocated; AP_MODELS_NO_ARENA none): the models left in that order take the objects
 * left (0..n_obj, in the order they first ran). One model without a vote: the process's.
 * The live model's (live_models.c) and a trace's.
 */
#define AP_MODELS_NO_ARENA UINT64_MAX
void ap_models_assign(const uint64_t *votes, const uint64_t *t_alloc, uint32_t n,
		      uint32_t n_obj, struct ap_model_runs *out);

/* How the process held a model's weights, as the trace shows it. */
enum ap_weights_held {
	AP_WH_FILE,		/* a mapping of the model file: file-backed, reclaimable */
	AP_WH_COPY,		/* no mapping of it, and a block of its size held (the model
				 * read into a buffer: model_content=, from_buffer), or one
				 * grown to hold it, written no further than its bytes
				 * (MediaPipe) */
	AP_WH_UNKNOWN,		/* neither: no mapping, no block of its size seen */
};

struct ap_model_weights {
	enum ap_weights_held held;
	uint64_t file_bytes;		/* the model file's size now, 0 unreadable */
	uint64_t pages;			/* AP_WH_FILE: first-touched pages of its mappings */
	int32_t block;			/* AP_WH_COPY: the allocs' block, -1 */
	uint64_t copy_bytes;		/* its size */
	uint64_t copy_base;		/* its address */
	bool grown;			/* larger than the file, found by its filled pages */
};

/* The weights of the model at path (ap_model_arena_locate has named its mappings). */
void ap_model_weights_find(const struct ap_analysis *a, const char *path,
			   struct ap_model_weights *w);
/* "file", "copy", "unknown". */
const char *ap_weights_held_key(enum ap_weights_held h);

/* The rule's key in JSON: "process", "first_touches", "order", "none". */
const char *ap_model_runs_rule_key(enum ap_model_runs_rule r);

#endif
