/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_lat: a trace's run latency from the run probe's markers (analysis.h's run_ns): run 0,
 * the median and p99 of the completed runs (util/stats.h's rule), their count and sum, one
 * reading for report's attribution, diff and the OpenMetrics export.
 */
#ifndef ARENAPROF_RUN_LAT_H
#define ARENAPROF_RUN_LAT_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/analysis.h"

struct ap_run_lat {
	bool timed;			/* run 0 and at least one run completed */
	uint64_t runs;			/* completed runs timed */
	uint64_t first_ns, median_ns, p99_ns, sum_ns;
	uint64_t *sorted;		/* the runs' durations, sorted (runs of them) */
};

/* The latency of a's runs into l (all zeros when none completed): 0, or -ENOMEM with err.
 * Free with ap_run_lat_free. */
int ap_run_lat(const struct ap_analysis *a, struct ap_run_lat *l, char *err);
void ap_run_lat_free(struct ap_run_lat *l);

#endif
