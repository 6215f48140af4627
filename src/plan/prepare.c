// SPDX-License-Identifier: Apache-2.0
/*
 * prepare: the graph, the kernels' additions and the lifetimes, in LiteRT's order
 * (include/arenaprof/plan/prepare.h). Kept apart from graph.c so that the kernels, which
 * read the graph, are not called by it.
 */
#include <inttypes.h>

#include "arenaprof/plan/kernels.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/util/err.h"

/*
 * A model's shapes can name any size, up to 2^60 bytes a tensor. When the tensors add up
 * to at most 2^62 bytes, every offset, extent and sum the planners and the profile make
 * (at most the total plus 64 bytes of alignment a tensor) stays below 2^63; more than
 * that no address space holds, so such a graph is refused.
 */
#define MAX_TOTAL_BYTES (1ull << 62)

static int check_total(const struct ap_graph *g, char *err)
{
	uint64_t sum = 0;

	for (uint32_t i = 0; i < g->n_tensors; i++) {
		if (g->t[i].bytes > MAX_TOTAL_BYTES - sum) {
			ap_seterr(err, "tensor %" PRIu32 " (%" PRIu64 " bytes) takes the tensors "
				  "past 2^62 bytes in all: more than any address space holds", i,
				  g->t[i].bytes);
			return -1;
		}
		sum += g->t[i].bytes;
	}
	return 0;
}

int ap_graph_build(const struct ap_model *m, uint32_t subgraph,
		   const struct ap_graph_opts *opts, struct ap_graph *g, char *err)
{
	static const struct ap_graph_opts defaults;

	if (!opts)
		opts = &defaults;
	if (ap_graph_read(m, subgraph, opts, g, err))
		return -1;
	if (!opts->no_kernels) {
		struct ap_kernel_opts ko = { .threads = opts->threads ? opts->threads : 1 };

		if (ap_kernels_apply(g, &ko, err)) {
			ap_graph_free(g);
			return -1;
		}
	}
	if (check_total(g, err)) {
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
