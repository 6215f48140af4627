// SPDX-License-Identifier: Apache-2.0
/*
 * kernels_flow: what WHILE's Prepare does to its own node in the caller's plan (while.cc).
 * Its subgraphs are subgraphs.c's business; coverage_flow.c names what is not modelled.
 */
#include <stdlib.h>

#include "kernels_priv.h"

enum { OPT_WHILE = 93 };	/* BuiltinOptions: WhileOptions */

/* LiteRT's GetInputTensorsCount: which tensors are an input of a node or an output of the
 * graph, found once per graph (a file of many WHILEs asks for each). false on OOM. */
static bool mark_read(struct kctx *k)
{
	if (k->read)
		return true;
	k->read = calloc(k->sg->n_tensors + 1, sizeof(*k->read));
	if (!k->read)
		return false;
	for (uint32_t i = 0; i < k->sg->n_ops; i++)
		for (uint32_t j = 0; j < k->sg->ops[i].n_inputs; j++)
			if (mt(k, k->sg->ops[i].inputs[j]))
				k->read[k->sg->ops[i].inputs[j]] = true;
	for (uint32_t j = 0; j < k->sg->n_outputs; j++)
		if (mt(k, k->sg->outputs[j]))
			k->read[k->sg->outputs[j]] = true;
	return true;
}

/*
 * WHILE: a loop variable the body passes through unchanged (body input i is its output i)
 * whose output nobody in the caller reads leaves the node's outputs (kTfLiteOptionalTensor)
 * before the caller's ArenaPlanner first plans: LiteRT never allocates it. Strings,
 * resources and variants are kept.
 */
int kt_prep_while(struct kctx *k)
{
	const struct ap_model *m = k->g->model;
	const struct ap_model_subgraph *body;
	int64_t bi;

	if (k->mo->options_type != OPT_WHILE)
		return 0;
	bi = option(k, 1, 4, -1);
	if (bi <= 0 || bi >= m->n_subgraphs || bi == option(k, 0, 4, -1))
		return 0;	/* LiteRT refuses it; coverage_flow.c names it */
	body = &m->subgraphs[bi];
	if (body->n_inputs != k->mo->n_inputs || body->n_outputs != k->mo->n_inputs ||
	    k->mo->n_outputs != k->mo->n_inputs)
		return 0;
	for (uint32_t i = 0; i < k->mo->n_outputs; i++) {
		int32_t o = k->mo->outputs[i], bin = body->inputs[i];
		uint8_t type;

		if (bin != body->outputs[i] || !mt(k, o) || bin < 0 ||
		    (uint32_t)bin >= body->n_tensors)
			continue;
		if (!mark_read(k))
			return -1;
		if (k->read[o])
			continue;
		type = body->tensors[bin].type;
		if (type == AP_TT_STRING || type == AP_TT_RESOURCE || type == AP_TT_VARIANT)
			continue;
		k->g->t[o].flags |= AP_TF_DROPPED;
	}
	return 0;
}
