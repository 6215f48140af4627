/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan_report_priv: plan_report_xnn.c's printers of the XNNPACK side (the default path),
 * for plan_report.c; the halves they print are the plan set's (plan_build.h).
 */
#ifndef ARENAPROF_PLAN_REPORT_PRIV_H
#define ARENAPROF_PLAN_REPORT_PRIV_H

#include <stdint.h>
#include <stdio.h>

#include "arenaprof/plan/plan_build.h"
#include "arenaprof/util/json.h"

/* The delegate, the CPU, partitions and delegated operators, what is not modelled. */
void ap_pr_text_xnn_head(FILE *f, const struct ap_plan_set *s);
/* The default path's two halves, their parts, the widest XNNPACK value. */
void ap_pr_text_xnn(FILE *f, const struct ap_plan_set *s);
/* "delegate", "cpu", "xnnpack", "anonymous_bytes", "reclaimable_bytes" (as they apply). */
void ap_pr_json_xnn(struct ap_json *j, const struct ap_plan_set *s);
/* An operator's XNNPACK keys in the "ops" list, with s->have_xnn. */
void ap_pr_json_op_xnn(struct ap_json *j, const struct ap_plan_set *s, uint32_t op);

#endif
