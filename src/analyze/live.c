// SPDX-License-Identifier: Apache-2.0
/*
 * live: the TUI's model of a session (live.h), the session's driver of the address-space
 * model (aspace.h) that report's analysis keeps too. The arena is picked with
 * arena.h's rule at every sample; when it changes, its page states and the operators'
 * figures are rebuilt from the first-touch list, then kept up to date touch by touch.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/analyze/arena.h"
#include "arenaprof/util/err.h"
#include "arenaprof/analyze/live.h"
#include "arenaprof/analyze/live_models.h"
#include "arenaprof/analyze/pageset.h"
#include "arenaprof/kernel/cgroup_session.h"
#include "arenaprof/record/probe.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/path.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"

#define MAX_ARENA_PAGES (16ULL << 20)	/* page states kept for arenas up to 64 GiB */

enum { PAGE_UNTOUCHED, PAGE_AT_ATTACH, PAGE_FIRST_TOUCH };

/* A mapping made from a fault's vma bounds, and the snapshots that did not name it yet. */
struct unnamed {
	uint32_t map;
	uint32_t snapshots;
};

#define UNNAMED_SNAPSHOTS 2	/* tries: one in flight when the fault came, and the next */

struct priv {
	int32_t *owner;			/* plan: the owner of each planned arena page */
	uint64_t owner_pages;
	uint8_t *state;			/* the arena's pages: PAGE_* */
	uint64_t prev_ts, prev_minor, prev_major, prev_runs, prev_ft;
	struct ap_arena_cand *cand;	/* what the mapping rule sees, and of which mapping */
	uint32_t *cand_map;
	uint32_t cap_cand;
	uint32_t *changed;		/* mappings changed since the last sample */
	uint32_t n_changed, cap_changed;
	bool rescan;			/* the rule looks at every mapping at the next sample */
	struct unnamed *unnamed;	/* fault-made mappings a snapshot may name */
	uint32_t n_unnamed, cap_unnamed;
	uint64_t run_t0;		/* the open run's entry, 0 none */
	bool plans;			/* the arena is a mapping of the plan's size: only
					 * then are its pages the operators' (a larger,
					 * merged mapping's offsets are not the plan's) */
	uint32_t run_tid;
};

/* ---- mappings ---- */

/* A mapping was made (aspace.h): what the live model keeps of it, unnamed. */
static int map_new(void *ctx, uint32_t mi)
{
	struct ap_live *l = ctx;
	struct priv *pv = l->priv;

	if (ap_grow32(&l->mx, &l->cap_mx, mi, sizeof(*l->mx), 32) ||
	    ap_grow32(&pv->unnamed, &pv->cap_unnamed, pv->n_unnamed, sizeof(*pv->unnamed), 64))
		return -ENOMEM;
	l->mx[mi] = (struct ap_live_mapx){ 0 };
	pv->unnamed[pv->n_unnamed++] = (struct unnamed){ .map = mi };
	return ap_live_obj_join(l, mi);
}

/* Mapping mi changed what the mapping rule sees of it (pages, name, kind). */
static void mark_changed(struct ap_live *l, int32_t mi)
{
	struct priv *pv = l->priv;

	if (l->mx[mi].changed)
		return;
	if (ap_grow32(&pv->changed, &pv->cap_changed, pv->n_changed, sizeof(*pv->changed),
		      64)) {
		pv->rescan = true;	/* no room to list it: look at them all */
		return;
	}
	l->mx[mi].changed = true;
	pv->changed[pv->n_changed++] = (uint32_t)mi;
}

/* Mapping mi takes the name path, and moves to that name's object. -1: out of memory. */
static int map_rename(struct ap_live *l, int32_t mi, const char *path)
{
	ap_live_obj_leave(l, (uint32_t)mi);
	if (ap_as_rename(&l->as, mi, path))
		return -ENOMEM;
	mark_changed(l, mi);
	return ap_live_obj_join(l, (uint32_t)mi);
}

/* ---- the arena ---- */

static struct ap_live_op *op_of(struct ap_live *l, int32_t op)
{
	return op >= 0 && (uint32_t)op < l->n_ops ? &l->ops[op] : NULL;
}

static int32_t owner_of(const struct ap_live *l, uint64_t page)
{
	const struct priv *pv = l->priv;

	return page < pv->owner_pages ? pv->owner[page] : AP_OWNER_NONE;
}

/* A page of the arena becomes held: at attach, or by a first touch under marker op. */
static void arena_page(struct ap_live *l, uint64_t page, int state, int32_t marker)
{
	struct priv *pv = l->priv;
	struct ap_live_op *o = pv->plans ? op_of(l, owner_of(l, page)) : NULL;
	struct ap_live_op *mo = pv->plans ? op_of(l, marker) : NULL;

	if (state == PAGE_FIRST_TOUCH) {
		l->arena_ft++;
		if (o)
			o->ft_plan++;
		if (mo)
			mo->ft_marker++;
	}
	if (pv->state && page < l->arena_pages) {
		if (pv->state[page] != PAGE_UNTOUCHED)
			return;
		pv->state[page] = (uint8_t)state;
		ap_live_bar_held(l, page, owner_of(l, page));
	}
	l->arena_held++;
	if (o)
		o->resident_pages++;
}

/* The arena changed: rebuild its page states and the operators' figures. */
static void arena_rebuild(struct ap_live *l, int32_t arena)
{
	struct priv *pv = l->priv;
	const struct ap_aspace *as = &l->as;
	const struct ap_amap *m;

	free(pv->state);
	pv->state = NULL;
	ap_live_bar_reset(l);
	l->id.map = arena;
	l->arena_pages = l->arena_held = l->arena_ft = 0;
	for (uint32_t i = 0; i < l->n_ops; i++)
		l->ops[i].ft_plan = l->ops[i].ft_marker = l->ops[i].resident_pages = 0;
	if (arena < 0)
		return;
	m = &as->maps[arena];
	l->arena_pages = (m->end - m->start) >> as->page_shift;
	if (l->arena_pages <= MAX_ARENA_PAGES)
		pv->state = calloc(l->arena_pages ? l->arena_pages : 1, 1);
	for (uint64_t i = 0; i < as->n_touches; i++)
		if (as->touches[i].map == (uint32_t)arena)
			arena_page(l, as->touches[i].page, PAGE_FIRST_TOUCH, as->touches[i].op);
	if (!pv->state) {	/* too large for page states: counts only */
		l->arena_held = m->first_touch_pages + m->resident_at_attach;
		return;
	}
	/* what is held and was not first touched was resident at attach */
	for (size_t i = 0; m->resident_at_attach && i < as->held.cap; i++) {
		uint64_t key = as->held.slot[i] - 1, page = key & ((1ULL << AP_AS_MAP_BITS) - 1);

		if (as->held.slot[i] && key >> AP_AS_MAP_BITS == (uint64_t)arena &&
		    page < l->arena_pages && pv->state[page] == PAGE_UNTOUCHED)
			arena_page(l, page, PAGE_AT_ATTACH, -1);
	}
	/* and what a RESIDENT bitmap holds (on_resident keeps it as one) */
	if (m->resident_at_attach) {
		uint64_t nbits, n;
		const uint64_t *w = ap_pageset_run(&as->held, (uint64_t)arena, &nbits);

		n = nbits < l->arena_pages ? nbits : l->arena_pages;
		for (uint64_t i = 0; w && i < (n + 63) / 64; i++) {
			for (uint64_t v = w[i]; v; v &= v - 1) {
				uint64_t page = i * 64 + (uint64_t)__builtin_ctzll(v);

				if (page < n && pv->state[page] == PAGE_UNTOUCHED)
					arena_page(l, page, PAGE_AT_ATTACH, -1);
			}
		}
	}
}

static int cmp_u32(const void *a, const void *b)
{
	return AP_CMP(*(const uint32_t *)a, *(const uint32_t *)b);
}

/*
 * The mappings the rule must look at: every one after a rescan, else the arena it chose
 * and those changed since. That is enough: a mapping changes only by gaining pages or an
 * earlier first run, which can only make it the better choice, unless it stops being a
 * candidate (a name, a kind); when the chosen one does, the rule looks at them all. By
 * index, as the rule breaks ties. The count, 0 when out of memory (a rescan then).
 */
static uint32_t rule_input(struct ap_live *l, bool *full)
{
	struct priv *pv = l->priv;
	int32_t old = l->id.map;
	uint32_t n = 0, want;

	*full = pv->rescan;
	if (!*full && old >= 0 && l->mx[old].changed) {
		struct ap_arena_cand c = ap_arena_cand_of(&l->as.maps[old]);

		*full = !ap_arena_candidate(&c);
	}
	want = *full ? l->as.n_maps : pv->n_changed + 1;
	if (pv->cap_cand < want) {
		struct ap_arena_cand *c = realloc(pv->cand, want * sizeof(*c));
		uint32_t *cm = c ? realloc(pv->cand_map, want * sizeof(*cm)) : NULL;

		if (c)
			pv->cand = c;
		if (!cm)
			return 0;
		pv->cand_map = cm;
		pv->cap_cand = want;
	}
	if (*full) {
		for (uint32_t i = 0; i < l->as.n_maps; i++)
			pv->cand_map[n++] = i;
	} else {
		for (uint32_t i = 0; i < pv->n_changed; i++)
			if (pv->changed[i] != (uint32_t)old)
				pv->cand_map[n++] = pv->changed[i];
		if (old >= 0)
			pv->cand_map[n++] = (uint32_t)old;
		ap_qsort(pv->cand_map, n, sizeof(*pv->cand_map), cmp_u32);
	}
	for (uint32_t i = 0; i < n; i++)
		pv->cand[i] = ap_arena_cand_of(&l->as.maps[pv->cand_map[i]]);
	return n;
}

/* The mapping rule, at a sample: the arena, rebuilt when it is another mapping. */
static void arena_check(struct ap_live *l)
{
	struct priv *pv = l->priv;
	char rule[160];
	bool by_size, full;
	uint32_t n = rule_input(l, &full);
	int32_t a;

	if (!n && (full ? l->as.n_maps : pv->n_changed + (l->id.map >= 0))) {
		pv->rescan = true;	/* out of memory: the arena stays as it was */
		return;
	}
	a = ap_arena_pick(pv->cand, n, l->plan, l->page_size, rule, sizeof(rule), &by_size);
	if (a >= 0)
		a = (int32_t)pv->cand_map[a];
	for (uint32_t i = 0; i < pv->n_changed; i++)
		l->mx[pv->changed[i]].changed = false;
	pv->n_changed = 0;
	pv->rescan = false;
	if (a != l->id.map || by_size != pv->plans) {
		pv->plans = by_size;
		arena_rebuild(l, a);
	}
	ap_arena_id_mapping(&l->id, a, by_size, a >= 0 ? l->as.maps[a].start : 0,
			    a >= 0 ? l->as.maps[a].end : 0, l->plan, rule);
}

/* ---- the sink ---- */

static int on_fault(struct ap_live *l, const struct ap_event *ev)
{
	struct ap_as_fault f = {
		.addr = ev->addr, .vm_start = ev->vm_start, .vm_end = ev->vm_end,
		.ts_ns = ev->ts_ns, .flags = ev->flags, .tid = ev->tid, .run = ev->run,
		.op = ev->op,
	};
	int32_t mi;
	int bits;

	l->faults++;
	if (ev->flags & AP_FF_MAJMIN_KNOWN)
		l->majmin_known = true;
	if (ev->flags & AP_FF_MAJOR)
		l->major++;
	bits = ap_as_fault(&l->as, &f, -1, &mi);
	if (bits < 0)
		return -ENOMEM;
	if (bits & AP_AS_KIND)
		mark_changed(l, mi);
	if (!(bits & AP_AS_COUNTED))
		return 0;
	/* a fault, and with a first touch a page held, for the mapping's object */
	ap_live_obj_add(l, (uint32_t)mi, !!(bits & AP_AS_FIRST), 1);
	if (!(bits & AP_AS_FIRST))
		return 0;
	mark_changed(l, mi);
	ap_live_models_first_touch(l, ev->addr);
	if (mi == l->id.map)
		arena_page(l, l->as.touches[l->as.n_touches - 1].page, PAGE_FIRST_TOUCH, ev->op);
	return 0;
}

static int on_event(void *ctx, const struct ap_event *ev)
{
	struct ap_live *l = ctx;
	struct priv *pv = l->priv;

	if (ev->type != AP_EV_FAULT)
		ap_live_models_event(l, ev);
	switch (ev->type) {
	case AP_EV_FAULT:
		return on_fault(l, ev);
	case AP_EV_RUN_BEGIN:
		l->run_markers = true;
		l->runs_begun++;
		pv->run_t0 = ev->ts_ns;
		pv->run_tid = ev->tid;
		break;
	case AP_EV_RUN_END:
		l->runs_completed++;
		/* the allocation probe's rule: malloc and free are left at the first run's end */
		l->alloc_unwatched |= l->session->o.arena_mode == AP_ARENA_AUTO;
		/* a run is timed entry to return on one thread, as benchmark_model times it */
		if (pv->run_t0 && pv->run_tid == ev->tid && ev->ts_ns >= pv->run_t0) {
			l->lat.ns[l->lat.n++ % AP_LIVE_LAT] = ev->ts_ns - pv->run_t0;
			l->lat.sum_ns += ev->ts_ns - pv->run_t0;
			pv->run_t0 = 0;
		}
		break;
	case AP_EV_OP_BEGIN:
		l->op_markers = true;
		break;
	case AP_EV_ALLOC:
		return ap_live_alloc_event(l, ev);
	}
	return 0;
}

/* anonymous as report's analysis says it from a snapshot: no inode, no file name */
static bool snapshot_anon(const struct ap_map *m)
{
	return !m->inode && (!m->path[0] || m->path[0] == '[');
}

/*
 * A vma seen only through faults takes the name of the snapshot's mapping that holds it,
 * tried at the next UNNAMED_SNAPSHOTS snapshots only: a vma no snapshot holds by then was
 * unmapped, and trying every one at every snapshot grew with the session's history.
 */
static int name_unnamed(struct ap_live *l, const struct ap_maps *maps)
{
	struct priv *pv = l->priv;
	uint32_t k = 0;

	for (uint32_t i = 0; i < pv->n_unnamed; i++) {
		struct unnamed u = pv->unnamed[i];
		struct ap_amap *m = &l->as.maps[u.map];
		const struct ap_map *s = m->named ? NULL : ap_maps_find(maps, m->start);

		if (m->named)
			continue;
		if (s && snapshot_anon(s) == m->anon && s->path[0]) {
			if (map_rename(l, (int32_t)u.map, s->path))
				return -ENOMEM;
			continue;
		}
		if (++u.snapshots < UNNAMED_SNAPSHOTS)
			pv->unnamed[k++] = u;
	}
	pv->n_unnamed = k;
	return 0;
}

static int on_mappings(void *ctx, const struct ap_maps *maps, uint32_t snapshot, uint64_t ts)
{
	struct ap_live *l = ctx;

	(void)snapshot;
	(void)ts;
	for (size_t i = 0; i < maps->n; i++) {
		const struct ap_map *s = &maps->m[i];
		int32_t mi = ap_as_map_get(&l->as, s->start, s->end);

		if (mi == AP_AS_EMPTY || (mi >= 0 && l->as.maps[mi].named))
			continue;
		if (mi < 0)
			return -ENOMEM;
		ap_live_obj_leave(l, (uint32_t)mi);
		if (ap_as_name(&l->as, mi, s->path, s->offset, s->inode, s->prot))
			return -ENOMEM;
		mark_changed(l, mi);
		if (ap_live_obj_join(l, (uint32_t)mi))
			return -ENOMEM;
	}
	return name_unnamed(l, maps);
}

/*
 * Pages resident at attach. The bitmap is kept as one (a page set run): its cost is the
 * record's size, whatever span the record names; a resident arena's page states are
 * rebuilt from it.
 */
static int on_resident(void *ctx, const struct ap_rec_resident *rr, const uint8_t *bits,
		       size_t bytes)
{
	struct ap_live *l = ctx;
	int32_t mi = ap_as_map_get(&l->as, rr->start, rr->end);
	int64_t added;

	if (mi == AP_AS_EMPTY)
		return 0;
	if (mi < 0)
		return -ENOMEM;
	added = ap_as_resident(&l->as, mi, bits, (uint64_t)bytes * 8);
	if (added < 0)
		return -ENOMEM;
	ap_live_obj_add(l, (uint32_t)mi, (uint64_t)added, 0);
	mark_changed(l, mi);
	if (added && mi == l->id.map)
		arena_rebuild(l, mi);
	return 0;
}

/* The first AP_LIVE_NAMED call sites holding bytes, named from the file mapped where
 * they are and its symbols (once each: an ELF file's symbols are not free). */
static void name_callers(struct ap_live *l)
{
	for (uint32_t i = 0; i < l->n_callers && i < AP_LIVE_NAMED; i++) {
		struct ap_live_caller *c = &l->callers[i];

		/* not named yet while no snapshot names the file: tried at the next sample */
		if (!c->name[0] && c->bytes && ap_as_file_at(&l->as, c->ip) >= 0)
			ap_as_addr_name(&l->as, c->ip, c->name, sizeof(c->name));
	}
}

static void push(struct ap_live_hist *h, double v)
{
	h->v[h->n % AP_LIVE_HIST] = (float)v;
	h->n++;
}

#define PM_MAX(m, field, v) ((v) != AP_NO_VALUE && (v) > (m)->field ? (m)->field = (v) : 0)

/* The maxima report's procmem keeps of a trace's samples; memory.peak only from v2 (a v1
 * peak is its hierarchy's, not the process's). */
static void pm_sample(struct ap_live *l, const struct ap_session_sample *s)
{
	struct ap_procmem *m = &l->pm;
	const struct ap_cg_session *cg = l->session->cg;

	m->n_samples++;
	PM_MAX(m, vmhwm_max, s->rec.vm_hwm);
	PM_MAX(m, rss_anon_max, s->rec.rss_anon);
	PM_MAX(m, rss_shmem_max, s->rec.rss_shmem);
	if (s->smaps_read) {
		PM_MAX(m, pss_anon_max, s->rec.pss_anon);
		PM_MAX(m, pss_shmem_max, s->rec.pss_shmem);
	}
	if (cg && ap_cg_session_mode(cg) == AP_CG_V2 && s->acct.cg_peak != AP_NO_VALUE) {
		m->have_cg_peak = true;
		PM_MAX(m, cg_peak_max, s->acct.cg_peak);
	}
}

static int on_sample(void *ctx, const struct ap_session_sample *s)
{
	struct ap_live *l = ctx;
	struct priv *pv = l->priv;
	double dt = (double)(s->rec.ts_ns - pv->prev_ts) / 1e9;
	uint64_t minor = l->faults - l->major;

	l->last = *s;
	l->have_sample = true;
	l->t_last_ns = s->rec.ts_ns;
	if (s->smaps_read) {
		l->smaps = s->rec;
		l->have_smaps = true;
	}
	pm_sample(l, s);
	if (!l->have_acct0) {
		l->acct0 = s->acct;
		l->have_acct0 = true;
	}
	arena_check(l);
	ap_live_alloc_sample(l);
	name_callers(l);
	ap_live_xnn_sample(l);
	if (l->alloc_unwatched && l->anon_unwatched_base == AP_NO_VALUE) {
		l->anon_unwatched_base = s->rec.rss_anon;
		l->alloc_unwatched_base = l->alloc_bytes;
	}
	if (s->rec.vm_rss != AP_NO_VALUE) {
		l->rss_ts[l->rss.n % AP_LIVE_HIST] = s->rec.ts_ns;
		push(&l->rss, (double)s->rec.vm_rss);
	}
	if (dt > 0.001) {
		push(&l->minor_rate, (double)(minor - pv->prev_minor) / dt);
		push(&l->major_rate, (double)(l->major - pv->prev_major) / dt);
		push(&l->run_rate, (double)(l->runs_completed - pv->prev_runs) / dt);
		push(&l->ft_rate, l->arena_ft >= pv->prev_ft ?
		     (double)(l->arena_ft - pv->prev_ft) / dt : 0);
		pv->prev_ts = s->rec.ts_ns;
		pv->prev_minor = minor;
		pv->prev_major = l->major;
		pv->prev_runs = l->runs_completed;
		pv->prev_ft = l->arena_ft;
	}
	l->generation++;
	return 0;
}

static int on_drops(void *ctx, const struct ap_rec_drops *d)
{
	struct ap_live *l = ctx;

	l->drops = *d;
	return 0;
}

static int on_dmabuf(void *ctx, const struct ap_rec_dmabuf *r,
		     const struct ap_dmabuf_sampler *d)
{
	(void)d;	/* the totals are enough: no buffer is kept */
	ap_live_dmabuf_poll(ctx, r);
	return 0;
}

static int on_dmabuf_ev(void *ctx, const struct ap_rec_dmabuf_ev *e)
{
	ap_live_dmabuf_event(ctx, e);
	return 0;
}

static int on_note(void *ctx, uint32_t level, uint64_t ts, const char *text)
{
	struct ap_live *l = ctx;

	(void)ts;
	snprintf(l->note, sizeof(l->note), "%s", text);
	l->note_level = level;
	l->notes++;
	return 0;
}

/* ---- the API ---- */

int ap_live_init(struct ap_live *l, const struct ap_session *s, const struct ap_tplan *plan,
		 const char *plan_path, char *err)
{
	return ap_live_init_pages(l, s, plan, plan_path, (uint32_t)sysconf(_SC_PAGESIZE), err);
}

int ap_live_init_pages(struct ap_live *l, const struct ap_session *s,
		       const struct ap_tplan *plan, const char *plan_path, uint32_t page_size,
		       char *err)
{
	struct priv *pv;

	memset(l, 0, sizeof(*l));
	pv = calloc(1, sizeof(*pv));
	if (!pv) {
		ap_seterr(err, "out of memory");
		return -ENOMEM;
	}
	l->priv = pv;
	ap_arena_id_mapping(&l->id, -1, false, 0, 0, NULL, "no anonymous mapping faulted");
	l->session = s;
	l->pid = s->pid;
	snprintf(l->cmdline, sizeof(l->cmdline), "%s", s->cmdline);
	l->method = s->probe ? ap_method_name(ap_probe_method(s->probe)) : "none";
	snprintf(l->kernel, sizeof(l->kernel), "%s", s->uts.release);
	l->attached = !s->started;
	l->page_size = page_size;
	ap_as_init(&l->as, l->page_size);
	l->as.map_new = map_new;
	l->as.ctx = l;
	l->t_start_ns = l->t_last_ns = pv->prev_ts = s->t_start_ns;
	l->t_start_real_ns = s->t_start_real_ns;
	l->exit_status = -1;
	l->anon_unwatched_base = AP_NO_VALUE;
	l->plan = plan;
	if (plan) {
		int64_t n;

		l->plan_name = ap_base_name(plan_path ? plan_path : plan->model);
		l->ops = calloc(plan->n_ops + 1, sizeof(*l->ops));
		n = ap_arena_page_owners(plan, l->page_size, &pv->owner);
		if (!l->ops || n < 0 || ap_profile_compute(plan, &l->prof)) {
			ap_seterr(err, "out of memory");
			ap_live_free(l);
			return -ENOMEM;
		}
		l->n_ops = plan->n_ops;
		pv->owner_pages = (uint64_t)n;
		for (uint32_t i = 0; i < l->n_ops && i < l->prof.n_ops; i++)
			l->ops[i].breadth = l->prof.breadth[i];
		for (uint64_t i = 0; i < pv->owner_pages; i++) {
			struct ap_live_op *o = op_of(l, pv->owner[i]);

			if (pv->owner[i] != AP_OWNER_NONE)
				l->arena_owned_pages++;
			if (o)
				o->owned_pages++;
		}
	}
	l->sink = (struct ap_session_sink){
		.ctx = l, .event = on_event, .mappings = on_mappings, .resident = on_resident,
		.sample = on_sample, .drops = on_drops, .note = on_note, .dmabuf = on_dmabuf,
		.dmabuf_ev = on_dmabuf_ev,
	};
	return 0;
}

void ap_live_set_end(struct ap_live *l, const struct ap_session *s)
{
	l->ended = true;
	l->end_reason = s->end_reason;
	l->exit_status = s->exit_status;
	l->term_signal = s->term_signal;
	l->generation++;
}

bool ap_live_unprivileged(const struct ap_live *l)
{
	return l->session && l->session->o.procfs_only;
}

void ap_live_budget(const struct ap_live *l, uint64_t budget, struct ap_procmem *pm,
		    struct ap_budget_process *v)
{
	*pm = l->pm;
	ap_procmem_settle(pm);
	ap_budget_judge_process(budget, pm->peak, pm->nonreclaimable, v);
	if ((l->session->run_probe || l->run_markers) && !l->runs_completed)
		ap_budget_no_run(v);
}

uint64_t ap_live_anon_unwatched(const struct ap_live *l)
{
	uint64_t now = l->last.rec.rss_anon, base = l->anon_unwatched_base, seen;

	if (base == AP_NO_VALUE || now == AP_NO_VALUE)
		return AP_NO_VALUE;
	seen = l->alloc_bytes > l->alloc_unwatched_base ? l->alloc_bytes -
	       l->alloc_unwatched_base : 0;
	return now > base + seen ? now - base - seen : 0;
}

double ap_live_rate(const struct ap_live_hist *h)
{
	return h->n ? h->v[(h->n - 1) % AP_LIVE_HIST] : 0;
}

bool ap_live_window(const struct ap_live_hist *h, const uint64_t *ts, int cells, float *v,
		    int *n, float *min, float *max, uint64_t *span_ns)
{
	uint64_t have = h->n < AP_LIVE_HIST ? h->n : AP_LIVE_HIST, k = 1, first, last;

	*n = 0;
	if (!have || cells <= 0)
		return false;
	/* k samples a cell, so that the samples kept fill at most the cells */
	while ((have + k - 1) / k + 1 > (uint64_t)cells && k < AP_LIVE_HIST)
		k *= 2;
	last = (h->n - 1) / k;
	first = (h->n - have + k - 1) / k;	/* the first cell whose samples are all kept */
	if (first > last)
		first = last;
	if (last - first + 1 > (uint64_t)cells)
		first = last - (uint64_t)cells + 1;
	*min = *max = h->v[(h->n - 1) % AP_LIVE_HIST];
	for (uint64_t c = first; c <= last; c++) {
		float m = 0;

		for (uint64_t j = c * k; j < (c + 1) * k && j < h->n; j++) {
			float x = h->v[j % AP_LIVE_HIST];

			if (j < h->n - have)
				continue;
			m = x > m ? x : m;
			*min = x < *min ? x : *min;
			*max = x > *max ? x : *max;
		}
		v[(*n)++] = m;
	}
	{
		uint64_t j0 = first * k < h->n - have ? h->n - have : first * k;

		*span_ns = ts[(h->n - 1) % AP_LIVE_HIST] - ts[j0 % AP_LIVE_HIST];
	}
	return true;
}

static uint64_t sort_key(const struct ap_live *l, uint32_t i, enum ap_live_sort by)
{
	const struct ap_live_op *o = &l->ops[i];

	switch (by) {
	case AP_SORT_BREADTH:
		return o->breadth;
	case AP_SORT_FIRST_TOUCH:
		return l->op_markers ? o->ft_marker : o->ft_plan;
	case AP_SORT_RESIDENT:
		return o->resident_pages;
	default:
		return i;
	}
}

struct sort_ctx {
	const struct ap_live *l;
	enum ap_live_sort by;
	bool reverse;
};

static int cmp_op(const void *a, const void *b, void *arg)
{
	const struct sort_ctx *c = arg;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	uint64_t kx = sort_key(c->l, x, c->by), ky = sort_key(c->l, y, c->by);
	/* figures largest first, the index smallest first; reverse flips both */
	int r = c->by == AP_SORT_INDEX ? AP_CMP(kx, ky) : AP_CMP(ky, kx);

	if (!r)
		r = AP_CMP(x, y);
	return c->reverse ? -r : r;
}

void ap_live_op_order(const struct ap_live *l, enum ap_live_sort by, bool reverse,
		      uint32_t *order)
{
	struct sort_ctx c = { .l = l, .by = by, .reverse = reverse };

	for (uint32_t i = 0; i < l->n_ops; i++)
		order[i] = i;
	qsort_r(order, l->n_ops, sizeof(*order), cmp_op, &c);
}

const char *ap_live_sort_name(enum ap_live_sort by)
{
	static const char *const names[] = {
		[AP_SORT_INDEX] = "index", [AP_SORT_BREADTH] = "breadth",
		[AP_SORT_FIRST_TOUCH] = "first-touch", [AP_SORT_RESIDENT] = "resident",
	};

	return by < AP_SORT_COUNT ? names[by] : "?";
}

uint32_t ap_live_bar(const struct ap_live *l, struct ap_live_cell *cells, uint32_t n)
{
	const struct priv *pv = l->priv;
	struct ap_live_pages pg = { .state = pv->state, .pages = l->arena_pages,
				    .owner = pv->owner, .n_owner = pv->owner_pages };

	if (l->id.map < 0 || !pv->state)
		return 0;
	/* the counts are a cache of the model's pages: kept in it, so not const */
	return ap_live_bar_cells((struct ap_live *)l, cells, n, &pg);
}

const char *ap_live_opname(const struct ap_live *l, uint32_t op)
{
	if (!l->plan || op >= l->plan->n_ops || !l->plan->ops)
		return "";
	return l->plan->ops[op].opname ? l->plan->ops[op].opname : "";
}

void ap_live_free(struct ap_live *l)
{
	struct priv *pv = l->priv;

	ap_as_free(&l->as);
	free(l->mx);
	free(l->ops);
	ap_live_alloc_free(l);
	ap_live_xnn_free(l);
	ap_live_obj_free(l);
	ap_live_bar_free(l);
	ap_live_models_free(l);
	ap_profile_free(&l->prof);
	if (pv) {
		free(pv->owner);
		free(pv->state);
		free(pv->cand);
		free(pv->cand_map);
		free(pv->changed);
		free(pv->unnamed);
		free(pv);
	}
	memset(l, 0, sizeof(*l));
}
