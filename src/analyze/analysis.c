// SPDX-License-Identifier: Apache-2.0
/* analysis: the single pass over a trace behind `report` (see analysis.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/analysis.h"
#include "arenaprof/analyze/arena.h"
#include "arenaprof/util/err.h"
#include "arenaprof/analyze/newest.h"
#include "arenaprof/analyze/overlap.h"
#include "arenaprof/event.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/path.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/trace/walk.h"

#define MAX_REGIONS 64	/* candidate arena blocks kept apart (a runtime makes a few) */

struct priv {
	/*
	 * Blocks the allocation probe saw that may be the arena or its re-plans
	 * (allocs.h's rules): each a mapping of the pages it spans, opened when its record
	 * comes, so that the faults on it are its own even inside [heap].
	 */
	struct region {
		uint64_t start, end;
		int32_t map;
		int32_t block;		/* in the allocs; -1: record --arena ADDR's */
	} reg[MAX_REGIONS];
	uint32_t n_reg;
	uint64_t regions_missed;	/* blocks past MAX_REGIONS, not kept apart */
	uint64_t run_markers;	/* RUN_BEGIN and RUN_END records read */
	int32_t cur_obj;	/* the last RUN_OBJ's object (run_objs index), -1 */
	const struct ap_analysis_opts *o;	/* the pass's */
};

/* A run marker: its begin time, or its duration once it ends (a->run_ns). */
static int on_run(struct ap_analysis *a, uint32_t type, struct ap_rec_marker m)
{
	struct priv *pv = a->priv;

	/*
	 * An honest run marker's index is the count of the run markers before it (a few
	 * more if the ring dropped some): anything beyond twice the markers read, plus a
	 * margin, is not a run of this trace and must not size an array.
	 */
	pv->run_markers++;
	if (m.run < 0 || (uint64_t)m.run > 2 * pv->run_markers + 1024)
		return 0;
	if ((uint32_t)m.run >= a->n_run_ns) {
		uint32_t n = a->n_run_ns ? a->n_run_ns : 1024;
		uint64_t *r, *b;
		int16_t *o;

		while (n <= (uint32_t)m.run)
			n *= 2;
		r = realloc(a->run_ns, n * sizeof(*r));
		if (r)
			a->run_ns = r;
		b = realloc(a->run_begin, n * sizeof(*b));
		if (b)
			a->run_begin = b;
		o = realloc(a->run_obj_of, n * sizeof(*o));
		if (o)
			a->run_obj_of = o;
		if (!r || !b || !o)
			return -ENOMEM;
		memset(r + a->n_run_ns, 0, (n - a->n_run_ns) * sizeof(*r));
		memset(b + a->n_run_ns, 0, (n - a->n_run_ns) * sizeof(*b));
		memset(o + a->n_run_ns, 0xff, (n - a->n_run_ns) * sizeof(*o));	/* -1 */
		a->n_run_ns = n;
	}
	if (type == AP_REC_RUN_BEGIN) {
		a->run_begin[m.run] = m.ts_ns;
		/* the object of the last RUN_OBJ, until one says another */
		if (pv->cur_obj >= 0 && a->run_obj_of[m.run] < 0) {
			a->run_obj_of[m.run] = (int16_t)pv->cur_obj;
			a->run_objs[pv->cur_obj].runs++;
		}
	}
	else if (a->run_begin[m.run] && m.ts_ns >= a->run_begin[m.run])
		a->run_ns[m.run] = m.ts_ns - a->run_begin[m.run];
	return 0;
}

/* The object of a run begun (after its RUN_BEGIN, which sized the run tables). */
static int on_run_obj(void *ctx, const struct ap_rec_run_obj *o)
{
	struct ap_analysis *a = ctx;
	uint32_t k;

	if (o->run < 0 || (uint32_t)o->run >= a->n_run_ns || !a->run_begin[o->run])
		return 0;	/* no RUN_BEGIN of that index: not a run of this trace */
	for (k = 0; k < a->n_run_objs && a->run_objs[k].obj != o->obj; k++)
		;
	if (k == a->n_run_objs) {
		if (k == AP_MAX_RUN_OBJS) {
			a->run_objs_over = true;
			return 0;
		}
		a->run_objs[a->n_run_objs++] = (struct ap_run_obj){ .obj = o->obj,
								    .first_run = o->run };
	}
	if (a->run_obj_of[o->run] >= 0)	/* its RUN_BEGIN took the previous object */
		a->run_objs[a->run_obj_of[o->run]].runs--;
	a->run_objs[k].runs++;
	a->run_obj_of[o->run] = (int16_t)k;
	((struct priv *)a->priv)->cur_obj = (int32_t)k;
	return 0;
}

/* The newest candidate region holding addr, or -1 (the newest: an address reused). */
static int32_t region_of(const struct priv *pv, uint64_t addr)
{
	for (uint32_t i = pv ? pv->n_reg : 0; i-- > 0;)
		if (pv->reg[i].map >= 0 && addr >= pv->reg[i].start && addr < pv->reg[i].end)
			return pv->reg[i].map;
	return -1;
}

static int on_marker(void *ctx, uint32_t type, const struct ap_rec_marker *m)
{
	struct ap_analysis *a = ctx;

	switch (type) {
	case AP_REC_RUN_BEGIN:
		a->runs_begun++;
		return on_run(a, type, *m);
	case AP_REC_RUN_END:
		a->runs_completed++;
		return on_run(a, type, *m);
	case AP_REC_OP_BEGIN:
		a->op_events++;
		break;
	}
	return 0;
}

/*
 * A fault record: in the block kept apart that holds it, else as the model places it;
 * then to the pass's own consumer, if it has one.
 */
static int on_fault(void *ctx, const struct ap_rec_fault *f)
{
	struct ap_analysis *a = ctx;
	const struct ap_analysis_opts *o = ((struct priv *)a->priv)->o;
	struct ap_as_fault af = {
		.addr = f->addr, .vm_start = f->vm_start, .vm_end = f->vm_end, .ts_ns = f->ts_ns,
		.flags = f->flags, .tid = f->tid, .run = f->run, .op = f->op,
	};
	int32_t mi;

	a->faults++;
	if (ap_as_fault(&a->as, &af, region_of(a->priv, f->addr), &mi) < 0)
		return -ENOMEM;
	if (o->on_fault)
		o->on_fault(o->ctx, a, f, mi);
	return 0;
}

/*
 * Keeps [base, base + bytes) apart from now on: a mapping of its pages, which takes the
 * first touches already counted elsewhere in its range (malloc writes its chunk header
 * before the block's record comes). -1: out of memory.
 */
static int open_region(struct ap_analysis *a, uint64_t base, uint64_t bytes, int32_t block)
{
	struct priv *pv = a->priv;
	uint64_t ps = a->hdr.page_size;
	uint64_t start = base & ~(ps - 1), end = (base + bytes + ps - 1) & ~(ps - 1);
	int32_t mi;

	if (end <= start)
		return 0;
	if (pv->n_reg == MAX_REGIONS) {
		pv->regions_missed++;
		return 0;
	}
	mi = ap_as_map_get(&a->as, start, end);
	if (mi < 0)
		return -ENOMEM;
	pv->reg[pv->n_reg++] = (struct region){ start, end, mi, block };
	a->as.maps[mi].block = true;
	for (uint64_t i = 0; i < a->as.n_touches; i++) {
		struct ap_touch *t = &a->as.touches[i];
		uint64_t page = a->as.maps[t->map].start + (t->page << a->as.page_shift);

		if (a->as.maps[t->map].block || page < start || page >= end)
			continue;
		if (ap_as_move_touch(&a->as, t, mi))
			return -ENOMEM;
	}
	return 0;
}

/*
 * An allocation record: a block that may become the arena (or the arena's re-plan) gets a
 * region, as does record --arena ADDR's address. Only with a plan (the rules need its
 * size) and no --arena given to the pass.
 */
static int alloc_region(struct ap_analysis *a, const struct ap_analysis_opts *o,
			const struct ap_rec_alloc *r)
{
	struct priv *pv = a->priv;
	struct ap_allocs *al = a->allocs;
	uint32_t n = al->n;
	uint64_t want = o->plan ? o->plan->arena_bytes : 0;
	const struct ap_block *b;
	bool keep;

	if (ap_allocs_add(al, r))
		return -ENOMEM;
	if (!want || o->arena_addr)
		return 0;
	if (r->fn == AP_ALLOC_GIVEN)
		return pv->n_reg ? 0 : open_region(a, r->ptr, want, -1);
	if (al->n == n || al->given)
		return 0;
	b = &al->b[al->n - 1];
	keep = ap_arid_may_be(b, want);
	for (uint32_t i = 0; i < pv->n_reg && !keep; i++)
		keep = pv->reg[i].block >= 0 && ap_arid_may_follow(&al->b[pv->reg[i].block], b);
	return keep ? open_region(a, ap_block_base(b), ap_arid_region_bytes(b, want),
				  (int32_t)al->n - 1) : 0;
}

static int on_alloc(void *ctx, const struct ap_rec_alloc *r)
{
	struct ap_analysis *a = ctx;

	return alloc_region(a, ((struct priv *)a->priv)->o, r) ? -ENOMEM : 0;
}

/*
 * The newest mapping holding addr that is not a block's (given back or kept: a block's
 * pages never go to another block), or -1.
 */
static int32_t holder(const struct ap_analysis *a, uint64_t addr)
{
	for (int32_t i = (int32_t)a->as.n_maps - 1; i >= 0; i--)
		if (!a->as.maps[i].block && a->as.maps[i].start <= addr && addr < a->as.maps[i].end)
			return i;
	return -1;
}

/*
 * The mappings that are not a block's, each painted over the older ones: holder() for
 * every touch given back at O(log n) rather than a scan of the mappings. -1: no memory.
 */
static int holders(const struct ap_analysis *a, struct ap_newest *h)
{
	for (uint32_t i = 0; i < a->as.n_maps; i++)
		if (!a->as.maps[i].block && a->as.maps[i].start < a->as.maps[i].end &&
		    ap_newest_add(h, a->as.maps[i].start, a->as.maps[i].end, (int32_t)i))
			return -ENOMEM;
	return 0;
}

/*
 * The regions of blocks that did not become the arena nor its re-plans go back to the
 * mappings that hold them (their first touches and counts; a region nothing else holds
 * stays a mapping of its own). -1: out of memory.
 */
static int give_back(struct ap_analysis *a, const bool *keep)
{
	struct priv *pv = a->priv;
	struct ap_newest hold = { 0 };
	bool built = false;
	int rc = -ENOMEM;

	for (uint32_t k = 0; k < pv->n_reg; k++) {
		struct region *rg = &pv->reg[k];
		struct ap_amap *m = &a->as.maps[rg->map], *h;
		int32_t to;

		if (keep[k])
			continue;
		if (!built && holders(a, &hold))
			goto out;
		built = true;
		to = ap_newest_at(&hold, rg->start);
		if (to < 0)
			continue;
		for (uint64_t i = 0; i < a->as.n_touches; i++) {
			struct ap_touch *t = &a->as.touches[i];
			uint64_t addr = m->start + (t->page << a->as.page_shift);
			int32_t dst;

			if ((int32_t)t->map != rg->map)
				continue;
			dst = ap_newest_at(&hold, addr);
			if (dst >= 0 && ap_as_move_touch(&a->as, t, dst))
				goto out;
		}
		/* the faults that were no first touch: to the holder of its start */
		h = &a->as.maps[to];
		h->faults += m->faults;
		h->major += m->major;
		h->writes += m->writes;
		m->faults = m->major = m->writes = 0;
		rg->map = -1;	/* ap_analysis_map_of: the holder now */
	}
	rc = 0;
out:
	ap_newest_free(&hold);
	return rc;
}

/*
 * The arena, found once (arena.h): the allocation probe's verdict keeps its regions (the
 * block and its re-plans), the others are given back, then the identity is completed.
 */
static int identify(struct ap_analysis *a, const struct ap_analysis_opts *o)
{
	struct priv *pv = a->priv;
	struct ap_arena_id *id = &a->id;
	bool keep[MAX_REGIONS] = { false };
	int32_t region_map = -1, move_map[AP_MAX_MOVES];

	for (uint32_t i = 0; i < AP_MAX_MOVES; i++)
		move_map[i] = -1;
	if (!o->arena_addr)
		ap_arena_by_alloc(a, o->plan, id);
	for (uint32_t k = 0; k < pv->n_reg && !o->arena_addr; k++) {
		const struct region *rg = &pv->reg[k];

		if (rg->block == -1 && id->rule == AP_AR_GIVEN)
			keep[k] = true;
		else if (rg->block >= 0 && rg->block == id->block)
			keep[k] = true;
		for (uint32_t i = 0; i < id->n_moves && rg->block >= 0; i++)
			if (rg->block == id->moves[i].block) {
				keep[k] = true;
				move_map[i] = rg->map;
			}
		if (keep[k] && (rg->block == id->block || rg->block == -1) && region_map < 0)
			region_map = rg->map;
	}
	if (give_back(a, keep))
		return -ENOMEM;
	/* record --arena ADDR that points nowhere: no arena, not a wrong one */
	if (id->rule == AP_AR_GIVEN && id->by_record && holder(a, id->base) < 0)
		region_map = -1;
	if (ap_arena_identify(a, o->plan, o->arena_addr, region_map, move_map, id))
		return -ENOMEM;
	for (uint32_t k = 0; k < id->n_moves; k++)
		if (id->moves[k].map >= 0 && id->moves[k].map != id->map)
			a->as.maps[id->moves[k].map].role = AP_ROLE_MOVED_ARENA;
	if (id->map >= 0)
		a->as.maps[id->map].role = "arena";
	return 0;
}

static int on_mapping(void *ctx, const struct ap_rec_mapping *mr, const char *name)
{
	struct ap_analysis *a = ctx;
	int32_t mi = ap_as_map_get(&a->as, mr->start, mr->end);
	char *path;
	int rc;

	if (mi < 0)
		return mi == AP_AS_EMPTY ? 0 : -ENOMEM;
	if (a->as.maps[mi].named)
		return 0;
	path = ap_name_clean(strdup(name));	/* a trace's names, made printable */
	rc = path ? ap_as_name(&a->as, mi, path, mr->offset, mr->inode, mr->prot) : -1;
	free(path);
	return rc ? -ENOMEM : 0;
}

/*
 * Pages resident when -p attached: recorded as such, never as first touches. The bitmap
 * goes into the page set as a bitmap (a run), so the cost is the record's size, whatever
 * span the record names: only the pages its bits cover count.
 */
static int on_resident(void *ctx, const struct ap_rec_resident *rr, const uint8_t *bits,
		       uint64_t nbits)
{
	struct ap_analysis *a = ctx;
	int32_t mi = ap_as_map_get(&a->as, rr->start, rr->end);

	if (mi < 0)
		return mi == AP_AS_EMPTY ? 0 : -ENOMEM;
	return ap_as_resident(&a->as, mi, bits, nbits) < 0 ? -ENOMEM : 0;
}

static int add_note(struct ap_analysis *a, const char *text, bool setup)
{
	/* doubling: a realloc a note copied them all under ASan (200,000 notes: > 60 s) */
	if (ap_grow32(&a->notes, &a->cap_notes, a->n_notes, sizeof(*a->notes), 16) ||
	    ap_grow32(&a->note_setup, &a->cap_note_setup, a->n_notes, sizeof(bool), 16))
		return -ENOMEM;
	a->notes[a->n_notes] = ap_name_clean(strdup(text));
	if (!a->notes[a->n_notes])
		return -ENOMEM;
	a->note_setup[a->n_notes++] = setup;
	return 0;
}

static int on_note(void *ctx, const struct ap_rec_note *n, const char *text)
{
	struct ap_analysis *a = ctx;
	int rc = add_note(a, text, n->level == AP_NOTE_SETUP);

	ap_allocs_note(a->allocs, n->ts_ns, text);
	return rc;
}

static int on_sample(void *ctx, const struct ap_rec_sample *s)
{
	struct ap_analysis *a = ctx;

	if (ap_grow32(&a->samples, &a->cap_samples, a->n_samples, sizeof(*a->samples), 256))
		return -ENOMEM;
	a->samples[a->n_samples++] = *s;
	return 0;
}

static int on_drops(void *ctx, const struct ap_rec_drops *d)
{
	((struct ap_analysis *)ctx)->drops = *d;
	return 0;
}

static int on_dmabuf(void *ctx, const struct ap_rec_dmabuf *d)
{
	struct ap_analysis *a = ctx;

	return ap_dmabuf_seen_sample(&a->dmabuf, d, (int64_t)a->runs_begun - 1);
}

static int on_dmabuf_buf(void *ctx, const struct ap_rec_dmabuf_buf *b)
{
	return ap_dmabuf_seen_buf(&((struct ap_analysis *)ctx)->dmabuf, b);
}

/* The run in progress at ts: the last begun by then (events are read after the runs). */
static int64_t run_at(const struct ap_analysis *a, uint64_t ts)
{
	int64_t i = (int64_t)(a->runs_begun < a->n_run_ns ? a->runs_begun : a->n_run_ns) - 1;

	while (i >= 0 && (!a->run_begin[i] || a->run_begin[i] > ts))
		i--;
	return i;
}

static int on_dmabuf_ev(void *ctx, const struct ap_rec_dmabuf_ev *e)
{
	struct ap_analysis *a = ctx;

	return ap_dmabuf_seen_event(&a->dmabuf, e, run_at(a, e->ts_ns));
}

static int on_end(void *ctx, const struct ap_rec_end *e)
{
	struct ap_analysis *a = ctx;

	a->end = *e;
	a->saw_end = true;
	return 0;
}

/* The unnamed maps of one kind (anon or not) named after the first named map over them. */
static int name_kind(struct ap_analysis *a, bool anon)
{
	struct ap_span *src = malloc((a->as.n_maps + 1) * sizeof(*src));
	struct ap_span *q = malloc((a->as.n_maps + 1) * sizeof(*q));
	uint32_t *src_map = malloc((a->as.n_maps + 1) * sizeof(*src_map));
	uint32_t *q_map = malloc((a->as.n_maps + 1) * sizeof(*q_map));
	int32_t *first = malloc((a->as.n_maps + 1) * sizeof(*first));
	uint32_t ns = 0, nq = 0;
	int rc = -ENOMEM;

	if (!src || !q || !src_map || !q_map || !first)
		goto out;
	for (uint32_t i = 0; i < a->as.n_maps; i++) {
		const struct ap_amap *m = &a->as.maps[i];

		if (m->anon != anon)
			continue;
		if (m->named) {
			src_map[ns] = i;
			src[ns++] = (struct ap_span){ m->start, m->end };
		} else {
			q_map[nq] = i;
			q[nq++] = (struct ap_span){ m->start, m->end };
		}
	}
	if (!nq || !ns || ap_overlap_first(src, ns, q, nq, first)) {
		rc = nq && ns ? -ENOMEM : 0;
		goto out;
	}
	for (uint32_t j = 0; j < nq; j++) {
		struct ap_amap *m = &a->as.maps[q_map[j]];
		const struct ap_amap *n;

		if (first[j] < 0)
			continue;
		n = &a->as.maps[src_map[first[j]]];
		if (ap_as_rename(&a->as, (int32_t)q_map[j], n->path))
			goto out;
		m->prot = n->prot;
		m->inode = n->inode;
	}
	rc = 0;
out:
	free(src);
	free(q);
	free(src_map);
	free(q_map);
	free(first);
	return rc;
}

/*
 * A vma seen only through faults (split by mprotect, grown by brk, or gone before a maps
 * snapshot) takes the path, prot and inode of the first snapshot mapping of its kind that
 * overlaps it: O(n log n) in the mappings (overlap.h).
 */
static int name_by_overlap(struct ap_analysis *a)
{
	return name_kind(a, true) || name_kind(a, false) ? -ENOMEM : 0;
}

static void assign_roles(struct ap_analysis *a, const struct ap_analysis_opts *o)
{
	const char *model = o->model_path ? ap_base_name(o->model_path) : NULL;

	for (uint32_t i = 0; i < a->as.n_maps; i++) {
		struct ap_amap *m = &a->as.maps[i];

		if (!m->anon && model && !strcmp(ap_base_name(m->path), model))
			m->role = "weights";
		else if (!strcmp(m->path, "[heap]"))
			m->role = "heap";
		else if (!strncmp(m->path, "[stack", 6))
			m->role = "stack";
		else if (m->anon)
			m->role = "anon";
		else if (!m->path[0])
			m->role = "unknown";	/* a file vma never seen in a snapshot */
		else if (m->prot & 4)
			m->role = "code";
		else
			m->role = "file";
	}
}

bool ap_analysis_in_run(const struct ap_analysis *a, const struct ap_touch *t)
{
	uint64_t t0;

	if (t->run < 0 || (uint32_t)t->run >= a->n_run_ns)
		return false;
	t0 = a->run_begin[t->run];
	return t0 && t->ts_ns >= t0 && (!a->run_ns[t->run] || t->ts_ns <= t0 + a->run_ns[t->run]);
}

uint64_t ap_analysis_sample_max(const struct ap_analysis *a, size_t field)
{
	uint64_t best = 0;

	for (uint32_t i = 0; i < a->n_samples; i++) {
		uint64_t v;

		memcpy(&v, (const char *)&a->samples[i] + field, sizeof(v));
		if (v != AP_NO_VALUE && v > best)
			best = v;
	}
	return best;
}

int32_t ap_analysis_keep_block(struct ap_analysis *a, uint64_t base, uint64_t bytes,
				int32_t block, const char *role)
{
	struct priv *pv = a->priv;
	uint32_t n = pv ? pv->n_reg : 0;

	if (!pv || n == MAX_REGIONS)
		return -ENOSPC;
	if (open_region(a, base, bytes, block))
		return -ENOMEM;
	if (pv->n_reg == n)
		return AP_AS_EMPTY;
	a->as.maps[pv->reg[n].map].role = role;
	return pv->reg[n].map;
}

int32_t ap_analysis_map_of(const struct ap_analysis *a, const struct ap_rec_fault *f)
{
	int32_t r = region_of(a->priv, f->addr);

	if (r >= 0)
		return r;
	if (!(f->flags & AP_FF_VMA_UNKNOWN) && f->vm_end > f->vm_start)
		return ap_as_map_find(&a->as, f->vm_start, f->vm_end);
	return ap_as_map_at(&a->as, f->addr);
}

int ap_analysis_run(const char *path, const struct ap_analysis_opts *o,
		    struct ap_analysis *a, char *err)
{
	struct ap_trace_consumer consumer = {
		.fault = on_fault, .mapping = on_mapping, .resident = on_resident,
		.marker = on_marker, .sample = on_sample, .drops = on_drops, .note = on_note,
		.alloc = on_alloc, .end = on_end, .dmabuf = on_dmabuf,
		.dmabuf_buf = on_dmabuf_buf, .dmabuf_ev = on_dmabuf_ev, .run_obj = on_run_obj,
		.ctx = a,
	};
	struct ap_trace_reader r;
	struct ap_trace_span span;
	struct priv *pv;
	int rc;

	memset(a, 0, sizeof(*a));
	ap_dmabuf_seen_init(&a->dmabuf);
	a->id.map = -1;
	a->id.block = -1;
	pv = calloc(1, sizeof(*pv));
	if (!pv)
		return ap_fail(err, -ENOMEM, "out of memory");
	a->priv = pv;
	pv->o = o;
	pv->cur_obj = -1;
	a->allocs = calloc(1, sizeof(*a->allocs));
	if (!a->allocs)
		return ap_fail(err, -ENOMEM, "out of memory");
	rc = ap_trace_open(&r, path, err);
	if (rc)
		return rc;
	r.salvage = a->salvage = o->salvage;
	r.fold_map_copies = true;	/* on_mapping: a known mapping is named once */
	a->hdr = r.hdr;
	for (int i = 0; i < AP_HS_COUNT; i++)
		a->strings[i] = strdup(r.strings[i] ? r.strings[i] : "");
	/* a power of two from 1 KiB to 1 GiB, else the trace is not to be trusted */
	if (a->hdr.page_size < 1024 || a->hdr.page_size > (1u << 30) ||
	    (a->hdr.page_size & (a->hdr.page_size - 1))) {
		ap_trace_reader_close(&r);
		return ap_fail(err, -EINVAL, "%s: implausible page size %u in the header", path,
			       a->hdr.page_size);
	}
	ap_as_init(&a->as, a->hdr.page_size);
	a->as.by_index = true;	/* report's first touches by run and by operator */
	rc = ap_trace_walk(&r, &consumer, &span, err);
	a->t_first = span.t_first;
	a->t_last = span.t_last;
	if (rc && rc != -EBADMSG) {
		ap_trace_reader_close(&r);
		return ap_fail(err, rc, "out of memory reading %s", path);
	}
	a->truncated = r.truncated;
	a->salvaged_bytes = r.salvaged_bytes;
	a->salvaged_records = r.salvaged_records;
	ap_trace_reader_close(&r);
	if (rc < 0)
		return -EINVAL;	/* the reader's message: corrupt, unreadable */
	if (name_by_overlap(a))
		return ap_fail(err, -ENOMEM, "out of memory reading %s", path);
	assign_roles(a, o);
	if (identify(a, o) || (pv->regions_missed && add_note(a, "analysis: more than "
		"64 allocations could have been the arena; the later ones were not kept apart "
		"from their mappings", false)))
		return ap_fail(err, -ENOMEM, "out of memory reading %s", path);
	ap_as_settle(&a->as);
	return 0;
}

void ap_analysis_free(struct ap_analysis *a)
{
	struct priv *pv = a->priv;

	for (int i = 0; i < AP_HS_COUNT; i++)
		free(a->strings[i]);
	ap_as_free(&a->as);
	free(a->samples);
	for (uint32_t i = 0; i < a->n_notes; i++)
		free(a->notes[i]);
	free(a->notes);
	free(a->note_setup);
	if (a->allocs) {
		ap_allocs_free(a->allocs);
		free(a->allocs);
	}
	free(a->run_ns);
	free(a->run_begin);
	free(a->run_obj_of);
	ap_dmabuf_seen_free(&a->dmabuf);
	free(pv);
	memset(a, 0, sizeof(*a));
}
