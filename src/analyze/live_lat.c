// SPDX-License-Identifier: Apache-2.0
/*
 * live_lat: the live view's inference latency from its last runs (live.h). On its own so
 * that a writer of the live figures (openmetrics.c) needs no more of the live model than
 * its struct: the fuzzers link the renderers without the session's code.
 */
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/live.h"
#include "arenaprof/util/order.h"

static int cmp_u64(const void *a, const void *b)
{
	return AP_CMP(*(const uint64_t *)a, *(const uint64_t *)b);
}

bool ap_live_latency(const struct ap_live *l, uint64_t *p50, uint64_t *p99, uint32_t *n)
{
	uint64_t v[AP_LIVE_LAT];
	uint32_t k = l->lat.n < AP_LIVE_LAT ? (uint32_t)l->lat.n : AP_LIVE_LAT;

	*n = k;
	if (!k)
		return false;
	memcpy(v, l->lat.ns, k * sizeof(*v));
	qsort(v, k, sizeof(*v), cmp_u64);
	/* nearest rank: the smallest value with at least p % of the runs at or below it */
	*p50 = v[(k * 50 + 99) / 100 - 1];
	*p99 = v[(k * 99 + 99) / 100 - 1];
	return true;
}
