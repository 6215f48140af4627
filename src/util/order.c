// SPDX-License-Identifier: Apache-2.0
/* order: a sorted index (order.h). */
#include <stdlib.h>

#include "arenaprof/util/order.h"

uint32_t *ap_order_index(uint32_t n, ap_order_cmp cmp, void *ctx)
{
	uint32_t *v = malloc(((size_t)n + 1) * sizeof(*v));

	if (!v)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		v[i] = i;
	qsort_r(v, n, sizeof(*v), cmp, ctx);
	return v;
}
