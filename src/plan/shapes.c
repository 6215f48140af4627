// SPDX-License-Identifier: Apache-2.0
/*
 * shapes: subgraph 0's shapes as LiteRT computes them where the file leaves them open
 * (include/arenaprof/plan/shapes.h). The walk follows the execution order; each operator's
 * shape function is in shapes_ops.c. Only tensors whose signature has an unknown dimension
 * are rewritten, so a model with static shapes plans exactly as its file says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "shapes_priv.h"

/* A constant int32/int64 tensor's values (an empty one has none, and is known). */
static void const_values(const struct ap_model *m, const struct ap_model_tensor *mt,
			 struct sv *s)
{
	int64_t v[SV_MAX_VALS];
	uint64_t n = 1;

	if (!sh_int_type(mt->type))
		return;
	for (uint32_t k = 0; k < mt->rank && n <= SV_MAX_VALS; k++)
		n *= (uint64_t)(mt->shape[k] < 0 ? 0 : mt->shape[k]);
	if (n > SV_MAX_VALS || (n && ap_model_tensor_ints(m, mt, v, SV_MAX_VALS) != n))
		return;
	for (uint64_t i = 0; i < n; i++)
		if (v[i] > SV_MAX_ABS || v[i] < -SV_MAX_ABS)
			return;
	s->v = malloc((n ? n : 1) * sizeof(*s->v));
	if (!s->v)
		return;		/* values unknown: the shapes that need them stay open */
	memcpy(s->v, v, n * sizeof(*v));
	s->n = (uint32_t)n;
	s->has_val = true;
}

/* The state before the walk: inputs, constants and static tensors are known. */
static int seed(struct sctx *c, const struct ap_shape_override *ov, uint32_t n_ov, char *err)
{
	const struct ap_model_subgraph *sg = c->sg;

	for (uint32_t i = 0; i < sg->n_tensors; i++) {
		const struct ap_model_tensor *mt = &sg->tensors[i];
		struct sv *s = &c->t[i];

		if (mt->rank > AP_SHAPE_MAX_RANK)
			continue;
		if (mt->rank)
			memcpy(s->d, mt->shape, mt->rank * sizeof(*s->d));
		s->rank = mt->rank;
		s->known = !ap_model_tensor_open(mt) || ap_model_buffer_is_constant(c->m, mt->buffer);
		if (ap_model_buffer_is_constant(c->m, mt->buffer))
			const_values(c->m, mt, s);
	}
	for (uint32_t k = 0; k < sg->n_inputs; k++)
		if (sh_valid(c, sg->inputs[k]) && sg->tensors[sg->inputs[k]].rank <= AP_SHAPE_MAX_RANK)
			c->t[sg->inputs[k]].known = true;
	for (uint32_t k = 0; k < n_ov; k++) {
		const struct ap_model_tensor *mt;
		struct sv *s;

		if (ov[k].input < 0 || (uint32_t)ov[k].input >= sg->n_inputs ||
		    !sh_valid(c, sg->inputs[ov[k].input])) {
			ap_seterr(err, "--input-shape %d: the model has %u input%s", ov[k].input,
				  sg->n_inputs, sg->n_inputs == 1 ? "" : "s");
			return -1;
		}
		mt = &sg->tensors[sg->inputs[ov[k].input]];
		if (ov[k].rank != mt->rank) {
			ap_seterr(err, "--input-shape %d: input \"%s\" has rank %u, not %u",
				  ov[k].input, mt->name, mt->rank, ov[k].rank);
			return -1;
		}
		for (uint32_t d = 0; d < mt->rank; d++) {
			int32_t want = mt->shape_signature && d < mt->sig_rank ?
				       mt->shape_signature[d] : mt->shape[d];

			if (want >= 0 && want != ov[k].dims[d]) {
				ap_seterr(err, "--input-shape %d: dimension %u of input \"%s\" is "
					  "fixed at %d, not %d", ov[k].input, d, mt->name, want,
					  ov[k].dims[d]);
				return -1;
			}
		}
		s = &c->t[sg->inputs[ov[k].input]];
		if (ov[k].rank)
			memcpy(s->d, ov[k].dims, ov[k].rank * sizeof(*s->d));
	}
	return 0;
}

/* The inferred shape fits the signature: same rank, fixed dimensions equal. */
static bool fits(const struct ap_model_tensor *mt, const struct sv *s)
{
	if (!mt->shape_signature || mt->sig_rank != s->rank)
		return false;
	for (uint32_t k = 0; k < s->rank; k++)
		if (mt->shape_signature[k] >= 0 && mt->shape_signature[k] != s->d[k])
			return false;
	return true;
}

/* Rewrites the open tensors' shapes in the model. -1 on OOM. */
static int apply(struct sctx *c, struct ap_model_subgraph *sg, const int32_t *writer,
		 struct ap_shapes_report *rep)
{
	for (uint32_t i = 0; i < sg->n_tensors; i++) {
		struct ap_model_tensor *mt = &sg->tensors[i];
		const struct sv *s = &c->t[i];
		int32_t *d;

		if (!ap_model_tensor_open(mt))
			continue;
		rep->open++;
		if (!s->known || !fits(mt, s)) {
			if (rep->first_unresolved < 0) {
				rep->first_unresolved = (int32_t)i;
				rep->first_unresolved_op = writer[i];
			}
			continue;
		}
		rep->resolved++;
		if (s->rank == mt->rank && !memcmp(s->d, mt->shape, s->rank * sizeof(*s->d)))
			continue;
		d = malloc((s->rank ? s->rank : 1) * sizeof(*d));
		if (!d)
			return -1;
		if (!sg->file_shapes &&
		    !(sg->file_shapes = calloc(sg->n_tensors, sizeof(*sg->file_shapes)))) {
			free(d);
			return -1;
		}
		memcpy(d, s->d, s->rank * sizeof(*d));
		if (!sg->file_shapes[i].d) {	/* inferred twice: the first is the file's */
			sg->file_shapes[i].d = mt->shape;
			sg->file_shapes[i].rank = mt->rank;
		} else {
			free(mt->shape);
		}
		mt->shape = d;
		mt->rank = s->rank;
		rep->changed++;
	}
	return 0;
}

/* Keeps the values computed for int tensors the file holds none of (SHAPE -> ... chains),
 * for the kernels whose Prepare reads a folded input. -1 on OOM. */
static int keep_values(const struct sctx *c, struct ap_model_subgraph *sg)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < sg->n_values; i++)
		free(sg->values[i].v);
	free(sg->values);
	sg->values = NULL;
	sg->n_values = 0;
	for (uint32_t i = 0; i < sg->n_tensors; i++)
		n += c->t[i].has_val && !ap_model_buffer_is_constant(c->m, sg->tensors[i].buffer);
	if (!n)
		return 0;
	sg->values = calloc(n, sizeof(*sg->values));
	if (!sg->values)
		return -1;
	for (uint32_t i = 0; i < sg->n_tensors; i++) {
		const struct sv *s = &c->t[i];
		struct ap_model_values *kv = &sg->values[sg->n_values];

		if (!s->has_val || ap_model_buffer_is_constant(c->m, sg->tensors[i].buffer))
			continue;
		kv->v = malloc((s->n ? s->n : 1) * sizeof(*kv->v));
		if (!kv->v)
			return -1;
		memcpy(kv->v, s->v, s->n * sizeof(*kv->v));
		kv->tensor = i;
		kv->n = s->n;
		sg->n_values++;
	}
	return 0;
}

uint32_t ap_shapes_values(const struct ap_model_subgraph *sg, int32_t t, int64_t *v,
			  uint32_t max)
{
	for (uint32_t i = 0; t >= 0 && i < sg->n_values; i++)
		if (sg->values[i].tensor == (uint32_t)t) {
			if (!sg->values[i].n || sg->values[i].n > max)
				return 0;
			memcpy(v, sg->values[i].v, sg->values[i].n * sizeof(*v));
			return sg->values[i].n;
		}
	return 0;
}

int ap_shapes_infer(struct ap_model *m, const struct ap_shape_override *ov, uint32_t n_ov,
		    struct ap_shapes_report *rep, char *err)
{
	struct ap_model_subgraph *sg;
	struct sctx c = { .m = m };
	int32_t *writer = NULL;
	int rc = -1;

	memset(rep, 0, sizeof(*rep));
	rep->first_unresolved = rep->first_unresolved_op = rep->refused_op = -1;
	if (!m->n_subgraphs)
		return 0;
	sg = &m->subgraphs[0];
	c.sg = sg;
	c.t = calloc(sg->n_tensors + 1, sizeof(*c.t));
	writer = malloc((sg->n_tensors + 1) * sizeof(*writer));
	if (!c.t || !writer) {
		ap_seterr(err, "out of memory inferring shapes");
		goto out;
	}
	for (uint32_t i = 0; i < sg->n_tensors; i++)
		writer[i] = -1;
	if (seed(&c, ov, n_ov, err))
		goto out;
	for (uint32_t i = 0; i < sg->n_ops; i++) {
		c.op = &sg->ops[i];
		c.opcode = c.op->opcode_index < m->n_opcodes ?
			   m->opcodes[c.op->opcode_index].builtin : -1;
		for (uint32_t k = 0; k < c.op->n_outputs; k++)
			if (sh_valid(&c, c.op->outputs[k])) {
				writer[c.op->outputs[k]] = (int32_t)i;
				/* open outputs are unknown until this node says otherwise */
				if (ap_model_tensor_open(&sg->tensors[c.op->outputs[k]]))
					c.t[c.op->outputs[k]].known = false;
			}
		switch (sh_infer_op(&c)) {
		case SH_OOM:
			ap_seterr(err, "out of memory inferring shapes");
			goto out;
		case SH_REFUSED:
			if (rep->refused_op < 0)
				rep->refused_op = (int32_t)i;
			break;
		}
	}
	if (apply(&c, sg, writer, rep) || keep_values(&c, sg)) {
		ap_seterr(err, "out of memory inferring shapes");
		goto out;
	}
	m->shapes_inferred = true;
	m->shapes_unresolved_op = rep->first_unresolved_op;
	m->shapes_refused_op = rep->refused_op;
	rc = 0;
out:
	for (uint32_t i = 0; c.t && i < sg->n_tensors; i++)
		free(c.t[i].v);
	free(c.t);
	free(writer);
	return rc;
}

int ap_shape_parse(const char *s, struct ap_shape_override *o)
{
	o->rank = 0;
	while (*s) {
		char *end;
		long v = strtol(s, &end, 10);

		if (end == s || v < 0 || v > INT32_MAX || o->rank == AP_SHAPE_MAX_RANK ||
		    (*end && *end != ','))
			return -1;
		o->dims[o->rank++] = (int32_t)v;
		s = *end ? end + 1 : end;
		if (*end == ',' && !*s)
			return -1;
	}
	return o->rank ? 0 : -1;
}
