/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xnn_ws_report: the pages of XNNPACK's workspace in `report` (correlate.h's ws: the
 * workspace block correlated with the plan of its values), named by operator: a text block
 * in the xnnpack section and the JSON object "xnnpack"."workspace_pages".
 */
#ifndef ARENAPROF_XNN_WS_REPORT_H
#define ARENAPROF_XNN_WS_REPORT_H

#include <stdio.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/json.h"

/* The block, its pages, who they are named by; nothing without a correlated workspace. */
void ap_xnn_ws_text(FILE *f, const struct ap_corr_all *x);
/* "workspace_pages": {...}, or null without a correlated workspace. */
void ap_xnn_ws_json(struct ap_json *j, const struct ap_corr_all *x);

#endif
