// SPDX-License-Identifier: Apache-2.0
/* grow: doubling from the first capacity, values kept, and sizes that would wrap refused. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>

#include "arenaprof/util/grow.h"
#include "test.h"

int main(void)
{
	uint32_t *v = NULL, cap = 0, n = 0;
	uint64_t big_cap = UINT64_MAX / 2 + 1;
	char *p = NULL;
	bool kept = true;

	for (uint32_t i = 0; i < 1000; i++) {
		if (ap_grow32(&v, &cap, n, sizeof(*v), 8)) {
			CHECK("grow32 to 1000 elements", 0, "failed at %u", i);
			break;
		}
		v[n++] = i * 3;
	}
	for (uint32_t i = 0; i < n; i++)
		kept &= v[i] == i * 3;
	CHECK("1000 elements kept in order", n == 1000 && kept, "n %u", n);
	CHECK_U64("capacity doubles from 8: 1024", cap, 1024);
	CHECK_EQ_I64("no growth while there is room", ap_grow32(&v, &cap, 1000, sizeof(*v), 8),
		     0);
	CHECK_U64("... capacity unchanged", cap, 1024);
	/* a capacity whose double wraps, or whose bytes overflow size_t: refused, unchanged */
	CHECK_EQ_I64("a doubled 64-bit capacity that wraps is refused",
		     ap_grow(&p, &big_cap, big_cap, 1, 16), -ENOMEM);
	CHECK("... the array and its capacity untouched", !p && big_cap == UINT64_MAX / 2 + 1,
	      "cap %" PRIu64, big_cap);
	cap = 0x80000000u;
	CHECK_EQ_I64("a 32-bit capacity past UINT32_MAX is refused",
		     ap_grow32(&p, &cap, cap, 1, 16), -ENOMEM);
	big_cap = 1ULL << 40;
	CHECK_EQ_I64("elements * bytes past size_t is refused",
		     ap_grow(&p, &big_cap, big_cap, 1ULL << 30, 16), -ENOMEM);
	free(v);
	TEST_EXIT();
}
