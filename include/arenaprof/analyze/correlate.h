/* SPDX-License-Identifier: Apache-2.0 */
/*
 * correlate: fault address -> mapping -> arena offset -> tensor(s) -> operator.
 *
 * Over one analysis pass (analysis.h), its arena (arena.h: the mapping and the address of
 * planned offset 0) and a plan, it attributes every arena page to the earliest operator
 * that writes one of the planned tensors covering it ("plan" attribution: -1 for graph
 * inputs, written before operator 0; the producer for outputs and activations; the node
 * for temporaries)
 * and compares that, over the first-touch pages, with the operator the op marker recorded
 * ("marker" attribution). It groups the faults outside the arena by mapping kind and says
 * whether the plan matches the trace at all.
 *
 * The page tables are per page of the arena mapping, so streaming consumers (heatmap
 * --faults all, export) attribute any later fault with one lookup.
 */
#ifndef ARENAPROF_CORRELATE_H
#define ARENAPROF_CORRELATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/plan/xnnpack.h"
#include "arenaprof/analyze/arena.h"
#include "arenaprof/analyze/models.h"
#include "arenaprof/analyze/trace_runtime.h"
#include "arenaprof/analyze/weights_split.h"
#include "arenaprof/analyze/xnn_blocks.h"
#include "arenaprof/plan/plan.h"

#define AP_OP_NONE AP_OWNER_NONE	/* no planned tensor covers the page */

/* Groups of the process's memory the report separates. */
enum ap_group {
	AP_GROUP_ARENA,		/* the planned arena */
	AP_GROUP_WEIGHTS,	/* the model file, mapped */
	AP_GROUP_HEAP,		/* [heap] */
	AP_GROUP_STACK,		/* [stack] */
	AP_GROUP_ANON,		/* other anonymous: delegate buffers, thread stacks, moved
				 * arenas */
	AP_GROUP_FILES,		/* code and other files */
	AP_GROUP_COUNT,
};

struct ap_corr_group {
	uint32_t mappings;
	uint64_t faults, first_touch_pages, resident_bytes;
};

/* Per operator row; index -1 (graph inputs) is slot 0. First-touch arena pages. */
struct ap_corr_op {
	uint64_t plan_pages, marker_pages;
};

struct ap_corr_disagree {
	uint64_t page;		/* page of the arena mapping */
	int32_t run, plan_op, marker_op;
	int32_t tensor;		/* the plan tensor that names plan_op, -1 none */
};

#define AP_CORR_MAX_REASONS 4

struct ap_corr {
	bool have_plan, have_markers;
	int32_t arena;			/* the arena's mapping (a->id.map), -1 none */
	uint64_t map_start, map_end, page_size;
	uint64_t base;			/* address of planned offset 0 */
	int64_t delta;			/* base - map_start */

	uint64_t n_pages;		/* pages of the arena mapping the tables cover: up
					 * to the plan's extent and a page past it */
	uint64_t plan_pages;		/* of them, pages the plan's extent reaches */
	/* the pages of the arena's block when the arena is one ([heap], or a mapping
	 * glibc shares with other blocks): only first touches there are the arena's;
	 * 0 and UINT64_MAX otherwise */
	uint64_t page_lo, page_hi;
	int32_t *page_op;		/* per page: plan attribution, AP_OP_NONE */
	int32_t *page_tensor;		/* per page: the tensor that names it, -1 */

	uint32_t n_ops;
	struct ap_corr_op *ops;		/* n_ops + 1 slots: index + 1 */
	uint64_t marker_other_pages;	/* first touches whose marker is no operator */
	uint64_t ft_pages;		/* first-touch pages of the arena */
	uint64_t compared, agree;	/* first-touch pages with a marker; of them equal */
	uint64_t order_ok;		/* without markers: first touches in plan order */
	uint64_t outside_runs;		/* first touches between runs or before run 0 */
	/* without markers, most first touches came outside every run (the runtime wrote
	 * the arena whole before running it: a copy, a clear): their order tells nothing,
	 * and the plan is checked by the arena's size and coverage alone */
	bool pretouched;
	bool runs_seen;			/* the trace has run markers */
	uint64_t unplanned_pages;	/* first-touched, no planned tensor covers them */
	uint64_t beyond_pages;		/* first-touched past the plan's extent */
	struct ap_corr_disagree *dis;
	uint64_t n_dis;

	int32_t widest_op;		/* -1 none */
	uint64_t widest_bytes;		/* its breadth: live arena bytes */

	struct ap_corr_group groups[AP_GROUP_COUNT];

	bool mismatch;			/* the plan does not describe this trace */
	char reasons[AP_CORR_MAX_REASONS][200];
	uint32_t n_reasons;
};

/*
 * Correlates analysis a with plan p (NULL: groups only, no attribution). 0, or -ENOMEM
 * with err. A plan that does not match is not an error: c->mismatch.
 */
int ap_corr_build(const struct ap_analysis *a, const struct ap_tplan *p, struct ap_corr *c,
		  char *err);
/* ap_corr_build_at's flags: the plan's inputs and outputs need not be touched (the runtime
 * bound them to buffers of its own after planning: their arena bytes stay unused). */
#define AP_CORR_IO_OPTIONAL 1u
/* The same for a region other than a's arena: id says where p's offset 0 is (the XNNPACK
 * workspace's block: xnn_blocks.h's ap_xnn_ws_locate); flags AP_CORR_*. */
int ap_corr_build_at(const struct ap_analysis *a, const struct ap_arena_id *id,
		     const struct ap_tplan *p, unsigned flags, struct ap_corr *c, char *err);
/* Whether the correlated region is a block inside its mapping (its pages only count). */
static inline bool ap_corr_is_block(const struct ap_corr *c)
{
	return c->page_hi != UINT64_MAX;
}
void ap_corr_free(struct ap_corr *c);

/* The plan's writer of a tensor: -1 graph input, its first node, or AP_OP_NONE. */
int32_t ap_corr_writer(const struct ap_tplan *p, const struct ap_ptensor *t);

/* The group of mapping mi of the analysis. */
enum ap_group ap_corr_group_of(const struct ap_analysis *a, int32_t mi);
const char *ap_group_name(enum ap_group g);

/* First-touch pages a planned tensor names (plan attribution, every operator's and the
 * inputs'); *n_ops, when not NULL: the operators (inputs counting as one) with any. */
uint64_t ap_corr_attributed(const struct ap_corr *c, uint32_t *n_ops);

/* Share of first-touch pages where both attributions agree, 0..1 (0 when none compared). */
double ap_corr_agreement(const struct ap_corr *c);

/* Plan attribution of an address in the arena mapping (AP_OP_NONE outside). */
static inline int32_t ap_corr_plan_op_at(const struct ap_corr *c, uint64_t addr)
{
	uint64_t pg;

	if (!c->page_op || addr < c->map_start || addr >= c->map_end)
		return AP_OP_NONE;
	pg = (addr - c->map_start) / c->page_size;
	return pg < c->n_pages ? c->page_op[pg] : AP_OP_NONE;
}

/* Names an operator for labels: "-1 input", "12 CONV_2D"; buf of len bytes. */
const char *ap_corr_op_label(const struct ap_tplan *p, int32_t op, char *buf, int len);

/*
 * Which of a model's plans --plan means: the TFLite arena on LiteRT's default path
 * (XNNPACK's delegate) or the builtin kernels' (none), or auto: the one whose arena the
 * allocation probe saw allocated (the builtin one when neither or both were).
 */
enum ap_corr_delegate { AP_CORR_AUTO, AP_CORR_XNNPACK, AP_CORR_NONE };

/* Everything report, heatmap and export read: plan, one pass, correlation. */
struct ap_corr_in {
	const char *trace;
	const char *plan_path;		/* NULL: no plan */
	/* more models in the same process (--plan again; report only): each planned for
	 * the first's delegate, its arena found among the blocks the others' are not */
	const char *more_plans[AP_MAX_MODELS - 1];
	uint32_t n_more;
	bool many_plans;		/* the command takes --plan more than once */
	enum ap_corr_delegate delegate;	/* of the plan of a model */
	/* the rules a model is planned by: runtime when runtime_given (--runtime), else
	 * the trace's (trace_runtime.h) */
	enum ap_runtime_id runtime;
	bool runtime_given;
	uint64_t arena_addr;		/* --arena ADDR: planned offset 0; 0: found (arena.h) */
	/* once the plan is loaded, before the pass (to size what on_fault fills), or NULL */
	void (*on_plan)(void *ctx, const struct ap_tplan *p);
	/* every fault of the analysis pass (analysis.h's on_fault), or NULL */
	void (*on_fault)(void *ctx, const struct ap_analysis *a, const struct ap_rec_fault *f,
			 int32_t mi);
	void *ctx;
	bool salvage;			/* analysis.h: skip records that fail their check */
};

struct ap_corr_all {
	struct ap_tplan plan;
	bool have_plan;
	enum ap_delegate delegate;	/* the plan's (an import's: none) */
	bool delegate_auto;		/* chosen by the trace (--delegate auto) */
	struct ap_trace_runtime rt;	/* the runtime the trace names, the plan's rules */
	bool compiled;			/* the plan of CompiledModel's arena: the inputs and
					 * outputs in its own TensorBuffers (chosen by the
					 * trace) */
	bool io_late;			/* and it bound them after planning: the arena is
					 * the Interpreter's, their bytes unused in it */
	bool no_arena;			/* and it is empty: CompiledModel leaves no TFLite
					 * arena beside XNNPACK (a.id names none) */
	/* CompiledModel's TensorBuffers in the trace (CreateManagedOnHostMemory's blocks of
	 * a page or more), and those whose bytes (less XNN_EXTRA_BYTES) are no bound
	 * tensor's (the plan's AP_KIND_PARENT, compiled only) */
	uint32_t tb_blocks, tb_unbound;
	uint64_t tb_bytes;
	struct ap_analysis a;
	struct ap_corr c;
	struct ap_xnn_measured xm;	/* XNNPACK's blocks (xnn_blocks.h), named by the
					 * model's default-path plan when --plan is a model */
	/* XNNPACK's workspace, correlated as the arena is: its block (ws_id), the plan of
	 * its values (xnnpack.h's ap_xnn_workspace_plan, named by the model's operators)
	 * and the page tables; have_ws when the trace has the block and the plan is a
	 * model's on the default path */
	/* the model file's pages by who reads them, and what XNNPACK's weight cache would
	 * move (with a model's default-path plan: have_xnn_weights) */
	bool have_xnn_weights;
	struct ap_wsplit wsplit;
	struct ap_plan_wcache wcache;
	bool have_ws;
	struct ap_tplan ws_plan;
	struct ap_arena_id ws_id;
	struct ap_corr ws;
	/*
	 * The models of the plans given (0 without a plan): the first is plan, a.id and c
	 * above, the others in more[]; runs[i] and weights[i] are model i's (models.h),
	 * found once here for every renderer.
	 */
	uint32_t n_models;
	const char *model_path[AP_MAX_MODELS];
	struct ap_more_model {
		struct ap_tplan plan;
		struct ap_arena_id id;
		struct ap_corr c;
	} more[AP_MAX_MODELS - 1];
	struct ap_model_runs runs[AP_MAX_MODELS];
	struct ap_model_weights weights[AP_MAX_MODELS];
};

/* Model i of x (i < x->n_models): its plan, arena and correlation. */
struct ap_corr_model {
	const char *path;
	const struct ap_tplan *plan;
	const struct ap_arena_id *id;
	const struct ap_corr *c;
	const struct ap_model_runs *runs;
	const struct ap_model_weights *weights;
};
void ap_corr_model(const struct ap_corr_all *x, uint32_t i, struct ap_corr_model *m);

/*
 * Loads the plan, runs the analysis pass and correlates. 0, or -ENOMEM (out of memory) or
 * -EINVAL (a bad plan or trace, an --arena in no mapping) with err. Free with
 * ap_corr_all_free in either case.
 */
int ap_corr_load(const struct ap_corr_in *in, struct ap_corr_all *x, char *err);
void ap_corr_all_free(struct ap_corr_all *x);

/*
 * A trace's peak: the largest VmHWM sample, or, when the samples came too early to see
 * them, the pages the trace saw resident (every group's). *from_hwm: which one, or NULL.
 */
uint64_t ap_corr_peak(const struct ap_corr_all *x, bool *from_hwm);

/*
 * A tensor name for a label: the first ';'-separated part (converters fuse names; the
 * first names the layer), control characters as '?', at most len - 1 bytes ("..." when
 * cut). Full names stay in JSON and CSV.
 */
const char *ap_corr_short_name(const char *name, char *buf, size_t len);

#endif
