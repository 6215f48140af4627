// SPDX-License-Identifier: Apache-2.0
/* analysis: the single pass over a trace behind `report` (see analysis.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/analysis.h"
#include "arenaprof/analyze/arena.h"
#include "arenaprof/util/err.h"
#include "arenaprof/analyze/mapindex.h"
#include "arenaprof/event.h"
#include "arenaprof/analyze/pageset.h"
#include "arenaprof/util/sort.h"

#define MAP_BITS 40	/* page key: mapping index << 40 | page within the mapping */

struct priv {
	struct ap_pageset touched;
	struct ap_mapindex index;	/* maps by their bounds */
	int32_t last;		/* the mapping of the previous fault */
	uint32_t page_shift;
	/* the allocation probe's arena block and its re-plans: pages -> a mapping of their own */
	struct {
		uint64_t start, end;
		int32_t map;
	} reg[1 + AP_MAX_MOVES];
	uint32_t n_reg;
	bool given;		/* reg[0] is record --arena ADDR's, not a block seen */
	uint64_t *run_begin;	/* by run index: its RUN_BEGIN time (run_ns' partner) */
	uint64_t run_markers;	/* RUN_BEGIN and RUN_END records read */
};

/* A run marker: its begin time, or its duration once it ends (a->run_ns). */
static int on_run(struct ap_analysis *a, const struct ap_trace_rec *rec)
{
	struct priv *pv = a->priv;
	struct ap_rec_marker m;

	ap_trace_get(rec, &m, sizeof(m));
	/*
	 * An honest run marker's index is the count of the run markers before it (a few
	 * more if the ring dropped some): anything beyond twice the markers read, plus a
	 * margin, is not a run of this trace and must not size an array.
	 */
	pv->run_markers++;
	if (m.run < 0 || (uint64_t)m.run > 2 * pv->run_markers + 1024)
		return 0;
	if ((uint32_t)m.run >= a->n_run_ns) {
		uint32_t n = a->n_run_ns ? a->n_run_ns : 1024;
		uint64_t *r, *b;

		while (n <= (uint32_t)m.run)
			n *= 2;
		r = realloc(a->run_ns, n * sizeof(*r));
		if (r)
			a->run_ns = r;
		b = realloc(pv->run_begin, n * sizeof(*b));
		if (b)
			pv->run_begin = b;
		if (!r || !b)
			return -1;
		memset(r + a->n_run_ns, 0, (n - a->n_run_ns) * sizeof(*r));
		memset(b + a->n_run_ns, 0, (n - a->n_run_ns) * sizeof(*b));
		a->n_run_ns = n;
	}
	if (rec->type == AP_REC_RUN_BEGIN)
		pv->run_begin[m.run] = m.ts_ns;
	else if (pv->run_begin[m.run] && m.ts_ns >= pv->run_begin[m.run])
		a->run_ns[m.run] = m.ts_ns - pv->run_begin[m.run];
	return 0;
}

/* The arena region (allocation probe) holding addr, or -1. */
static int32_t region_of(const struct priv *pv, uint64_t addr)
{
	for (uint32_t i = 0; pv && i < pv->n_reg; i++)
		if (addr >= pv->reg[i].start && addr < pv->reg[i].end)
			return pv->reg[i].map;
	return -1;
}

/*
 * Counts arrive mostly in runs of one index (a run's first touches, an operator's): the
 * last entry takes them, a new index is appended, and counts_settle sorts and merges at
 * the end of the pass. One entry per change of index at most: bounded by the trace.
 */
static int counts_add(struct ap_counts *c, int32_t idx, uint64_t v)
{
	if (idx < 0)
		idx = -1;
	if (c->n && c->e[c->n - 1].idx == idx) {
		c->e[c->n - 1].v += v;
		return 0;
	}
	if (c->n == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 8;
		struct ap_count *e = realloc(c->e, (size_t)cap * sizeof(*e));

		if (!e || cap < c->cap)
			return -1;
		c->e = e;
		c->cap = cap;
	}
	c->e[c->n++] = (struct ap_count){ .idx = idx, .v = v };
	return 0;
}

static int cmp_count(const void *x, const void *y)
{
	const struct ap_count *a = x, *b = y;

	return (a->idx > b->idx) - (a->idx < b->idx);
}

static void counts_settle(struct ap_counts *c)
{
	uint32_t k = 0;

	ap_qsort(c->e, c->n, sizeof(*c->e), cmp_count);
	for (uint32_t i = 0; i < c->n; i++) {
		if (k && c->e[k - 1].idx == c->e[i].idx)
			c->e[k - 1].v += c->e[i].v;
		else
			c->e[k++] = c->e[i];
	}
	c->n = k;
}

/* The mapping [start, end) if known, else -1. */
static int32_t map_find(const struct ap_analysis *a, uint64_t start, uint64_t end)
{
	const struct priv *pv = a->priv;

	return pv ? ap_mapindex_find(&pv->index, start, end) : -1;
}

/* The mapping [start, end), created unnamed if new; -1 on allocation failure. */
static int32_t map_get(struct ap_analysis *a, uint64_t start, uint64_t end)
{
	struct priv *pv = a->priv;
	int32_t mi = ap_mapindex_find(&pv->index, start, end);
	struct ap_amap *m;

	if (mi >= 0)
		return mi;
	if (a->n_maps == a->cap_maps) {
		uint32_t cap = a->cap_maps ? 2 * a->cap_maps : 32;
		struct ap_amap *p = realloc(a->maps, cap * sizeof(*p));

		if (!p)
			return -1;
		a->maps = p;
		a->cap_maps = cap;
	}
	m = &a->maps[a->n_maps];
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->path = strdup("");
	m->anon = true;
	m->role = "anon";
	m->first_run = INT32_MAX;
	if (!m->path || ap_mapindex_add(&pv->index, start, end, (int32_t)a->n_maps)) {
		free(m->path);
		return -1;
	}
	return (int32_t)a->n_maps++;
}

/* The newest known mapping that contains addr, or -1. */
static int32_t map_containing(const struct ap_analysis *a, uint64_t addr)
{
	for (int32_t i = (int32_t)a->n_maps - 1; i >= 0; i--)
		if (a->maps[i].start <= addr && addr < a->maps[i].end)
			return i;
	return -1;
}

static int on_fault(struct ap_analysis *a, const struct ap_rec_fault *f, int32_t *mi_out)
{
	struct priv *pv = a->priv;
	struct ap_amap *m;
	int32_t mi = -1;
	int r;

	a->faults++;
	mi = region_of(pv, f->addr);
	if (mi >= 0) {
		/* the arena block's pages, whatever vma holds them */
	} else if (!(f->flags & AP_FF_VMA_UNKNOWN) && f->vm_end > f->vm_start) {
		if (pv->last >= 0 && a->maps[pv->last].start == f->vm_start &&
		    a->maps[pv->last].end == f->vm_end)
			mi = pv->last;
		else
			mi = map_get(a, f->vm_start, f->vm_end);
		if (mi < 0)
			return -1;
		a->maps[mi].anon = !(f->flags & AP_FF_VMA_FILE);
	} else {
		a->faults_vma_unknown++;
		mi = map_containing(a, f->addr);
		if (mi < 0)
			return 0;	/* counted in faults_vma_unknown only */
	}
	*mi_out = mi;
	pv->last = mi;
	m = &a->maps[mi];
	m->faults++;
	if (f->flags & AP_FF_MAJOR)
		m->major++;
	if (f->flags & AP_FF_WRITE)
		m->writes++;
	if (f->addr < m->start || f->addr >= m->end)
		return 0;
	r = ap_pageset_add(&pv->touched, (uint64_t)mi << MAP_BITS |
			   ((f->addr - m->start) >> pv->page_shift));
	if (r < 0)
		return -1;
	if (r == 0)
		return 0;
	m->first_touch_pages++;
	if (a->n_touches == a->cap_touches) {
		uint64_t cap = a->cap_touches ? 2 * a->cap_touches : 4096;
		struct ap_touch *t = realloc(a->touches, cap * sizeof(*t));

		if (!t)
			return -1;
		a->touches = t;
		a->cap_touches = cap;
	}
	a->touches[a->n_touches++] = (struct ap_touch){
		.map = (uint32_t)mi, .run = f->run, .op = f->op, .flags = f->flags,
		.page = (f->addr - m->start) >> pv->page_shift, .ts_ns = f->ts_ns,
		.in_page = (uint32_t)(f->addr & (a->hdr.page_size - 1)), .tid = f->tid,
	};
	if (f->run < m->first_run)
		m->first_run = f->run;
	if (counts_add(&m->by_run, f->run, 1) || counts_add(&m->by_op, f->op, 1))
		return -1;
	return 0;
}

static int on_mapping(struct ap_analysis *a, const struct ap_trace_rec *rec)
{
	struct ap_rec_mapping mr;
	const char *path;
	struct ap_amap *m;
	int32_t mi;

	ap_trace_get(rec, &mr, sizeof(mr));
	if (mr.end <= mr.start)
		return 0;
	mi = map_get(a, mr.start, mr.end);
	if (mi < 0)
		return -1;
	m = &a->maps[mi];
	if (m->named)
		return 0;
	path = ap_trace_str(rec, sizeof(mr));
	free(m->path);
	m->path = strdup(path);
	if (!m->path)
		return -1;
	m->named = true;
	m->offset = mr.offset;
	m->inode = mr.inode;
	m->prot = mr.prot;
	m->anon = !mr.inode && (!path[0] || path[0] == '[');
	return 0;
}

/* Pages resident when -p attached: recorded as such, never as first touches. */
static int on_resident(struct ap_analysis *a, const struct ap_trace_rec *rec)
{
	struct priv *pv = a->priv;
	struct ap_rec_resident rr;
	const uint8_t *bits = rec->payload + sizeof(rr);
	uint64_t pages, nbits;
	int32_t mi;

	if (rec->len < sizeof(rr))
		return 0;
	ap_trace_get(rec, &rr, sizeof(rr));
	if (rr.end <= rr.start)
		return 0;
	mi = map_get(a, rr.start, rr.end);
	if (mi < 0)
		return -1;
	pages = (rr.end - rr.start) >> pv->page_shift;
	nbits = (uint64_t)(rec->len - sizeof(rr)) * 8;
	for (uint64_t i = 0; i < pages && i < nbits; i++) {
		if (!(bits[i / 8] & (1u << (i % 8))))
			continue;
		if (ap_pageset_add(&pv->touched, (uint64_t)mi << MAP_BITS | i) < 0)
			return -1;
		a->maps[mi].resident_at_attach++;
	}
	return 0;
}

static int add_note(struct ap_analysis *a, const char *text)
{
	char **n = realloc(a->notes, (a->n_notes + 1) * sizeof(*n));

	if (!n)
		return -1;
	a->notes = n;
	n[a->n_notes] = strdup(text);
	if (!n[a->n_notes])
		return -1;
	a->n_notes++;
	return 0;
}

static int on_sample(struct ap_analysis *a, const struct ap_trace_rec *rec)
{
	if (a->n_samples == a->cap_samples) {
		uint32_t cap = a->cap_samples ? 2 * a->cap_samples : 256;
		struct ap_rec_sample *p = realloc(a->samples, cap * sizeof(*p));

		if (!p)
			return -1;
		a->samples = p;
		a->cap_samples = cap;
	}
	ap_trace_get(rec, &a->samples[a->n_samples++], sizeof(struct ap_rec_sample));
	return 0;
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

/* A mapping the trace saw, not one of the arena regions, holds addr. */
static bool other_mapping_holds(const struct ap_analysis *a, uint64_t addr)
{
	const struct priv *pv = a->priv;

	for (uint32_t i = 0; i < a->n_maps; i++) {
		bool reg = false;

		for (uint32_t k = 0; k < pv->n_reg; k++)
			reg |= pv->reg[k].map == (int32_t)i;
		if (!reg && a->maps[i].start <= addr && addr < a->maps[i].end)
			return true;
	}
	return false;
}

/* The arena: --arena, else arena.h's rule (the plan's size, else the largest). */
static int find_arena(struct ap_analysis *a, const struct ap_analysis_opts *o)
{
	struct ap_arena_cand *c;

	a->arena = -1;
	if (!o->arena_addr && ((struct priv *)a->priv)->n_reg) {
		const struct priv *pv = a->priv;

		/* record --arena ADDR that points nowhere: no arena, not a wrong one */
		if (pv->given && !other_mapping_holds(a, a->arena_base)) {
			snprintf(a->arena_rule, sizeof(a->arena_rule), "record --arena 0x%" PRIx64
				 " is in no mapping of the trace", a->arena_base);
			a->arena_base = a->arena_bytes = 0;
			return 0;
		}
		a->arena = pv->reg[0].map;
		return 0;	/* arena_rule: set by find_region */
	}
	if (o->arena_addr) {
		a->arena = map_containing(a, o->arena_addr);
		snprintf(a->arena_rule, sizeof(a->arena_rule), a->arena >= 0 ?
			 "--arena 0x%" PRIx64 : "--arena 0x%" PRIx64 " is in no mapping",
			 o->arena_addr);
		return 0;
	}
	c = calloc(a->n_maps + 1, sizeof(*c));
	if (!c)
		return -1;
	for (uint32_t i = 0; i < a->n_maps; i++) {
		const struct ap_amap *m = &a->maps[i];

		c[i] = (struct ap_arena_cand){
			.start = m->start, .end = m->end, .first_run = m->first_run,
			.pages = m->first_touch_pages + m->resident_at_attach,
			.anon = m->anon, .path = m->path,
		};
	}
	a->arena = ap_arena_pick(c, a->n_maps, o->plan, a->hdr.page_size, a->arena_rule,
				 sizeof(a->arena_rule));
	free(c);
	return 0;
}

/*
 * A vma seen only through faults (split by mprotect, grown by brk, or gone before a maps
 * snapshot) takes the name of the snapshot mapping that overlaps it.
 */
static int name_by_overlap(struct ap_analysis *a)
{
	for (uint32_t i = 0; i < a->n_maps; i++) {
		struct ap_amap *m = &a->maps[i];

		if (m->named)
			continue;
		for (uint32_t k = 0; k < a->n_maps; k++) {
			const struct ap_amap *n = &a->maps[k];

			if (!n->named || n->end <= m->start || m->end <= n->start ||
			    n->anon != m->anon)
				continue;
			free(m->path);
			m->path = strdup(n->path);
			if (!m->path)
				return -1;
			m->prot = n->prot;
			m->inode = n->inode;
			break;
		}
	}
	return 0;
}

static void assign_roles(struct ap_analysis *a, const struct ap_analysis_opts *o)
{
	const char *model = o->model_path ? base_name(o->model_path) : NULL;

	for (uint32_t i = 0; i < a->n_maps; i++) {
		struct ap_amap *m = &a->maps[i];

		if ((int32_t)i == a->arena)
			m->role = "arena";
		else if (!m->anon && model && !strcmp(base_name(m->path), model))
			m->role = "weights";
		else if (!strcmp(m->path, "[heap]"))
			m->role = "heap";
		else if (!strncmp(m->path, "[stack", 6))
			m->role = "stack";
		else if (m->anon)
			m->role = "anon";
		else if (!m->path[0])
			m->role = "unknown";	/* a file vma never seen in a snapshot */
		else if (m->prot & 4)
			m->role = "code";
		else
			m->role = "file";
	}
}

int32_t ap_analysis_map_of(const struct ap_analysis *a, const struct ap_rec_fault *f)
{
	int32_t r = region_of(a->priv, f->addr);

	if (r >= 0)
		return r;
	if (!(f->flags & AP_FF_VMA_UNKNOWN) && f->vm_end > f->vm_start)
		return map_find(a, f->vm_start, f->vm_end);
	return map_containing(a, f->addr);
}

/*
 * Before the pass: the allocation probe's block for the plan (allocs.h), and the blocks
 * of its re-plans, each a mapping of the pages it spans. 0, or -1 with err.
 */
static int find_region(struct ap_analysis *a, const char *path, const struct ap_analysis_opts *o,
		       char *err)
{
	struct priv *pv = a->priv;
	uint64_t ps = a->hdr.page_size;
	struct ap_arid id;
	int r;

	if (o->arena_addr || !o->plan)
		return 0;
	r = ap_arid_from_trace(path, o->plan->arena_bytes, &id, a->arena_rule,
			       sizeof(a->arena_rule), err);
	if (r <= 0)
		return r;
	a->arena_base = id.base;
	a->arena_bytes = id.bytes;
	pv->given = id.rule == AP_ARID_GIVEN;
	for (uint32_t i = 0; i <= id.n_moves; i++) {
		uint64_t base = i ? id.moves[i - 1].base : id.base;
		uint64_t bytes = i ? id.moves[i - 1].bytes : id.bytes;
		uint64_t start = base & ~(ps - 1), end = (base + bytes + ps - 1) & ~(ps - 1);
		int32_t mi;

		if (region_of(pv, base) >= 0)
			continue;
		mi = map_get(a, start, end);
		if (mi < 0) {
			ap_seterr(err, "out of memory reading %s", path);
			return -1;
		}
		pv->reg[pv->n_reg].start = start;
		pv->reg[pv->n_reg].end = end;
		pv->reg[pv->n_reg++].map = mi;
	}
	return 0;
}

int ap_analysis_run(const char *path, const struct ap_analysis_opts *o,
		    struct ap_analysis *a, char *err)
{
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	struct priv *pv;
	int rc;

	memset(a, 0, sizeof(*a));
	a->arena = -1;
	pv = calloc(1, sizeof(*pv));
	if (!pv) {
		ap_seterr(err, "out of memory");
		return -1;
	}
	a->priv = pv;
	pv->last = -1;
	a->allocs = calloc(1, sizeof(*a->allocs));
	if (!a->allocs) {
		ap_seterr(err, "out of memory");
		return -1;
	}
	ap_pageset_init(&pv->touched);
	if (ap_trace_open(&r, path, err))
		return -1;
	a->hdr = r.hdr;
	for (int i = 0; i < AP_HS_COUNT; i++)
		a->strings[i] = strdup(r.strings[i] ? r.strings[i] : "");
	/* a power of two from 1 KiB to 1 GiB, else the trace is not to be trusted */
	if (a->hdr.page_size < 1024 || a->hdr.page_size > (1u << 30) ||
	    (a->hdr.page_size & (a->hdr.page_size - 1))) {
		ap_seterr(err, "%s: implausible page size %u in the header", path,
			  a->hdr.page_size);
		ap_trace_reader_close(&r);
		return -1;
	}
	pv->page_shift = (uint32_t)__builtin_ctz(a->hdr.page_size);
	if (find_region(a, path, o, err)) {
		ap_trace_reader_close(&r);
		return -1;
	}
	while ((rc = ap_trace_next(&r, &rec, err)) == 1) {
		uint64_t ts = 0;
		int bad = 0;

		if (rec.len >= 8)
			memcpy(&ts, rec.payload, 8);
		switch (rec.type) {
		case AP_REC_FAULT: {
			struct ap_rec_fault f;

			int32_t mi = -1;

			ap_trace_get(&rec, &f, sizeof(f));
			bad = on_fault(a, &f, &mi);
			if (!bad && o->on_fault)
				o->on_fault(o->ctx, a, &f, mi);
			break;
		}
		case AP_REC_MAPPING:
			bad = on_mapping(a, &rec);
			break;
		case AP_REC_RESIDENT:
			bad = on_resident(a, &rec);
			break;
		case AP_REC_RUN_BEGIN:
			a->runs_begun++;
			bad = on_run(a, &rec);
			break;
		case AP_REC_RUN_END:
			a->runs_completed++;
			bad = on_run(a, &rec);
			break;
		case AP_REC_OP_BEGIN:
			a->op_events++;
			break;
		case AP_REC_SAMPLE:
			bad = on_sample(a, &rec);
			break;
		case AP_REC_DROPS:
			ap_trace_get(&rec, &a->drops, sizeof(a->drops));
			break;
		case AP_REC_NOTE:
			bad = add_note(a, ap_trace_str(&rec, sizeof(struct ap_rec_note)));
			ap_allocs_note(a->allocs, ts,
				       ap_trace_str(&rec, sizeof(struct ap_rec_note)));
			break;
		case AP_REC_ALLOC: {
			struct ap_rec_alloc al;

			ap_trace_get(&rec, &al, sizeof(al));
			bad = ap_allocs_add(a->allocs, &al);
			break;
		}
		case AP_REC_END:
			ap_trace_get(&rec, &a->end, sizeof(a->end));
			a->saw_end = true;
			break;
		default:
			ts = 0;
			break;
		}
		if (bad) {
			ap_seterr(err, "out of memory reading %s", path);
			ap_trace_reader_close(&r);
			return -1;
		}
		if (ts && rec.type != AP_REC_HEADER) {
			if (!a->t_first || ts < a->t_first)
				a->t_first = ts;
			if (ts > a->t_last)
				a->t_last = ts;
		}
	}
	a->truncated = r.truncated;
	ap_trace_reader_close(&r);
	if (rc < 0)
		return -1;
	for (uint32_t i = 0; i < a->n_maps; i++) {
		counts_settle(&a->maps[i].by_run);
		counts_settle(&a->maps[i].by_op);
	}
	if (name_by_overlap(a)) {
		ap_seterr(err, "out of memory reading %s", path);
		return -1;
	}
	if (find_arena(a, o)) {
		ap_seterr(err, "out of memory reading %s", path);
		return -1;
	}
	assign_roles(a, o);
	/* the allocation probe's re-planned arenas (find_region) */
	for (uint32_t i = 1; i < pv->n_reg; i++)
		a->maps[pv->reg[i].map].role = AP_ROLE_MOVED_ARENA;
	return 0;
}

void ap_analysis_free(struct ap_analysis *a)
{
	struct priv *pv = a->priv;

	for (int i = 0; i < AP_HS_COUNT; i++)
		free(a->strings[i]);
	for (uint32_t i = 0; i < a->n_maps; i++) {
		free(a->maps[i].path);
		free(a->maps[i].by_run.e);
		free(a->maps[i].by_op.e);
	}
	free(a->maps);
	free(a->touches);
	free(a->samples);
	for (uint32_t i = 0; i < a->n_notes; i++)
		free(a->notes[i]);
	free(a->notes);
	if (a->allocs) {
		ap_allocs_free(a->allocs);
		free(a->allocs);
	}
	free(a->run_ns);
	if (pv) {
		ap_pageset_free(&pv->touched);
		free(pv->run_begin);
		ap_mapindex_free(&pv->index);
		free(pv);
	}
	memset(a, 0, sizeof(*a));
}
