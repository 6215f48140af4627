// SPDX-License-Identifier: Apache-2.0
/*
 * A fault storm: first-touches N MiB of anonymous memory (default 1024: 262,144 pages of
 * 4 KiB), one write per page, and prints the time the touching took, measured inside:
 * wall time, and the thread's CPU time (user and system: the fault handling, and any
 * tracer's BPF program run in it), which other jobs on a shared machine disturb less.
 * storm N HOLD_MS: then waits HOLD_MS before exiting, so that a tracer's BPF statistics
 * can be read whole while it is still loaded (make bench polls bpftrace's).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? strtoul(argv[1], NULL, 10) : 1024, len = mib << 20;
	long page = sysconf(_SC_PAGESIZE);
	volatile char *p = mmap(NULL, len, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t t0, c0;

	if (p == MAP_FAILED || !mib) {
		perror("storm: mmap");
		return 1;
	}
	madvise((void *)p, len, MADV_NOHUGEPAGE);	/* one fault per page */
	t0 = now_ns(CLOCK_MONOTONIC);
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (size_t off = 0; off < len; off += (size_t)page)
		p[off] = 1;
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	printf("storm pages %zu ns %llu cpu_ns %llu\n", len / (size_t)page,
	       (unsigned long long)(now_ns(CLOCK_MONOTONIC) - t0), (unsigned long long)c0);
	fflush(stdout);
	if (argc > 2)
		usleep((useconds_t)strtoul(argv[2], NULL, 10) * 1000);
	return 0;
}
