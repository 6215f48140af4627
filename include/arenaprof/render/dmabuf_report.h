/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dmabuf_report: the accelerator half in report (analyze/dmabuf_seen.h): the summary's
 * "device" line, the text section of the buffers and the JSON "dmabuf" object. Each
 * writes nothing for a trace whose target held no dma-buf, so such a report is as before.
 */
#ifndef ARENAPROF_DMABUF_REPORT_H
#define ARENAPROF_DMABUF_REPORT_H

#include <stdio.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/util/json.h"

void ap_dmabuf_summary_text(FILE *f, const struct ap_analysis *a);
void ap_dmabuf_report_text(FILE *f, const struct ap_analysis *a);
void ap_dmabuf_report_json(struct ap_json *j, const struct ap_analysis *a);

#endif
