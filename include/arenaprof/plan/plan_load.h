/* SPDX-License-Identifier: Apache-2.0 */
/* plan_load: the --plan option of every command: a .tflite model or a plan file. */
#ifndef ARENAPROF_PLAN_LOAD_H
#define ARENAPROF_PLAN_LOAD_H

#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/runtime.h"
#include "arenaprof/plan/xnnpack.h"

/*
 * A .tflite file (TFL3 identifier) is planned with the tflite strategy (LiteRT's rules, 1
 * thread); anything else goes to ap_plan_import (LiteRT dump, TFLM plan, CSV).
 * ap_plan_build with AP_PLAN_ANY: 0, or its negative errno with err.
 */
int ap_plan_load(const char *path, struct ap_tplan *p, char *err);

/*
 * The same for delegate d and runtime rt's rules (at its default num_threads): with
 * AP_DELEGATE_XNNPACK a model's plan is the TFLite arena that remains on LiteRT's default
 * path (the delegated graph's, plan_build.h's xnn_arena), an import's is itself.
 * ap_plan_load is AP_DELEGATE_NONE's with AP_RUNTIME_LITERT.
 */
int ap_plan_load_for(const char *path, enum ap_delegate d, enum ap_runtime_id rt,
		     struct ap_tplan *p, char *err);

/* The TFLite arena of CompiledModel on the default path: as ap_plan_load_for's with
 * AP_DELEGATE_XNNPACK, the inputs and outputs in CompiledModel's own TensorBuffers
 * (plan_build.h's io_bound); it may be empty (0 bytes). An import's is itself. */
int ap_plan_load_compiled(const char *path, enum ap_runtime_id rt, struct ap_tplan *p,
			  char *err);

#endif
