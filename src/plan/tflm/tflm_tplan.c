// SPDX-License-Identifier: Apache-2.0
/*
 * tflm_tplan: TFLite Micro's one-arena plan (tflm_plan.c) as a struct ap_tplan, so that
 * every report, export and check reads it as any other plan: one row per allocation,
 * lifetimes and operators on TFLM's clock (include/arenaprof/plan/tflm_plan.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "tflm_priv.h"

static bool listed(const int32_t *v, uint32_t n, uint32_t t)
{
	for (uint32_t k = 0; k < n; k++)
		if (v[k] >= 0 && (uint32_t)v[k] == t)
			return true;
	return false;
}

/* The kind of tensor t of subgraph sg: its role in subgraph 0, or where TFLM keeps it. */
static enum ap_kind tensor_kind(const struct tflm_view *v, uint32_t sg, uint32_t t,
				const struct tflm_alloc *a)
{
	const struct ap_model_subgraph *s = &v->m->subgraphs[sg];
	const struct ap_model_tensor *mt = &s->tensors[t];

	if (mt->is_variable)
		return AP_KIND_VARIABLE;	/* the persistent tail (AllocateVariables) */
	/* constant data, or what TFLM never plans: empty, or a VAR_HANDLE's resource id */
	if (!a->planned)
		return mt->buffer < v->m->n_buffers && v->m->buffers[mt->buffer].data_len ?
		       AP_KIND_WEIGHTS : AP_KIND_UNPLANNED;
	if (sg == 0 && listed(s->inputs, s->n_inputs, t))
		return AP_KIND_INPUT;
	if (sg == 0 && listed(s->outputs, s->n_outputs, t))
		return AP_KIND_OUTPUT;
	return AP_KIND_ARENA;
}

static char *scratch_name(const struct tflm_view *v, uint32_t k)
{
	const struct tflm_req *q = &v->req[k];
	const char *op = ap_model_op_name(v->m, &v->m->subgraphs[q->sg].ops[q->node]);
	char *s = NULL;

	if (asprintf(&s, "%s %u:%u scratch: %s", op, q->sg, q->node, q->s.what) < 0)
		return NULL;
	return s;
}

static int fill_tensors(const struct tflm_view *v, const int64_t *off, struct ap_tplan *p)
{
	for (uint32_t s = 0, i = 0; s <= v->m->n_subgraphs && i < p->n; s++) {
		uint32_t n = s < v->m->n_subgraphs ? v->m->subgraphs[s].n_tensors : p->n - i;

		for (uint32_t t = 0; t < n; t++, i++) {
			const struct tflm_alloc *a = &v->a[i];
			struct ap_ptensor *pt = &p->t[i];
			bool scratch = s == v->m->n_subgraphs;

			pt->index = (int32_t)i;
			pt->bytes = a->bytes;
			pt->offset = off[i];
			pt->first = a->first - 1;
			pt->last = a->last - 1;
			pt->share_root = -1;
			pt->kind = scratch ? AP_KIND_TEMPORARY : tensor_kind(v, s, t, a);
			pt->name = scratch ? scratch_name(v, t) :
				   strdup(v->m->subgraphs[s].tensors[t].name);
			if (!pt->name)
				return -ENOMEM;
			if (pt->kind == AP_KIND_WEIGHTS)
				p->weights_bytes += a->bytes;
		}
	}
	return 0;
}

/* One operator per clock step: the node, or the step into a subgraph. */
static int fill_ops(const struct tflm_view *v, struct ap_tplan *p)
{
	for (uint32_t i = 0; i < p->n_ops; i++) {
		const struct ap_model_subgraph *s = &v->m->subgraphs[v->step[i].sg];
		struct ap_pop *o = &p->ops[i];

		if (v->step[i].node < 0) {
			if (asprintf(&o->opname, "(subgraph %u)", v->step[i].sg) < 0)
				o->opname = NULL;
			o->out_name = strdup("");
		} else {
			const struct ap_model_op *op = &s->ops[v->step[i].node];
			int32_t t = op->n_outputs ? op->outputs[0] : -1;

			o->opname = strdup(ap_model_op_name(v->m, op));
			o->out_name = strdup(t >= 0 && (uint32_t)t < s->n_tensors ?
					     s->tensors[t].name : "");
		}
		if (!o->opname || !o->out_name)
			return -ENOMEM;
	}
	return 0;
}

int tflm_tplan(const struct tflm_view *v, const char *path, const int64_t *off,
	       const struct ap_tflm_info *info, struct ap_tplan *p, char *err)
{
	memset(p, 0, sizeof(*p));
	p->n = v->n_alloc;
	p->n_ops = v->n_step;
	p->t = calloc((size_t)p->n + 1, sizeof(*p->t));
	p->ops = calloc((size_t)p->n_ops + 1, sizeof(*p->ops));
	p->model = strdup(path);
	p->strategy = strdup("tflm");
	if (!p->t || !p->ops || !p->model || !p->strategy || fill_tensors(v, off, p) ||
	    fill_ops(v, p)) {
		ap_tplan_free(p);
		return ap_fail(err, -ENOMEM, "out of memory");
	}
	p->arena_bytes = info->head_bytes;
	return 0;
}
