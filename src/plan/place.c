// SPDX-License-Identifier: Apache-2.0
/*
 * place: SimpleMemoryArena's placement (docs/design.md, Placement) without its scan of
 * every allocation. LiteRT puts each tensor in the best-fitting gap between the tensors
 * already placed whose lifetimes overlap its own, visiting them by offset. The gaps it
 * sees are the free stretches of the union of those tensors' bytes, so the order among
 * equal offsets does not matter, and neither do tensors that end below the running end.
 *
 * The placed records are kept in one treap ordered by (offset, first node, index), each
 * subtree summarised: its lowest offset, its highest end, the range of its first and last
 * nodes, and the aligned sizes of the gaps between its own records (smallest and largest).
 * A placement walks the treap by offset and skips a subtree whole when none of its records
 * is live at the same time as the new one, when it ends below the running end, or when all
 * of its records are live then and none of its gaps could be chosen: a wide fan-in whose
 * tensors are all alive at once costs O(log n), not O(n), and the results are LiteRT's to
 * the byte (tests/unit/test_place.c checks them against its scan).
 */
#include <stdlib.h>

#include "arenaprof/plan/planner.h"

enum fit { FIT_TFLITE, FIT_BEST, FIT_FIRST };

#define GAP_NONE_MAX INT64_MIN
#define GAP_NONE_MIN INT64_MAX

struct pnode {
	uint32_t l, r;		/* children, 0 when none (node 0 is unused) */
	uint32_t prio;
	uint32_t rec;		/* the record this node holds */
	int32_t fmin, fmax;	/* first nodes in the subtree */
	int32_t lmin, lmax;	/* last nodes */
	uint64_t minoff, maxend;
	int64_t gmax, gmin;	/* aligned sizes of the gaps inside the subtree */
	int64_t rmax, rmin;	/* the same for the right child's part of them */
};

struct pindex {
	struct pnode *t;
	const struct ap_rec *r;
	uint64_t align;
	uint32_t root, n;
};

/* A placement query: the record, its window, and the walk's state. */
struct pquery {
	uint64_t size;
	int32_t first, last;
	enum fit fit;
	uint64_t cur;		/* the highest end of the live records visited so far */
	uint64_t best;		/* the chosen offset, UINT64_MAX for none yet */
	int64_t best_fit;	/* the chosen gap as LiteRT remembers it */
	bool done;		/* first fit: found */
};

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static uint64_t rend(const struct ap_rec *r)
{
	return r->offset + r->size;
}

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
static void gaps_from(const struct pindex *x, uint32_t v, uint64_t e, int64_t *mx, int64_t *mn)
{
	while (v && e < x->t[v].maxend) {
		const struct pnode *p = &x->t[v];
		const struct ap_rec *rec = &x->r[p->rec];

		if (e <= p->minoff) {
			gap_acc(x, e, p->minoff, mx, mn);
			if (p->gmax > *mx)
				*mx = p->gmax;
			if (p->gmin < *mn)
				*mn = p->gmin;
			return;
		}
		if (p->l && e < x->t[p->l].maxend) {
			gap_acc(x, x->t[p->l].maxend, rec->offset, mx, mn);
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

static void pull(struct pindex *x, uint32_t v)
{
	struct pnode *p = &x->t[v];
	const struct ap_rec *rec = &x->r[p->rec];
	uint64_t cur = rend(rec);

	p->minoff = rec->offset;
	p->maxend = cur;
	p->fmin = p->fmax = rec->first;
	p->lmin = p->lmax = rec->last;
	p->gmax = GAP_NONE_MAX;
	p->gmin = GAP_NONE_MIN;
	for (int side = 0; side < 2; side++) {
		const struct pnode *c = &x->t[side ? p->r : p->l];

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
	if (p->l) {
		const struct pnode *c = &x->t[p->l];

		p->minoff = c->minoff;
		p->gmax = c->gmax;
		p->gmin = c->gmin;
		gap_acc(x, c->maxend, rec->offset, &p->gmax, &p->gmin);
		if (c->maxend > cur)
			cur = c->maxend;
	}
	p->rmax = GAP_NONE_MAX;
	p->rmin = GAP_NONE_MIN;
	gaps_from(x, p->r, cur, &p->rmax, &p->rmin);
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

/* Inserts node k under v; returns the subtree's new root. Depth O(log n) expected. */
static uint32_t insert(struct pindex *x, uint32_t v, uint32_t k)
{
	struct pnode *t = x->t;
	uint32_t c;

	if (!v) {
		pull(x, k);
		return k;
	}
	if (key_less(x->r, t[k].rec, t[v].rec)) {
		t[v].l = insert(x, t[v].l, k);
		if (t[t[v].l].prio > t[v].prio) {	/* rotate right */
			c = t[v].l;
			t[v].l = t[c].r;
			t[c].r = v;
			pull(x, v);
			pull(x, c);
			return c;
		}
	} else {
		t[v].r = insert(x, t[v].r, k);
		if (t[t[v].r].prio > t[v].prio) {	/* rotate left */
			c = t[v].r;
			t[v].r = t[c].l;
			t[c].l = v;
			pull(x, v);
			pull(x, c);
			return c;
		}
	}
	pull(x, v);
	return v;
}

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

static bool live_with(const struct pquery *q, const struct ap_rec *r)
{
	return r->first <= q->last && r->last >= q->first;
}

/* The records of subtree v live with q, by offset, as LiteRT's scan visits them. */
static void walk(const struct pindex *x, uint32_t v, struct pquery *q)
{
	while (v && !q->done) {
		const struct pnode *p = &x->t[v];
		const struct ap_rec *rec = &x->r[p->rec];

		if (p->maxend <= q->cur || p->fmin > q->last || p->lmax < q->first)
			return;	/* below the running end, or none of it live with q */
		if (p->fmax <= q->last && p->lmin >= q->first && q->cur <= p->minoff) {
			/* all of it live with q: its gaps are the one below it and its own */
			struct pquery s = *q;

			try_gap(x, &s, q->cur, p->minoff);
			if (s.done || p->gmax < (int64_t)q->size || p->gmin >= s.best_fit) {
				*q = s;
				if (p->maxend > q->cur)
					q->cur = p->maxend;
				return;
			}
		}
		walk(x, p->l, q);
		if (q->done)
			return;
		if (live_with(q, rec)) {
			try_gap(x, q, q->cur, rec->offset);
			if (rend(rec) > q->cur)
				q->cur = rend(rec);
		}
		v = p->r;	/* the right child: a loop, not a call */
	}
}

/* A fixed sequence (splitmix32): the same treap on every run. */
static uint32_t prio_of(uint32_t i)
{
	uint32_t z = i * 0x9e3779b9u + 0x7f4a7c15u;

	z = (z ^ (z >> 16)) * 0x85ebca6bu;
	z = (z ^ (z >> 13)) * 0xc2b2ae35u;
	return z ^ (z >> 16);
}

static uint64_t place(struct ap_rec *r, size_t n, uint64_t align, enum fit fit)
{
	struct pindex x = { .r = r, .align = align };
	uint64_t hwm = 0;

	if (n >= UINT32_MAX)
		return UINT64_MAX;
	x.t = calloc(n + 1, sizeof(*x.t));
	if (!x.t)
		return UINT64_MAX;
	for (size_t i = 0; i < n; i++) {
		struct pquery q = { .size = r[i].size, .first = r[i].first, .last = r[i].last,
				    .fit = fit, .best = UINT64_MAX, .best_fit = INT64_MAX };
		struct pnode *k;

		if (r[i].size == 0) {	/* LiteRT: offset 0, resolves to NULL */
			r[i].offset = 0;
			continue;
		}
		walk(&x, x.root, &q);
		r[i].offset = q.best != UINT64_MAX ? q.best : align_up(q.cur, align);
		if (rend(&r[i]) > hwm)
			hwm = rend(&r[i]);
		k = &x.t[++x.n];
		k->rec = (uint32_t)i;
		k->prio = prio_of(x.n);
		x.root = insert(&x, x.root, x.n);
	}
	free(x.t);
	return hwm;
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
