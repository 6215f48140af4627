// SPDX-License-Identifier: Apache-2.0
/*
 * live_objects: the live view's objects, the mappings summed by name ([anon] for the
 * unnamed ones). Each mapping counts in the object of its current name, and the sums move
 * with it when a snapshot names it; so a frame reads the objects, not every mapping ever
 * seen (a sort of those at every refresh grew with a service's history).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/live.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/order.h"

struct object {
	char *name;
	uint32_t first_map;	/* its first-made mapping, UINT32_MAX once that one left */
	uint64_t held_pages, faults;
	uint32_t mappings;
};

struct ap_live_objects {
	struct object *o;
	uint32_t n, cap;
	uint32_t *slot;		/* by name: index + 1, open addressing, at most half full */
	uint32_t n_slot;
};

static const char *object_name(const struct ap_amap *m)
{
	return m->path[0] ? m->path : "[anon]";
}

static uint32_t hash(const char *s, uint32_t n)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (uint32_t)(h >> 32) & (n - 1);
}

static uint32_t slot_of(const struct ap_live_objects *ob, const char *name)
{
	uint32_t h = hash(name, ob->n_slot);

	while (ob->slot[h] && strcmp(ob->o[ob->slot[h] - 1].name, name))
		h = (h + 1) & (ob->n_slot - 1);
	return h;
}

/* Room for one object more. -1: out of memory. */
static int room(struct ap_live_objects *ob)
{
	uint32_t n = ob->n_slot ? ob->n_slot * 2 : 64, *slot;

	if (ap_grow32(&ob->o, &ob->cap, ob->n, sizeof(*ob->o), 16))
		return -ENOMEM;
	if ((ob->n + 1) * 2 <= ob->n_slot)
		return 0;
	slot = calloc(n, sizeof(*slot));
	if (!slot)
		return -ENOMEM;
	free(ob->slot);
	ob->slot = slot;
	ob->n_slot = n;
	for (uint32_t i = 0; i < ob->n; i++)
		ob->slot[slot_of(ob, ob->o[i].name)] = i + 1;
	return 0;
}

/* Mapping mi, under its current name, counted in its object. -1: out of memory. */
int ap_live_obj_join(struct ap_live *l, uint32_t mi)
{
	struct ap_live_objects *ob = l->objects;
	struct ap_amap *m = &l->as.maps[mi];
	const char *name = object_name(m);
	struct object *o;
	uint32_t h;

	if (!ob && !(ob = l->objects = calloc(1, sizeof(*ob))))
		return -ENOMEM;
	if (room(ob))
		return -ENOMEM;
	h = slot_of(ob, name);
	if (!ob->slot[h]) {
		char *copy = strdup(name);

		if (!copy)
			return -ENOMEM;
		ob->o[ob->n] = (struct object){ .name = copy, .first_map = mi };
		ob->slot[h] = ++ob->n;
	}
	l->mx[mi].object = ob->slot[h] - 1;
	o = &ob->o[l->mx[mi].object];
	if (o->first_map == UINT32_MAX)
		o->first_map = mi;
	o->held_pages += m->first_touch_pages + m->resident_at_attach;
	o->faults += m->faults;
	o->mappings++;
	return 0;
}

/* Mapping mi leaves its object (before a new name): what it added goes with it. */
void ap_live_obj_leave(struct ap_live *l, uint32_t mi)
{
	const struct ap_amap *m = &l->as.maps[mi];
	struct object *o = &l->objects->o[l->mx[mi].object];

	o->held_pages -= m->first_touch_pages + m->resident_at_attach;
	o->faults -= m->faults;
	o->mappings--;
	if (o->first_map == mi)
		o->first_map = UINT32_MAX;
}

/* Mapping mi gained pages held or faults. */
void ap_live_obj_add(struct ap_live *l, uint32_t mi, uint64_t held, uint64_t faults)
{
	struct object *o = &l->objects->o[l->mx[mi].object];

	o->held_pages += held;
	o->faults += faults;
}

static int cmp_object(const void *a, const void *b)
{
	const struct ap_live_object *x = a, *y = b;
	int r = AP_CMP(y->held_pages, x->held_pages);

	if (!r)
		r = AP_CMP(y->faults, x->faults);
	return r ? r : strcmp(x->name, y->name);
}

/* The objects that have mappings, the largest first: a pass that keeps the best max. */
uint32_t ap_live_objects(const struct ap_live *l, struct ap_live_object *out, uint32_t max)
{
	const struct ap_live_objects *ob = l->objects;
	uint32_t n = 0;

	for (uint32_t i = 0; ob && max && i < ob->n; i++) {
		const struct object *o = &ob->o[i];
		struct ap_live_object v = {
			.name = o->name, .held_pages = o->held_pages, .faults = o->faults,
			.mappings = o->mappings,
			.anon = o->first_map != UINT32_MAX && l->as.maps[o->first_map].anon,
		};
		uint32_t at;

		if (!o->mappings || (n == max && cmp_object(&v, &out[n - 1]) >= 0))
			continue;
		/* insertion into the kept ones, in order */
		at = n < max ? n++ : n - 1;
		for (; at > 0 && cmp_object(&v, &out[at - 1]) < 0; at--)
			out[at] = out[at - 1];
		out[at] = v;
	}
	return n;
}

void ap_live_obj_free(struct ap_live *l)
{
	struct ap_live_objects *ob = l->objects;

	for (uint32_t i = 0; ob && i < ob->n; i++)
		free(ob->o[i].name);
	if (ob) {
		free(ob->o);
		free(ob->slot);
	}
	free(ob);
	l->objects = NULL;
}
