// SPDX-License-Identifier: Apache-2.0
/*
 * workspace: XNNPACK's workspace as a plan of its own (xnnpack.h, ap_xnn_workspace_plan):
 * every value memplan.c places, at its offset, alive over the TFLite operators its writer
 * and its last reader came from. Correlation reads it as it reads the TFLite arena's plan,
 * so a workspace page is named by the operator that writes it first.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/grow.h"
#include "xnn_priv.h"

/* The TFLite operator a node of the partition came from; -1 out of range. */
static int32_t node_op(const struct xnn_partition *p, int32_t n)
{
	return n >= 0 && (uint32_t)n < p->n_nodes ? p->nodes[n].tfl_op : -1;
}

static char *value_name(const struct ap_graph *g, const struct xnn_value *v, uint32_t part,
			uint32_t id)
{
	char buf[96];

	if (v->tfl_tensor >= 0 && (uint32_t)v->tfl_tensor < g->n_tensors &&
	    g->t[v->tfl_tensor].name)
		return strdup(g->t[v->tfl_tensor].name);
	snprintf(buf, sizeof(buf), "xnnpack:partition %u value %u%s", part, id,
		 v->tfl_tensor == -2 ? " (an operator's own)" : "");
	return strdup(buf);
}

/* One partition's placed values into out (room made by the caller's growth). */
static int take_values(const struct ap_graph *g, uint32_t part, const struct xnn_partition *p,
		       struct ap_tplan *out, uint32_t *cap)
{
	for (uint32_t v = 0; v < p->n_values; v++) {
		const struct xnn_value *x = &p->values[v];
		struct ap_ptensor *t;
		int32_t first = node_op(p, x->first), last = node_op(p, x->last);

		if (x->alloc != XNN_A_WORKSPACE || x->reuses >= 0 || first < 0 || !x->bytes)
			continue;
		if (ap_grow32(&out->t, cap, out->n, sizeof(*out->t), 64))
			return -ENOMEM;
		t = &out->t[out->n];
		*t = (struct ap_ptensor){
			.index = x->tfl_tensor >= 0 ? x->tfl_tensor : -1,
			.bytes = x->bytes, .offset = (int64_t)x->offset,
			.first = first, .last = last >= first ? last : first,
			.kind = AP_KIND_ARENA, .share_root = -1,
		};
		t->name = value_name(g, x, part, v);
		if (!t->name)
			return -ENOMEM;
		out->n++;
	}
	return 0;
}

static int copy_ops(const struct ap_tplan *names, uint32_t n_ops, struct ap_tplan *out)
{
	out->ops = calloc(n_ops ? n_ops : 1, sizeof(*out->ops));
	if (!out->ops)
		return -ENOMEM;
	out->n_ops = n_ops;
	for (uint32_t i = 0; i < n_ops; i++) {
		const struct ap_pop *o = names && i < names->n_ops ? &names->ops[i] : NULL;

		out->ops[i].opname = strdup(o && o->opname ? o->opname : "?");
		out->ops[i].out_name = strdup(o && o->out_name ? o->out_name : "");
		if (!out->ops[i].opname || !out->ops[i].out_name)
			return -ENOMEM;
	}
	return 0;
}

int ap_xnn_workspace_plan(const struct ap_model *m, const struct ap_graph *g,
			  const struct ap_xnn_plan *x, const struct ap_tplan *names,
			  struct ap_tplan *out, char *err)
{
	uint32_t cap = 0;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	out->model = strdup(names && names->model ? names->model : "");
	out->strategy = strdup("xnnpack-workspace");
	if (!out->model || !out->strategy || copy_ops(names, g->n_ops, out))
		return ap_fail(err, -ENOMEM, "out of memory planning the workspace");
	for (uint32_t k = 0; k < x->n_parts && !rc; k++) {
		struct xnn_partition p;

		rc = xnn_subgraph(m, g, k, x, &p, err);
		if (!rc && xnn_memplan(&p, &x->cpu))
			rc = ap_fail(err, -ENOMEM, "out of memory planning partition %u", k);
		if (!rc && take_values(g, k, &p, out, &cap))
			rc = ap_fail(err, -ENOMEM, "out of memory planning the workspace");
		if (!rc && p.workspace_bytes > out->arena_bytes)
			out->arena_bytes = p.workspace_bytes;
		xnn_partition_free(&p);
	}
	return rc;
}
