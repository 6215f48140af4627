// SPDX-License-Identifier: Apache-2.0
/*
 * overlap: the first source interval over each query (overlap.h). Queries in the order of
 * their ends; the sources that start before a query's end are added to a Fenwick tree
 * over their ends (largest first) that keeps the smallest source index: the answer is the
 * smallest index among the sources that end after the query's start, a prefix of it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "arenaprof/analyze/overlap.h"
#include "arenaprof/util/order.h"

struct ctx {
	const struct ap_span *s;
	bool by_end;
};

static int cmp_span(const void *x, const void *y, void *c)
{
	const struct ctx *cx = c;
	const struct ap_span *a = &cx->s[*(const uint32_t *)x], *b = &cx->s[*(const uint32_t *)y];

	return cx->by_end ? AP_CMP(a->end, b->end) : AP_CMP(a->start, b->start);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return AP_CMP(a, b);
}

/* Ends, sorted and distinct: the tree's positions are these from the largest down. */
static uint32_t distinct_ends(const struct ap_span *src, uint32_t n, uint64_t *ends)
{
	uint32_t u = 0;

	for (uint32_t k = 0; k < n; k++)
		ends[k] = src[k].end;
	if (n > 1)
		qsort(ends, n, sizeof(*ends), cmp_u64);
	for (uint32_t k = 0; k < n; k++)
		if (!u || ends[u - 1] != ends[k])
			ends[u++] = ends[k];
	return u;
}

/* The first of ends[0..u) above v (u: none). */
static uint32_t above(const uint64_t *ends, uint32_t u, uint64_t v)
{
	uint32_t lo = 0, hi = u;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (ends[mid] <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int first_by_tree(const struct ap_span *src, uint32_t n_src, const struct ap_span *q,
			 uint32_t n_q, int32_t *first);

/*
 * Few sources (a trace's snapshots name a handful of mappings over a million vmas of
 * faults): each query scans them, O(n_q x n_src), without sorting the queries.
 */
#define SCAN_SOURCES 64

static void scan(const struct ap_span *src, uint32_t n_src, const struct ap_span *q,
		 uint32_t n_q, int32_t *first)
{
	for (uint32_t j = 0; j < n_q; j++) {
		first[j] = -1;
		for (uint32_t k = 0; k < n_src; k++)
			if (src[k].start < q[j].end && q[j].start < src[k].end) {
				first[j] = (int32_t)k;
				break;
			}
	}
}

int ap_overlap_first(const struct ap_span *src, uint32_t n_src, const struct ap_span *q,
		     uint32_t n_q, int32_t *first)
{
	if (n_src <= SCAN_SOURCES) {
		scan(src, n_src, q, n_q, first);
		return 0;
	}
	return first_by_tree(src, n_src, q, n_q, first);
}

static int first_by_tree(const struct ap_span *src, uint32_t n_src, const struct ap_span *q,
			 uint32_t n_q, int32_t *first)
{
	struct ctx cs = { .s = src }, cq = { .s = q, .by_end = true };
	uint64_t *ends = malloc(((size_t)n_src + 1) * sizeof(*ends));
	int32_t *tree = malloc(((size_t)n_src + 1) * sizeof(*tree));	/* 1-based */
	uint32_t *by_start = ap_order_index(n_src, cmp_span, &cs);
	uint32_t *by_end = ap_order_index(n_q, cmp_span, &cq);
	uint32_t u, next = 0;
	int rc = -ENOMEM;

	if (!ends || !tree || !by_start || !by_end)
		goto out;
	u = distinct_ends(src, n_src, ends);
	for (uint32_t i = 0; i <= u; i++)
		tree[i] = -1;
	for (uint32_t j = 0; j < n_q; j++) {
		const struct ap_span *x = &q[by_end[j]];
		int32_t best = -1;
		uint32_t pos;

		for (; next < n_src && src[by_start[next]].start < x->end; next++) {
			uint32_t k = by_start[next];

			if (!src[k].end)
				continue;	/* [s, 0) overlaps nothing */
			/* position: 1 for the largest end */
			pos = u - above(ends, u, src[k].end - 1);
			for (; pos <= u; pos += pos & -pos)
				if (tree[pos] < 0 || tree[pos] > (int32_t)k)
					tree[pos] = (int32_t)k;
		}
		/* the sources that end above the query's start: positions 1..pos */
		for (pos = u - above(ends, u, x->start); pos; pos -= pos & -pos)
			if (tree[pos] >= 0 && (best < 0 || tree[pos] < best))
				best = tree[pos];
		first[by_end[j]] = best;
	}
	rc = 0;
out:
	free(ends);
	free(tree);
	free(by_start);
	free(by_end);
	return rc;
}
