/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stl_order: LiteRT sorts the tensors it allocates with std::sort, whose comparator
 * leaves tensors of equal size and first node unordered, over a list gathered from
 * std::unordered_set<int> buckets. Where such ties exist the resulting offsets depend on
 * libstdc++'s iteration order and sort algorithm, so to reproduce LiteRT byte for byte
 * this module emulates both (libstdc++ of GCC 9-14: _Prime_rehash_policy, the
 * singly-linked node list of _Hashtable, and introsort with a threshold of 16).
 */
#ifndef ARENAPROF_STL_ORDER_H
#define ARENAPROF_STL_ORDER_H

#include <stddef.h>
#include <stdint.h>

/* std::unordered_set<int32_t> with std::hash (identity) and max_load_factor 1. */
struct ap_uset {
	int32_t *val, *next;	/* node pool; node 0 is _M_before_begin */
	int32_t *bucket;	/* node before the bucket's first node, or -1 */
	size_t n_nodes, cap, n_bkt, next_resize, count;
};

void ap_uset_init(struct ap_uset *s);
/* Inserts v (>= 0) unless present; -ENOMEM on allocation failure. */
int ap_uset_insert(struct ap_uset *s, int32_t v);
/* Appends the elements in iteration order to out; returns how many. */
size_t ap_uset_iterate(const struct ap_uset *s, int32_t *out);
void ap_uset_free(struct ap_uset *s);

/* std::sort of int32 keys with a strict-weak-order "less" (libstdc++ introsort). */
void ap_std_sort(int32_t *a, size_t n, int (*less)(int32_t x, int32_t y, const void *ctx),
		 const void *ctx);

#endif
