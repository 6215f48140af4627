// SPDX-License-Identifier: Apache-2.0
/* plan_subgraphs: every subgraph's own arenas (include/arenaprof/plan/plan_subgraphs.h). */
#include <errno.h>
#include <stdlib.h>

#include "arenaprof/plan/coverage.h"
#include "arenaprof/plan/plan_subgraphs.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/util/err.h"

static int plan_one(const struct ap_model *m, uint32_t i, const struct ap_graph_opts *o,
		    enum ap_strategy s, const struct ap_sg_hook *hook, struct ap_sg_plan *sp,
		    char *err)
{
	struct ap_graph g;
	struct ap_tplan p;
	struct ap_gap *gaps;
	char e[AP_ERR_LEN];
	int n, rc;

	if (hook && hook->subgraph == i) {
		rc = hook->plan(hook->ctx, sp, e);
		if (rc)
			ap_seterr(err, "subgraph %u: %s", i, e);
		return rc;
	}
	rc = ap_graph_build(m, i, o, &g, e);
	if (rc) {
		ap_seterr(err, "subgraph %u: %s", i, e);
		return rc;
	}
	n = ap_kernel_gaps(&g, &gaps);
	rc = n < 0 ? n : ap_plan_graph(&g, s, &p, e);
	if (rc) {
		ap_seterr(err, "subgraph %u: %s", i, n < 0 ? "out of memory" : e);
		if (n >= 0)
			free(gaps);
		ap_graph_free(&g);
		return rc;
	}
	free(gaps);
	sp->n_gaps = (uint32_t)n + !!sp->caller_gap.why;	/* a caller counts as one */
	sp->arena_bytes = p.arena_bytes;
	sp->persistent_bytes = p.persistent_bytes;
	ap_tplan_free(&p);
	ap_graph_free(&g);
	return 0;
}

int ap_plan_subgraphs(const struct ap_model *m, const struct ap_graph_opts *o,
		      enum ap_strategy s, const struct ap_sg_hook *hook,
		      struct ap_sg_plan **out, char *err)
{
	const struct ap_sg_info *roles = ap_subgraph_roles(m);
	const bool *late = ap_subgraph_late(m);
	struct ap_caller_gap *up = calloc(m->n_subgraphs + 1, sizeof(*up));
	struct ap_sg_plan *sp = calloc(m->n_subgraphs + 1, sizeof(*sp));

	int rc;

	*out = NULL;
	if (!roles || !late || !up || !sp || ap_caller_gaps(m, up)) {
		free(up);
		free(sp);
		return ap_fail(err, -ENOMEM, "out of memory planning the subgraphs");
	}
	for (uint32_t i = 0; i < m->n_subgraphs; i++) {
		sp[i].info = roles[i];
		sp[i].info.at_invoke = late[i];	/* and after a dynamic output (prepare.c) */
		sp[i].caller_gap = up[i];
		sp[i].planned = ap_sg_planned(roles[i].role);
		rc = sp[i].planned ? plan_one(m, i, o, s, hook, &sp[i], err) : 0;
		if (rc) {
			free(up);
			free(sp);
			return rc;
		}
	}
	free(up);
	*out = sp;
	return 0;
}
