/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pageset: a set of 64-bit keys (page numbers), for first touches. Keys added one at a
 * time go in an open-addressing hash set; a bitmap of keys (a RESIDENT record's pages)
 * is kept as a bitmap, a "run", so that its cost is the bitmap's size and not one hash
 * slot per set bit. A run holds keys hi << AP_PAGESET_RUN_BITS | i for i < its length:
 * callers whose keys are "mapping << 40 | page" put one run per mapping.
 */
#ifndef ARENAPROF_PAGESET_H
#define ARENAPROF_PAGESET_H

#include <stddef.h>
#include <stdint.h>

#define AP_PAGESET_RUN_BITS 40

struct ap_pageset_run {
	uint64_t hi;		/* keys hi << AP_PAGESET_RUN_BITS | i */
	uint64_t *words;	/* bit i of word i / 64; NULL: an empty slot */
	uint64_t nbits;
};

struct ap_pageset {
	uint64_t *slot;		/* key + 1; 0 = empty */
	size_t cap, n;
	struct ap_pageset_run *run;	/* open addressing on hi */
	size_t run_cap, n_run;
};

void ap_pageset_init(struct ap_pageset *s);
/* 1 when key was added, 0 when it was already there, -ENOMEM (-EINVAL: a key of
 * all ones). */
int ap_pageset_add(struct ap_pageset *s, uint64_t key);
/*
 * Adds the keys hi << AP_PAGESET_RUN_BITS | i for every bit i set in bits (bit i of byte
 * i / 8, i < nbits <= 2^AP_PAGESET_RUN_BITS). The number of keys that were not there
 * yet, -EINVAL (nbits too many) or -ENOMEM. Costs O(nbits / 8) memory and O(nbits / 64 +
 * min(hash entries, bits set)) time.
 */
int64_t ap_pageset_add_bits(struct ap_pageset *s, uint64_t hi, const uint8_t *bits,
			    uint64_t nbits);
/* The run of hi (its words and length in bits), or NULL: to visit the keys it holds. */
const uint64_t *ap_pageset_run(const struct ap_pageset *s, uint64_t hi, uint64_t *nbits);
void ap_pageset_free(struct ap_pageset *s);

#endif
