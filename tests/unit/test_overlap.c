// SPDX-License-Identifier: Apache-2.0
/*
 * ap_overlap_first (src/analyze/overlap.c) against the double loop it replaced, on random
 * intervals that overlap often (small coordinates), empty and zero-ended ones included.
 */
#include <stdint.h>
#include <stdlib.h>

#include "arenaprof/analyze/overlap.h"
#include "test.h"

static int32_t brute(const struct ap_span *src, uint32_t ns, const struct ap_span *q)
{
	for (uint32_t k = 0; k < ns; k++)
		if (src[k].start < q->end && q->start < src[k].end)
			return (int32_t)k;
	return -1;
}

int main(void)
{
	uint64_t seed = 12345;
	uint32_t wrong = 0, checked = 0, hits = 0;
	int bad = 0;

	for (int round = 0; round < 200; round++) {
		uint32_t ns = (uint32_t)(test_xorshift64(&seed) % 300);
		uint32_t nq = 1 + (uint32_t)(test_xorshift64(&seed) % 300);
		uint64_t span = 10 + test_xorshift64(&seed) % 5000;
		struct ap_span *src = malloc((ns + 1) * sizeof(*src));
		struct ap_span *q = malloc(nq * sizeof(*q));
		int32_t *first = malloc(nq * sizeof(*first));

		if (!src || !q || !first)
			return 1;
		for (uint32_t i = 0; i < ns + nq; i++) {
			uint64_t s = test_xorshift64(&seed) % span;
			uint64_t len = test_xorshift64(&seed) % 40;
			struct ap_span *x = i < ns ? &src[i] : &q[i - ns];

			*x = (struct ap_span){ s, s + len };	/* len 0: empty */
			if (i % 97 == 5)
				*x = (struct ap_span){ 0, 0 };
		}
		bad |= ap_overlap_first(src, ns, q, nq, first);
		for (uint32_t j = 0; j < nq; j++) {
			int32_t want = brute(src, ns, &q[j]);

			wrong += first[j] != want;
			hits += want >= 0;
			checked++;
		}
		free(src);
		free(q);
		free(first);
	}
	CHECK("overlap: the first overlapping source of every query, as the double loop finds",
	      !bad && !wrong && hits > checked / 4 && hits < checked,
	      "%u of %u wrong (%u with a source), rc %d", wrong, checked, hits, bad);
	TEST_EXIT();
}
