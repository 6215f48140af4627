/* SPDX-License-Identifier: Apache-2.0 */
/* plan_report: `arenaprof plan` output as text, JSON and CSV, from one plan set. */
#ifndef ARENAPROF_PLAN_REPORT_H
#define ARENAPROF_PLAN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_build.h"	/* struct ap_plan_set */

/* With a budget: whether the model's pinned memory (arena and persistent arena) fits it. */
bool ap_plan_fits(const struct ap_plan_set *s);
void ap_plan_print_text(FILE *f, const struct ap_plan_set *s);
void ap_plan_print_json(FILE *f, const struct ap_plan_set *s);
void ap_plan_print_csv(FILE *f, const struct ap_tplan *p);

#endif
