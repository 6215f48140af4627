/* SPDX-License-Identifier: Apache-2.0 */
/* Shared by model.c (the reader) and model_sparse.c (the sparsity tables it keeps). */
#ifndef ARENAPROF_MODEL_PRIV_H
#define ARENAPROF_MODEL_PRIV_H

#include "arenaprof/plan/model.h"
#include "flatbuf.h"

/*
 * The sparse tensors of the subgraph whose tensors vector is tv, with their ledger lengths,
 * into sg->sparse. 0, or r->rc with r->err.
 */
int model_read_sparse(struct rd *r, const struct vec *tv, struct ap_model_subgraph *sg);

#endif
