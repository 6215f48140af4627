/* SPDX-License-Identifier: Apache-2.0 */
/*
 * openmetrics: a report's figures as OpenMetrics text, for node_exporter's textfile
 * collector (many boards, one Prometheus): the arena planned and found, the peak, the
 * first-touched arena pages, drops, runs and run latency, labelled by model and host.
 */
#ifndef ARENAPROF_OPENMETRICS_H
#define ARENAPROF_OPENMETRICS_H

#include <stdio.h>

#include "arenaprof/render/report.h"

void ap_openmetrics_report(FILE *f, const struct ap_report *r);

struct ap_live;
/* The live view's latest figures, the same metrics (top --openmetrics FILE). */
void ap_openmetrics_live(FILE *f, const struct ap_live *l);

#endif
