/* SPDX-License-Identifier: Apache-2.0 */
/*
 * top_batch: the one-line-per-interval text of top --batch (and --json): for logging over
 * a serial console, or where there is no terminal. Layout only: every figure comes from
 * the live model (live.h).
 */
#ifndef ARENAPROF_TOP_BATCH_H
#define ARENAPROF_TOP_BATCH_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/analyze/live.h"

/* One line of key=value fields for the latest sample (sizes in bytes, rates per second,
 * '-' for what was not read); as_json: the same as one JSON object (null). budget (0:
 * none): the process so far against it (ap_live_budget), its verdict's keys last. */
void ap_top_batch_line(FILE *f, const struct ap_live *l, bool as_json, uint64_t budget);
/* Each JSON line's "schema_version": 1, its first versioned form. */
#define AP_TOP_BATCH_SCHEMA 1

#endif
