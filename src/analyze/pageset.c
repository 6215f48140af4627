// SPDX-License-Identifier: Apache-2.0
/* pageset: linear probing over a power-of-two table, kept at most half full. */
#include <stdlib.h>

#include "arenaprof/analyze/pageset.h"

static size_t hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

void ap_pageset_init(struct ap_pageset *s)
{
	s->slot = NULL;
	s->cap = s->n = 0;
}

void ap_pageset_free(struct ap_pageset *s)
{
	free(s->slot);
	ap_pageset_init(s);
}

static int insert(uint64_t *slot, size_t cap, uint64_t stored)
{
	for (size_t i = hash(stored - 1, cap);; i = (i + 1) & (cap - 1)) {
		if (slot[i] == stored)
			return 0;
		if (!slot[i]) {
			slot[i] = stored;
			return 1;
		}
	}
}

static int grow(struct ap_pageset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024;
	uint64_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -1;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i])
			insert(slot, cap, s->slot[i]);
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	return 0;
}

int ap_pageset_add(struct ap_pageset *s, uint64_t key)
{
	int r;

	if (key == UINT64_MAX)
		return -1;	/* key + 1 must not wrap to "empty" */
	if ((s->n + 1) * 2 > s->cap && grow(s))
		return -1;
	r = insert(s->slot, s->cap, key + 1);
	s->n += (size_t)r;
	return r;
}
