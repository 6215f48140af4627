// SPDX-License-Identifier: Apache-2.0
/*
 * The planner's fast paths against simple references kept here, on random inputs from
 * fixed seeds: placement (src/plan/place.c) against SimpleMemoryArena's scan of every
 * placed allocation, as LiteRT writes it and as arenaprof did before the treap.
 */
#include <stdlib.h>

#include "arenaprof/plan/planner.h"
#include "test.h"

enum ref_fit { REF_TFLITE, REF_BEST, REF_FIRST };

static uint64_t ref_align(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static const struct ap_rec *ref_recs;

static int ref_cmp_cand(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint64_t oa = ref_recs[a].offset, ob = ref_recs[b].offset;

	if (oa != ob)
		return oa < ob ? -1 : 1;
	return (a > b) - (a < b);
}

/* SimpleMemoryArena::Allocate: every placed allocation live at the same time, by offset. */
static uint64_t ref_place(struct ap_rec *r, size_t n, uint64_t align, enum ref_fit fit)
{
	uint32_t *cand = malloc((n + 1) * sizeof(*cand));
	uint64_t hwm = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t cur = 0, best = UINT64_MAX, best_fit = UINT64_MAX;
		size_t nc = 0;

		if (r[i].size == 0) {
			r[i].offset = 0;
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (r[j].size && !(r[j].last < r[i].first || r[j].first > r[i].last))
				cand[nc++] = (uint32_t)j;
		ref_recs = r;
		qsort(cand, nc, sizeof(*cand), ref_cmp_cand);
		for (size_t k = 0; k < nc; k++) {
			const struct ap_rec *a = &r[cand[k]];
			uint64_t at = ref_align(cur, align);

			if (at + r[i].size <= a->offset && a->offset - at < best_fit) {
				best = at;
				best_fit = a->offset - (fit == REF_TFLITE ? cur : at);
				if (fit == REF_FIRST)
					break;
			}
			if (a->offset + a->size > cur)
				cur = a->offset + a->size;
		}
		r[i].offset = best != UINT64_MAX ? best : ref_align(cur, align);
		if (r[i].offset + r[i].size > hwm)
			hwm = r[i].offset + r[i].size;
	}
	free(cand);
	return hwm;
}

static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? test_xorshift64(s) % n : 0;
}

static uint64_t rand_size(uint64_t *s, int regime)
{
	static const uint64_t picks[] = { 0, 1, 4, 17, 32, 48, 64, 92, 100, 128, 160, 192,
					  256, 1000, 1024, 4096 };

	switch (regime % 3) {
	case 0:
		return picks[rnd(s, sizeof(picks) / sizeof(picks[0]))];
	case 1:
		return 64 * (1 + rnd(s, 8));
	default:
		return rnd(s, 6) ? 1 + rnd(s, 3000) : 0;
	}
}

/*
 * Random records: short lifetimes over a long run, long ones over a short run, a fan-in
 * (everything alive into the last node), nested lifetimes, and whole-run records.
 */
static size_t rand_records(uint64_t *s, struct ap_rec *r, size_t max, int regime)
{
	size_t n = 1 + rnd(s, max);
	int32_t t = (int32_t)(regime / 3 == 0 ? 4 + rnd(s, 8) : 2 + rnd(s, 2 * n));

	for (size_t i = 0; i < n; i++) {
		int32_t first = (int32_t)rnd(s, (uint64_t)t + 1) - 1, last;

		switch ((regime / 3 + i) % 4) {
		case 0:
			last = first + (int32_t)rnd(s, 4);
			break;
		case 1:
			last = t;
			break;
		case 2:
			first = (int32_t)(i % (size_t)(t / 2 + 1));
			last = t - first;
			break;
		default:
			last = first + (int32_t)rnd(s, (uint64_t)t);
			break;
		}
		if (first > last)
			last = first;
		if (rnd(s, 16) == 0)
			first = 0, last = AP_NODE_NONE;
		r[i] = (struct ap_rec){ .size = rand_size(s, regime), .first = first, .last = last,
					.id = (int32_t)i };
	}
	switch (rnd(s, 3)) {
	case 0:
		ap_order_tflite(r, n);
		break;
	case 1:
		ap_order_micro(r, n);
		break;
	default:
		for (size_t i = n; i > 1; i--) {	/* any order */
			size_t j = rnd(s, i);
			struct ap_rec tmp = r[i - 1];

			r[i - 1] = r[j];
			r[j] = tmp;
		}
	}
	return n;
}

static bool same_plan(const struct ap_rec *a, const struct ap_rec *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].offset != b[i].offset)
			return false;
	return true;
}

/* trials random record sets of up to max records: every fit against its reference. */
static void test_place_random(const char *what, uint64_t seed, int trials, size_t max)
{
	struct ap_rec *r = calloc(max, sizeof(*r)), *a = calloc(max, sizeof(*a));
	struct ap_rec *b = calloc(max, sizeof(*b));
	static const uint64_t aligns[] = { 64, 16, 4, 1 };
	int bad = 0, first_bad = -1;
	char name[128];

	for (int k = 0; k < trials; k++) {
		size_t n = rand_records(&seed, r, max, k % 12);
		uint64_t align = aligns[rnd(&seed, 4)];

		for (int fit = REF_TFLITE; fit <= REF_FIRST; fit++) {
			uint64_t ha, hb;

			memcpy(a, r, n * sizeof(*r));
			memcpy(b, r, n * sizeof(*r));
			hb = ref_place(b, n, fit == REF_FIRST ? 1 : align, (enum ref_fit)fit);
			ha = fit == REF_TFLITE ? ap_place_tflite(a, n, align) :
			     fit == REF_BEST ? ap_place_best_fit(a, n, align) :
					       ap_place_first_fit(a, n);
			if (ha != hb || !same_plan(a, b, n)) {
				if (first_bad < 0)
					first_bad = k * 3 + fit;
				bad++;
			}
		}
	}
	snprintf(name, sizeof(name), "place: %s: %d trials x 3 fits equal the reference",
		 what, trials);
	CHECK(name, bad == 0, "%d differ, the first at trial %d fit %d", bad, first_bad / 3,
	      first_bad % 3);
	free(r);
	free(a);
	free(b);
}

/* A fan-in of n records alive into one last node, in LiteRT's order: one big case. */
static void test_place_fanin(size_t n)
{
	struct ap_rec *a = calloc(n, sizeof(*a)), *b = calloc(n, sizeof(*b));
	static const uint64_t widths[] = { 8, 23, 40, 64 };
	uint64_t ha, hb;

	for (size_t i = 0; i < n; i++)
		a[i] = (struct ap_rec){ .size = 4 * widths[i % 4], .first = (int32_t)i,
					.last = (int32_t)n, .id = (int32_t)i };
	ap_order_tflite(a, n);
	memcpy(b, a, n * sizeof(*a));
	ha = ap_place_tflite(a, n, 64);
	hb = ref_place(b, n, 64, REF_TFLITE);
	CHECK("place: a fan-in of 2000 equals the reference", ha == hb && same_plan(a, b, n),
	      "arena %" PRIu64 ", reference %" PRIu64, ha, hb);
	free(a);
	free(b);
}

int main(void)
{
	test_place_random("small", 0x9e3779b97f4a7c15ull, 4000, 12);
	test_place_random("medium", 0x2545f4914f6cdd1dull, 1500, 80);
	test_place_random("large", 0xda942042e4dd58b5ull, 60, 600);
	test_place_fanin(2000);
	TEST_EXIT();
}
