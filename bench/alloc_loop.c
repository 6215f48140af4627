// SPDX-License-Identifier: Apache-2.0
/*
 * alloc_loop N: N malloc(64)/free pairs, timed; prints "pair_ns T". Under `arenaprof
 * record` (no run probe, so the allocation probe stays on malloc and free) the
 * difference is the cost of the probe's traps: malloc's entry and return, free's entry.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	struct timespec a, b;
	void *volatile p;

	if (n <= 0)
		return 2;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		p = malloc(64);
		free(p);
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	printf("pair_ns %.1f\n", ((double)(b.tv_sec - a.tv_sec) * 1e9 +
				 (double)(b.tv_nsec - a.tv_nsec)) / (double)n);
	return 0;
}
