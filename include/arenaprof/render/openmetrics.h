/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openmetrics: a report's figures as OpenMetrics text, for node_exporter's textfile
 * collector (many boards, one Prometheus): arenaprof's version (build_info), the arena
 * planned and found, the peak, the first-touched arena pages, drops and runs (counters),
 * the run latency (a summary), labelled by model (with a plan) and host.
 */
#ifndef ARENAPROF_OPENMETRICS_H
#define ARENAPROF_OPENMETRICS_H

#include <stdio.h>

#include "arenaprof/render/report.h"

/* version: arenaprof's, for arenaprof_build_info (render/ is below cli/, which has it). */
void ap_openmetrics_report(FILE *f, const struct ap_report *r, const char *version);

struct ap_live;
/* The live view's latest figures, the same metrics (top --openmetrics FILE). */
void ap_openmetrics_live(FILE *f, const struct ap_live *l, const char *version);

#endif
