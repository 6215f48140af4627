// SPDX-License-Identifier: Apache-2.0
/*
 * pack: PACKED entries (pack.h, man arenaprof-trace(5)). Written here rather than with
 * zlib's deflate: a fault storm is ~5 bytes a fault this way at a few ns an entry, and
 * each block stays a record of its own that salvage can skip to (docs/design.md).
 */
#include <string.h>

#include "pack.h"

enum {
	KIND_MASK = 0x07,
	HAS_TID = 0x08,		/* tid follows */
	HAS_RUN_OP = 0x10,	/* run and op deltas follow */
	HAS_IP = 0x20,		/* faults: ip delta */
	HAS_VMA = 0x40,		/* faults: vm_start delta, vm_end - vm_start, vm_flags */
	HAS_FLAGS = 0x80,	/* faults: flags */
	FAULT_ONLY = HAS_IP | HAS_VMA | HAS_FLAGS,
};

/* An entry's kind (its tag's low bits) by record type, and back. */
static const uint8_t kind_of[] = {
	[AP_REC_FAULT] = 1, [AP_REC_RUN_BEGIN] = 2, [AP_REC_RUN_END] = 3,
	[AP_REC_OP_BEGIN] = 4, [AP_REC_OP_END] = 5,
};
static const uint8_t type_of[] = {
	[1] = AP_REC_FAULT, [2] = AP_REC_RUN_BEGIN, [3] = AP_REC_RUN_END,
	[4] = AP_REC_OP_BEGIN, [5] = AP_REC_OP_END,
};

void ap_pack_reset(struct ap_trace_pack *s)
{
	memset(s, 0, sizeof(*s));
	s->run = -1;
	s->op = -1;
}

bool ap_pack_fits(uint32_t type, const void *payload, uint32_t len)
{
	const struct ap_rec_marker *m = payload;

	if (type == AP_REC_FAULT)
		return len == sizeof(struct ap_rec_fault);
	if (type < AP_REC_RUN_BEGIN || type > AP_REC_OP_END)
		return false;
	return len == sizeof(*m) && !m->pad;	/* a pad that is not 0 would be lost */
}

static size_t put_varint(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

/* A signed difference as an unsigned varint: small either way round, small bytes. */
static uint64_t zigzag(uint64_t delta)
{
	return (delta << 1) ^ (uint64_t)((int64_t)delta >> 63);
}

static uint64_t unzigzag(uint64_t z)
{
	return (z >> 1) ^ (0 - (z & 1));
}

size_t ap_pack_put(struct ap_trace_pack *s, uint32_t type, const void *payload, uint8_t *out)
{
	const struct ap_rec_fault *f = payload;
	const struct ap_rec_marker *m = payload;
	bool fault = type == AP_REC_FAULT;
	uint32_t tid = fault ? f->tid : m->tid;
	int32_t run = fault ? f->run : m->run, op = fault ? f->op : m->op;
	uint64_t ts = fault ? f->ts_ns : m->ts_ns;
	uint8_t tag = kind_of[type];
	size_t n = 1;

	if (tid != s->tid) {
		tag |= HAS_TID;
		n += put_varint(out + n, tid);
	}
	if (run != s->run || op != s->op) {
		tag |= HAS_RUN_OP;
		n += put_varint(out + n, zigzag((uint64_t)((int64_t)run - s->run)));
		n += put_varint(out + n, zigzag((uint64_t)((int64_t)op - s->op)));
	}
	if (fault && f->ip != s->ip) {
		tag |= HAS_IP;
		n += put_varint(out + n, zigzag(f->ip - s->ip));
	}
	if (fault && (f->vm_start != s->vm_start || f->vm_end != s->vm_end ||
		      f->vm_flags != s->vm_flags)) {
		tag |= HAS_VMA;
		n += put_varint(out + n, zigzag(f->vm_start - s->vm_start));
		n += put_varint(out + n, f->vm_end - f->vm_start);
		n += put_varint(out + n, f->vm_flags);
	}
	if (fault && f->flags != s->flags) {
		tag |= HAS_FLAGS;
		n += put_varint(out + n, f->flags);
	}
	n += put_varint(out + n, zigzag(ts - s->ts));
	if (fault) {
		n += put_varint(out + n, zigzag(f->addr - s->addr));
		s->addr = f->addr;
		s->ip = f->ip;
		s->vm_start = f->vm_start;
		s->vm_end = f->vm_end;
		s->vm_flags = f->vm_flags;
		s->flags = f->flags;
	}
	out[0] = tag;
	s->tid = tid;
	s->run = run;
	s->op = op;
	s->ts = ts;
	return n;
}

/* -1 past the end or past 64 bits */
static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (*p >= end)
			return -1;
		b = *(*p)++;
		if (shift == 63 && b > 1)
			return -1;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -1;
}

static int get_u32(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
	uint64_t x;

	if (get_varint(p, end, &x) || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/* prev plus a zigzagged delta, which must land in an s32 */
static int get_s32(const uint8_t **p, const uint8_t *end, int32_t prev, int32_t *v)
{
	uint64_t z;
	int64_t x;

	if (get_varint(p, end, &z))
		return -1;
	if (z >> 34)		/* no two s32 are further apart */
		return -1;
	x = (int64_t)prev + (int64_t)unzigzag(z);
	if (x < INT32_MIN || x > INT32_MAX)
		return -1;
	*v = (int32_t)x;
	return 0;
}

int ap_pack_get(struct ap_trace_pack *s, const uint8_t **at, const uint8_t *end,
		uint32_t *type, uint32_t *len, union ap_payload *u)
{
	const uint8_t *q = *at, **p = &q;	/* *at moves only past a whole entry */
	struct ap_trace_pack n = *s;
	uint64_t z, span;
	uint8_t tag, kind;

	if (*p >= end)
		return -1;
	tag = *(*p)++;
	kind = tag & KIND_MASK;
	if (kind < 1 || kind > 5 || (kind != 1 && (tag & FAULT_ONLY)))
		return -1;
	if ((tag & HAS_TID) && get_u32(p, end, &n.tid))
		return -1;
	if ((tag & HAS_RUN_OP) && (get_s32(p, end, s->run, &n.run) ||
				   get_s32(p, end, s->op, &n.op)))
		return -1;
	if (tag & HAS_IP) {
		if (get_varint(p, end, &z))
			return -1;
		n.ip = s->ip + unzigzag(z);
	}
	if (tag & HAS_VMA) {
		if (get_varint(p, end, &z) || get_varint(p, end, &span) ||
		    get_varint(p, end, &n.vm_flags))
			return -1;
		n.vm_start = s->vm_start + unzigzag(z);
		n.vm_end = n.vm_start + span;
	}
	if ((tag & HAS_FLAGS) && get_u32(p, end, &n.flags))
		return -1;
	if (get_varint(p, end, &z))
		return -1;
	n.ts = s->ts + unzigzag(z);
	if (kind == 1) {
		if (get_varint(p, end, &z))
			return -1;
		n.addr = s->addr + unzigzag(z);
	}
	*at = q;
	*s = n;
	*type = type_of[kind];
	memset(u, 0, sizeof(*u));
	if (kind == 1) {
		u->fault = (struct ap_rec_fault){
			.ts_ns = n.ts, .addr = n.addr, .ip = n.ip, .vm_start = n.vm_start,
			.vm_end = n.vm_end, .vm_flags = n.vm_flags, .tid = n.tid,
			.flags = n.flags, .run = n.run, .op = n.op,
		};
		*len = sizeof(u->fault);
	} else {
		u->marker = (struct ap_rec_marker){
			.ts_ns = n.ts, .tid = n.tid, .run = n.run, .op = n.op,
		};
		*len = sizeof(u->marker);
	}
	return 0;
}
