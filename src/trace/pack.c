// SPDX-License-Identifier: Apache-2.0
/*
 * pack: PACKED entries written (pack.h, man arenaprof-trace(5)); unpack.c reads them, and
 * both keep the model in pack_model.h. Written here rather than left to zlib's deflate: a
 * fault storm is ~5 bytes a fault this way at a few ns an entry (deflate of the raw
 * records would be far slower to write and read), and each block stays a record of its
 * own that salvage can skip to (docs/design.md). Blocks cut short by a flush are deflated
 * on top (pack_z.c).
 */
#include <stdlib.h>
#include <string.h>

#include "arenaprof/event.h"
#include "pack.h"
#include "pack_model.h"

/* An entry's kind (its tag's low bits) by record type (unpack.c has the way back). */
static const uint8_t kind_of[] = {
	[AP_REC_FAULT] = 1, [AP_REC_RUN_BEGIN] = 2, [AP_REC_RUN_END] = 3,
	[AP_REC_OP_BEGIN] = 4, [AP_REC_OP_END] = 5,
};

void ap_pack_reset(struct ap_trace_pack *s, uint32_t version)
{
	memset(s, 0, sizeof(*s));
	s->run = -1;
	s->op = -1;
	s->version = version;
	s->n_vma = 1;		/* the vma 0-0, flags 0: unknown */
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
