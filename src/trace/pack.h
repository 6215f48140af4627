/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pack: the PACKED record of format 2 (man arenaprof-trace(5)), a block of faults and
 * markers each stored as what changed since the entry before it: varints of zigzagged
 * deltas, fields that did not change left out. Private to src/trace/: the writer packs,
 * the reader unpacks, and neither's callers see a PACKED record.
 */
#ifndef ARENAPROF_TRACE_PACK_H
#define ARENAPROF_TRACE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"

#define AP_PACK_BLOCK_MAX (64u << 10)	/* a block's payload, at most */
#define AP_PACK_ENTRY_MAX 96		/* one entry, at most (91 in fact) */

/* What an entry is a delta from: the entry before it in the block, or the start values. */
struct ap_trace_pack {
	uint64_t ts, addr, ip, vm_start, vm_end, vm_flags;
	uint32_t tid, flags;
	int32_t run, op;
};

/* The writer's open block. */
struct ap_trace_block {
	struct ap_trace_pack s;
	uint32_t len;			/* payload bytes so far; 0: no block open */
	uint8_t buf[AP_PACK_BLOCK_MAX];
};

/* The reader's block being unpacked: its entries are returned one by one. */
struct ap_trace_unpack {
	struct ap_trace_pack s;
	const uint8_t *p, *end;		/* the entries left, in the reader's buffer */
	uint64_t offset;		/* the block's file offset, for messages */
	uint32_t entries;		/* unpacked so far */
	union ap_payload u;		/* the entry returned */
	uint8_t nul;			/* the NUL after its payload */
};

/* The state at the start of every block: 0, and run and op -1. */
void ap_pack_reset(struct ap_trace_pack *s);
/* Whether a record goes into a block without a bit lost (a fault or a marker, whole). */
bool ap_pack_fits(uint32_t type, const void *payload, uint32_t len);
/* Appends the entry of a record ap_pack_fits took; out has AP_PACK_ENTRY_MAX bytes. */
size_t ap_pack_put(struct ap_trace_pack *s, uint32_t type, const void *payload, uint8_t *out);
/*
 * Decodes the entry at *p (before end) into u, in host order, sets its record type and
 * the struct's size and moves *p past it; -1 (*p unmoved) when they are not an entry.
 */
int ap_pack_get(struct ap_trace_pack *s, const uint8_t **p, const uint8_t *end,
		uint32_t *type, uint32_t *len, union ap_payload *u);

#endif
