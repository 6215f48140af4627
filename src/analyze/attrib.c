// SPDX-License-Identifier: Apache-2.0
/* attrib: the arena by address, attribution without markers, consistency (attrib.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/arena.h"
#include "arenaprof/analyze/attrib.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/event.h"
#include "arenaprof/analyze/pageset.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/trace/trace.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"
#include "arenaprof/analyze/run_lat.h"

#define GRAN 64		/* tensor offsets and the base are 64-byte aligned: exact */

/* ---- the region's page owners ---- */

struct owners {
	int32_t *blk;		/* per GRAN bytes of the plan */
	uint64_t n_blk;
};

/* The plan's attribution of the page at addr: earliest writer of the bytes it covers. */
static int32_t owner_at(const struct owners *o, uint64_t base, uint64_t bytes, uint64_t page,
			uint64_t ps)
{
	uint64_t lo = page > base ? page - base : 0, hi = page + ps - base;
	int32_t best = AP_OWNER_NONE;

	if (page + ps <= base || page >= base + bytes)
		return AP_OWNER_NONE;
	if (hi > bytes)
		hi = bytes;
	for (uint64_t b = lo / GRAN; b < o->n_blk && b * GRAN < hi; b++)
		if (o->blk[b] != AP_OWNER_NONE && (best == AP_OWNER_NONE || o->blk[b] < best))
			best = o->blk[b];
	return best;
}

/* The tensor that names a page's owner (for the list of steps back). */
static int32_t tensor_at(const struct ap_tplan *p, uint64_t base, uint64_t page, uint64_t ps,
			 int32_t op)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct ap_ptensor *t = &p->t[i];
		uint64_t lo, hi;

		if (ap_corr_writer(p, t) != op)
			continue;
		lo = base + (uint64_t)t->offset;
		hi = lo + t->bytes;
		if (lo < page + ps && hi > page)
			return (int32_t)i;
	}
	return -1;
}

/* ---- blocks by address ---- */

struct blocks {
	const struct ap_allocs *al;
	uint32_t *by_ptr;
	uint64_t max_size;
	uint64_t *ft;		/* first-touched pages outside the arena, per block */
};

static int cmp_ptr(const void *x, const void *y, void *ctx)
{
	const struct ap_allocs *al = ctx;
	const struct ap_block *a = &al->b[*(const uint32_t *)x];
	const struct ap_block *b = &al->b[*(const uint32_t *)y];

	return a->ptr != b->ptr ? AP_CMP(a->ptr, b->ptr) : AP_CMP(a->t_alloc, b->t_alloc);
}

static int blocks_init(struct blocks *bl, const struct ap_allocs *al)
{
	memset(bl, 0, sizeof(*bl));
	bl->al = al;
	bl->by_ptr = ap_order_index(al->n, cmp_ptr, (void *)al);
	bl->ft = calloc(al->n + 1, sizeof(*bl->ft));
	if (!bl->by_ptr || !bl->ft)
		return -ENOMEM;
	for (uint32_t i = 0; i < al->n; i++)
		if (al->b[i].size > bl->max_size)
			bl->max_size = al->b[i].size;
	return 0;
}

/* The block live at ts that holds addr, or -1. */
static int32_t block_at(const struct blocks *bl, uint64_t addr, uint64_t ts)
{
	const struct ap_allocs *al = bl->al;
	uint32_t lo = 0, hi = al->n;

	while (lo < hi) {	/* first with ptr > addr */
		uint32_t mid = (lo + hi) / 2;

		if (al->b[bl->by_ptr[mid]].ptr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	while (lo-- > 0) {
		const struct ap_block *b = &al->b[bl->by_ptr[lo]];

		if (b->ptr + bl->max_size <= addr)
			break;
		if (addr < b->ptr + b->size && b->t_alloc <= ts && (!b->t_free || b->t_free > ts))
			return (int32_t)bl->by_ptr[lo];
	}
	return -1;
}

static void blocks_free(struct blocks *bl)
{
	free(bl->by_ptr);
	free(bl->ft);
}

/* ---- consistency ---- */

struct seq {
	uint64_t ts, page;
	int32_t op;
	uint32_t flags;
	uint64_t idx;
};

static int cmp_seq(const void *x, const void *y)
{
	const struct seq *a = x, *b = y;

	if (a->ts != b->ts)
		return a->ts < b->ts ? -1 : 1;
	return AP_CMP(a->idx, b->idx);
}

static void consistency(struct ap_attrib *at, const struct ap_tplan *p, struct seq *s,
			uint64_t n)
{
	int32_t prev = AP_OWNER_NONE, prev2 = AP_OWNER_NONE;

	ap_qsort(s, n, sizeof(*s), cmp_seq);
	for (uint64_t i = 0; i < n; i++) {
		int32_t op = s[i].op;

		at->cons_total++;
		if (prev == AP_OWNER_NONE || op >= prev) {
			at->cons_ok++;
		} else {
			bool ahead = prev2 != AP_OWNER_NONE && prev > prev2;
			bool read = (s[i].flags & AP_FF_ACCESS_KNOWN) &&
				    !(s[i].flags & AP_FF_WRITE);

			at->back_reads += read;
			at->back_ahead += ahead;
			if (at->n_back < AP_ATTRIB_MAX_BACK)
				at->back[at->n_back++] = (struct ap_attrib_back){
					.offset = s[i].page > at->base ? s[i].page - at->base : 0,
					.op = op, .prev_op = prev, .flags = s[i].flags,
					.tensor = tensor_at(p, at->base, s[i].page,
							    at->page_size, op),
					.prev_ahead = ahead,
				};
		}
		prev2 = prev;
		prev = op;
	}
}

/* ---- run durations ---- */

/* Run 0 against the median and p99 of the completed runs (run_lat.h). */
static int run_times(struct ap_attrib *at, const struct ap_analysis *a, char *err)
{
	struct ap_run_lat l;
	int32_t median_run = -1;
	int rc = ap_run_lat(a, &l, err);

	if (rc)
		return rc;
	if (l.timed) {
		at->run_first_ns = l.first_ns;
		at->run_median_ns = l.median_ns;
		at->run_p99_ns = l.p99_ns;
		for (uint32_t i = 0; i < a->n_run_ns && median_run < 0; i++)
			if (a->run_ns[i] == at->run_median_ns)
				median_run = (int32_t)i;
	}
	for (uint64_t i = 0; i < a->as.n_touches; i++) {
		at->run0_touches += a->as.touches[i].run == 0;
		at->run_median_touches += median_run >= 0 && a->as.touches[i].run == median_run;
	}
	ap_run_lat_free(&l);
	return 0;
}

/* A first touch of the arena region: counted by run, attributed, queued for run 0's order. */
static void region_touch(struct ap_attrib *at, const struct owners *ow,
			 const struct ap_touch *t, uint64_t page, uint64_t idx, struct seq *s,
			 uint64_t *ns)
{
	int32_t op;

	at->ft_pages++;
	if (t->run < 0)
		at->ft_before++;
	else if (t->run == 0)
		at->ft_run0++;
	else
		at->ft_later++;
	if (t->run > at->last_run)
		at->last_run = t->run;
	if (!ow)
		return;
	op = owner_at(ow, at->base, at->bytes, page, at->page_size);
	if (op == AP_OWNER_NONE) {
		at->unplanned++;
		return;
	}
	at->attributed++;
	at->ft_before_input += t->run < 0 && op == AP_OWNER_INPUT;
	if (t->run == 0)
		s[(*ns)++] = (struct seq){ .ts = t->ts_ns, .page = page, .op = op,
					   .flags = t->flags, .idx = idx };
}

/* ---- mappings and callers outside the arena ---- */

/*
 * The groups by (start, path), open addressing: slot holds a group's index + 1, 0 empty.
 * A trace of 40,000 first touches in vmas of their own took 11 s when each looked through
 * every group.
 */
struct groups {
	uint32_t *slot;
	uint32_t n_slot;	/* a power of two, at most half full */
};

static uint32_t group_hash(uint64_t start, const char *path, uint32_t n)
{
	uint64_t h = start * 0x9e3779b97f4a7c15ULL;

	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		h = (h ^ *c) * 0x100000001b3ULL;
	return (uint32_t)(h >> 32) & (n - 1);
}

/* The slot of the group (start, path): its own, or the empty one it would take. */
static uint32_t *group_slot(const struct ap_attrib *at, const struct groups *gs,
			    uint64_t start, const char *path)
{
	uint32_t h = group_hash(start, path, gs->n_slot);

	for (;; h = (h + 1) & (gs->n_slot - 1)) {
		const struct ap_attrib_map *g;

		if (!gs->slot[h])
			return &gs->slot[h];
		g = &at->maps[gs->slot[h] - 1];
		if (g->start == start && !strcmp(g->path, path))
			return &gs->slot[h];
	}
}

/* Room for one more group; -1: out of memory. */
static int groups_room(const struct ap_attrib *at, struct groups *gs)
{
	uint32_t n = gs->n_slot ? gs->n_slot * 2 : 64;
	uint32_t *old = gs->slot, old_n = gs->n_slot;

	if ((at->n_maps + 1) * 2 <= gs->n_slot)
		return 0;
	if (gs->n_slot > UINT32_MAX / 4 || !(gs->slot = calloc(n, sizeof(*gs->slot)))) {
		gs->slot = old;
		return -ENOMEM;
	}
	gs->n_slot = n;
	for (uint32_t i = 0; i < old_n; i++)
		if (old[i]) {
			const struct ap_attrib_map *g = &at->maps[old[i] - 1];

			*group_slot(at, gs, g->start, g->path) = old[i];
		}
	free(old);
	return 0;
}

static struct ap_attrib_map *map_group(struct ap_attrib *at, struct groups *gs,
				       const struct ap_amap *m)
{
	struct ap_attrib_map *g;
	uint32_t *slot;

	if (groups_room(at, gs))
		return NULL;
	slot = group_slot(at, gs, m->start, m->path);
	if (*slot) {
		g = &at->maps[*slot - 1];
		if (m->end > g->end)
			g->end = m->end;	/* [heap] grows */
		return g;
	}
	if (ap_grow32(&at->maps, &at->cap_maps, at->n_maps, sizeof(*g), 16))
		return NULL;
	g = &at->maps[at->n_maps++];
	*g = (struct ap_attrib_map){ .start = m->start, .end = m->end, .path = m->path };
	*slot = at->n_maps;
	return g;
}

static int cmp_start(const void *x, const void *y)
{
	const struct ap_attrib_map *a = x, *b = y;

	return AP_CMP(a->start, b->start);
}

/*
 * Vmas split and merge (glibc's mappings side by side, [heap] growing): the versions the
 * faults saw overlap. Overlapping groups become one, the union of their ranges.
 */
static void merge_maps(struct ap_attrib *at)
{
	uint32_t k = 0;

	ap_qsort(at->maps, at->n_maps, sizeof(*at->maps), cmp_start);
	for (uint32_t i = 0; i < at->n_maps; i++) {
		struct ap_attrib_map *g = &at->maps[i], *h = k ? &at->maps[k - 1] : NULL;

		if (h && g->start < h->end && !strcmp(g->path, h->path)) {
			if (g->end > h->end)
				h->end = g->end;
			h->ft_pages += g->ft_pages;
			h->faults += g->faults;
			continue;
		}
		at->maps[k++] = *g;
	}
	at->n_maps = k;
}

static int cmp_map(const void *x, const void *y)
{
	const struct ap_attrib_map *a = x, *b = y;

	return AP_CMP(b->ft_pages, a->ft_pages);
}

static int cmp_caller(const void *x, const void *y)
{
	const struct ap_attrib_caller *a = x, *b = y;

	if (a->ft_pages != b->ft_pages)
		return AP_CMP(b->ft_pages, a->ft_pages);
	return AP_CMP(b->bytes, a->bytes);
}

/* Blocks by (call site, function), first-seen first within one: the grouping's order. */
static int cmp_site(const void *x, const void *y, void *ctx)
{
	const struct ap_block *b = ctx;
	uint32_t i = *(const uint32_t *)x, k = *(const uint32_t *)y;

	if (b[i].caller != b[k].caller)
		return AP_CMP(b[i].caller, b[k].caller);
	return b[i].fn != b[k].fn ? AP_CMP(b[i].fn, b[k].fn) : AP_CMP(i, k);
}

/* Groups by the block each was first seen in: the order a scan would have made them. */
static int cmp_first_seen(const void *x, const void *y)
{
	const struct ap_attrib_caller *a = x, *b = y;

	return AP_CMP(a->first_block, b->first_block);
}

/* The blocks callers() counts: outside the arena, neither the arena nor a move of it. */
static bool *caller_blocks(const struct ap_analysis *a, const struct blocks *bl)
{
	const struct ap_allocs *al = bl->al;
	const struct ap_arena_id *id = &a->id;
	bool *want = calloc(al->n + 1, sizeof(*want));

	if (!want)
		return NULL;
	for (uint32_t i = 0; i < al->n; i++) {
		const struct ap_block *b = &al->b[i];

		want[i] = (int32_t)i != id->block && (bl->ft[i] || (b->run_alloc < 0 &&
								   b->run_free >= 0));
	}
	for (uint32_t k = 0; k < id->n_moves; k++)
		if (id->moves[k].block >= 0 && (uint32_t)id->moves[k].block < al->n)
			want[id->moves[k].block] = false;
	return want;
}

/*
 * Blocks outside the arena grouped by their allocating call site; the largest groups
 * (first-touched pages, then bytes) are named, and groups of one name merged. The groups
 * come from the blocks sorted by site, O(n log n), in the order of their first block.
 */
static int callers(struct ap_attrib *at, const struct ap_analysis *a, const struct blocks *bl)
{
	const struct ap_allocs *al = bl->al;
	struct ap_attrib_caller *c = calloc(al->n + 1, sizeof(*c));
	uint32_t *by_site = ap_order_index(al->n, cmp_site, (void *)al->b);
	bool *want = caller_blocks(a, bl);
	uint32_t n = 0;

	if (!c || !by_site || !want) {
		free(c);
		free(by_site);
		free(want);
		return -ENOMEM;
	}
	for (uint32_t j = 0; j < al->n; j++) {
		uint32_t i = by_site[j];
		const struct ap_block *b = &al->b[i];

		if (!want[i])
			continue;
		if (!n || c[n - 1].caller != b->caller || c[n - 1].fn != b->fn)
			c[n++] = (struct ap_attrib_caller){ .caller = b->caller, .fn = b->fn,
							    .first_block = i };
		c[n - 1].blocks++;
		c[n - 1].bytes += b->size;
		c[n - 1].ft_pages += bl->ft[i];
	}
	free(by_site);
	free(want);
	ap_qsort(c, n, sizeof(*c), cmp_first_seen);
	ap_qsort(c, n, sizeof(*c), cmp_caller);
	for (uint32_t i = 0; i < n && at->n_callers < AP_ATTRIB_MAX_CALLERS; i++) {
		struct ap_attrib_caller *d = NULL;

		ap_as_addr_name(&a->as, c[i].caller, c[i].name, sizeof(c[i].name));
		for (uint32_t k = 0; k < at->n_callers && !d; k++)
			if (at->callers[k].fn == c[i].fn && !strcmp(at->callers[k].name, c[i].name))
				d = &at->callers[k];
		if (!d) {
			at->callers[at->n_callers++] = c[i];
			continue;
		}
		d->blocks += c[i].blocks;
		d->bytes += c[i].bytes;
		d->ft_pages += c[i].ft_pages;
	}
	free(c);
	return 0;
}

/* The snapshot mapping (not the arena region's own) that holds addr: the smallest. */
static int32_t real_mapping(const struct ap_analysis *a, uint64_t addr)
{
	int32_t best = -1;

	for (uint32_t i = 0; i < a->as.n_maps; i++) {
		const struct ap_amap *m = &a->as.maps[i];

		if (!m->named || (int32_t)i == a->id.map || addr < m->start || addr >= m->end)
			continue;
		if (best < 0 || m->end - m->start < a->as.maps[best].end - a->as.maps[best].start)
			best = (int32_t)i;
	}
	return best;
}

/* The plan the trace is correlated with, or NULL. */
static const struct ap_tplan *plan_of(const struct ap_corr_all *x)
{
	return x->have_plan ? &x->plan : NULL;
}

/* Everything known before the first touches: the allocation rules' result, the plan's sizes. */
static void attrib_init(struct ap_attrib *at, const struct ap_corr_all *x)
{
	const struct ap_allocs *al = x->a.allocs;
	const struct ap_analysis *a = &x->a;
	const struct ap_tplan *p = plan_of(x);

	memset(at, 0, sizeof(*at));
	at->al = al;
	at->pers_block = -1;
	at->last_run = -1;
	at->have_plan = p != NULL;
	at->plan_bytes = p ? p->arena_bytes : 0;
	at->page_size = a->hdr.page_size ? a->hdr.page_size : 4096;
	at->runs_completed = a->runs_completed;
}

/* The arena's region: base and bytes (0: none), as the analysis found it. */
static void region_of_id(struct ap_attrib *at, const struct ap_analysis *a)
{
	if (a->id.map < 0 || a->id.rule == AP_AR_NONE)
		return;
	at->base = a->id.base;
	at->bytes = a->id.bytes;
}

/* The persistent arena's block, and the mapping that holds the region. */
static void place_region(struct ap_attrib *at, const struct ap_corr_all *x)
{
	const struct ap_allocs *al = x->a.allocs;
	const struct ap_analysis *a = &x->a;
	const struct ap_tplan *p = plan_of(x);
	uint64_t ps = at->page_size;

	/* the persistent arena (variables, kernel state): another block of the same kind */
	for (uint32_t i = 0; p && p->persistent_bytes && i < al->n && at->pers_block < 0; i++)
		if ((int32_t)i != a->id.block && al->b[i].size >= p->persistent_bytes &&
		    al->b[i].size <= p->persistent_bytes + AP_ARENA_SLACK)
			at->pers_block = (int32_t)i;
	if (at->base) {
		int32_t rm = real_mapping(a, at->base);

		if (rm < 0)
			rm = a->id.map;
		at->map_start = a->as.maps[rm].start;
		at->map_end = a->as.maps[rm].end;
		at->in_larger_mapping = at->base - at->map_start >= ps ||
					at->map_end - (at->base + at->bytes) > 2 * ps;
	}
}

/* The walk's state: the plan's owners (NULL: no attribution), blocks, run 0's touches. */
struct walk {
	const struct owners *ow;
	struct blocks *bl;
	struct groups gs;
	struct ap_pageset seen;
	struct seq *s;
	uint64_t ns;
};

/* A page in one of the arena's later blocks (after a re-plan). */
static bool in_moved_arena(const struct ap_attrib *at, const struct ap_arena_id *id,
			   uint64_t page)
{
	bool moved = false;

	for (uint32_t k = 0; k < id->n_moves && !moved; k++)
		moved = page < id->moves[k].base + id->moves[k].bytes &&
			page + at->page_size > id->moves[k].base;
	return moved;
}

/* A first touch outside the arena: its mapping's group and its block. -1: out of memory. */
static int outside_touch(struct ap_attrib *at, struct blocks *bl, struct groups *gs,
			 const struct ap_amap *m, const struct ap_touch *t, uint64_t addr)
{
	struct ap_attrib_map *g;
	int32_t bi;

	/* memory the process allocates: not [vdso], [vvar], [uprobes]... */
	if (!m->anon || (m->path[0] == '[' && strcmp(m->path, "[heap]") &&
			 strncmp(m->path, "[stack", 6)))
		return 0;
	g = map_group(at, gs, m);
	bi = block_at(bl, addr, t->ts_ns);
	if (!g)
		return -ENOMEM;
	g->ft_pages++;
	at->np_pages++;
	if (bi >= 0)
		bl->ft[bi]++;
	else
		at->np_unblocked_pages++;
	return 0;
}

/* Every first touch, by address: the region, the moved arena, or outside. -1: no memory. */
static int walk_touches(struct ap_attrib *at, const struct ap_analysis *a, struct walk *w)
{
	uint64_t ps = at->page_size;

	for (uint64_t i = 0; i < a->as.n_touches; i++) {
		const struct ap_touch *t = &a->as.touches[i];
		const struct ap_amap *m = &a->as.maps[t->map];
		uint64_t page = m->start + t->page * ps, addr = page + t->in_page;
		bool in_region = at->base && page < at->base + at->bytes && page + ps > at->base;
		int r = ap_pageset_add(&w->seen, page / ps);

		if (r < 0)
			return -ENOMEM;
		if (!r)
			continue;	/* the same page under another version of the vma */
		if (in_region)
			region_touch(at, w->ow, t, page, i, w->s, &w->ns);
		else if (in_moved_arena(at, &a->id, page))
			at->moved_ft_pages++;
		else if (outside_touch(at, w->bl, &w->gs, m, t, addr))
			return -ENOMEM;
	}
	return 0;
}

/* Per mapping: the weights' faults, and the faults of the groups outside the arena. */
static void map_faults(struct ap_attrib *at, const struct ap_analysis *a,
		       const struct groups *gs)
{
	for (uint32_t i = 0; i < a->as.n_maps; i++) {
		const struct ap_amap *m = &a->as.maps[i];

		if (!strcmp(m->role, "weights")) {
			at->w_maps++;
			at->w_faults += m->faults;
			at->w_major += m->major;
			at->w_ft_pages += m->first_touch_pages;
			if (m->end - m->start > at->w_bytes)
				at->w_bytes = m->end - m->start;
			at->w_files += !at->w_path || strcmp(at->w_path, m->path);
			at->w_path = m->path;
			continue;
		}
		if (m->anon && gs->n_slot) {
			uint32_t k = *group_slot(at, gs, m->start, m->path);

			if (k)
				at->maps[k - 1].faults += m->faults;
		}
	}
}

/*
 * Per group outside the arena: the blocks inside, the most first-touched one (the first
 * allocated of those that tie). The blocks by address from the first at the group's start:
 * each group costs the blocks it holds, not all of them.
 */
static void map_blocks(struct ap_attrib *at, const struct blocks *bl)
{
	const struct ap_allocs *al = bl->al;

	for (uint32_t k = 0; k < at->n_maps; k++) {
		struct ap_attrib_map *g = &at->maps[k];
		uint32_t lo = 0, hi = al->n, top = UINT32_MAX;
		uint64_t best = 0;

		while (lo < hi) {	/* the first block at or after the group's start */
			uint32_t mid = lo + (hi - lo) / 2;

			if (al->b[bl->by_ptr[mid]].ptr < g->start)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t j = lo; j < al->n && al->b[bl->by_ptr[j]].ptr < g->end; j++) {
			uint32_t i = bl->by_ptr[j];

			g->blocks++;
			g->block_bytes += al->b[i].size;
			if (bl->ft[i] > best || (bl->ft[i] && bl->ft[i] == best && i < top)) {
				best = bl->ft[i];
				top = i;
			}
		}
		if (top != UINT32_MAX) {
			const struct ap_block *b = &al->b[top];

			g->top_caller = b->caller;
			g->top_fn = b->fn;
			g->top_size = b->size;
			g->top_align = b->align;
		}
	}
}

int ap_attrib_build(const struct ap_corr_all *x, struct ap_attrib *at, char *err)
{
	const struct ap_allocs *al = x->a.allocs;
	const struct ap_analysis *a = &x->a;
	const struct ap_tplan *p = plan_of(x);
	struct owners ow = { 0 };
	struct blocks bl;
	struct walk w = { .bl = &bl };
	bool attribute;
	int rc = -ENOMEM;

	attrib_init(at, x);
	memset(&bl, 0, sizeof(bl));
	ap_pageset_init(&w.seen);
	if (blocks_init(&bl, al))
		goto oom;
	region_of_id(at, a);
	place_region(at, x);
	attribute = ap_attrib_by_plan(at, x);
	if (attribute) {
		int64_t n = ap_arena_page_owners(p, GRAN, &ow.blk);

		if (n < 0)
			goto oom;
		ow.n_blk = (uint64_t)n;
		w.ow = &ow;
	}
	w.s = malloc((a->as.n_touches + 1) * sizeof(*w.s));
	if (!w.s || walk_touches(at, a, &w))
		goto oom;
	if (attribute)
		consistency(at, p, w.s, w.ns);
	map_faults(at, a, &w.gs);
	merge_maps(at);
	map_blocks(at, &bl);
	ap_qsort(at->maps, at->n_maps, sizeof(*at->maps), cmp_map);
	if (callers(at, a, &bl))
		goto oom;
	if (run_times(at, a, err))
		goto out;
	rc = 0;
	goto out;
oom:
	ap_seterr(err, "out of memory attributing the trace");
out:
	free(w.s);
	free(w.gs.slot);
	free(ow.blk);
	blocks_free(&bl);
	ap_pageset_free(&w.seen);
	return rc;
}

bool ap_attrib_by_plan(const struct ap_attrib *at, const struct ap_corr_all *x)
{
	/* the plan attributes the region only where it describes it */
	return at->base && ap_arena_planned(&x->a.id, x->have_plan ? &x->plan : NULL);
}

void ap_attrib_free(struct ap_attrib *at)
{
	free(at->maps);
	memset(at, 0, sizeof(*at));
}
