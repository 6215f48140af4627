/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan_report_priv: plan_report_xnn.c's printers of the XNNPACK side (the default path),
 * for plan_report.c; the halves they print are the plan set's (plan_build.h). And
 * plan_report.c's pieces that plan_report_multi.c prints several models with.
 */
#ifndef ARENAPROF_PLAN_REPORT_PRIV_H
#define ARENAPROF_PLAN_REPORT_PRIV_H

#include <stdint.h>
#include <stdio.h>

#include "arenaprof/plan/budget.h"
#include "arenaprof/plan/plan_build.h"
#include "arenaprof/util/json.h"

/* The delegate, the CPU, partitions and delegated operators, what is not modelled. */
void ap_pr_text_xnn_head(FILE *f, const struct ap_plan_set *s);
/* The default path's two halves, their parts, the widest XNNPACK value. */
void ap_pr_text_xnn(FILE *f, const struct ap_plan_set *s);
/* "delegate", "cpu", "xnnpack", "anonymous_bytes", "reclaimable_bytes" (as they apply). */
void ap_pr_json_xnn(struct ap_json *j, const struct ap_plan_set *s);
/* An operator's XNNPACK keys in the "ops" list, with s->have_xnn. */
/* The partition with the widest XNNPACK value, or -1 when no partition plans one. */
int32_t ap_pr_widest_part(const struct ap_xnn_plan *x);
void ap_pr_json_op_xnn(struct ap_json *j, const struct ap_plan_set *s, uint32_t op);

/* An operator's opcode ("?" when unknown) and output tensor's name ("" when none). */
const char *ap_pr_op_name(const struct ap_tplan *p, int32_t i);
const char *ap_pr_out_name(const struct ap_tplan *p, int32_t i);
/*
 * A tensor name for a terminal: converters fuse names with ';' (the first part names the
 * layer), names may hold control characters, and some run to hundreds of bytes. buf holds
 * 64 bytes. JSON and CSV keep the full name.
 */
const char *ap_pr_short_name(const char *name, char *buf);
/* "budget SIZE, whose:" and the verdict's line: whose memory is judged (the model's
 * alone, the process's), sum names both halves, alone the anonymous one. */
void ap_pr_text_verdict(FILE *f, const struct ap_budget_verdict *v, const char *whose,
			const char *sum, const char *alone);
/* The cgroup v2 settings under a verdict that passes the gate; scope: whose they are. */
void ap_pr_text_cgroup(FILE *f, const struct ap_budget_verdict *v, const char *scope);
/* Under a verdict that does not pass: the budget that would (no settings). */
void ap_pr_text_would_fit(FILE *f, const struct ap_budget_verdict *v);
/* "or shrink #K OP ...": the layer of s that decides the most (one line after indent). */
void ap_pr_text_shrink(FILE *f, const char *indent, const struct ap_plan_set *s);
/* The verdict's JSON keys (budget_bytes, fits, arena_fits, margin_bytes, needed_bytes,
 * memory_max, memory_high, memory_min), in the caller's object. */
void ap_pr_json_verdict(struct ap_json *j, const struct ap_budget_verdict *v);
/* One model's whole plan object, as `plan --json` prints it, into j (in an array). */
void ap_pr_json_plan(struct ap_json *j, const struct ap_plan_set *s);
/* The tensor table's rows; model: a first column (several models), NULL for none. */
#define AP_PR_CSV_HEADER "tensor,name,offset,size,first_node,last_node,kind,shares"
void ap_pr_csv_rows(FILE *f, const struct ap_tplan *p, const char *model);

#endif
