// SPDX-License-Identifier: Apache-2.0
/*
 * newest: disjoint painted ranges in a tsearch tree (newest.h). The tree's order is the
 * ranges' and two that overlap compare equal, so that tfind with a range finds one of
 * those it overlaps and tfind with [addr, addr + 1) the one over addr.
 */
#include <errno.h>
#include <search.h>
#include <stdlib.h>

#include "arenaprof/analyze/newest.h"

struct range {
	uint64_t start, end;
	int32_t id;
};

static int cmp_range(const void *x, const void *y)
{
	const struct range *a = x, *b = y;

	if (a->end <= b->start)
		return -1;
	return b->end <= a->start ? 1 : 0;
}

static int put(struct ap_newest *n, uint64_t start, uint64_t end, int32_t id)
{
	struct range *r = malloc(sizeof(*r));

	if (!r)
		return -ENOMEM;
	*r = (struct range){ start, end, id };
	if (!tsearch(r, &n->root, cmp_range)) {
		free(r);
		return -ENOMEM;
	}
	n->ranges++;
	return 0;
}

int ap_newest_add(struct ap_newest *n, uint64_t start, uint64_t end, int32_t id)
{
	struct range key = { start, end, id };
	void *p;

	while ((p = tfind(&key, &n->root, cmp_range))) {
		struct range *old = *(struct range **)p;

		/* the only range the old one overlaps is itself: the ranges are disjoint */
		tdelete(old, &n->root, cmp_range);
		n->ranges--;
		if ((old->start < start && put(n, old->start, start, old->id)) ||
		    (old->end > end && put(n, end, old->end, old->id))) {
			free(old);
			return -ENOMEM;
		}
		free(old);
	}
	return put(n, start, end, id);
}

int32_t ap_newest_at(const struct ap_newest *n, uint64_t addr)
{
	struct range key = { addr, addr + 1, -1 };
	void *p;

	if (addr == UINT64_MAX)
		return -1;	/* no range ends past it */
	p = tfind(&key, &n->root, cmp_range);
	return p ? (*(struct range **)p)->id : -1;
}

void ap_newest_free(struct ap_newest *n)
{
	tdestroy(n->root, free);
	n->root = NULL;
	n->ranges = 0;
}
