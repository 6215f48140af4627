// SPDX-License-Identifier: Apache-2.0
/*
 * memplan: a partition's workspace as XNNPACK's memory planner sizes it
 * (docs/xnnpack-delegate.md, "The workspace"): each workspace value not reusing another's
 * bytes is a record of its size rounded up to XNN_EXTRA_BYTES and then to the allocation
 * alignment; the records, largest first (glibc's qsort is a stable merge sort here: ties
 * stay in XNNPACK's value id order), each take the smallest gap between the records placed
 * before whose lifetimes overlap its own, else the end (a dynamically quantized value's
 * record holds its quantization params and row sums too); the arena is the highest end,
 * and the block holds 2 * XNN_EXTRA_BYTES more for the sparse kernels' reads.
 */
#include <errno.h>
#include <stdlib.h>

#include "xnn_priv.h"

#define XNN_EXTRA_BYTES 16
#define XNN_EXTRA_QPARAMS 15	/* XNN_EXTRA_QUANTIZATION_PARAMS */

struct rec {
	uint64_t size, off;
	int32_t first, last;
	uint32_t id;		/* into the partition's values */
	uint64_t order;		/* XNNPACK's value id order (xnn_order) */
};

struct blk {
	uint64_t start, end;
};

static uint64_t round_po2(uint64_t v, uint64_t a)
{
	return (v + a - 1) & ~(a - 1);
}

/* xnn_get_rounded_size */
static uint64_t rounded(uint64_t v, uint64_t align)
{
	return round_po2(round_po2(v, XNN_EXTRA_BYTES), align);
}

static int by_size(const void *a, const void *b)
{
	const struct rec *x = *(const struct rec *const *)a, *y = *(const struct rec *const *)b;

	if (x->size != y->size)
		return x->size < y->size ? 1 : -1;
	return (x->order > y->order) - (x->order < y->order);	/* a stable sort's */
}

/*
 * Where XNNPACK's value ids put a value, which the stable size sort keeps among records of
 * one size. The delegate defines a value per TFLite tensor in tensor index order first
 * (Subgraph::Create), then the values its nodes make as it defines them; an operator's
 * own workspace is a record past every value (num_values + its node). The partition's
 * values are in the order subgraph.c made them, a node's new values among the tensors'.
 */
static uint64_t xnn_order(const struct xnn_value *x, uint32_t v)
{
	if (x->tfl_tensor >= 0)
		return (uint64_t)x->tfl_tensor;
	return (x->tfl_tensor == -2 ? 2ULL << 32 : 1ULL << 32) + v;
}

static int by_start(const void *a, const void *b)
{
	const struct blk *x = a, *y = b;

	return (x->start > y->start) - (x->start < y->start);
}

/* find_value_alloc_offset: the smallest gap that fits among the live blocks. */
static uint64_t gap_for(struct blk *b, size_t n, uint64_t size)
{
	size_t k = 1;
	uint64_t best = UINT64_MAX, at;

	if (!n)
		return 0;
	qsort(b, n, sizeof(*b), by_start);
	for (size_t i = 1; i < n; i++) {
		if (b[i].start > b[k - 1].end) {
			b[k++] = b[i];
			continue;
		}
		if (b[i].end > b[k - 1].end)
			b[k - 1].end = b[i].end;
	}
	at = b[k - 1].end;
	if (b[0].start >= size) {
		best = b[0].start;
		at = 0;
	}
	for (size_t i = 0; i + 1 < k; i++) {
		uint64_t g = b[i + 1].start - b[i].end;

		if (g >= size && g < best) {
			best = g;
			at = b[i].end;
		}
	}
	return at;
}

static bool overlap(const struct rec *a, const struct rec *b)
{
	return a->first < b->first ? a->last >= b->first : b->last >= a->first;
}

int xnn_memplan(struct xnn_partition *p, const struct ap_xnn_cpu *cpu)
{
	uint64_t align = ap_arch_resolve(cpu->arch) == AP_ARCH_X86_64 ? 64 : 16, arena = 0;
	struct rec *r = malloc((p->n_values + 1) * sizeof(*r));
	struct rec **s = malloc((p->n_values + 1) * sizeof(*s));
	struct blk *b = malloc((p->n_values + 1) * sizeof(*b));
	size_t n = 0;

	if (!r || !s || !b) {
		free(r), free(s), free(b);
		return -ENOMEM;
	}
	for (uint32_t v = 0; v < p->n_values; v++) {
		struct xnn_value *x = &p->values[v];

		if (x->alloc != XNN_A_WORKSPACE || x->reuses >= 0 || x->first < 0 || !x->bytes)
			continue;
		r[n] = (struct rec){ .size = rounded(x->bytes, align), .first = x->first,
				     .last = x->last, .id = v, .order = xnn_order(x, v) };
		/* a dynamically quantized value carries its rows' quantization params
		 * (8 bytes a row) and row sums (4), each padded by 15 entries */
		if (x->qd8_rows)
			r[n].size += rounded(x->qd8_rows * 8 + XNN_EXTRA_QPARAMS * 8, align) +
				     rounded(x->qd8_rows * 4 + XNN_EXTRA_QPARAMS * 4, align);
		s[n] = &r[n];
		n++;
	}
	qsort(s, n, sizeof(*s), by_size);
	for (size_t i = 0; i < n; i++) {
		size_t live = 0;

		for (size_t j = 0; j < i; j++)
			if (overlap(s[i], s[j]))
				b[live++] = (struct blk){ s[j]->off, s[j]->off + s[j]->size };
		s[i]->off = gap_for(b, live, s[i]->size);
		if (arena < s[i]->off + s[i]->size)
			arena = s[i]->off + s[i]->size;
	}
	for (size_t i = 0; i < n; i++)
		p->values[r[i].id].offset = r[i].off;
	for (uint32_t v = 0; v < p->n_values; v++) {
		int32_t root = p->values[v].reuses;

		if (root >= 0)
			p->values[v].offset = p->values[root].offset;
	}
	p->workspace_bytes = arena ? arena + 2 * XNN_EXTRA_BYTES : 0;
	free(r), free(s), free(b);
	return 0;
}
