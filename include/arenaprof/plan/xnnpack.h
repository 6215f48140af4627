/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xnnpack: what LiteRT 2.3's default CPU path holds for a model on a CPU. LiteRT hands a
 * model's operators to its XNNPACK delegate unless told otherwise (the Python
 * Interpreter's default resolver, CompiledModel on CPU, benchmark_model); then most of
 * what the process pins is XNNPACK's: one workspace shared by the partitions, each
 * operator's packed weights (anonymous memory, whatever the mmap'd model holds) and its
 * private buffers (indirection buffers sized at reshape). The TFLite arena keeps only the
 * partitions' edges and the operators the delegate left. docs/xnnpack.md says how each
 * size is modelled and how it was checked against XNNPACK's allocator.
 */
#ifndef ARENAPROF_XNNPACK_H
#define ARENAPROF_XNNPACK_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/plan/plan.h"

struct ap_graph;
struct ap_model;

/* The delegate a plan is for: LiteRT's default (xnnpack), or its builtin kernels alone
 * (none: BUILTIN_WITHOUT_DEFAULT_DELEGATES). */
enum ap_delegate { AP_DELEGATE_XNNPACK, AP_DELEGATE_NONE };

/* "xnnpack", "none": 0; else -EINVAL. */
int ap_delegate_parse(const char *s, enum ap_delegate *d);
const char *ap_delegate_name(enum ap_delegate d);

/* The CPU features XNNPACK's configs look at (its hardware_config's arch flags). */
enum ap_xnn_feature {
	AP_XF_SSE41 = 1 << 0, AP_XF_AVX = 1 << 1, AP_XF_F16C = 1 << 2, AP_XF_FMA3 = 1 << 3,
	AP_XF_AVX2 = 1 << 4, AP_XF_AVX512F = 1 << 5, AP_XF_AVX512SKX = 1 << 6,
	AP_XF_AVX512VBMI = 1 << 7, AP_XF_AVX512VNNI = 1 << 8, AP_XF_AVXVNNI = 1 << 9,
	AP_XF_AVX512AMX = 1 << 10, AP_XF_AVX512FP16 = 1 << 11, AP_XF_AVXVNNIINT8 = 1 << 12,
	AP_XF_NEON = 1 << 16, AP_XF_NEON_FP16 = 1 << 17, AP_XF_NEON_DOT = 1 << 18,
	AP_XF_NEON_I8MM = 1 << 19, AP_XF_NEON_BF16 = 1 << 20,
	AP_XF_GFNI = 1 << 13,		/* XNNPACK needs it for AVX-VNNI and AMX */
	AP_XF_AVX512BF16 = 1 << 14,
};

/* A target CPU. */
struct ap_xnn_cpu {
	char name[48];		/* "host", "x86-64-avx2", "cortex-a76", ... */
	enum ap_arch arch;
	uint64_t features;	/* enum ap_xnn_feature */
	char uarch[32];		/* what XNNPACK's uarch-specific choices key on, "" none */
};

/*
 * A CPU by name: "host" (this machine's features, as XNNPACK reads them), "x86-64-avx2",
 * "x86-64-avx512vnni", "cortex-a55", "cortex-a72", "cortex-a76", "cortex-a78",
 * "neoverse-n1". 0, or -EINVAL with err listing the names.
 */
int ap_xnn_cpu_parse(const char *name, struct ap_xnn_cpu *cpu, char *err);

/* One TFLite operator (execution index) as the delegate sees it. */
struct ap_xnn_op {
	bool delegated;
	const char *why;	/* not delegated: the delegate's rule that refused it */
	uint32_t partition;	/* delegated: its partition */
	uint64_t packed_bytes;	/* its packed weights */
	uint64_t private_bytes;	/* its operator's own buffers (indirection, ...) */
	uint64_t reshape_bytes;	/* of private_bytes, allocated at reshape (the first run) */
	bool unpacks;		/* a DEQUANTIZE or DENSIFY of static data: the delegate
				 * unpacks it itself, no XNNPACK node */
};

struct ap_xnn_part {
	uint32_t n_ops;		/* TFLite operators in it */
	int32_t first_op;	/* its first operator (execution index) */
	uint64_t workspace_bytes;	/* its own memory plan */
	uint64_t widest_value;	/* the largest value it plans in the workspace */
	int32_t widest_op;	/* the operator writing that value */
	int32_t *ops;		/* its operators, n_ops, in the order the delegate visits */
	int32_t *inputs, *outputs;	/* the delegate node's tensors, sorted, unique */
	uint32_t n_inputs, n_outputs;
};

/*
 * One subgraph of the model as the delegate holds it: LiteRT applies the delegate to every
 * subgraph but its validation ones (WHILE and IF bodies, CALL_ONCE init subgraphs,
 * decompositions, CASE branches), each partition its own runtime (objects and packed weights
 * at creation), reshaped (private buffers, its memory plan) when LiteRT prepares the
 * subgraph.
 */
struct ap_xnn_sg {
	bool delegated;			/* the delegate was applied to it */
	bool reshaped;			/* its runtimes are reshaped by the first run */
	uint32_t delegated_ops;
	uint32_t n_parts;
	uint64_t workspace_bytes;	/* its largest partition plan (0: not reshaped) */
	uint64_t packed_weights_bytes;
	uint64_t scratch_bytes;
	uint64_t other_bytes;		/* its runtimes' own objects */
};

struct ap_xnn_plan {
	struct ap_xnn_cpu cpu;
	struct ap_xnn_op *ops;	/* by execution index, n_ops of the graph */
	uint32_t n_ops;
	uint32_t delegated_ops;
	struct ap_xnn_part *parts;
	uint32_t n_parts;
	/* The model's totals, over every subgraph (ops, parts, delegated_ops and order
	 * are the shown subgraph's; sgs[] has each subgraph's own share) */
	uint64_t workspace_bytes;	/* the one workspace every runtime shares: the max */
	uint64_t packed_weights_bytes;
	uint64_t scratch_bytes;		/* the operators' private buffers, summed */
	uint64_t other_bytes;		/* the runtimes' own objects, the workspace's */
	uint64_t total_bytes;		/* everything XNNPACK's allocator holds after the
					 * first run */
	uint64_t largest_packed_bytes;	/* the largest one node's packed weights (what
					 * a weight cache's builder keeps a buffer of) */
	struct ap_xnn_sg *sgs;		/* by subgraph, n_sgs (the model's count) */
	uint32_t n_sgs;
	/* the execution plan after the delegate: an operator's index, or -(K + 1) for the
	 * delegate node of partition K */
	int32_t *order;
	uint32_t n_order;
	char not_modelled[256];		/* what of this graph the model does not follow, ""
					 * when it follows all of it */
};

/*
 * The XNNPACK side of m on cpu, shown for g (a subgraph of m, shapes inferred): g's
 * operators and partitions, the totals over every subgraph of m (each other built with
 * ap_graph_build's defaults). 0, or a negative errno with err. ap_xnn_plan_free frees it in
 * either case.
 */
int ap_xnn_plan_build(const struct ap_model *m, const struct ap_graph *g,
		      const struct ap_xnn_cpu *cpu, struct ap_xnn_plan *x, char *err);
void ap_xnn_plan_free(struct ap_xnn_plan *x);

/*
 * The graph TFLite plans its arena for once the delegate has replaced its partitions:
 * x->order's operators, each partition one DELEGATE node whose inputs and outputs are the
 * partition's edge tensors (no temporaries), the other operators as in g with their
 * kernels' temporaries; LiteRT's lifetimes computed. g must be ap_graph_build's (kernels
 * applied). out is for ap_xnn_delegated_graph_free in either case. 0, or -ENOMEM with err.
 */
int ap_xnn_delegated_graph(const struct ap_graph *g, const struct ap_xnn_plan *x,
			   struct ap_graph *out, char *err);
void ap_xnn_delegated_graph_free(struct ap_graph *out);

/*
 * XNNPACK's workspace as a plan: every value its memory planner places for g's partitions
 * (a tensor each, at its offset from the workspace block's start, alive from the TFLite
 * operator its writer came from to the one its last reader came from; an in-place value
 * is its root's bytes), arena_bytes the largest partition's plan, ops copied from names (the
 * plan of g, by execution index: the workspace is named by g's own operators). A page is
 * then the operator's that writes it first, as in the TFLite arena. 0, or a negative errno
 * with err; out is for ap_tplan_free in either case.
 */
int ap_xnn_workspace_plan(const struct ap_model *m, const struct ap_graph *g,
			  const struct ap_xnn_plan *x, const struct ap_tplan *names,
			  struct ap_tplan *out, char *err);

#endif
