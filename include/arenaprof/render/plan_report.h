/* SPDX-License-Identifier: Apache-2.0 */
/* plan_report: `arenaprof plan` output as text, JSON and CSV, from one plan set. */
#ifndef ARENAPROF_PLAN_REPORT_H
#define ARENAPROF_PLAN_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_build.h"	/* struct ap_plan_set */
#include "arenaprof/plan/plan_process.h"

/* The plan JSON's "schema_version": 2 added the default path (delegate, cpu, xnnpack,
 * anonymous_bytes, the operators' XNNPACK keys); 1 was the builtin plan alone, unversioned. */
#define AP_PLAN_SCHEMA 2

/* With a budget: whether the model's non-reclaimable memory fits it: the arenas (arena
 * and persistent arena) and, on the XNNPACK path, all that XNNPACK holds. */
bool ap_plan_fits(const struct ap_plan_set *s);
void ap_plan_print_text(FILE *f, const struct ap_plan_set *s);
void ap_plan_print_json(FILE *f, const struct ap_plan_set *s);
void ap_plan_print_csv(FILE *f, const struct ap_tplan *p);

/*
 * Several models in one process, p->n plan sets of models (not imports) planned with the
 * same options: a block per model and the process's sums (text); {"schema_version",
 * "models": [each model's plan object, as ap_plan_print_json prints it alone],
 * "anonymous_bytes", "weights_bytes", "total_bytes", "largest_model", "verdict"} (JSON);
 * the tensor table with a first column "model" (CSV). The budget is sets[0]'s.
 */
void ap_plan_print_multi_text(FILE *f, const struct ap_plan_set *sets,
			      const struct ap_plan_process *p);
void ap_plan_print_multi_json(FILE *f, const struct ap_plan_set *sets,
			      const struct ap_plan_process *p);
void ap_plan_print_multi_csv(FILE *f, const struct ap_plan_set *sets,
			     const struct ap_plan_process *p);
/* With a budget: whether the models' summed non-reclaimable memory fits it. */
bool ap_plan_multi_fits(const struct ap_plan_set *sets, const struct ap_plan_process *p);

#endif
