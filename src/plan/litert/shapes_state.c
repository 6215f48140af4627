// SPDX-License-Identifier: Apache-2.0
/*
 * shapes_state: the state shape inference walks (struct sctx): reading an operator's
 * inputs and options, and setting its outputs' shapes and values. shapes.c drives the walk,
 * shapes_ops.c holds one shape function an operator; both use these.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "shapes_priv.h"

bool sh_valid(const struct sctx *c, int32_t t)
{
	return t >= 0 && (uint32_t)t < c->sg->n_tensors;
}

struct sv *sh_in(struct sctx *c, uint32_t j)
{
	int32_t t = j < c->op->n_inputs ? c->op->inputs[j] : -1;

	return sh_valid(c, t) && c->t[t].known ? &c->t[t] : NULL;
}

struct sv *sh_val(struct sctx *c, uint32_t j)
{
	struct sv *s = sh_in(c, j);

	return s && s->has_val ? s : NULL;
}

uint8_t sh_out_type(struct sctx *c, uint32_t j)
{
	int32_t t = j < c->op->n_outputs ? c->op->outputs[j] : -1;

	return sh_valid(c, t) ? c->sg->tensors[t].type : 0xff;
}

int sh_out(struct sctx *c, uint32_t j, const int64_t *d, uint32_t rank)
{
	int32_t t = j < c->op->n_outputs ? c->op->outputs[j] : -1;

	if (!sh_valid(c, t) || rank > AP_SHAPE_MAX_RANK)
		return SH_UNKNOWN;
	for (uint32_t k = 0; k < rank; k++)
		if (d[k] < 0 || d[k] > INT32_MAX)
			return SH_UNKNOWN;
	c->t[t].checked = true;
	/* a static tensor keeps the file's shape; one unlike the kernel's is noted */
	if (!ap_model_tensor_open(&c->sg->tensors[t]) && !c->t[t].resized) {
		for (uint32_t k = 0; k < rank; k++)
			c->mismatch |= c->t[t].d[k] != d[k];
		c->mismatch |= c->t[t].rank != rank;
		c->t[t].known = true;
		return SH_DONE;
	}
	for (uint32_t k = 0; k < rank; k++)
		c->t[t].d[k] = (int32_t)d[k];
	c->t[t].rank = rank;
	c->t[t].known = true;
	return SH_DONE;
}

bool sh_int_type(uint8_t type)
{
	return type == AP_TT_INT32 || type == AP_TT_INT64;
}

int sh_out_val(struct sctx *c, uint32_t j, const int64_t *v, uint32_t n)
{
	int32_t t = j < c->op->n_outputs ? c->op->outputs[j] : -1;
	struct sv *s;

	if (!sh_valid(c, t) || n > SV_MAX_VALS || !sh_int_type(c->sg->tensors[t].type))
		return SH_DONE;	/* the shape stands; the values are not needed */
	for (uint32_t i = 0; i < n; i++)
		if (v[i] > SV_MAX_ABS || v[i] < -SV_MAX_ABS)
			return SH_DONE;	/* no shape is that large: arithmetic stays in range */
	s = &c->t[t];
	free(s->v);
	s->v = malloc((n ? n : 1) * sizeof(*s->v));
	if (!s->v)
		return SH_OOM;
	memcpy(s->v, v, n * sizeof(*v));
	s->n = n;
	s->has_val = true;
	return SH_DONE;
}

int64_t sh_opt(struct sctx *c, unsigned field, unsigned size, int64_t def)
{
	return ap_model_op_option(c->m, c->op, field, size, def);
}
