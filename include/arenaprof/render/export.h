/* SPDX-License-Identifier: Apache-2.0 */
/*
 * export: a correlated trace for other tools, streamed (one more pass over the trace;
 * memory bounded by the distinct pages, never by the faults):
 *  - chrome: Chrome trace-event JSON (Perfetto UI, chrome://tracing): a track per thread
 *    with run and operator slices from the markers, a fault instant per fault (or, past
 *    max_instants faults, per-operator fault counts on the operator slices and a counter),
 *    counter tracks for VmRSS, Pss_Anon, the arena's resident bytes and PSI;
 *  - csv: one row per fault with its mapping group and attribution.
 * `--format json` is report's JSON (report.h).
 */
#ifndef ARENAPROF_EXPORT_H
#define ARENAPROF_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "arenaprof/analyze/correlate.h"

#define AP_EXPORT_MAX_INSTANTS 200000	/* default: more faults become counts */
/* The Chrome JSON's otherData.schema_version (the trace-event format's own keys are
 * Chrome's): 1, its first versioned form. */
#define AP_CHROME_SCHEMA 1

struct ap_export_opts {
	uint64_t max_instants;		/* 0: the default */
};

/* 0, or -EINVAL (an unreadable trace), -ENOMEM or -EIO (writing f) with err. */
int ap_export_chrome(const struct ap_corr_all *x, const char *trace, FILE *f,
		     const struct ap_export_opts *o, char *err);
int ap_export_csv(const struct ap_corr_all *x, const char *trace, FILE *f, char *err);

#endif
