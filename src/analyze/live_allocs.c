// SPDX-License-Identifier: Apache-2.0
/*
 * live_allocs: the live view's allocating calls. Every block the allocation probe reports
 * is kept until its free, under its call site; the sites are ranked by the bytes they
 * hold, and the largest are named from the target's mappings and the ELF symbols (once
 * each: opening an ELF file is not free). The probe reports only large blocks, and after
 * the first run only aligned ones, so a few hundred blocks is the usual size.
 */
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/live.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"

struct block {
	uint64_t ptr, size;
	uint64_t ip;
};

struct ap_live_blocks {
	struct block *b;
	uint32_t n, cap;
};

static struct ap_live_caller *caller_of(struct ap_live *l, uint64_t ip)
{
	struct ap_live_caller *c;

	for (uint32_t i = 0; i < l->n_callers; i++)
		if (l->callers[i].ip == ip)
			return &l->callers[i];
	if (ap_grow32(&l->callers, &l->cap_callers, l->n_callers, sizeof(*l->callers), 16))
		return NULL;
	c = &l->callers[l->n_callers++];
	memset(c, 0, sizeof(*c));
	c->ip = ip;
	return c;
}

static void freed(struct ap_live *l, uint64_t ptr)
{
	struct ap_live_blocks *bs = l->blocks;

	/* the newest first: short-lived blocks are freed soon after they are made */
	for (uint32_t i = bs ? bs->n : 0; i-- > 0;) {
		struct block *b = &bs->b[i];
		struct ap_live_caller *c;

		if (b->ptr != ptr)
			continue;
		c = caller_of(l, b->ip);
		if (c) {
			c->bytes -= b->size;
			c->blocks--;
		}
		l->alloc_bytes -= b->size;
		bs->b[i] = bs->b[--bs->n];
		return;
	}
}

int ap_live_alloc_event(struct ap_live *l, const struct ap_event *ev)
{
	struct ap_live_blocks *bs = l->blocks;
	struct ap_live_caller *c;

	l->alloc_events++;
	if (ev->fn == AP_ALLOC_FREE) {
		freed(l, ev->addr);
		return 0;
	}
	if (!bs) {
		bs = l->blocks = calloc(1, sizeof(*bs));
		if (!bs)
			return -1;
	}
	if (bs->n >= AP_LIVE_BLOCKS) {
		l->blocks_untracked++;
		return 0;
	}
	c = caller_of(l, ev->ip);
	if (!c || ap_grow32(&bs->b, &bs->cap, bs->n, sizeof(*bs->b), 64))
		return -1;
	bs->b[bs->n++] = (struct block){ .ptr = ev->addr, .size = ev->size, .ip = ev->ip };
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
	ap_qsort(l->callers, l->n_callers, sizeof(*l->callers), cmp_caller);
	for (uint32_t i = 0; i < l->n_callers && i < AP_LIVE_NAMED; i++) {
		struct ap_live_caller *c = &l->callers[i];

		if (c->name[0] || !c->bytes)
			continue;
		for (uint32_t k = l->n_maps; k-- > 0;) {
			const struct ap_live_map *m = &l->maps[k];

			if (m->anon || m->path[0] != '/' || c->ip < m->start || c->ip >= m->end)
				continue;
			ap_file_addr_name(m->path, 0, c->ip - m->start + m->offset, c->name,
					  sizeof(c->name));
			break;
		}
	}
}

void ap_live_alloc_free(struct ap_live *l)
{
	if (l->blocks)
		free(l->blocks->b);
	free(l->blocks);
	free(l->callers);
	l->blocks = NULL;
	l->callers = NULL;
}
