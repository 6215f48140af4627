// SPDX-License-Identifier: Apache-2.0
/* mapindex: mappings found by their bounds (mapindex.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/mapindex.h"

void ap_mapindex_init(struct ap_mapindex *x)
{
	memset(x, 0, sizeof(*x));
}

static uint32_t hash(uint64_t start, uint64_t end, uint32_t n)
{
	return (uint32_t)(((start >> 12) ^ (end >> 9)) * 0x9e3779b97f4a7c15ULL >> 32) & (n - 1);
}

/* slot[] holds idx + 1, so that zeroed memory is empty */
int32_t ap_mapindex_find(const struct ap_mapindex *x, uint64_t start, uint64_t end)
{
	if (!x->n_slot)
		return -1;
	for (uint32_t h = hash(start, end, x->n_slot); x->slot[h].idx;
	     h = (h + 1) & (x->n_slot - 1)) {
		if (x->slot[h].start == start && x->slot[h].end == end)
			return x->slot[h].idx - 1;
	}
	return -1;
}

static void put(struct ap_mapindex_slot *slot, uint32_t n, uint64_t start, uint64_t end,
		int32_t stored)
{
	uint32_t h = hash(start, end, n);

	while (slot[h].idx)
		h = (h + 1) & (n - 1);
	slot[h] = (struct ap_mapindex_slot){ .start = start, .end = end, .idx = stored };
}

int ap_mapindex_add(struct ap_mapindex *x, uint64_t start, uint64_t end, int32_t idx)
{
	/* at most half full: probes stay short */
	if ((x->n + 1) * 2 > x->n_slot) {
		uint32_t n = x->n_slot ? x->n_slot * 2 : 256;
		struct ap_mapindex_slot *slot = calloc(n, sizeof(*slot));

		if (!slot)
			return -ENOMEM;
		for (uint32_t i = 0; i < x->n_slot; i++)
			if (x->slot[i].idx)
				put(slot, n, x->slot[i].start, x->slot[i].end, x->slot[i].idx);
		free(x->slot);
		x->slot = slot;
		x->n_slot = n;
	}
	put(x->slot, x->n_slot, start, end, idx + 1);
	x->n++;
	return 0;
}

void ap_mapindex_free(struct ap_mapindex *x)
{
	free(x->slot);
	memset(x, 0, sizeof(*x));
}
