/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dmabuf_report: the accelerator half in report (analyze/dmabuf_seen.h): the summary's
 * "device" line, the text section of the buffers and the JSON "dmabuf" object. Each
 * writes nothing for a trace whose target held no dma-buf, so such a report is as before.
 */
#ifndef ARENAPROF_DMABUF_REPORT_H
#define ARENAPROF_DMABUF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/util/json.h"

/*
 * The device peak of a's trace (analyze/dmabuf_seen.h, ap_dmabuf_seen_device): false when
 * the target had no dma-buf, and nothing is to be shown.
 */
bool ap_dmabuf_device(const struct ap_analysis *a, struct ap_dmabuf_peak *p);
void ap_dmabuf_summary_text(FILE *f, const struct ap_analysis *a);
void ap_dmabuf_report_text(FILE *f, const struct ap_analysis *a);
void ap_dmabuf_report_json(struct ap_json *j, const struct ap_analysis *a);

#endif
