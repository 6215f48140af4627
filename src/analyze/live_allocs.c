// SPDX-License-Identifier: Apache-2.0
/*
 * live_allocs: the live view's allocating calls. Every block the allocation probe reports
 * is kept until its free, under its call site; the sites are ranked by the bytes they
 * hold (live.c names the largest). The probe reports only large blocks, and after the
 * first run only aligned ones, so a few hundred blocks is the usual size. XNNPACK's
 * blocks (every size: its allocator's five functions are probed) are kept in the same
 * table under their site of live_xnn.c instead, not a caller's: the C library's block
 * that XNNPACK's allocator took (its event comes first, the same pointer) leaves the
 * callers then, so that a block is counted once.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/live.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"

#define NAMED_KEPT 256		/* named sites kept while they hold nothing */

struct block {
	uint64_t ptr, size;	/* ptr 0: an empty slot */
	uint64_t ip;
	uint32_t xsite;		/* XNNPACK's: its live_xnn.c site (index + 1); 0 a caller's */
};

/*
 * The blocks not freed, by address, and the call sites, by ip: open addressing with
 * linear probing, at most half full. A free finds its block in O(1) (a scan of every
 * block was quadratic in a service's day), and an event its site.
 */
struct ap_live_blocks {
	struct block *slot;
	uint32_t n, n_slot;
	uint32_t *site;		/* index into l->callers + 1; 0 empty */
	uint32_t n_site;
};

static uint32_t hash(uint64_t v, uint32_t n)
{
	return (uint32_t)((v * 0x9e3779b97f4a7c15ULL) >> 32) & (n - 1);
}

/* The slot holding ptr, or the empty one where it would go. */
static uint32_t block_slot(const struct ap_live_blocks *bs, uint64_t ptr)
{
	uint32_t h = hash(ptr, bs->n_slot);

	while (bs->slot[h].ptr && bs->slot[h].ptr != ptr)
		h = (h + 1) & (bs->n_slot - 1);
	return h;
}

static int blocks_room(struct ap_live_blocks *bs)
{
	struct block *old = bs->slot;
	uint32_t old_n = bs->n_slot, n = old_n ? old_n * 2 : 256;

	if ((bs->n + 1) * 2 <= bs->n_slot)
		return 0;
	bs->slot = calloc(n, sizeof(*bs->slot));
	if (!bs->slot) {
		bs->slot = old;
		return -ENOMEM;
	}
	bs->n_slot = n;
	for (uint32_t i = 0; i < old_n; i++)
		if (old[i].ptr)
			bs->slot[block_slot(bs, old[i].ptr)] = old[i];
	free(old);
	return 0;
}

/* Empties slot i, moving back the blocks after it that probed past it. */
static void block_del(struct ap_live_blocks *bs, uint32_t i)
{
	uint32_t mask = bs->n_slot - 1;

	bs->slot[i].ptr = 0;
	bs->n--;
	for (uint32_t j = (i + 1) & mask; bs->slot[j].ptr; j = (j + 1) & mask) {
		uint32_t h = hash(bs->slot[j].ptr, bs->n_slot);

		/* j's block may fill the hole when its home is not in (i, j] */
		if (((j - h) & mask) >= ((j - i) & mask)) {
			bs->slot[i] = bs->slot[j];
			bs->slot[j].ptr = 0;
			i = j;
		}
	}
}

/* The site table's slot for ip: the one holding it, or the empty one where it goes. */
static uint32_t site_slot(const struct ap_live *l, uint64_t ip)
{
	const struct ap_live_blocks *bs = l->blocks;
	uint32_t h = hash(ip, bs->n_site);

	while (bs->site[h] && l->callers[bs->site[h] - 1].ip != ip)
		h = (h + 1) & (bs->n_site - 1);
	return h;
}

/* The site table again, for l->callers as they are now (sorted, compacted, or grown). */
static int sites_index(struct ap_live *l)
{
	struct ap_live_blocks *bs = l->blocks;
	uint32_t n = bs->n_site ? bs->n_site : 64;

	while (n < 2 * (l->n_callers + 1))
		n *= 2;
	if (n != bs->n_site) {
		uint32_t *site = calloc(n, sizeof(*site));

		if (!site)
			return -ENOMEM;
		free(bs->site);
		bs->site = site;
		bs->n_site = n;
	} else {
		memset(bs->site, 0, n * sizeof(*bs->site));
	}
	for (uint32_t i = 0; i < l->n_callers; i++)
		bs->site[site_slot(l, l->callers[i].ip)] = i + 1;
	return 0;
}

static struct ap_live_caller *caller_of(struct ap_live *l, uint64_t ip)
{
	struct ap_live_blocks *bs = l->blocks;
	struct ap_live_caller *c;
	uint32_t h;

	if (2 * (l->n_callers + 1) > bs->n_site && sites_index(l))
		return NULL;
	h = site_slot(l, ip);
	if (bs->site[h])
		return &l->callers[bs->site[h] - 1];
	if (ap_grow32(&l->callers, &l->cap_callers, l->n_callers, sizeof(*l->callers), 16))
		return NULL;
	c = &l->callers[l->n_callers++];
	memset(c, 0, sizeof(*c));
	c->ip = ip;
	bs->site[h] = l->n_callers;
	return c;
}

/* The block at ptr no longer held: its bytes leave its site and the total. */
static void freed(struct ap_live *l, uint64_t ptr)
{
	struct ap_live_blocks *bs = l->blocks;
	uint32_t i;
	struct ap_live_caller *c;

	if (!bs || !bs->n || !ptr)
		return;
	i = block_slot(bs, ptr);
	if (!bs->slot[i].ptr)
		return;		/* a block never seen, or past AP_LIVE_BLOCKS */
	if (bs->slot[i].xsite) {
		ap_live_xnn_held(l, bs->slot[i].xsite, bs->slot[i].size, false);
		block_del(bs, i);
		return;
	}
	c = caller_of(l, bs->slot[i].ip);
	if (c) {
		c->bytes -= bs->slot[i].size;
		c->blocks--;
	}
	l->alloc_bytes -= bs->slot[i].size;
	block_del(bs, i);
}

int ap_live_alloc_event(struct ap_live *l, const struct ap_event *ev)
{
	struct ap_live_blocks *bs = l->blocks;
	struct ap_live_caller *c;
	uint32_t i;

	bool xnn = ap_alloc_fn_xnn((uint32_t)ev->fn);
	uint32_t xsite = 0;

	if (xnn)
		l->xnn.events++;
	else
		l->alloc_events++;
	if (!bs) {
		bs = l->blocks = calloc(1, sizeof(*bs));
		if (!bs)
			return -ENOMEM;
	}
	/* a block at an address still held was freed unseen: the new one replaces it (and
	 * XNNPACK's replaces the C library's block its allocator took) */
	freed(l, ev->addr);
	ap_live_xnn_gone(l, ev->addr);
	if (ev->fn == AP_ALLOC_FREE || !ev->addr)
		return 0;
	if (!xnn)
		ap_live_xnn_libc(l, ev);
	if (bs->n >= AP_LIVE_BLOCKS) {
		l->blocks_untracked++;
		return 0;
	}
	if (blocks_room(bs))
		return -ENOMEM;
	if (xnn) {
		/* its align field holds the caller's caller (event.h) */
		xsite = ap_live_xnn_site(l, ev->ip, ev->align);
		if (!xsite)
			return -ENOMEM;
		i = block_slot(bs, ev->addr);
		bs->slot[i] = (struct block){ .ptr = ev->addr, .size = ev->size, .ip = ev->ip,
					      .xsite = xsite };
		bs->n++;
		ap_live_xnn_held(l, xsite, ev->size, true);
		return 0;
	}
	c = caller_of(l, ev->ip);
	if (!c)
		return -ENOMEM;
	i = block_slot(bs, ev->addr);
	bs->slot[i] = (struct block){ .ptr = ev->addr, .size = ev->size, .ip = ev->ip };
	bs->n++;
	c->bytes += ev->size;
	c->blocks++;
	l->alloc_bytes += ev->size;
	return 0;
}

static int cmp_caller(const void *a, const void *b)
{
	const struct ap_live_caller *x = a, *y = b;
	int r = AP_CMP(y->bytes, x->bytes);

	return r ? r : AP_CMP(x->ip, y->ip);
}

void ap_live_alloc_sample(struct ap_live *l)
{
	uint32_t k = 0;

	/* sites that hold nothing are dropped, but for NAMED_KEPT named ones (a name costs an
	 * ELF file's symbols): the sites are at most the blocks held, and those */
	for (uint32_t i = 0, named = 0; i < l->n_callers; i++)
		if (l->callers[i].blocks || (l->callers[i].name[0] && named++ < NAMED_KEPT))
			l->callers[k++] = l->callers[i];
	l->n_callers = k;
	ap_qsort(l->callers, l->n_callers, sizeof(*l->callers), cmp_caller);
	if (l->blocks && sites_index(l)) {	/* no room: the sites start again */
		l->n_callers = 0;
		free(l->blocks->site);
		l->blocks->site = NULL;
		l->blocks->n_site = 0;
	}
}

void ap_live_alloc_free(struct ap_live *l)
{
	if (l->blocks) {
		free(l->blocks->slot);
		free(l->blocks->site);
	}
	free(l->blocks);
	free(l->callers);
	l->blocks = NULL;
	l->callers = NULL;
}
