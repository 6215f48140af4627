/* SPDX-License-Identifier: Apache-2.0 */
/* pageset: an open-addressing hash set of 64-bit keys (page numbers), for first touches. */
#ifndef ARENAPROF_PAGESET_H
#define ARENAPROF_PAGESET_H

#include <stddef.h>
#include <stdint.h>

struct ap_pageset {
	uint64_t *slot;		/* key + 1; 0 = empty */
	size_t cap, n;
};

void ap_pageset_init(struct ap_pageset *s);
/* 1 when key was added, 0 when it was already there, -1 on allocation failure. */
int ap_pageset_add(struct ap_pageset *s, uint64_t key);
void ap_pageset_free(struct ap_pageset *s);

#endif
