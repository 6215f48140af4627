// SPDX-License-Identifier: Apache-2.0
/* arena: the one identity of the arena, and the plan's page owners (arena.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/analysis.h"
#include "arenaprof/analyze/arena.h"
#include "arenaprof/util/sort.h"
#include "arenaprof/util/order.h"

/* ---- the mapping rule ---- */

/* An arena lives in a plain anonymous mapping or in [heap], never in [stack], [vdso]... */
bool ap_arena_candidate(const struct ap_arena_cand *m)
{
	return m->anon && m->pages && (m->path[0] != '[' || !strcmp(m->path, "[heap]"));
}

static uint64_t bytes_of(const struct ap_arena_cand *m)
{
	return m->end - m->start;
}

int32_t ap_arena_pick(const struct ap_arena_cand *c, uint32_t n, const struct ap_tplan *plan,
		      uint64_t page_size, char *rule, size_t len, bool *by_size)
{
	uint64_t page = page_size ? page_size : 4096;
	int32_t best = -1;

	*by_size = false;
	if (plan && plan->arena_bytes) {
		uint64_t want = (plan->arena_bytes + page - 1) / page * page;

		/* a mapping of the planned size, or one holding it with malloc's slack */
		for (uint32_t i = 0; i < n; i++) {
			const struct ap_arena_cand *m = &c[i];

			if (!ap_arena_candidate(m) || bytes_of(m) < want ||
			    bytes_of(m) > want + 2 * page)
				continue;
			if (best < 0 || bytes_of(m) < bytes_of(&c[best]) ||
			    (bytes_of(m) == bytes_of(&c[best]) && m->first_run < c[best].first_run))
				best = (int32_t)i;
		}
		if (best >= 0) {
			snprintf(rule, len, "anonymous mapping of the plan's arena size (%" PRIu64
				 " bytes planned, %" PRIu64 " mapped)", plan->arena_bytes,
				 bytes_of(&c[best]));
			*by_size = true;
			return best;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!ap_arena_candidate(&c[i]))
			continue;
		if (best < 0 || c[i].pages > c[best].pages)
			best = (int32_t)i;
	}
	snprintf(rule, len, "%s", best < 0 ? "no anonymous mapping faulted" : plan ?
		 "largest faulted anonymous mapping (none matches the plan's arena size)" :
		 "largest faulted anonymous mapping (no plan given)");
	return best;
}

void ap_arena_id_mapping(struct ap_arena_id *id, int32_t map, bool by_size, uint64_t start,
			 uint64_t end, const struct ap_tplan *p, const char *rule)
{
	id->map = map;
	id->rule = map < 0 ? AP_AR_NONE : by_size ? AP_AR_MAPPING : AP_AR_LARGEST;
	id->base = map < 0 ? 0 : start;
	id->bytes = map < 0 ? 0 : p ? p->arena_bytes : end - start;
	snprintf(id->why, sizeof(id->why), "%s", rule);
}

const char *ap_arena_rule_key(enum ap_arena_rule r)
{
	switch (r) {
	case AP_AR_GIVEN: return "given";
	case AP_AR_ALLOC: return "allocation";
	case AP_AR_RUNTIME: return "runtime_block";
	case AP_AR_MAPPING: return "mapping";
	case AP_AR_LARGEST: return "largest_mapping";
	case AP_AR_NONE: break;
	}
	return "none";
}

bool ap_arena_planned(const struct ap_arena_id *id, const struct ap_tplan *plan)
{
	return plan && id->map >= 0 && id->rule != AP_AR_NONE &&
	       id->rule != AP_AR_RUNTIME && id->rule != AP_AR_LARGEST;
}

bool ap_arena_is_block(const struct ap_arena_id *id)
{
	return id->rule == AP_AR_ALLOC || id->rule == AP_AR_RUNTIME ||
	       (id->rule == AP_AR_GIVEN && id->by_record);
}

/* ---- the plan's page owners ---- */

/* The writer of a plan tensor: an operator, AP_OWNER_INPUT, or AP_OWNER_NONE. */
static int32_t writer_of(const struct ap_ptensor *t, uint32_t n_ops)
{
	if (t->bytes == 0 || t->offset < 0)
		return AP_OWNER_NONE;
	if (t->kind == AP_KIND_INPUT)
		return AP_OWNER_INPUT;
	if ((t->kind == AP_KIND_ARENA || t->kind == AP_KIND_OUTPUT ||
	     t->kind == AP_KIND_TEMPORARY) && t->first >= 0 && (uint32_t)t->first < n_ops)
		return t->first;
	return AP_OWNER_NONE;
}

int64_t ap_arena_page_owners(const struct ap_tplan *plan, uint64_t page_size, int32_t **owner)
{
	uint64_t page = page_size ? page_size : 4096;
	uint64_t pages = (plan->arena_bytes + page - 1) / page;
	int32_t *o = malloc((pages ? pages : 1) * sizeof(*o));

	*owner = NULL;
	if (!o)
		return -ENOMEM;
	for (uint64_t i = 0; i < pages; i++)
		o[i] = AP_OWNER_NONE;
	for (uint32_t i = 0; i < plan->n; i++) {
		const struct ap_ptensor *t = &plan->t[i];
		int32_t w = writer_of(t, plan->n_ops);
		uint64_t a, b;

		if (w == AP_OWNER_NONE || (uint64_t)t->offset + t->bytes > plan->arena_bytes)
			continue;
		a = (uint64_t)t->offset / page;
		b = ((uint64_t)t->offset + t->bytes - 1) / page;
		for (uint64_t pg = a; pg <= b; pg++)
			if (o[pg] == AP_OWNER_NONE || w < o[pg])
				o[pg] = w;
	}
	*owner = o;
	return (int64_t)pages;
}

uint64_t ap_arena_page_table(const struct ap_tplan *p, const int32_t *blk, uint64_t n_blk,
			     uint64_t gran, uint64_t ps, uint64_t n_pages, int64_t delta,
			     int32_t *op)
{
	uint64_t d = (uint64_t)delta;

	for (uint64_t j = 0; j < n_pages; j++) {
		uint64_t lo = j * ps, hi = lo + ps;	/* mapping bytes [lo, hi) */
		int32_t best = AP_OWNER_NONE;

		op[j] = AP_OWNER_NONE;
		if (hi <= d)
			continue;
		lo = lo > d ? lo - d : 0;	/* plan bytes [lo, hi) */
		hi -= d;
		for (uint64_t b = lo / gran; b < n_blk && b * gran < hi; b++)
			if (blk[b] != AP_OWNER_NONE && (best == AP_OWNER_NONE || blk[b] < best))
				best = blk[b];
		op[j] = best;
	}
	return (p->arena_bytes + d + ps - 1) / ps;
}

/*
 * Longest non-decreasing subsequence of (run, plan op) over the first touches of mapping
 * map in trace order: operators run in order, so a right base puts nearly all of them in
 * it. tails: room for every first touch of the mapping.
 */
uint64_t ap_arena_in_order(const struct ap_analysis *a, int32_t map, const int32_t *op,
			   uint64_t n_pages, uint64_t *tails)
{
	uint64_t len = 0;

	for (uint64_t i = 0; i < a->as.n_touches; i++) {
		const struct ap_touch *t = &a->as.touches[i];
		uint64_t lo = 0, hi;
		uint64_t key;

		if ((int32_t)t->map != map || t->page >= n_pages || op[t->page] == AP_OWNER_NONE)
			continue;
		/* (run, op) in one unsigned key: each half with its sign bit flipped keeps the
		 * order of the signed values, and no value a trace holds can overflow it */
		key = (uint64_t)((uint32_t)t->run ^ 0x80000000u) << 32 |
		      ((uint32_t)op[t->page] ^ 0x80000000u);
		hi = len;
		while (lo < hi) {	/* first tail > key */
			uint64_t mid = (lo + hi) / 2;

			if (tails[mid] <= key)
				lo = mid + 1;
			else
				hi = mid;
		}
		tails[lo] = key;
		if (lo == len)
			len++;
	}
	return len;
}

/* ---- the base search (mapping rule with a plan) ---- */

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return AP_CMP(a, b);
}

struct search {
	const struct ap_analysis *a;
	const struct ap_tplan *p;
	int32_t map;
	uint64_t ps, n_pages, touches;
	bool markers;
	int32_t *op;		/* per page of the mapping, for the candidate scored */
	int64_t *starts;
	uint64_t *tails;
	uint32_t n_starts;
	int32_t *blk;		/* plan owners per gran bytes */
	uint64_t n_blk, gran;
};

/* Sorted start offsets of the planned tensors that have a writer. */
static int tensor_starts(struct search *s)
{
	const struct ap_tplan *p = s->p;

	s->starts = malloc((p->n + 1) * sizeof(*s->starts));
	if (!s->starts)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->n; i++)
		if (writer_of(&p->t[i], p->n_ops) != AP_OWNER_NONE)
			s->starts[s->n_starts++] = p->t[i].offset;
	ap_qsort(s->starts, s->n_starts, sizeof(*s->starts), cmp_i64);
	return 0;
}

static bool is_start(const struct search *s, int64_t off)
{
	return s->n_starts && bsearch(&off, s->starts, s->n_starts, sizeof(off), cmp_i64);
}

static void score(struct search *s, struct ap_arena_score *cd)
{
	const struct ap_analysis *a = s->a;

	cd->explained = cd->exact = 0;
	for (uint64_t i = 0; i < a->as.n_touches; i++) {
		const struct ap_touch *t = &a->as.touches[i];
		int64_t off;

		if ((int32_t)t->map != s->map || t->page >= s->n_pages)
			continue;
		if (s->markers && s->op[t->page] == t->op)
			cd->explained++;
		off = (int64_t)(t->page * s->ps + t->in_page) - cd->delta;
		/* a fault mid-page starts a tensor; one at a page start continues a range */
		if ((t->in_page || !off) && is_start(s, off))
			cd->exact++;
	}
	if (!s->markers)
		cd->explained = ap_arena_in_order(a, s->map, s->op, s->n_pages, s->tails);
}

static const char *delta_kind(int64_t d)
{
	if (!d)
		return "the mapping start";
	if (d < 64)
		return "past a malloc chunk header";
	return "a 64-byte-aligned block start";
}

/* Tries the candidate bases: the best in id->cand[0], sorted best first. */
static void try_bases(struct search *s, struct ap_arena_id *id, uint64_t map_bytes)
{
	static const int64_t extra[] = { 64, 16, 8 };

	id->n_cand = 0;
	for (int k = -1; k <= 16 && id->n_cand < AP_ARENA_MAX_CAND; k++) {
		int64_t d = k < 0 ? 0 : k < 3 ? extra[k] : 64 * (k - 1);
		struct ap_arena_score *cd = &id->cand[id->n_cand];

		if (k >= 3 && d == 64)
			continue;
		if (d && (uint64_t)d + s->p->arena_bytes > map_bytes)
			continue;	/* the plan would not fit past this base */
		cd->delta = d;
		ap_arena_page_table(s->p, s->blk, s->n_blk, s->gran, s->ps, s->n_pages, d,
				    s->op);
		score(s, cd);
		id->n_cand++;
	}
	/* best first: explained, then exact starts, then the order tried (start first) */
	for (uint32_t i = 1; i < id->n_cand; i++) {
		struct ap_arena_score v = id->cand[i];
		uint32_t j = i;

		while (j > 0 && (v.explained > id->cand[j - 1].explained ||
				 (v.explained == id->cand[j - 1].explained &&
				  v.exact > id->cand[j - 1].exact))) {
			id->cand[j] = id->cand[j - 1];
			j--;
		}
		id->cand[j] = v;
	}
}

/* The mapping rule's base: the candidate offset the plan explains best. 0, or -ENOMEM. */
static int search_base(const struct ap_analysis *a, const struct ap_tplan *p,
		       struct ap_arena_id *id, char *text, size_t len)
{
	const struct ap_amap *m = &a->as.maps[id->map];
	struct search s = {
		.a = a, .p = p, .map = id->map, .ps = a->hdr.page_size,
		.n_pages = (m->end - m->start) / a->hdr.page_size,
		.markers = a->op_events > 0 || (a->strings[AP_HS_OP_PROBE] &&
						a->strings[AP_HS_OP_PROBE][0]),
	};
	int64_t n;
	int rc = -ENOMEM;

	/* the largest candidate base is under 1 KiB in: past that and the plan, no owner */
	if (s.n_pages > (1024 + p->arena_bytes) / s.ps + 2)
		s.n_pages = (1024 + p->arena_bytes) / s.ps + 2;
	for (uint64_t i = 0; i < a->as.n_touches; i++)
		s.touches += (int32_t)a->as.touches[i].map == id->map;
	/* 8-byte blocks (malloc headers are 8 or 16 bytes), coarser for huge arenas */
	for (s.gran = 8; p->arena_bytes / s.gran > (2u << 20); s.gran *= 2)
		;
	n = ap_arena_page_owners(p, s.gran, &s.blk);
	s.op = malloc((s.n_pages + 1) * sizeof(*s.op));
	s.tails = malloc((s.touches + 1) * sizeof(*s.tails));
	if (n < 0 || !s.op || !s.tails || tensor_starts(&s))
		goto out;
	s.n_blk = (uint64_t)n;
	try_bases(&s, id, m->end - m->start);
	id->base = m->start + (uint64_t)id->cand[0].delta;
	if (!s.touches) {	/* resident before the trace began: n/a, not "0 of 0" */
		snprintf(text, len, "base at mapping start + %" PRId64 " (%s): no first touch "
			 "to score the %u candidates by (the arena was resident before the "
			 "trace began), %" PRIu64 " faults at planned tensor starts",
			 id->cand[0].delta, delta_kind(id->cand[0].delta), id->n_cand,
			 id->cand[0].exact);
		rc = 0;
		goto out;
	}
	n = snprintf(text, len, "base at mapping start + %" PRId64 " (%s), best of %u "
		     "candidates: the plan explains %" PRIu64 " of %" PRIu64
		     " first touches (%s), %" PRIu64 " faults at planned tensor starts",
		     id->cand[0].delta,
		     delta_kind(id->cand[0].delta), id->n_cand, id->cand[0].explained,
		     s.touches, s.markers ? "same operator as the op marker" :
		     "in execution order", id->cand[0].exact);
	if (id->n_cand > 1 && n > 0 && (size_t)n < len)
		snprintf(text + n, len - (size_t)n, "; next +%" PRId64 ": %" PRIu64 ", %" PRIu64,
			 id->cand[1].delta, id->cand[1].explained, id->cand[1].exact);
	rc = 0;
out:
	free(s.op);
	free(s.tails);
	free(s.starts);
	free(s.blk);
	return rc;
}

/* ---- the verdict ---- */

void ap_arena_by_alloc(const struct ap_analysis *a, const struct ap_tplan *p,
		       struct ap_arena_id *id)
{
	const struct ap_allocs *al = a->allocs;
	const struct ap_block *b;
	struct ap_arid r;
	char call[96], who[240];

	memset(id, 0, sizeof(*id));
	id->map = -1;
	id->block = -1;
	if (al->given) {
		id->rule = AP_AR_GIVEN;
		id->by_record = true;
		id->base = al->given_addr;
		id->bytes = p ? p->arena_bytes : 0;
		return;
	}
	ap_arid_find(al, p ? p->arena_bytes : 0, &r);
	id->matches = r.matches;
	snprintf(id->alloc_why, sizeof(id->alloc_why), "%s", r.why);
	if (r.rule != AP_ARID_PLAN_SIZE && r.rule != AP_ARID_RUNTIME)
		return;
	b = &al->b[r.block];
	id->rule = r.rule == AP_ARID_PLAN_SIZE ? AP_AR_ALLOC : AP_AR_RUNTIME;
	id->block = r.block;
	id->base = r.base;
	id->bytes = r.bytes;
	id->n_moves = r.n_moves;
	memcpy(id->moves, r.moves, sizeof(id->moves));
	ap_block_call(b, call, sizeof(call));
	ap_as_addr_name(&a->as, b->caller, who, sizeof(who));
	if (id->rule == AP_AR_ALLOC)
		snprintf(id->why, sizeof(id->why), "allocation probe: %s returned 0x%" PRIx64
			 " in run %d, called from %s: the plan's %" PRIu64 " bytes and %" PRIu64
			 " bytes of alignment slack%s", call, b->ptr, b->run_alloc, who, id->bytes,
			 b->size - id->bytes, r.matches > 1 ?
			 " (the first of several blocks of that size)" : "");
	else
		snprintf(id->why, sizeof(id->why), "allocation probe: no block of the plan's %"
			 PRIu64 " bytes; the runtime's own arena buffer is %s = 0x%" PRIx64
			 " (run %d, from %s): %" PRIu64 " bytes, %.1f %% of the plan",
			 p->arena_bytes, call, b->ptr, b->run_alloc, who, id->bytes,
			 100.0 * (double)id->bytes / (double)p->arena_bytes);
}

/* Later anonymous mappings at least the arena's size, first touched in a later run: the
 * arena re-planned and moved (a resized input), as far as mappings tell. */
static void moves_by_mapping(const struct ap_analysis *a, struct ap_arena_id *id)
{
	const struct ap_amap *ar = &a->as.maps[id->map];

	for (uint32_t i = 0; i < a->as.n_maps && id->n_moves < AP_MAX_MOVES; i++) {
		const struct ap_amap *m = &a->as.maps[i];

		if ((int32_t)i == id->map || !m->anon || !m->first_touch_pages ||
		    m->end - m->start < ar->end - ar->start || m->first_run <= ar->first_run ||
		    m->first_run == INT32_MAX || m->path[0] == '[')
			continue;	/* a runtime's new arena: an anonymous mapping of its own */
		id->moves[id->n_moves++] = (struct ap_arena_move){
			.block = -1, .map = (int32_t)i, .base = m->start,
			.bytes = m->end - m->start, .run = m->first_run,
		};
	}
}

struct ap_arena_cand ap_arena_cand_of(const struct ap_amap *m)
{
	return (struct ap_arena_cand){
		.start = m->start, .end = m->end, .anon = m->anon, .path = m->path,
		.pages = m->first_touch_pages + m->resident_at_attach, .first_run = m->first_run,
	};
}

/* The mapping rule over the pass's mappings, then the base search with a plan. */
static int by_mapping(const struct ap_analysis *a, const struct ap_tplan *p,
		      struct ap_arena_id *id)
{
	struct ap_arena_cand *c = calloc(a->as.n_maps + 1, sizeof(*c));
	char rule[160], base[240] = "";
	bool by_size;

	if (!c)
		return -ENOMEM;
	for (uint32_t i = 0; i < a->as.n_maps; i++)
		c[i] = ap_arena_cand_of(&a->as.maps[i]);
	id->map = ap_arena_pick(c, a->as.n_maps, p, a->hdr.page_size, rule, sizeof(rule), &by_size);
	free(c);
	if (id->map >= 0) {
		const struct ap_amap *m = &a->as.maps[id->map];

		ap_arena_id_mapping(id, id->map, by_size, m->start, m->end, p, rule);
		moves_by_mapping(a, id);
		if (p && p->arena_bytes && search_base(a, p, id, base, sizeof(base)))
			return -ENOMEM;
	}
	snprintf(id->why, sizeof(id->why), "%s%s%s%s%s", id->alloc_why[0] ?
		 "allocation probe: " : "", id->alloc_why, id->alloc_why[0] ? "; by mapping: " :
		 "", rule, base[0] ? "; " : "");
	if (base[0])
		snprintf(id->why + strlen(id->why), sizeof(id->why) - strlen(id->why), "%s",
			 base);
	return 0;
}

int ap_arena_identify(const struct ap_analysis *a, const struct ap_tplan *p, uint64_t given,
		      int32_t region_map, const int32_t *move_map, struct ap_arena_id *id)
{
	if (given) {
		memset(id, 0, sizeof(*id));
		id->block = -1;
		id->rule = AP_AR_GIVEN;
		id->base = given;
		id->map = ap_as_map_at(&a->as, given);
	}
	if (id->rule == AP_AR_GIVEN) {
		const char *who = id->by_record ? "record" : "report";

		if (!id->by_record)
			region_map = id->map;
		id->map = region_map;
		if (id->map < 0) {
			id->rule = AP_AR_NONE;
			snprintf(id->why, sizeof(id->why), "%s --arena 0x%" PRIx64 " is in no "
				 "mapping of the trace", who, id->base);
			id->base = id->bytes = 0;
			return 0;
		}
		if (!id->bytes)
			id->bytes = p ? p->arena_bytes : a->as.maps[id->map].end - id->base;
		snprintf(id->why, sizeof(id->why), "%s --arena 0x%" PRIx64 ": the arena's base "
			 "(mapping start + %" PRIu64 "), the %s size", who, id->base,
			 id->base - a->as.maps[id->map].start, p ? "plan's" : "mapping's");
		return 0;
	}
	if (id->rule == AP_AR_ALLOC || id->rule == AP_AR_RUNTIME) {
		id->map = region_map >= 0 ? region_map : ap_as_map_at(&a->as, id->base);
		for (uint32_t k = 0; k < id->n_moves; k++)
			id->moves[k].map = move_map[k];
		if (id->map >= 0)
			return 0;
		/* the block's pages were never faulted: the mapping rule decides */
		id->rule = AP_AR_NONE;
		id->n_moves = 0;
	}
	return by_mapping(a, p, id);
}
