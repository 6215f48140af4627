/* SPDX-License-Identifier: Apache-2.0 */
/* plan_load: the --plan option of every command: a .tflite model or a plan file. */
#ifndef ARENAPROF_PLAN_LOAD_H
#define ARENAPROF_PLAN_LOAD_H

#include "arenaprof/plan/plan.h"

/*
 * A .tflite file (TFL3 identifier) is planned with the tflite strategy (1 thread);
 * anything else goes to ap_plan_import (LiteRT dump, TFLM plan, CSV). ap_plan_build with
 * AP_PLAN_ANY: 0, or its negative errno with err.
 */
int ap_plan_load(const char *path, struct ap_tplan *p, char *err);

#endif
