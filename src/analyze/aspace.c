// SPDX-License-Identifier: Apache-2.0
/* aspace: the one model of a traced address space (aspace.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/aspace.h"
#include "arenaprof/analyze/symname.h"
#include "arenaprof/event.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"

_Static_assert(AP_AS_MAP_BITS == AP_PAGESET_RUN_BITS, "one page set run per mapping");

void ap_as_init(struct ap_aspace *s, uint32_t page_size)
{
	memset(s, 0, sizeof(*s));
	ap_pageset_init(&s->held);
	s->page_size = page_size;
	s->page_shift = (uint32_t)__builtin_ctz(page_size);
	s->last = -1;
}

/*
 * Counts arrive mostly in runs of one index (a run's first touches, an operator's): the
 * last entry takes them, a new index is appended, and settle sorts and merges them. One
 * entry per change of index at most: bounded by the first touches.
 */
static int counts_add(struct ap_counts *c, int32_t idx, uint64_t v)
{
	if (idx < 0)
		idx = -1;
	if (c->n && c->e[c->n - 1].idx == idx) {
		c->e[c->n - 1].v += v;
		return 0;
	}
	if (ap_grow32(&c->e, &c->cap, c->n, sizeof(*c->e), 1))
		return -ENOMEM;
	c->e[c->n++] = (struct ap_count){ .idx = idx, .v = v };
	return 0;
}

static int cmp_count(const void *x, const void *y)
{
	const struct ap_count *a = x, *b = y;

	return AP_CMP(a->idx, b->idx);
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
	/* a first touch moved to another mapping leaves a count of 0 behind */
	for (uint32_t i = k = 0; i < c->n; i++)
		if (c->e[i].v)
			c->e[k++] = c->e[i];
	c->n = k;
}

void ap_as_settle(struct ap_aspace *s)
{
	for (uint32_t i = 0; i < s->n_maps; i++) {
		counts_settle(&s->maps[i].by_run);
		counts_settle(&s->maps[i].by_op);
	}
}

int32_t ap_as_map_find(const struct ap_aspace *s, uint64_t start, uint64_t end)
{
	return ap_mapindex_find(&s->index, start, end);
}

int32_t ap_as_map_get(struct ap_aspace *s, uint64_t start, uint64_t end)
{
	int32_t mi = end > start ? ap_mapindex_find(&s->index, start, end) : AP_AS_EMPTY;
	struct ap_amap *m;

	if (mi >= 0 || mi == AP_AS_EMPTY)
		return mi;
	if (ap_grow32(&s->maps, &s->cap_maps, s->n_maps, sizeof(*s->maps), 32))
		return -ENOMEM;
	m = &s->maps[s->n_maps];
	memset(m, 0, sizeof(*m));
	m->start = start;
	m->end = end;
	m->path = strdup("");
	m->anon = true;
	m->role = "anon";
	m->first_run = INT32_MAX;
	if (!m->path || ap_mapindex_add(&s->index, start, end, (int32_t)s->n_maps)) {
		free(m->path);
		return -ENOMEM;
	}
	s->n_maps++;
	if (s->map_new && s->map_new(s->ctx, s->n_maps - 1))
		return -ENOMEM;
	return (int32_t)s->n_maps - 1;
}

/*
 * Painted in the order they were made, when a look-up first needs them (a fault of
 * unknown vma, a call site to name): painting every map as it came was most of the cost
 * of a million vmas. The painting is a cache of the model, so a const model paints too.
 */
int32_t ap_as_map_at(const struct ap_aspace *cs, uint64_t addr)
{
	struct ap_aspace *s = (struct ap_aspace *)cs;	/* the painting is a cache */

	for (; s->painted < s->n_maps && !s->paint_oom; s->painted++)
		s->paint_oom = ap_newest_add(&s->newest, s->maps[s->painted].start,
					     s->maps[s->painted].end,
					     (int32_t)s->painted) != 0;
	if (!s->paint_oom)
		return ap_newest_at(&s->newest, addr);
	for (uint32_t i = s->n_maps; i-- > 0;)	/* out of memory: the scan */
		if (s->maps[i].start <= addr && addr < s->maps[i].end)
			return (int32_t)i;
	return -1;
}

int ap_as_rename(struct ap_aspace *s, int32_t mi, const char *path)
{
	char *p = strdup(path);

	if (!p)
		return -ENOMEM;
	free(s->maps[mi].path);
	s->maps[mi].path = p;
	s->files_stale = true;
	return 0;
}

static bool names_file(const struct ap_amap *m)
{
	return !m->anon && m->named && m->path[0] == '/' && m->start < m->end;
}

/* The painting of the named files, up to date; -ENOMEM. */
static int paint_files(struct ap_aspace *s)
{
	if (!s->files_stale && s->files_of == s->n_maps)
		return 0;
	ap_newest_free(&s->files);
	for (uint32_t i = s->n_maps; i-- > 0;)
		if (names_file(&s->maps[i]) &&
		    ap_newest_add(&s->files, s->maps[i].start, s->maps[i].end, (int32_t)i)) {
			ap_newest_free(&s->files);
			s->files_of = UINT32_MAX;
			return -ENOMEM;
		}
	s->files_of = s->n_maps;
	s->files_stale = false;
	return 0;
}

int32_t ap_as_file_at(const struct ap_aspace *cs, uint64_t addr)
{
	struct ap_aspace *s = (struct ap_aspace *)cs;	/* the painting is a cache */

	if (!paint_files(s))
		return ap_newest_at(&s->files, addr);
	for (uint32_t i = 0; i < s->n_maps; i++)	/* no memory to paint: a scan */
		if (names_file(&s->maps[i]) && s->maps[i].start <= addr && addr < s->maps[i].end)
			return (int32_t)i;
	return -1;
}

const char *ap_as_addr_name(const struct ap_aspace *s, uint64_t addr, char *buf, size_t len)
{
	int32_t i = ap_as_file_at(s, addr);
	const struct ap_amap *m = i >= 0 ? &s->maps[i] : NULL;

	/* names only from the file that was mapped: a rebuilt binary, or another machine's
	 * file at the same path, would give wrong ones */
	if (m)
		return ap_file_addr_name(m->path, m->inode, addr - m->start + m->offset, buf, len);
	snprintf(buf, len, "0x%" PRIx64, addr);
	return buf;
}

int ap_as_name(struct ap_aspace *s, int32_t mi, const char *path, uint64_t offset,
	       uint64_t inode, uint32_t prot)
{
	struct ap_amap *m = &s->maps[mi];

	if (ap_as_rename(s, mi, path))
		return -ENOMEM;
	m->named = true;
	m->offset = offset;
	m->inode = inode;
	m->prot = prot;
	m->anon = !inode && (!path[0] || path[0] == '[');
	return 0;
}

/* The mapping of a fault that is not in a block the driver keeps apart, -1 none, or
 * -ENOMEM. */
static int32_t fault_map(struct ap_aspace *s, const struct ap_as_fault *f, int *bits)
{
	int32_t mi;
	bool anon;

	if ((f->flags & AP_FF_VMA_UNKNOWN) || f->vm_end <= f->vm_start) {
		s->faults_vma_unknown++;
		return ap_as_map_at(s, f->addr);
	}
	if (s->last >= 0 && s->maps[s->last].start == f->vm_start &&
	    s->maps[s->last].end == f->vm_end)
		mi = s->last;
	else
		mi = ap_as_map_get(s, f->vm_start, f->vm_end);
	if (mi < 0)
		return -ENOMEM;
	anon = !(f->flags & AP_FF_VMA_FILE);
	if (s->maps[mi].anon != anon) {
		s->maps[mi].anon = anon;
		*bits |= AP_AS_KIND;
	}
	return mi;
}

int ap_as_fault(struct ap_aspace *s, const struct ap_as_fault *f, int32_t in, int32_t *mi_out)
{
	struct ap_amap *m;
	int bits = 0, r;
	int32_t mi = in >= 0 ? in : fault_map(s, f, &bits);
	uint64_t page;

	*mi_out = mi < 0 ? -1 : mi;
	if (mi == -ENOMEM)
		return -ENOMEM;
	if (mi < 0)
		return bits;
	bits |= AP_AS_COUNTED;
	s->last = mi;
	m = &s->maps[mi];
	m->faults++;
	if (f->flags & AP_FF_MAJOR)
		m->major++;
	if (f->flags & AP_FF_WRITE)
		m->writes++;
	if (f->addr < m->start || f->addr >= m->end)
		return bits;
	page = (f->addr - m->start) >> s->page_shift;
	r = ap_pageset_add(&s->held, (uint64_t)mi << AP_AS_MAP_BITS | page);
	if (r <= 0)
		return r < 0 ? -ENOMEM : bits;
	m->first_touch_pages++;
	if (ap_grow(&s->touches, &s->cap_touches, s->n_touches, sizeof(*s->touches), 4096))
		return -ENOMEM;
	s->touches[s->n_touches++] = (struct ap_touch){
		.map = (uint32_t)mi, .run = f->run, .op = f->op, .flags = f->flags,
		.page = page, .ts_ns = f->ts_ns,
		.in_page = (uint32_t)(f->addr & (s->page_size - 1)), .tid = f->tid,
	};
	if (f->run < m->first_run)
		m->first_run = f->run;
	if (s->by_index && (counts_add(&m->by_run, f->run, 1) || counts_add(&m->by_op, f->op, 1)))
		return -ENOMEM;
	return bits | AP_AS_FIRST;
}

int64_t ap_as_resident(struct ap_aspace *s, int32_t mi, const uint8_t *bits, uint64_t nbits)
{
	const struct ap_amap *m = &s->maps[mi];
	uint64_t pages = (m->end - m->start) >> s->page_shift;
	int64_t added = ap_pageset_add_bits(&s->held, (uint64_t)mi, bits,
					    pages < nbits ? pages : nbits);

	if (added > 0)
		s->maps[mi].resident_at_attach += (uint64_t)added;
	return added;
}

/* Counts may go to 0 on the way (settle drops them). */
int ap_as_move_touch(struct ap_aspace *s, struct ap_touch *t, int32_t to)
{
	struct ap_amap *x = &s->maps[t->map], *y = &s->maps[to];
	uint64_t page = x->start + (t->page << s->page_shift);

	x->faults--;
	x->first_touch_pages--;
	x->major -= !!(t->flags & AP_FF_MAJOR);
	x->writes -= !!(t->flags & AP_FF_WRITE);
	y->faults++;
	y->first_touch_pages++;
	y->major += !!(t->flags & AP_FF_MAJOR);
	y->writes += !!(t->flags & AP_FF_WRITE);
	t->map = (uint32_t)to;
	t->page = (page - y->start) >> s->page_shift;
	if (t->run < y->first_run)
		y->first_run = t->run;
	if (s->by_index && (counts_add(&x->by_run, t->run, UINT64_MAX) ||
			    counts_add(&x->by_op, t->op, UINT64_MAX) ||
			    counts_add(&y->by_run, t->run, 1) || counts_add(&y->by_op, t->op, 1)))
		return -ENOMEM;
	return ap_pageset_add(&s->held, (uint64_t)to << AP_AS_MAP_BITS | t->page) < 0 ? -ENOMEM : 0;
}

void ap_as_free(struct ap_aspace *s)
{
	for (uint32_t i = 0; i < s->n_maps; i++) {
		free(s->maps[i].path);
		free(s->maps[i].by_run.e);
		free(s->maps[i].by_op.e);
	}
	free(s->maps);
	free(s->touches);
	ap_pageset_free(&s->held);
	ap_mapindex_free(&s->index);
	ap_newest_free(&s->newest);
	ap_newest_free(&s->files);
	memset(s, 0, sizeof(*s));
	s->last = -1;
}
