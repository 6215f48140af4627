// SPDX-License-Identifier: Apache-2.0
/*
 * prepare: the graph, the kernels' additions and the lifetimes, in LiteRT's order
 * (include/arenaprof/plan/prepare.h). Kept apart from graph.c so that the kernels, which
 * read the graph, are not called by it.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "arenaprof/plan/kernels.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/subgraphs.h"
#include "arenaprof/util/err.h"

int ap_graph_build(const struct ap_model *m, uint32_t subgraph,
		   const struct ap_graph_opts *opts, struct ap_graph *g, char *err)
{
	static const struct ap_graph_opts defaults;

	if (!opts)
		opts = &defaults;
	if (ap_graph_read(m, subgraph, opts, g, err))
		return -1;
	if (subgraph > 0 || m->n_subgraphs > 1) {	/* a STABLEHLO_CASE trims subgraph 0 */
		const struct ap_sg_info *roles = ap_subgraph_roles(m);

		if (!roles) {
			ap_graph_free(g);
			ap_seterr(err, "out of memory reading the subgraphs' callers");
			return -1;
		}
		ap_subgraph_prepare(g, &roles[subgraph]);
	}
	if (!opts->no_kernels) {
		struct ap_kernel_opts ko = { .threads = opts->threads ? opts->threads : 1,
					     .arch = opts->arch };

		if (ap_kernels_apply(g, &ko, err)) {
			ap_graph_free(g);
			return -1;
		}
	}
	if (ap_graph_check_bytes(g, err)) {
		ap_graph_free(g);
		return -1;
	}
	ap_lifetimes_tflite(g, !opts->no_inplace);
	return 0;
}

void ap_graph_free(struct ap_graph *g)
{
	ap_kernels_free(g);	/* op temporaries and the added tensors' names */
	ap_graph_release(g);
}
