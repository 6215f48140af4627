/* SPDX-License-Identifier: Apache-2.0 */
/* diff_report: `arenaprof diff` as text and as JSON (analyze/diff.h has the figures). */
#ifndef ARENAPROF_DIFF_REPORT_H
#define ARENAPROF_DIFF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/analyze/diff.h"

struct ap_diff_gate {
	bool on;		/* --fail-above given */
	double pct;		/* the threshold */
	bool arena_over, peak_over;
};

/* The gate's verdict: NEW's arena or peak grown past the threshold. */
void ap_diff_judge(const struct ap_diff_side *o, const struct ap_diff_side *n,
		   struct ap_diff_gate *g);
void ap_diff_text(FILE *f, const struct ap_diff_side *o, const struct ap_diff_side *n,
		  const struct ap_diff_gate *g);
void ap_diff_json(FILE *f, const struct ap_diff_side *o, const struct ap_diff_side *n,
		  const struct ap_diff_gate *g);

#endif
