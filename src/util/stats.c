// SPDX-License-Identifier: Apache-2.0
/* stats: median and p99 of durations (stats.h). */
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"
#include "arenaprof/util/stats.h"

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return AP_CMP(a, b);
}

void ap_median_p99(uint64_t *v, size_t n, uint64_t *median, uint64_t *p99)
{
	ap_qsort(v, n, sizeof(*v), cmp_u64);
	*median = v[(n - 1) / 2];
	*p99 = v[n * 99 / 100 < n ? n * 99 / 100 : n - 1];
}
