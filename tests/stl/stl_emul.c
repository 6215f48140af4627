// SPDX-License-Identifier: Apache-2.0
/* The same protocol as stl_truth.cc, answered by src/plan/litert/stl_order.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/stl_order.h"

static int32_t keys[100000];

static int less_key(int32_t a, int32_t b, const void *ctx)
{
	(void)ctx;
	return keys[a] < keys[b];
}

int main(void)
{
	static char line[1 << 20];
	static int32_t v[100000], out[100000];

	while (fgets(line, sizeof(line), stdin)) {
		char *p = line, *end;
		int set = !strncmp(line, "set", 3);
		size_t n = 0;

		p += set ? 3 : 4;
		for (long x = strtol(p, &end, 10); end != p; x = strtol(p, &end, 10)) {
			v[n++] = (int32_t)x;
			p = end;
		}
		if (set) {
			struct ap_uset s;

			ap_uset_init(&s);
			for (size_t i = 0; i < n; i++)
				ap_uset_insert(&s, v[i]);
			n = ap_uset_iterate(&s, out);
			ap_uset_free(&s);
		} else {
			memcpy(keys, v, n * sizeof(*v));
			for (size_t i = 0; i < n; i++)
				out[i] = (int32_t)i;
			ap_std_sort(out, n, less_key, NULL);
		}
		for (size_t i = 0; i < n; i++)
			printf("%d ", out[i]);
		printf("\n");
	}
	return 0;
}
