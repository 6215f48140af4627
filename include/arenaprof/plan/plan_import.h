/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan_import: read a plan that a runtime (or someone else) computed, instead of planning
 * the model ourselves. Three formats, told apart by their content:
 *
 *   import:litert  LiteRT's PrintInterpreterState output (benchmark_model
 *                  --print_preinvoke_state=true), raw or inside the benchmark's log;
 *                  subgraph 0 of the first dump in the file.
 *   import:tflm    TFLite Micro's GreedyMemoryPlanner::PrintMemoryPlan() lines.
 *   import:csv     a CSV with the header tensor,name,offset,size,first_node,last_node[,kind].
 *
 * The exact rules for each format are at the top of src/plan/import/import_litert.c,
 * import_tflm.c and import_csv.c; detection at the top of src/plan/import/plan_import.c.
 */
#ifndef ARENAPROF_PLAN_IMPORT_H
#define ARENAPROF_PLAN_IMPORT_H

#include "arenaprof/plan/plan.h"

/* Largest accepted values: a tensor index (or TFLM buffer id) and a node index. */
#define AP_IMPORT_MAX_TENSORS 10000000
#define AP_IMPORT_MAX_NODES 1000000

/*
 * Read the plan in PATH into *p (overwritten; every string in it is heap-allocated, release
 * it with ap_tplan_free). p->strategy is "import:litert", "import:tflm" or "import:csv" and
 * p->model is PATH. On failure returns a negative errno, leaves *p empty (zeroed) and puts
 * a one-line message in err, "PATH:LINE: what is wrong" or "PATH: what is wrong": -EINVAL
 * for bad input (the commands exit with status 2), -ENOMEM, or the failed open's or
 * read's own errno (-ENOENT, -EACCES, -EIO...).
 */
int ap_plan_import(const char *path, struct ap_tplan *p, char *err);

#endif
