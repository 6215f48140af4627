/* SPDX-License-Identifier: Apache-2.0 */
/*
 * report: what `arenaprof report` prints about a trace, as text or as one JSON object;
 * `export --format json` writes the same object.
 */
#ifndef ARENAPROF_REPORT_H
#define ARENAPROF_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "arenaprof/analyze/correlate.h"

struct ap_attrib;

struct ap_report {
	const char *path;		/* the trace, as named */
	const struct ap_corr_all *x;	/* analysis, plan, correlation */
	bool pages;			/* JSON: list every first-touched arena page */
	bool all_mappings;		/* text: every vma, not one line per object */
	unsigned max_disagree;		/* text: disagreeing pages listed (0: default 20) */
	/* the arena by address and attribution without markers (attrib.h), or NULL */
	const struct ap_attrib *attrib;
	/* report --budget SIZE: the budget (0: none); with --plan the model's share as
	 * planned, its two halves (have_model): summary.h's verdict on the process */
	uint64_t budget;
	bool have_model;
	uint64_t model_anon, model_file;
};

/* The JSON's schema version: 2 added "summary" and null for unknown values. */
#define AP_REPORT_SCHEMA 2

void ap_report_text(FILE *f, const struct ap_report *r);
void ap_report_json(FILE *f, const struct ap_report *r);

#endif
