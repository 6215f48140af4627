// SPDX-License-Identifier: Apache-2.0
/*
 * live_lat: the live view's inference latency from its last runs (live.h). On its own so
 * that a writer of the live figures (openmetrics.c) needs no more of the live model than
 * its struct: the fuzzers link the renderers without the session's code.
 */
#include <string.h>

#include "arenaprof/analyze/live.h"
#include "arenaprof/util/stats.h"

bool ap_live_latency(const struct ap_live *l, uint64_t *p50, uint64_t *p99, uint32_t *n)
{
	uint64_t v[AP_LIVE_LAT];
	uint32_t k = l->lat.n < AP_LIVE_LAT ? (uint32_t)l->lat.n : AP_LIVE_LAT;

	*n = k;
	if (!k)
		return false;
	memcpy(v, l->lat.ns, k * sizeof(*v));
	ap_median_p99(v, k, p50, p99);
	return true;
}
