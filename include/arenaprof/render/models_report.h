/* SPDX-License-Identifier: Apache-2.0 */
/*
 * models_report: each model of a trace (report --plan given once or more; correlate.h's
 * models): its runs and their latency, its arena as found and matched, the pages its
 * operators first touched. A line per model in the summary's verdict (several models), a
 * "models" section, and the JSON array "models".
 */
#ifndef ARENAPROF_MODELS_REPORT_H
#define ARENAPROF_MODELS_REPORT_H

#include <stdio.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/json.h"

/* The summary's verdict: one line per model, only when there are several. */
void ap_models_summary_text(FILE *f, const struct ap_corr_all *x);
/* The "models" section: how each model's arena and runs were found (several models). */
void ap_models_text(FILE *f, const struct ap_corr_all *x);
/* "models": [...] with a plan, else nothing. */
void ap_models_json(struct ap_json *j, const struct ap_corr_all *x);

#endif
