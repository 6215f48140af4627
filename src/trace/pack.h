/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pack: the PACKED record (man arenaprof-trace(5)), a block of records each stored as
 * what changed since the entry before it: varints of zigzagged deltas, fields that did
 * not change left out. Format 2 packs faults and markers; format 4 packs every record
 * type but the header (allocations delta-coded, mappings as runs copied from the
 * snapshot before, the rest as they are) so that blocks are no longer cut short.
 * Private to src/trace/: the writer packs, the reader unpacks, and neither's callers see
 * a PACKED record.
 */
#ifndef ARENAPROF_TRACE_PACK_H
#define ARENAPROF_TRACE_PACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "layout.h"

#define AP_PACK_BLOCK_MAX (64u << 10)	/* a block's payload, at most */
#define AP_PACK_ENTRY_MAX 96		/* a fault, marker or allocation entry, at most */
#define AP_PACK_TAIL_MAX 4096		/* format 4: larger records are not packed */
#define AP_PACK_PATHS 256		/* paths a block names by number */
#define AP_MAP_SNAP_MAX (1u << 20)	/* mappings in one snapshot, at most */
/*
 * and bytes: an entry of a few bytes may name a path of 4 KiB, so a hostile trace could
 * otherwise make a reader keep far more than it holds
 */
#define AP_MAP_SNAP_BYTES (16u << 20)
/*
 * Format 4: a block's first byte says whether it starts from the start values (a key
 * block) or from where the block before it ended; a key block at least every this many
 * bytes bounds what one damaged block takes with it.
 */
#define AP_PACK_KEY_EVERY (32u << 10)
#define AP_PACK_Z_MAX (32u << 10)	/* blocks cut short by a flush: deflated if shorter */
enum { AP_PACK_KEY = 0, AP_PACK_CONT = 1, AP_PACK_DEFLATED = 2 };	/* the first byte */

#define AP_PACK_VMAS 8		/* format 4: the vmas faults were last in, most recent first */
#define AP_PACK_BLOCKS 16	/* format 4: the allocations a free may name */

/* A vma of the recent ones, with the address and ip of the last fault in it. */
struct ap_pack_vma {
	uint64_t start, end, flags, addr, ip;
};

/* What an entry is a delta from: the entry before it in the block, or the start values. */
struct ap_trace_pack {
	uint64_t ts, addr, ip, vm_start, vm_end, vm_flags;
	uint32_t tid, flags;
	int32_t run, op;
	uint32_t version;		/* the trace's format: 2 or 3 */
	/* format 4: allocations, and the mapping entry before */
	uint64_t aptr, acaller, m_end, m_inode;
	uint32_t afn, snap, m_major, m_minor;
	struct ap_rec_sample smp;	/* the last sample and drops: theirs are deltas */
	struct ap_rec_drops drp;
	struct ap_pack_vma vma[AP_PACK_VMAS];	/* faults: [0] the current one */
	uint32_t n_vma;
	uint64_t blk_ptr[AP_PACK_BLOCKS], blk_size[AP_PACK_BLOCKS]; /* the last allocations */
	uint32_t n_blk, blk_next;	/* how many of them; where the next goes */
	/* the last run's begin and end, its length and the gap before it: run markers' times */
	uint64_t rb_ts, re_ts, run_len, run_gap;
};

/* One mapping of a snapshot, kept to copy from or into. */
struct ap_map_ent {
	struct ap_rec_mapping m;
	char *path;
};

struct ap_map_snap {
	uint32_t snap;
	bool bad;			/* not every mapping of it is here: not copied from */
	size_t n, cap, bytes;
	struct ap_map_ent *e;
};

/*
 * The mapping snapshots a format-4 writer or reader has seen: the one being written or
 * read (cur) and the one before it (base), which entries of cur may copy runs from. They
 * outlive blocks: a copy names its base snapshot and that snapshot's size, and a reader
 * that lacks it (lost to damage) refuses the copy.
 */
struct ap_map_state {
	struct ap_map_snap base, cur;
	bool started;
	size_t cursor;			/* in base: copies of cur go forward only */
};

/* A run of mappings copied from the base, pending in the writer or being returned. */
struct ap_map_run {
	uint64_t ts;
	uint32_t snap, base_snap;
	size_t base_n, first, count;
	struct ap_rec_mapping last;	/* the last mapping copied */
};

/*
 * The reader's mapping snapshots (map_rope.c): the same two as struct ap_map_state, but
 * each a list of segments of one shared pool of mappings, so that a copy of count
 * mappings costs its segments, not count strdups: a trace of 50,000 copies of a
 * 100,000-mapping snapshot is read in the time of its records.
 */
struct ap_rope_ent {
	struct ap_rec_mapping m;
	char *path;
	uint64_t before;		/* bytes (as ap_map_snap counts them) of the pool before */
};

struct ap_rope_seg {
	size_t at;			/* its first pool entry */
	size_t end;			/* the snapshot's entries up to and with this segment */
};

struct ap_rope_snap {
	uint32_t snap;
	bool bad;			/* as ap_map_snap's */
	size_t n, bytes;
	struct ap_rope_seg *seg;
	size_t n_seg, cap_seg;
};

struct ap_rope_state {
	struct ap_rope_snap base, cur;
	bool started;
	size_t cursor;			/* in base: copies of cur go forward only */
	struct ap_rope_ent *pool;	/* what base and cur name, and entries neither does */
	size_t pool_n, pool_cap;
	uint64_t pool_bytes;
};

/* The writer's open block. */
struct ap_trace_block {
	struct ap_trace_pack s;
	bool open;			/* a block is open (it may hold only a pending run) */
	bool chain;			/* the next block may continue this one's state */
	uint32_t len;			/* payload bytes so far */
	uint32_t since_key;		/* payload bytes since the last key block */
	struct ap_map_state maps;	/* outlives the block */
	struct ap_map_run run;		/* count 0: none pending */
	const char *paths[AP_PACK_PATHS]; /* the block's numbered paths, in buf */
	uint32_t n_paths;
	uint8_t buf[AP_PACK_BLOCK_MAX];
	uint8_t z[AP_PACK_Z_MAX];	/* the block deflated */
};

/* The reader's block being unpacked: its entries are returned one by one. */
struct ap_trace_unpack {
	struct ap_trace_pack s;
	const uint8_t *p, *end;		/* the entries left, in the reader's buffer */
	uint64_t offset;		/* the block's file offset, for messages */
	uint32_t entries;		/* unpacked so far */
	bool chain;			/* every block since the last key read: s is theirs */
	bool refused;			/* this block cannot be read (see ap_pack_begin) */
	struct ap_rope_state maps;	/* outlives the block */
	struct ap_map_run run;		/* a copy being returned: count left */
	bool fold_copies;		/* a copy is returned as its first mapping alone */
	const char *paths[AP_PACK_PATHS];
	uint32_t n_paths;
	uint8_t z[AP_PACK_BLOCK_MAX];	/* a deflated block's entries */
	uint8_t *x;			/* a mapping or escaped record, and a NUL */
	size_t x_cap;
	union ap_payload u;		/* the entry returned */
	uint8_t nul;			/* the NUL after its payload */
};

/* The state at the start of a key block (every block in format 2): 0, run and op -1. */
void ap_pack_reset(struct ap_trace_pack *s, uint32_t version);
/*
 * Starts unpacking a PACKED payload of a trace of this version; -EINVAL (u->refused) when
 * it is not one: empty, or a continuation of a block this reader did not read.
 */
int ap_pack_begin(struct ap_trace_unpack *u, const uint8_t *payload, uint32_t len,
		  uint32_t version);
/*
 * Whether a record goes into a block without a bit lost: in format 2 a fault or a marker,
 * whole; in format 4 also any other known type but the header, up to AP_PACK_TAIL_MAX.
 */
bool ap_pack_fits(uint32_t version, uint32_t type, const void *payload, uint32_t len,
		  size_t tail_len);
/* The most bytes ap_pack_put may append for such a record (a pending run included). */
size_t ap_pack_bound(uint32_t len, size_t tail_len);
/*
 * Appends the entry of a record ap_pack_fits took to b->buf (a mapping may only extend
 * the pending run, appending nothing); returns the bytes appended.
 */
size_t ap_pack_put(struct ap_trace_block *b, uint32_t type, const void *payload,
		   uint32_t len, const void *tail, size_t tail_len);
/* Appends the pending run of copied mappings, if any; returns the bytes appended. */
size_t ap_pack_end_run(struct ap_trace_block *b);
/* Empties the block's path table (at the start of a block). */
void ap_pack_clear_paths(struct ap_trace_block *b);
/*
 * Decodes the next entry (or the next mapping of a copy being returned) of u into a record
 * (type, payload in host order, len); -EINVAL when the bytes are not an entry, or copy
 * from a snapshot this reader does not hold; -ENOMEM.
 */
int ap_pack_get(struct ap_trace_unpack *u, uint32_t *type, uint32_t *len,
		const uint8_t **payload);
/* Whether u has an entry left (bytes, or mappings of a copy). */
bool ap_pack_more(const struct ap_trace_unpack *u);

/*
 * Closes the block: its first byte and entries (b->buf, b->len) deflated into b->z when
 * that is shorter; *out the payload to write. Returns its length.
 */
uint32_t ap_pack_finish(struct ap_trace_block *b, const uint8_t **out);

/* pack_z.c: raw deflate of a small block (0: it does not fit in cap) and its inverse */
size_t ap_pack_deflate(const uint8_t *in, size_t n, uint8_t *out, size_t cap);
/* -EINVAL unless in is exactly a raw deflate stream of exactly want bytes; -ENOMEM */
int ap_pack_inflate(const uint8_t *in, size_t n, uint8_t *out, size_t want);

/* pack_map.c: the mapping snapshots */
/* Starts snapshot snap (its base the one before) unless it is the current one. */
void ap_map_begin(struct ap_map_state *st, uint32_t snap);
/*
 * Adds a mapping to st->cur, starting a new snapshot when its number changes; -ENOSPC if
 * full, -ENOMEM (the snapshot is bad then).
 */
int ap_map_add(struct ap_map_state *st, const struct ap_rec_mapping *m, const char *path);
/* Whether two mappings are the same but for their time and snapshot number. */
bool ap_map_same(const struct ap_map_ent *e, const struct ap_rec_mapping *m, const char *path);
void ap_map_state_free(struct ap_map_state *st);

/* map_rope.c: the reader's snapshots, as pack_map.c's but for copies */
void ap_rope_begin(struct ap_rope_state *st, uint32_t snap);
/* As ap_map_add: -ENOSPC when st->cur is full (then bad), -ENOMEM. */
int ap_rope_add(struct ap_rope_state *st, const struct ap_rec_mapping *m, const char *path);
/* Appends base mappings [first, first + count) (in range) to cur; -1 as ap_rope_add. */
int ap_rope_copy(struct ap_rope_state *st, size_t first, size_t count);
/* The base snapshot's mapping i (< st->base.n). */
const struct ap_rope_ent *ap_rope_base_at(const struct ap_rope_state *st, size_t i);
void ap_rope_free(struct ap_rope_state *st);

#endif
