/* SPDX-License-Identifier: Apache-2.0 */
/* diff_report: `arenaprof diff` as text and as JSON (analyze/diff.h has the figures). */
#ifndef ARENAPROF_DIFF_REPORT_H
#define ARENAPROF_DIFF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/analyze/diff.h"

/* The diff JSON's "schema_version": 1 is its first versioned form (latency rows, n/a
 * rows, operators paired by opcode and output name, the latency gate). */
#define AP_DIFF_SCHEMA 1

struct ap_diff_gate {
	bool on;		/* --fail-above given */
	double pct;		/* its threshold */
	bool lat_on;		/* --fail-above-latency given */
	double lat_pct;
	bool arena_over, peak_over, median_over, p99_over;
	/* a gate asked for that the pair cannot judge (exit 2), else "" */
	char cannot[3 * AP_ERR_LEN + 256];
};

/* The gates' verdicts: each comparable row grown past its threshold. */
void ap_diff_judge(const struct ap_diff *d, struct ap_diff_gate *g);
/* Whether a gate failed (a row over its threshold). */
bool ap_diff_failed(const struct ap_diff_gate *g);
void ap_diff_text(FILE *f, const struct ap_diff *d, const struct ap_diff_gate *g);
void ap_diff_json(FILE *f, const struct ap_diff *d, const struct ap_diff_gate *g);

#endif
