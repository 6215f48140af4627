// SPDX-License-Identifier: Apache-2.0
/* live_models: several models' arenas and runs in the live model (live_models.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/arena.h"
#include "arenaprof/analyze/live.h"
#include "arenaprof/analyze/live_models.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/path.h"

/* A model's plans: LiteRT's builtin kernels', and the TFLite arena its default path
 * (XNNPACK) leaves; the first arena found says which path the process took. */
enum { PATH_BUILTIN, PATH_XNNPACK, N_PATHS };

struct model {
	const char *name;
	struct ap_tplan plan[N_PATHS];
	bool have[N_PATHS];
	/* its arena, once a block of its plan's size was allocated */
	bool found, freed;
	uint64_t ptr, base, bytes, t_alloc;
	uint64_t page0, n_pages;	/* the pages from the one its base is on */
	int32_t *page_op;		/* per page: the plan's writer, AP_OWNER_NONE */
	uint8_t *seen;			/* per page: first touched */
	uint64_t ft, named;
	uint64_t votes[AP_MAX_RUN_OBJS];	/* first touches in each object's runs */
};

struct ap_live_models {
	uint32_t n;
	int path;			/* N_PATHS: not known yet */
	struct model m[AP_MAX_MODELS];
	/* the run objects, in the order they first ran, and their runs */
	uint64_t obj[AP_MAX_RUN_OBJS], obj_runs[AP_MAX_RUN_OBJS], obj_done[AP_MAX_RUN_OBJS];
	uint32_t n_obj;
	bool over;			/* more objects than that: no interpreter named */
	int32_t cur;			/* the object runs are begun on now, -1 */
	int32_t cur_run, counted_on;	/* the last run begun, and the object it counts for */
	bool in_run;
};

int ap_live_models_init(struct ap_live *l, const char *const *paths, uint32_t n, char *err)
{
	struct ap_live_models *lm;
	char ignored[AP_ERR_LEN];
	int rc;

	if (n > AP_MAX_MODELS)
		return ap_fail(err, -EINVAL, "at most %d models (--plan)", AP_MAX_MODELS);
	lm = calloc(1, sizeof(*lm));
	if (!lm)
		return ap_fail(err, -ENOMEM, "out of memory");
	l->models = lm;
	lm->path = N_PATHS;
	lm->cur = lm->counted_on = lm->cur_run = -1;
	for (uint32_t i = 0; i < n; i++, lm->n++) {
		struct model *m = &lm->m[i];

		m->name = ap_base_name(paths[i]);
		rc = ap_plan_load(paths[i], &m->plan[PATH_BUILTIN], err);
		if (rc)
			return rc;
		m->have[PATH_BUILTIN] = true;
		m->have[PATH_XNNPACK] = !ap_plan_load_for(paths[i], AP_DELEGATE_XNNPACK,
							  AP_RUNTIME_LITERT,
							  &m->plan[PATH_XNNPACK], ignored);
	}
	return 0;
}

uint32_t ap_live_models_n(const struct ap_live *l)
{
	return l->models ? l->models->n : 0;
}

/* ---- arenas ---- */

static void arena_drop(struct model *m)
{
	free(m->page_op);
	free(m->seen);
	m->page_op = NULL;
	m->seen = NULL;
	m->found = m->freed = false;
	m->ft = m->named = 0;
}

static void first_touch(struct ap_live_models *lm, struct model *m, uint64_t addr,
			uint32_t ps, bool vote)
{
	uint64_t pg;

	if (!m->found || m->freed || addr < m->page0 ||
	    (pg = (addr - m->page0) / ps) >= m->n_pages || m->seen[pg])
		return;
	m->seen[pg] = 1;
	m->ft++;
	m->named += m->page_op[pg] != AP_OWNER_NONE;
	if (vote && lm->in_run && lm->cur >= 0)
		m->votes[lm->cur]++;
}

/*
 * Block b is model m's arena, planned by p: its pages' writers, as correlate names them,
 * and the pages first touched in it before it was allocated.
 */
static void arena_take(const struct ap_live *l, struct model *m, const struct ap_tplan *p,
		       const struct ap_block *b, uint64_t ts)
{
	uint32_t ps = l->page_size;

	int32_t *blk = NULL;
	uint64_t delta, gran;
	int64_t n_blk;

	arena_drop(m);
	m->ptr = b->ptr;
	m->base = ap_block_base(b);
	m->bytes = p->arena_bytes;
	m->t_alloc = ts;
	m->page0 = m->base / ps * ps;
	delta = m->base - m->page0;
	m->n_pages = (delta + m->bytes + ps - 1) / ps;
	for (gran = 8; p->arena_bytes / gran > (2u << 20); gran *= 2)
		;	/* correlate's blocks: 8 bytes, coarser for huge arenas */
	n_blk = ap_arena_page_owners(p, gran, &blk);
	m->page_op = malloc((m->n_pages + 1) * sizeof(*m->page_op));
	m->seen = calloc(m->n_pages + 1, 1);
	if (n_blk >= 0 && m->page_op && m->seen) {
		ap_arena_page_table(p, blk, (uint64_t)n_blk, gran, ps, m->n_pages,
				    (int64_t)delta, m->page_op);
		m->found = true;
	}
	free(blk);
	for (uint64_t i = 0; m->found && i < l->as.n_touches; i++) {
		const struct ap_touch *t = &l->as.touches[i];

		first_touch(l->models, m, l->as.maps[t->map].start + t->page * ps, ps, false);
	}
}

static bool taken(const struct ap_live_models *lm, uint64_t ptr)
{
	for (uint32_t i = 0; i < lm->n; i++)
		if (lm->m[i].found && !lm->m[i].freed && lm->m[i].ptr == ptr)
			return true;
	return false;
}

/* A block of a model's plan's size, no other model's: the first such model's arena. */
static void on_alloc(const struct ap_live *l, const struct ap_event *ev)
{
	struct ap_live_models *lm = l->models;
	struct ap_block b = { .ptr = ev->addr, .size = ev->size, .align = ev->align,
			      .fn = (uint32_t)ev->fn };

	if (ev->fn == AP_ALLOC_FREE) {
		for (uint32_t i = 0; i < lm->n; i++)
			if (lm->m[i].found && lm->m[i].ptr == ev->addr)
				lm->m[i].freed = true;	/* its figures stay, as report's */
		return;
	}
	if (!ev->addr || ap_alloc_fn_xnn(b.fn) || taken(lm, b.ptr))
		return;
	for (uint32_t i = 0; i < lm->n; i++) {
		struct model *m = &lm->m[i];

		if (m->found && !m->freed)
			continue;
		for (int k = 0; k < N_PATHS; k++) {
			if (!m->have[k] || (lm->path != N_PATHS && lm->path != k) ||
			    !ap_arid_plan_sized(&b, m->plan[k].arena_bytes))
				continue;
			arena_take(l, m, &m->plan[k], &b, ev->ts_ns);
			lm->path = k;	/* one process, one runtime path */
			return;
		}
	}
}

void ap_live_models_first_touch(struct ap_live *l, uint64_t addr)
{
	struct ap_live_models *lm = l->models;

	for (uint32_t i = 0; lm && i < lm->n; i++)
		first_touch(lm, &lm->m[i], addr, l->page_size, true);
}

/* ---- runs ---- */

/* The index of run object obj (added in the order objects first run), -1 past the cap. */
static int32_t obj_index(struct ap_live_models *lm, uint64_t obj)
{
	uint32_t k;

	for (k = 0; k < lm->n_obj && lm->obj[k] != obj; k++)
		;
	if (k == lm->n_obj) {
		if (k == AP_MAX_RUN_OBJS) {
			lm->over = true;
			return -1;
		}
		lm->obj[lm->n_obj++] = obj;
	}
	return (int32_t)k;
}

/* The last run begun counts for object k (moved there if it counted for another). */
static void count_run(struct ap_live_models *lm, int32_t k)
{
	if (lm->counted_on == k || k < 0)
		return;
	if (lm->counted_on >= 0) {
		lm->obj_runs[lm->counted_on]--;
		if (!lm->in_run)
			lm->obj_done[lm->counted_on]--;
	}
	lm->obj_runs[k]++;
	if (!lm->in_run)
		lm->obj_done[k]++;
	lm->counted_on = k;
}

void ap_live_models_event(struct ap_live *l, const struct ap_event *ev)
{
	struct ap_live_models *lm = l->models;

	if (!lm)
		return;
	switch (ev->type) {
	case AP_EV_ALLOC:
		on_alloc(l, ev);
		break;
	case AP_EV_RUN_BEGIN:
		/* the probe's first argument; none: the object runs were begun on so far */
		if (ev->addr)
			lm->cur = obj_index(lm, ev->addr);
		lm->cur_run = ev->run;
		lm->counted_on = -1;
		lm->in_run = true;
		count_run(lm, lm->cur);
		break;
	case AP_EV_RUN_END:
		lm->in_run = false;
		if (lm->counted_on >= 0)
			lm->obj_done[lm->counted_on]++;
		break;
	}
}

void ap_live_models_run_obj(struct ap_live *l, int32_t run, uint64_t obj)
{
	struct ap_live_models *lm = l->models;

	if (!lm || !obj)
		return;
	lm->cur = obj_index(lm, obj);
	if (run == lm->cur_run)	/* written after its RUN_BEGIN */
		count_run(lm, lm->cur);
}

/* ---- the view ---- */

void ap_live_models_view(const struct ap_live *l, uint32_t i, struct ap_live_model_view *v)
{
	const struct ap_live_models *lm = l->models;
	uint64_t votes[AP_MAX_MODELS * AP_MAX_RUN_OBJS], t_alloc[AP_MAX_MODELS];
	struct ap_model_runs out[AP_MAX_MODELS];
	const struct model *m;

	memset(v, 0, sizeof(*v));
	if (!lm || i >= lm->n)
		return;
	m = &lm->m[i];
	*v = (struct ap_live_model_view){ .name = m->name, .found = m->found, .base = m->base,
					  .bytes = m->bytes, .ft_pages = m->ft,
					  .named_pages = m->named };
	v->runs = (struct ap_model_runs){ .rule = AP_MR_PROCESS, .obj = -1,
					  .runs = l->runs_begun, .completed = l->runs_completed };
	if (lm->over || !lm->n_obj)
		return;	/* runs not told apart: the process's */
	for (uint32_t k = 0; k < lm->n; k++) {
		memcpy(&votes[k * AP_MAX_RUN_OBJS], lm->m[k].votes, sizeof(lm->m[k].votes));
		t_alloc[k] = lm->m[k].found ? lm->m[k].t_alloc : AP_MODELS_NO_ARENA;
	}
	ap_models_assign(votes, t_alloc, lm->n, lm->n_obj, out);
	v->runs = out[i];
	if (out[i].obj >= 0) {
		v->runs.runs = lm->obj_runs[out[i].obj];
		v->runs.completed = lm->obj_done[out[i].obj];
	} else if (out[i].rule == AP_MR_PROCESS) {
		v->runs.runs = l->runs_begun;
		v->runs.completed = l->runs_completed;
	}
}

void ap_live_models_free(struct ap_live *l)
{
	struct ap_live_models *lm = l->models;

	if (!lm)
		return;
	for (uint32_t i = 0; i < lm->n; i++) {
		arena_drop(&lm->m[i]);
		for (int k = 0; k < N_PATHS; k++)
			if (lm->m[i].have[k])
				ap_tplan_free(&lm->m[i].plan[k]);
	}
	free(lm);
	l->models = NULL;
}
