// SPDX-License-Identifier: Apache-2.0
/*
 * xnnpack: the entry of the default path's model (include/arenaprof/plan/xnnpack.h): the
 * delegate's choice and partitions, each partition's subgraph and workspace, the packed
 * weights and private buffers of its nodes, summed; and the graph TFLite plans once the
 * delegate replaced the partitions (docs/xnnpack-delegate.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/subgraphs.h"
#include "arenaprof/util/err.h"
#include "xnn_priv.h"

int ap_delegate_parse(const char *s, enum ap_delegate *d)
{
	if (!strcmp(s, "xnnpack"))
		*d = AP_DELEGATE_XNNPACK;
	else if (!strcmp(s, "none"))
		*d = AP_DELEGATE_NONE;
	else
		return -EINVAL;
	return 0;
}

const char *ap_delegate_name(enum ap_delegate d)
{
	return d == AP_DELEGATE_NONE ? "none" : "xnnpack";
}

/* A partition's sizes into x: its workspace, its widest value, its nodes' bytes; of a
 * runtime never reshaped, only what its creation allocates. */
static void take_partition(struct ap_xnn_plan *x, uint32_t k, const struct xnn_partition *p,
			   bool reshaped)
{
	struct ap_xnn_part *part = &x->parts[k];

	part->workspace_bytes = reshaped ? p->workspace_bytes : 0;
	part->widest_op = -1;
	for (uint32_t v = 0; v < p->n_values; v++) {
		const struct xnn_value *val = &p->values[v];

		if (val->alloc == XNN_A_WORKSPACE && val->bytes > part->widest_value)
			part->widest_value = val->bytes;	/* its writer: the nodes below */
	}
	for (uint32_t n = 0; n < p->n_nodes; n++) {
		const struct xnn_node *nd = &p->nodes[n];
		struct ap_xnn_op *op = &x->ops[nd->tfl_op];
		uint64_t at_reshape = 0, priv, packed;

		if (nd->out_value >= 0 && p->values[nd->out_value].bytes == part->widest_value &&
		    p->values[nd->out_value].alloc == XNN_A_WORKSPACE)
			part->widest_op = nd->tfl_op;
		packed = xnn_packed_bytes(nd, &x->cpu);
		op->packed_bytes += packed;
		priv = xnn_private_bytes(nd, &x->cpu, &at_reshape);
		if (!reshaped) {
			priv -= at_reshape;
			at_reshape = 0;
		}
		op->private_bytes += priv;
		op->reshape_bytes += at_reshape;
		x->packed_weights_bytes += packed;
		if (packed > x->largest_packed_bytes)
			x->largest_packed_bytes = packed;
		x->scratch_bytes += priv;
	}
	/* the runtime's descriptor, an opdata per defined node, a value entry per value */
	x->other_bytes += xnn_runtime_bytes(p->n_defined, xnn_runtime_values(p));
	/* the one workspace grows to the largest plan (initialize_workspace_values) */
	if (part->workspace_bytes > x->workspace_bytes)
		x->workspace_bytes = part->workspace_bytes;
}

/* One subgraph's delegate kernels: its operators, partitions and their sizes into x. */
static int plan_graph(const struct ap_model *m, const struct ap_graph *g,
		      const struct ap_xnn_cpu *cpu, bool reshaped, struct ap_xnn_plan *x,
		      char *err)
{
	int rc;

	memset(x, 0, sizeof(*x));
	x->cpu = *cpu;
	if (g->subgraph >= m->n_subgraphs || m->subgraphs[g->subgraph].n_ops != g->n_ops)
		return ap_fail(err, -EINVAL, "the graph is not of its model");
	rc = xnn_delegate(m, g, x, err);
	if (rc)
		return rc;
	/* sparse weights hint XNNPACK's NCHW (SpMM) rewrite, which the arm64 build does
	 * (measured: docs/xnnpack-packing.md, "arm64") and the model does not */
	for (uint32_t i = 0; i < g->n_ops && ap_arch_resolve(cpu->arch) == AP_ARCH_ARM64; i++)
		if (x->ops[i].unpacks && g->ops[i].opcode == OP_DENSIFY && !x->not_modelled[0])
			snprintf(x->not_modelled, sizeof(x->not_modelled),
				 "sparse weights on arm64: XNNPACK's NCHW (SpMM) rewrite");
	for (uint32_t k = 0; k < x->n_parts; k++) {
		struct xnn_partition p;

		rc = xnn_subgraph(m, g, k, x, &p, err);
		if (!rc && xnn_memplan(&p, cpu))
			rc = ap_fail(err, -ENOMEM, "out of memory planning partition %u", k);
		if (!rc)
			take_partition(x, k, &p, reshaped);
		xnn_partition_free(&p);
		if (rc)
			return rc;
	}
	return 0;
}

static void sg_summary(struct ap_xnn_sg *s, const struct ap_xnn_plan *y, bool reshaped)
{
	s->delegated = true;
	s->reshaped = reshaped;
	s->delegated_ops = y->delegated_ops;
	s->n_parts = y->n_parts;
	s->workspace_bytes = y->workspace_bytes;
	s->packed_weights_bytes = y->packed_weights_bytes;
	s->scratch_bytes = y->scratch_bytes;
	s->other_bytes = y->other_bytes;
}

static void note(struct ap_xnn_plan *x, uint32_t sg, const char *what)
{
	if (!x->not_modelled[0] && what[0])
		snprintf(x->not_modelled, sizeof(x->not_modelled), "subgraph %u: %.200s", sg, what);
}

/* A subgraph other than the shown one, its runtimes added to x's totals. */
static void plan_other(const struct ap_model *m, uint32_t i, bool reshaped,
		       struct ap_xnn_plan *x)
{
	char e[AP_ERR_LEN];
	struct ap_graph g;
	struct ap_xnn_plan y;

	memset(&y, 0, sizeof(y));
	if (ap_graph_build(m, i, NULL, &g, e)) {
		note(x, i, e);
		ap_graph_free(&g);
		return;
	}
	if (plan_graph(m, &g, &x->cpu, reshaped, &y, e)) {
		note(x, i, e);
	} else {
		sg_summary(&x->sgs[i], &y, reshaped);
		x->packed_weights_bytes += y.packed_weights_bytes;
		x->scratch_bytes += y.scratch_bytes;
		x->other_bytes += y.other_bytes;
		if (y.workspace_bytes > x->workspace_bytes)
			x->workspace_bytes = y.workspace_bytes;
		note(x, i, y.not_modelled);
	}
	ap_xnn_plan_free(&y);
	ap_graph_free(&g);
}

/* LiteRT's interpreter skips the subgraphs named as validation ones (IsValidationSubgraph) */
static bool validation(const struct ap_model *m, uint32_t i)
{
	const char *n = m->subgraphs[i].name;

	return n && !strncmp(n, "VALIDATION:", 11);
}

int ap_xnn_plan_build(const struct ap_model *m, const struct ap_graph *g,
		      const struct ap_xnn_cpu *cpu, struct ap_xnn_plan *x, char *err)
{
	const struct ap_sg_info *roles = ap_subgraph_roles(m);
	uint32_t shown = g->subgraph;
	int rc;

	/* LiteRT reshapes a subgraph's runtimes when it prepares the subgraph */
#define RESHAPED(i) (roles ? ap_sg_planned(roles[i].role) : (i) == 0)
	rc = plan_graph(m, g, cpu, RESHAPED(shown), x, err);
	if (rc)
		return rc;
	x->sgs = calloc(m->n_subgraphs ? m->n_subgraphs : 1, sizeof(*x->sgs));
	if (!x->sgs)
		return ap_fail(err, -ENOMEM, "out of memory planning the subgraphs");
	x->n_sgs = m->n_subgraphs;
	sg_summary(&x->sgs[shown], x, RESHAPED(shown));
	if (x->not_modelled[0] && m->n_subgraphs > 1) {
		char t[sizeof(x->not_modelled)];

		snprintf(t, sizeof(t), "%s", x->not_modelled);
		x->not_modelled[0] = 0;
		note(x, shown, t);
	}
	for (uint32_t i = 0; i < m->n_subgraphs; i++)
		if (i != shown && !validation(m, i))
			plan_other(m, i, RESHAPED(i), x);
#undef RESHAPED
	/* the delegate's workspace descriptor, made with the delegate whatever it takes */
	x->other_bytes += xnn_workspace_object_bytes();
	x->total_bytes = x->workspace_bytes + x->packed_weights_bytes + x->scratch_bytes +
			 x->other_bytes;
	return 0;
}

void ap_xnn_plan_free(struct ap_xnn_plan *x)
{
	for (uint32_t k = 0; x->parts && k < x->n_parts; k++) {
		free(x->parts[k].ops);
		free(x->parts[k].inputs);
		free(x->parts[k].outputs);
	}
	free(x->parts);
	free(x->ops);
	free(x->order);
	free(x->sgs);
	memset(x, 0, sizeof(*x));
}

void ap_xnn_delegated_graph_free(struct ap_graph *out)
{
	for (uint32_t i = 0; out->ops && i < out->n_ops; i++)
		free(out->ops[i].tmp);
	free(out->t);
	free(out->ops);
	memset(out, 0, sizeof(*out));
}

int ap_xnn_delegated_graph(const struct ap_graph *g, const struct ap_xnn_plan *x,
			   struct ap_graph *out, char *err)
{
	memset(out, 0, sizeof(*out));
	*out = *g;
	out->owned_inputs = NULL;
	out->owned_names = NULL;
	out->n_owned_names = 0;
	out->first_split = -1;
	out->n_ops = x->n_order;
	out->t = malloc((g->n_tensors ? g->n_tensors : 1) * sizeof(*out->t));
	out->ops = calloc(x->n_order ? x->n_order : 1, sizeof(*out->ops));
	if (!out->t || !out->ops) {
		out->n_ops = 0;
		ap_xnn_delegated_graph_free(out);
		return ap_fail(err, -ENOMEM, "out of memory building the delegated graph");
	}
	memcpy(out->t, g->t, g->n_tensors * sizeof(*out->t));
	for (uint32_t i = 0; i < g->n_tensors; i++) {
		out->t[i].first = out->t[i].last = AP_NODE_NONE;
		out->t[i].share_root = -1;
		out->t[i].producer = -1;
	}
	for (uint32_t k = 0; k < x->n_order; k++) {
		struct ap_op *o = &out->ops[k];
		int32_t e = x->order[k];

		if (e >= 0) {
			*o = g->ops[e];
			o->tmp = NULL;
			if (g->ops[e].n_tmp) {
				o->tmp = malloc(g->ops[e].n_tmp * sizeof(*o->tmp));
				if (!o->tmp) {
					o->n_tmp = 0;
					ap_xnn_delegated_graph_free(out);
					return ap_fail(err, -ENOMEM, "out of memory");
				}
				memcpy(o->tmp, g->ops[e].tmp, g->ops[e].n_tmp * sizeof(*o->tmp));
			}
		} else {
			const struct ap_xnn_part *p = &x->parts[-e - 1];

			o->opcode = OP_DELEGATE;
			o->name = "TfLiteXNNPackDelegate";
			o->in = p->inputs, o->n_in = p->n_inputs;
			o->out = p->outputs, o->n_out = p->n_outputs;
		}
		for (uint32_t j = 0; j < o->n_out; j++)
			if (o->out[j] >= 0 && out->t[o->out[j]].producer < 0)
				out->t[o->out[j]].producer = (int32_t)k;
	}
	ap_lifetimes_tflite(out, true);
	return 0;
}
