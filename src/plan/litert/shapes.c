// SPDX-License-Identifier: Apache-2.0
/*
 * shapes: the shapes LiteRT computes where the file leaves them open or its control flow
 * resizes them, in subgraph 0 and the subgraphs its WHILE, IF and STABLEHLO_COMPOSITE run
 * (include/arenaprof/plan/shapes.h). The walk follows the execution order; each operator's
 * shape function is in shapes_ops.c. Only tensors whose signature has an unknown dimension
 * are rewritten, and those downstream of a control-flow output or subgraph input resized
 * to other dims (flow_shapes, infer_kid), so a model with static, consistent shapes plans
 * exactly as its file says.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/subgraphs.h"
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
		s->known = !ap_model_tensor_open(mt) ||
			   ap_model_buffer_is_constant(c->m, mt->buffer);
		if (ap_model_buffer_is_constant(c->m, mt->buffer))
			const_values(c->m, mt, s);
	}
	for (uint32_t k = 0; k < sg->n_inputs; k++)
		if (sh_valid(c, sg->inputs[k]) &&
		    sg->tensors[sg->inputs[k]].rank <= AP_SHAPE_MAX_RANK)
			c->t[sg->inputs[k]].known = true;
	for (uint32_t k = 0; k < n_ov; k++) {
		const struct ap_model_tensor *mt;
		struct sv *s;

		if (ov[k].input < 0 || (uint32_t)ov[k].input >= sg->n_inputs ||
		    !sh_valid(c, sg->inputs[ov[k].input])) {
			ap_seterr(err, "--input-shape %d: the model has %u input%s", ov[k].input,
				  sg->n_inputs, sg->n_inputs == 1 ? "" : "s");
			return -EINVAL;
		}
		mt = &sg->tensors[sg->inputs[ov[k].input]];
		if (ov[k].rank != mt->rank) {
			ap_seterr(err, "--input-shape %d: input \"%s\" has rank %u, not %u",
				  ov[k].input, mt->name, mt->rank, ov[k].rank);
			return -EINVAL;
		}
		for (uint32_t d = 0; d < mt->rank; d++) {
			int32_t want = mt->shape_signature && d < mt->sig_rank ?
				       mt->shape_signature[d] : mt->shape[d];

			if (want >= 0 && want != ov[k].dims[d]) {
				ap_seterr(err, "--input-shape %d: dimension %u of input \"%s\" is "
					  "fixed at %d, not %d", ov[k].input, d, mt->name, want,
					  ov[k].dims[d]);
				return -EINVAL;
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

/* Shapes a (rank ra) and b (rank rb) differ; a scalar's dims may be NULL. */
static bool dims_differ(const int32_t *a, uint32_t ra, const int32_t *b, uint32_t rb)
{
	return ra != rb || (ra && memcmp(a, b, ra * sizeof(*a)));
}

/* Rewrites the open and the resized tensors' shapes in the model. -ENOMEM on OOM. */
static int apply(struct sctx *c, struct ap_model_subgraph *sg, const int32_t *writer,
		 struct ap_shapes_report *rep)
{
	for (uint32_t i = 0; i < sg->n_tensors; i++) {
		struct ap_model_tensor *mt = &sg->tensors[i];
		const struct sv *s = &c->t[i];
		bool open = ap_model_tensor_open(mt);
		int32_t *d;

		if (!open && !s->resized)
			continue;
		rep->open += open;
		if (!s->known || (open && !fits(mt, s))) {
			if (rep->first_unresolved < 0 && !s->dyn) {
				rep->first_unresolved = (int32_t)i;
				rep->first_unresolved_op = writer[i];
			}
			continue;
		}
		rep->resolved += open;
		if (!dims_differ(s->d, s->rank, mt->shape, mt->rank))
			continue;
		d = malloc((s->rank ? s->rank : 1) * sizeof(*d));
		if (!d)
			return -ENOMEM;
		if (!sg->file_shapes &&
		    !(sg->file_shapes = calloc(sg->n_tensors, sizeof(*sg->file_shapes)))) {
			free(d);
			return -ENOMEM;
		}
		memcpy(d, s->d, s->rank * sizeof(*d));
		if (!sg->file_shapes[i].d) {	/* inferred twice: the first is the file's */
			/* a scalar's file shape is kept too (it may have no dims array) */
			sg->file_shapes[i].d = mt->shape ? mt->shape : calloc(1, sizeof(*d));
			sg->file_shapes[i].rank = mt->rank;
			if (!sg->file_shapes[i].d) {
				free(d);
				return -ENOMEM;
			}
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
 * for the kernels whose Prepare reads a folded input. -ENOMEM on OOM. */
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
		return -ENOMEM;
	for (uint32_t i = 0; i < sg->n_tensors; i++) {
		const struct sv *s = &c->t[i];
		struct ap_model_values *kv = &sg->values[sg->n_values];

		if (!s->has_val || ap_model_buffer_is_constant(c->m, sg->tensors[i].buffer))
			continue;
		kv->v = malloc((s->n ? s->n : 1) * sizeof(*kv->v));
		if (!kv->v)
			return -ENOMEM;
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

/* The subgraphs' roles and callees, for a walk that prepares subgraphs as LiteRT does. */
struct walk {
	struct ap_model *m;
	const struct ap_sg_info *roles;	/* NULL for a model of one subgraph */
	struct ap_sg_callees cl;
};

static int walk_sg(struct walk *w, struct sctx *c, struct ap_shapes_report *rep,
		   uint32_t depth, bool kid);

/* Every open and resized tensor is known: a subgraph's shapes are all inferred. */
static bool all_known(const struct sctx *c)
{
	for (uint32_t i = 0; i < c->sg->n_tensors; i++)
		if ((ap_model_tensor_open(&c->sg->tensors[i]) || c->t[i].resized) &&
		    !c->t[i].known)
			return false;
	return true;
}

/* Each output of the subgraph walked is an input, a constant, or a shape function's. */
static bool outputs_checked(const struct sctx *c)
{
	for (uint32_t j = 0; j < c->sg->n_outputs; j++) {
		int32_t t = c->sg->outputs[j];
		bool input = false;

		if (!sh_valid(c, t) || c->t[t].checked ||
		    ap_model_buffer_is_constant(c->m, c->sg->tensors[t].buffer))
			continue;
		for (uint32_t k = 0; k < c->sg->n_inputs && !input; k++)
			input = c->sg->inputs[k] == t;
		if (!input)
			return false;
	}
	return true;
}

/*
 * CopyTensorsShapeAndType then AllocateTensors (control_flow_common.h): subgraph kid
 * prepared on the caller's input shapes of node c->op (past IF's condition: skip), and its
 * shapes rewritten when every one is inferred; SH_UNKNOWN leaves it as the file says.
 */
static int infer_kid(struct walk *w, struct sctx *c, uint32_t kid, uint32_t skip,
		     uint32_t depth)
{
	struct ap_model_subgraph *k = &w->m->subgraphs[kid];
	struct sctx kc = { .m = w->m, .sg = k };
	struct ap_shapes_report r;
	int rc = SH_UNKNOWN;

	kc.t = calloc(k->n_tensors + 1, sizeof(*kc.t));
	if (!kc.t)
		return SH_OOM;
	seed(&kc, NULL, 0, NULL);
	for (uint32_t j = 0; j < k->n_inputs; j++) {
		struct sv *in = sh_in(c, j + skip), *s;

		if (!sh_valid(&kc, k->inputs[j]))
			continue;
		if (!in)
			goto out;
		s = &kc.t[k->inputs[j]];
		s->resized = dims_differ(s->d, s->rank, in->d, in->rank);
		memcpy(s->d, in->d, sizeof(s->d));
		s->rank = in->rank;
		s->known = true;
	}
	rc = walk_sg(w, &kc, &r, depth, true);
	k->shapes_settled = rc == SH_DONE && !kc.mismatch && outputs_checked(&kc);
out:
	for (uint32_t i = 0; i < k->n_tensors; i++)
		free(kc.t[i].v);
	free(kc.t);
	return rc;
}

/* LiteRT's outputs take shapes not inferred here: unknown, as what follows. */
static int unknown_outputs(struct sctx *c)
{
	for (uint32_t j = 0; j < c->op->n_outputs; j++)
		if (sh_valid(c, c->op->outputs[j])) {
			c->t[c->op->outputs[j]].resized = true;
			c->t[c->op->outputs[j]].known = false;
		}
	return SH_UNKNOWN;
}

/* The outputs are dyn: sized by the data in the invoke, as what follows. */
static int dyn_outputs(struct sctx *c)
{
	for (uint32_t j = 0; j < c->op->n_outputs; j++)
		if (sh_valid(c, c->op->outputs[j]))
			c->t[c->op->outputs[j]].dyn = true;
	return SH_UNKNOWN;
}

/* Node c->op's outputs take the shapes of subgraph out's outputs (resized where they
 * differ from the caller's), as WHILE, IF, STABLEHLO_COMPOSITE and STABLEHLO_CASE resize
 * them in their Prepare. */
static int take_outputs(struct sctx *c, uint32_t out)
{
	const struct ap_model_subgraph *k = &c->m->subgraphs[out];

	for (uint32_t j = 0; j < k->n_outputs; j++) {
		const struct ap_model_tensor *kt = ap_sg_tensor(c->m, out, k->outputs[j]);
		int32_t t = c->op->outputs[j];
		int64_t d[AP_SHAPE_MAX_RANK];

		if (!kt || kt->rank > AP_SHAPE_MAX_RANK || !sh_valid(c, t))
			continue;
		for (uint32_t r = 0; r < kt->rank; r++)
			d[r] = kt->shape[r];
		c->t[t].resized |= dims_differ(c->t[t].d, c->t[t].rank, kt->shape, kt->rank);
		if (sh_out(c, j, d, kt->rank) != SH_DONE)
			return SH_UNKNOWN;
	}
	return SH_DONE;
}

/* The caller's inputs of node c->op past `skip` (IF's condition, CASE's index) differ in
 * dims from subgraph kid's inputs in the file; *missing when one of them is absent or its
 * shape is unknown. */
static bool inputs_differ(struct sctx *c, uint32_t kid, uint32_t skip, bool *missing)
{
	const struct ap_model_subgraph *k = &c->m->subgraphs[kid];
	bool differ = false;

	*missing = false;
	for (uint32_t j = skip; j < c->op->n_inputs && j - skip < k->n_inputs; j++) {
		const struct ap_model_tensor *kt = ap_sg_tensor(c->m, kid, k->inputs[j - skip]);
		const struct sv *in = sh_in(c, j);

		if (!kt || !in)
			*missing = true;
		else
			differ |= dims_differ(in->d, in->rank, kt->shape, kt->rank);
	}
	return differ;
}

/*
 * WHILE, IF and STABLEHLO_COMPOSITE (while.cc, if.cc, stablehlo_composite.cc Prepare):
 * their subgraphs are prepared on the caller's input shapes (infer_kid, when those differ
 * from the file's), and each output is resized to the matching output of the body, the
 * then branch or the decomposition: out is that subgraph, other the cond or the else
 * branch (-1 if none). An output whose shape changes is resized, and so is what is
 * computed from it (the walk below). IF's branches of other dims and a WHILE body that
 * changes a shape make the outputs dyn (prepare.c, coverage_flow.c): SH_UNKNOWN.
 */
static int flow_shapes(struct walk *w, struct sctx *c, uint32_t out, int32_t other,
		       uint32_t depth)
{
	const struct ap_model_subgraph *k = &c->m->subgraphs[out];
	uint32_t skip = c->op->n_inputs > k->n_inputs ? c->op->n_inputs - k->n_inputs : 0;
	bool differ, missing;
	int rc;

	if (skip > 1 || c->op->n_outputs != k->n_outputs)
		return SH_UNKNOWN;	/* LiteRT refuses it */
	differ = inputs_differ(c, out, skip, &missing);
	if (missing)
		return SH_UNKNOWN;
	/* on the file's input shapes the subgraphs keep the file's, unless a control-flow
	 * output of theirs is resized: walked too, rewritten when all is inferred */
	rc = depth < AP_SG_MAX_DEPTH ? infer_kid(w, c, out, skip, depth + 1) : SH_UNKNOWN;
	if (rc == SH_DONE && other >= 0)
		rc = infer_kid(w, c, (uint32_t)other, skip, depth + 1);
	if (rc == SH_OOM)
		return rc;
	if (rc != SH_DONE && differ)
		return unknown_outputs(c);
	if ((w->roles[out].role == AP_SG_IF_BRANCH && other >= 0 &&
	     ap_sg_branches_differ(c->m, out, (uint32_t)other)) ||
	    (w->roles[out].role == AP_SG_WHILE_BODY && ap_sg_body_changes_shape(c->m, out)))
		return dyn_outputs(c);
	return take_outputs(c, out);
}

/*
 * STABLEHLO_CASE (stablehlo_case.cc Prepare): every subgraph after 0 is prepared on the
 * caller's inputs past the index (infer_kid), and the outputs take the shapes of
 * branch_subgraph_indices[0]'s, or are dyn when a branch its Prepare compares gives other
 * dims (and when a subgraph holds a dynamic tensor: prepare.c). coverage_flow.c names
 * the rest: a second CASE, indices it refuses, shapes not inferred.
 */
static int case_shapes(struct walk *w, struct sctx *c, uint32_t node, uint32_t depth)
{
	const struct ap_model_op_vecs *v = c->op->vecs;
	uint32_t sg = (uint32_t)(c->sg - w->m->subgraphs), n = w->m->n_subgraphs;
	bool differ = false, missing;
	int rc = SH_DONE;

	if (!w->roles || !v || !v->n_branches || v->branches[0] < 1 ||
	    (uint32_t)v->branches[0] >= n || depth >= AP_SG_MAX_DEPTH)
		return SH_UNKNOWN;
	for (uint32_t k = 1; k < n; k++) {
		const struct ap_model_subgraph *kg = &w->m->subgraphs[k];
		int r;

		if (w->roles[k].role != AP_SG_CASE_BRANCH || w->roles[k].caller != sg ||
		    w->roles[k].node != node || kg->n_inputs + 1 != c->op->n_inputs ||
		    kg->n_outputs != c->op->n_outputs)
			return SH_UNKNOWN;	/* coverage_flow.c names it */
		differ |= inputs_differ(c, k, 1, &missing);
		r = infer_kid(w, c, k, 1, depth + 1);
		if (r == SH_OOM)
			return r;
		rc = r == SH_DONE ? rc : SH_UNKNOWN;
	}
	if (rc != SH_DONE && differ)
		return unknown_outputs(c);
	if (ap_case_outputs_differ(c->m, &c->sg->ops[node]))
		return dyn_outputs(c);
	return take_outputs(c, (uint32_t)v->branches[0]);
}


/* The subgraphs node i of subgraph sg runs, of those subgraphs.c plans: into out the one
 * whose outputs give its outputs' shapes, into other the cond or the else branch. */
static void node_kids(const struct walk *w, uint32_t sg, int32_t *out, int32_t *other)
{
	for (uint32_t i = 0; i < w->m->subgraphs[sg].n_ops; i++)
		out[i] = other[i] = -1;
	for (uint32_t k = 0; w->roles && k < w->cl.start[sg + 1] - w->cl.start[sg]; k++) {
		uint32_t s = w->cl.list[w->cl.start[sg] + k], n = w->roles[s].node;
		enum ap_sg_role r = w->roles[s].role;

		if (n >= w->m->subgraphs[sg].n_ops)
			continue;
		if (r == AP_SG_WHILE_BODY || r == AP_SG_COMPOSITE ||
		    (r == AP_SG_IF_BRANCH && out[n] < 0))
			out[n] = (int32_t)s;
		else if (r == AP_SG_WHILE_COND || r == AP_SG_IF_BRANCH)
			other[n] = (int32_t)s;
	}
}

/*
 * Walks c->sg in execution order from the state in c->t, then rewrites its open and
 * resized shapes in the model: all of them, or for a subgraph a caller prepares (kid)
 * none unless every one is inferred (SH_UNKNOWN then). SH_DONE, SH_UNKNOWN or SH_OOM.
 */
static int walk_sg(struct walk *w, struct sctx *c, struct ap_shapes_report *rep,
		   uint32_t depth, bool kid)
{
	struct ap_model_subgraph *sg = &w->m->subgraphs[c->sg - w->m->subgraphs];
	uint32_t n = sg->n_ops + 1;
	int32_t *writer = malloc((sg->n_tensors + 1) * sizeof(*writer));
	int32_t *out = malloc(n * sizeof(*out)), *other = malloc(n * sizeof(*other));
	int rc = SH_OOM;

	memset(rep, 0, sizeof(*rep));
	rep->first_unresolved = rep->first_unresolved_op = rep->refused_op = -1;
	if (!writer || !out || !other)
		goto done;
	for (uint32_t i = 0; i < sg->n_tensors; i++)
		writer[i] = -1;
	node_kids(w, (uint32_t)(c->sg - w->m->subgraphs), out, other);
	for (uint32_t i = 0; i < sg->n_ops; i++) {
		bool resized = false;

		c->op = &sg->ops[i];
		c->opcode = ap_model_op_code(w->m, c->op);
		for (uint32_t k = 0; k < c->op->n_inputs; k++)
			resized |= sh_valid(c, c->op->inputs[k]) && c->t[c->op->inputs[k]].resized;
		for (uint32_t k = 0; k < c->op->n_outputs; k++) {
			struct sv *o;

			if (!sh_valid(c, c->op->outputs[k]))
				continue;
			o = &c->t[c->op->outputs[k]];
			writer[c->op->outputs[k]] = (int32_t)i;
			o->resized |= resized;
			/* open and resized outputs are unknown until this node says otherwise */
			if (ap_model_tensor_open(&sg->tensors[c->op->outputs[k]]) || o->resized)
				o->known = false;
		}
		if (c->opcode == OP_STABLEHLO_CASE)
			rc = case_shapes(w, c, i, depth);
		else
			rc = out[i] >= 0 ? flow_shapes(w, c, (uint32_t)out[i], other[i], depth) :
			     sh_infer_op(c);
		if (rc == SH_OOM)
			goto done;
		if (rc == SH_REFUSED && rep->refused_op < 0)
			rep->refused_op = (int32_t)i;
	}
	rc = SH_UNKNOWN;
	if (kid && (rep->refused_op >= 0 || !all_known(c)))
		goto done;
	rc = apply(c, sg, writer, rep) || (!kid && keep_values(c, sg)) ? SH_OOM : SH_DONE;
done:
	free(writer);
	free(out);
	free(other);
	return rc;
}

int ap_shapes_infer(struct ap_model *m, const struct ap_shape_override *ov, uint32_t n_ov,
		    struct ap_shapes_report *rep, char *err)
{
	struct walk w = { .m = m };
	struct sctx c = { .m = m };
	int rc = -ENOMEM;

	memset(rep, 0, sizeof(*rep));
	rep->first_unresolved = rep->first_unresolved_op = rep->refused_op = -1;
	if (!m->n_subgraphs)
		return 0;
	for (uint32_t k = 0; k < m->n_subgraphs; k++)
		m->subgraphs[k].shapes_settled = false;	/* until this walk settles it */
	c.sg = &m->subgraphs[0];
	c.t = calloc(c.sg->n_tensors + 1, sizeof(*c.t));
	if (m->n_subgraphs > 1)
		w.roles = ap_subgraph_roles(m);
	if (!c.t || (m->n_subgraphs > 1 && (!w.roles || ap_sg_callees(m, &w.cl)))) {
		ap_seterr(err, "out of memory inferring shapes");
		goto out;
	}
	rc = seed(&c, ov, n_ov, err);
	if (rc)
		goto out;
	if (walk_sg(&w, &c, rep, 0, false) == SH_OOM) {
		rc = ap_fail(err, -ENOMEM, "out of memory inferring shapes");
		goto out;
	}
	m->shapes_inferred = true;
	free(m->sg_late);	/* computed from the file's shapes, if at all */
	m->sg_late = NULL;
	m->shapes_unresolved_op = rep->first_unresolved_op;
	m->shapes_refused_op = rep->refused_op;
	rc = 0;
out:
	for (uint32_t i = 0; c.t && i < c.sg->n_tensors; i++)
		free(c.t[i].v);
	free(c.t);
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
			return -EINVAL;
		o->dims[o->rank++] = (int32_t)v;
		s = *end ? end + 1 : end;
		if (*end == ',' && !*s)
			return -EINVAL;
	}
	return o->rank ? 0 : -EINVAL;
}
