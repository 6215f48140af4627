/* SPDX-License-Identifier: Apache-2.0 */
/* plan_report: `arenaprof plan` output as text, JSON and CSV, from one plan set. */
#ifndef ARENAPROF_PLAN_REPORT_H
#define ARENAPROF_PLAN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_build.h"	/* struct ap_plan_set */

/* The plan JSON's "schema_version": 2 added the default path (delegate, cpu, xnnpack,
 * anonymous_bytes, the operators' XNNPACK keys); 1 was the builtin plan alone, unversioned. */
#define AP_PLAN_SCHEMA 2

/* With a budget: whether the model's non-reclaimable memory fits it: the arenas (arena
 * and persistent arena) and, on the XNNPACK path, all that XNNPACK holds. */
bool ap_plan_fits(const struct ap_plan_set *s);
void ap_plan_print_text(FILE *f, const struct ap_plan_set *s);
void ap_plan_print_json(FILE *f, const struct ap_plan_set *s);
void ap_plan_print_csv(FILE *f, const struct ap_tplan *p);

#endif
