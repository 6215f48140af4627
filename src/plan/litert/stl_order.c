// SPDX-License-Identifier: Apache-2.0
/*
 * stl_order: an emulation, written from the documented behaviour of libstdc++'s
 * _Hashtable and std::sort, of the orders LiteRT's planner sees (see stl_order.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/stl_order.h"

/* The start of libstdc++'s __prime_list (sets in a planner stay far below its end). */
static const unsigned long primes[] = {
	2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79,
	83, 89, 97, 103, 109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227,
	241, 257, 277, 293, 313, 337, 359, 383, 409, 439, 467, 503, 541, 577, 619, 661, 709,
	761, 823, 887, 953, 1031, 1109, 1193, 1289, 1381, 1493, 1613, 1741, 1879, 2029,
	2179, 2357, 2549, 2753, 2971, 3209, 3469, 3739, 4027, 4349, 4703, 5087, 5503, 5953,
	6427, 6949, 7517, 8123, 8783, 9497, 10273, 11113, 12011, 12983, 14033, 15173,
	16411, 17749, 19183, 20753, 22447, 24281, 26267, 28411, 30727, 33223, 35933, 38873,
	42043, 45481, 49201, 53201, 57557, 62233, 67307, 72817, 78779, 85229, 92203, 99733,
	107897, 116731, 126271, 136607, 147793, 159871, 172933, 187091, 202409, 218971,
	236897, 256279, 277261, 299951, 324503, 351061, 379787, 410857, 444487, 480881,
	520241, 562841, 608903, 658753, 712697, 771049, 834181, 902483, 976369,
};
#define N_PRIMES (sizeof(primes) / sizeof(primes[0]))

/* _Prime_rehash_policy::_M_next_bkt with max_load_factor 1. */
static size_t next_bkt(struct ap_uset *s, size_t n)
{
	static const unsigned char fast[] = { 2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13 };
	size_t lo = 6, hi = N_PRIMES - 1;

	if (n < sizeof(fast)) {
		if (n == 0)
			return 1;
		s->next_resize = fast[n];
		return fast[n];
	}
	while (lo < hi) {	/* lower_bound over [6, last) */
		size_t mid = (lo + hi) / 2;

		if (primes[mid] < n)
			lo = mid + 1;
		else
			hi = mid;
	}
	s->next_resize = lo == N_PRIMES - 1 ? SIZE_MAX : primes[lo];
	return primes[lo];
}

/* _M_need_rehash(n_bkt, n_elt, 1): the new bucket count, or 0. */
static size_t need_rehash(struct ap_uset *s)
{
	size_t want = s->count + 1, min_bkts;

	if (want <= s->next_resize)
		return 0;
	min_bkts = want > (s->next_resize ? 0 : 11) ? want : 11;
	if (min_bkts >= s->n_bkt)
		return next_bkt(s, min_bkts + 1 > s->n_bkt * 2 ? min_bkts + 1 : s->n_bkt * 2);
	s->next_resize = s->n_bkt;
	return 0;
}

void ap_uset_init(struct ap_uset *s)
{
	memset(s, 0, sizeof(*s));
	s->n_bkt = 1;
}

void ap_uset_free(struct ap_uset *s)
{
	free(s->val);
	free(s->next);
	free(s->bucket);
	memset(s, 0, sizeof(*s));
}

static size_t bkt_of(const struct ap_uset *s, int32_t v)
{
	return (size_t)(uint32_t)v % s->n_bkt;
}

/* _M_rehash_aux for unique keys: relinks every node into the new buckets. */
static int rehash(struct ap_uset *s, size_t n)
{
	int32_t *b = malloc(n * sizeof(*b));
	int32_t p = s->next[0];
	size_t bbegin = 0;

	if (!b)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		b[i] = -1;
	s->next[0] = -1;
	s->n_bkt = n;
	while (p >= 0) {
		int32_t nx = s->next[p];
		size_t k = bkt_of(s, s->val[p]);

		if (b[k] < 0) {
			s->next[p] = s->next[0];
			s->next[0] = p;
			b[k] = 0;
			if (s->next[p] >= 0)
				b[bbegin] = p;
			bbegin = k;
		} else {
			s->next[p] = s->next[b[k]];
			s->next[b[k]] = p;
		}
		p = nx;
	}
	free(s->bucket);
	s->bucket = b;
	return 0;
}

int ap_uset_insert(struct ap_uset *s, int32_t v)
{
	size_t k, nb;
	int32_t node;

	if (!s->val) {	/* node 0: _M_before_begin */
		s->cap = 16;
		s->val = malloc(s->cap * sizeof(*s->val));
		s->next = malloc(s->cap * sizeof(*s->next));
		s->bucket = malloc(sizeof(*s->bucket));
		if (!s->val || !s->next || !s->bucket)
			return -ENOMEM;
		s->val[0] = -1;
		s->next[0] = -1;
		s->bucket[0] = -1;
		s->n_nodes = 1;
	}
	k = bkt_of(s, v);
	if (s->bucket[k] >= 0)
		for (int32_t p = s->next[s->bucket[k]]; p >= 0 && bkt_of(s, s->val[p]) == k;
		     p = s->next[p])
			if (s->val[p] == v)
				return 0;
	nb = need_rehash(s);
	if (nb && rehash(s, nb))
		return -ENOMEM;
	if (s->n_nodes == s->cap) {
		size_t cap = s->cap * 2;
		int32_t *val = realloc(s->val, cap * sizeof(*val));
		int32_t *nx;

		if (!val)
			return -ENOMEM;
		s->val = val;
		nx = realloc(s->next, cap * sizeof(*nx));
		if (!nx)
			return -ENOMEM;
		s->next = nx;
		s->cap = cap;
	}
	node = (int32_t)s->n_nodes++;
	s->val[node] = v;
	k = bkt_of(s, v);
	/* _M_insert_bucket_begin */
	if (s->bucket[k] >= 0) {
		s->next[node] = s->next[s->bucket[k]];
		s->next[s->bucket[k]] = node;
	} else {
		s->next[node] = s->next[0];
		s->next[0] = node;
		if (s->next[node] >= 0)
			s->bucket[bkt_of(s, s->val[s->next[node]])] = node;
		s->bucket[k] = 0;
	}
	s->count++;
	return 0;
}

size_t ap_uset_iterate(const struct ap_uset *s, int32_t *out)
{
	size_t n = 0;

	if (!s->val)
		return 0;
	for (int32_t p = s->next[0]; p >= 0; p = s->next[p])
		out[n++] = s->val[p];
	return n;
}

/* ---- std::sort (libstdc++ introsort: threshold 16, median of three, heap fallback) */

struct sorter {
	int32_t *a;
	int (*less)(int32_t, int32_t, const void *);
	const void *ctx;
};

#define LESS(x, y) so->less((x), (y), so->ctx)
#define SWAP(i, j) do { int32_t t_ = so->a[i]; so->a[i] = so->a[j]; so->a[j] = t_; } while (0)

static void move_median_to_first(struct sorter *so, size_t r, size_t x, size_t y, size_t z)
{
	int32_t *a = so->a;

	if (LESS(a[x], a[y])) {
		if (LESS(a[y], a[z]))
			SWAP(r, y);
		else if (LESS(a[x], a[z]))
			SWAP(r, z);
		else
			SWAP(r, x);
	} else if (LESS(a[x], a[z])) {
		SWAP(r, x);
	} else if (LESS(a[y], a[z])) {
		SWAP(r, z);
	} else {
		SWAP(r, y);
	}
}

static size_t unguarded_partition(struct sorter *so, size_t first, size_t last, size_t piv)
{
	int32_t *a = so->a;

	for (;;) {
		while (LESS(a[first], a[piv]))
			first++;
		last--;
		while (LESS(a[piv], a[last]))
			last--;
		if (!(first < last))
			return first;
		SWAP(first, last);
		first++;
	}
}

static void adjust_heap(struct sorter *so, size_t first, size_t hole, size_t len, int32_t v)
{
	int32_t *a = so->a;
	size_t top = hole, child = hole;

	while (child < (len - 1) / 2) {
		child = 2 * (child + 1);
		if (LESS(a[first + child], a[first + child - 1]))
			child--;
		a[first + hole] = a[first + child];
		hole = child;
	}
	if ((len & 1) == 0 && child == (len - 2) / 2) {
		child = 2 * (child + 1);
		a[first + hole] = a[first + child - 1];
		hole = child - 1;
	}
	/* __push_heap */
	while (hole > top) {
		size_t parent = (hole - 1) / 2;

		if (!LESS(a[first + parent], v))
			break;
		a[first + hole] = a[first + parent];
		hole = parent;
	}
	a[first + hole] = v;
}

/* __partial_sort(first, last, last): make_heap then sort_heap. */
static void heap_sort(struct sorter *so, size_t first, size_t last)
{
	size_t len = last - first;

	if (len < 2)
		return;
	for (size_t parent = (len - 2) / 2;; parent--) {
		adjust_heap(so, first, parent, len, so->a[first + parent]);
		if (parent == 0)
			break;
	}
	while (last - first > 1) {
		int32_t v;

		last--;
		v = so->a[last];
		so->a[last] = so->a[first];
		adjust_heap(so, first, 0, last - first, v);
	}
}

static void introsort_loop(struct sorter *so, size_t first, size_t last, size_t depth)
{
	while (last - first > 16) {
		size_t mid, cut;

		if (depth == 0) {
			heap_sort(so, first, last);
			return;
		}
		depth--;
		mid = first + (last - first) / 2;
		move_median_to_first(so, first, first + 1, mid, last - 1);
		cut = unguarded_partition(so, first + 1, last, first);
		introsort_loop(so, cut, last, depth);
		last = cut;
	}
}

static void unguarded_linear_insert(struct sorter *so, size_t last)
{
	int32_t *a = so->a, v = a[last];
	size_t next = last - 1;

	while (LESS(v, a[next])) {
		a[last] = a[next];
		last = next;
		next--;
	}
	a[last] = v;
}

static void insertion_sort(struct sorter *so, size_t first, size_t last)
{
	int32_t *a = so->a;

	if (first == last)
		return;
	for (size_t i = first + 1; i < last; i++) {
		if (LESS(a[i], a[first])) {
			int32_t v = a[i];

			memmove(&a[first + 1], &a[first], (i - first) * sizeof(*a));
			a[first] = v;
		} else {
			unguarded_linear_insert(so, i);
		}
	}
}

void ap_std_sort(int32_t *a, size_t n, int (*less)(int32_t x, int32_t y, const void *ctx),
		 const void *ctx)
{
	struct sorter s = { .a = a, .less = less, .ctx = ctx }, *so = &s;
	size_t lg = 0;

	if (n < 2)
		return;
	while ((n >> (lg + 1)) != 0)
		lg++;
	introsort_loop(so, 0, n, 2 * lg);
	if (n > 16) {
		insertion_sort(so, 0, 16);
		for (size_t i = 16; i < n; i++)
			unguarded_linear_insert(so, i);
	} else {
		insertion_sort(so, 0, n);
	}
}
