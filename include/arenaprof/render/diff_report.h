/* SPDX-License-Identifier: Apache-2.0 */
/* diff_report: `arenaprof diff` as text and as JSON (analyze/diff.h has the figures). */
#ifndef ARENAPROF_DIFF_REPORT_H
#define ARENAPROF_DIFF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/analyze/diff.h"
#include "arenaprof/analyze/procmem.h"
#include "arenaprof/plan/budget.h"

/* The diff JSON's "schema_version": 1 is its first versioned form (latency rows, n/a
 * rows, operators paired by opcode and output name, the latency gate). */
#define AP_DIFF_SCHEMA 1

/* A side against --budget: a trace's process (as report --budget judges it), or a plan's
 * model memory alone (its arena halves non-reclaimable, its mapped weights not). */
struct ap_diff_fit {
	struct ap_budget_process v;
	struct ap_procmem m;		/* a trace side's measured memory */
};

struct ap_diff_gate {
	bool on;		/* --fail-above given */
	double pct;		/* its threshold */
	bool lat_on;		/* --fail-above-latency given */
	double lat_pct;
	uint64_t budget;	/* --budget SIZE, 0 none */
	struct ap_diff_fit fit[2];	/* old's and new's verdicts with a budget */
	bool arena_over, peak_over, median_over, p99_over;
	bool budget_over;	/* new does not fit the budget, or has no verdict */
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
