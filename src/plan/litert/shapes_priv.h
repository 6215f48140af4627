/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by shapes.c (the walk, the values) and shapes_ops.c (one function an operator). */
#ifndef ARENAPROF_SHAPES_PRIV_H
#define ARENAPROF_SHAPES_PRIV_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/plan/shapes.h"

#define SV_MAX_VALS 64		/* values kept of a shape-giving int tensor */
#define SV_MAX_ABS (1LL << 40)	/* larger values are no shape: not kept */

/* A tensor as inference sees it: its shape, and its values when it gives a shape. */
struct sv {
	int32_t d[AP_SHAPE_MAX_RANK];
	uint32_t rank;
	bool known;
	/* a WHILE, IF or STABLEHLO_COMPOSITE output resized to its subgraph's, or a tensor
	 * computed from one: inferred even where the file's signature is static */
	bool resized;
	bool checked;	/* an operator's shape function gave this shape */
	/* a WHILE or IF output LiteRT makes kTfLiteDynamic: its shape is the data's, and
	 * no arena holds it, so leaving it unknown is no gap */
	bool dyn;
	bool has_val;
	uint32_t n;		/* values in v */
	int64_t *v;
};

struct sctx {
	const struct ap_model *m;
	const struct ap_model_subgraph *sg;
	const struct ap_model_op *op;
	int32_t opcode;
	struct sv *t;		/* one per tensor of sg */
	bool mismatch;		/* a static shape is not the one its kernel gives */
};

/* SH_REFUSED: the kernel's Prepare fails on these shapes (LiteRT's AllocateTensors or
 * Invoke would stop there). */
enum { SH_DONE = 0, SH_UNKNOWN = 1, SH_REFUSED = 2, SH_OOM = -1 };

/* t is a tensor of the subgraph walked. */
bool sh_valid(const struct sctx *c, int32_t t);
/* int32 or int64: the types whose values inference keeps. */
bool sh_int_type(uint8_t type);
/* Input j, NULL when absent or its shape is unknown. */
struct sv *sh_in(struct sctx *c, uint32_t j);
/* Input j with known values, NULL otherwise. */
struct sv *sh_val(struct sctx *c, uint32_t j);
/* Output j takes rank/dims; SH_DONE, or SH_UNKNOWN for a dimension outside int32. */
int sh_out(struct sctx *c, uint32_t j, const int64_t *d, uint32_t rank);
/* Output j's values (int outputs only; the shape must be set first). */
int sh_out_val(struct sctx *c, uint32_t j, const int64_t *v, uint32_t n);
int64_t sh_opt(struct sctx *c, unsigned field, unsigned size, int64_t def);
uint8_t sh_out_type(struct sctx *c, uint32_t j);

/* The operator's output shapes (and values): SH_DONE, SH_UNKNOWN, SH_REFUSED or SH_OOM. */
int sh_infer_op(struct sctx *c);

#endif
