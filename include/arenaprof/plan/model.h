/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The TFLite model reader: a bounds-checked walk of the TFL3 flatbuffer. It copies what
 * the planner needs into plain C structs, so nothing outside model.c, model_sparse.c and
 * flatbuf.c knows flatbuffers.
 */
#ifndef ARENAPROF_MODEL_H
#define ARENAPROF_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* TensorType values of schema.fbs. */
enum ap_tensor_type {
	AP_TT_FLOAT32 = 0, AP_TT_FLOAT16 = 1, AP_TT_INT32 = 2, AP_TT_UINT8 = 3,
	AP_TT_INT64 = 4, AP_TT_STRING = 5, AP_TT_BOOL = 6, AP_TT_INT16 = 7,
	AP_TT_COMPLEX64 = 8, AP_TT_INT8 = 9, AP_TT_FLOAT64 = 10, AP_TT_COMPLEX128 = 11,
	AP_TT_UINT64 = 12, AP_TT_RESOURCE = 13, AP_TT_VARIANT = 14, AP_TT_UINT32 = 15,
	AP_TT_UINT16 = 16, AP_TT_INT4 = 17, AP_TT_BFLOAT16 = 18, AP_TT_INT2 = 19,
	AP_TT_UINT4 = 20, AP_TT_FLOAT8_E4M3FN = 21, AP_TT_FLOAT8_E5M2 = 22,
};

struct ap_model_tensor {
	char *name;			/* never NULL ("" when absent) */
	int32_t *shape;
	uint32_t rank;
	int32_t *shape_signature;	/* NULL when absent; -1 = unknown dimension */
	uint32_t sig_rank;
	uint8_t type;			/* enum ap_tensor_type */
	uint32_t buffer;		/* index into ap_model.buffers; 0 = none */
	bool is_variable;
	bool sparse;			/* has SparsityParameters (DENSIFY's input) */
	uint32_t n_scales;		/* quantization scales (per channel when > 1) */
	bool scales_differ;		/* not all of them equal */
};

/* The [long] fields of StablehloReduceWindowOptions (builtin_options_2), in schema order:
 * window_dimensions, window_strides, base_dilations, window_dilations, padding. */
#define AP_MODEL_OPT2_LONGS 5

struct ap_model_longs {
	int64_t *v;			/* NULL when absent or empty */
	uint32_t n;
};

/*
 * Vector fields of an operator's options, which the table copy leaves out; allocated only
 * for the operators that have one.
 */
struct ap_model_op_vecs {
	/* ReshapeOptions.new_shape or SqueezeOptions.squeeze_dims (shapes.c) */
	int32_t *ints;
	uint32_t n_ints;
	/* StablehloReduceWindowOptions' vectors (kernels_reduce.c); n 0 when absent */
	struct ap_model_longs longs[AP_MODEL_OPT2_LONGS];
	/* StablehloCaseOptions.branch_subgraph_indices (subgraphs.c); NULL when absent */
	int32_t *branches;
	uint32_t n_branches;
	/* StableHLOCompositeOptions.decomposition_subgraph_index (subgraphs.c), else -1 */
	int32_t composite_subgraph;
	/* custom_options, a flexbuffer (tflm_scratch.c reads TFLite_Detection_PostProcess's
	 * map); NULL when absent or empty */
	uint8_t *custom;
	uint32_t n_custom;
};

/* Pointers first, then the narrower fields: the reader's memory budget is charged per
 * operator (hostile files share one operator table among many). */
struct ap_model_op {
	int32_t *inputs;		/* -1 = optional input not given */
	int32_t *outputs;
	int32_t *intermediates;
	uint8_t *options;		/* private copy of builtin_options: ap_model_op_option */
	struct ap_model_op_vecs *vecs;	/* NULL when the options have no vector read */
	uint32_t opcode_index;		/* index into ap_model.opcodes */
	uint32_t n_inputs;
	uint32_t n_outputs;
	uint32_t n_intermediates;
	uint32_t options_len;
	uint8_t options_type;		/* BuiltinOptions union type (schema.fbs); 0 = none */
	uint8_t options2_type;		/* BuiltinOptions2 union type (schema.fbs); 0 = none */
};

struct ap_model_opcode {
	int32_t builtin;		/* max(builtin_code, deprecated_builtin_code) */
	char *custom_name;		/* NULL unless CUSTOM */
	int32_t version;
};

#define AP_MODEL_SMALL_BUFFER 512

struct ap_model_buffer {
	uint64_t data_off;		/* offset of inline data from the file start */
	uint64_t data_len;		/* 0 when the buffer has no inline data */
	bool has_data;			/* a data vector is present, even an empty one */
	uint8_t *small;			/* a copy of inline data of at most
					 * AP_MODEL_SMALL_BUFFER bytes (shape and axis
					 * vectors, for shapes.c), else NULL */
	uint64_t offset;		/* >2 GB form: offset from file start, valid when > 1 */
	uint64_t size;
};

/* A tensor's shape as the file wrote it, where shapes.c rewrote it. */
struct ap_file_shape {
	int32_t *d;			/* NULL: not rewritten */
	uint32_t rank;
};

/*
 * A tensor with SparsityParameters and the length of the ledger the hybrid FULLY_CONNECTED
 * and LSTM keep for it (CreateLedgerTensor, make_ledger): len(array_indices) +
 * len(array_segments) - 1 of dim 1, or -1 when dim 1 is not CSR. Kept per subgraph, not
 * per tensor: few tensors are sparse.
 */
struct ap_model_sparse {
	uint32_t tensor;
	int32_t ledger;
};

/* An int tensor's values that LiteRT computes at Prepare (SHAPE's output and what is
 * folded from it), as shapes.c computed them: the file holds none. */
struct ap_model_values {
	uint32_t tensor;
	uint32_t n;
	int64_t *v;
};

struct ap_model_subgraph {
	char *name;
	struct ap_model_tensor *tensors;
	uint32_t n_tensors;
	struct ap_model_op *ops;	/* in execution order */
	uint32_t n_ops;
	int32_t *inputs;
	uint32_t n_inputs;
	int32_t *outputs;
	uint32_t n_outputs;
	/* n_tensors entries once shapes.c rewrote a shape, else NULL: LiteRT's planner
	 * sees the file's sizes of the tensors its first step does not prepare */
	struct ap_file_shape *file_shapes;
	struct ap_model_sparse *sparse;	/* the sparse tensors, by index; NULL when none */
	uint32_t n_sparse;
	struct ap_model_values *values;	/* by index, from shapes.c (subgraph 0); NULL
					 * when none */
	uint32_t n_values;
	/* Set by shapes.c when it walked this subgraph on its caller's shapes, as LiteRT's
	 * control-flow Prepare does, and every output's shape is one its Prepares give: each
	 * open or resized shape inferred, no static shape unlike its kernel's */
	bool shapes_settled;
};

struct ap_model_metadata {
	char *name;
	uint32_t buffer;
};

struct ap_sg_info;

struct ap_model {
	char *path;			/* as given to ap_model_load; NULL for ap_model_parse */
	uint64_t file_size;
	uint32_t version;
	char *description;		/* NULL when absent */
	struct ap_model_opcode *opcodes;
	uint32_t n_opcodes;
	struct ap_model_subgraph *subgraphs;
	uint32_t n_subgraphs;
	struct ap_model_buffer *buffers;
	uint32_t n_buffers;
	struct ap_model_metadata *metadata;
	uint32_t n_metadata;
	/* OfflineMemoryAllocation metadata: one offset per tensor of all subgraphs,
	 * -1 = plan online. NULL when the model has none. */
	int32_t *offline_offsets;
	uint32_t n_offline_offsets;
	/* Set by ap_shapes_infer (shapes.h): subgraph 0's open shapes were inferred, the
	 * first node whose open output kept the file's shape (-1: none did), and the first
	 * whose kernel refuses the shapes it is given. */
	bool shapes_inferred;
	int32_t shapes_unresolved_op;
	int32_t shapes_refused_op;	/* whose Prepare refuses its shapes, -1: none */
	/* subgraphs.c's roles of the subgraphs, a function of the file alone: computed on
	 * first use and kept, as every subgraph's build asks for them */
	struct ap_sg_info *sg_roles;
	uint32_t *sg_callees;	/* and the subgraphs each one runs (ap_sg_callees) */
	/* prepare.c's subgraphs planned in the first invoke (ap_subgraph_late): a function
	 * of the shapes too, so ap_shapes_infer drops it */
	bool *sg_late;
};

/*
 * Parses a whole model file held in memory. Returns 0, or a negative errno with a one-line
 * reason in err (AP_ERR_LEN bytes): -EINVAL for a corrupt, truncated or implausible file,
 * -ENOMEM when out of memory. Never reads outside [data, data + size). On failure *m is
 * left empty (safe to pass to ap_model_free).
 */
int ap_model_parse(const uint8_t *data, size_t size, struct ap_model *m, char *err);

/*
 * Reads the file and parses it; the message names the file. ap_model_parse's codes, and
 * the failed open's or read's own (-ENOENT, -EACCES, -EIO...); -EINVAL for a file that is
 * not regular, empty, or truncated while it was read.
 */
int ap_model_load(const char *path, struct ap_model *m, char *err);

void ap_model_free(struct ap_model *m);

/* True when the buffer holds constant data: a data vector, even an empty one (LiteRT's
 * InterpreterBuilder makes such a tensor kTfLiteMmapRo of 0 bytes), or the >2 GB offset
 * form. */
bool ap_model_buffer_is_constant(const struct ap_model *m, uint32_t buffer);
/*
 * The values of a constant int32 or int64 tensor of at most max elements, from the reader's
 * copy of small buffers, into v: how many, or 0 when it is not such a constant.
 */
uint32_t ap_model_tensor_ints(const struct ap_model *m, const struct ap_model_tensor *t,
			      int64_t *v, uint32_t max);
/* The operator's builtin code (BuiltinOperator), -1 when its opcode index is out of range. */
int32_t ap_model_op_code(const struct ap_model *m, const struct ap_model_op *op);
/* Its shape_signature has an unknown dimension (-1): LiteRT's HasUnspecifiedDimension, and
 * the file's shape is a placeholder there. false for NULL. */
bool ap_model_tensor_open(const struct ap_model_tensor *t);
/* The ledger length of sparse tensor t (struct ap_model_sparse), -1 when t is not sparse
 * or its dim 1 is not CSR. */
int32_t ap_model_sparse_ledger(const struct ap_model_subgraph *sg, int32_t t);
/*
 * Where a buffer's bytes lie in the model file: its inline data, else its external
 * offset and size (offset > 1: 0 and 1 mean none). false when it holds none.
 */
bool ap_model_buffer_range(const struct ap_model_buffer *b, uint64_t *off, uint64_t *len);

/*
 * Scalar field `field` (its id in schema.fbs) of the operator's builtin_options table, read
 * as a little-endian signed integer of `size` bytes (1, 2, 4 or 8; a float comes back as
 * its bit pattern). def when the operator has no options table, the field is absent, or it
 * does not fit in the table. Check op->options_type first: the field ids depend on it.
 */
int64_t ap_model_op_option(const struct ap_model *m, const struct ap_model_op *op,
			   unsigned int field, unsigned int size, int64_t def);

/* "CONV_2D" for 3 and so on: the BuiltinOperator enum names; NULL when unknown. */
const char *ap_builtin_name(int32_t code);

/* "FLOAT32" etc.; "UNKNOWN" when out of range. */
const char *ap_tensor_type_name(uint8_t type);

/* Name of an operator for humans: the builtin name, or the custom name, or "OP_<n>". */
const char *ap_model_op_name(const struct ap_model *m, const struct ap_model_op *op);

#endif
