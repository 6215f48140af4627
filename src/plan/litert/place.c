// SPDX-License-Identifier: Apache-2.0
/*
 * place: SimpleMemoryArena's placement (docs/design.md, Placement) without its scan of
 * every allocation. LiteRT puts each tensor in the best-fitting gap between the tensors
 * already placed whose lifetimes overlap its own (its candidates), visiting them by
 * offset. The gaps it sees are the free stretches of the union of the candidates' bytes,
 * so the order among equal offsets does not matter, and neither do candidates that end
 * below the running end. Two ways find the candidates, and each placement takes the one
 * that costs less:
 *
 * - time buckets: node time cut into buckets of BUCKET_NODES, a short-lived record
 *   (at most SHORT_BUCKETS buckets) listed in each it touches; the candidates are those
 *   of the placement's buckets, sorted by offset. Cheap when lifetimes are short: a chain;
 * - treaps ordered by (offset, first node, index), every subtree summarised (its lowest
 *   and highest offset, its highest end, the range of its first and last nodes, the
 *   smallest and largest aligned gap between its own records): a walk by offset skips a
 *   subtree whole when none of it is live with the new record, when it ends below the
 *   running end, or when all of it is live and none of its gaps could be chosen. Cheap
 *   when many tensors are alive at once: a fan-in of 100,000 costs O(log n) a placement.
 *
 * The long-lived records are in one treap (walked with the buckets' candidates merged in
 * by offset), and every record in another, built the first time a placement's buckets
 * hold more than SCAN_DIRECT records; a walk of it that visits more nodes than WALK_RATIO
 * times the records of the buckets is given up for the buckets. Memory is linear: each
 * record in SHORT_BUCKETS lists at most and in two treaps. The offsets are LiteRT's to the
 * byte: tests/unit/test_plan_ref.c checks them against its scan.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/planner.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/order.h"

enum fit { FIT_TFLITE, FIT_BEST, FIT_FIRST };

/* tests/unit/test_place_tuned.c sets them small, so that every path is taken */
#ifndef BUCKET_NODES
#define BUCKET_NODES 32
#define SHORT_BUCKETS 8		/* a record in more buckets goes to the long treap */
#define SCAN_DIRECT 256		/* bucket entries below which the buckets are used as is */
#define WALK_RATIO 4
#endif

#define GAP_NONE_MAX INT64_MIN
#define GAP_NONE_MIN INT64_MAX

struct pnode {
	uint32_t l, r;		/* children, 0 when none (node 0 is unused) */
	uint32_t prio;
	uint32_t rec;		/* the record this node holds */
	int32_t fmin, fmax;	/* first nodes in the subtree */
	int32_t lmin, lmax;	/* last nodes */
	uint64_t minoff, maxoff, maxend;
	int64_t gmax, gmin;	/* aligned sizes of the gaps inside the subtree */
	int64_t rmax, rmin;	/* the same for the right child's part of them */
};

struct treap {
	struct pnode *t;
	uint32_t root, n;
};

struct pindex {
	const struct ap_rec *r;
	uint64_t align;
	struct treap lng, all;	/* long-lived records; every record (once needed) */
	bool have_all;
	/* time buckets of the short-lived records */
	int64_t tmin, tmax;
	size_t n_bkt;
	uint32_t **list, *len, *cap;
	uint64_t *fen;		/* a Fenwick tree of the lists' lengths */
	uint32_t *stamp;	/* last placement that saw a record (dedup) */
	uint32_t *cand;		/* the buckets' candidates of one placement */
};

/* A placement: the record, its window, the walk's state and what it merges in. */
struct pquery {
	uint64_t size;
	int32_t first, last;
	enum fit fit;
	uint64_t cur;		/* the highest end of the candidates visited so far */
	uint64_t best;		/* the chosen offset, UINT64_MAX for none yet */
	int64_t best_fit;	/* the chosen gap as LiteRT remembers it */
	bool done;		/* first fit: found */
	const uint32_t *ext;	/* candidates from the buckets, by offset, merged in */
	size_t n_ext, i_ext;
	uint64_t visits, budget;	/* treap nodes visited; the most allowed, 0: any */
	bool gave_up;
};

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static uint64_t rend(const struct ap_rec *r)
{
	return r->offset + r->size;
}

/* ---- the treaps */

/* The gap [lo, hi) into the running extremes: its size from the aligned start. */
static void gap_acc(const struct pindex *x, uint64_t lo, uint64_t hi, int64_t *mx, int64_t *mn)
{
	int64_t a;

	if (hi <= lo)
		return;
	a = (int64_t)hi - (int64_t)align_up(lo, x->align);
	if (a > *mx)
		*mx = a;
	if (a < *mn)
		*mn = a;
}

/*
 * The extremes of the gaps that walking subtree v's records by offset finds when the
 * running end is e on entry. One path down: a left child that e does not cover leaves its
 * node's right part as the node summarised it.
 */
static void gaps_from(const struct pindex *x, const struct pnode *t, uint32_t v, uint64_t e,
		      int64_t *mx, int64_t *mn)
{
	while (v && e < t[v].maxend) {
		const struct pnode *p = &t[v];
		const struct ap_rec *rec = &x->r[p->rec];

		if (e <= p->minoff) {
			gap_acc(x, e, p->minoff, mx, mn);
			if (p->gmax > *mx)
				*mx = p->gmax;
			if (p->gmin < *mn)
				*mn = p->gmin;
			return;
		}
		if (p->l && e < t[p->l].maxend) {
			gap_acc(x, t[p->l].maxend, rec->offset, mx, mn);
			if (p->rmax > *mx)
				*mx = p->rmax;
			if (p->rmin < *mn)
				*mn = p->rmin;
			v = p->l;
			continue;
		}
		gap_acc(x, e, rec->offset, mx, mn);
		if (rend(rec) > e)
			e = rend(rec);
		v = p->r;
	}
}

static void pull(const struct pindex *x, struct pnode *t, uint32_t v)
{
	struct pnode *p = &t[v];
	const struct ap_rec *rec = &x->r[p->rec];
	uint64_t cur = rend(rec);

	p->minoff = p->maxoff = rec->offset;
	p->maxend = cur;
	p->fmin = p->fmax = rec->first;
	p->lmin = p->lmax = rec->last;
	p->gmax = GAP_NONE_MAX;
	p->gmin = GAP_NONE_MIN;
	for (int side = 0; side < 2; side++) {
		const struct pnode *c = &t[side ? p->r : p->l];

		if (!(side ? p->r : p->l))
			continue;
		if (c->maxend > p->maxend)
			p->maxend = c->maxend;
		if (c->fmin < p->fmin)
			p->fmin = c->fmin;
		if (c->fmax > p->fmax)
			p->fmax = c->fmax;
		if (c->lmin < p->lmin)
			p->lmin = c->lmin;
		if (c->lmax > p->lmax)
			p->lmax = c->lmax;
	}
	if (p->r)
		p->maxoff = t[p->r].maxoff;
	if (p->l) {
		const struct pnode *c = &t[p->l];

		p->minoff = c->minoff;
		p->gmax = c->gmax;
		p->gmin = c->gmin;
		gap_acc(x, c->maxend, rec->offset, &p->gmax, &p->gmin);
		if (c->maxend > cur)
			cur = c->maxend;
	}
	p->rmax = GAP_NONE_MAX;
	p->rmin = GAP_NONE_MIN;
	gaps_from(x, t, p->r, cur, &p->rmax, &p->rmin);
	if (p->rmax > p->gmax)
		p->gmax = p->rmax;
	if (p->rmin < p->gmin)
		p->gmin = p->rmin;
}

static bool key_less(const struct ap_rec *r, uint32_t a, uint32_t b)
{
	if (r[a].offset != r[b].offset)
		return r[a].offset < r[b].offset;
	if (r[a].first != r[b].first)
		return r[a].first < r[b].first;
	return a < b;
}

/* Lifts v's child c (its left one when left) above v; returns c, the subtree's root. */
static uint32_t rotate_up(const struct pindex *x, struct pnode *t, uint32_t v, bool left)
{
	uint32_t c = left ? t[v].l : t[v].r;

	if (left) {
		t[v].l = t[c].r;
		t[c].r = v;
	} else {
		t[v].r = t[c].l;
		t[c].l = v;
	}
	pull(x, t, v);
	pull(x, t, c);
	return c;
}

/* Inserts node k under v; returns the subtree's new root. Depth O(log n) expected. */
static uint32_t insert_at(const struct pindex *x, struct pnode *t, uint32_t v, uint32_t k)
{
	if (!v) {
		pull(x, t, k);
		return k;
	}
	if (key_less(x->r, t[k].rec, t[v].rec)) {
		t[v].l = insert_at(x, t, t[v].l, k);
		if (t[t[v].l].prio > t[v].prio)
			return rotate_up(x, t, v, true);
	} else {
		t[v].r = insert_at(x, t, t[v].r, k);
		if (t[t[v].r].prio > t[v].prio)
			return rotate_up(x, t, v, false);
	}
	pull(x, t, v);
	return v;
}

/* A fixed sequence (splitmix32): the same treap on every run. */
static uint32_t prio_of(uint32_t i)
{
	uint32_t z = i * 0x9e3779b9u + 0x7f4a7c15u;

	z = (z ^ (z >> 16)) * 0x85ebca6bu;
	z = (z ^ (z >> 13)) * 0xc2b2ae35u;
	return z ^ (z >> 16);
}

static void treap_add(const struct pindex *x, struct treap *tr, uint32_t rec)
{
	struct pnode *k = &tr->t[++tr->n];

	k->rec = rec;
	k->prio = prio_of(tr->n);
	tr->root = insert_at(x, tr->t, tr->root, tr->n);
}

/* ---- a placement's walk */

/* SimpleMemoryArena::Allocate's test of one gap [lo, hi), lo the running end. */
static void try_gap(const struct pindex *x, struct pquery *q, uint64_t lo, uint64_t hi)
{
	uint64_t at = align_up(lo, x->align);

	if (q->done || hi <= lo || at + q->size > hi || (int64_t)(hi - at) >= q->best_fit)
		return;
	q->best = at;
	/* LiteRT stores the gap measured from the unaligned end. */
	q->best_fit = (int64_t)(hi - (q->fit == FIT_TFLITE ? lo : at));
	if (q->fit == FIT_FIRST)
		q->done = true;
}

static void visit(const struct pindex *x, struct pquery *q, const struct ap_rec *rec)
{
	try_gap(x, q, q->cur, rec->offset);
	if (rend(rec) > q->cur)
		q->cur = rend(rec);
}

/* The merged candidates below offset off, first. */
static void flush_below(const struct pindex *x, struct pquery *q, uint64_t off)
{
	while (q->i_ext < q->n_ext && x->r[q->ext[q->i_ext]].offset < off && !q->done)
		visit(x, q, &x->r[q->ext[q->i_ext++]]);
}

static bool live_with(const struct pquery *q, const struct ap_rec *r)
{
	return r->first <= q->last && r->last >= q->first;
}

/* Subtree p all live with q, nothing merged inside it: its gaps are the one below and its
 * own. Whether that settles it (true) or its records must be visited one by one. */
static bool summarised(const struct pindex *x, const struct pnode *p, struct pquery *q)
{
	struct pquery s = *q;

	if (p->fmax > q->last || p->lmin < q->first || q->cur > p->minoff ||
	    (q->i_ext < q->n_ext && x->r[q->ext[q->i_ext]].offset <= p->maxoff))
		return false;
	try_gap(x, &s, q->cur, p->minoff);
	if (!s.done && p->gmax >= (int64_t)q->size && p->gmin < s.best_fit)
		return false;	/* one of its own gaps may be chosen */
	*q = s;
	if (p->maxend > q->cur)
		q->cur = p->maxend;
	return true;
}

/* The records of subtree v live with q, by offset, as LiteRT's scan visits them. */
static void walk(const struct pindex *x, const struct pnode *t, uint32_t v, struct pquery *q)
{
	while (v && !q->done && !q->gave_up) {
		const struct pnode *p = &t[v];
		const struct ap_rec *rec = &x->r[p->rec];

		if (q->budget && ++q->visits > q->budget) {
			q->gave_up = true;
			return;
		}
		flush_below(x, q, p->minoff);
		if (p->maxend <= q->cur || p->fmin > q->last || p->lmax < q->first)
			return;	/* below the running end, or none of it live with q */
		if (summarised(x, p, q))
			return;
		walk(x, t, p->l, q);
		flush_below(x, q, rec->offset);
		if (q->done || q->gave_up)
			return;
		if (live_with(q, rec))
			visit(x, q, rec);
		v = p->r;	/* the right child: a loop, not a call */
	}
}

/* ---- the time buckets */

static int64_t clamp_last(const struct ap_rec *r, int64_t tmax)
{
	return r->last == AP_NODE_NONE ? tmax : r->last;
}

static size_t bucket_of(const struct pindex *x, int64_t t)
{
	return (size_t)((t - x->tmin) / BUCKET_NODES);
}

static bool is_short(const struct pindex *x, const struct ap_rec *r)
{
	return bucket_of(x, clamp_last(r, x->tmax)) - bucket_of(x, r->first) < SHORT_BUCKETS;
}

static void fen_add(struct pindex *x, size_t b, uint64_t v)
{
	for (size_t i = b + 1; i <= x->n_bkt; i += i & -i)
		x->fen[i] += v;
}

static uint64_t fen_sum(const struct pindex *x, size_t b)	/* buckets [0, b) */
{
	uint64_t s = 0;

	for (size_t i = b; i > 0; i -= i & -i)
		s += x->fen[i];
	return s;
}

/* The first bucket from b on that lists something, n_bkt for none: O(log n). */
static size_t fen_next(const struct pindex *x, size_t b)
{
	uint64_t want = fen_sum(x, b) + 1;	/* the first bucket whose prefix reaches it */
	size_t at = 0, step = 1;

	while (step * 2 <= x->n_bkt)
		step *= 2;
	for (; step; step /= 2) {
		if (at + step <= x->n_bkt && x->fen[at + step] < want) {
			at += step;
			want -= x->fen[at];
		}
	}
	return at;	/* buckets [0, at) hold less than the prefix wanted */
}

static int buckets_add(struct pindex *x, uint32_t i)
{
	const struct ap_rec *r = &x->r[i];
	size_t hi = bucket_of(x, clamp_last(r, x->tmax));

	for (size_t b = bucket_of(x, r->first); b <= hi; b++) {
		if (ap_grow32(&x->list[b], &x->cap[b], x->len[b], sizeof(**x->list), 8))
			return -ENOMEM;
		x->list[b][x->len[b]++] = i;
		fen_add(x, b, 1);
	}
	return 0;
}

static int cmp_offset(const void *pa, const void *pb, void *ctx)
{
	const struct ap_rec *r = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	return r[a].offset != r[b].offset ? AP_CMP(r[a].offset, r[b].offset) : AP_CMP(a, b);
}

/* The short-lived candidates of record i, by offset, into x->cand: their count. */
static size_t bucket_cands(struct pindex *x, uint32_t i)
{
	const struct ap_rec *q = &x->r[i];
	size_t hi = bucket_of(x, clamp_last(q, x->tmax)), nc = 0;

	for (size_t b = fen_next(x, bucket_of(x, q->first)); b <= hi; b = fen_next(x, b + 1)) {
		for (uint32_t k = 0; k < x->len[b]; k++) {
			uint32_t j = x->list[b][k];
			const struct ap_rec *a = &x->r[j];

			if (x->stamp[j] == i)
				continue;
			x->stamp[j] = i;
			if (a->first <= q->last && a->last >= q->first)
				x->cand[nc++] = j;
		}
	}
	qsort_r(x->cand, nc, sizeof(*x->cand), cmp_offset, (void *)x->r);
	return nc;
}

static int pindex_init(struct pindex *x, const struct ap_rec *r, size_t n, uint64_t align)
{
	int64_t lo = INT64_MAX, hi = INT64_MIN;

	memset(x, 0, sizeof(*x));
	x->r = r;
	x->align = align;
	for (size_t i = 0; i < n; i++) {
		if (r[i].first < lo)
			lo = r[i].first;
		if (r[i].first > hi)
			hi = r[i].first;
		if (r[i].last != AP_NODE_NONE && r[i].last > hi)
			hi = r[i].last;
	}
	if (!n)
		lo = hi = 0;
	x->tmin = lo;
	x->tmax = hi;
	x->n_bkt = (size_t)((hi - lo) / BUCKET_NODES) + 1;
	x->list = calloc(x->n_bkt, sizeof(*x->list));
	x->len = calloc(x->n_bkt, sizeof(*x->len));
	x->cap = calloc(x->n_bkt, sizeof(*x->cap));
	x->fen = calloc(x->n_bkt + 1, sizeof(*x->fen));
	x->stamp = malloc((n + 1) * sizeof(*x->stamp));
	x->cand = malloc((n + 1) * sizeof(*x->cand));
	x->lng.t = calloc(n + 1, sizeof(*x->lng.t));
	if (!x->list || !x->len || !x->cap || !x->fen || !x->stamp || !x->cand || !x->lng.t)
		return -ENOMEM;
	memset(x->stamp, 0xff, (n + 1) * sizeof(*x->stamp));
	return 0;
}

static void pindex_free(struct pindex *x)
{
	for (size_t b = 0; x->list && b < x->n_bkt; b++)
		free(x->list[b]);
	free(x->list);
	free(x->len);
	free(x->cap);
	free(x->fen);
	free(x->stamp);
	free(x->cand);
	free(x->lng.t);
	free(x->all.t);
}

/* The treap of every record, built from those placed before record i. 0 or -1. */
static int build_all(struct pindex *x, size_t n, size_t i)
{
	x->all.t = calloc(n + 1, sizeof(*x->all.t));
	if (!x->all.t)
		return -ENOMEM;
	for (size_t j = 0; j < i; j++)
		if (x->r[j].size)
			treap_add(x, &x->all, (uint32_t)j);
	x->have_all = true;
	return 0;
}

/* Where record i goes; -ENOMEM when out of memory. */
static int place_one(struct pindex *x, size_t n, size_t i, enum fit fit, uint64_t *offset)
{
	const struct ap_rec *r = &x->r[i];
	struct pquery q = { .size = r->size, .first = r->first, .last = r->last, .fit = fit,
			    .best = UINT64_MAX, .best_fit = INT64_MAX };
	size_t lo = bucket_of(x, r->first), hi = bucket_of(x, clamp_last(r, x->tmax));
	uint64_t scan = fen_sum(x, hi + 1) - fen_sum(x, lo);
	bool found = false;

	if (scan > SCAN_DIRECT) {	/* many short-lived candidates: try the whole treap */
		struct pquery w = q;

		if (!x->have_all && build_all(x, n, i))
			return -ENOMEM;
		w.budget = WALK_RATIO * scan;
		walk(x, x->all.t, x->all.root, &w);
		if (!w.gave_up) {
			q = w;
			found = true;
		}
	}
	if (!found) {
		q.n_ext = bucket_cands(x, (uint32_t)i);
		q.ext = x->cand;
		walk(x, x->lng.t, x->lng.root, &q);
		flush_below(x, &q, UINT64_MAX);
	}
	*offset = q.best != UINT64_MAX ? q.best : align_up(q.cur, x->align);
	return 0;
}

static uint64_t place(struct ap_rec *r, size_t n, uint64_t align, enum fit fit)
{
	struct pindex x;
	uint64_t hwm = 0;

	if (n >= UINT32_MAX || pindex_init(&x, r, n, align)) {
		pindex_free(&x);
		return UINT64_MAX;
	}
	for (size_t i = 0; i < n; i++) {
		if (r[i].size == 0) {	/* LiteRT: offset 0, resolves to NULL */
			r[i].offset = 0;
			continue;
		}
		if (place_one(&x, n, i, fit, &r[i].offset))
			goto oom;
		if (rend(&r[i]) > hwm)
			hwm = rend(&r[i]);
		if (!is_short(&x, &r[i]))
			treap_add(&x, &x.lng, (uint32_t)i);
		else if (buckets_add(&x, (uint32_t)i))
			goto oom;
		if (x.have_all)
			treap_add(&x, &x.all, (uint32_t)i);
	}
	pindex_free(&x);
	return hwm;
oom:
	pindex_free(&x);
	return UINT64_MAX;
}

uint64_t ap_place_tflite(struct ap_rec *r, size_t n, uint64_t align)
{
	return place(r, n, align, FIT_TFLITE);
}

uint64_t ap_place_best_fit(struct ap_rec *r, size_t n, uint64_t align)
{
	return place(r, n, align, FIT_BEST);
}

uint64_t ap_place_first_fit(struct ap_rec *r, size_t n)
{
	return place(r, n, 1, FIT_FIRST);
}
