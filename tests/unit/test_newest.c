// SPDX-License-Identifier: Apache-2.0
/*
 * ap_newest (src/analyze/newest.c) against the backward scan it replaced: intervals added
 * one by one, overlapping often (nested, equal, touching), points looked up between adds.
 */
#include <stdint.h>
#include <stdlib.h>

#include "arenaprof/analyze/newest.h"
#include "test.h"

#define N 3000

static uint64_t lo[N], hi[N];

static int32_t brute(uint32_t n, uint64_t addr)
{
	for (uint32_t i = n; i-- > 0;)
		if (lo[i] <= addr && addr < hi[i])
			return (int32_t)i;
	return -1;
}

int main(void)
{
	struct ap_newest nw = { 0 };
	uint64_t seed = 777;
	uint32_t wrong = 0, asked = 0, found = 0;
	int bad = 0;

	for (uint32_t i = 0; i < N; i++) {
		uint64_t s = test_xorshift64(&seed) % 20000;

		lo[i] = s;
		hi[i] = s + 1 + test_xorshift64(&seed) % (i % 10 ? 50 : 5000);
		bad |= ap_newest_add(&nw, lo[i], hi[i], (int32_t)i);
		for (int k = 0; k < 8; k++) {
			uint64_t addr = test_xorshift64(&seed) % 21000;
			int32_t want = brute(i + 1, addr);

			wrong += ap_newest_at(&nw, addr) != want;
			found += want >= 0;
			asked++;
		}
		/* the ends themselves: the last byte inside, the first outside */
		wrong += ap_newest_at(&nw, hi[i] - 1) != brute(i + 1, hi[i] - 1);
		wrong += ap_newest_at(&nw, hi[i]) != brute(i + 1, hi[i]);
	}
	CHECK("newest: the newest interval over every point looked up, as the scan finds",
	      !bad && !wrong && found > asked / 4 && found < asked,
	      "%u wrong of %u (%u over an interval), rc %d", wrong, asked, found, bad);
	CHECK("newest: the painted ranges stay few (each add splits at most one)",
	      nw.ranges <= 2 * N + 1, "%" PRIu64 " ranges for %d intervals", nw.ranges, N);
	CHECK_EQ_I64("newest: nothing past the last address", ap_newest_at(&nw, UINT64_MAX), -1);
	ap_newest_free(&nw);
	CHECK_EQ_I64("newest: empty after free", ap_newest_at(&nw, 100), -1);
	TEST_EXIT();
}
