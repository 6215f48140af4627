// SPDX-License-Identifier: Apache-2.0
/* clock: nanoseconds of a clock (clock.h). */
#include "arenaprof/util/clock.h"

uint64_t ap_clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}
