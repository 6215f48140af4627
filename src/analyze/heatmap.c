// SPDX-License-Identifier: Apache-2.0
/* heatmap: the matrix every renderer draws, and its colour scale (heatmap.h). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/analyze/heatmap.h"
#include "arenaprof/analyze/replay.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/util/units.h"

/* ---- colour scale: inferno, reversed: a count of 1 is light orange, the max near black */

static const uint8_t inferno[11][3] = {
	{ 0, 0, 4 }, { 22, 11, 57 }, { 66, 10, 104 }, { 106, 23, 110 }, { 147, 38, 103 },
	{ 188, 55, 84 }, { 221, 81, 58 }, { 243, 120, 25 }, { 252, 165, 10 },
	{ 246, 215, 70 }, { 252, 255, 164 },
};

void ap_hm_rgb_at(double t, uint8_t rgb[3])
{
	double pos, f;
	int i;

	if (t < 0)
		t = 0;
	if (t > 1)
		t = 1;
	pos = (0.85 - 0.8 * t) * 10;	/* palette 0.85 (light) .. 0.05 (dark) */
	i = (int)pos;
	if (i >= 10)
		i = 9;
	f = pos - i;
	for (int k = 0; k < 3; k++)
		rgb[k] = (uint8_t)lround(inferno[i][k] + f * (inferno[i + 1][k] - inferno[i][k]));
}

bool ap_hm_log_scale(const struct ap_heatmap *h)
{
	return h->max > 16;
}

void ap_hm_rgb(const struct ap_heatmap *h, uint64_t v, uint8_t rgb[3])
{
	double t;

	if (!v) {
		rgb[0] = rgb[1] = rgb[2] = 255;
		return;
	}
	if (h->max <= 1)
		t = 1;
	else if (ap_hm_log_scale(h))
		t = log((double)v) / log((double)h->max);
	else
		t = (double)(v - 1) / (double)(h->max - 1);
	ap_hm_rgb_at(t, rgb);
}

const char *ap_hm_offset(int64_t off, char *buf)
{
	uint64_t v = off < 0 ? (uint64_t)-off : (uint64_t)off;
	const char *sign = off < 0 ? "-" : "";

	if (v >= (1u << 20) && v % (1u << 20) == 0)
		snprintf(buf, 32, "%s%" PRIu64 " MiB", sign, v >> 20);
	else if (v >= (1u << 20))
		snprintf(buf, 32, "%s%.2f MiB", sign, (double)v / (1u << 20));
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, 32, "%s%" PRIu64 " KiB", sign, v >> 10);
	else if (v >= 1024)
		snprintf(buf, 32, "%s%.1f KiB", sign, (double)v / 1024);
	else
		snprintf(buf, 32, "%s%" PRIu64, sign, v);
	return buf;
}

/*
 * A label that fits w columns: "index opcode" kept whole when it leaves room, the name
 * after it cut in the middle ("4 DEPTHWISE_CONV_2D Mobi~e/Relu6"), so rows whose names
 * differ only at the end stay apart. s is terminal-safe (ASCII, '?' for the rest): one
 * byte, one column.
 */
const char *ap_hm_fit_label(const char *s, unsigned w, char *buf, size_t len)
{
	size_t n = strlen(s), keep = 0, head, room;
	const char *sp = strchr(s, ' ');

	if (n <= w || w < 5 || w >= len)
		return s;
	if (sp && (sp = strchr(sp + 1, ' ')) && (size_t)(sp + 1 - s) + 4 <= w)
		keep = (size_t)(sp + 1 - s);	/* "index opcode " */
	room = w - keep;
	head = (room - 1) / 2;
	memcpy(buf, s, keep + head);
	buf[keep + head] = '~';
	memcpy(buf + keep + head + 1, s + n - (room - 1 - head), room - 1 - head);
	buf[w] = '\0';
	return buf;
}

/* Bytes per axis tick: a power-of-two multiple of the page giving at most 10 ticks. */
uint64_t ap_hm_tick_step(const struct ap_heatmap *h)
{
	uint64_t span = h->cols * h->col_bytes, step = h->page_size;

	while (span / step > 10)
		step *= 2;
	return step;
}

const struct ap_ptensor *ap_hm_row_live(const struct ap_heatmap *h, uint32_t r, uint32_t *i)
{
	int32_t op = r < h->rows ? h->row[r].op : -1;
	const struct ap_tplan *p = r < h->rows ? h->row[r].plan : NULL;

	if (h->by != AP_HM_BY_OP || !p || op < 0 || (uint32_t)op >= p->n_ops)
		return NULL;
	for (; *i < p->n; (*i)++) {
		const struct ap_ptensor *t = &p->t[*i];

		if (ap_ptensor_in_arena(t) && ap_ptensor_live_at(t, op)) {
			(*i)++;
			return t;
		}
	}
	return NULL;
}

/* ---- rows ---- */

static const char *input_name(const struct ap_tplan *p)
{
	for (uint32_t i = 0; i < p->n; i++)
		if (p->t[i].kind == AP_KIND_INPUT)
			return p->t[i].name;
	return "";
}

static void op_row(const struct ap_tplan *p, int32_t op, struct ap_hm_row *r)
{
	char sn[80];

	r->op = op;
	r->plan = p;
	if (op == -1) {
		snprintf(r->label, sizeof(r->label), "-1 input %s",
			 ap_corr_short_name(input_name(p), sn, 56));
		snprintf(r->tip, sizeof(r->tip), "graph inputs (written before operator 0): %s",
			 input_name(p));
	} else if (op == AP_OP_NONE) {
		snprintf(r->label, sizeof(r->label), "(no operator)");
		snprintf(r->tip, sizeof(r->tip), "faults no operator explains (no planned tensor "
			 "there, or no op marker)");
	} else {
		snprintf(r->label, sizeof(r->label), "%d %s %s", op, p->ops[op].opname,
			 ap_corr_short_name(p->ops[op].out_name, sn, 56));
		snprintf(r->tip, sizeof(r->tip), "operator %d %s, output %s", op,
			 p->ops[op].opname, p->ops[op].out_name);
	}
	r->run_lo = r->run_hi = 0;
}

static void run_row(struct ap_hm_row *r, int32_t lo, int32_t hi)
{
	r->op = AP_OP_NONE;
	r->run_lo = lo;
	r->run_hi = hi;
	if (lo == hi && lo < 0)
		snprintf(r->label, sizeof(r->label), "before run 0");
	else if (lo == hi)
		snprintf(r->label, sizeof(r->label), "run %d", lo);
	else
		snprintf(r->label, sizeof(r->label), "runs %d-%d", lo, hi);
	snprintf(r->tip, sizeof(r->tip), "%s", r->label);
}

/* Row of run r (in range) for --by run. */
static uint32_t row_of_run(const struct ap_heatmap *h, uint64_t width, int32_t r)
{
	uint64_t k = (uint64_t)((int64_t)r - h->run_lo);

	if (!h->log_rows)
		return (uint32_t)(k / width);
	if (!k)
		return 0;
	return (uint32_t)(64 - __builtin_clzll(k));	/* 1: 1, 2: 2-3, 3: 4-7 ... */
}

static int setup_rows(struct ap_heatmap *h, const struct ap_tplan *p,
		      const struct ap_hm_opts *o, uint64_t *width)
{
	if (h->by == AP_HM_BY_OP) {
		h->rows = p->n_ops + 2;	/* inputs, operators, "no operator" */
		h->row = calloc(h->rows, sizeof(*h->row));
		if (!h->row)
			return -ENOMEM;
		for (uint32_t i = 0; i + 1 < h->rows; i++)
			op_row(p, (int32_t)i - 1, &h->row[i]);
		op_row(p, AP_OP_NONE, &h->row[h->rows - 1]);
		return 0;
	}
	{
		uint64_t n = (uint64_t)((int64_t)h->run_hi - h->run_lo + 1);
		uint64_t want = o->rows ? o->rows : AP_HM_RUN_ROWS;

		if (h->log_rows) {
			h->rows = n > 1 ? row_of_run(h, 1, h->run_hi) + 1 : 1;
		} else {
			*width = (n + want - 1) / want;
			h->rows = (uint32_t)((n + *width - 1) / *width);
		}
		h->row = calloc(h->rows, sizeof(*h->row));
		if (!h->row)
			return -ENOMEM;
		for (uint32_t i = 0; i < h->rows; i++) {
			int64_t lo, hi;

			if (h->log_rows) {
				lo = i ? h->run_lo + (1LL << (i - 1)) : h->run_lo;
				hi = i ? h->run_lo + (1LL << i) - 1 : h->run_lo;
			} else {
				lo = h->run_lo + (int64_t)(i * *width);
				hi = lo + (int64_t)*width - 1;
			}
			if (hi > h->run_hi)
				hi = h->run_hi;
			run_row(&h->row[i], (int32_t)lo, (int32_t)hi);
		}
	}
	return 0;
}

/* ---- counting ---- */

struct counter {
	struct ap_heatmap *h;
	const struct ap_corr *c;
	bool marker;
	uint64_t width;		/* --by run, linear: runs per row */
};

static void count(struct counter *k, uint64_t page, int32_t run, int32_t op)
{
	struct ap_heatmap *h = k->h;
	uint32_t row, col;

	if (page < h->page0 || page - h->page0 >= h->n_pages || run < h->run_lo ||
	    run > h->run_hi)
		return;
	col = (uint32_t)((page - h->page0) / h->pages_per_col);
	if (h->by == AP_HM_BY_RUN) {
		row = row_of_run(h, k->width, run);
	} else {
		int32_t a = k->marker ? op : k->c->page_op[page];

		row = a >= -1 && a < (int32_t)k->c->n_ops ? (uint32_t)(a + 1) : h->rows - 1;
	}
	h->cell[(uint64_t)row * h->cols + col]++;
	h->total++;
}

/* A fault in the counter's arena (the replay's in_arena is the first model's). */
static int count_fault(void *ctx, const struct ap_corr_fault *cf)
{
	struct counter *k = ctx;
	const struct ap_corr *c = k->c;
	uint64_t addr = cf->f->addr;

	if (cf->map >= 0 && cf->map == c->arena && addr >= c->map_start && addr < c->map_end)
		count(k, (addr - c->map_start) / c->page_size, cf->f->run, cf->f->op);
	return 0;
}

/* Every fault on the arena, from the correlated replay (replay.h). */
static int count_all(struct counter *k, const struct ap_corr_all *x, const char *trace,
		     char *err)
{
	struct ap_trace_consumer rest = { .ctx = k };

	return ap_corr_replay(x, trace, count_fault, &rest, err);
}

/* ---- --faults all in the analysis pass ---- */

#define PRE_CAP (48u << 20)	/* bytes of counters at most */

struct ap_hm_pre {
	enum ap_hm_by by;
	uint32_t opt_cols;	/* --cols */
	uint32_t slots;		/* --by op: operators + 2 (inputs, other) */
	uint64_t want, page;	/* the plan's arena bytes rounded up to pages */
	uint64_t arena_addr;
	int32_t map;		/* the mapping followed, -1 none yet */
	uint64_t start, end, n_pages, ppc, cols;
	bool failed;		/* over the cap, out of memory */
	bool other;		/* another candidate mapping took faults */
	uint32_t *op_cnt;	/* --by op: [page][slot] */
	int32_t run0;		/* --by run: the first run row */
	uint64_t n_runs, cap_runs;
	uint32_t *run_cnt;	/* --by run: [run - run0][col] */
};

uint64_t ap_hm_pages_per_col(uint64_t n_pages, uint32_t cols)
{
	uint64_t ppc;

	if (cols)
		ppc = (n_pages + cols - 1) / cols;
	else
		ppc = n_pages <= AP_HM_AUTO_PAGES ? 1 :
		      (n_pages + AP_HM_AUTO_COLS - 1) / AP_HM_AUTO_COLS;
	return ppc ? ppc : 1;
}

struct ap_hm_pre *ap_hm_pre_new(const struct ap_hm_opts *o, const struct ap_tplan *p,
				uint64_t arena_addr)
{
	struct ap_hm_pre *pre = calloc(1, sizeof(*pre));

	if (!pre)
		return NULL;
	pre->by = o->by;
	pre->opt_cols = o->cols;
	pre->slots = p->n_ops + 2;
	pre->want = p->arena_bytes;
	pre->arena_addr = arena_addr;
	pre->map = -1;
	return pre;
}

void ap_hm_pre_free(struct ap_hm_pre *pre)
{
	if (!pre)
		return;
	free(pre->op_cnt);
	free(pre->run_cnt);
	free(pre);
}

/* Would the arena rule (arena.h) take this mapping? */
static bool pre_candidate(const struct ap_hm_pre *pre, const struct ap_amap *m, uint64_t ps)
{
	uint64_t want = (pre->want + ps - 1) / ps * ps, bytes = m->end - m->start;

	if (pre->arena_addr)
		return m->start <= pre->arena_addr && pre->arena_addr < m->end;
	return m->anon && bytes >= want && bytes <= want + 2 * ps &&
	       (m->path[0] != '[' || !strcmp(m->path, "[heap]"));
}

static void pre_fail(struct ap_hm_pre *pre)
{
	pre->failed = true;
	free(pre->op_cnt);
	free(pre->run_cnt);
	pre->op_cnt = NULL;
	pre->run_cnt = NULL;
}

static int pre_lock(struct ap_hm_pre *pre, const struct ap_amap *m, int32_t mi, uint64_t ps)
{
	pre->map = mi;
	pre->start = m->start;
	pre->end = m->end;
	pre->page = ps;
	pre->n_pages = (m->end - m->start) / ps;
	pre->ppc = ap_hm_pages_per_col(pre->n_pages, pre->opt_cols);
	pre->cols = (pre->n_pages + pre->ppc - 1) / pre->ppc;
	if (!pre->cols)
		pre->cols = 1;
	if (pre->by == AP_HM_BY_OP) {
		if (pre->n_pages * pre->slots * sizeof(uint32_t) > PRE_CAP)
			return -E2BIG;
		pre->op_cnt = calloc(pre->n_pages * pre->slots + 1, sizeof(uint32_t));
		return pre->op_cnt ? 0 : -1;
	}
	return 0;
}

/* Room for run r's row (rows grow as runs come). */
static uint32_t *pre_run_row(struct ap_hm_pre *pre, int32_t r)
{
	uint64_t k;

	if (!pre->n_runs) {
		pre->run0 = r < 0 ? r : -1;
	}
	if (r < pre->run0)
		return NULL;	/* runs only grow; an earlier one: give up */
	k = (uint64_t)((int64_t)r - pre->run0);
	if (k >= pre->cap_runs) {
		uint64_t cap = pre->cap_runs ? pre->cap_runs : 64;
		uint32_t *v;

		while (cap <= k)
			cap *= 2;
		if (cap * pre->cols * sizeof(uint32_t) > PRE_CAP)
			return NULL;
		v = realloc(pre->run_cnt, cap * pre->cols * sizeof(uint32_t));
		if (!v)
			return NULL;
		memset(v + pre->cap_runs * pre->cols, 0,
		       (cap - pre->cap_runs) * pre->cols * sizeof(uint32_t));
		pre->run_cnt = v;
		pre->cap_runs = cap;
	}
	if (k >= pre->n_runs)
		pre->n_runs = k + 1;
	return pre->run_cnt + k * pre->cols;
}

void ap_hm_pre_fault(void *ctx, const struct ap_analysis *a, const struct ap_rec_fault *f,
		     int32_t mi)
{
	struct ap_hm_pre *pre = ctx;
	const struct ap_amap *m;
	uint64_t page;
	uint32_t *row;

	if (pre->failed || mi < 0)
		return;
	m = &a->as.maps[mi];
	if (mi != pre->map) {
		if (!pre_candidate(pre, m, a->hdr.page_size))
			return;
		if (pre->map >= 0) {
			pre->other = true;
			return;
		}
		if (pre_lock(pre, m, mi, a->hdr.page_size)) {
			pre_fail(pre);
			return;
		}
	}
	if (f->addr < pre->start || f->addr >= pre->end)
		return;
	page = (f->addr - pre->start) / pre->page;
	if (pre->by == AP_HM_BY_OP) {
		uint32_t slot = f->op >= -1 && f->op < (int32_t)pre->slots - 2 ?
				(uint32_t)(f->op + 1) : pre->slots - 1;

		pre->op_cnt[page * pre->slots + slot]++;
		return;
	}
	row = pre_run_row(pre, f->run);
	if (!row) {
		pre_fail(pre);
		return;
	}
	row[page / pre->ppc]++;
}

/* Fills the matrix from the pass's accumulator; false when it cannot. */
static bool from_pre(struct counter *k, const struct ap_hm_pre *pre, const struct ap_corr *c)
{
	struct ap_heatmap *h = k->h;

	if (!pre || pre->failed || pre->map != c->arena || pre->start != c->map_start ||
	    pre->end != c->map_end || pre->n_pages != c->n_pages ||
	    pre->ppc != h->pages_per_col || h->page0)
		return false;
	if (pre->by == AP_HM_BY_OP) {
		if (!pre->op_cnt)
			return true;	/* no fault in it */
		for (uint64_t pg = 0; pg < pre->n_pages; pg++) {
			for (uint32_t s = 0; s < pre->slots; s++) {
				uint32_t v = pre->op_cnt[pg * pre->slots + s];
				uint32_t row, col = (uint32_t)(pg / h->pages_per_col);

				if (!v)
					continue;
				if (k->marker) {
					row = s;
				} else {
					int32_t po = c->page_op[pg];

					row = po >= -1 && po < (int32_t)c->n_ops ?
					      (uint32_t)(po + 1) : h->rows - 1;
				}
				h->cell[(uint64_t)row * h->cols + col] += v;
				h->total += v;
			}
		}
		return true;
	}
	for (uint64_t r = 0; r < pre->n_runs; r++) {
		int32_t run = (int32_t)((int64_t)r + pre->run0);
		uint32_t row;

		if (run < h->run_lo || run > h->run_hi)
			continue;
		row = row_of_run(h, k->width, run);
		for (uint64_t col = 0; col < pre->cols; col++) {
			uint32_t v = pre->run_cnt[r * pre->cols + col];

			h->cell[(uint64_t)row * h->cols + col] += v;
			h->total += v;
		}
	}
	return true;
}

static int extents(struct ap_heatmap *h, const struct ap_tplan *p)
{
	int32_t *idx = NULL;
	int n;

	if (h->widest_op < 0)
		return 0;
	n = ap_profile_live(p, h->widest_op, &idx);
	if (n < 0)
		return -ENOMEM;
	h->ext = calloc((size_t)n + 1, sizeof(*h->ext));
	if (!h->ext) {
		free(idx);
		return -ENOMEM;
	}
	for (int i = 0; i < n; i++) {
		const struct ap_ptensor *t = &p->t[idx[i]];

		h->ext[h->n_ext++] = (struct ap_hm_extent){
			.off = t->offset, .bytes = t->bytes, .tensor = idx[i] };
	}
	free(idx);
	return 0;
}

/*
 * --skip-empty: the rows nothing was counted in go (operators that reuse pages touched
 * before first-touch nothing); the widest operator's row follows its own.
 */
static void skip_empty(struct ap_heatmap *h)
{
	uint32_t k = 0;
	int32_t widest = -1;

	for (uint32_t r = 0; r < h->rows; r++) {
		uint64_t sum = 0;

		for (uint32_t c = 0; c < h->cols; c++)
			sum += h->cell[(uint64_t)r * h->cols + c];
		if (!sum)
			continue;
		if ((int32_t)r == h->widest_row)
			widest = (int32_t)k;
		if (k != r) {
			h->row[k] = h->row[r];
			memmove(&h->cell[(uint64_t)k * h->cols], &h->cell[(uint64_t)r * h->cols],
				h->cols * sizeof(*h->cell));
		}
		k++;
	}
	h->skipped_rows = h->rows - k;
	h->rows = k;
	h->widest_row = widest;
}

/* The rows' runs: the trace's (a run -1 row only when the region was touched before run
 * 0), or --runs A-B. */
static void run_range(struct ap_heatmap *h, const struct ap_analysis *a,
		      const struct ap_corr *c, const struct ap_hm_opts *o)
{
	int32_t max_run = (int32_t)a->runs_begun - 1, min_run = 0;

	for (uint64_t i = 0; i < a->as.n_touches; i++) {
		const struct ap_touch *t = &a->as.touches[i];

		if ((int32_t)t->map != c->arena)
			continue;
		if (t->run < min_run)
			min_run = t->run;
		if (t->run > max_run)
			max_run = t->run;
	}
	h->run_lo = min_run;
	h->run_hi = max_run < min_run ? min_run : max_run;
	if (o->have_runs) {
		h->run_lo = o->run_lo;
		h->run_hi = o->run_hi;
	}
}

uint64_t ap_hm_drawn_pages(const struct ap_corr *c, const struct ap_tplan *p, uint64_t *page0)
{
	/* pages from the mapping start to the plan's end */
	uint64_t ext = ((uint64_t)c->delta + p->arena_bytes + c->page_size - 1) / c->page_size;

	*page0 = 0;
	if (ap_corr_is_block(c) && c->n_pages > ext + 2) {	/* an allocation in [heap] */
		*page0 = (uint64_t)c->delta / c->page_size;
		return ext - *page0;
	}
	return c->n_pages;
}

/* --region workspace: what it can draw (the pages XNNPACK zeroes at reshape, by plan). */
static int workspace_usable(const struct ap_corr_all *x, const struct ap_hm_opts *o,
			    char *err)
{
	if (!x->have_ws) {
		ap_seterr(err, "--region workspace: no XNNPACK workspace to draw (it needs a "
			  "trace with XNNPACK's allocator probed and --plan MODEL.tflite on its "
			  "default path)%s%s", x->ws_id.why[0] ? ": " : "", x->ws_id.why);
		return -EINVAL;
	}
	if (o->all_faults) {
		ap_seterr(err, "--region workspace draws first touches only (--faults first)");
		return -EINVAL;
	}
	if (o->attr == AP_HM_ATTR_MARKER) {
		ap_seterr(err, "--region workspace: its pages are named by the plan only "
			  "(XNNPACK zeroes the workspace when it reshapes, before run 0)");
		return -EINVAL;
	}
	return 0;
}

static void workspace_titles(struct ap_heatmap *h, const struct ap_corr_all *x)
{
	char b1[32], b2[32];

	snprintf(h->title, sizeof(h->title), "First-touch pages of XNNPACK's workspace by "
		 "operator (plan of its values), %s", x->plan.model);
	snprintf(h->subtitle, sizeof(h->subtitle), "%" PRIu64 " pages in runs %d-%d (XNNPACK "
		 "zeroes the workspace when it reshapes); block 0x%" PRIx64 ", %s planned; %s "
		 "per column", h->total, h->run_lo, h->run_hi, h->base,
		 ap_fmt_bytes(h->arena_bytes, b1, sizeof(b1)),
		 ap_fmt_bytes(h->col_bytes, b2, sizeof(b2)));
}

int ap_heatmap_build_model(const struct ap_corr_all *x, uint32_t model, uint64_t ppc,
			   const char *trace, const struct ap_hm_opts *o,
			   struct ap_hm_pre *pre, struct ap_heatmap *h, char *err)
{
	const struct ap_analysis *a = &x->a;
	struct ap_corr_model m = { .id = &x->ws_id, .c = &x->ws, .plan = &x->ws_plan };
	struct counter k = { .h = h, .width = 1 };
	const struct ap_corr *c;
	const struct ap_tplan *p;
	char b1[32], b2[32];
	int rc;

	memset(h, 0, sizeof(*h));
	h->widest_op = h->widest_row = -1;
	if (!x->have_plan || model >= x->n_models) {
		ap_seterr(err, "a heatmap needs --plan MODEL.tflite (or a plan file)");
		return -EINVAL;
	}
	if (!o->workspace)
		ap_corr_model(x, model, &m);
	k.c = c = m.c;
	p = m.plan;
	rc = o->workspace ? workspace_usable(x, o, err) : 0;
	if (rc)
		return rc;
	if (c->arena < 0 || !c->page_op) {
		ap_seterr(err, "no arena in the trace: %s", m.id->why);
		return -EINVAL;
	}
	if (o->attr == AP_HM_ATTR_MARKER && !c->have_markers) {
		ap_seterr(err, "--attr marker: the trace has no op markers (record with "
			  "--op-probe)");
		return -EINVAL;
	}
	k.marker = !o->workspace && (o->attr == AP_HM_ATTR_MARKER ||
				     (o->attr == AP_HM_ATTR_AUTO && c->have_markers));
	h->attr = k.marker ? "op marker" : "plan";
	h->by = o->by;
	h->all_faults = o->all_faults;
	h->log_rows = o->log_rows;
	h->plan = p;
	h->page_size = c->page_size;
	h->n_pages = ap_hm_drawn_pages(c, p, &h->page0);
	h->base = c->base;
	h->arena_bytes = p->arena_bytes;
	h->col0_offset = (int64_t)(h->page0 * h->page_size) - c->delta;
	h->widest_op = c->widest_op;
	h->widest_bytes = c->widest_bytes;
	h->mismatch = !o->workspace && c->mismatch;
	h->pages_per_col = ppc ? ppc : ap_hm_pages_per_col(h->n_pages, o->cols);
	h->cols = (uint32_t)((h->n_pages + h->pages_per_col - 1) / h->pages_per_col);
	if (!h->cols)
		h->cols = 1;
	h->col_bytes = h->pages_per_col * h->page_size;
	run_range(h, a, c, o);
	if (setup_rows(h, p, o, &k.width))
		goto oom;
	h->cell = calloc((uint64_t)h->rows * h->cols, sizeof(*h->cell));
	if (!h->cell)
		goto oom;
	if (o->all_faults && !from_pre(&k, pre, c)) {
		rc = count_all(&k, x, trace, err);
		h->passes2 = true;
		if (rc)
			return rc;
	} else if (!o->all_faults) {
		for (uint64_t i = 0; i < a->as.n_touches; i++) {
			const struct ap_touch *t = &a->as.touches[i];

			if ((int32_t)t->map == c->arena)
				count(&k, t->page, t->run, t->op);
		}
	}
	/* the "no operator" row only when something landed there */
	if (h->by == AP_HM_BY_OP) {
		uint64_t s = 0;

		for (uint32_t j = 0; j < h->cols; j++)
			s += h->cell[(uint64_t)(h->rows - 1) * h->cols + j];
		if (!s)
			h->rows--;
		if (h->widest_op >= 0)
			h->widest_row = h->widest_op + 1;
	}
	for (uint64_t i = 0; i < (uint64_t)h->rows * h->cols; i++)
		if (h->cell[i] > h->max)
			h->max = h->cell[i];
	if (extents(h, p))
		goto oom;
	if (o->skip_empty)
		skip_empty(h);
	snprintf(h->axis, sizeof(h->axis), "arena offset (bytes from the base 0x%" PRIx64 "; %s "
		 "per column)", h->base, ap_fmt_bytes(h->col_bytes, b2, sizeof(b2)));
	if (o->workspace) {
		workspace_titles(h, x);
		return 0;
	}
	snprintf(h->title, sizeof(h->title), "%s faults of the arena by %s%s, %s",
		 o->all_faults ? "All" : "First-touch", h->by == AP_HM_BY_OP ? "operator" :
		 "run", h->by == AP_HM_BY_OP ? (k.marker ? " (op marker)" : " (plan)") : "",
		 p->model);
	{
		char agree[48];

		if (c->have_markers)
			snprintf(agree, sizeof(agree), "%.1f %%", 100 * ap_corr_agreement(c));
		else
			snprintf(agree, sizeof(agree), "n/a (no op markers)");
		snprintf(h->subtitle, sizeof(h->subtitle), "%" PRIu64 " faults in runs %d-%d; "
			 "arena base 0x%" PRIx64 " (mapping +%" PRId64 "), %s planned; %" PRIu64
			 " pages, %s per column; plan/marker agreement %s", h->total, h->run_lo,
			 h->run_hi, h->base, c->delta,
			 ap_fmt_bytes(h->arena_bytes, b1, sizeof(b1)), h->n_pages,
			 ap_fmt_bytes(h->col_bytes, b2, sizeof(b2)), agree);
	}
	if (c->mismatch) {
		int n = snprintf(h->warning, sizeof(h->warning), "THE PLAN DOES NOT MATCH THIS "
				 "TRACE:");

		for (uint32_t i = 0; i < c->n_reasons && n > 0 &&
		     (size_t)n < sizeof(h->warning); i++)
			n += snprintf(h->warning + n, sizeof(h->warning) - (size_t)n, " %s%s",
				      c->reasons[i], i + 1 < c->n_reasons ? ";" : "");
	}
	return 0;
oom:
	ap_heatmap_free(h);
	ap_seterr(err, "out of memory building the heatmap");
	return -ENOMEM;
}

void ap_heatmap_free(struct ap_heatmap *h)
{
	free(h->cell);
	free(h->row);
	free(h->ext);
	memset(h, 0, sizeof(*h));
}
