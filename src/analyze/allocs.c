// SPDX-License-Identifier: Apache-2.0
/* allocs: allocation records, blocks, and the arena rules (allocs.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/util/err.h"
#include "arenaprof/event.h"
#include "arenaprof/trace/trace.h"
#include "arenaprof/util/grow.h"

const char *ap_alloc_fn_name(uint32_t fn)
{
	switch (fn) {
	case AP_ALLOC_MALLOC:
		return "malloc";
	case AP_ALLOC_CALLOC:
		return "calloc";
	case AP_ALLOC_REALLOC:
		return "realloc";
	case AP_ALLOC_ALIGNED_ALLOC:
		return "aligned_alloc";
	case AP_ALLOC_MEMALIGN:
		return "memalign";
	case AP_ALLOC_POSIX_MEMALIGN:
		return "posix_memalign";
	case AP_ALLOC_FREE:
		return "free";
	case AP_ALLOC_XNN_ALLOCATE:
		return "xnn_allocate";
	case AP_ALLOC_XNN_REALLOCATE:
		return "xnn_reallocate";
	case AP_ALLOC_XNN_ALIGNED:
		return "xnn_aligned_allocate";
	case AP_ALLOC_XNN_FREE:
		return "xnn_deallocate";
	case AP_ALLOC_XNN_ALIGNED_FREE:
		return "xnn_aligned_deallocate";
	case AP_ALLOC_GIVEN:
		return "--arena";
	}
	return "?";
}

bool ap_alloc_fn_xnn(uint32_t fn)
{
	return fn >= AP_ALLOC_XNN_ALLOCATE && fn <= AP_ALLOC_XNN_ALIGNED_FREE;
}

const char *ap_block_call(const struct ap_block *b, char *buf, size_t len)
{
	if (b->align)
		snprintf(buf, len, "%s(%" PRIu64 ", %" PRIu64 ")", ap_alloc_fn_name(b->fn),
			 b->align, b->size);
	else
		snprintf(buf, len, "%s(%" PRIu64 ")", ap_alloc_fn_name(b->fn), b->size);
	return buf;
}

static uint32_t ptr_hash(uint64_t ptr, uint32_t n)
{
	return (uint32_t)((ptr >> 4) * 0x9e3779b97f4a7c15ULL >> 32) & (n - 1);
}

static struct ap_ptr_slot *ptr_slot(struct ap_ptr_slot *slot, uint32_t n, uint64_t ptr)
{
	uint32_t h = ptr_hash(ptr, n);

	while (slot[h].idx && slot[h].ptr != ptr)
		h = (h + 1) & (n - 1);
	return &slot[h];
}

/* The newest live block at ptr, or -1. */
static int32_t live_block(const struct ap_allocs *al, uint64_t ptr)
{
	const struct ap_ptr_slot *s;

	if (!al->n_slot)
		return -1;
	s = ptr_slot(al->slot, al->n_slot, ptr);
	if (!s->idx)
		return -1;
	return al->b[s->idx - 1].t_free ? -1 : (int32_t)(s->idx - 1);
}

/* Makes block idx the newest at its pointer; the table doubles at half full. */
static int index_block(struct ap_allocs *al, uint32_t idx)
{
	struct ap_ptr_slot *s;

	if ((al->n_ptrs + 1) * 2 > al->n_slot) {
		uint32_t n = al->n_slot ? al->n_slot * 2 : 256;
		struct ap_ptr_slot *slot;

		if (al->n_slot > UINT32_MAX / 2)
			return -ENOMEM;
		slot = calloc(n, sizeof(*slot));
		if (!slot)
			return -ENOMEM;
		for (uint32_t i = 0; i < al->n_slot; i++)
			if (al->slot[i].idx)
				*ptr_slot(slot, n, al->slot[i].ptr) = al->slot[i];
		free(al->slot);
		al->slot = slot;
		al->n_slot = n;
	}
	s = ptr_slot(al->slot, al->n_slot, al->b[idx].ptr);
	if (!s->idx)
		al->n_ptrs++;
	*s = (struct ap_ptr_slot){ .ptr = al->b[idx].ptr, .idx = idx + 1 };
	return 0;
}

int ap_allocs_add(struct ap_allocs *al, const struct ap_rec_alloc *r)
{
	struct ap_block *b;
	int32_t i;

	al->records++;
	if (r->fn == AP_ALLOC_GIVEN) {
		al->given = true;
		al->given_addr = r->ptr;
		return 0;
	}
	i = live_block(al, r->ptr);
	if (r->fn == AP_ALLOC_FREE) {
		if (i >= 0) {
			al->b[i].t_free = r->ts_ns;
			al->b[i].run_free = r->run;
		}
		return 0;
	}
	if (r->fn == AP_ALLOC_XNN_FREE || r->fn == AP_ALLOC_XNN_ALIGNED_FREE ||
	    r->fn < AP_ALLOC_MALLOC || r->fn > AP_ALLOC_XNN_ALIGNED || !r->ptr)
		return 0;
	if (i >= 0) {
		b = &al->b[i];
		/*
		 * realloc(NULL, n) runs malloc's code (a tail call): one block, two records,
		 * malloc's first, whose return address is realloc's return probe. The outer
		 * call names the caller.
		 */
		if (b->tid == r->tid && b->size == r->size) {
			b->fn = r->fn;
			b->caller = r->caller;
			if (ap_alloc_fn_xnn(r->fn))	/* XNNPACK's call around libc's */
				b->caller_up = r->align;
			return 0;
		}
		b->t_free = r->ts_ns;	/* its free was not seen: it is gone now */
		b->run_free = r->run;
	}
	if (ap_grow32(&al->b, &al->cap, al->n, sizeof(*al->b), 256))
		return -ENOMEM;
	b = &al->b[al->n];
	*b = (struct ap_block){ .ptr = r->ptr, .size = r->size, .align = r->align,
				.caller = r->caller, .t_alloc = r->ts_ns, .run_alloc = r->run,
				.run_free = INT32_MAX, .fn = r->fn, .tid = r->tid };
	if (ap_alloc_fn_xnn(r->fn)) {
		b->caller_up = r->align;
		b->align = 0;
	}
	if (index_block(al, al->n))
		return -ENOMEM;
	al->n++;
	return 0;
}

void ap_allocs_note(struct ap_allocs *al, uint64_t ts_ns, const char *t)
{
	static const char quiet[] = "allocation probe: after the first run";

	if (!strncmp(t, quiet, sizeof(quiet) - 1))
		al->quiet_ns = ts_ns;
	if (!strncmp(t, "allocation probe: ", 18) && strstr(t, " in /"))
		al->probe_noted = true;
	if (strstr(t, "(a static binary?)"))	/* record's note, old and new wording */
		al->static_noted = true;
}

void ap_allocs_free(struct ap_allocs *al)
{
	free(al->b);
	free(al->slot);
	memset(al, 0, sizeof(*al));
}

static bool aligned_fn(const struct ap_block *b)
{
	return (b->fn == AP_ALLOC_ALIGNED_ALLOC || b->fn == AP_ALLOC_MEMALIGN ||
		b->fn == AP_ALLOC_POSIX_MEMALIGN) && b->align >= AP_ARENA_ALIGN;
}

static uint64_t base_of(const struct ap_block *b)
{
	return (b->ptr + AP_ARENA_ALIGN - 1) & ~(uint64_t)(AP_ARENA_ALIGN - 1);
}

/* What a block of this request holds past its aligned base (LiteRT: size + 63 rounded). */
static uint64_t usable(const struct ap_block *b)
{
	uint64_t lost = base_of(b) - b->ptr;
	uint64_t u = b->size > lost ? b->size - lost : 0;

	/* the runtime asked for its size plus up to 63 + 63 bytes to align it itself */
	return u > AP_ARENA_ALIGN - 1 ? u - (AP_ARENA_ALIGN - 1) : u;
}

uint64_t ap_block_base(const struct ap_block *b)
{
	return base_of(b);
}

bool ap_arid_plan_sized(const struct ap_block *b, uint64_t arena_bytes)
{
	/* the plan's size and the slack, and room for it past the base */
	return arena_bytes && b->size >= arena_bytes && b->size <= arena_bytes + AP_ARENA_SLACK &&
	       b->size - (base_of(b) - b->ptr) >= arena_bytes;
}

bool ap_arid_may_be(const struct ap_block *b, uint64_t arena_bytes)
{
	bool plan_size = ap_arid_plan_sized(b, arena_bytes);

	if (ap_alloc_fn_xnn(b->fn))	/* XNNPACK's own, never LiteRT's arena buffer */
		return false;

	return plan_size || ((b->fn == AP_ALLOC_ALIGNED_ALLOC || b->fn == AP_ALLOC_MEMALIGN) &&
			     b->align == AP_ARENA_ALIGN);
}

bool ap_arid_may_follow(const struct ap_block *prev, const struct ap_block *b)
{
	return b->fn == prev->fn && b->align == prev->align && b->size > prev->size &&
	       b->tid == prev->tid;
}

uint64_t ap_arid_region_bytes(const struct ap_block *b, uint64_t arena_bytes)
{
	bool plan_size = arena_bytes && b->size >= arena_bytes &&
			 b->size <= arena_bytes + AP_ARENA_SLACK;

	return plan_size ? arena_bytes : usable(b);
}

/*
 * Re-plans: from the arena block, a larger block by the same function (and alignment),
 * allocated while the arena was live and before it was freed: the runtime allocates,
 * copies, then frees the old buffer.
 */
static void follow(const struct ap_allocs *al, struct ap_arid *id)
{
	int32_t cur = id->block;

	while (id->n_moves < AP_MAX_MOVES) {
		const struct ap_block *a = &al->b[cur];
		/* its free is not in the trace because frees were no longer probed */
		bool unseen = !a->t_free && al->quiet_ns;
		int32_t next = -1;

		if (!a->t_free && !unseen)
			break;
		for (uint32_t i = (uint32_t)cur + 1; i < al->n; i++) {
			const struct ap_block *b = &al->b[i];

			if (a->t_free && b->t_alloc > a->t_free)
				break;
			if (b->fn != a->fn || b->align != a->align || b->size <= a->size ||
			    b->tid != a->tid)
				continue;
			if (unseen) {
				/* the same call site, after the probe quieted: the first */
				if (b->caller == a->caller && b->t_alloc >= al->quiet_ns) {
					next = (int32_t)i;
					break;
				}
				continue;
			}
			next = (int32_t)i;	/* the last one before the free */
		}
		if (next < 0)
			break;
		id->moves[id->n_moves++] = (struct ap_arena_move){
			.block = next, .map = -1, .base = base_of(&al->b[next]),
			.bytes = usable(&al->b[next]), .run = al->b[next].run_alloc,
			.ts_ns = al->b[next].t_alloc, .free_seen = !unseen,
		};
		cur = next;
	}
}

static bool taken_by(int32_t i, const int32_t *taken, uint32_t n_taken)
{
	for (uint32_t k = 0; k < n_taken; k++)
		if (taken[k] == i)
			return true;
	return false;
}

/*
 * Rule 1: the block of the plan's size, or -1; with taken (a model after the first), one
 * no other model's arena is, and never XNNPACK's own.
 */
static int32_t plan_sized(const struct ap_allocs *al, uint64_t arena_bytes,
			  const int32_t *taken, uint32_t n_taken, uint32_t *matches)
{
	int32_t best = -1;

	for (uint32_t i = 0; i < al->n; i++) {
		const struct ap_block *b = &al->b[i];

		if (!ap_arid_plan_sized(b, arena_bytes) ||
		    (taken && (taken_by((int32_t)i, taken, n_taken) || ap_alloc_fn_xnn(b->fn))))
			continue;
		(*matches)++;
		/* LiteRT's own call first, then the earliest */
		if (best < 0 || (aligned_fn(b) && !aligned_fn(&al->b[best])))
			best = (int32_t)i;
	}
	return best;
}

static void by_plan_size(const struct ap_allocs *al, uint64_t arena_bytes, int32_t best,
			 struct ap_arid *id)
{
	id->rule = AP_ARID_PLAN_SIZE;
	id->block = best;
	id->base = base_of(&al->b[best]);
	id->bytes = arena_bytes;
	follow(al, id);
}

void ap_arid_find_among(const struct ap_allocs *al, uint64_t arena_bytes,
			const int32_t *taken, uint32_t n_taken, struct ap_arid *id)
{
	static const int32_t none[1] = { -1 };
	int32_t best = -1;

	memset(id, 0, sizeof(*id));
	id->block = -1;
	if (arena_bytes)
		best = plan_sized(al, arena_bytes, n_taken ? taken : none, n_taken,
				  &id->matches);
	if (best >= 0)
		by_plan_size(al, arena_bytes, best, id);
	else
		snprintf(id->why, sizeof(id->why), "no block of the plan's arena size (%" PRIu64
			 " bytes) that is no other model's (%u blocks of a page or more seen)",
			 arena_bytes, al->n);
}

void ap_arid_find(const struct ap_allocs *al, uint64_t arena_bytes, struct ap_arid *id)
{
	int32_t best = -1;

	memset(id, 0, sizeof(*id));
	id->block = -1;
	if (!al->n) {
		snprintf(id->why, sizeof(id->why), "%s", al->static_noted ?
			 "no C library seen in the target and no allocation call caught (a "
			 "static binary?): its allocations cannot be caught" :
			 al->probe_noted ? "no allocation of a page or more was reported" :
			 "the trace has no allocation records (recorded with --arena off, or "
			 "by an older arenaprof)");
		return;
	}
	if (arena_bytes) {
		best = plan_sized(al, arena_bytes, NULL, 0, &id->matches);
		if (best >= 0) {
			by_plan_size(al, arena_bytes, best, id);
			return;
		}
	}
	/* no block of the plan's size: the runtime's own arena buffer, if it made one */
	for (uint32_t i = 0; i < al->n && best < 0; i++)
		if ((al->b[i].fn == AP_ALLOC_ALIGNED_ALLOC || al->b[i].fn == AP_ALLOC_MEMALIGN) &&
		    al->b[i].align == AP_ARENA_ALIGN)
			best = (int32_t)i;
	snprintf(id->why, sizeof(id->why), "no block of %s was allocated (%u blocks of a "
		 "page or more seen)", arena_bytes ? "the plan's arena size" : "a planned size",
		 al->n);
	if (best < 0 || !arena_bytes)
		return;
	id->rule = AP_ARID_RUNTIME;
	id->block = best;
	id->base = base_of(&al->b[best]);
	id->bytes = usable(&al->b[best]);
	follow(al, id);
}

/* ---- naming addresses ---- */
