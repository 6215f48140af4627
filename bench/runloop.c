// SPDX-License-Identifier: Apache-2.0
/*
 * runloop: the cost of a run marker. Calls a "run" function N times (default 20000), each
 * a fixed ~2 us of work, and prints per-run wall times (median, p99) and the thread's CPU
 * time per run (the uprobe traps are charged to it), as
 *   runloop ENTRY median_ns M p99_ns P cpu_ns_per_run C
 * runloop push [N]: the run function's first instruction is a push, as LiteRT's Invoke
 *   and mininfer_invoke begin: x86 uprobes emulate it.
 * runloop step [N]: it is a mov, which x86 uprobes execute out of line with a single-step
 *   trap (as for glibc's free, which begins with a test).
 * Probe it as bench/runloop:runloop_push or bench/runloop:runloop_step.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t now_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

volatile int sink;

__attribute__((noinline, used)) void runloop_work(int run)
{
	for (int i = 0; i < 1000; i++)
		sink += run;
}

/* the entry instructions are spelled out: a compiler may begin a function either way */
void runloop_push(int run);
void runloop_step(int run);
#if defined(__x86_64__)
__asm__(".text\n.globl runloop_push\n.type runloop_push,@function\nrunloop_push:\n"
	"\tpush %r12\n\tpop %r12\n\tjmp runloop_work\n.size runloop_push,.-runloop_push\n"
	".globl runloop_step\n.type runloop_step,@function\nrunloop_step:\n"
	"\tmov $1,%eax\n\tjmp runloop_work\n.size runloop_step,.-runloop_step\n");
#else
__attribute__((noinline)) void runloop_push(int run)
{
	runloop_work(run);
}

__attribute__((noinline)) void runloop_step(int run)
{
	runloop_work(run);
}
#endif

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	const char *entry = argc > 1 ? argv[1] : "push";
	long n = argc > 2 ? atol(argv[2]) : 20000;
	void (*run)(int) = !strcmp(entry, "step") ? runloop_step : runloop_push;
	uint64_t *t, c0;

	if (n < 1 || (strcmp(entry, "push") && strcmp(entry, "step"))) {
		fprintf(stderr, "usage: runloop [push|step] [N]\n");
		return 2;
	}
	t = calloc((size_t)n, sizeof(*t));
	if (!t)
		return 1;
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID);
	for (long i = 0; i < n; i++) {
		uint64_t t0 = now_ns(CLOCK_MONOTONIC);

		run((int)i);
		t[i] = now_ns(CLOCK_MONOTONIC) - t0;
	}
	c0 = now_ns(CLOCK_THREAD_CPUTIME_ID) - c0;
	qsort(t, (size_t)n, sizeof(*t), cmp_u64);
	printf("runloop %s median_ns %llu p99_ns %llu cpu_ns_per_run %llu\n", entry,
	       (unsigned long long)t[n / 2], (unsigned long long)t[(size_t)((n - 1) * 0.99)],
	       (unsigned long long)(c0 / (uint64_t)n));
	free(t);
	return 0;
}
