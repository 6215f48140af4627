// SPDX-License-Identifier: Apache-2.0
/* diff_ops: two plans' operators paired by opcode and output name (diff_ops.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/diff_ops.h"
#include "arenaprof/util/order.h"

static const char *str(const char *s)
{
	return s ? s : "";
}

static int key_cmp(const struct ap_pop *x, const struct ap_pop *y)
{
	int c = strcmp(str(x->opname), str(y->opname));

	return c ? c : strcmp(str(x->out_name), str(y->out_name));
}

/* ap_order_index's comparison: by key, then by execution order (the k-th of a key). */
static int by_key(const void *x, const void *y, void *ctx)
{
	const struct ap_tplan *p = ctx;
	uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
	int c = key_cmp(&p->ops[a], &p->ops[b]);

	return c ? c : AP_CMP(a, b);
}

static int by_new(const void *x, const void *y)
{
	return AP_CMP(((const struct ap_diff_pair *)x)->n, ((const struct ap_diff_pair *)y)->n);
}

/* Both sorted by key: the pairs, and the operators of a key only one side has. */
static void merge(const struct ap_tplan *o, const uint32_t *io, const struct ap_tplan *n,
		  const uint32_t *in, struct ap_diff_ops *d)
{
	uint32_t i = 0, j = 0;

	while (i < o->n_ops && j < n->n_ops) {
		int c = key_cmp(&o->ops[io[i]], &n->ops[in[j]]);

		if (c < 0) {
			d->old_only++;
			i++;
		} else if (c > 0) {
			d->new_only++;
			j++;
		} else {
			d->pairs[d->matched++] = (struct ap_diff_pair){ io[i++], in[j++] };
		}
	}
	d->old_only += o->n_ops - i;
	d->new_only += n->n_ops - j;
}

int ap_diff_ops_match(const struct ap_tplan *o, const struct ap_tplan *n, struct ap_diff_ops *d)
{
	uint32_t *io = ap_order_index(o->n_ops, by_key, (void *)o);
	uint32_t *in = ap_order_index(n->n_ops, by_key, (void *)n);
	uint32_t most = o->n_ops < n->n_ops ? o->n_ops : n->n_ops;

	memset(d, 0, sizeof(*d));
	d->pairs = malloc(((size_t)most + 1) * sizeof(*d->pairs));
	if (!io || !in || !d->pairs) {
		free(io);
		free(in);
		ap_diff_ops_free(d);
		return -ENOMEM;
	}
	merge(o, io, n, in, d);
	free(io);
	free(in);
	qsort(d->pairs, d->matched, sizeof(*d->pairs), by_new);
	d->same_graph = !d->old_only && !d->new_only;
	for (uint32_t k = 0; d->same_graph && k < d->matched; k++)
		d->same_graph = d->pairs[k].o == d->pairs[k].n;
	return 0;
}

void ap_diff_ops_free(struct ap_diff_ops *d)
{
	free(d->pairs);
	memset(d, 0, sizeof(*d));
}
