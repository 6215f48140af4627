/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attrib_report: the arena by address and attribution without markers (analyze/attrib.h)
 * laid out for `report`: a text section, and its part of report's JSON.
 */
#ifndef ARENAPROF_ATTRIB_REPORT_H
#define ARENAPROF_ATTRIB_REPORT_H

#include <stdio.h>

#include "arenaprof/analyze/attrib.h"
#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/json.h"

/* The arena section's lines from the attribution: region, size, touches, plan, consistency,
 * re-plans and run times (report.c prints the rest of the section). */
void ap_attrib_text_arena(FILE *f, const struct ap_corr_all *x, const struct ap_attrib *at);
/* The sections after: memory outside the arena that no plan holds, and the weights. */
void ap_attrib_text(FILE *f, const struct ap_corr_all *x, const struct ap_attrib *at);
/* Keys of the report's JSON object: "arena_id", "consistency", "not_planned", "weights". */
void ap_attrib_json(struct ap_json *j, const struct ap_corr_all *x,
		    const struct ap_attrib *at);

#endif
