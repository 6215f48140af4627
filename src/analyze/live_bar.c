// SPDX-License-Identifier: Apache-2.0
/*
 * live_bar: the arena's residency bar (live.h's ap_live_bar, which live.c answers from
 * here), counted as pages become held. A frame copies the cells; only a new width or a
 * new arena counts every page again (a pass over the arena at every frame was a frame's
 * whole cost on a large one). A cell's owner is the operator that owns the most of its
 * held pages, the first to get there on a tie.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/arena.h"
#include "arenaprof/analyze/live.h"

struct owner_count {
	uint64_t key;		/* (cell + 1) << 32 | owner: 0 empty */
	uint64_t held;
};

struct ap_live_bar_cells {
	uint32_t n;		/* the cells counted; 0: none (counted at the next frame) */
	uint64_t pages;		/* of the arena, when counted */
	struct ap_live_cell *cell;
	uint64_t *best;		/* the held pages of each cell's owner */
	struct owner_count *slot;	/* held pages by cell and owner, at most half full */
	uint32_t n_slot, used;
};

static uint32_t cell_of(const struct ap_live_bar_cells *b, uint64_t page)
{
	uint32_t c = (uint32_t)(page * b->n / b->pages);

	while (c + 1 < b->n && b->pages * (c + 1) / b->n <= page)
		c++;
	return c;
}

static uint32_t hash(uint64_t key, uint32_t n)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ULL) >> 32) & (n - 1);
}

static struct owner_count *count_of(struct ap_live_bar_cells *b, uint64_t key)
{
	uint32_t h = hash(key, b->n_slot);

	while (b->slot[h].key && b->slot[h].key != key)
		h = (h + 1) & (b->n_slot - 1);
	return &b->slot[h];
}

static int counts_room(struct ap_live_bar_cells *b)
{
	struct owner_count *old = b->slot;
	uint32_t old_n = b->n_slot, n = old_n ? old_n * 2 : 256;

	if ((b->used + 1) * 2 <= b->n_slot)
		return 0;
	b->slot = calloc(n, sizeof(*b->slot));
	if (!b->slot) {
		b->slot = old;
		return -ENOMEM;
	}
	b->n_slot = n;
	for (uint32_t i = 0; i < old_n; i++)
		if (old[i].key)
			*count_of(b, old[i].key) = old[i];
	free(old);
	return 0;
}

/* Page (of the counted arena) became held, written first by owner. -1: out of memory. */
static int held(struct ap_live_bar_cells *b, bool plan, uint64_t page, int32_t owner)
{
	uint32_t c = cell_of(b, page);
	struct owner_count *oc;

	b->cell[c].held++;
	if (!plan)
		return 0;
	if (counts_room(b))
		return -ENOMEM;
	oc = count_of(b, (uint64_t)(c + 1) << 32 | (uint32_t)owner);
	if (!oc->key) {
		oc->key = (uint64_t)(c + 1) << 32 | (uint32_t)owner;
		b->used++;
	}
	if (++oc->held > b->best[c]) {
		b->best[c] = oc->held;
		b->cell[c].owner = owner;
	}
	return 0;
}

void ap_live_bar_held(struct ap_live *l, uint64_t page, int32_t owner)
{
	struct ap_live_bar_cells *b = l->bar;

	if (b && b->n && page < b->pages && held(b, l->plan, page, owner))
		b->n = 0;	/* out of memory: counted again at the next frame */
}

void ap_live_bar_reset(struct ap_live *l)
{
	if (l->bar)
		l->bar->n = 0;
}

/* Every held page of the arena (pages of state) counted into n cells. -1: no memory. */
static int count_all(struct ap_live *l, struct ap_live_bar_cells *b, uint32_t n,
		     const struct ap_live_pages *pg)
{
	free(b->cell);
	free(b->best);
	b->cell = calloc(n, sizeof(*b->cell));
	b->best = calloc(n, sizeof(*b->best));
	if (!b->cell || !b->best)
		return -ENOMEM;
	if (b->slot)
		memset(b->slot, 0, b->n_slot * sizeof(*b->slot));
	b->used = 0;
	b->n = n;
	b->pages = pg->pages;
	for (uint32_t c = 0; c < n; c++) {
		b->cell[c].pages = (uint32_t)(b->pages * (c + 1) / n - b->pages * c / n);
		b->cell[c].owner = AP_OWNER_NONE;
	}
	for (uint64_t p = 0; p < b->pages; p++)
		if (pg->state[p] && held(b, l->plan, p, p < pg->n_owner ? pg->owner[p] :
					 AP_OWNER_NONE))
			return -ENOMEM;
	return 0;
}

uint32_t ap_live_bar_cells(struct ap_live *l, struct ap_live_cell *cells, uint32_t n,
			   const struct ap_live_pages *pg)
{
	struct ap_live_bar_cells *b = l->bar;
	uint64_t pages = pg->pages;

	if (!pages || !n)
		return 0;
	if (n > pages)
		n = (uint32_t)pages;
	if (!b && !(b = l->bar = calloc(1, sizeof(*b))))
		return 0;
	if ((b->n != n || b->pages != pages) && count_all(l, b, n, pg)) {
		b->n = 0;
		return 0;
	}
	memcpy(cells, b->cell, n * sizeof(*cells));
	return n;
}

void ap_live_bar_free(struct ap_live *l)
{
	struct ap_live_bar_cells *b = l->bar;

	if (b) {
		free(b->cell);
		free(b->best);
		free(b->slot);
	}
	free(b);
	l->bar = NULL;
}
