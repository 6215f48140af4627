// SPDX-License-Identifier: Apache-2.0
/*
 * pageset: linear probing over a power-of-two table, kept at most half full; runs (bitmaps
 * of keys) in a second such table keyed by their high bits (include/arenaprof/analyze/
 * pageset.h). A key may be in both the hash set and a run: it is in the set if either
 * holds it.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/pageset.h"

#define RUN_MASK ((1ULL << AP_PAGESET_RUN_BITS) - 1)

static size_t hash(uint64_t k, size_t cap)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (size_t)k & (cap - 1);
}

void ap_pageset_init(struct ap_pageset *s)
{
	memset(s, 0, sizeof(*s));
}

void ap_pageset_free(struct ap_pageset *s)
{
	free(s->slot);
	for (size_t i = 0; i < s->run_cap; i++)
		free(s->run[i].words);
	free(s->run);
	ap_pageset_init(s);
}

static int insert(uint64_t *slot, size_t cap, uint64_t stored)
{
	for (size_t i = hash(stored - 1, cap);; i = (i + 1) & (cap - 1)) {
		if (slot[i] == stored)
			return 0;
		if (!slot[i]) {
			slot[i] = stored;
			return 1;
		}
	}
}

static bool in_hash(const struct ap_pageset *s, uint64_t key)
{
	if (!s->cap)
		return false;
	for (size_t i = hash(key, s->cap);; i = (i + 1) & (s->cap - 1)) {
		if (s->slot[i] == key + 1)
			return true;
		if (!s->slot[i])
			return false;
	}
}

static int grow(struct ap_pageset *s)
{
	size_t cap = s->cap ? s->cap * 2 : 1024;
	uint64_t *slot = calloc(cap, sizeof(*slot));

	if (!slot)
		return -ENOMEM;
	for (size_t i = 0; i < s->cap; i++)
		if (s->slot[i])
			insert(slot, cap, s->slot[i]);
	free(s->slot);
	s->slot = slot;
	s->cap = cap;
	return 0;
}

static struct ap_pageset_run *find_run(const struct ap_pageset *s, uint64_t hi)
{
	if (!s->n_run)
		return NULL;
	for (size_t i = hash(hi, s->run_cap);; i = (i + 1) & (s->run_cap - 1)) {
		if (!s->run[i].words)
			return NULL;
		if (s->run[i].hi == hi)
			return &s->run[i];
	}
}

static bool run_has(const struct ap_pageset_run *r, uint64_t i)
{
	return i < r->nbits && (r->words[i / 64] >> (i % 64) & 1);
}

int ap_pageset_add(struct ap_pageset *s, uint64_t key)
{
	const struct ap_pageset_run *run = find_run(s, key >> AP_PAGESET_RUN_BITS);
	int r;

	if (key == UINT64_MAX)
		return -EINVAL;	/* key + 1 must not wrap to "empty" */
	if (run && run_has(run, key & RUN_MASK))
		return 0;
	if ((s->n + 1) * 2 > s->cap && grow(s))
		return -ENOMEM;
	r = insert(s->slot, s->cap, key + 1);
	s->n += (size_t)r;
	return r;
}

/* The run of hi, created empty if there is none; NULL when out of memory. */
static struct ap_pageset_run *get_run(struct ap_pageset *s, uint64_t hi)
{
	struct ap_pageset_run *r = find_run(s, hi);
	size_t i;

	if (r)
		return r;
	if ((s->n_run + 1) * 2 > s->run_cap) {
		size_t cap = s->run_cap ? s->run_cap * 2 : 16;
		struct ap_pageset_run *t = calloc(cap, sizeof(*t));

		if (!t)
			return NULL;
		for (size_t k = 0; k < s->run_cap; k++) {
			if (!s->run[k].words)
				continue;
			for (i = hash(s->run[k].hi, cap); t[i].words; i = (i + 1) & (cap - 1))
				;
			t[i] = s->run[k];
		}
		free(s->run);
		s->run = t;
		s->run_cap = cap;
	}
	for (i = hash(hi, s->run_cap); s->run[i].words; i = (i + 1) & (s->run_cap - 1))
		;
	s->run[i].words = calloc(1, sizeof(uint64_t));
	if (!s->run[i].words)
		return NULL;
	s->run[i].hi = hi;
	s->run[i].nbits = 0;
	s->n_run++;
	return &s->run[i];
}

/* Word w of a byte bitmap of nbits bits (bits past nbits read as 0). */
static uint64_t word_of(const uint8_t *bits, uint64_t nbits, uint64_t w)
{
	uint64_t v = 0, nbytes = (nbits + 7) / 8;

	for (uint64_t b = 0; b < 8 && w * 8 + b < nbytes; b++)
		v |= (uint64_t)bits[w * 8 + b] << (8 * b);
	if (nbits - w * 64 < 64)
		v &= (1ULL << (nbits - w * 64)) - 1;
	return v;
}

int64_t ap_pageset_add_bits(struct ap_pageset *s, uint64_t hi, const uint8_t *bits,
			    uint64_t nbits)
{
	struct ap_pageset_run *r;
	uint64_t nw = (nbits + 63) / 64, fresh = 0, dup = 0;

	if (nbits > (1ULL << AP_PAGESET_RUN_BITS))
		return -EINVAL;
	if (!nbits)
		return 0;
	r = get_run(s, hi);
	if (!r)
		return -ENOMEM;
	if (nbits > r->nbits) {
		uint64_t old = (r->nbits + 63) / 64;
		uint64_t *w = old < nw ? realloc(r->words, nw * sizeof(*w)) : r->words;

		if (!w)
			return -ENOMEM;
		memset(w + old, 0, (nw - old) * sizeof(*w));
		r->words = w;
		r->nbits = nbits;
	}
	/* the keys this adds that the hash set already holds: whichever is fewer to visit */
	for (uint64_t i = 0; i < nw; i++)
		fresh += (uint64_t)__builtin_popcountll(word_of(bits, nbits, i) & ~r->words[i]);
	if (s->n && s->cap <= fresh) {
		for (size_t k = 0; k < s->cap; k++) {
			uint64_t key = s->slot[k] - 1, i = key & RUN_MASK;

			if (s->slot[k] && key >> AP_PAGESET_RUN_BITS == hi && i < nbits &&
			    (word_of(bits, nbits, i / 64) >> (i % 64) & 1) && !run_has(r, i))
				dup++;
		}
	} else if (s->n) {
		for (uint64_t i = 0; i < nw; i++) {
			uint64_t v = word_of(bits, nbits, i) & ~r->words[i];

			for (; v; v &= v - 1) {
				uint64_t b = i * 64 + (uint64_t)__builtin_ctzll(v);

				dup += in_hash(s, hi << AP_PAGESET_RUN_BITS | b);
			}
		}
	}
	for (uint64_t i = 0; i < nw; i++)
		r->words[i] |= word_of(bits, nbits, i);
	return (int64_t)(fresh - dup);
}

const uint64_t *ap_pageset_run(const struct ap_pageset *s, uint64_t hi, uint64_t *nbits)
{
	const struct ap_pageset_run *r = find_run(s, hi);

	*nbits = r ? r->nbits : 0;
	return r ? r->words : NULL;
}
