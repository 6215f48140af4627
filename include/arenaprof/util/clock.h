/* SPDX-License-Identifier: Apache-2.0 */
/* clock: a clock's time in nanoseconds (CLOCK_MONOTONIC for intervals and trace times). */
#ifndef ARENAPROF_CLOCK_H
#define ARENAPROF_CLOCK_H

#include <stdint.h>
#include <time.h>

uint64_t ap_clock_ns(clockid_t clock);

#endif
