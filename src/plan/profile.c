// SPDX-License-Identifier: Apache-2.0
/* profile: breadth, lower bound and the overlap checker, for any plan. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"

/* Lifetimes as closed intervals over operators; a first of -1 (before op 0) counts as
 * op 0. */
static int32_t lo(const struct ap_ptensor *t)
{
	return t->first < 0 ? 0 : t->first;
}

static int32_t hi(const struct ap_ptensor *t, uint32_t n_ops)
{
	if (t->last == AP_LAST_END)
		return n_ops ? (int32_t)n_ops - 1 : 0;
	return t->last < 0 ? 0 : t->last;
}

int ap_ptensor_live_at(const struct ap_ptensor *t, int32_t op)
{
	int32_t last = t->last == AP_LAST_END ? INT32_MAX : t->last;

	return ap_ptensor_in_arena(t) && lo(t) <= op && op <= last;
}

int ap_profile_compute(const struct ap_tplan *p, struct ap_profile *pr)
{
	int64_t *delta;
	int64_t acc = 0;

	memset(pr, 0, sizeof(*pr));
	pr->widest_op = -1;
	pr->n_ops = p->n_ops;
	pr->breadth = calloc(p->n_ops + 1, sizeof(*pr->breadth));
	delta = calloc(p->n_ops + 2, sizeof(*delta));
	if (!pr->breadth || !delta) {
		free(delta);
		ap_profile_free(pr);
		return -ENOMEM;
	}
	/* A difference array: O(tensors + operators). */
	for (uint32_t i = 0; i < p->n; i++) {
		const struct ap_ptensor *t = &p->t[i];

		/* dead before op 0 (micro: an input no operator reads) is live at none, as
		 * ap_ptensor_live_at says */
		if (!ap_ptensor_in_arena(t) || (t->last != AP_LAST_END && t->last < 0))
			continue;
		delta[lo(t)] += (int64_t)t->bytes;
		delta[hi(t, p->n_ops) + 1] -= (int64_t)t->bytes;
	}
	for (uint32_t i = 0; i < p->n_ops; i++) {
		acc += delta[i];
		pr->breadth[i] = (uint64_t)acc;
		if (pr->widest_op < 0 || pr->breadth[i] > pr->lower_bound) {
			pr->lower_bound = pr->breadth[i];
			pr->widest_op = (int32_t)i;
		}
	}
	free(delta);
	return 0;
}

void ap_profile_free(struct ap_profile *pr)
{
	free(pr->breadth);
	memset(pr, 0, sizeof(*pr));
}

static int cmp_bytes_desc(const void *a, const void *b, void *ctx)
{
	const struct ap_tplan *p = ctx;
	const struct ap_ptensor *x = &p->t[*(const int32_t *)a];
	const struct ap_ptensor *y = &p->t[*(const int32_t *)b];

	return x->bytes != y->bytes ? AP_CMP(y->bytes, x->bytes) : AP_CMP(x->index, y->index);
}

int ap_profile_live(const struct ap_tplan *p, int32_t op, int32_t **out)
{
	int32_t *v = malloc((p->n + 1) * sizeof(*v));
	int n = 0;

	*out = v;
	if (!v)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->n; i++)
		if (ap_ptensor_live_at(&p->t[i], op))
			v[n++] = (int32_t)i;
	qsort_r(v, (size_t)n, sizeof(*v), cmp_bytes_desc, (void *)p);
	return n;
}

static int cmp_breadth_desc(const void *a, const void *b, void *ctx)
{
	const struct ap_profile *pr = ctx;
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return pr->breadth[x] != pr->breadth[y] ? AP_CMP(pr->breadth[y], pr->breadth[x]) :
						  AP_CMP(x, y);
}

uint32_t *ap_profile_rank(const struct ap_profile *pr)
{
	return ap_order_index(pr->n_ops, cmp_breadth_desc, (void *)pr);
}

/* A tensor's last node, the end as INT32_MAX. */
static int32_t last_of(const struct ap_ptensor *t)
{
	return t->last == AP_LAST_END ? INT32_MAX : t->last;
}

static int cmp_first(const void *a, const void *b, void *ctx)
{
	const struct ap_tplan *p = ctx;
	const struct ap_ptensor *x = &p->t[*(const int32_t *)a];
	const struct ap_ptensor *y = &p->t[*(const int32_t *)b];

	if (x->first != y->first)
		return AP_CMP(x->first, y->first);
	return x->offset != y->offset ? AP_CMP(x->offset, y->offset) : AP_CMP(x->index, y->index);
}

static int cmp_last(const void *a, const void *b, void *ctx)
{
	const struct ap_tplan *p = ctx;
	const struct ap_ptensor *x = &p->t[*(const int32_t *)a];
	const struct ap_ptensor *y = &p->t[*(const int32_t *)b];

	return last_of(x) != last_of(y) ? AP_CMP(last_of(x), last_of(y)) :
					  AP_CMP(x->index, y->index);
}

/*
 * The tensors live at the current node, by offset: a segment tree over the distinct
 * offsets (a slot each, since live tensors at one offset already overlap) that finds the
 * nearest occupied slot on either side in O(log n).
 */
struct live_set {
	int64_t *offs;		/* the distinct offsets, ascending */
	int32_t *slot;		/* the tensor in each, -1 for none */
	uint32_t *cnt;		/* occupied slots under each tree node */
	size_t n, size;		/* offsets; leaves (a power of two) */
};

static size_t slot_of(const struct live_set *s, int64_t off)
{
	size_t lo = 0, hi = s->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s->offs[mid] < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void live_set_mark(struct live_set *s, size_t k, int32_t t)
{
	s->slot[k] = t;
	for (size_t v = k + s->size; v; v /= 2)
		s->cnt[v] += t >= 0 ? 1 : (uint32_t)-1;
}

/* The occupied slot nearest to k: below it (dir -1) or above it (+1); SIZE_MAX for none. */
static size_t live_set_near(const struct live_set *s, size_t k, int dir)
{
	size_t v = k + s->size;

	for (; v > 1; v /= 2) {	/* up to the first sibling with something on that side */
		size_t sib = dir < 0 ? v - 1 : v + 1;

		if ((dir < 0 ? v & 1 : !(v & 1)) && s->cnt[sib])
			break;
	}
	if (v <= 1)
		return SIZE_MAX;
	v = dir < 0 ? v - 1 : v + 1;
	while (v < s->size)	/* down to its leaf nearest k */
		v = dir < 0 ? (s->cnt[2 * v + 1] ? 2 * v + 1 : 2 * v) :
			      (s->cnt[2 * v] ? 2 * v : 2 * v + 1);
	return v - s->size;
}

static int cmp_i64(const void *a, const void *b)
{
	return AP_CMP(*(const int64_t *)a, *(const int64_t *)b);
}

static int live_set_init(struct live_set *s, const struct ap_tplan *p, const int32_t *v,
			 size_t n)
{
	size_t m = 0;

	memset(s, 0, sizeof(*s));
	s->offs = malloc((n + 1) * sizeof(*s->offs));
	if (!s->offs)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++)
		s->offs[k] = p->t[v[k]].offset;
	ap_qsort(s->offs, n, sizeof(*s->offs), cmp_i64);
	for (size_t k = 0; k < n; k++)
		if (!m || s->offs[m - 1] != s->offs[k])
			s->offs[m++] = s->offs[k];
	s->n = m;
	for (s->size = 1; s->size < m; s->size *= 2)
		;
	s->slot = malloc((m + 1) * sizeof(*s->slot));
	s->cnt = calloc(2 * s->size, sizeof(*s->cnt));
	if (!s->slot || !s->cnt)
		return -ENOMEM;
	memset(s->slot, 0xff, (m + 1) * sizeof(*s->slot));
	return 0;
}

static void live_set_free(struct live_set *s)
{
	free(s->offs);
	free(s->slot);
	free(s->cnt);
}

/* Sets err for tensors x and y, which share bytes while both live. */
static int overlap(const struct ap_tplan *p, int32_t a, int32_t b, char *err)
{
	const struct ap_ptensor *x = &p->t[a], *y = &p->t[b];

	if (y->offset < x->offset || (y->offset == x->offset && y->index < x->index)) {
		const struct ap_ptensor *t = x;

		x = y;
		y = t;
	}
	ap_seterr(err, "tensors %d and %d overlap: [%" PRId64 ", %" PRId64 ") and [%" PRId64
		  ", %" PRId64 ") while both live (nodes %d-%d and %d-%d)", x->index, y->index,
		  x->offset, x->offset + (int64_t)x->bytes, y->offset,
		  y->offset + (int64_t)y->bytes, x->first, last_of(x), y->first, last_of(y));
	return -EINVAL;
}

/*
 * A sweep over the nodes: tensors enter the live set at their first node and leave it
 * after their last, and each entering one is checked against its neighbours by offset
 * (the live tensors are disjoint so far, so no other can touch it). O(n log n). A tensor
 * whose last node comes before its first is live at none (ap_ptensor_live_at).
 */
int ap_tplan_check(const struct ap_tplan *p, char *err)
{
	int32_t *v = malloc((p->n + 1) * sizeof(*v)), *by_last = malloc((p->n + 1) * sizeof(*v));
	struct live_set s = { 0 };
	size_t n = 0, gone = 0;
	int rc = -1;

	if (!v || !by_last)
		goto oom;
	for (uint32_t i = 0; i < p->n; i++)
		if (ap_ptensor_in_arena(&p->t[i]) && p->t[i].first <= last_of(&p->t[i]))
			v[n++] = (int32_t)i;
	qsort_r(v, n, sizeof(*v), cmp_first, (void *)p);
	memcpy(by_last, v, n * sizeof(*v));
	qsort_r(by_last, n, sizeof(*v), cmp_last, (void *)p);
	if (live_set_init(&s, p, v, n))
		goto oom;
	rc = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		const struct ap_ptensor *t = &p->t[v[k]];
		size_t at, lo, hi;

		for (; gone < n && last_of(&p->t[by_last[gone]]) < t->first; gone++)
			live_set_mark(&s, slot_of(&s, p->t[by_last[gone]].offset), -1);
		at = slot_of(&s, t->offset);
		lo = s.slot[at] >= 0 ? at : live_set_near(&s, at, -1);
		hi = live_set_near(&s, at, 1);
		if (lo != SIZE_MAX && p->t[s.slot[lo]].offset + (int64_t)p->t[s.slot[lo]].bytes >
				      t->offset)
			rc = overlap(p, s.slot[lo], v[k], err);
		else if (hi != SIZE_MAX && p->t[s.slot[hi]].offset < t->offset + (int64_t)t->bytes)
			rc = overlap(p, s.slot[hi], v[k], err);
		else
			live_set_mark(&s, at, v[k]);
	}
	live_set_free(&s);
	free(v);
	free(by_last);
	return rc;
oom:
	live_set_free(&s);
	free(v);
	free(by_last);
	return ap_fail(err, -ENOMEM, "out of memory checking the plan");
}
