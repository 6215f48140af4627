// SPDX-License-Identifier: Apache-2.0
/*
 * map_rope: the mapping snapshots a format-4 reader keeps (pack.h, struct ap_rope_state).
 * The writer's ap_map_state holds each snapshot as an array of mappings; read that way, a
 * copy of count mappings costs count strdups, and a trace of 2,000 one-record copies of a
 * 100,000-mapping snapshot took 52 s. Here every mapping read is kept once in a pool, a
 * snapshot is a list of segments of the pool, and a copy appends the segments of the base
 * it covers: O(log s + pieces).
 *
 * Bounds: the pool is compacted (the base's entries alone, in its order: one segment) when
 * a snapshot begins and the pool holds more than twice the base and 1,024 entries or 1 MiB
 * more, or the base has more than 64 + sqrt(n) segments. Each compaction costs the base's
 * size and follows at least as many new entries, or sqrt(n) edits: a copy costs at most
 * 64 + sqrt(n) pieces and the pool at most about three snapshots' worth of memory, each
 * within AP_MAP_SNAP_MAX and AP_MAP_SNAP_BYTES.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

/* what one mapping counts towards AP_MAP_SNAP_BYTES: as the writer counts it */
#define ENT_BYTES(len) (sizeof(struct ap_map_ent) + (len))

static size_t seg_start(const struct ap_rope_snap *s, size_t k)
{
	return k ? s->seg[k - 1].end : 0;
}

/* The segment of s that holds its entry i (< s->n). */
static size_t seg_find(const struct ap_rope_snap *s, size_t i)
{
	size_t lo = 0, hi = s->n_seg - 1;

	while (lo < hi) {	/* first segment that ends after i */
		size_t mid = lo + (hi - lo) / 2;

		if (s->seg[mid].end <= i)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Appends pool entries [at, at + len) to s: the last segment grows when they follow it. */
static int seg_push(struct ap_rope_snap *s, size_t at, size_t len)
{
	if (s->n_seg) {
		struct ap_rope_seg *l = &s->seg[s->n_seg - 1];

		if (l->at + (l->end - seg_start(s, s->n_seg - 1)) == at) {
			l->end += len;
			s->n += len;
			return 0;
		}
	}
	if (s->n_seg == s->cap_seg) {
		size_t cap = s->cap_seg ? s->cap_seg * 2 : 8;
		struct ap_rope_seg *g = realloc(s->seg, cap * sizeof(*g));

		if (!g)
			return -ENOMEM;
		s->seg = g;
		s->cap_seg = cap;
	}
	s->n += len;
	s->seg[s->n_seg++] = (struct ap_rope_seg){ .at = at, .end = s->n };
	return 0;
}

/* The bytes of pool entries [a, b). */
static uint64_t pool_span(const struct ap_rope_state *st, size_t a, size_t b)
{
	return (b < st->pool_n ? st->pool[b].before : st->pool_bytes) - st->pool[a].before;
}

static void snap_free(struct ap_rope_snap *s)
{
	free(s->seg);
	memset(s, 0, sizeof(*s));
}

/* The pool made of the base's entries alone, in its order; unchanged when out of memory. */
static void compact(struct ap_rope_state *st)
{
	struct ap_rope_snap *b = &st->base;
	struct ap_rope_ent *pool = malloc((b->n ? b->n : 1) * sizeof(*pool));
	uint64_t bytes = 0;
	size_t j = 0;

	if (!pool)
		return;
	for (size_t k = 0; k < b->n_seg; k++) {
		size_t at = b->seg[k].at, len = b->seg[k].end - seg_start(b, k);

		for (size_t i = at; i < at + len; i++) {
			pool[j] = st->pool[i];
			pool[j].before = bytes;
			bytes += ENT_BYTES(strlen(pool[j].path) + 1);
			st->pool[i].path = NULL;	/* moved: a snapshot names an entry once */
			j++;
		}
	}
	for (size_t i = 0; i < st->pool_n; i++)
		free(st->pool[i].path);
	free(st->pool);
	st->pool = pool;
	st->pool_n = st->pool_cap = j;
	st->pool_bytes = bytes;
	b->n_seg = 0;
	b->n = 0;
	if (j)
		seg_push(b, 0, j);	/* cannot fail: the base had a segment */
}

static bool worth_compacting(const struct ap_rope_state *st)
{
	const struct ap_rope_snap *b = &st->base;
	size_t extra = b->n_seg > 64 ? b->n_seg - 64 : 0;

	return st->pool_n > 2 * b->n + 1024 ||
	       st->pool_bytes > 2 * (uint64_t)b->bytes + (1u << 20) ||
	       (uint64_t)extra * extra > b->n;
}

void ap_rope_begin(struct ap_rope_state *st, uint32_t snap)
{
	if (st->started && snap == st->cur.snap)
		return;
	snap_free(&st->base);
	st->base = st->cur;
	memset(&st->cur, 0, sizeof(st->cur));
	st->cur.snap = snap;
	st->started = true;
	st->cursor = 0;
	if (worth_compacting(st))
		compact(st);
}

int ap_rope_add(struct ap_rope_state *st, const struct ap_rec_mapping *m, const char *path)
{
	struct ap_rope_snap *c = &st->cur;
	size_t len = strlen(path ? path : "") + 1;
	struct ap_rope_ent *e;
	int rc = -ENOSPC;

	ap_rope_begin(st, m->snapshot);
	if (c->bad || c->n >= AP_MAP_SNAP_MAX || c->bytes + ENT_BYTES(len) > AP_MAP_SNAP_BYTES)
		goto full;
	rc = -ENOMEM;
	if (st->pool_n == st->pool_cap) {
		size_t cap = st->pool_cap ? st->pool_cap * 2 : 64;

		if (!(e = realloc(st->pool, cap * sizeof(*e))))
			goto full;
		st->pool = e;
		st->pool_cap = cap;
	}
	e = &st->pool[st->pool_n];
	if (!(e->path = strdup(path ? path : "")))
		goto full;
	e->m = *m;
	e->before = st->pool_bytes;
	if (seg_push(c, st->pool_n, 1)) {
		free(e->path);
		goto full;
	}
	st->pool_n++;
	st->pool_bytes += ENT_BYTES(len);
	c->bytes += ENT_BYTES(len);
	return 0;
full:
	c->bad = true;
	return rc;
}

int ap_rope_copy(struct ap_rope_state *st, size_t first, size_t count)
{
	const struct ap_rope_snap *b = &st->base;
	struct ap_rope_snap *c = &st->cur;
	size_t k, i = first;
	int rc = -ENOSPC;

	if (c->bad)
		return -ENOSPC;
	if (c->n + count > AP_MAP_SNAP_MAX)
		goto full;
	for (k = seg_find(b, first); count; k++) {
		size_t s0 = seg_start(b, k), take = b->seg[k].end - i;
		size_t at = b->seg[k].at + (i - s0);
		uint64_t bytes;

		if (take > count)
			take = count;
		bytes = pool_span(st, at, at + take);
		rc = c->bytes + bytes > AP_MAP_SNAP_BYTES ? -ENOSPC : seg_push(c, at, take);
		if (rc)
			goto full;
		c->bytes += bytes;
		i += take;
		count -= take;
	}
	return 0;
full:
	c->bad = true;
	return rc;
}

const struct ap_rope_ent *ap_rope_base_at(const struct ap_rope_state *st, size_t i)
{
	const struct ap_rope_snap *b = &st->base;
	size_t k = seg_find(b, i);

	return &st->pool[b->seg[k].at + (i - seg_start(b, k))];
}

void ap_rope_free(struct ap_rope_state *st)
{
	for (size_t i = 0; i < st->pool_n; i++)
		free(st->pool[i].path);
	free(st->pool);
	snap_free(&st->base);
	snap_free(&st->cur);
	memset(st, 0, sizeof(*st));
}
