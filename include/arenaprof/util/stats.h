/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stats: the median and 99th percentile of a list of durations, one definition for every
 * view of them (report's runs, the live view's latency), so that they agree.
 */
#ifndef ARENAPROF_STATS_H
#define ARENAPROF_STATS_H

#include <stddef.h>
#include <stdint.h>

/*
 * Sorts v (n > 0) in place and gives its median (the lower of the two middle values for
 * an even n) and its p99 (the value at index n * 99 / 100, the last for n < 100).
 */
void ap_median_p99(uint64_t *v, size_t n, uint64_t *median, uint64_t *p99);

#endif
