// SPDX-License-Identifier: Apache-2.0
/*
 * live_xnn: XNNPACK's halves in the live view (live.h's struct ap_live_xnn). Its blocks
 * are kept by live_allocs.c's table, each under a call site here: the caller of
 * XNNPACK's allocator and that caller's caller (the probe's two frames). A site is named
 * and classed once, at the first sample after its file is in a maps snapshot, by report's
 * rule (xnn_blocks.h's ap_xnn_site_class, the names from ap_xnn_name_addrs: one pass over
 * each file's symbols for all the new sites at once); until then its bytes are counted as
 * not classed yet. MobileNet v2 makes some 400 blocks from about a hundred sites.
 *
 * The TFLite arena beside them is a C library block, found as report's allocs.h rules
 * find it: the block of the plan's arena size (rule 1), else the runtime's own first
 * aligned_alloc(64) block, followed to the larger one a re-plan makes at the same call
 * (rule 2).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/live.h"
#include "arenaprof/analyze/xnn_blocks.h"
#include "arenaprof/event.h"
#include "arenaprof/util/grow.h"

#define NO_CLASS (-1)

struct xsite {
	uint64_t ip, up;
	uint64_t bytes, blocks;		/* held now */
	int32_t cls;			/* enum ap_xnn_class, NO_CLASS until named */
};

/* The sites, and an index of them by (ip, up): open addressing, index + 1, 0 empty. */
struct ap_live_xsites {
	struct xsite *v;
	uint32_t n, cap;
	uint32_t *slot;
	uint32_t n_slot;		/* a power of two, at most half full */
	uint32_t unnamed;		/* sites with NO_CLASS */
};

static uint32_t hash2(uint64_t a, uint64_t b, uint32_t n)
{
	uint64_t v = a * 0x9e3779b97f4a7c15ULL ^
		     (b + 0x632be59bd9b4e019ULL) * 0xbf58476d1ce4e5b9ULL;

	return (uint32_t)(v >> 32) & (n - 1);
}

static uint32_t *slot_of(struct ap_live_xsites *xs, uint64_t ip, uint64_t up)
{
	uint32_t h = hash2(ip, up, xs->n_slot);

	while (xs->slot[h]) {
		const struct xsite *x = &xs->v[xs->slot[h] - 1];

		if (x->ip == ip && x->up == up)
			break;
		h = (h + 1) & (xs->n_slot - 1);
	}
	return &xs->slot[h];
}

static int index_room(struct ap_live_xsites *xs)
{
	uint32_t n = xs->n_slot ? xs->n_slot * 2 : 256;
	uint32_t *old = xs->slot;

	if ((xs->n + 1) * 2 <= xs->n_slot)
		return 0;
	xs->slot = calloc(n, sizeof(*xs->slot));
	if (!xs->slot) {
		xs->slot = old;
		return -ENOMEM;
	}
	xs->n_slot = n;
	for (uint32_t i = 0; i < xs->n; i++)
		*slot_of(xs, xs->v[i].ip, xs->v[i].up) = i + 1;
	free(old);
	return 0;
}

uint32_t ap_live_xnn_site(struct ap_live *l, uint64_t ip, uint64_t up)
{
	struct ap_live_xsites *xs = l->xnn.sites;
	uint32_t *s;

	if (!xs) {
		xs = l->xnn.sites = calloc(1, sizeof(*xs));
		if (!xs)
			return 0;
	}
	if (index_room(xs))
		return 0;
	s = slot_of(xs, ip, up);
	if (*s)
		return *s;
	if (ap_grow32(&xs->v, &xs->cap, xs->n, sizeof(*xs->v), 64))
		return 0;
	xs->v[xs->n] = (struct xsite){ .ip = ip, .up = up, .cls = NO_CLASS };
	xs->unnamed++;
	*s = ++xs->n;
	return *s;
}

/* The class's count a site's bytes are in. */
static uint64_t *class_bytes(struct ap_live *l, const struct xsite *x)
{
	return x->cls == NO_CLASS ? &l->xnn.unclassed : &l->xnn.cls[x->cls];
}

void ap_live_xnn_held(struct ap_live *l, uint32_t site, uint64_t size, bool held)
{
	struct ap_live_xsites *xs = l->xnn.sites;
	struct xsite *x;

	if (!xs || !site || site > xs->n)
		return;
	x = &xs->v[site - 1];
	if (held) {
		x->bytes += size;
		x->blocks++;
		*class_bytes(l, x) += size;
		l->xnn.bytes += size;
		l->xnn.blocks++;
		return;
	}
	x->bytes -= size;
	x->blocks--;
	*class_bytes(l, x) -= size;
	l->xnn.bytes -= size;
	l->xnn.blocks--;
}

/* ---- the TFLite arena's block ---- */

static struct ap_block as_block(const struct ap_live_arblock *a)
{
	return (struct ap_block){ .ptr = a->ptr, .size = a->size, .align = a->align,
				  .fn = a->fn };
}

/* Rule 1's test of allocs.h: the plan's arena and the runtime's alignment slack. */
static bool plan_size(const struct ap_live_arblock *a, uint64_t arena)
{
	struct ap_block b = as_block(a);

	return arena && a->size >= arena && a->size <= arena + AP_ARENA_SLACK &&
	       a->size - (ap_block_base(&b) - a->ptr) >= arena;
}

void ap_live_xnn_libc(struct ap_live *l, const struct ap_event *ev)
{
	struct ap_live_xnn *x = &l->xnn;
	struct ap_live_arblock a = { .ptr = ev->addr, .size = ev->size, .align = ev->align,
				     .ip = ev->ip, .fn = (uint32_t)ev->fn };
	bool aligned = (a.fn == AP_ALLOC_ALIGNED_ALLOC || a.fn == AP_ALLOC_MEMALIGN) &&
		       a.align == AP_ARENA_ALIGN;

	if (plan_size(&a, x->plan_arena))
		x->by_size = a;		/* the newest of the plan's size */
	if (!aligned)
		return;
	/* the first, or the larger one a re-plan allocates from the same call */
	if (!x->by_call.ptr || (a.ip == x->by_call.ip && a.fn == x->by_call.fn &&
				a.size > x->by_call.size))
		x->by_call = a;
}

void ap_live_xnn_gone(struct ap_live *l, uint64_t ptr)
{
	if (!ptr)
		return;
	if (l->xnn.by_size.ptr == ptr)
		l->xnn.by_size.ptr = 0;
	if (l->xnn.by_call.ptr == ptr)
		l->xnn.by_call.ptr = 0;
}

uint64_t ap_live_xnn_arena(const struct ap_live *l, uint32_t *rule)
{
	const struct ap_live_xnn *x = &l->xnn;
	struct ap_block b;

	if (x->by_size.ptr) {
		*rule = AP_ARID_PLAN_SIZE;
		return x->plan_arena;
	}
	if (!x->by_call.ptr) {
		*rule = AP_ARID_NONE;
		return 0;
	}
	*rule = AP_ARID_RUNTIME;
	b = as_block(&x->by_call);
	return ap_arid_region_bytes(&b, 0);
}

bool ap_live_xnn_seen(const struct ap_live *l)
{
	return l->xnn.events || (l->session && l->session->alloc.xnn_attached);
}

void ap_live_xnn_plan(struct ap_live *l, const uint64_t planned[AP_XNN_N_CLASSES],
		      uint64_t tflite_arena)
{
	memcpy(l->xnn.plan_cls, planned, sizeof(l->xnn.plan_cls));
	l->xnn.plan_arena = tflite_arena;
	l->xnn.planned = true;
}

/* ---- naming ---- */

void ap_live_xnn_sample(struct ap_live *l)
{
	struct ap_live_xsites *xs = l->xnn.sites;
	struct ap_xnn_addr *an;
	size_t n = 0;

	if (!xs || !xs->unnamed)
		return;
	an = calloc(2 * (size_t)xs->unnamed + 1, sizeof(*an));
	if (!an)
		return;
	/* a site whose caller is in no file a snapshot named yet waits for the next one */
	for (uint32_t i = 0; i < xs->n; i++) {
		const struct xsite *x = &xs->v[i];

		if (x->cls != NO_CLASS || ap_as_file_at(&l->as, x->ip) < 0)
			continue;
		an[n++].addr = x->ip;
		an[n++].addr = x->up;
	}
	if (n && !ap_xnn_name_addrs(&l->as, an, n)) {
		for (uint32_t i = 0; i < xs->n; i++) {
			struct xsite *x = &xs->v[i];
			const char *first, *up;

			if (x->cls != NO_CLASS || ap_as_file_at(&l->as, x->ip) < 0)
				continue;
			first = ap_xnn_addr_name(an, n, x->ip);
			up = ap_xnn_addr_name(an, n, x->up);
			l->xnn.unclassed -= x->bytes;
			x->cls = (int32_t)ap_xnn_site_class(&first, &up);
			l->xnn.cls[x->cls] += x->bytes;
			xs->unnamed--;
		}
	}
	for (size_t k = 0; k < n; k++)
		free(an[k].name);
	free(an);
}

void ap_live_xnn_free(struct ap_live *l)
{
	if (l->xnn.sites) {
		free(l->xnn.sites->v);
		free(l->xnn.sites->slot);
	}
	free(l->xnn.sites);
	l->xnn.sites = NULL;
}
