/* SPDX-License-Identifier: Apache-2.0 */
/* check_report: `arenaprof check` as a text table and as JSON (kernel/features.h). */
#ifndef ARENAPROF_CHECK_REPORT_H
#define ARENAPROF_CHECK_REPORT_H

#include <stdio.h>

#include "arenaprof/kernel/features.h"

/* One row per feature (name, status, detail); under a feature that is not ok, what falls
 * back and the kernel option; then each face's state. */
void ap_check_text(FILE *f, const struct ap_features *fs);
/* {"kernel", "arch", "features": [{"name", "status", "detail", "affects",
 * "kernel_option"}], "faces": {"record", "top", "run", "plan"}} */
/* The check JSON's "schema_version": 1, its first versioned form. */
#define AP_CHECK_SCHEMA 1

void ap_check_json(FILE *f, const struct ap_features *fs);

#endif
