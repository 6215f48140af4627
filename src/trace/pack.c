// SPDX-License-Identifier: Apache-2.0
/*
 * pack: PACKED entries (pack.h, man arenaprof-trace(5)). Written here rather than left
 * to zlib's deflate: a fault storm is ~5 bytes a fault this way at a few ns an entry
 * (deflate of the raw records would be far slower to write and read), and each block
 * stays a record of its own that salvage can skip to (docs/design.md). Blocks cut short
 * by a flush are deflated on top (pack_z.c).
 */
#include <stdlib.h>
#include <string.h>

#include "arenaprof/event.h"
#include "pack.h"

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

/* An entry's kind (its tag's low bits) by record type, and back. */
static const uint8_t kind_of[] = {
	[AP_REC_FAULT] = 1, [AP_REC_RUN_BEGIN] = 2, [AP_REC_RUN_END] = 3,
	[AP_REC_OP_BEGIN] = 4, [AP_REC_OP_END] = 5,
};
static const uint8_t type_of[] = {
	[1] = AP_REC_FAULT, [2] = AP_REC_RUN_BEGIN, [3] = AP_REC_RUN_END,
	[4] = AP_REC_OP_BEGIN, [5] = AP_REC_OP_END,
};

void ap_pack_reset(struct ap_trace_pack *s, uint32_t version)
{
	memset(s, 0, sizeof(*s));
	s->run = -1;
	s->op = -1;
	s->version = version;
	s->n_vma = 1;		/* the vma 0-0, flags 0: unknown */
}

static bool known_type(uint32_t type)
{
	return type > AP_REC_HEADER && type < AP_REC_PACKED;
}

bool ap_pack_fits(uint32_t version, uint32_t type, const void *payload, uint32_t len,
		  size_t tail_len)
{
	const struct ap_rec_marker *m = payload;

	if (version >= 4)
		return known_type(type) && len + tail_len <= AP_PACK_TAIL_MAX;
	if (tail_len)
		return false;
	if (type == AP_REC_FAULT)
		return len == sizeof(struct ap_rec_fault);
	if (type < AP_REC_RUN_BEGIN || type > AP_REC_OP_END)
		return false;
	return len == sizeof(*m) && !m->pad;	/* a pad that is not 0 would be lost */
}

size_t ap_pack_bound(uint32_t len, size_t tail_len)
{
	/* an escape: tag, two varints and the bytes; then a pending run ended before it */
	size_t n = 1 + 2 * 10 + len + tail_len + 1 + 6 * 10;

	return n > AP_PACK_ENTRY_MAX + 1 + 6 * 10 ? n : AP_PACK_ENTRY_MAX + 1 + 6 * 10;
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

/* The run an entry is predicted to have: format 4 expects a run marker to begin the next. */
static int64_t run_guess(const struct ap_trace_pack *s, uint32_t type)
{
	return s->version >= 4 && type == AP_REC_RUN_BEGIN ? (int64_t)s->run + 1 : s->run;
}

/*
 * Where format 4 expects a run marker's time: a run as long as the last one, begun as long
 * after the last run's end as that one was. Inference runs repeat: their marker times are
 * then a few us off, a byte or two less than the time since the entry before.
 */
static uint64_t ts_guess(const struct ap_trace_pack *s, uint32_t type)
{
	if (s->version < 4 || (type != AP_REC_RUN_BEGIN && type != AP_REC_RUN_END))
		return s->ts;
	if (type == AP_REC_RUN_BEGIN)
		return s->re_ts ? s->re_ts + s->run_gap : s->ts;
	return s->rb_ts ? s->rb_ts + s->run_len : s->ts;
}

static void ts_seen(struct ap_trace_pack *s, uint32_t type, uint64_t ts)
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

static size_t put_fault_marker(struct ap_trace_pack *s, uint32_t type, const void *payload,
			       uint8_t *out)
{
	const struct ap_rec_fault *f = payload;
	const struct ap_rec_marker *m = payload;
	bool fault = type == AP_REC_FAULT;
	uint32_t tid = fault ? f->tid : m->tid;
	int32_t run = fault ? f->run : m->run, op = fault ? f->op : m->op;
	int64_t guess = run_guess(s, type);
	uint64_t ts = fault ? f->ts_ns : m->ts_ns;
	uint8_t tag = kind_of[type];
	size_t n = 1;

	if (tid != s->tid) {
		tag |= HAS_TID;
		n += put_varint(out + n, tid);
	}
	if (run != guess || op != s->op) {
		tag |= HAS_RUN_OP;
		n += put_varint(out + n, zigzag((uint64_t)((int64_t)run - guess)));
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
	n += put_varint(out + n, zigzag(ts - ts_guess(s, type)));
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
	ts_seen(s, type, ts);
	return n;
}

/* Makes vma i the current one, the others moved down. */
static void vma_front(struct ap_trace_pack *s, uint32_t i)
{
	struct ap_pack_vma v = s->vma[i];

	memmove(&s->vma[1], &s->vma[0], i * sizeof(v));
	s->vma[0] = v;
}

/* A new current vma, the least recent one dropped when they are all in use. */
static void vma_push(struct ap_trace_pack *s, uint64_t start, uint64_t end, uint64_t flags)
{
	struct ap_pack_vma v = { start, end, flags, start, s->vma[0].ip };

	if (s->n_vma < AP_PACK_VMAS)
		s->n_vma++;
	memmove(&s->vma[1], &s->vma[0], (s->n_vma - 1) * sizeof(v));
	s->vma[0] = v;
}

/*
 * A fault of format 4: its vma one of the last few (by number, 1 a byte) or a new one,
 * and its address and ip deltas from the last fault in that vma, not from the last fault:
 * LiteRT's faults hop between a handful of vmas.
 */
static size_t put_fault4(struct ap_trace_pack *s, const struct ap_rec_fault *f, uint8_t *out)
{
	uint8_t tag = KIND_FAULT;
	size_t n = 1;
	uint32_t i;

	if (f->tid != s->tid) {
		tag |= HAS_TID;
		n += put_varint(out + n, f->tid);
	}
	if (f->run != s->run || f->op != s->op) {
		tag |= HAS_RUN_OP;
		n += put_varint(out + n, zigzag((uint64_t)((int64_t)f->run - s->run)));
		n += put_varint(out + n, zigzag((uint64_t)((int64_t)f->op - s->op)));
	}
	for (i = 0; i < s->n_vma; i++) {
		const struct ap_pack_vma *v = &s->vma[i];

		if (v->start == f->vm_start && v->end == f->vm_end && v->flags == f->vm_flags)
			break;
	}
	if (i) {
		tag |= HAS_VMA;
		if (i < s->n_vma) {
			n += put_varint(out + n, i);
			vma_front(s, i);
		} else {
			n += put_varint(out + n, 0);
			n += put_varint(out + n, zigzag(f->vm_start - s->vma[0].start));
			n += put_varint(out + n, f->vm_end - f->vm_start);
			n += put_varint(out + n, f->vm_flags);
			vma_push(s, f->vm_start, f->vm_end, f->vm_flags);
		}
	}
	if (f->ip != s->vma[0].ip) {
		tag |= HAS_IP;
		n += put_varint(out + n, zigzag(f->ip - s->vma[0].ip));
	}
	if (f->flags != s->flags) {
		tag |= HAS_FLAGS;
		n += put_varint(out + n, f->flags);
	}
	n += put_varint(out + n, zigzag(f->ts_ns - s->ts));
	n += put_varint(out + n, zigzag(f->addr - s->vma[0].addr));
	out[0] = tag;
	s->vma[0].addr = f->addr;
	s->vma[0].ip = f->ip;
	s->tid = f->tid;
	s->run = f->run;
	s->op = f->op;
	s->flags = f->flags;
	s->ts = f->ts_ns;
	return n;
}

/* The allocation k back (0 the last) of those a free may name; -1 if none matches. */
static int blk_find(const struct ap_trace_pack *s, uint64_t ptr, uint64_t size)
{
	for (uint32_t k = 0; k < AP_PACK_BLOCKS && k < s->n_blk; k++) {
		uint32_t i = (s->blk_next + AP_PACK_BLOCKS - 1 - k) % AP_PACK_BLOCKS;

		if (s->blk_ptr[i] == ptr && s->blk_size[i] == size)
			return (int)k;
	}
	return -1;
}

static void blk_push(struct ap_trace_pack *s, uint64_t ptr, uint64_t size)
{
	s->blk_ptr[s->blk_next] = ptr;
	s->blk_size[s->blk_next] = size;
	s->blk_next = (s->blk_next + 1) % AP_PACK_BLOCKS;
	if (s->n_blk < AP_PACK_BLOCKS)
		s->n_blk++;
}

/*
 * An allocation: deltas from the one before; a free of one of the last few allocations
 * names it (a byte) instead of its pointer and size. ap_pack_put takes frees only with
 * align 0: A_HAS_ALIGN is the reference then.
 */
static size_t put_alloc(struct ap_trace_pack *s, const struct ap_rec_alloc *a, uint8_t *out)
{
	uint8_t tag = KIND_ALLOC;
	size_t n = 1;
	int k = -1;

	if (a->tid != s->tid) {
		tag |= HAS_TID;
		n += put_varint(out + n, a->tid);
	}
	if (a->run != s->run) {
		tag |= A_HAS_RUN;
		n += put_varint(out + n, zigzag((uint64_t)((int64_t)a->run - s->run)));
	}
	if (a->caller != s->acaller) {
		tag |= A_HAS_CALLER;
		n += put_varint(out + n, zigzag(a->caller - s->acaller));
	}
	if (a->fn != s->afn) {
		tag |= A_HAS_FN;
		n += put_varint(out + n, a->fn);
	}
	if (a->fn == AP_ALLOC_FREE)
		k = blk_find(s, a->ptr, a->size);
	if (k >= 0) {
		tag |= A_HAS_ALIGN;
		n += put_varint(out + n, (uint64_t)k);
	} else if (a->align) {
		tag |= A_HAS_ALIGN;
		n += put_varint(out + n, a->align);
	}
	n += put_varint(out + n, zigzag(a->ts_ns - s->ts));
	if (k < 0) {
		n += put_varint(out + n, zigzag(a->ptr - s->aptr));
		n += put_varint(out + n, a->size);
	}
	if (a->fn != AP_ALLOC_FREE)
		blk_push(s, a->ptr, a->size);
	out[0] = tag;
	s->tid = a->tid;
	s->run = a->run;
	s->acaller = a->caller;
	s->afn = a->fn;
	s->ts = a->ts_ns;
	s->aptr = a->ptr;
	return n;
}

/* A sample or drops record: u64 fields, the first the time. */
static uint64_t *delta_prev(struct ap_trace_pack *s, uint32_t type, size_t *fields)
{
	if (type == AP_REC_SAMPLE) {
		*fields = sizeof(s->smp) / 8;
		return &s->smp.ts_ns;
	}
	*fields = sizeof(s->drp) / 8;
	return &s->drp.ts_ns;
}

/* Each field but the time a delta from the last record of its type, when it changed. */
static size_t put_delta(struct ap_trace_pack *s, uint32_t type, const void *payload,
			uint8_t *out)
{
	uint64_t v[sizeof(struct ap_rec_sample) / 8], *prev, mask = 0;
	size_t n = 1, fields;

	prev = delta_prev(s, type, &fields);
	memcpy(v, payload, fields * 8);
	for (size_t i = 1; i < fields; i++)
		mask |= (uint64_t)(v[i] != prev[i]) << (i - 1);
	out[0] = KIND_ESCAPE | E_DELTA;
	n += put_varint(out + n, type);
	n += put_varint(out + n, mask);
	n += put_varint(out + n, zigzag(v[0] - s->ts));
	for (size_t i = 1; i < fields; i++) {
		if (mask >> (i - 1) & 1)
			n += put_varint(out + n, zigzag(v[i] - prev[i]));
	}
	memcpy(prev, v, fields * 8);
	s->ts = v[0];
	return n;
}

/* Any record, its struct in file order, as an escape entry. */
static size_t put_escape(uint32_t type, const void *payload, uint32_t len, const void *tail,
			 size_t tail_len, uint8_t *out)
{
	size_t n = 1, fixed;

	out[0] = KIND_ESCAPE;
	n += put_varint(out + n, type);
	n += put_varint(out + n, len + tail_len);
	if (len)
		memcpy(out + n, payload, len);
	fixed = ap_trace_fixed_size(type);
	if (AP_TRACE_SWAP)
		ap_trace_swap_payload(type, out + n, fixed < len ? fixed : len);
	n += len;
	if (tail_len)
		memcpy(out + n, tail, tail_len);
	return n + tail_len;
}

#define BASE_LOOKAHEAD 64	/* base mappings a mapping's file is looked for among */

/*
 * The mapping of the base, k after the copy cursor, that has m's file (path, device and
 * inode): a mapping that grew or moved keeps its file. -1 if none.
 */
static int base_file(const struct ap_map_state *st, const struct ap_rec_mapping *m,
		     const char *path)
{
	const struct ap_map_snap *base = &st->base;

	for (size_t k = 0; !base->bad && k < BASE_LOOKAHEAD && st->cursor + k < base->n; k++) {
		const struct ap_map_ent *e = &base->e[st->cursor + k];

		if (e->m.inode == m->inode && e->m.dev_major == m->dev_major &&
		    e->m.dev_minor == m->dev_minor && !strcmp(e->path, path))
			return (int)k;
	}
	return -1;
}

static size_t put_map_new(struct ap_trace_block *b, const struct ap_rec_mapping *m,
			  const char *path, uint8_t *out)
{
	struct ap_trace_pack *s = &b->s;
	uint8_t tag = KIND_MAP;
	size_t n = 1, plen = strlen(path);
	uint32_t i;
	int k;

	if (m->ts_ns == s->ts && m->snapshot == s->snap) {
		tag |= M_SAME_SNAP;
	} else {
		n += put_varint(out + n, zigzag(m->ts_ns - s->ts));
		n += put_varint(out + n, zigzag((uint64_t)((int64_t)m->snapshot - s->snap)));
	}
	n += put_varint(out + n, zigzag(m->start - s->m_end));
	n += put_varint(out + n, m->end - m->start);
	n += put_varint(out + n, m->offset);
	n += put_varint(out + n, m->prot);
	k = plen ? base_file(&b->maps, m, path) : -1;
	if (k >= 0) {
		tag |= M_BASE_FILE;
		n += put_varint(out + n, (uint64_t)k);
	} else if (m->inode == s->m_inode && m->dev_major == s->m_major &&
		   m->dev_minor == s->m_minor) {
		tag |= M_SAME_FILE;
	} else {
		n += put_varint(out + n, m->dev_major);
		n += put_varint(out + n, m->dev_minor);
		n += put_varint(out + n, m->inode);
	}
	for (i = 0; plen && i < b->n_paths && strcmp(b->paths[i], path); i++)
		;
	if (k >= 0) {
		/* the path came with the file */
	} else if (plen && i < b->n_paths) {
		tag |= M_PATH_REF;
		n += put_varint(out + n, i);
	} else {
		memcpy(out + n, path, plen + 1);
		if (plen && b->n_paths < AP_PACK_PATHS)
			b->paths[b->n_paths++] = (const char *)out + n;
		n += plen + 1;
	}
	out[0] = tag;
	s->ts = m->ts_ns;
	s->snap = m->snapshot;
	s->m_end = m->end;
	s->m_inode = m->inode;
	s->m_major = m->dev_major;
	s->m_minor = m->dev_minor;
	return n;
}

size_t ap_pack_end_run(struct ap_trace_block *b)
{
	struct ap_map_run *r = &b->run;
	struct ap_trace_pack *s = &b->s;
	uint8_t *out = b->buf + b->len;
	size_t n = 1;

	if (!r->count)
		return 0;
	out[0] = KIND_MAP | M_COPY;
	n += put_varint(out + n, zigzag(r->ts - s->ts));
	n += put_varint(out + n, zigzag((uint64_t)((int64_t)r->snap - s->snap)));
	n += put_varint(out + n, zigzag((uint64_t)((int64_t)r->base_snap - r->snap)));
	n += put_varint(out + n, r->base_n);
	n += put_varint(out + n, r->first);
	n += put_varint(out + n, r->count);
	s->ts = r->ts;
	s->snap = r->snap;
	s->m_end = r->last.end;
	s->m_inode = r->last.inode;
	s->m_major = r->last.dev_major;
	s->m_minor = r->last.dev_minor;
	r->count = 0;
	b->len += (uint32_t)n;
	return n;
}

void ap_pack_clear_paths(struct ap_trace_block *b)
{
	b->n_paths = 0;
}

#define RUN_LOOKAHEAD 64	/* base mappings a new run's start is looked for among */

/*
 * A mapping: the pending run extended when it is the base's next, a new run when it is
 * among the base's next few, else an entry of its own. Both sides keep the snapshot.
 */
static size_t put_map(struct ap_trace_block *b, const struct ap_rec_mapping *m,
		      const char *path)
{
	struct ap_map_state *st = &b->maps;
	struct ap_map_snap *base = &st->base;
	struct ap_map_run *r = &b->run;
	size_t n = 0, j;

	if (r->count && st->started && m->snapshot == st->cur.snap && r->snap == m->snapshot &&
	    r->ts == m->ts_ns && r->first + r->count < base->n &&
	    ap_map_same(&base->e[r->first + r->count], m, path)) {
		r->count++;
		r->last = *m;
		st->cursor = r->first + r->count;
		ap_map_add(st, m, path);
		return 0;
	}
	n += ap_pack_end_run(b);
	ap_map_begin(st, m->snapshot);
	for (j = st->cursor; !base->bad && j < base->n && j < st->cursor + RUN_LOOKAHEAD; j++) {
		if (!ap_map_same(&base->e[j], m, path))
			continue;
		*r = (struct ap_map_run){
			.ts = m->ts_ns, .snap = m->snapshot, .base_snap = base->snap,
			.base_n = base->n, .first = j, .count = 1, .last = *m,
		};
		st->cursor = j + 1;
		ap_map_add(st, m, path);
		return n;
	}
	j = put_map_new(b, m, path, b->buf + b->len);
	b->len += (uint32_t)j;
	ap_map_add(st, m, path);
	return n + j;
}

size_t ap_pack_put(struct ap_trace_block *b, uint32_t type, const void *payload,
		   uint32_t len, const void *tail, size_t tail_len)
{
	const struct ap_rec_mapping *m = payload;
	const struct ap_rec_marker *mk = payload;
	const struct ap_rec_alloc *a = payload;
	const char *path = tail;
	size_t n, k;

	if (b->s.version >= 4 && type == AP_REC_MAPPING && len == sizeof(*m) && tail_len &&
	    strlen(path) == tail_len - 1 && m->end >= m->start)
		return put_map(b, m, path);
	n = ap_pack_end_run(b);
	if (type == AP_REC_FAULT && len == sizeof(struct ap_rec_fault) && !tail_len)
		k = b->s.version >= 4 ? put_fault4(&b->s, payload, b->buf + b->len) :
		    put_fault_marker(&b->s, type, payload, b->buf + b->len);
	else if (type >= AP_REC_RUN_BEGIN && type <= AP_REC_OP_END && !tail_len &&
		 len == sizeof(*mk) && !mk->pad)
		k = put_fault_marker(&b->s, type, payload, b->buf + b->len);
	else if (type == AP_REC_ALLOC && len == sizeof(*a) && !tail_len && !a->pad &&
		 !(a->fn == AP_ALLOC_FREE && a->align))
		k = put_alloc(&b->s, a, b->buf + b->len);
	else if (!tail_len && ((type == AP_REC_SAMPLE && len == sizeof(struct ap_rec_sample)) ||
			       (type == AP_REC_DROPS && len == sizeof(struct ap_rec_drops))))
		k = put_delta(&b->s, type, payload, b->buf + b->len);
	else
		k = put_escape(type, payload, len, tail, tail_len, b->buf + b->len);
	b->len += (uint32_t)k;
	return n + k;
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
static int get_s32(const uint8_t **p, const uint8_t *end, int64_t prev, int32_t *v)
{
	uint64_t z;
	int64_t x;

	if (get_varint(p, end, &z))
		return -1;
	if (z >> 35)		/* no two s32 (or an s32 and its guess) are further apart */
		return -1;
	x = prev + (int64_t)unzigzag(z);
	if (x < INT32_MIN || x > INT32_MAX)
		return -1;
	*v = (int32_t)x;
	return 0;
}

/* prev plus a zigzagged delta, which must land in a u32 */
static int get_u32_delta(const uint8_t **p, const uint8_t *end, uint32_t prev, uint32_t *v)
{
	uint64_t z;
	int64_t x;

	if (get_varint(p, end, &z) || z >> 34)
		return -1;
	x = (int64_t)prev + (int64_t)unzigzag(z);
	if (x < 0 || x > UINT32_MAX)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

static int get_fault_marker(struct ap_trace_unpack *u, uint8_t tag, const uint8_t **p,
			    uint32_t *type, uint32_t *len)
{
	const uint8_t *end = u->end;
	struct ap_trace_pack *s = &u->s, *n = s;	/* a failed entry ends the chain */
	uint8_t kind = tag & KIND_MASK;
	uint64_t z, span;

	if (kind != KIND_FAULT && (tag & FAULT_ONLY))
		return -1;
	if ((tag & HAS_TID) && get_u32(p, end, &n->tid))
		return -1;
	if ((tag & HAS_RUN_OP) && (get_s32(p, end, run_guess(s, type_of[kind]), &n->run) ||
				   get_s32(p, end, s->op, &n->op)))
		return -1;
	if (!(tag & HAS_RUN_OP)) {
		int64_t guess = run_guess(s, type_of[kind]);

		if (guess > INT32_MAX)
			return -1;
		n->run = (int32_t)guess;
	}
	if (tag & HAS_IP) {
		if (get_varint(p, end, &z))
			return -1;
		n->ip = s->ip + unzigzag(z);
	}
	if (tag & HAS_VMA) {
		if (get_varint(p, end, &z) || get_varint(p, end, &span) ||
		    get_varint(p, end, &n->vm_flags))
			return -1;
		n->vm_start = s->vm_start + unzigzag(z);
		n->vm_end = n->vm_start + span;
	}
	if ((tag & HAS_FLAGS) && get_u32(p, end, &n->flags))
		return -1;
	if (get_varint(p, end, &z))
		return -1;
	ts_seen(n, type_of[kind], ts_guess(s, type_of[kind]) + unzigzag(z));
	if (kind == KIND_FAULT) {
		if (get_varint(p, end, &z))
			return -1;
		n->addr = s->addr + unzigzag(z);
	}
	*type = type_of[kind];
	memset(&u->u, 0, sizeof(u->u));
	if (kind == KIND_FAULT) {
		u->u.fault = (struct ap_rec_fault){
			.ts_ns = n->ts, .addr = n->addr, .ip = n->ip, .vm_start = n->vm_start,
			.vm_end = n->vm_end, .vm_flags = n->vm_flags, .tid = n->tid,
			.flags = n->flags, .run = n->run, .op = n->op,
		};
		*len = sizeof(u->u.fault);
	} else {
		u->u.marker = (struct ap_rec_marker){
			.ts_ns = n->ts, .tid = n->tid, .run = n->run, .op = n->op,
		};
		*len = sizeof(u->u.marker);
	}
	return 0;
}

static int get_fault4(struct ap_trace_unpack *u, uint8_t tag, const uint8_t **p,
		      uint32_t *type, uint32_t *len)
{
	const uint8_t *end = u->end;
	struct ap_trace_pack *s = &u->s, *n = s;	/* a failed entry ends the chain */
	uint64_t z, k, span, flags;

	if ((tag & HAS_TID) && get_u32(p, end, &n->tid))
		return -1;
	if ((tag & HAS_RUN_OP) && (get_s32(p, end, s->run, &n->run) ||
				   get_s32(p, end, s->op, &n->op)))
		return -1;
	if (tag & HAS_VMA) {
		if (get_varint(p, end, &k) || k >= n->n_vma + (k == 0))
			return -1;
		if (k) {
			vma_front(n, (uint32_t)k);
		} else {
			if (get_varint(p, end, &z) || get_varint(p, end, &span) ||
			    get_varint(p, end, &flags))
				return -1;
			vma_push(n, n->vma[0].start + unzigzag(z), n->vma[0].start + unzigzag(z) +
				 span, flags);
		}
	}
	if (tag & HAS_IP) {
		if (get_varint(p, end, &z))
			return -1;
		n->vma[0].ip += unzigzag(z);
	}
	if ((tag & HAS_FLAGS) && get_u32(p, end, &n->flags))
		return -1;
	if (get_varint(p, end, &z))
		return -1;
	n->ts = s->ts + unzigzag(z);
	if (get_varint(p, end, &z))
		return -1;
	n->vma[0].addr += unzigzag(z);
	*type = AP_REC_FAULT;
	memset(&u->u, 0, sizeof(u->u));
	u->u.fault = (struct ap_rec_fault){
		.ts_ns = n->ts, .addr = n->vma[0].addr, .ip = n->vma[0].ip,
		.vm_start = n->vma[0].start, .vm_end = n->vma[0].end, .vm_flags = n->vma[0].flags,
		.tid = n->tid, .flags = n->flags, .run = n->run, .op = n->op,
	};
	*len = sizeof(u->u.fault);
	return 0;
}

static int get_alloc(struct ap_trace_unpack *u, uint8_t tag, const uint8_t **p, uint32_t *len)
{
	const uint8_t *end = u->end;
	struct ap_trace_pack *s = &u->s, *n = s;	/* a failed entry ends the chain */
	struct ap_rec_alloc a = { .align = 0 };
	uint64_t z, k = 0;
	bool ref;

	if ((tag & HAS_TID) && get_u32(p, end, &n->tid))
		return -1;
	if ((tag & A_HAS_RUN) && get_s32(p, end, s->run, &n->run))
		return -1;
	if (tag & A_HAS_CALLER) {
		if (get_varint(p, end, &z))
			return -1;
		n->acaller = s->acaller + unzigzag(z);
	}
	if ((tag & A_HAS_FN) && get_u32(p, end, &n->afn))
		return -1;
	ref = n->afn == AP_ALLOC_FREE && (tag & A_HAS_ALIGN);
	if ((tag & A_HAS_ALIGN) && get_varint(p, end, ref ? &k : &a.align))
		return -1;
	if (ref && (k >= AP_PACK_BLOCKS || k >= n->n_blk))
		return -1;
	if (get_varint(p, end, &z))
		return -1;
	n->ts = s->ts + unzigzag(z);
	if (ref) {
		uint32_t i = (n->blk_next + AP_PACK_BLOCKS - 1 - (uint32_t)k) % AP_PACK_BLOCKS;

		n->aptr = n->blk_ptr[i];
		a.size = n->blk_size[i];
	} else {
		if (get_varint(p, end, &z) || get_varint(p, end, &a.size))
			return -1;
		n->aptr = s->aptr + unzigzag(z);
	}
	if (n->afn != AP_ALLOC_FREE)
		blk_push(n, n->aptr, a.size);
	a.ts_ns = n->ts;
	a.ptr = n->aptr;
	a.caller = n->acaller;
	a.tid = n->tid;
	a.fn = n->afn;
	a.run = n->run;
	memset(&u->u, 0, sizeof(u->u));
	u->u.alloc = a;
	*len = sizeof(a);
	return 0;
}

/* Room in u->x for n bytes and a NUL. */
static int x_room(struct ap_trace_unpack *u, size_t n)
{
	uint8_t *x;

	if (u->x_cap > n)
		return 0;
	x = realloc(u->x, n + 1);
	if (!x)
		return -1;
	u->x = x;
	u->x_cap = n + 1;
	return 0;
}

static int get_escape(struct ap_trace_unpack *u, const uint8_t **p, uint32_t *type,
		      uint32_t *len)
{
	uint64_t t, n;
	size_t fixed;

	if (get_varint(p, u->end, &t) || !known_type((uint32_t)t) || t > UINT32_MAX ||
	    get_varint(p, u->end, &n) || n > AP_PACK_TAIL_MAX || n > (uint64_t)(u->end - *p) ||
	    x_room(u, AP_PACK_TAIL_MAX))
		return -1;
	memcpy(u->x, *p, n);
	u->x[n] = 0;
	fixed = ap_trace_fixed_size((uint32_t)t);
	if (AP_TRACE_SWAP)
		ap_trace_swap_payload((uint32_t)t, u->x, fixed < n ? fixed : n);
	*p += n;
	*type = (uint32_t)t;
	*len = (uint32_t)n;
	return 0;
}

static int get_delta(struct ap_trace_unpack *u, const uint8_t **p, uint32_t *type,
		     uint32_t *len)
{
	uint64_t t, mask, z, *prev;
	size_t fields;

	if (get_varint(p, u->end, &t) || (t != AP_REC_SAMPLE && t != AP_REC_DROPS) ||
	    get_varint(p, u->end, &mask) || get_varint(p, u->end, &z))
		return -1;
	prev = delta_prev(&u->s, (uint32_t)t, &fields);
	if (mask >> (fields - 1))
		return -1;
	{
		uint64_t v[sizeof(struct ap_rec_sample) / 8];

		v[0] = u->s.ts + unzigzag(z);
		for (size_t i = 1; i < fields; i++) {
			v[i] = prev[i];
			if (!(mask >> (i - 1) & 1))
				continue;
			if (get_varint(p, u->end, &z))
				return -1;
			v[i] += unzigzag(z);
		}
		memcpy(prev, v, fields * 8);
		u->s.ts = v[0];
	}
	memset(&u->u, 0, sizeof(u->u));
	memcpy(&u->u, prev, fields * 8);
	*type = (uint32_t)t;
	*len = (uint32_t)(fields * 8);
	return 0;
}

/* A mapping returned: m and its path into u->x, and into the current snapshot. */
static int map_out(struct ap_trace_unpack *u, const struct ap_rec_mapping *m,
		   const char *path, size_t plen, uint32_t *len)
{
	if (x_room(u, sizeof(*m) + AP_PACK_TAIL_MAX))
		return -1;
	memcpy(u->x, m, sizeof(*m));
	memcpy(u->x + sizeof(*m), path, plen);
	u->x[sizeof(*m) + plen] = 0;
	u->x[sizeof(*m) + plen + 1] = 0;
	*len = (uint32_t)(sizeof(*m) + plen + 1);
	ap_map_add(&u->maps, m, (const char *)u->x + sizeof(*m));
	return 0;
}

/* The next mapping of the copy being returned. */
static int get_copied(struct ap_trace_unpack *u, uint32_t *len)
{
	struct ap_map_run *r = &u->run;
	struct ap_map_snap *base = &u->maps.base;
	struct ap_rec_mapping m;
	const char *path;

	if (r->first >= base->n)
		return -1;
	m = base->e[r->first].m;
	path = base->e[r->first].path;
	m.ts_ns = r->ts;
	m.snapshot = r->snap;
	r->first++;
	r->count--;
	return map_out(u, &m, path, strlen(path), len);
}

static int get_map(struct ap_trace_unpack *u, uint8_t tag, const uint8_t **p, uint32_t *len)
{
	const uint8_t *end = u->end;
	struct ap_trace_pack *s = &u->s, n = *s;
	struct ap_rec_mapping m = { .ts_ns = 0 };
	const char *path;
	uint64_t z, v;
	size_t plen;

	if ((tag & ~(KIND_MASK | M_BITS)) || ((tag & M_COPY) && (tag & M_BITS) != M_COPY))
		return -1;
	if (!(tag & M_SAME_SNAP)) {
		if (get_varint(p, end, &z) || get_u32_delta(p, end, s->snap, &n.snap))
			return -1;
		n.ts = s->ts + unzigzag(z);
	}
	if (tag & M_COPY) {
		struct ap_map_state *st = &u->maps;
		struct ap_map_run r = { .ts = n.ts, .snap = n.snap };
		uint64_t base_n, first, count;

		if (get_u32_delta(p, end, n.snap, &r.base_snap) ||
		    get_varint(p, end, &base_n) || get_varint(p, end, &first) ||
		    get_varint(p, end, &count))
			return -1;
		ap_map_begin(st, n.snap);
		if (st->base.snap != r.base_snap || st->base.bad || st->base.n != base_n ||
		    first < st->cursor || !count || count > base_n || first > base_n - count)
			return -1;
		st->cursor = first + count;
		n.m_end = st->base.e[first + count - 1].m.end;
		n.m_inode = st->base.e[first + count - 1].m.inode;
		n.m_major = st->base.e[first + count - 1].m.dev_major;
		n.m_minor = st->base.e[first + count - 1].m.dev_minor;
		r.base_n = base_n;
		r.first = first;
		r.count = count;
		*s = n;
		u->run = r;
		return get_copied(u, len);
	}
	if (get_varint(p, end, &z) || get_varint(p, end, &v))
		return -1;
	m.start = s->m_end + unzigzag(z);
	m.end = m.start + v;
	if (m.end < m.start || get_varint(p, end, &m.offset) || get_u32(p, end, &m.prot))
		return -1;
	if (tag & M_BASE_FILE) {
		struct ap_map_state *st = &u->maps;
		const struct ap_map_ent *e;

		if ((tag & (M_SAME_FILE | M_PATH_REF)) || get_varint(p, end, &v))
			return -1;
		ap_map_begin(st, n.snap);
		if (st->base.bad || v >= BASE_LOOKAHEAD || st->cursor + v >= st->base.n)
			return -1;
		e = &st->base.e[st->cursor + v];
		m.dev_major = e->m.dev_major;
		m.dev_minor = e->m.dev_minor;
		m.inode = e->m.inode;
		path = e->path;
		plen = strlen(path);
	} else if (tag & M_SAME_FILE) {
		m.dev_major = s->m_major;
		m.dev_minor = s->m_minor;
		m.inode = s->m_inode;
	} else if (get_u32(p, end, &m.dev_major) || get_u32(p, end, &m.dev_minor) ||
		   get_varint(p, end, &m.inode)) {
		return -1;
	}
	if (tag & M_BASE_FILE) {
		/* the path came with the file */
	} else if (tag & M_PATH_REF) {
		if (get_varint(p, end, &v) || v >= u->n_paths)
			return -1;
		path = u->paths[v];
		plen = strlen(path);
	} else {
		const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));

		if (!nul || (size_t)(nul - *p) >= AP_PACK_TAIL_MAX - sizeof(m))
			return -1;
		path = (const char *)*p;
		plen = (size_t)(nul - *p);
		*p = nul + 1;
		if (plen && u->n_paths < AP_PACK_PATHS)
			u->paths[u->n_paths++] = path;
	}
	m.ts_ns = n.ts;
	m.snapshot = n.snap;
	n.m_end = m.end;
	n.m_inode = m.inode;
	n.m_major = m.dev_major;
	n.m_minor = m.dev_minor;
	if (map_out(u, &m, path, plen, len))
		return -1;
	*s = n;
	return 0;
}

int ap_pack_begin(struct ap_trace_unpack *u, const uint8_t *payload, uint32_t len,
		  uint32_t version)
{
	u->p = payload;
	u->end = payload + len;
	u->entries = 0;
	u->n_paths = 0;
	u->run.count = 0;
	u->refused = false;
	if (version < 4) {
		ap_pack_reset(&u->s, version);
		return 0;
	}
	if (!len || payload[0] & ~(AP_PACK_CONT | AP_PACK_DEFLATED) ||
	    ((payload[0] & AP_PACK_CONT) && !u->chain))
		goto refuse;
	u->p++;
	if (payload[0] & AP_PACK_DEFLATED) {
		uint64_t n;

		if (get_varint(&u->p, u->end, &n) || !n || n > AP_PACK_BLOCK_MAX ||
		    ap_pack_inflate(u->p, (size_t)(u->end - u->p), u->z, (size_t)n))
			goto refuse;
		u->p = u->z;
		u->end = u->z + n;
	}
	if (!(payload[0] & AP_PACK_CONT))
		ap_pack_reset(&u->s, version);
	u->chain = true;
	return 0;
refuse:
	u->p = payload;		/* the whole payload is what salvage skips */
	u->end = payload + len;
	u->refused = true;
	u->chain = false;
	return -1;
}

uint32_t ap_pack_finish(struct ap_trace_block *b, const uint8_t **out)
{
	uint32_t n = b->len - 1;
	size_t v, z;

	*out = b->buf;
	if (n > AP_PACK_Z_MAX || n < 16)
		return b->len;
	v = put_varint(b->z + 1, n);
	/* worth it only when shorter, first byte and length included */
	z = ap_pack_deflate(b->buf + 1, n, b->z + 1 + v, n - v - 1);
	if (!z)
		return b->len;
	b->z[0] = b->buf[0] | AP_PACK_DEFLATED;
	*out = b->z;
	return (uint32_t)(1 + v + z);
}

bool ap_pack_more(const struct ap_trace_unpack *u)
{
	return u->run.count || u->p < u->end;
}

int ap_pack_get(struct ap_trace_unpack *u, uint32_t *type, uint32_t *len,
		const uint8_t **payload)
{
	const uint8_t *q = u->p;	/* u->p moves only past a whole entry */
	uint8_t tag, kind;
	int rc;

	if (u->refused)
		return -1;
	if (u->run.count) {
		*type = AP_REC_MAPPING;
		rc = get_copied(u, len);
		*payload = u->x;
		return rc;
	}
	if (q >= u->end)
		return -1;
	tag = *q++;
	kind = tag & KIND_MASK;
	if (kind == KIND_FAULT && u->s.version >= 4) {
		rc = get_fault4(u, tag, &q, type, len);
	} else if (kind >= 1 && kind <= 5) {
		rc = get_fault_marker(u, tag, &q, type, len);
	} else if (u->s.version < 4) {
		rc = -1;
	} else if (kind == KIND_ALLOC) {
		*type = AP_REC_ALLOC;
		rc = get_alloc(u, tag, &q, len);
	} else if (kind == KIND_MAP) {
		*type = AP_REC_MAPPING;
		rc = get_map(u, tag, &q, len);
	} else if (tag == (KIND_ESCAPE | E_DELTA)) {
		rc = get_delta(u, &q, type, len);
	} else {
		rc = tag == KIND_ESCAPE ? get_escape(u, &q, type, len) : -1;
	}
	if (rc)
		return rc;
	u->p = q;
	*payload = tag == KIND_ESCAPE || kind == KIND_MAP ? u->x : (const uint8_t *)&u->u;
	return 0;
}
