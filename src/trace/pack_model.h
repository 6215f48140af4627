/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pack_model: what the packer (pack.c) and the unpacker (unpack.c) both keep of the
 * entries before, and predict from it: the entry tags, the run and time guesses, the
 * recent vmas and allocations. Both sides must move it the same way, so it lives here
 * once. Private to src/trace/.
 */
#ifndef ARENAPROF_TRACE_PACK_MODEL_H
#define ARENAPROF_TRACE_PACK_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "arenaprof/event.h"
#include "pack.h"

#define BASE_LOOKAHEAD 64	/* base mappings a mapping's file is looked for among */

enum {
	KIND_MASK = 0x07,
	KIND_ESCAPE = 0,	/* format 4: any other record, as it is */
	KIND_FAULT = 1,
	KIND_ALLOC = 6,		/* format 4 */
	KIND_MAP = 7,		/* format 4 */
	HAS_TID = 0x08,		/* tid follows */
	HAS_RUN_OP = 0x10,	/* run and op deltas follow */
	HAS_IP = 0x20,		/* faults: ip delta */
	HAS_VMA = 0x40,		/* faults: vm_start delta, vm_end - vm_start, vm_flags */
	HAS_FLAGS = 0x80,	/* faults: flags */
	FAULT_ONLY = HAS_IP | HAS_VMA | HAS_FLAGS,
	/* allocations: HAS_TID, then */
	A_HAS_RUN = 0x10,	/* run delta */
	A_HAS_CALLER = 0x20,	/* caller delta */
	A_HAS_ALIGN = 0x40,	/* align (else 0); a free: the allocation it frees by number */
	A_HAS_FN = 0x80,	/* fn */
	/* mappings */
	M_COPY = 0x08,		/* a run copied from the base snapshot */
	M_SAME_FILE = 0x10,	/* dev and inode as the mapping entry before */
	M_PATH_REF = 0x20,	/* the path by number, else inline */
	M_SAME_SNAP = 0x40,	/* time and snapshot as the mapping entry before */
	M_BASE_FILE = 0x80,	/* path, dev and inode as a mapping of the base, by number */
	M_BITS = M_COPY | M_SAME_FILE | M_PATH_REF | M_SAME_SNAP | M_BASE_FILE,
	/* escapes */
	E_DELTA = 0x08,		/* a sample or drops: fields changed since the last one */
};

static inline bool known_type(uint32_t type)
{
	return type > AP_REC_HEADER && type < AP_REC_PACKED;
}

/* A signed difference as an unsigned varint: small either way round, small bytes. */
static inline uint64_t zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static inline uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

/* The run an entry is predicted to have: format 4 expects a run marker to begin the next. */
static inline int64_t run_guess(const struct ap_trace_pack *s, uint32_t type)
{
	return s->version >= 4 && type == AP_REC_RUN_BEGIN ? (int64_t)s->run + 1 : s->run;
}

/*
 * Where format 4 expects a run marker's time: a run as long as the last one, begun as long
 * after the last run's end as that one was. Inference runs repeat: their marker times are
 * then a few us off, a byte or two less than the time since the entry before.
 */
static inline uint64_t ts_guess(const struct ap_trace_pack *s, uint32_t type)
{
	if (s->version < 4 || (type != AP_REC_RUN_BEGIN && type != AP_REC_RUN_END))
		return s->ts;
	if (type == AP_REC_RUN_BEGIN)
		return s->re_ts ? s->re_ts + s->run_gap : s->ts;
	return s->rb_ts ? s->rb_ts + s->run_len : s->ts;
}

static inline void ts_seen(struct ap_trace_pack *s, uint32_t type, uint64_t ts)
{
	if (type == AP_REC_RUN_BEGIN) {
		s->run_gap = s->re_ts ? ts - s->re_ts : 0;
		s->rb_ts = ts;
	} else if (type == AP_REC_RUN_END) {
		s->run_len = s->rb_ts ? ts - s->rb_ts : 0;
		s->re_ts = ts;
	}
	s->ts = ts;
}

/* Makes vma i the current one, the others moved down. */
static inline void vma_front(struct ap_trace_pack *s, uint32_t i)
{
	struct ap_pack_vma v = s->vma[i];

	memmove(&s->vma[1], &s->vma[0], i * sizeof(v));
	s->vma[0] = v;
}

/* A new current vma, the least recent one dropped when they are all in use. */
static inline void vma_push(struct ap_trace_pack *s, uint64_t start, uint64_t end, uint64_t flags)
{
	struct ap_pack_vma v = { start, end, flags, start, s->vma[0].ip };

	if (s->n_vma < AP_PACK_VMAS)
		s->n_vma++;
	memmove(&s->vma[1], &s->vma[0], (s->n_vma - 1) * sizeof(v));
	s->vma[0] = v;
}

static inline void blk_push(struct ap_trace_pack *s, uint64_t ptr, uint64_t size)
{
	s->blk_ptr[s->blk_next] = ptr;
	s->blk_size[s->blk_next] = size;
	s->blk_next = (s->blk_next + 1) % AP_PACK_BLOCKS;
	if (s->n_blk < AP_PACK_BLOCKS)
		s->n_blk++;
}

/* A sample or drops record: u64 fields, the first the time. */
static inline uint64_t *delta_prev(struct ap_trace_pack *s, uint32_t type, size_t *fields)
{
	if (type == AP_REC_SAMPLE) {
		*fields = sizeof(s->smp) / 8;
		return &s->smp.ts_ns;
	}
	*fields = sizeof(s->drp) / 8;
	return &s->drp.ts_ns;
}

#endif
