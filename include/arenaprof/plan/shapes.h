/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Shape inference: the shapes LiteRT's Prepares and Evals give the tensors of subgraph 0
 * (and of the subgraphs its control flow runs), where the model file only holds
 * placeholders or its control flow resizes them. A converter writes 1 for every unknown
 * dimension and marks it -1 in shape_signature; LiteRT computes the real one from the
 * input shapes and the values of shape-giving tensors (SHAPE -> STRIDED_SLICE -> PACK ->
 * RESHAPE chains, RANGE bounds, paddings). docs/design.md, "Shapes the file leaves open".
 */
#ifndef ARENAPROF_PLAN_SHAPES_H
#define ARENAPROF_PLAN_SHAPES_H

#include <stdint.h>

#include "arenaprof/plan/model.h"

#define AP_SHAPE_MAX_RANK 8

/* A graph input's shape given on the command line (plan --input-shape). */
struct ap_shape_override {
	int32_t input;			/* position in the subgraph's inputs */
	int32_t dims[AP_SHAPE_MAX_RANK];
	uint32_t rank;
};

struct ap_shapes_report {
	uint32_t open;			/* tensors with an unknown dimension (-1) */
	uint32_t resolved;		/* of them, given a shape (it may equal the file's) */
	uint32_t changed;		/* of those, a shape other than the file's */
	int32_t first_unresolved;	/* an open tensor left with the file's shape, or -1 */
	int32_t first_unresolved_op;	/* the node that writes it, or -1 */
	int32_t refused_op;		/* the first node whose Prepare refuses its input
					 * shapes (LiteRT would stop there), or -1 */
};

/*
 * Infers subgraph 0's shapes from its input shapes (the file's, or ov) and rewrites the
 * shapes of the tensors whose signature has an unknown dimension, and of those a WHILE, IF
 * or STABLEHLO_COMPOSITE resizes to its subgraph's outputs, with every tensor computed
 * from them. Other tensors keep the file's shape. 0, or with err -EINVAL (an override
 * that does not fit the input's signature) or -ENOMEM.
 */
int ap_shapes_infer(struct ap_model *m, const struct ap_shape_override *ov, uint32_t n_ov,
		    struct ap_shapes_report *rep, char *err);

/*
 * The values ap_shapes_infer computed for int tensor t of sg, which the file holds none of
 * (LiteRT computes them at Prepare when it folds the tensor): how many, into v, or 0 (none
 * known, or more than max).
 */
uint32_t ap_shapes_values(const struct ap_model_subgraph *sg, int32_t t, int64_t *v,
			  uint32_t max);

/* "1,16000" into o->dims; 0, or -EINVAL (not a list of 1 to AP_SHAPE_MAX_RANK dims >= 0). */
int ap_shape_parse(const char *s, struct ap_shape_override *o);

#endif
