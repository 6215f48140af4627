/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xnn_priv: the XNNPACK model's own view, shared by its files (docs/xnnpack.md):
 *
 *   delegate.c   which TFLite operators LiteRT 2.3's XNNPACK delegate takes, and the
 *                partitions it makes
 *   subgraph.c   the XNNPACK nodes and values a partition becomes (its rewrites: a 1x1
 *                convolution runs as a fully connected operator, ...)
 *   memplan.c    the workspace, planned value by value as XNNPACK's memory planner does
 *   pack.c       the packed weights of a node, as the microkernels chosen for the CPU
 *                pack them
 *   private.c    what an operator keeps beside them: indirection buffers sized at reshape,
 *                zero buffers, the operator objects themselves
 *   cpu.c        the target CPU and the microkernel parameters XNNPACK picks on it
 *   xnnpack.c    the entry (xnnpack.h): all of the above, summed
 *
 * Every size here is what XNNPACK's allocator holds after the first run, to the byte
 * where the source says how; docs/xnnpack.md says where a figure is a measured constant
 * of the binary (a struct's size) instead.
 */
#ifndef ARENAPROF_XNN_PRIV_H
#define ARENAPROF_XNN_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/plan/graph.h"
#include "arenaprof/plan/model.h"
#include "arenaprof/plan/xnnpack.h"

/* The element types XNNPACK computes in (its datatype of a node's input and filter). */
enum xnn_dt {
	XNN_DT_F32, XNN_DT_F16, XNN_DT_QS8, XNN_DT_QU8,
	XNN_DT_QC8W,	/* per-channel int8 filter (with a qs8 or f32 input) */
	XNN_DT_QC4W,	/* per-channel int4 filter */
	XNN_DT_QD8,	/* a dynamically quantized int8 input (qdint8 or qduint8: a float input
			 * the delegate converts ahead of a node with int8 or int4 weights) */
	XNN_DT_OTHER,
};

/* The XNNPACK operator a node runs as, which decides how its weights are packed. */
enum xnn_kind {
	XNN_K_CONV_IGEMM,	/* convolution through an indirection buffer */
	XNN_K_CONV_GEMM,	/* a 1x1 stride-1 unpadded convolution (GEMM, no indirection) */
	XNN_K_DWCONV,		/* depthwise convolution */
	XNN_K_DECONV,		/* transposed convolution */
	XNN_K_FC,		/* fully connected (also a 1x1 convolution the subgraph rewrote) */
	XNN_K_BATCH_MATMUL,
	XNN_K_POOL_AVG, XNN_K_POOL_MAX, XNN_K_GLOBAL_AVG,
	XNN_K_RESIZE_BILINEAR,
	XNN_K_ELEMENTWISE,	/* unary and binary: no weights, no private buffers */
	XNN_K_COPY,		/* reshape, expand dims, ...: often removed by the subgraph */
	XNN_K_CONCAT, XNN_K_SPLIT, XNN_K_PAD, XNN_K_SLICE, XNN_K_TRANSPOSE,
	XNN_K_SOFTMAX, XNN_K_REDUCE, XNN_K_DEPTH_TO_SPACE, XNN_K_SPACE_TO_DEPTH,
	XNN_K_OTHER,
};

/* One XNNPACK node: what the packing and the private buffers need of it. */
struct xnn_node {
	int32_t tfl_op;		/* the TFLite operator (execution index) it came from */
	uint32_t partition;
	enum xnn_kind kind;
	enum xnn_dt in_dt;	/* the input's (activations) */
	enum xnn_dt w_dt;	/* the filter's, for the nodes that pack weights */
	bool has_bias;
	uint32_t batch;
	uint32_t in_h, in_w, in_c;	/* NHWC input */
	uint32_t out_h, out_w, out_c;
	uint32_t k_h, k_w;		/* kernel (pooling window for a pool) */
	uint32_t stride_h, stride_w, dil_h, dil_w;
	uint32_t pad_top, pad_bottom, pad_left, pad_right;
	bool same_padding;		/* TFLite's SAME (XNNPACK's TensorFlow SAME flag): a
					 * kernel wider than 1 then gets a zero buffer even
					 * where the padding is 0 */
	uint32_t groups;		/* convolution groups (depthwise: in_c) */
	uint32_t depth_multiplier;	/* depthwise */
	int32_t in_value, out_value;	/* into the partition's values */
	int32_t extra[4];		/* more inputs (a binary's second), -1 none */
	bool in_place;		/* of a type whose output may take its input's bytes
				 * (unary, binary, copy, softmax, reshape) */
	bool binary;		/* a binary elementwise node (a static operand too) */
	bool copy;		/* an xnn_define_copy node (a variable's read or assignment),
				 * which xnn_subgraph_fusion may fuse away */
	uint32_t n_parts;		/* a concatenation's inputs, a split's outputs: one
					 * copy operator each (0 counts as 1) */
	int32_t more_out[3];		/* a split's outputs after out_value, -1 none */
	int32_t op_ws;			/* the value standing for the operator's own
					 * workspace (a reduction's accumulators), -1 none */
	uint64_t reduce_channels;	/* a reduction over other than the innermost axis:
					 * the innermost kept run its zero buffer spans */
	uint64_t rows;			/* a dynamically quantized node (in_dt QD8): the rows
					 * of its input (a fully connected's batch, a
					 * convolution's images) */
	uint32_t n_f16_static;		/* float16 weights the delegate defines as fp16
					 * static values (the DEQUANTIZE it skips) */
	uint64_t f16_static_elems;	/* their elements, all of them */
};

/* Where a value lives (xnn_allocation_type). */
enum xnn_alloc {
	XNN_A_EXTERNAL,		/* a TFLite tensor at a partition's edge: TFLite's arena */
	XNN_A_STATIC,		/* a constant (weights: packed by the nodes that read them) */
	XNN_A_WORKSPACE,	/* an internal value: planned into the shared workspace */
	XNN_A_PERSISTENT,	/* a variable's: the delegate's own memory, planned by nobody */
};

struct xnn_value {
	int32_t tfl_tensor;	/* -1: a value the subgraph made (a rewrite's); -2 an
				 * operator's workspace, a record of the plan only */
	enum xnn_alloc alloc;
	uint64_t bytes;		/* its tensor's bytes (before XNNPACK's rounding) */
	int32_t first, last;	/* the nodes of its partition that write and last read it */
	int32_t reuses;		/* in place: the value whose bytes it takes, -1 none */
	uint32_t consumers;	/* the nodes reading it (+1 for a partition output) */
	int32_t producer;	/* the node writing it, -1 none */
	uint64_t offset;	/* in the workspace (memplan.c) */
	uint64_t qd8_rows;	/* a dynamically quantized value: its rows (batch dims),
				 * whose quantization params and row sums the plan adds;
				 * 0 otherwise */
};

struct xnn_partition {
	struct xnn_node *nodes;
	uint32_t n_nodes;
	uint32_t n_defined;		/* the runtime's operator slots: the nodes the delegate
					 * defined, less those fused away when a clamp merged
					 * (subgraph.c) */
	struct xnn_value *values;
	uint32_t n_values;
	uint64_t workspace_bytes;	/* its memory plan, as xnn_plan_memory sizes it */
};

/* The microkernel parameters XNNPACK's configs pick on a CPU (cpu.c). */
struct xnn_gemm_cfg {
	uint32_t mr, nr, log2_kr, log2_sr;
	uint32_t planes;		/* packed planes (1 but for some f16/int4 kernels) */
	const char *family;		/* the microkernel it names, "7x16c8 avx512vnni" */
	uint32_t mr_mask;		/* the IGEMM mrs with a kernel, bit m-1 for mr m;
					 * 0: mr 1 and mr (XNNPACK's usual pair) */
};

struct xnn_dwconv_cfg {
	uint32_t channel_tile, channel_subtile, channel_round;
	uint32_t primary_tile, middle_tile, last_tile;	/* multipass: middle/last non-zero */
	const char *family;
};

/* The gemm config of a datatype pair on the CPU; false when XNNPACK has none there. */
bool xnn_cpu_gemm(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w,
		  struct xnn_gemm_cfg *g);
/* The igemm config of a convolution (f32 has its own; the others are the gemm's). */
bool xnn_cpu_igemm(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w,
		   struct xnn_gemm_cfg *g);
/* f32's narrow config, which a fully connected node with few output channels (or a
 * convolution with fewer than nr) takes instead; false when none. */
bool xnn_cpu_gemm_nr2(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w,
		      struct xnn_gemm_cfg *g);
/* The L2 data cache XNNPACK reads for its inline LHS packing choice (bytes). */
uint64_t xnn_cpu_l2_bytes(const struct ap_xnn_cpu *cpu);
/* The vmulcaddc channel tile (a 1x1 unpadded stride-1 depthwise f32/f16 convolution);
 * 0 when none. */
uint32_t xnn_cpu_vmulcaddc_tile(const struct ap_xnn_cpu *cpu, enum xnn_dt in);
/* The dwconv config for a kernel of k taps; false when none. */
bool xnn_cpu_dwconv(const struct ap_xnn_cpu *cpu, enum xnn_dt in, enum xnn_dt w, uint32_t k,
		    struct xnn_dwconv_cfg *d);

/* delegate.c: which operators the delegate takes (x->ops[i].delegated, .why) and the
 * partitions, as TFLite's partitioner groups them. 0 or a negative errno with err. */
int xnn_delegate(const struct ap_model *m, const struct ap_graph *g, struct ap_xnn_plan *x,
		 char *err);
/* subgraph.c: a partition's nodes and values. 0 or a negative errno with err. */
int xnn_subgraph(const struct ap_model *m, const struct ap_graph *g, uint32_t partition,
		 const struct ap_xnn_plan *x, struct xnn_partition *p, char *err);
void xnn_partition_free(struct xnn_partition *p);
/* memplan.c: p->workspace_bytes (and each value's offset in it). 0 or -ENOMEM. */
int xnn_memplan(struct xnn_partition *p, const struct ap_xnn_cpu *cpu);
/* pack.c: the bytes of a node's packed weights. */
uint64_t xnn_packed_bytes(const struct xnn_node *n, const struct ap_xnn_cpu *cpu);
/* private.c: what a node's operator holds beside its packed weights after the first run
 * (indirection buffers, zero buffers, the operator object) and the part of that which is
 * sized at reshape. */
uint64_t xnn_private_bytes(const struct xnn_node *n, const struct ap_xnn_cpu *cpu,
			   uint64_t *at_reshape);
/* cpu.c: does XNNPACK rewrite the node's fp16 static values to fp32 copies on the CPU
 * (FallbackToFp32: the node's fp16 configs are missing there)? */
bool xnn_cpu_f16_fallback(const struct ap_xnn_cpu *cpu, const struct xnn_node *n);
/* The same with the configs given (NULL: XNNPACK has none there; what needs it counts 0),
 * on an architecture: some struct sizes and XNN_ALLOCATION_ALIGNMENT are its own. */
uint64_t xnn_private_bytes_arch(const struct xnn_node *n, enum ap_arch arch,
				const struct xnn_gemm_cfg *g, const struct xnn_dwconv_cfg *d,
				uint64_t *at_reshape);
/* The mr XNNPACK's heuristic picks for an IGEMM over m output rows (pixels). */
uint32_t xnn_igemm_mr(const struct xnn_gemm_cfg *g, uint64_t m);
/*
 * The runtime's own blocks for one partition (xnn_create_runtime_v4): its descriptor, an
 * opdata entry a subgraph node and a value entry a subgraph value. n_nodes counts every
 * node the delegate defined (those a rewrite fused away too); n_values is XNNPACK's count,
 * xnn_runtime_values of the partition.
 */
uint64_t xnn_runtime_bytes(uint32_t n_nodes, uint32_t n_values);
/* XNNPACK's value count of a partition whose values are one a TFLite tensor its nodes
 * touch (and one a value a rewrite made): the delegate reserves an id for every such
 * tensor and defines the ones not at the partition's edge again as internal values. */
uint32_t xnn_runtime_values(const struct xnn_partition *p);
/* The delegate's one workspace descriptor (struct xnn_workspace). */
uint64_t xnn_workspace_object_bytes(void);

#endif
