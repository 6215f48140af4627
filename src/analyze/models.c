// SPDX-License-Identifier: Apache-2.0
/* models: several models' arenas and runs in one trace (models.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/models.h"
#include "arenaprof/util/path.h"
#include "arenaprof/util/stats.h"

/* A copy of the file holds it whole, with a header at most a page (Python's bytes: 33). */
#define COPY_SLACK 4096

/* The model file's mappings are its weights, as the pass names the first model's. */
static void name_weights(struct ap_analysis *a, const char *path)
{
	const char *base = ap_base_name(path);

	for (uint32_t i = 0; i < a->as.n_maps; i++) {
		struct ap_amap *m = &a->as.maps[i];

		if (!m->anon && !strcmp(ap_base_name(m->path), base))
			m->role = "weights";
	}
}

bool ap_model_arena_locate(struct ap_analysis *a, const char *path, const struct ap_tplan *p,
			   const int32_t *taken, uint32_t n_taken, struct ap_arena_id *id)
{
	const struct ap_block *b;
	struct ap_arid r;
	char when[32];

	memset(id, 0, sizeof(*id));
	id->map = id->block = -1;
	name_weights(a, path);
	ap_arid_find_among(a->allocs, p->arena_bytes, taken, n_taken, &r);
	if (r.rule != AP_ARID_PLAN_SIZE) {
		snprintf(id->why, sizeof(id->why), "%s", r.why);
		return false;
	}
	b = &a->allocs->b[r.block];
	id->map = ap_analysis_keep_block(a, r.base, r.bytes, r.block, AP_ROLE_MODEL_ARENA);
	if (id->map < 0) {
		snprintf(id->why, sizeof(id->why), "the block at 0x%" PRIx64 " could not be kept "
			 "apart (%s)", b->ptr, id->map == -ENOMEM ? "out of memory" :
			 "too many blocks kept apart");
		id->map = -1;
		return false;
	}
	id->rule = AP_AR_ALLOC;
	id->base = r.base;
	id->bytes = r.bytes;
	id->block = r.block;
	id->matches = r.matches;
	if (b->run_alloc < 0)
		snprintf(when, sizeof(when), "before run 0");
	else
		snprintf(when, sizeof(when), "in run %d", b->run_alloc);
	snprintf(id->why, sizeof(id->why), "the allocation of the plan's size: %" PRIu64
		 " bytes at 0x%" PRIx64 ", allocated %s (%u such blocks no other model's)",
		 b->size, b->ptr, when, r.matches);
	return true;
}

/*
 * Whether block b, allocated before the first run, was filled as a copy of a file of
 * `file` bytes is: first touches inside it and none past the pages those bytes span from
 * its start (one more: they may start a little into it). A buffer grown by doubling
 * (libstdc++'s std::string, MediaPipe reading a model) is up to twice the file, its tail
 * never touched. Only the tail is asked, not a count: a page of an address range used
 * before (a freed block the recorder saw as the same mapping) is no first touch again.
 */
static bool filled_like(const struct ap_analysis *a, const struct ap_block *b, uint64_t file)
{
	uint64_t ps = a->hdr.page_size, n = 0, past = 0;

	if (b->run_alloc >= 0)
		return false;
	for (uint64_t i = 0; i < a->as.n_touches; i++) {
		const struct ap_touch *t = &a->as.touches[i];
		uint64_t at = a->as.maps[t->map].start + t->page * ps;

		if (at + ps <= b->ptr || at >= b->ptr + b->size)
			continue;
		n++;
		past += at >= b->ptr + file + ps;
	}
	return n && !past;
}

void ap_model_weights_find(const struct ap_analysis *a, const char *path,
			   struct ap_model_weights *w)
{
	const char *base = ap_base_name(path);
	bool mapped = false;
	struct stat st;

	*w = (struct ap_model_weights){ .held = AP_WH_UNKNOWN, .block = -1 };
	if (!stat(path, &st))
		w->file_bytes = (uint64_t)st.st_size;
	for (uint32_t i = 0; i < a->as.n_maps; i++) {
		const struct ap_amap *m = &a->as.maps[i];

		if (!m->anon && !strcmp(ap_base_name(m->path), base)) {
			mapped = true;
			w->pages += m->first_touch_pages;
		}
	}
	if (mapped) {
		w->held = AP_WH_FILE;
		return;
	}
	/* a block of the file's size, else one grown to hold it */
	for (int grown = 0; grown < 2 && w->held == AP_WH_UNKNOWN; grown++)
		for (uint32_t i = 0; w->file_bytes && i < a->allocs->n; i++) {
			const struct ap_block *b = &a->allocs->b[i];
			uint64_t max = grown ? 2 * w->file_bytes + a->hdr.page_size :
				       w->file_bytes + COPY_SLACK;

			/* held until the runs began, at least: the model the interpreter reads */
			if (ap_alloc_fn_xnn(b->fn) || b->size < w->file_bytes || b->size > max ||
			    (b->t_free && b->run_free < 0) ||
			    (grown && !filled_like(a, b, w->file_bytes)))
				continue;
			w->held = AP_WH_COPY;
			w->block = (int32_t)i;
			w->copy_bytes = b->size;
			w->copy_base = b->ptr;
			w->grown = grown;
			break;
		}
}

const char *ap_weights_held_key(enum ap_weights_held h)
{
	return h == AP_WH_FILE ? "file" : h == AP_WH_COPY ? "copy" : "unknown";
}

/*
 * votes[m * AP_MAX_RUN_OBJS + o]: pages of model m's arena first touched inside a run
 * begun on object o. A page a model's input takes (set before its invoke, after another
 * model's run) falls outside every run and is no vote.
 */
static void count_votes(const struct ap_analysis *a, const struct ap_arena_id *const *ids,
			uint32_t n, uint64_t *votes)
{
	for (uint64_t i = 0; i < a->as.n_touches; i++) {
		const struct ap_touch *t = &a->as.touches[i];
		int16_t o;

		if (!ap_analysis_in_run(a, t) || (o = a->run_obj_of[t->run]) < 0)
			continue;
		for (uint32_t m = 0; m < n; m++)
			if (ids[m]->map >= 0 && (int32_t)t->map == ids[m]->map)
				votes[m * AP_MAX_RUN_OBJS + (uint32_t)o]++;
	}
}

/* Greedy: the (model, object) pair with the most votes first, each used once. */
static void by_votes(const uint64_t *votes, uint32_t n, uint32_t n_obj,
		     struct ap_model_runs *out, bool *used)
{
	for (;;) {
		uint64_t best = 0;
		uint32_t bm = 0, bo = 0;

		for (uint32_t m = 0; m < n; m++)
			for (uint32_t o = 0; out[m].obj < 0 && o < n_obj; o++)
				if (!used[o] && votes[m * AP_MAX_RUN_OBJS + o] > best) {
					best = votes[m * AP_MAX_RUN_OBJS + o];
					bm = m;
					bo = o;
				}
		if (!best)
			return;
		out[bm].obj = (int32_t)bo;
		out[bm].rule = AP_MR_TOUCHES;
		out[bm].votes = best;
		used[bo] = true;
	}
}

/* The models left, in the order their arenas were allocated (t_alloc), take the objects
 * left in the order they first ran: interpreters are made and then run in the same order. */
static void by_order(const uint64_t *t_alloc, uint32_t n, uint32_t n_obj,
		     struct ap_model_runs *out, bool *used)
{
	for (;;) {
		int32_t m = -1, o = -1;

		for (uint32_t k = 0; k < n; k++)
			if (out[k].obj < 0 && t_alloc[k] != AP_MODELS_NO_ARENA &&
			    (m < 0 || t_alloc[k] < t_alloc[m]))
				m = (int32_t)k;
		for (uint32_t k = 0; k < n_obj && o < 0; k++)
			if (!used[k])
				o = (int32_t)k;	/* objects are in order of their first run */
		if (m < 0 || o < 0)
			break;
		out[m].obj = o;
		out[m].rule = AP_MR_ORDER;
		used[o] = true;
	}
}

void ap_models_assign(const uint64_t *votes, const uint64_t *t_alloc, uint32_t n,
		      uint32_t n_obj, struct ap_model_runs *out)
{
	bool used[AP_MAX_RUN_OBJS] = { false };

	for (uint32_t m = 0; m < n; m++)
		out[m] = (struct ap_model_runs){ .rule = AP_MR_ORDER, .obj = -1 };
	by_votes(votes, n, n_obj, out, used);
	if (n > 1)
		by_order(t_alloc, n, n_obj, out, used);
	for (uint32_t k = 0; k < n; k++)
		if (out[k].obj < 0)
			out[k].rule = n > 1 ? AP_MR_NONE : AP_MR_PROCESS;
}

/* Count and latency of the runs begun on obj (-1: every run). */
static void run_figures(const struct ap_analysis *a, int32_t obj, struct ap_model_runs *r)
{
	uint64_t *v = malloc((a->n_run_ns ? a->n_run_ns : 1) * sizeof(*v));
	size_t nv = 0;

	r->runs = r->completed = 0;
	for (uint32_t i = 0; i < a->n_run_ns; i++) {
		if (!a->run_begin[i] || (obj >= 0 && a->run_obj_of[i] != obj))
			continue;
		r->runs++;
		if (!a->run_ns[i])
			continue;
		r->completed++;
		if (!nv)
			r->first_ns = a->run_ns[i];
		if (v)
			v[nv++] = a->run_ns[i];
	}
	if (nv)
		ap_median_p99(v, nv, &r->median_ns, &r->p99_ns);
	free(v);
}

void ap_models_runs(const struct ap_analysis *a, const struct ap_arena_id *const *ids,
		    uint32_t n, struct ap_model_runs *out)
{
	uint64_t votes[AP_MAX_MODELS * AP_MAX_RUN_OBJS] = { 0 };
	uint64_t t_alloc[AP_MAX_MODELS];

	for (uint32_t m = 0; m < n; m++)
		out[m] = (struct ap_model_runs){ .rule = AP_MR_PROCESS, .obj = -1 };
	/* one model among several interpreters: its own runs, when its arena says which;
	 * several: theirs, by first touches, else in order */
	if (n <= AP_MAX_MODELS && a->n_run_objs > (n == 1) && !a->run_objs_over) {
		for (uint32_t m = 0; m < n; m++)
			t_alloc[m] = ids[m]->block < 0 ? AP_MODELS_NO_ARENA :
				     a->allocs->b[ids[m]->block].t_alloc;
		count_votes(a, ids, n, votes);
		ap_models_assign(votes, t_alloc, n, a->n_run_objs, out);
	}
	for (uint32_t m = 0; m < n; m++)
		if (out[m].rule != AP_MR_NONE)
			run_figures(a, out[m].rule == AP_MR_PROCESS ? -1 : out[m].obj, &out[m]);
}

const char *ap_model_runs_rule_key(enum ap_model_runs_rule r)
{
	switch (r) {
	case AP_MR_PROCESS: return "process";
	case AP_MR_TOUCHES: return "first_touches";
	case AP_MR_ORDER: return "order";
	case AP_MR_NONE: return "none";
	}
	return "none";
}
