// SPDX-License-Identifier: Apache-2.0
/*
 * heatmap_svg: one self-contained SVG (no scripts, no external fonts or images): row
 * labels, cells with a <title> tooltip each, the widest operator's live tensors as
 * outlines (on its row and in a band above the plot), an offset axis and a colour legend.
 * By operator, the plan is drawn behind the faults: in each operator's row, faint, the
 * planned extents of the tensors live while it runs, so that a row that first-touches
 * nothing shows the pages it reuses, and the widest operator's floor shows.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/analyze/heatmap.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/util/units.h"

#define CHAR_W 6.7	/* 11 px monospace */
#define MAX_LABEL 60

struct geo {
	double x0, y0, cw, rh, pw;
	double band_y, axis_y, legend_y, width, height;
	double label_w;
};

static double x_of(const struct ap_heatmap *h, const struct geo *g, int64_t off)
{
	return g->x0 + (double)(off - h->col0_offset) / (double)h->col_bytes * g->cw;
}

static void layout(const struct ap_heatmap *h, struct geo *g)
{
	size_t chars = 12;

	for (uint32_t i = 0; i < h->rows; i++) {
		size_t n = strlen(h->row[i].label);

		if (n > chars)
			chars = n;
	}
	if (chars > MAX_LABEL)
		chars = MAX_LABEL;
	g->label_w = 16 + CHAR_W * (double)chars;
	g->x0 = g->label_w + 8;
	g->pw = h->cols * 3.0;
	if (g->pw < 800)
		g->pw = 800;
	if (g->pw > 1400)
		g->pw = 1400;
	g->cw = g->pw / h->cols;
	g->rh = h->rows <= 40 ? 16 : h->rows <= 80 ? 12 : fmax(2, 960.0 / h->rows);
	g->band_y = h->warning[0] && h->mismatch ? 68 : 52;
	g->y0 = g->band_y + 30;
	g->axis_y = g->y0 + h->rows * g->rh;
	g->legend_y = g->axis_y + 52;
	g->width = g->x0 + g->pw + 24;
	if (g->width < 980)
		g->width = 980;
	g->height = g->legend_y + 46;
}

static void header(const struct ap_heatmap *h, const struct geo *g, FILE *f)
{
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
		"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
		"viewBox=\"0 0 %.0f %.0f\" font-family=\"DejaVu Sans, Helvetica, Arial, "
		"sans-serif\" font-size=\"11\">\n", g->width, g->height, g->width, g->height);
	fputs("<title>", f);
	ap_fput_xml(f, h->title, 400);
	fputs("</title>\n<defs><linearGradient id=\"scale\" x1=\"0\" x2=\"1\" y1=\"0\" y2=\"0\">",
	      f);
	for (int i = 0; i <= 10; i++) {
		uint8_t c[3];

		ap_hm_rgb_at(i / 10.0, c);
		fprintf(f, "<stop offset=\"%d%%\" stop-color=\"#%02x%02x%02x\"/>", i * 10, c[0],
			c[1], c[2]);
	}
	fputs("</linearGradient></defs>\n<rect width=\"100%\" height=\"100%\" fill=\"#fff\"/>\n",
	      f);
	fputs("<text x=\"12\" y=\"22\" font-size=\"15\" font-weight=\"bold\">", f);
	ap_fput_xml(f, h->title, 200);
	fputs("</text>\n<text x=\"12\" y=\"40\" fill=\"#444\">", f);
	ap_fput_xml(f, h->subtitle, 400);
	fputs("</text>\n", f);
	if (h->mismatch && h->warning[0]) {
		fputs("<text x=\"12\" y=\"58\" fill=\"#c00\" font-weight=\"bold\">", f);
		ap_fput_xml(f, h->warning, 400);
		fputs("</text>\n", f);
	}
}

static void band(const struct ap_heatmap *h, const struct geo *g, FILE *f)
{
	const struct ap_tplan *p = h->plan;
	char b[32], name[64];

	if (!h->n_ext)
		return;
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\" font-family=\"DejaVu Sans "
		"Mono, monospace\" fill=\"#0b4f9c\">widest #%d: live tensors</text>\n",
		g->x0 - 8, g->band_y + 15, h->widest_op);
	for (uint32_t i = 0; i < h->n_ext; i++) {
		const struct ap_hm_extent *e = &h->ext[i];
		const struct ap_ptensor *t = &p->t[e->tensor];
		double x = x_of(h, g, e->off), w = (double)e->bytes / h->col_bytes * g->cw;
		size_t fit = w > 24 ? (size_t)((w - 8) / 6.2) : 0;

		fprintf(f, "<g><title>tensor %d ", e->tensor);
		ap_fput_xml(f, t->name, 300);
		fprintf(f, ": %s at offset %" PRId64 ", live at operators %d-",
			ap_fmt_bytes(e->bytes, b, sizeof(b)), e->off, t->first);
		if (t->last == AP_LAST_END)
			fputs("end", f);
		else
			fprintf(f, "%d", t->last);
		fprintf(f, "</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"22\" "
			"fill=\"#d8e6f7\" stroke=\"#0b4f9c\" stroke-width=\"1.2\"/>", x, g->band_y,
			w > 1 ? w : 1);
		if (fit > 3) {
			ap_corr_short_name(t->name, name, sizeof(name));
			fprintf(f, "<text x=\"%.2f\" y=\"%.1f\" fill=\"#0b4f9c\" font-size=\"10\">",
				x + 4, g->band_y + 15);
			if (strlen(name) > fit) {
				/* the end of the name is the layer's own part */
				size_t n = strlen(name);

				fputs("\xe2\x80\xa6", f);
				ap_fput_xml(f, name + n - (fit - 1), fit);
			} else {
				ap_fput_xml(f, name, fit);
			}
			fputs("</text>", f);
		}
		fputs("</g>\n", f);
	}
}

static void rows(const struct ap_heatmap *h, const struct geo *g, FILE *f)
{
	uint32_t every = g->rh >= 9 ? 1 : (uint32_t)ceil(9 / g->rh);

	for (uint32_t r = 0; r < h->rows; r++) {
		double y = g->y0 + r * g->rh;
		bool wide = (int32_t)r == h->widest_row;

		if (r % 2 == 0)
			fprintf(f, "<rect x=\"%.1f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				"fill=\"#f3f3f3\"/>\n", g->x0, y, g->pw, g->rh);
		if (r % every && !wide)
			continue;
		fprintf(f, "<text x=\"%.1f\" y=\"%.2f\" text-anchor=\"end\" font-family=\"DejaVu "
			"Sans Mono, monospace\"%s%s><title>", g->x0 - 8,
			y + g->rh / 2 + (g->rh >= 9 ? 4 : 2), g->rh < 9 ? " font-size=\"8\"" : "",
			wide ? " font-weight=\"bold\" fill=\"#0b4f9c\"" : "");
		ap_fput_xml(f, h->row[r].tip, 320);
		fputs("</title>", f);
		if (strlen(h->row[r].label) > MAX_LABEL) {
			ap_fput_xml(f, h->row[r].label, MAX_LABEL - 1);
			fputs("\xe2\x80\xa6", f);
		} else {
			ap_fput_xml(f, h->row[r].label, MAX_LABEL);
		}
		fputs("</text>\n", f);
	}
}

static void cells(const struct ap_heatmap *h, const struct geo *g, FILE *f)
{
	char a[32], b[32];

	for (uint32_t r = 0; r < h->rows; r++) {
		for (uint32_t col = 0; col < h->cols; col++) {
			uint64_t v = h->cell[(uint64_t)r * h->cols + col];
			int64_t lo = h->col0_offset + (int64_t)(col * h->col_bytes);
			uint8_t c[3];

			if (!v)
				continue;
			ap_hm_rgb(h, v, c);
			fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
				"fill=\"#%02x%02x%02x\"><title>", g->x0 + col * g->cw,
				g->y0 + r * g->rh, g->cw, g->rh, c[0], c[1], c[2]);
			ap_fput_xml(f, h->row[r].label, 100);
			fprintf(f, " | offset %s to %s | %" PRIu64 " fault%s</title></rect>\n",
				ap_hm_offset(lo < 0 ? 0 : lo, a),
				ap_hm_offset(lo + (int64_t)h->col_bytes, b), v, v == 1 ? "" : "s");
		}
	}
}

/* By operator: each row's live tensors as faint extents, named on hover (class "plan"). */
static void plan_behind(const struct ap_heatmap *h, const struct geo *g, FILE *f)
{
	double left = g->x0, right = g->x0 + g->pw;

	for (uint32_t r = 0; r < h->rows; r++) {
		const struct ap_ptensor *t;
		uint32_t i = 0;

		while ((t = ap_hm_row_live(h, r, &i))) {
			double x0, x1;

			x0 = fmax(left, x_of(h, g, t->offset));
			x1 = fmin(right, x_of(h, g, t->offset + (int64_t)t->bytes));
			if (x1 <= x0)
				continue;
			fprintf(f, "<rect class=\"plan\" x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" "
				"height=\"%.2f\" fill=\"#b8c7d9\" fill-opacity=\"0.45\"><title>",
				x0, g->y0 + r * g->rh + 1, fmax(0.5, x1 - x0),
				fmax(0.5, g->rh - 2));
			ap_fput_xml(f, t->name, 300);
			fprintf(f, " (planned at %" PRId64 ", %" PRIu64 " bytes)</title></rect>\n",
				t->offset, t->bytes);
		}
	}
}

static void outlines(const struct ap_heatmap *h, const struct geo *g, FILE *f)
{
	double y;

	if (h->widest_row < 0 || (uint32_t)h->widest_row >= h->rows)
		return;
	y = g->y0 + h->widest_row * g->rh;
	fprintf(f, "<rect x=\"%.1f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
		"stroke=\"#0b4f9c\" stroke-width=\"0.6\" stroke-dasharray=\"3 2\"/>\n", g->x0, y,
		g->pw, g->rh);
	for (uint32_t i = 0; i < h->n_ext; i++) {
		const struct ap_hm_extent *e = &h->ext[i];

		fprintf(f, "<rect x=\"%.2f\" y=\"%.2f\" width=\"%.2f\" height=\"%.2f\" "
			"fill=\"none\" stroke=\"#0b4f9c\" stroke-width=\"1.5\"><title>",
			x_of(h, g, e->off),
			y + 0.75, fmax(1, (double)e->bytes / h->col_bytes * g->cw), g->rh - 1.5);
		ap_fput_xml(f, h->plan->t[e->tensor].name, 300);
		fputs("</title></rect>\n", f);
	}
}

static void axis(const struct ap_heatmap *h, const struct geo *g, FILE *f)
{
	uint64_t step = ap_hm_tick_step(h), span = h->cols * h->col_bytes;
	int64_t end = h->col0_offset + (int64_t)span;
	char b[32];

	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.2f\" height=\"%.2f\" fill=\"none\" "
		"stroke=\"#888\" stroke-width=\"0.8\"/>\n", g->x0, g->y0, g->pw, h->rows * g->rh);
	for (int64_t off = 0; off <= end; off += (int64_t)step) {
		double x = x_of(h, g, off);

		if (x > g->x0 + g->pw + 0.5)
			break;
		fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" "
			"stroke=\"#444\"/><text x=\"%.2f\" y=\"%.1f\" text-anchor=\"middle\">%s"
			"</text>\n", x, g->axis_y, x, g->axis_y + 5, x, g->axis_y + 17,
			ap_hm_offset(off, b));
	}
	if (h->arena_bytes && (int64_t)h->arena_bytes < end) {	/* 0: several arenas */
		double x = x_of(h, g, (int64_t)h->arena_bytes);

		fprintf(f, "<line x1=\"%.2f\" y1=\"%.1f\" x2=\"%.2f\" y2=\"%.1f\" stroke=\"#c00\" "
			"stroke-dasharray=\"4 3\"><title>end of the planned arena (%" PRIu64
			" bytes)</title></line>\n", x, g->band_y, x, g->axis_y, h->arena_bytes);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#333\">%s</text>\n",
		g->x0 + g->pw / 2, g->axis_y + 34, h->axis);
}

static void legend(const struct ap_heatmap *h, const struct geo *g, FILE *f)
{
	double x = g->x0, y = g->legend_y;
	bool lg = ap_hm_log_scale(h);
	char b[32];

	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s per cell</text>\n",
		x - 8, y + 10, h->all_faults ? "faults" : "first-touch pages");
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"14\" height=\"12\" fill=\"#fff\" "
		"stroke=\"#888\"/><text x=\"%.1f\" y=\"%.1f\">0</text>\n", x, y, x + 18, y + 10);
	x += 36;
	fprintf(f, "<rect x=\"%.1f\" y=\"%.1f\" width=\"260\" height=\"12\" fill=\"url(#scale)\" "
		"stroke=\"#888\"/>\n", x, y);
	if (h->max > 1)
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">1</text>", x,
			y + 25);
	if (h->max > 2) {
		uint64_t mid = lg ? (uint64_t)llround(sqrt((double)h->max)) : (1 + h->max) / 2;
		double t = lg ? log((double)mid) / log((double)h->max) :
			   (double)(mid - 1) / (double)(h->max - 1);

		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%" PRIu64 "</text>",
			x + 260 * t, y + 25, mid);
	}
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%" PRIu64 "</text>\n",
		x + 260, y + 25, h->max > 0 ? h->max : 1);
	fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" fill=\"#333\">%s colour scale; %" PRIu64
		" %s in all cells.", x + 280, y + 10, lg ? "logarithmic" : "linear", h->total,
		h->all_faults ? "faults" : "first touches");
	if (h->n_ext)
		fprintf(f, " Blue outlines: the plan's tensors live at the widest operator #%d "
			"(%s, %.1f %% of the arena).", h->widest_op,
			ap_fmt_bytes(h->widest_bytes, b, sizeof(b)), h->arena_bytes ?
			100.0 * (double)h->widest_bytes / (double)h->arena_bytes : 0);
	fputs("</text>\n", f);
}

int ap_heatmap_svg(const struct ap_heatmap *h, FILE *f, char *err)
{
	struct geo g;

	layout(h, &g);
	header(h, &g, f);
	band(h, &g, f);
	rows(h, &g, f);
	plan_behind(h, &g, f);
	cells(h, &g, f);
	outlines(h, &g, f);
	axis(h, &g, f);
	legend(h, &g, f);
	fputs("</svg>\n", f);
	if (fflush(f) || ferror(f)) {
		int e = errno ? errno : EIO;

		return ap_fail(err, -e, "writing the SVG: %s", strerror(e));
	}
	return 0;
}
