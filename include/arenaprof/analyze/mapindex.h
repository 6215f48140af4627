/* SPDX-License-Identifier: Apache-2.0 */
/*
 * mapindex: mappings found by their bounds. A fault names its vma by (start, end), and so
 * does a maps snapshot; the address-space model (aspace.h) looks its mappings up this way,
 * once per fault. Open addressing on (start, end), the keys
 * held in the index, the values indexes into the caller's array.
 */
#ifndef ARENAPROF_MAPINDEX_H
#define ARENAPROF_MAPINDEX_H

#include <stdint.h>

struct ap_mapindex_slot {
	uint64_t start, end;
	int32_t idx;		/* the value + 1; 0: empty */
};

struct ap_mapindex {
	struct ap_mapindex_slot *slot;
	uint32_t n_slot, n;
};

/* An empty index (zeroed memory is one too). */
void ap_mapindex_init(struct ap_mapindex *x);
/* The index stored for [start, end), or -1. */
int32_t ap_mapindex_find(const struct ap_mapindex *x, uint64_t start, uint64_t end);
/* Stores idx (>= 0) for [start, end), which must not be in yet. 0, or -ENOMEM. */
int ap_mapindex_add(struct ap_mapindex *x, uint64_t start, uint64_t end, int32_t idx);
void ap_mapindex_free(struct ap_mapindex *x);

#endif
