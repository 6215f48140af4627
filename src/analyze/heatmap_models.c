// SPDX-License-Identifier: Apache-2.0
/*
 * heatmap_models: the heatmap of every model given (heatmap.h). Several models make one
 * matrix: one picture compares their arenas at one colour scale, and one CSV sums by
 * model. Each model's matrix is built alone, at one page count per column for all, and
 * its rows are stacked under the model before it's, labelled "model:op".
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/heatmap.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/path.h"
#include "arenaprof/util/units.h"

#define TAG_COLS 16	/* a model's name in a row label, at most (the PNG's are 40) */

/* The model's file name without ".tflite", cut in the middle to TAG_COLS. */
static void model_tag(const char *path, char *buf, size_t len)
{
	char stem[256], safe[256], cut[32];
	char *dot;

	snprintf(stem, sizeof(stem), "%s", ap_base_name(path));
	dot = strrchr(stem, '.');
	if (dot && dot != stem)
		*dot = '\0';
	snprintf(buf, len, "%s", ap_hm_fit_label(ap_text_safe(stem, safe, sizeof(safe)), TAG_COLS,
						 cut, sizeof(cut)));
}

/* One page count per column for all: the one the largest arena drawn would have. */
static int common_ppc(const struct ap_corr_all *x, const struct ap_hm_opts *o, uint64_t *ppc,
		      char *err)
{
	uint64_t most = 0, page0;

	for (uint32_t i = 0; i < x->n_models; i++) {
		struct ap_corr_model m;
		uint64_t n;

		ap_corr_model(x, i, &m);
		if (m.c->arena < 0 || !m.c->page_op)
			return ap_fail(err, -EINVAL, "model %u (%s): no arena in the trace: %s",
				       i + 1, ap_base_name(m.path), m.id->why);
		n = ap_hm_drawn_pages(m.c, m.plan, &page0);
		if (n > most)
			most = n;
	}
	*ppc = ap_hm_pages_per_col(most, o->cols);
	return 0;
}

/* Part i's rows and cells into h from row *r on. */
static void stack(struct ap_heatmap *h, const struct ap_heatmap *part, uint32_t i,
		  const char *tag, uint32_t *r)
{
	for (uint32_t k = 0; k < part->rows; k++, (*r)++) {
		struct ap_hm_row *row = &h->row[*r];

		*row = part->row[k];
		row->model = i;
		/* the row's own label cut, if need be, at its end (a tensor's name) */
		snprintf(row->label, sizeof(row->label), "%s:%.*s", tag,
			 (int)(sizeof(row->label) - 2 - strlen(tag)), part->row[k].label);
		snprintf(row->tip, sizeof(row->tip), "model %u %s: %.*s", i + 1, tag,
			 (int)(sizeof(row->tip) - 20 - strlen(tag)), part->row[k].tip);
		memcpy(&h->cell[(uint64_t)*r * h->cols], &part->cell[(uint64_t)k * part->cols],
		       part->cols * sizeof(*h->cell));
	}
	h->total += part->total;
	if (part->max > h->max)
		h->max = part->max;
	h->skipped_rows += part->skipped_rows;
	h->passes2 |= part->passes2;
	if (part->run_lo < h->run_lo)
		h->run_lo = part->run_lo;
	if (part->run_hi > h->run_hi)
		h->run_hi = part->run_hi;
	if (part->n_pages > h->n_pages)
		h->n_pages = part->n_pages;
}

/* s += the text of fmt, while it fits (n: its length so far, < 0 or len: full). */
static void add(char *s, size_t len, int *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void add(char *s, size_t len, int *n, const char *fmt, ...)
{
	va_list ap;

	if (*n < 0 || (size_t)*n >= len)
		return;
	va_start(ap, fmt);
	*n += vsnprintf(s + *n, len - (size_t)*n, fmt, ap);
	va_end(ap);
}

/* The title, the subtitle (each model's arena), the axis and the plans that do not match. */
static void titles(struct ap_heatmap *h, const struct ap_corr_all *x,
		   const struct ap_hm_opts *o)
{
	int nt = 0, ns = 0, nw = 0;
	char b[32];

	add(h->title, sizeof(h->title), &nt, "%s faults of %u models' arenas by %s%s:",
	    o->all_faults ? "All" : "First-touch", h->n_models,
	    h->by == AP_HM_BY_OP ? "operator" : "run", h->by != AP_HM_BY_OP ? "" :
	    strcmp(h->attr, "plan") ? " (op marker)" : " (plan)");
	add(h->subtitle, sizeof(h->subtitle), &ns, "%" PRIu64 " faults in runs %d-%d;",
	    h->total, h->run_lo, h->run_hi);
	add(h->warning, sizeof(h->warning), &nw, "THE PLAN DOES NOT MATCH THIS TRACE:");
	for (uint32_t i = 0; i < x->n_models; i++) {
		struct ap_corr_model m;

		ap_corr_model(x, i, &m);
		add(h->title, sizeof(h->title), &nt, "%s %s", i ? "," : "", h->model_name[i]);
		add(h->subtitle, sizeof(h->subtitle), &ns, " %u base 0x%" PRIx64 ", %s planned;",
		    i + 1, m.c->base, ap_fmt_bytes(m.plan->arena_bytes, b, sizeof(b)));
		if (!m.c->mismatch || !m.c->n_reasons)
			continue;
		h->mismatch = true;
		add(h->warning, sizeof(h->warning), &nw, " model %u (%s): %s;", i + 1,
		    h->model_name[i], m.c->reasons[0]);
	}
	add(h->subtitle, sizeof(h->subtitle), &ns, " %s per column",
	    ap_fmt_bytes(h->col_bytes, b, sizeof(b)));
	snprintf(h->axis, sizeof(h->axis), "offset in each model's arena (bytes from the page "
		 "its base is on; %s per column)", ap_fmt_bytes(h->col_bytes, b, sizeof(b)));
}

/* The models' matrices built alone (parts), stacked into h. */
static int merge(struct ap_heatmap *h, const struct ap_corr_all *x, struct ap_heatmap *part,
		 const struct ap_hm_opts *o)
{
	uint32_t rows = 0, r = 0;
	char tag[32];

	h->n_models = x->n_models;
	h->widest_op = h->widest_row = -1;
	h->run_lo = INT32_MAX;
	h->run_hi = INT32_MIN;
	for (uint32_t i = 0; i < x->n_models; i++) {
		rows += part[i].rows;
		if (part[i].cols > h->cols)
			h->cols = part[i].cols;
		h->model_name[i] = ap_base_name(x->model_path[i]);
	}
	h->row = calloc(rows ? rows : 1, sizeof(*h->row));
	h->cell = calloc((uint64_t)(rows ? rows : 1) * h->cols, sizeof(*h->cell));
	if (!h->row || !h->cell)
		return -ENOMEM;
	h->rows = rows;
	h->by = o->by;
	h->all_faults = o->all_faults;
	h->log_rows = o->log_rows;
	h->attr = part[0].attr;
	h->page_size = part[0].page_size;
	h->pages_per_col = part[0].pages_per_col;
	h->col_bytes = part[0].col_bytes;
	for (uint32_t i = 0; i < x->n_models; i++) {
		model_tag(x->model_path[i], tag, sizeof(tag));
		stack(h, &part[i], i, tag, &r);
	}
	titles(h, x, o);
	return 0;
}

static int build_models(const struct ap_corr_all *x, const char *trace,
			const struct ap_hm_opts *o, struct ap_hm_pre *pre,
			struct ap_heatmap *h, char *err)
{
	struct ap_heatmap part[AP_MAX_MODELS];
	uint32_t built = 0;
	uint64_t ppc = 0;
	int rc;

	memset(h, 0, sizeof(*h));
	if (o->workspace)
		return ap_fail(err, -EINVAL, "--region workspace draws one model's XNNPACK "
			       "workspace: give one --plan");
	rc = common_ppc(x, o, &ppc, err);
	for (; !rc && built < x->n_models; built++) {
		char why[AP_ERR_LEN];

		rc = ap_heatmap_build_model(x, built, ppc, trace, o, pre, &part[built], why);
		if (rc)
			ap_seterr(err, "model %u (%s): %s", built + 1,
				  ap_base_name(x->model_path[built]), why);
	}
	if (!rc && merge(h, x, part, o)) {
		ap_heatmap_free(h);
		rc = ap_fail(err, -ENOMEM, "out of memory building the heatmap");
	}
	while (built--)
		ap_heatmap_free(&part[built]);
	return rc;
}

int ap_heatmap_build(const struct ap_corr_all *x, const char *trace,
		     const struct ap_hm_opts *o, struct ap_hm_pre *pre, struct ap_heatmap *h,
		     char *err)
{
	if (x->n_models > 1)
		return build_models(x, trace, o, pre, h, err);
	return ap_heatmap_build_model(x, 0, 0, trace, o, pre, h, err);
}
