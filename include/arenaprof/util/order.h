/* SPDX-License-Identifier: Apache-2.0 */
/*
 * order: sorting with a context instead of a file-scope pointer (glibc's qsort_r), and
 * the sorted index of n elements, for views that list a table in another order.
 */
#ifndef ARENAPROF_ORDER_H
#define ARENAPROF_ORDER_H

#include <stdint.h>

/* A three-way comparison of two values of any integer type: -1, 0 or 1. */
#define AP_CMP(a, b) (((a) > (b)) - ((a) < (b)))

/* cmp's arguments are the indexes (const uint32_t *) and ctx. */
typedef int (*ap_order_cmp)(const void *x, const void *y, void *ctx);

/* 0..n-1 sorted by cmp, malloc'd (n + 1 entries), or NULL when out of memory. */
uint32_t *ap_order_index(uint32_t n, ap_order_cmp cmp, void *ctx);

#endif
