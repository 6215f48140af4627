/* SPDX-License-Identifier: Apache-2.0 */
/*
 * grow: room for one more element at the end of a growing array, doubling. Every list the
 * analysis builds from a trace grows this way; the count is checked, so a hostile trace
 * cannot wrap it.
 */
#ifndef ARENAPROF_GROW_H
#define ARENAPROF_GROW_H

#include <stddef.h>
#include <stdint.h>

/*
 * *(void **)v holds *cap elements of elem bytes, n of them used: when n == *cap, the array
 * doubles (to first, from 0). 0, or -ENOMEM (out of memory, or a size that would overflow)
 * with the array and *cap unchanged.
 */
int ap_grow(void *v, uint64_t *cap, uint64_t n, size_t elem, uint64_t first);
/* The same for a 32-bit capacity (at most UINT32_MAX elements). */
int ap_grow32(void *v, uint32_t *cap, uint32_t n, size_t elem, uint32_t first);

#endif
