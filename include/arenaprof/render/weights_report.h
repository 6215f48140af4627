/* SPDX-License-Identifier: Apache-2.0 */
/*
 * weights_report: the model file's weights on LiteRT's default path in `report`
 * (analyze/weights_split.h): the pages read once to pack and then left, apart from the
 * kept operators' weights read at every run and from the packed copy, and what XNNPACK's
 * weight cache would change. Text under the weights line; JSON "weights"."default_path".
 */
#ifndef ARENAPROF_WEIGHTS_REPORT_H
#define ARENAPROF_WEIGHTS_REPORT_H

#include <stdio.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/json.h"

void ap_weights_text(FILE *f, const struct ap_corr_all *x);
/* "default_path": {...}, or null without a model's default-path plan. */
void ap_weights_json(struct ap_json *j, const struct ap_corr_all *x);

#endif
