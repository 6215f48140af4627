// SPDX-License-Identifier: Apache-2.0
/*
 * pack_map: the mapping snapshots a format-4 writer and reader keep (pack.h): the one
 * being written or read and the one before it, so that a snapshot's mappings unchanged
 * since the last one are stored as runs copied from it (80 % of a LiteRT trace was
 * snapshots repeating the last one: docs/trace-cost.md).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pack.h"

static void snap_free(struct ap_map_snap *s)
{
	for (size_t i = 0; i < s->n; i++)
		free(s->e[i].path);
	free(s->e);
	memset(s, 0, sizeof(*s));
}

void ap_map_state_free(struct ap_map_state *st)
{
	snap_free(&st->base);
	snap_free(&st->cur);
	st->started = false;
	st->cursor = 0;
}

void ap_map_begin(struct ap_map_state *st, uint32_t snap)
{
	struct ap_map_snap *c = &st->cur;

	if (st->started && snap == c->snap)
		return;
	snap_free(&st->base);
	st->base = *c;
	memset(c, 0, sizeof(*c));
	c->snap = snap;
	st->started = true;
	st->cursor = 0;
}

int ap_map_add(struct ap_map_state *st, const struct ap_rec_mapping *m, const char *path)
{
	struct ap_map_snap *c = &st->cur;
	size_t len = strlen(path ? path : "") + 1;
	char *p;

	ap_map_begin(st, m->snapshot);
	if (c->bad || c->bytes + sizeof(*c->e) + len > AP_MAP_SNAP_BYTES) {
		c->bad = true;
		return -ENOSPC;
	}
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 64;
		struct ap_map_ent *e;

		if (c->n >= AP_MAP_SNAP_MAX) {
			c->bad = true;
			return -ENOSPC;
		}
		if (!(e = realloc(c->e, cap * sizeof(*e)))) {
			c->bad = true;
			return -ENOMEM;
		}
		c->e = e;
		c->cap = cap;
	}
	if (!(p = strdup(path ? path : ""))) {
		c->bad = true;
		return -ENOMEM;
	}
	c->e[c->n].m = *m;
	c->e[c->n].path = p;
	c->n++;
	c->bytes += sizeof(*c->e) + len;
	return 0;
}

bool ap_map_same(const struct ap_map_ent *e, const struct ap_rec_mapping *m, const char *path)
{
	const struct ap_rec_mapping *a = &e->m;

	return a->start == m->start && a->end == m->end && a->offset == m->offset &&
	       a->inode == m->inode && a->prot == m->prot && a->dev_major == m->dev_major &&
	       a->dev_minor == m->dev_minor && !strcmp(e->path, path ? path : "");
}
