// SPDX-License-Identifier: Apache-2.0
/* grow: a doubling array's room for one more (grow.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/grow.h"

int ap_grow(void *v, uint64_t *cap, uint64_t n, size_t elem, uint64_t first)
{
	uint64_t c;
	size_t bytes;
	void *p;

	if (n < *cap)
		return 0;
	c = *cap ? 2 * *cap : first;
	if (c <= *cap || __builtin_mul_overflow(c, elem, &bytes))
		return -ENOMEM;
	memcpy(&p, v, sizeof(p));
	p = realloc(p, bytes);
	if (!p)
		return -ENOMEM;
	memcpy(v, &p, sizeof(p));
	*cap = c;
	return 0;
}

int ap_grow32(void *v, uint32_t *cap, uint32_t n, size_t elem, uint32_t first)
{
	uint64_t c = *cap;
	int rc;

	if (n < *cap)
		return 0;
	if ((*cap ? 2 * c : first) > UINT32_MAX)
		return -ENOMEM;
	rc = ap_grow(v, &c, n, elem, first);
	if (rc)
		return rc;
	*cap = (uint32_t)c;
	return 0;
}
