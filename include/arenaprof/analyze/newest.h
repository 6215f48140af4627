/* SPDX-License-Identifier: Apache-2.0 */
/*
 * newest: the newest of a growing list of intervals over a point, for the analysis'
 * faults whose vma the tracer could not read (the newest known mapping over the address).
 * Each interval added paints its range over the older ones: the ranges are kept disjoint,
 * each with the newest interval over it, in glibc's tsearch tree (a red-black tree), so an
 * add and a look-up cost O(log n) (amortised: an add splits at most one range in two).
 */
#ifndef ARENAPROF_NEWEST_H
#define ARENAPROF_NEWEST_H

#include <stdint.h>

struct ap_newest {
	void *root;		/* tsearch's */
	uint64_t ranges;	/* in the tree */
};

/* Paints [start, end) (start < end) with id, newer than every id before; -ENOMEM. */
int ap_newest_add(struct ap_newest *n, uint64_t start, uint64_t end, int32_t id);
/* The id of the newest interval over addr, or -1. */
int32_t ap_newest_at(const struct ap_newest *n, uint64_t addr);
void ap_newest_free(struct ap_newest *n);

#endif
