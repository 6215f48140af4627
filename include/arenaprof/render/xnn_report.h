/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xnn_report: XNNPACK's blocks in `report` (analyze/xnn_blocks.h): the text section, the
 * verdict's XNNPACK line and the JSON object "xnnpack".
 */
#ifndef ARENAPROF_XNN_REPORT_H
#define ARENAPROF_XNN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/analyze/xnn_blocks.h"
#include "arenaprof/util/json.h"

/* Every class measured equal to the plan's (with a plan; false without one). */
bool ap_xnn_as_planned(const struct ap_xnn_measured *m);
/* The verdict's continuation line, when the trace has XNNPACK's blocks. */
void ap_xnn_verdict_text(FILE *f, const struct ap_xnn_measured *m);
/* The section: the classes measured and planned, the naming, the largest operators, the
 * workspace's pages (xnn_ws_report.h). */
void ap_xnn_report_text(FILE *f, const struct ap_corr_all *x);
/* "xnnpack": {...}, or null when the trace has no XNNPACK block. */
void ap_xnn_report_json(struct ap_json *j, const struct ap_corr_all *x);

#endif
