// SPDX-License-Identifier: Apache-2.0
/*
 * mapindex: every mapping added is found by its exact bounds through several growths;
 * bounds that share a start or an end with one, or none, are not found.
 */
#include "arenaprof/analyze/mapindex.h"
#include "test.h"

#define N 20000

int main(void)
{
	struct ap_mapindex x;
	int bad_add = 0, missing = 0, wrong = 0, phantom = 0;

	ap_mapindex_init(&x);
	CHECK_EQ_I64("an empty index finds nothing", ap_mapindex_find(&x, 4096, 8192), -1);
	/* pairs that share a start: [s, s + 4 KiB) and [s, s + 8 KiB) are two mappings */
	for (int32_t i = 0; i < N; i++) {
		uint64_t s = 0x7f0000000000ULL + (uint64_t)(i / 2) * 0x100000;
		uint64_t e = s + (i % 2 ? 8192 : 4096);

		bad_add += ap_mapindex_add(&x, s, e, i) != 0;
	}
	for (int32_t i = 0; i < N; i++) {
		uint64_t s = 0x7f0000000000ULL + (uint64_t)(i / 2) * 0x100000;
		uint64_t e = s + (i % 2 ? 8192 : 4096);
		int32_t got = ap_mapindex_find(&x, s, e);

		missing += got < 0;
		wrong += got >= 0 && got != i;
		phantom += ap_mapindex_find(&x, s, s + 12288) != -1;	/* same start */
		phantom += ap_mapindex_find(&x, s - 4096, e) != -1;	/* same end */
	}
	CHECK("20,000 mappings added (the table grew from 256 slots)", bad_add == 0 && x.n == N,
	      "%d failed, n %u", bad_add, x.n);
	CHECK("each found by its bounds, with its own index", missing == 0 && wrong == 0,
	      "%d missing, %d wrong", missing, wrong);
	CHECK("bounds sharing only a start or an end are not found", phantom == 0,
	      "%d found", phantom);
	CHECK("at most half full", x.n * 2 <= x.n_slot, "%u of %u slots", x.n, x.n_slot);
	ap_mapindex_free(&x);
	CHECK_EQ_I64("freed: empty again", ap_mapindex_find(&x, 0x7f0000000000ULL,
							   0x7f0000001000ULL), -1);
	TEST_EXIT();
}
