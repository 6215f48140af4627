/* SPDX-License-Identifier: Apache-2.0 */
/* run_report: `arenaprof run`'s results as text (run by run) and as one JSON object. */
#ifndef ARENAPROF_RUN_REPORT_H
#define ARENAPROF_RUN_REPORT_H

#include <stdio.h>

#include "arenaprof/plan/plan.h"
#include "arenaprof/record/run_harness.h"

/* The line that says what runs where, and the plan's sizes (plan may be NULL). */
void ap_run_print_header(FILE *f, const struct ap_run_req *rq, const char *parent,
			 const struct ap_tplan *plan);
/* One run, as it ends. */
void ap_run_print_text(FILE *f, const struct ap_run_req *rq, const struct ap_run_result *r);
/* The run JSON's "schema_version": 1, its first versioned form. */
#define AP_RUN_SCHEMA 1

/* {"schema_version", "limits", "plan" (when plan is not NULL), "runs": the n runs}. */
void ap_run_print_json(FILE *f, const struct ap_run_req *rq, const struct ap_tplan *plan,
		       const struct ap_run_result *runs, long n);

#endif
