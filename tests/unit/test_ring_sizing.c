// SPDX-License-Identifier: Apache-2.0
/*
 * ring_sizing (src/record/ring_sizing.c): the ring holds AP_RING_BUDGET_MS of the measured
 * fault rate in 56-byte ring records (48 and the kernel's 8-byte header), as a power of
 * 2 within [AP_RING_MIN, AP_RING_MAX]; the measured rate is a real, positive rate.
 */
#include <stdint.h>

#include "arenaprof/record/ring_sizing.h"
#include "test.h"

int main(void)
{
	char err[256] = "";
	double rate = 0;
	uint32_t n;

	/* 1.4 M faults/s x 56 B x 10 ms = 784,000 bytes: 1 MiB */
	n = ap_ring_bytes_for_rate(1.4e6);
	CHECK("ring_sizing: 1.4 M faults/s -> 1 MiB", n == 1u << 20, "got %u", n);
	/* 1.9 M faults/s: 1,064,000 bytes, just over 1 MiB: 2 MiB */
	n = ap_ring_bytes_for_rate(1.9e6);
	CHECK("ring_sizing: 1.9 M faults/s -> 2 MiB", n == 2u << 20, "got %u", n);
	n = ap_ring_bytes_for_rate(1000);
	CHECK("ring_sizing: a slow machine gets the floor", n == AP_RING_MIN, "got %u", n);
	n = ap_ring_bytes_for_rate(1e12);
	CHECK("ring_sizing: an absurd rate gets the cap", n == AP_RING_MAX, "got %u", n);
	CHECK("ring_sizing: the rate is measured",
	      !ap_ring_measure_fault_rate(&rate, err) && rate > 1000 && rate < 1e9,
	      "rate %.0f, %s", rate, err);
	TEST_EXIT();
}
