// SPDX-License-Identifier: Apache-2.0
/*
 * ring_sizing: see include/arenaprof/record/ring_sizing.h.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "arenaprof/event.h"
#include "arenaprof/util/err.h"
#include "arenaprof/record/ring_sizing.h"

#define ROUND_BYTES (1u << 20)
#define ROUNDS 4
#define RINGBUF_HDR 8		/* the kernel's header of each ring record */

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int ap_ring_measure_fault_rate(double *faults_per_s, char *err)
{
	long page = sysconf(_SC_PAGESIZE);
	size_t pages;
	double best = 0;

	if (page <= 0)
		page = 4096;
	pages = ROUND_BYTES / (size_t)page;
	for (int r = 0; r < ROUNDS; r++) {
		volatile char *p = mmap(NULL, ROUND_BYTES, PROT_READ | PROT_WRITE,
					MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		double t0, t;

		if (p == MAP_FAILED) {
			int e = errno;

			return ap_fail(err, -e, "measuring the fault rate: mmap: %s", strerror(e));
		}
		/* one fault a page: no transparent huge page for this area */
		madvise((void *)p, ROUND_BYTES, MADV_NOHUGEPAGE);
		t0 = now_s();
		for (size_t i = 0; i < pages; i++)
			p[i * (size_t)page] = 1;
		t = now_s() - t0;
		munmap((void *)p, ROUND_BYTES);
		if (t > 0 && (double)pages / t > best)
			best = (double)pages / t;
	}
	if (best <= 0) {
		return ap_fail(err, -EIO, "measuring the fault rate: the clock did not advance");
	}
	*faults_per_s = best;
	return 0;
}

uint32_t ap_ring_bytes_for_rate(double faults_per_s)
{
	double want = faults_per_s * (double)(sizeof(struct ap_ring_event) + RINGBUF_HDR) *
		      AP_RING_BUDGET_MS / 1000.0;
	uint32_t n = AP_RING_MIN;

	while (n < AP_RING_MAX && (double)n < want)
		n <<= 1;
	return n;
}
