/* SPDX-License-Identifier: Apache-2.0 */
/*
 * plan_build: the one way from a path to a plan, for every face: `plan` (the whole report)
 * and the --plan option of run, top, report, export, heatmap and diff (the plan alone,
 * through ap_plan_load). Model load, shape inference with the overrides, the graph of the
 * shown subgraph, its plan by the strategy; for the report also every subgraph's sizes,
 * every strategy's, the split points and the profile.
 */
#ifndef ARENAPROF_PLAN_BUILD_H
#define ARENAPROF_PLAN_BUILD_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/plan/budget.h"
#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/graph.h"
#include "arenaprof/plan/model.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_subgraphs.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/plan/shapes.h"
#include "arenaprof/plan/tflm_plan.h"
#include "arenaprof/plan/xnnpack.h"
#include "arenaprof/util/err.h"

/* What path holds. */
enum ap_plan_src {
	AP_PLAN_MODEL,		/* a .tflite model */
	AP_PLAN_IMPORT,		/* a plan a runtime printed (plan_import.h) */
	AP_PLAN_ANY,		/* a model when it says TFL3, else an imported plan */
};

struct ap_plan_req {
	const char *path;
	enum ap_plan_src src;
	enum ap_strategy strat;
	struct ap_graph_opts gopts;	/* zeros: LiteRT's defaults, this build's arch */
	uint32_t subgraph;		/* the one planned and shown */
	const struct ap_shape_override *ov;	/* --input-shape, n_ov of them */
	uint32_t n_ov;
	bool report;	/* all `plan` shows: every subgraph's sizes, every strategy's for the
			 * comparison table, the split points, the profile; else the plan alone */
	/* The delegate a model's plan is for: XNNPACK (the zero: LiteRT's default) or none
	 * (the builtin kernels, BUILTIN_WITHOUT_DEFAULT_DELEGATES); an import has none. */
	enum ap_delegate delegate;
	const char *cpu;	/* XNNPACK's target CPU (ap_xnn_cpu_parse), NULL: "host" */
	/* The model's inputs and outputs live in buffers of the caller's, outside the arena:
	 * LiteRT's CompiledModel binds every signature input and output to a TensorBuffer
	 * of its own (SetCustomAllocationForTensor), a constant output apart (the XNNPACK
	 * path) */
	bool io_bound;
	/* --weights copy: the runtime holds the model in memory of its own (LiteRT's
	 * BuildFromBuffer: Interpreter(model_content=), CompiledModel.from_buffer), not a
	 * mapping of the file: its bytes are anonymous, never reclaimable without swap */
	bool weights_copy;
};

/* The plan of a model or an import, and for `plan` what its report prints beside it. */
/*
 * XNNPACK's file-backed weight cache (docs/xnnpack.md "Weight cache"), off by default:
 * given a cache FILE (CompiledModel's CpuOptions(xnnpack_weight_cache_path=FILE), the
 * benchmark tools' --xnnpack_weight_cache_file_path=FILE) the delegate writes every
 * operator's packed weights into the file and maps it, whatever their datatype: they leave
 * XNNPACK's allocator for file-backed, reclaimable pages. The run that builds the file keeps
 * one anonymous buffer as large as the largest packed weights.
 */
struct ap_plan_wcache {
	bool applies;			/* the delegate packs weights the cache would hold */
	uint64_t movable_bytes;		/* of xnn.packed_weights_bytes, what moves to the file */
	uint64_t build_buffer_bytes;	/* the builder's buffer, on the run that builds it */
};

/*
 * Where the model file's weights lie and who reads them on the XNNPACK path: a constant
 * only delegated operators read is read once, when XNNPACK packs it (its file pages are
 * then left alone); the others, the kernels LiteRT kept read at every run.
 */
struct ap_plan_wrange {
	uint64_t off, len;		/* in the file */
	bool packed_only;		/* read once, to pack */
};

struct ap_plan_set {
	const struct ap_model *model;	/* &loaded; NULL for an imported plan */
	struct ap_model loaded;
	struct ap_tplan plan;		/* the selected strategy, or the import */
	struct ap_profile prof;		/* from the plan's lifetimes */
	bool have_strategies;
	uint64_t strat_bytes[AP_STRAT_COUNT];
	uint64_t strat_lb[AP_STRAT_COUNT];	/* lower bound under its own lifetimes */
	uint64_t naive_bytes;
	bool as_float32;
	bool weights_copy;		/* the request's: the file bytes counted anonymous */
	bool have_budget;		/* the report's options: the caller's, left as set */
	uint64_t budget;
	/* plan --baseline TRACE (with have_budget): the runtime's own cost measured there,
	 * which the process's verdict and cgroup settings add to the model's halves */
	bool have_baseline;
	struct ap_budget_baseline baseline;
	unsigned top;
	struct ap_gap *gaps;		/* operators kernels.c does not model (coverage.h) */
	uint32_t n_gaps;
	struct ap_caller_gap caller_gap;	/* why set: a caller up the subgraph's chain is
						 * not modelled */
	uint32_t subgraph;		/* the one plan shows */
	enum ap_arch arch;		/* the CPU the plan is for (resolved) */
	const struct ap_runtime *runtime;	/* the runtime it is for */
	bool have_tflm;			/* tflm is set: TFLite Micro's one arena is plan */
	struct ap_tflm_info tflm;
	int32_t *split_after;		/* nodes whose dynamic output ends a planning step */
	uint32_t n_split;
	struct ap_sg_plan *sgs;		/* every subgraph's sizes; NULL for an import */
	bool have_shapes;		/* shapes: what shape inference did (not for an import) */
	struct ap_shapes_report shapes;
	uint32_t n_input_shapes;	/* --input-shape given */
	char overlap[AP_ERR_LEN];	/* an import whose tensors live at the same time share
					 * bytes: why; "" when none do */
	bool have_delegate;		/* a model's plan: delegate is set; not an import's */
	enum ap_delegate delegate;
	bool have_xnn;			/* xnn is set: the xnnpack delegate, a model */
	struct ap_xnn_plan xnn;		/* what XNNPACK holds beside the TFLite arena */
	bool have_xnn_arena;		/* xnn_arena is set */
	struct ap_tplan xnn_arena;	/* the shown subgraph's TFLite arena once the
					 * delegate replaced its partitions (the strategy's) */
	bool have_xnn_ws;		/* xnn_ws is set */
	struct ap_tplan xnn_ws;		/* XNNPACK's workspace values (the shown subgraph's
					 * partitions), named by plan's operators */
	/* of plan.weights_bytes, the file-backed weights the runtime keeps reading: all but
	 * those only delegated operators read (XNNPACK packed them once); with have_xnn */
	uint64_t kept_weights_bytes;
	/* what of the TFLite arena on the default path the plan does not follow, "" when it
	 * follows all of it (XNNPACK's own: xnn.not_modelled); with have_xnn */
	char arena_not_modelled[AP_ERR_LEN];
	struct ap_plan_wcache wcache;	/* XNNPACK's weight cache; with have_xnn */
	struct ap_plan_wrange *wranges;	/* the shown subgraph's weights in the file, by
					 * offset (overlaps merged); with have_xnn */
	uint32_t n_wranges;
};

/*
 * Fills s (zeros but for the report's options) as rq asks. 0, or a negative errno with a
 * one-line message in err: -EINVAL for bad input (a corrupt model or plan, an override
 * that does not fit, a subgraph out of range), -ENOMEM when out of memory,
 * -ENOTRECOVERABLE when a computed plan fails its own check (a bug here). On failure too,
 * s is for ap_plan_set_free.
 */
int ap_plan_build(const struct ap_plan_req *rq, struct ap_plan_set *s, char *err);
/* The halves the verdict weighs. The TFLite arenas: the shown subgraph's (on the XNNPACK
 * path, its delegated graph's) and every other subgraph LiteRT plans. */
uint64_t ap_plan_set_tflite_bytes(const struct ap_plan_set *s);
/* Non-reclaimable: the TFLite arenas and, on the XNNPACK path, all XNNPACK holds. */
uint64_t ap_plan_set_anon_bytes(const struct ap_plan_set *s);
/* Reclaimable: the file-backed weights the runtime keeps reading. */
uint64_t ap_plan_set_file_bytes(const struct ap_plan_set *s);
/* Non-reclaimable with XNNPACK's weight cache on: the built file loaded, or (building) the
 * run that builds it, which keeps its build buffer. */
uint64_t ap_plan_set_cache_anon_bytes(const struct ap_plan_set *s, bool building);
void ap_plan_set_free(struct ap_plan_set *s);

#endif
