// SPDX-License-Identifier: Apache-2.0
/*
 * pageset: keys one at a time and bitmaps of keys (runs) are one set, checked against a
 * plain array of flags over the same keys; a bitmap's cost is its size.
 */
#include <errno.h>

#include "test.h"
#include "arenaprof/analyze/pageset.h"

#define N 5000			/* keys 0..N-1 of run hi 3, and a few of hi 4 */
#define KEY(hi, i) ((uint64_t)(hi) << AP_PAGESET_RUN_BITS | (i))

static uint64_t rng = 0x2545f4914f6cdd1dull;

static uint64_t next(void)
{
	return test_xorshift64(&rng);
}

/* Random singles and bitmaps, each add's answer checked against the flags. */
static void test_mixed(void)
{
	static uint8_t truth[N], bits[N / 8 + 1];
	struct ap_pageset s;
	int bad = 0, rounds = 0;

	ap_pageset_init(&s);
	for (int round = 0; round < 200; round++, rounds++) {
		if (next() % 4) {
			uint64_t i = next() % N;
			int r = ap_pageset_add(&s, KEY(3, i));

			if (r != !truth[i])
				bad++;
			truth[i] = 1;
		} else {
			/* a bitmap over a prefix of the keys, sparse or dense */
			uint64_t n = next() % N + 1, want = 0, dense = next() % 2;
			int64_t got;

			memset(bits, 0, sizeof(bits));
			for (uint64_t i = 0; i < n; i++) {
				if (dense ? next() % 8 : !(next() % 64)) {
					bits[i / 8] |= (uint8_t)(1u << (i % 8));
					want += !truth[i];
					truth[i] = 1;
				}
			}
			got = ap_pageset_add_bits(&s, 3, bits, n);
			if (got != (int64_t)want) {
				bad++;
				printf("# round %d: bitmap of %" PRIu64 " bits added %" PRId64
				       ", want %" PRIu64 "\n", round, n, got, want);
			}
		}
	}
	for (uint64_t i = 0; i < N; i++)
		if (ap_pageset_add(&s, KEY(3, i)) != !truth[i])
			bad++;
	CHECK("mixed singles and bitmaps: every answer as a plain set gives", !bad,
	      "%d wrong of %d rounds", bad, rounds);
	/* another run is another key space */
	memset(bits, 0xff, 2);
	CHECK_EQ_I64("a run of another hi adds its own keys", ap_pageset_add_bits(&s, 4, bits, 16),
		     16);
	CHECK_EQ_I64("its keys are in the set", ap_pageset_add(&s, KEY(4, 15)), 0);
	CHECK_EQ_I64("past its bits they are not", ap_pageset_add(&s, KEY(4, 16)), 1);
	ap_pageset_free(&s);
}

/* 2^25 keys from a 4 MiB bitmap: a 4 MiB run, not 2^25 hash slots. */
static void test_large(void)
{
	size_t nb = 4u << 20;
	uint8_t *bits = malloc(nb);
	struct ap_pageset s;

	if (!bits)
		abort();
	memset(bits, 0xff, nb);
	ap_pageset_init(&s);
	CHECK_EQ_I64("4 MiB all-ones bitmap: 2^25 keys", ap_pageset_add(&s, KEY(1, 77)), 1);
	CHECK_EQ_I64("4 MiB all-ones bitmap: 2^25 keys, one already there",
		     ap_pageset_add_bits(&s, 1, bits, (uint64_t)nb * 8), (1 << 25) - 1);
	CHECK("4 MiB all-ones bitmap: kept as a bitmap", s.cap <= 1024 && s.n_run == 1,
	      "hash %zu slots, %zu runs", s.cap, s.n_run);
	CHECK_EQ_I64("4 MiB all-ones bitmap again: nothing new",
		     ap_pageset_add_bits(&s, 1, bits, (uint64_t)nb * 8), 0);
	CHECK_EQ_I64("bitmap longer than 2^40 bits: refused",
		     ap_pageset_add_bits(&s, 2, bits, (1ULL << AP_PAGESET_RUN_BITS) + 1), -EINVAL);
	ap_pageset_free(&s);
	free(bits);
}

int main(void)
{
	test_mixed();
	test_large();
	TEST_EXIT();
}
