// SPDX-License-Identifier: Apache-2.0
/* arena: which mapping is the arena, and which operator owns each of its pages (arena.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/arena.h"

/* An arena lives in a plain anonymous mapping or in [heap], never in [stack], [vdso]... */
static bool candidate(const struct ap_arena_cand *m)
{
	return m->anon && m->pages && (m->path[0] != '[' || !strcmp(m->path, "[heap]"));
}

static uint64_t bytes_of(const struct ap_arena_cand *m)
{
	return m->end - m->start;
}

int32_t ap_arena_pick(const struct ap_arena_cand *c, uint32_t n, const struct ap_tplan *plan,
		      uint64_t page_size, char *rule, size_t len)
{
	uint64_t page = page_size ? page_size : 4096;
	int32_t best = -1;

	if (plan && plan->arena_bytes) {
		uint64_t want = (plan->arena_bytes + page - 1) / page * page;

		/* a mapping of the planned size, or one holding it with malloc's slack */
		for (uint32_t i = 0; i < n; i++) {
			const struct ap_arena_cand *m = &c[i];

			if (!candidate(m) || bytes_of(m) < want || bytes_of(m) > want + 2 * page)
				continue;
			if (best < 0 || bytes_of(m) < bytes_of(&c[best]) ||
			    (bytes_of(m) == bytes_of(&c[best]) && m->first_run < c[best].first_run))
				best = (int32_t)i;
		}
		if (best >= 0) {
			snprintf(rule, len, "anonymous mapping of the plan's arena size (%" PRIu64
				 " bytes planned, %" PRIu64 " mapped)", plan->arena_bytes,
				 bytes_of(&c[best]));
			return best;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (!candidate(&c[i]))
			continue;
		if (best < 0 || c[i].pages > c[best].pages)
			best = (int32_t)i;
	}
	snprintf(rule, len, "%s", best < 0 ? "no anonymous mapping faulted" : plan ?
		 "largest faulted anonymous mapping (none matches the plan's arena size)" :
		 "largest faulted anonymous mapping (no plan given)");
	return best;
}

/* The writer of a plan tensor: an operator, AP_OWNER_INPUT, or AP_OWNER_NONE. */
static int32_t writer_of(const struct ap_ptensor *t, uint32_t n_ops)
{
	if (t->bytes == 0 || t->offset < 0)
		return AP_OWNER_NONE;
	if (t->kind == AP_KIND_INPUT)
		return AP_OWNER_INPUT;
	if ((t->kind == AP_KIND_ARENA || t->kind == AP_KIND_OUTPUT ||
	     t->kind == AP_KIND_TEMPORARY) && t->first >= 0 && (uint32_t)t->first < n_ops)
		return t->first;
	return AP_OWNER_NONE;
}

int64_t ap_arena_page_owners(const struct ap_tplan *plan, uint64_t page_size, int32_t **owner)
{
	uint64_t page = page_size ? page_size : 4096;
	uint64_t pages = (plan->arena_bytes + page - 1) / page;
	int32_t *o = malloc((pages ? pages : 1) * sizeof(*o));

	*owner = NULL;
	if (!o)
		return -1;
	for (uint64_t i = 0; i < pages; i++)
		o[i] = AP_OWNER_NONE;
	for (uint32_t i = 0; i < plan->n; i++) {
		const struct ap_ptensor *t = &plan->t[i];
		int32_t w = writer_of(t, plan->n_ops);
		uint64_t a, b;

		if (w == AP_OWNER_NONE || (uint64_t)t->offset + t->bytes > plan->arena_bytes)
			continue;
		a = (uint64_t)t->offset / page;
		b = ((uint64_t)t->offset + t->bytes - 1) / page;
		for (uint64_t pg = a; pg <= b; pg++)
			if (o[pg] == AP_OWNER_NONE || w < o[pg])
				o[pg] = w;
	}
	*owner = o;
	return (int64_t)pages;
}
