/* SPDX-License-Identifier: Apache-2.0 */
/*
 * summary: the answer first. The opening lines of `report` (at most 8) and its JSON
 * "summary": the verdict on the process (fits --budget or not, and the number that
 * decided), the latency (run 0, median, p99), the layer that decides (or why none can)
 * and the verdict on the plan, the peak and what it is made of, and the drops, from the
 * analysis, correlation and attribution report.c has.
 */
#ifndef ARENAPROF_SUMMARY_H
#define ARENAPROF_SUMMARY_H

#include <stdio.h>

#include "arenaprof/analyze/procmem.h"
#include "arenaprof/plan/budget.h"
#include "arenaprof/render/report.h"
#include "arenaprof/util/json.h"

void ap_summary_text(FILE *f, const struct ap_report *r);
/*
 * The process r's trace measured (m) against r->budget (v; with no budget, 0: v says
 * nothing): the first line of the text, report --json's "budget", report's exit status.
 */
void ap_summary_budget(const struct ap_report *r, struct ap_procmem *m,
		       struct ap_budget_process *v);
/* The same for any trace's x against budget (diff --budget judges both sides). */
void ap_summary_budget_of(const struct ap_corr_all *x, uint64_t budget,
			  struct ap_procmem *m, struct ap_budget_process *v);
/* report --json's "budget" object (with r->budget), else nothing. */
void ap_summary_budget_json(struct ap_json *j, const struct ap_report *r);
void ap_summary_json(struct ap_json *j, const struct ap_report *r);

/*
 * The run probe the trace was recorded with: record's --run-probe from the header, else
 * the one the recorder found by itself (its note), else "".
 */
const char *ap_summary_run_probe(const struct ap_analysis *a, char *buf, size_t len);

#endif
