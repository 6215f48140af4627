// SPDX-License-Identifier: Apache-2.0
/* correlate: arena base, plan and marker attribution, groups, verdict (correlate.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/util/sort.h"

/* Below these the plan is said not to describe the trace (see corr_verdict). */
#define AGREE_MIN 0.5		/* plan vs marker agreement over first-touch pages */
#define ORDER_MIN 0.8		/* without markers: first touches in plan order */
#define UNEXPLAINED_MAX 0.1	/* first touches no planned tensor covers */

static const char *const group_names[AP_GROUP_COUNT] = {
	[AP_GROUP_ARENA] = "arena", [AP_GROUP_WEIGHTS] = "weights", [AP_GROUP_HEAP] = "heap",
	[AP_GROUP_STACK] = "stack", [AP_GROUP_ANON] = "other anonymous",
	[AP_GROUP_FILES] = "code and other files",
};

const char *ap_group_name(enum ap_group g)
{
	return g < AP_GROUP_COUNT ? group_names[g] : "?";
}

enum ap_group ap_corr_group_of(const struct ap_analysis *a, int32_t mi)
{
	const char *role;

	if (mi < 0 || (uint32_t)mi >= a->n_maps)
		return AP_GROUP_FILES;
	if (mi == a->arena)
		return AP_GROUP_ARENA;
	role = a->maps[mi].role;
	if (!strcmp(role, "weights"))
		return AP_GROUP_WEIGHTS;
	if (!strcmp(role, "heap"))
		return AP_GROUP_HEAP;
	if (!strcmp(role, "stack"))
		return AP_GROUP_STACK;
	if (a->maps[mi].anon)
		return AP_GROUP_ANON;
	return AP_GROUP_FILES;
}

int32_t ap_corr_writer(const struct ap_tplan *p, const struct ap_ptensor *t)
{
	if (t->offset < 0 || !t->bytes)
		return AP_OP_NONE;
	if (t->kind == AP_KIND_INPUT)
		return -1;
	if ((t->kind == AP_KIND_ARENA || t->kind == AP_KIND_OUTPUT ||
	     t->kind == AP_KIND_TEMPORARY) && t->first >= 0 && (uint32_t)t->first < p->n_ops)
		return t->first;
	return AP_OP_NONE;
}

const char *ap_corr_op_label(const struct ap_tplan *p, int32_t op, char *buf, int len)
{
	if (op == -1)
		snprintf(buf, (size_t)len, "-1 input");
	else if (p && op >= 0 && (uint32_t)op < p->n_ops)
		snprintf(buf, (size_t)len, "%d %s", op,
			 ap_text_safe(p->ops[op].opname, (char[128]){ 0 }, 128));
	else if (op == AP_OP_NONE)
		snprintf(buf, (size_t)len, "none");
	else
		snprintf(buf, (size_t)len, "%d", op);
	return buf;
}

double ap_corr_agreement(const struct ap_corr *c)
{
	return c->compared ? (double)c->agree / (double)c->compared : 0;
}

static void reason(struct ap_corr *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void reason(struct ap_corr *c, const char *fmt, ...)
{
	va_list ap;

	c->mismatch = true;
	if (c->n_reasons >= AP_CORR_MAX_REASONS)
		return;
	va_start(ap, fmt);
	vsnprintf(c->reasons[c->n_reasons++], sizeof(c->reasons[0]), fmt, ap);
	va_end(ap);
}

static void groups(const struct ap_analysis *a, struct ap_corr *c)
{
	for (uint32_t i = 0; i < a->n_maps; i++) {
		const struct ap_amap *m = &a->maps[i];
		struct ap_corr_group *g = &c->groups[ap_corr_group_of(a, (int32_t)i)];

		if (!m->faults && !m->resident_at_attach)
			continue;
		g->mappings++;
		g->faults += m->faults;
		g->first_touch_pages += m->first_touch_pages;
		g->resident_bytes += (m->first_touch_pages + m->resident_at_attach) *
				     a->hdr.page_size;
	}
}

/*
 * Plan attribution of every page of the arena mapping for a base delta bytes past its
 * start: the earliest writer of the planned tensors that cover any byte of the page. The
 * rule is arena.h's (ap_arena_page_owners), taken at a granularity of `gran` bytes (blk)
 * so that a base that is not page-aligned shifts it exactly. Returns the pages the plan's
 * extent reaches.
 */
static uint64_t page_table(const struct ap_tplan *p, const int32_t *blk, uint64_t n_blk,
			   uint64_t gran, uint64_t ps, uint64_t n_pages, int64_t delta,
			   int32_t *op)
{
	uint64_t d = (uint64_t)delta;

	for (uint64_t j = 0; j < n_pages; j++) {
		uint64_t lo = j * ps, hi = lo + ps;	/* mapping bytes [lo, hi) */
		int32_t best = AP_OP_NONE;

		op[j] = AP_OP_NONE;
		if (hi <= d)
			continue;
		lo = lo > d ? lo - d : 0;	/* plan bytes [lo, hi) */
		hi -= d;
		for (uint64_t b = lo / gran; b < n_blk && b * gran < hi; b++)
			if (blk[b] != AP_OP_NONE && (best == AP_OP_NONE || blk[b] < best))
				best = blk[b];
		op[j] = best;
	}
	return (p->arena_bytes + d + ps - 1) / ps;
}

/* The tensor that names each page's plan attribution (its writer is the page's). */
static void page_tensors(const struct ap_tplan *p, uint64_t ps, uint64_t n_pages,
			 int64_t delta, const int32_t *op, int32_t *tensor)
{
	for (uint64_t j = 0; j < n_pages; j++)
		tensor[j] = -1;
	for (uint32_t i = 0; i < p->n; i++) {
		const struct ap_ptensor *t = &p->t[i];
		int32_t w = ap_corr_writer(p, t);
		uint64_t lo, hi;

		if (w == AP_OP_NONE)
			continue;
		lo = (uint64_t)t->offset + (uint64_t)delta;
		hi = lo + t->bytes - 1;
		for (uint64_t pg = lo / ps; pg <= hi / ps && pg < n_pages; pg++)
			if (tensor[pg] < 0 && op[pg] == w)
				tensor[pg] = (int32_t)i;
	}
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return (a > b) - (a < b);
}

/* Sorted start offsets of the planned tensors (with a writer). */
static int64_t *tensor_starts(const struct ap_tplan *p, uint32_t *n)
{
	int64_t *v = malloc((p->n + 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (uint32_t i = 0; i < p->n; i++)
		if (ap_corr_writer(p, &p->t[i]) != AP_OP_NONE)
			v[(*n)++] = p->t[i].offset;
	ap_qsort(v, *n, sizeof(*v), cmp_i64);
	return v;
}

static bool is_start(const int64_t *v, uint32_t n, int64_t off)
{
	return n && bsearch(&off, v, n, sizeof(*v), cmp_i64);
}

/*
 * Longest non-decreasing subsequence of (run, plan op) over the first touches in trace
 * order: operators run in order, so a right base puts nearly all of them in it.
 */
static uint64_t in_order(const struct ap_analysis *a, const int32_t *op, uint64_t n_pages,
			 int64_t *tails)
{
	uint64_t len = 0;

	for (uint64_t i = 0; i < a->n_touches; i++) {
		const struct ap_touch *t = &a->touches[i];
		uint64_t lo = 0, hi;
		int64_t key;

		if ((int32_t)t->map != a->arena || t->page >= n_pages || op[t->page] == AP_OP_NONE)
			continue;
		key = (int64_t)t->run * 4294967296LL + (int64_t)op[t->page] + 1;
		hi = len;
		while (lo < hi) {	/* first tail > key */
			uint64_t mid = (lo + hi) / 2;

			if (tails[mid] <= key)
				lo = mid + 1;
			else
				hi = mid;
		}
		tails[lo] = key;
		if (lo == len)
			len++;
	}
	return len;
}

struct scratch {
	int32_t *op;
	int64_t *starts, *tails;
	uint32_t n_starts;
	int32_t *blk;		/* plan owners per gran bytes */
	uint64_t n_blk, gran;
};

static void score(const struct ap_analysis *a, struct ap_corr *c, struct scratch *s,
		  bool markers, struct ap_corr_cand *cd)
{
	uint64_t ps = c->page_size;

	cd->explained = cd->exact = 0;
	for (uint64_t i = 0; i < a->n_touches; i++) {
		const struct ap_touch *t = &a->touches[i];
		int64_t off;

		if ((int32_t)t->map != a->arena || t->page >= c->n_pages)
			continue;
		if (markers && s->op[t->page] == t->op)
			cd->explained++;
		off = (int64_t)(t->page * ps + t->in_page) - cd->delta;
		/* a fault mid-page starts a tensor; one at a page start continues a range */
		if ((t->in_page || !off) && is_start(s->starts, s->n_starts, off))
			cd->exact++;
	}
	if (!markers)
		cd->explained = in_order(a, s->op, c->n_pages, s->tails);
}

static const char *delta_kind(int64_t d)
{
	if (!d)
		return "the mapping start";
	if (d < 64)
		return "past a malloc chunk header";
	return "a 64-byte-aligned block start";
}

/* Tries the candidate bases; leaves the best in c->delta and c->cand sorted best first. */
static void find_base(const struct ap_analysis *a, struct ap_corr *c, const struct ap_tplan *p,
		      struct scratch *s, bool markers)
{
	static const int64_t extra[] = { 64, 16, 8 };
	uint64_t map_bytes = c->map_end - c->map_start;
	uint64_t touches = c->ft_pages;

	c->n_cand = 0;
	for (int k = -1; k <= 16 && c->n_cand < AP_CORR_MAX_CAND; k++) {
		int64_t d = k < 0 ? 0 : k < 3 ? extra[k] : 64 * (k - 1);
		struct ap_corr_cand *cd = &c->cand[c->n_cand];

		if (k >= 3 && d == 64)
			continue;
		if (d && (uint64_t)d + p->arena_bytes > map_bytes)
			continue;	/* the plan would not fit past this base */
		cd->delta = d;
		page_table(p, s->blk, s->n_blk, s->gran, c->page_size, c->n_pages, d, s->op);
		score(a, c, s, markers, cd);
		c->n_cand++;
	}
	/* best first: explained, then exact starts, then the order tried (start first) */
	for (uint32_t i = 1; i < c->n_cand; i++) {
		struct ap_corr_cand v = c->cand[i];
		uint32_t j = i;

		while (j > 0 && (v.explained > c->cand[j - 1].explained ||
				 (v.explained == c->cand[j - 1].explained &&
				  v.exact > c->cand[j - 1].exact))) {
			c->cand[j] = c->cand[j - 1];
			j--;
		}
		c->cand[j] = v;
	}
	c->delta = c->cand[0].delta;
	{
		int n = snprintf(c->base_rule, sizeof(c->base_rule),
				 "mapping start + %" PRId64 " (%s), best of %u candidates: the "
				 "plan explains %" PRIu64 " of %" PRIu64 " first touches (%s), %"
				 PRIu64 " faults at planned tensor starts", c->delta,
				 delta_kind(c->delta), c->n_cand,
				 c->cand[0].explained, touches, markers ?
				 "same operator as the op marker" : "in execution order",
				 c->cand[0].exact);

		if (c->n_cand > 1 && n > 0 && (size_t)n < sizeof(c->base_rule))
			snprintf(c->base_rule + n, sizeof(c->base_rule) - (size_t)n,
				 "; next +%" PRId64 ": %" PRIu64 ", %" PRIu64, c->cand[1].delta,
				 c->cand[1].explained, c->cand[1].exact);
	}
}

static int add_dis(struct ap_corr *c, uint64_t *cap, const struct ap_corr_disagree *d)
{
	if (c->n_dis == *cap) {
		uint64_t n = *cap ? 2 * *cap : 64;
		struct ap_corr_disagree *v = realloc(c->dis, n * sizeof(*v));

		if (!v)
			return -1;
		c->dis = v;
		*cap = n;
	}
	c->dis[c->n_dis++] = *d;
	return 0;
}

static int attribute(const struct ap_analysis *a, struct ap_corr *c)
{
	uint64_t cap = 0;

	for (uint64_t i = 0; i < a->n_touches; i++) {
		const struct ap_touch *t = &a->touches[i];
		int32_t po;

		if ((int32_t)t->map != a->arena || t->page >= c->n_pages)
			continue;
		po = c->page_op[t->page];
		if (po != AP_OP_NONE)
			c->ops[po + 1].plan_pages++;
		else if (t->page >= c->plan_pages)
			c->beyond_pages++;
		else
			c->unplanned_pages++;
		if (!c->have_markers)
			continue;
		if (t->op >= -1 && t->op < (int32_t)c->n_ops)
			c->ops[t->op + 1].marker_pages++;
		else
			c->marker_other_pages++;
		c->compared++;
		if (po == t->op) {
			c->agree++;
		} else {
			struct ap_corr_disagree d = {
				.page = t->page, .run = t->run, .plan_op = po, .marker_op = t->op,
				.tensor = c->page_tensor[t->page],
			};

			if (add_dis(c, &cap, &d))
				return -1;
		}
	}
	return 0;
}

static void verdict(const struct ap_analysis *a, const struct ap_tplan *p, struct ap_corr *c)
{
	uint64_t ps = c->page_size, map_bytes = c->map_end - c->map_start;
	uint64_t extent = p->arena_bytes + (uint64_t)c->delta;
	uint64_t extent_pages = (extent + ps - 1) / ps;

	if (extent > map_bytes)
		reason(c, "arena size mismatch: the plan's %" PRIu64 "-byte arena does not fit "
		       "in the %" PRIu64 "-byte mapping", p->arena_bytes, map_bytes);
	else if (!a->arena_base && map_bytes > (extent_pages + 2) * ps)	/* not in [heap] */
		reason(c, "arena size mismatch: the mapping (%" PRIu64 " bytes) is larger than "
		       "the plan's arena (%" PRIu64 " bytes) and its malloc slack",
		       map_bytes, p->arena_bytes);
	if (!c->ft_pages)
		return;
	if (c->have_markers && ap_corr_agreement(c) < AGREE_MIN)
		reason(c, "plan and marker attribution agree on only %.1f %% of %" PRIu64
		       " first-touch pages", 100 * ap_corr_agreement(c), c->compared);
	if (!c->have_markers && (double)c->order_ok < ORDER_MIN * (double)c->ft_pages)
		reason(c, "only %" PRIu64 " of %" PRIu64 " first touches follow the plan's "
		       "operator order", c->order_ok, c->ft_pages);
	if ((double)(c->unplanned_pages + c->beyond_pages) >
	    UNEXPLAINED_MAX * (double)c->ft_pages)
		reason(c, "%" PRIu64 " of %" PRIu64 " first-touch pages lie where the plan "
		       "puts no tensor (%" PRIu64 " past its end)",
		       c->unplanned_pages + c->beyond_pages, c->ft_pages, c->beyond_pages);
}

int ap_corr_build(const struct ap_analysis *a, const struct ap_tplan *p,
		  const struct ap_corr_opts *o, struct ap_corr *c, char *err)
{
	static const struct ap_corr_opts none = { 0 };
	struct scratch s = { 0 };
	struct ap_profile pr;
	const struct ap_amap *m;

	memset(c, 0, sizeof(*c));
	if (!o)
		o = &none;
	c->arena = a->arena;
	c->widest_op = -1;
	c->page_size = a->hdr.page_size ? a->hdr.page_size : 4096;
	c->have_markers = a->op_events > 0 ||
			  (a->strings[AP_HS_OP_PROBE] && a->strings[AP_HS_OP_PROBE][0]);
	groups(a, c);
	if (!p)
		return 0;
	c->have_plan = true;
	c->n_ops = p->n_ops;
	c->ops = calloc(p->n_ops + 1, sizeof(*c->ops));
	if (!c->ops)
		goto oom;
	if (!ap_profile_compute(p, &pr)) {
		c->widest_op = pr.widest_op;
		c->widest_bytes = pr.lower_bound;
		ap_profile_free(&pr);
	}
	if (a->arena < 0) {
		reason(c, "no arena mapping in the trace: %s", a->arena_rule);
		return 0;
	}
	m = &a->maps[a->arena];
	/* a trace names any range: the page tables below stay within AP_CORR_MAX_PAGES */
	if (m->end <= m->start || (m->end - m->start) / c->page_size > AP_CORR_MAX_PAGES) {
		reason(c, "the arena mapping 0x%" PRIx64 "-0x%" PRIx64 " spans more than "
		       "%u pages: not attributed", m->start, m->end, AP_CORR_MAX_PAGES);
		c->arena = -1;
		return 0;
	}
	c->map_start = m->start;
	c->map_end = m->end;
	c->n_pages = (m->end - m->start) / c->page_size;
	for (uint64_t i = 0; i < a->n_touches; i++)
		c->ft_pages += (int32_t)a->touches[i].map == a->arena;
	c->page_op = malloc((c->n_pages + 1) * sizeof(*c->page_op));
	c->page_tensor = malloc((c->n_pages + 1) * sizeof(*c->page_tensor));
	s.op = malloc((c->n_pages + 1) * sizeof(*s.op));
	s.tails = malloc((c->ft_pages + 1) * sizeof(*s.tails));
	s.starts = tensor_starts(p, &s.n_starts);
	/* 8-byte blocks (malloc headers are 8 or 16 bytes), coarser for huge arenas */
	for (s.gran = 8; p->arena_bytes / s.gran > (2u << 20); s.gran *= 2)
		;
	{
		int64_t n = ap_arena_page_owners(p, s.gran, &s.blk);

		if (n < 0)
			goto oom;
		s.n_blk = (uint64_t)n;
	}
	if (!c->page_op || !c->page_tensor || !s.op || !s.tails || !s.starts)
		goto oom;
	if (o->arena_base) {
		c->base_forced = true;
		c->delta = (int64_t)(o->arena_base - m->start);
		snprintf(c->base_rule, sizeof(c->base_rule), "--arena-base 0x%" PRIx64
			 " (mapping start + %" PRId64 ")", o->arena_base, c->delta);
	} else if (a->arena_base >= m->start && a->arena_base < m->end) {
		c->delta = (int64_t)(a->arena_base - m->start);
		snprintf(c->base_rule, sizeof(c->base_rule), "the arena allocation at 0x%" PRIx64
			 " (mapping start + %" PRId64 ")", a->arena_base, c->delta);
	} else {
		find_base(a, c, p, &s, c->have_markers);
	}
	c->base = m->start + (uint64_t)c->delta;
	c->plan_pages = page_table(p, s.blk, s.n_blk, s.gran, c->page_size, c->n_pages,
				   c->delta, c->page_op);
	page_tensors(p, c->page_size, c->n_pages, c->delta, c->page_op, c->page_tensor);
	c->order_ok = in_order(a, c->page_op, c->n_pages, s.tails);
	if (attribute(a, c))
		goto oom;
	verdict(a, p, c);
	free(s.op);
	free(s.tails);
	free(s.starts);
	free(s.blk);
	return 0;
oom:
	free(s.op);
	free(s.tails);
	free(s.starts);
	free(s.blk);
	ap_corr_free(c);
	ap_seterr(err, "out of memory correlating the trace with the plan");
	return -1;
}

void ap_corr_free(struct ap_corr *c)
{
	free(c->page_op);
	free(c->page_tensor);
	free(c->ops);
	free(c->dis);
	memset(c, 0, sizeof(*c));
	c->arena = -1;
	c->widest_op = -1;
}

int ap_corr_load(const struct ap_corr_in *in, struct ap_corr_all *x, char *err)
{
	struct ap_analysis_opts ao = { 0 };
	struct ap_corr_opts co = { .arena_base = in->arena_base };

	memset(x, 0, sizeof(*x));
	x->a.arena = -1;
	x->c.arena = -1;
	if (in->plan_path) {
		if (ap_plan_load(in->plan_path, &x->plan, err))
			return AP_EXIT_USAGE;
		x->have_plan = true;
		ao.plan = &x->plan;
		ao.model_path = in->plan_path;
	}
	ao.arena_addr = in->arena_base ? in->arena_base : in->arena_addr;
	ao.on_fault = in->on_fault;
	ao.ctx = in->ctx;
	if (ap_analysis_run(in->trace, &ao, &x->a, err))
		return strstr(err, "out of memory") ? AP_EXIT_RUNTIME : AP_EXIT_USAGE;
	if (in->arena_base && x->a.arena < 0) {
		ap_seterr(err, "--arena-base 0x%" PRIx64 " is in no mapping of the trace",
			  in->arena_base);
		return AP_EXIT_USAGE;
	}
	if (ap_corr_build(&x->a, x->have_plan ? &x->plan : NULL, &co, &x->c, err))
		return AP_EXIT_RUNTIME;
	return 0;
}

void ap_corr_all_free(struct ap_corr_all *x)
{
	ap_corr_free(&x->c);
	ap_analysis_free(&x->a);
	if (x->have_plan)
		ap_tplan_free(&x->plan);
	memset(x, 0, sizeof(*x));
}

const char *ap_corr_short_name(const char *name, char *buf, size_t len)
{
	size_t n = strcspn(name ? name : "", ";"), k;
	char part[512], whole[1024];

	if (!len)
		return "";
	if (n >= sizeof(part))
		n = sizeof(part) - 1;
	memcpy(part, name ? name : "", n);
	part[n] = '\0';
	ap_text_safe(part, whole, sizeof(whole));
	k = strlen(whole);
	if (k < len || len <= 4) {
		ap_text_safe(whole, buf, len);
		return buf;
	}
	/* cut at a character boundary, then "..." */
	ap_text_safe(whole, buf, len - 3);
	strcat(buf, "...");
	return buf;
}

