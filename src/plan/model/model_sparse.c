// SPDX-License-Identifier: Apache-2.0
/*
 * model_sparse: the SparsityParameters the model reader keeps (model.h, struct
 * ap_model_sparse): per sparse tensor, the length of the ledger a hybrid FULLY_CONNECTED
 * or LSTM builds from its CSR dimension. The rest of the table is not read.
 */
#include <stdint.h>

#include "arenaprof/plan/model.h"
#include "model_priv.h"

enum { TENSOR_SPARSITY = 6 };
enum { SPARSITY_DIM_METADATA = 2 };
enum { DIM_FORMAT = 0, DIM_SEGMENTS_TYPE = 2, DIM_SEGMENTS = 3, DIM_INDICES_TYPE = 4,
	DIM_INDICES = 5 };
enum { DIM_SPARSE_CSR = 1 };

/* Length of a SparseIndexVector union member (Int32, Uint16 or Uint8Vector's values);
 * -1 when absent or of another type, -2 on a read error. */
static int64_t index_vector_len(struct rd *r, const struct tbl *md, unsigned int type_id,
				unsigned int id)
{
	static const unsigned int elem[] = { 0, 4, 2, 1 };
	uint64_t type, at;
	struct tbl t;
	struct vec v;
	int rc;

	if (fb_scalar(r, md, type_id, 1, 0, "sparse index vector type", &type))
		return -2;
	if (!type || type > 3)
		return -1;
	rc = fb_field(r, md, id, 4, "sparse index vector", &at);
	if (rc <= 0)
		return rc < 0 ? -2 : -1;
	if (fb_table_at(r, at, &t, "sparse index vector table") ||
	    (rc = fb_vec_field(r, &t, 0, elem[type], "sparse index values", &v)) < 0)
		return -2;
	return rc ? (int64_t)v.n : -1;
}

/*
 * The ledger length of the sparse tensor at ref (struct ap_model_sparse): from its dim
 * 1's index vectors when that dim is CSR. r->rc on a read error.
 */
static int read_ledger(struct rd *r, uint64_t ref, struct ap_model_sparse *sp)
{
	int64_t segs, idx;
	struct tbl t, s, md;
	uint64_t at, format;
	struct vec v;

	sp->ledger = -1;
	if (fb_table_at(r, ref, &t, "table") ||
	    fb_field(r, &t, TENSOR_SPARSITY, 4, "sparsity", &at) <= 0 ||
	    fb_table_at(r, at, &s, "sparsity table") ||
	    fb_vec_field(r, &s, SPARSITY_DIM_METADATA, 4, "dim_metadata vector", &v) < 0)
		return r->rc;
	if (v.n < 2)
		return 0;
	if (fb_table_at(r, v.pos + 4, &md, "dim_metadata table") ||
	    fb_scalar(r, &md, DIM_FORMAT, 1, 0, "format", &format))
		return r->rc;
	if (format != DIM_SPARSE_CSR)
		return 0;
	segs = index_vector_len(r, &md, DIM_SEGMENTS_TYPE, DIM_SEGMENTS);
	idx = index_vector_len(r, &md, DIM_INDICES_TYPE, DIM_INDICES);
	if (segs == -2 || idx == -2)
		return r->rc;
	if (segs >= 0 && idx >= 0 && segs + idx - 1 <= INT32_MAX)
		sp->ledger = (int32_t)(segs + idx - 1);
	return 0;
}

/* The sparse tensors of the subgraph whose tensors vector is tv, with their ledgers. */
int model_read_sparse(struct rd *r, const struct vec *tv, struct ap_model_subgraph *sg)
{
	uint32_t i, n = 0;

	for (i = 0; i < sg->n_tensors; i++)
		n += sg->tensors[i].sparse;
	if (!n)
		return 0;
	sg->sparse = fb_ralloc(r, n, sizeof(*sg->sparse), "sparse tensors");
	if (!sg->sparse)
		return r->rc;
	for (i = 0; i < sg->n_tensors; i++) {
		struct ap_model_sparse *sp = &sg->sparse[sg->n_sparse];

		if (!sg->tensors[i].sparse)
			continue;
		r->idx = i;
		sp->tensor = i;
		if (read_ledger(r, tv->pos + 4 * (uint64_t)i, sp))
			return r->rc;
		sg->n_sparse++;
	}
	return 0;
}

int32_t ap_model_sparse_ledger(const struct ap_model_subgraph *sg, int32_t t)
{
	uint32_t lo = 0, hi = sg->n_sparse;

	if (t < 0)
		return -1;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (sg->sparse[mid].tensor == (uint32_t)t)
			return sg->sparse[mid].ledger;
		if (sg->sparse[mid].tensor < (uint32_t)t)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}
