// SPDX-License-Identifier: Apache-2.0
/*
 * unpack: PACKED entries read back into records (pack.h, man arenaprof-trace(5)), each
 * checked against its block's end; pack.c writes them.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/event.h"
#include "pack.h"
#include "pack_model.h"

/* An entry's record type by its kind (its tag's low bits). */
static const uint8_t type_of[] = {
	[1] = AP_REC_FAULT, [2] = AP_REC_RUN_BEGIN, [3] = AP_REC_RUN_END,
	[4] = AP_REC_OP_BEGIN, [5] = AP_REC_OP_END,
};

/* -1 past the end or past 64 bits */
static int get_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned int shift = 0; shift < 64; shift += 7) {
		uint8_t b;

		if (*p >= end)
			return -EINVAL;
		b = *(*p)++;
		if (shift == 63 && b > 1)
			return -EINVAL;
		x |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = x;
			return 0;
		}
	}
	return -EINVAL;
}

static int get_u32(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
	uint64_t x;

	if (get_varint(p, end, &x) || x > UINT32_MAX)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

/* prev plus a zigzagged delta, which must land in an s32 */
static int get_s32(const uint8_t **p, const uint8_t *end, int64_t prev, int32_t *v)
{
	uint64_t z;
	int64_t x;

	if (get_varint(p, end, &z))
		return -EINVAL;
	if (z >> 35)		/* no two s32 (or an s32 and its guess) are further apart */
		return -EINVAL;
	x = prev + (int64_t)unzigzag(z);
	if (x < INT32_MIN || x > INT32_MAX)
		return -EINVAL;
	*v = (int32_t)x;
	return 0;
}

/* prev plus a zigzagged delta, which must land in a u32 */
static int get_u32_delta(const uint8_t **p, const uint8_t *end, uint32_t prev, uint32_t *v)
{
	uint64_t z;
	int64_t x;

	if (get_varint(p, end, &z) || z >> 34)
		return -EINVAL;
	x = (int64_t)prev + (int64_t)unzigzag(z);
	if (x < 0 || x > UINT32_MAX)
		return -EINVAL;
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
		return -EINVAL;
	if ((tag & HAS_TID) && get_u32(p, end, &n->tid))
		return -EINVAL;
	if ((tag & HAS_RUN_OP) && (get_s32(p, end, run_guess(s, type_of[kind]), &n->run) ||
				   get_s32(p, end, s->op, &n->op)))
		return -EINVAL;
	if (!(tag & HAS_RUN_OP)) {
		int64_t guess = run_guess(s, type_of[kind]);

		if (guess > INT32_MAX)
			return -EINVAL;
		n->run = (int32_t)guess;
	}
	if (tag & HAS_IP) {
		if (get_varint(p, end, &z))
			return -EINVAL;
		n->ip = s->ip + unzigzag(z);
	}
	if (tag & HAS_VMA) {
		if (get_varint(p, end, &z) || get_varint(p, end, &span) ||
		    get_varint(p, end, &n->vm_flags))
			return -EINVAL;
		n->vm_start = s->vm_start + unzigzag(z);
		n->vm_end = n->vm_start + span;
	}
	if ((tag & HAS_FLAGS) && get_u32(p, end, &n->flags))
		return -EINVAL;
	if (get_varint(p, end, &z))
		return -EINVAL;
	ts_seen(n, type_of[kind], ts_guess(s, type_of[kind]) + unzigzag(z));
	if (kind == KIND_FAULT) {
		if (get_varint(p, end, &z))
			return -EINVAL;
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
		return -EINVAL;
	if ((tag & HAS_RUN_OP) && (get_s32(p, end, s->run, &n->run) ||
				   get_s32(p, end, s->op, &n->op)))
		return -EINVAL;
	if (tag & HAS_VMA) {
		if (get_varint(p, end, &k) || k >= n->n_vma + (k == 0))
			return -EINVAL;
		if (k) {
			vma_front(n, (uint32_t)k);
		} else {
			if (get_varint(p, end, &z) || get_varint(p, end, &span) ||
			    get_varint(p, end, &flags))
				return -EINVAL;
			vma_push(n, n->vma[0].start + unzigzag(z), n->vma[0].start + unzigzag(z) +
				 span, flags);
		}
	}
	if (tag & HAS_IP) {
		if (get_varint(p, end, &z))
			return -EINVAL;
		n->vma[0].ip += unzigzag(z);
	}
	if ((tag & HAS_FLAGS) && get_u32(p, end, &n->flags))
		return -EINVAL;
	if (get_varint(p, end, &z))
		return -EINVAL;
	n->ts = s->ts + unzigzag(z);
	if (get_varint(p, end, &z))
		return -EINVAL;
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
		return -EINVAL;
	if ((tag & A_HAS_RUN) && get_s32(p, end, s->run, &n->run))
		return -EINVAL;
	if (tag & A_HAS_CALLER) {
		if (get_varint(p, end, &z))
			return -EINVAL;
		n->acaller = s->acaller + unzigzag(z);
	}
	if ((tag & A_HAS_FN) && get_u32(p, end, &n->afn))
		return -EINVAL;
	ref = n->afn == AP_ALLOC_FREE && (tag & A_HAS_ALIGN);
	if ((tag & A_HAS_ALIGN) && get_varint(p, end, ref ? &k : &a.align))
		return -EINVAL;
	if (ref && (k >= AP_PACK_BLOCKS || k >= n->n_blk))
		return -EINVAL;
	if (get_varint(p, end, &z))
		return -EINVAL;
	n->ts = s->ts + unzigzag(z);
	if (ref) {
		uint32_t i = (n->blk_next + AP_PACK_BLOCKS - 1 - (uint32_t)k) % AP_PACK_BLOCKS;

		n->aptr = n->blk_ptr[i];
		a.size = n->blk_size[i];
	} else {
		if (get_varint(p, end, &z) || get_varint(p, end, &a.size))
			return -EINVAL;
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
		return -ENOMEM;
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
	    get_varint(p, u->end, &n) || n > AP_PACK_TAIL_MAX || n > (uint64_t)(u->end - *p))
		return -EINVAL;
	if (x_room(u, AP_PACK_TAIL_MAX))
		return -ENOMEM;
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
		return -EINVAL;
	prev = delta_prev(&u->s, (uint32_t)t, &fields);
	if (mask >> (fields - 1))
		return -EINVAL;
	{
		uint64_t v[sizeof(struct ap_rec_sample) / 8];

		v[0] = u->s.ts + unzigzag(z);
		for (size_t i = 1; i < fields; i++) {
			v[i] = prev[i];
			if (!(mask >> (i - 1) & 1))
				continue;
			if (get_varint(p, u->end, &z))
				return -EINVAL;
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

/* A mapping returned: m and its path into u->x. */
static int map_out(struct ap_trace_unpack *u, const struct ap_rec_mapping *m,
		   const char *path, size_t plen, uint32_t *len)
{
	if (x_room(u, sizeof(*m) + AP_PACK_TAIL_MAX))
		return -ENOMEM;
	memcpy(u->x, m, sizeof(*m));
	memcpy(u->x + sizeof(*m), path, plen);
	u->x[sizeof(*m) + plen] = 0;
	u->x[sizeof(*m) + plen + 1] = 0;
	*len = (uint32_t)(sizeof(*m) + plen + 1);
	return 0;
}

/*
 * The next mapping of the copy being returned (already in the current snapshot). Folded,
 * the first alone: the rest repeat mappings returned before, at the same time.
 */
static int get_copied(struct ap_trace_unpack *u, uint32_t *len)
{
	struct ap_map_run *r = &u->run;
	const struct ap_rope_ent *e;
	struct ap_rec_mapping m;

	if (r->first >= u->maps.base.n)
		return -EINVAL;
	e = ap_rope_base_at(&u->maps, r->first);
	m = e->m;
	m.ts_ns = r->ts;
	m.snapshot = r->snap;
	r->first++;
	r->count = u->fold_copies ? 0 : r->count - 1;
	return map_out(u, &m, e->path, strlen(e->path), len);
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
		return -EINVAL;
	if (!(tag & M_SAME_SNAP)) {
		if (get_varint(p, end, &z) || get_u32_delta(p, end, s->snap, &n.snap))
			return -EINVAL;
		n.ts = s->ts + unzigzag(z);
	}
	if (tag & M_COPY) {
		struct ap_rope_state *st = &u->maps;
		struct ap_map_run r = { .ts = n.ts, .snap = n.snap };
		const struct ap_rope_ent *last;
		uint64_t base_n, first, count;

		if (get_u32_delta(p, end, n.snap, &r.base_snap) ||
		    get_varint(p, end, &base_n) || get_varint(p, end, &first) ||
		    get_varint(p, end, &count))
			return -EINVAL;
		ap_rope_begin(st, n.snap);
		if (st->base.snap != r.base_snap || st->base.bad || st->base.n != base_n ||
		    first < st->cursor || !count || count > base_n || first > base_n - count)
			return -EINVAL;
		st->cursor = first + count;
		ap_rope_copy(st, first, count);	/* failing: as ap_rope_add below */
		last = ap_rope_base_at(st, first + count - 1);
		n.m_end = last->m.end;
		n.m_inode = last->m.inode;
		n.m_major = last->m.dev_major;
		n.m_minor = last->m.dev_minor;
		r.base_n = base_n;
		r.first = first;
		r.count = count;
		*s = n;
		u->run = r;
		return get_copied(u, len);
	}
	if (get_varint(p, end, &z) || get_varint(p, end, &v))
		return -EINVAL;
	m.start = s->m_end + unzigzag(z);
	m.end = m.start + v;
	if (m.end < m.start || get_varint(p, end, &m.offset) || get_u32(p, end, &m.prot))
		return -EINVAL;
	if (tag & M_BASE_FILE) {
		struct ap_rope_state *st = &u->maps;
		const struct ap_rope_ent *e;

		if ((tag & (M_SAME_FILE | M_PATH_REF)) || get_varint(p, end, &v))
			return -EINVAL;
		ap_rope_begin(st, n.snap);
		if (st->base.bad || v >= BASE_LOOKAHEAD || st->cursor + v >= st->base.n)
			return -EINVAL;
		e = ap_rope_base_at(st, st->cursor + v);
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
		return -EINVAL;
	}
	if (tag & M_BASE_FILE) {
		/* the path came with the file */
	} else if (tag & M_PATH_REF) {
		if (get_varint(p, end, &v) || v >= u->n_paths)
			return -EINVAL;
		path = u->paths[v];
		plen = strlen(path);
	} else {
		const uint8_t *nul = memchr(*p, 0, (size_t)(end - *p));

		if (!nul || (size_t)(nul - *p) >= AP_PACK_TAIL_MAX - sizeof(m))
			return -EINVAL;
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
		return -ENOMEM;
	/* failing: the snapshot is full (or memory ran out), now bad, and never copied from */
	ap_rope_add(&u->maps, &m, (const char *)u->x + sizeof(m));
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
	return -EINVAL;
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
		return -EINVAL;
	if (u->run.count) {
		*type = AP_REC_MAPPING;
		rc = get_copied(u, len);
		*payload = u->x;
		return rc;
	}
	if (q >= u->end)
		return -EINVAL;
	tag = *q++;
	kind = tag & KIND_MASK;
	if (kind == KIND_FAULT && u->s.version >= 4) {
		rc = get_fault4(u, tag, &q, type, len);
	} else if (kind >= 1 && kind <= 5) {
		rc = get_fault_marker(u, tag, &q, type, len);
	} else if (u->s.version < 4) {
		rc = -EINVAL;
	} else if (kind == KIND_ALLOC) {
		*type = AP_REC_ALLOC;
		rc = get_alloc(u, tag, &q, len);
	} else if (kind == KIND_MAP) {
		*type = AP_REC_MAPPING;
		rc = get_map(u, tag, &q, len);
	} else if (tag == (KIND_ESCAPE | E_DELTA)) {
		rc = get_delta(u, &q, type, len);
	} else {
		rc = tag == KIND_ESCAPE ? get_escape(u, &q, type, len) : -EINVAL;
	}
	if (rc)
		return rc;
	u->p = q;
	*payload = tag == KIND_ESCAPE || kind == KIND_MAP ? u->x : (const uint8_t *)&u->u;
	return 0;
}
