/* SPDX-License-Identifier: Apache-2.0 */
/*
 * kernels: the tensors LiteRT's builtin kernels add to a graph that the model file does
 * not list (Init-reserved tensors, Prepare temporaries such as CONV_2D's im2col) and the
 * outputs they move to the persistent arena (DEQUANTIZE of a constant).
 */
#ifndef ARENAPROF_KERNELS_H
#define ARENAPROF_KERNELS_H

#include "arenaprof/plan/graph.h"

struct ap_kernel_opts {
	int threads;	/* LiteRT num_threads; 1 = single-threaded, -1 = default */
	enum ap_arch arch;	/* HOST: the build's */
	enum ap_runtime_id runtime;	/* whose kernels */
};

/*
 * Adds what LiteRT's kernels add to graph g (as built by ap_graph_build, lifetimes not yet
 * computed): Init-reserved tensors, Prepare temporaries, persistent outputs. Appended
 * tensors go at the end of g->t; each op's temporaries are listed in its tmp/n_tmp.
 * o == NULL means { .threads = 1 }. Call it once per graph. 0, or with err -EINVAL (a
 * kernel tensor beyond the plan's limits, a graph that does not match its model) or
 * -ENOMEM.
 */
int ap_kernels_apply(struct ap_graph *g, const struct ap_kernel_opts *o, char *err);

/* The LSTM inputs whose sparsity gives the sparse hybrid kernel a ledger each (lstm.cc
 * make_ledger): the 8 gate weights, then the projection weights. */
extern const uint32_t ap_lstm_ledger_inputs[9];

/* Frees what ap_kernels_apply allocated (op tmp lists, owned names); g->t stays. */
void ap_kernels_free(struct ap_graph *g);

#endif
