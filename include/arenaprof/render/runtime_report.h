/* SPDX-License-Identifier: Apache-2.0 */
/* runtime_report: report's runtime line and JSON object (analyze/trace_runtime.h). */
#ifndef ARENAPROF_RUNTIME_REPORT_H
#define ARENAPROF_RUNTIME_REPORT_H

#include <stdio.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/json.h"

/* "runtime    NAME VERSION (from METADATA); planned by R's rules, WHY": the runtime the
 * trace names and, with a model's plan, the rules it was planned by and why; nothing
 * when there is neither. */
void ap_runtime_report_text(FILE *f, const struct ap_corr_all *x);
/* "runtime": {"name" (the rules; null without a model planned), "what", "chosen",
 * "why", "version_seen", "distribution", "version", "source", "library",
 * "runtimes_seen", "xnnpack_not_modelled"}. */
void ap_runtime_report_json(struct ap_json *j, const struct ap_corr_all *x);

#endif
