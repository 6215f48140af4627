// SPDX-License-Identifier: Apache-2.0
/*
 * tflm_plan: TFLite Micro's one arena for a whole model (include/arenaprof/plan/tflm_plan.h).
 * The rules, from docs/runtimes.md ("TFLite Micro"):
 * - every tensor of every subgraph is one allocation, numbered subgraph by subgraph, then
 *   every scratch buffer in the order the Prepares (subgraph by subgraph, node by node)
 *   requested them; a tensor is planned when it has no constant data, is not a variable
 *   and is not empty; a scratch buffer always;
 * - one clock: a subgraph's inputs are created and used at its start; each operator steps
 *   the clock, creates its outputs at the new time and, when it is a WHILE, IF or
 *   CALL_ONCE, steps into its subgraphs (each a step more) before its inputs and outputs
 *   are last used at the time reached; its scratch buffers live from its own step to that
 *   time; a subgraph's outputs are used at its end. A creation is the first one seen, a
 *   last use the latest;
 * - the GreedyMemoryPlanner places them 16-byte rounded, largest first (ties: the later
 *   allocation first), each at the lowest offset free while it lives.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/subgraphs.h"
#include "arenaprof/util/err.h"
#include "tflm_priv.h"

/* Steps into subgraphs a model may take before it is refused: a hostile chain of control
 * flow that calls each subgraph twice would double the walk at every level. */
#define TFLM_MAX_STEPS (1u << 24)

struct tflm {
	const struct ap_model *m;
	struct tflm_alloc *a;	/* tensors, then scratch buffers */
	uint32_t *sg_base;	/* the first allocation of each subgraph */
	uint32_t n_tensors;
	struct tflm_req *req;
	uint32_t n_req;
	uint32_t *req_base;	/* per subgraph: its first request */
	int32_t now;		/* allocation_scope_count */
	uint32_t steps;
	/* what each clock step is, for the plan's operators: the op's subgraph and node,
	 * node -1 for a step into the subgraph */
	struct tflm_step *step;
	uint32_t n_step, cap_step;
	char *err;
};

static void first_at(struct tflm_alloc *a, int32_t t)
{
	if (a->first < 0)
		a->first = t;
}

static int step(struct tflm *c, uint32_t sg, int32_t node)
{
	if (c->n_step == c->cap_step) {
		uint32_t cap = c->cap_step ? c->cap_step * 2 : 64;
		void *p = realloc(c->step, cap * sizeof(*c->step));

		if (!p)
			return ap_fail(c->err, -ENOMEM, "out of memory");
		c->step = p;
		c->cap_step = cap;
	}
	c->step[c->n_step].sg = sg;
	c->step[c->n_step++].node = node;
	c->now++;
	return 0;
}

static int mark(struct tflm *c, uint32_t sg, unsigned depth);

/* MarkSubgraphLifetimesIfNecessary: WHILE's cond and body, IF's then and else, CALL_ONCE's
 * init subgraph, each a step of its own. */
static int mark_callees(struct tflm *c, const struct ap_model_op *op, unsigned depth)
{
	int32_t code = ap_model_op_code(c->m, op);
	int64_t runs[2];
	uint32_t n;

	if (code != OP_WHILE && code != OP_IF && code != OP_CALL_ONCE)
		return 0;
	n = ap_op_runs(c->m, op, runs);
	for (uint32_t k = 0; k < n; k++) {
		int rc;

		if (runs[k] < 0 || runs[k] >= c->m->n_subgraphs)
			return ap_fail(c->err, -EINVAL, "%s runs subgraph %lld: the model has %u",
				       ap_builtin_name(code), (long long)runs[k],
				       c->m->n_subgraphs);
		if (depth >= AP_SG_MAX_DEPTH)
			return ap_fail(c->err, -EINVAL, "control flow nested deeper than %d "
				       "subgraphs", AP_SG_MAX_DEPTH);
		rc = step(c, (uint32_t)runs[k], -1);
		if (!rc)
			rc = mark(c, (uint32_t)runs[k], depth + 1);
		if (rc)
			return rc;
	}
	return 0;
}

/* tensor t of sg, NULL for an omitted optional one (-1) or one out of range */
static struct tflm_alloc *tensor(struct tflm *c, uint32_t sg, int32_t t)
{
	if (t < 0 || (uint32_t)t >= c->m->subgraphs[sg].n_tensors)
		return NULL;
	return &c->a[c->sg_base[sg] + (uint32_t)t];
}

static void use_all(struct tflm *c, uint32_t sg, const int32_t *v, uint32_t n, bool create)
{
	for (uint32_t k = 0; k < n; k++) {
		struct tflm_alloc *a = tensor(c, sg, v[k]);

		if (a && create)
			first_at(a, c->now);
		if (a)
			a->last = c->now;
	}
}

/* AllocationInfoBuilder::MarkAllocationLifetimes of subgraph sg. */
static int mark(struct tflm *c, uint32_t sg, unsigned depth)
{
	const struct ap_model_subgraph *s = &c->m->subgraphs[sg];

	if (++c->steps > TFLM_MAX_STEPS)
		return ap_fail(c->err, -EINVAL, "control flow runs subgraphs more than %u times",
			       TFLM_MAX_STEPS);
	use_all(c, sg, s->inputs, s->n_inputs, true);
	for (uint32_t i = 0; i < s->n_ops; i++) {
		const struct ap_model_op *op = &s->ops[i];
		int32_t start;
		int rc = step(c, sg, (int32_t)i);

		if (rc)
			return rc;
		for (uint32_t k = 0; k < op->n_outputs; k++) {
			struct tflm_alloc *a = tensor(c, sg, op->outputs[k]);

			if (a)
				first_at(a, c->now);
		}
		start = c->now;
		rc = mark_callees(c, op, depth);
		if (rc)
			return rc;
		use_all(c, sg, op->inputs, op->n_inputs, false);
		use_all(c, sg, op->outputs, op->n_outputs, false);
		for (uint32_t k = c->req_base[sg]; k < c->n_req && c->req[k].sg == sg; k++) {
			struct tflm_alloc *a = &c->a[c->n_tensors + k];

			if (c->req[k].node != i)
				continue;
			first_at(a, start);
			a->last = c->now;
		}
	}
	use_all(c, sg, s->outputs, s->n_outputs, true);
	return 0;
}

/* TfLiteTypeSizeOf: bytes an element, 0 for a type TFLM has no size for. int4 is held
 * unpacked, a byte each. */
static unsigned type_size(uint8_t type)
{
	switch (type) {
	case AP_TT_INT8: case AP_TT_UINT8: case AP_TT_BOOL: case AP_TT_INT4:
		return 1;
	case AP_TT_FLOAT16: case AP_TT_BFLOAT16: case AP_TT_INT16: case AP_TT_UINT16:
		return 2;
	case AP_TT_FLOAT32: case AP_TT_INT32: case AP_TT_UINT32: case AP_TT_RESOURCE:
		return 4;
	case AP_TT_FLOAT64: case AP_TT_INT64: case AP_TT_UINT64: case AP_TT_COMPLEX64:
		return 8;
	case AP_TT_COMPLEX128:
		return 16;
	default:
		return 0;
	}
}

/* InitializeAllocationInfo for one tensor: its bytes, and whether it is planned. */
static int tensor_alloc(struct tflm *c, uint32_t sg, uint32_t t, struct tflm_alloc *a)
{
	const struct ap_model_tensor *mt = &c->m->subgraphs[sg].tensors[t];
	const struct ap_model_buffer *b = mt->buffer < c->m->n_buffers ?
					  &c->m->buffers[mt->buffer] : NULL;
	unsigned sz = type_size(mt->type);
	uint64_t n = sz;

	if (!sz)
		return ap_fail(c->err, -EINVAL, "tensor %u of subgraph %u is %s: TFLite Micro "
			       "has no size for it", t, sg, ap_tensor_type_name(mt->type));
	for (uint32_t d = 0; d < mt->rank; d++) {
		if (mt->shape[d] < 0)
			return ap_fail(c->err, -EINVAL, "tensor %u of subgraph %u has an open "
				       "dimension: TFLite Micro plans static shapes only", t, sg);
		if (__builtin_mul_overflow(n, (uint64_t)mt->shape[d], &n) ||
		    n > AP_PLAN_MAX_BYTES / 2)
			return ap_fail(c->err, -EINVAL, "tensor %u of subgraph %u: beyond %s", t,
				       sg, AP_PLAN_MAX_BYTES_TEXT);
	}
	*a = (struct tflm_alloc){ .bytes = n, .first = -1, .last = -1 };
	/* constant data only when the buffer holds some inline (GetFlatbufferTensorBuffer) */
	a->planned = !(b && b->data_len) && !mt->is_variable && n;
	return 0;
}

/* VAR_HANDLE's Prepare points its output at the resource id it keeps: no longer
 * needs_allocating when the plan is made, after every Prepare. */
static void var_handles(struct tflm *c)
{
	for (uint32_t s = 0; s < c->m->n_subgraphs; s++)
		for (uint32_t i = 0; i < c->m->subgraphs[s].n_ops; i++) {
			const struct ap_model_op *op = &c->m->subgraphs[s].ops[i];
			struct tflm_alloc *a = op->n_outputs ? tensor(c, s, op->outputs[0]) : NULL;

			if (a && ap_model_op_code(c->m, op) == OP_VAR_HANDLE)
				a->planned = false;
		}
}

/* Every subgraph's tensors, then every Prepare's scratch requests. */
static int collect(struct tflm *c)
{
	const struct ap_model *m = c->m;
	uint32_t cap = 0;

	for (uint32_t s = 0; s < m->n_subgraphs; s++) {
		c->sg_base[s] = c->n_tensors;
		c->n_tensors += m->subgraphs[s].n_tensors;
		cap += m->subgraphs[s].n_ops;
	}
	if (cap > UINT32_MAX / AP_TFLM_MAX_SCRATCH)
		return ap_fail(c->err, -EINVAL, "too many operators");
	c->req = calloc((size_t)cap * AP_TFLM_MAX_SCRATCH + 1, sizeof(*c->req));
	if (!c->req)
		return ap_fail(c->err, -ENOMEM, "out of memory");
	for (uint32_t s = 0; s < m->n_subgraphs; s++) {
		c->req_base[s] = c->n_req;
		for (uint32_t i = 0; i < m->subgraphs[s].n_ops; i++) {
			struct ap_tflm_scratch sc[AP_TFLM_MAX_SCRATCH];
			int n = ap_tflm_scratch(m, s, i, sc, c->err);

			if (n < 0)
				return n;
			for (int k = 0; k < n; k++)
				c->req[c->n_req++] = (struct tflm_req){ s, i, sc[k] };
		}
	}
	c->a = calloc((size_t)c->n_tensors + c->n_req + 1, sizeof(*c->a));
	if (!c->a)
		return ap_fail(c->err, -ENOMEM, "out of memory");
	for (uint32_t s = 0; s < m->n_subgraphs; s++)
		for (uint32_t t = 0; t < m->subgraphs[s].n_tensors; t++) {
			int rc = tensor_alloc(c, s, t, &c->a[c->sg_base[s] + t]);

			if (rc)
				return rc;
		}
	var_handles(c);
	for (uint32_t k = 0; k < c->n_req; k++)
		c->a[c->n_tensors + k] = (struct tflm_alloc){ .bytes = c->req[k].s.bytes,
							 .first = -1, .last = -1,
							 .planned = true };
	return 0;
}

/* CreatePlan and the GreedyMemoryPlanner: offsets into off (per allocation, -1 when not
 * planned), the extent into info. */
static int place(struct tflm *c, int64_t *off, struct ap_tflm_info *info)
{
	uint32_t n_all = c->n_tensors + c->n_req, n = 0;
	struct ap_rec *r = calloc((size_t)n_all + 1, sizeof(*r));
	uint64_t hwm;

	if (!r)
		return ap_fail(c->err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < n_all; i++) {
		off[i] = -1;
		if (!c->a[i].planned)
			continue;
		/* the planner's id is the order of adding; the record keeps the allocation */
		r[n++] = (struct ap_rec){ .size = (c->a[i].bytes + AP_TFLM_ALIGN - 1) /
						  AP_TFLM_ALIGN * AP_TFLM_ALIGN,
					  .first = c->a[i].first, .last = c->a[i].last,
					  .id = (int32_t)i };
		if (i >= c->n_tensors) {
			info->n_scratch++;
			info->scratch_bytes += r[n - 1].size;
		}
	}
	/* ids ascend with the planner's, so its order (size, then the later id) is kept */
	ap_order_micro(r, n);
	hwm = ap_place_first_fit(r, n);
	if (hwm == UINT64_MAX) {
		free(r);
		return ap_fail(c->err, -ENOMEM, "out of memory");
	}
	for (uint32_t k = 0; k < n; k++)
		off[r[k].id] = (int64_t)r[k].offset;
	info->head_bytes = hwm;
	info->n_buffers = n;
	free(r);
	return 0;
}

int ap_tflm_plan(const struct ap_model *m, const char *path, struct ap_tplan *p,
		 struct ap_tflm_info *info, char *err)
{
	struct tflm c = { .m = m, .err = err };
	int64_t *off = NULL;
	int rc = -ENOMEM;

	memset(info, 0, sizeof(*info));
	memset(p, 0, sizeof(*p));
	if (!m->n_subgraphs)
		return ap_fail(err, -EINVAL, "the model has no subgraph");
	/* the planner's offline offsets come first, unsorted: not modelled */
	if (m->offline_offsets)
		return ap_fail(err, -EINVAL, "the model carries an offline plan "
			       "(OfflineMemoryAllocation): --runtime tflm plans online only");
	c.sg_base = calloc(m->n_subgraphs, sizeof(*c.sg_base));
	c.req_base = calloc(m->n_subgraphs, sizeof(*c.req_base));
	if (!c.sg_base || !c.req_base) {
		ap_seterr(err, "out of memory");
		goto out;
	}
	rc = collect(&c);
	if (!rc)
		rc = mark(&c, 0, 0);
	if (rc)
		goto out;
	off = malloc(((size_t)c.n_tensors + c.n_req + 1) * sizeof(*off));
	rc = off ? place(&c, off, info) : ap_fail(err, -ENOMEM, "out of memory");
	if (!rc) {
		struct tflm_view v = { .m = m, .a = c.a, .n_alloc = c.n_tensors + c.n_req,
				       .req = c.req, .step = c.step, .n_step = c.n_step };

		rc = tflm_tplan(&v, path, off, info, p, err);
	}
out:
	free(off);
	free(c.a);
	free(c.sg_base);
	free(c.req);
	free(c.req_base);
	free(c.step);
	return rc;
}
