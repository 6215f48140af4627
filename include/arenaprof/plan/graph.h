/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The planner's view of one subgraph: tensors with byte sizes and allocation classes, and
 * operators in execution order. Lifetimes (lifetimes.c) fill first/last/share_root.
 */
#ifndef ARENAPROF_GRAPH_H
#define ARENAPROF_GRAPH_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/plan/model.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/runtime.h"

#define AP_NODE_NONE INT32_MAX	/* LiteRT's kNodeNotAssigned: never allocated/freed */

/* Where LiteRT puts a tensor (TfLiteAllocationType). */
enum ap_alloc {
	AP_ALLOC_ARENA,		/* kTfLiteArenaRw */
	AP_ALLOC_PERSISTENT,	/* kTfLiteArenaRwPersistent: variables; kernels.c adds
				 * dequantized constants, hwcn_weights, row_sums */
	AP_ALLOC_WEIGHTS,	/* kTfLiteMmapRo: constant data in the model file */
	AP_ALLOC_DYNAMIC,	/* kTfLiteDynamic: strings, resources, variants; heap
				 * temporaries of kernels.c (TRANSPOSE_CONV col2im) */
	AP_ALLOC_RO,		/* kTfLitePersistentRo: heap, computed at Prepare (kernels.c:
				 * SHAPE, and operators folded from constant inputs) */
	AP_ALLOC_CUSTOM,	/* kTfLiteCustom: a WHILE body's or IF branch's input, which
				 * uses its caller's buffer (subgraphs.c) */
};

enum ap_tensor_flag {
	AP_TF_INPUT = 1 << 0,	/* graph input */
	AP_TF_OUTPUT = 1 << 1,	/* graph output */
	AP_TF_VARIABLE = 1 << 2,
	/* a RESHAPE of a computed shape that shares no buffer: LiteRT placed it in the
	 * arena at its step, and its Eval made it dyn; the slot stays reserved, unused */
	AP_TF_DYN_IN_EVAL = 1 << 3,
	/* a WHILE output its Prepare took off the node (a loop variable passed through
	 * that nobody reads): LiteRT never allocates it (kernels_flow.c) */
	AP_TF_DROPPED = 1 << 4,
};

struct ap_tensor {
	const char *name;	/* points into the model */
	uint8_t type;
	uint64_t bytes;
	enum ap_alloc alloc;
	enum ap_alloc read_alloc;	/* before any Prepare: what LiteRT's planner sees of
					 * a node past the first dynamic output (lifetimes.c) */
	uint64_t read_bytes;		/* the same, of its size: the file's shape */
	unsigned flags;		/* enum ap_tensor_flag */
	int32_t producer;	/* execution index of the op writing it, -1 if none */
	/* LiteRT lifetime, execution-plan indices, closed interval; AP_NODE_NONE when
	 * never allocated (last == AP_NODE_NONE also means "to the end"). */
	int32_t first, last;
	int32_t share_root;	/* in-place: the tensor whose buffer it uses, or -1 */
};

struct ap_op {
	int32_t opcode;
	const char *name;	/* CONV_2D, or the custom name */
	const int32_t *in;	/* point into the model */
	uint32_t n_in;
	const int32_t *out;
	uint32_t n_out;
	int32_t *tmp;		/* kernel temporaries (graph tensors past the model's) */
	uint32_t n_tmp;
	/* Prepare returned kTfLiteOutputShapeNotKnown (RESHAPE of a computed shape): LiteRT
	 * stops preparing after this node, and its output, unless it shares its input's
	 * buffer, keeps its arena slot and turns dyn in Eval (kernels_alloc.c). */
	bool shape_not_known;
};

/* HOST resolved to the build's arch. */
enum ap_arch ap_arch_resolve(enum ap_arch a);
/* "x86-64", "arm64" (after ap_arch_resolve). */
const char *ap_arch_name(enum ap_arch a);
/* "x86-64" or "x86_64", "arm64" or "aarch64": 0; else -EINVAL. */
int ap_arch_parse(const char *s, enum ap_arch *a);

struct ap_graph_opts {
	bool as_float32;	/* plan as if every float-like activation were float32 */
	bool no_inplace;	/* disable LiteRT's in-place sharing */
	bool no_kernels;	/* leave out what kernels add (temporaries, persistent) */
	int threads;		/* LiteRT num_threads the kernels see; 0 = 1 */
	enum ap_arch arch;	/* the CPU LiteRT runs on */
	enum ap_runtime_id runtime;	/* the runtime whose rules apply (runtime.h) */
};

struct ap_graph {
	const struct ap_model *model;
	uint32_t subgraph;
	struct ap_tensor *t;
	uint32_t n_tensors;
	struct ap_op *ops;
	uint32_t n_ops;
	const int32_t *inputs, *outputs;
	uint32_t n_inputs, n_outputs;
	int32_t *owned_inputs;	/* inputs points here: a caller may remove some (-1) */
	/* Names of the tensors ap_kernels_apply appended: owned_names[k] belongs to
	 * tensor n_tensors - n_owned_names + k. Freed by ap_kernels_free. */
	char **owned_names;
	uint32_t n_owned_names;
	/* the first node that ends LiteRT's first planning step (ap_graph_ends_prepare), -1:
	 * none; set by ap_lifetimes_tflite, so that every control-flow node need not look */
	int32_t first_split;
};

/*
 * The model's own tensors and operators of one subgraph, with their sizes and allocation
 * classes; no kernel additions, no lifetimes yet (prepare.h does both). opts must not be
 * NULL. 0, or with err -EINVAL (no such subgraph, a tensor too large) or -ENOMEM;
 * ap_graph_release frees it.
 */
int ap_graph_read(const struct ap_model *m, uint32_t subgraph,
		  const struct ap_graph_opts *opts, struct ap_graph *g, char *err);
void ap_graph_release(struct ap_graph *g);

/* BytesRequired of LiteRT for a type and shape, computed checked: 1 with *bytes set, 0
 * for dynamic types, -EINVAL when the size is beyond AP_PLAN_MAX_BYTES (or 64 bits). */
int ap_tensor_bytes(uint8_t type, const int32_t *shape, uint32_t rank, uint64_t *bytes);

/*
 * Whether g's tensors fit the plan's limit: the sum of every tensor's bytes plus 64 each
 * (any strategy's alignment) at most AP_PLAN_MAX_BYTES, so that no placement can
 * overflow an offset or an arena size. 0, or -EINVAL with err naming the limit.
 */
int ap_graph_check_bytes(const struct ap_graph *g, char *err);

/* Whether opcode shares its output 0 with an input in LiteRT (inplace_operator). */
unsigned ap_inplace_flags(int32_t opcode);

/* Lifetimes exactly as LiteRT's ArenaPlanner::PlanAllocations (lifetimes.c). */
void ap_lifetimes_tflite(struct ap_graph *g, bool inplace);

#endif
