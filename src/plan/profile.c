// SPDX-License-Identifier: Apache-2.0
/* profile: breadth, lower bound and the overlap checker, for any plan. */
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
		return -1;
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
		return -1;
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

static int cmp_offset(const void *a, const void *b, void *ctx)
{
	const struct ap_tplan *p = ctx;
	const struct ap_ptensor *x = &p->t[*(const int32_t *)a];
	const struct ap_ptensor *y = &p->t[*(const int32_t *)b];

	return AP_CMP(x->offset, y->offset);
}

int ap_tplan_check(const struct ap_tplan *p, char *err)
{
	int32_t *v = malloc((p->n + 1) * sizeof(*v));
	size_t n = 0;

	if (!v) {
		ap_seterr(err, "out of memory checking the plan");
		return -1;
	}
	for (uint32_t i = 0; i < p->n; i++)
		if (ap_ptensor_in_arena(&p->t[i]))
			v[n++] = (int32_t)i;
	qsort_r(v, n, sizeof(*v), cmp_offset, (void *)p);
	/* Sweep by offset: only tensors that start before this one ends can collide. */
	for (size_t a = 0; a < n; a++) {
		const struct ap_ptensor *x = &p->t[v[a]];
		int64_t end = x->offset + (int64_t)x->bytes;

		for (size_t b = a + 1; b < n && p->t[v[b]].offset < end; b++) {
			const struct ap_ptensor *y = &p->t[v[b]];
			int32_t xl = x->last == AP_LAST_END ? INT32_MAX : x->last;
			int32_t yl = y->last == AP_LAST_END ? INT32_MAX : y->last;

			if (xl < y->first || yl < x->first)
				continue;
			ap_seterr(err, "tensors %d and %d overlap: [%" PRId64 ", %" PRId64
				  ") and [%" PRId64 ", %" PRId64 ") while both live "
				  "(nodes %d-%d and %d-%d)", x->index, y->index, x->offset,
				  end, y->offset, y->offset + (int64_t)y->bytes, x->first, xl,
				  y->first, yl);
			free(v);
			return -1;
		}
	}
	free(v);
	return 0;
}
