// SPDX-License-Identifier: Apache-2.0
/*
 * heatmap_png: the matrix as an RGB PNG that reads on its own, as the SVG does: a title,
 * row labels (cut in the middle to fit), the plan behind the faults by operator, the
 * widest operator's row and live tensors outlined, an offset axis with ticks and a colour
 * scale with its counts. Text is the 6x10 bitmap font of raster.h, so the board needs no
 * font library. The plot's geometry is in a tEXt chunk ("arenaprof:plot": x0 y0 cell_w
 * cell_h cols rows) for tools that read the cells back.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/analyze/heatmap.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/render/raster.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/units.h"

#define M 8			/* margin */
#define LINE 14			/* a line of text */
#define MAX_LABEL 40		/* characters of a row label */
#define SCALE_W 260		/* the colour strip */
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

static const uint8_t ink[3] = { 0, 0, 0 }, grey[3] = { 68, 68, 68 },
	frame_c[3] = { 136, 136, 136 }, blue[3] = { 11, 79, 156 },
	band_c[3] = { 216, 230, 247 }, plan_c[3] = { 184, 199, 217 },
	stripe[3] = { 243, 243, 243 }, red[3] = { 204, 0, 0 };

struct geo {
	uint32_t cw, ch, label_chars;
	int64_t header_lines, band_y, x0, y0, pw, ph, axis_y, legend_y, w, h;
};

void ap_heatmap_png_cell(const struct ap_heatmap *h, uint32_t *cw, uint32_t *ch)
{
	*cw = h->cols ? 1200 / h->cols : 1;
	if (*cw < 1)
		*cw = 1;
	if (*cw > 16)
		*cw = 16;
	*ch = h->rows ? 900 / h->rows : 1;
	if (*ch < 1)
		*ch = 1;
	if (*ch > 12)
		*ch = 12;
}

/* The legend's two lines of text: the scale's, right of the strip, and the totals' below. */
struct legend_texts {
	char scale[128], total[320];
};

static void legend_texts(const struct ap_heatmap *h, struct legend_texts *t)
{
	char b[32];
	int n;

	snprintf(t->scale, sizeof(t->scale), "%s per cell, %s colour scale", h->all_faults ?
		 "faults" : "first-touch pages", ap_hm_log_scale(h) ? "logarithmic" : "linear");
	n = snprintf(t->total, sizeof(t->total), "%" PRIu64 " %s in all cells.", h->total,
		     h->all_faults ? "faults" : "first touches");
	if (h->n_ext && n > 0 && (size_t)n < sizeof(t->total))
		snprintf(t->total + n, sizeof(t->total) - n, " Blue: the tensors live at the "
			 "widest operator #%d (%s)%s.", h->widest_op,
			 ap_fmt_bytes(h->widest_bytes, b, sizeof(b)),
			 h->by == AP_HM_BY_OP && h->plan ? "; faint: each operator's live tensors" :
			 "");
}

/* The pixels a line of text starting at x needs, and a margin after it. */
static int64_t text_end(int64_t x, const char *s)
{
	return x + (int64_t)strlen(s) * AP_GLYPH_W + M;
}

/* The image's width: the plot's, and no line of text cut (title, subtitle, warning,
 * legend), at least 640. */
static int64_t width(const struct ap_heatmap *h, const struct geo *g)
{
	struct legend_texts t;
	int64_t w = g->x0 + g->pw + M, e[5];

	legend_texts(h, &t);
	e[0] = text_end(M + 1, TS(h->title));	/* bold: a pixel wider */
	e[1] = text_end(M, TS(h->subtitle));
	e[2] = g->header_lines == 3 ? text_end(M, TS(h->warning)) : 0;
	e[3] = text_end(M + 36 + SCALE_W + 16, t.scale);
	e[4] = text_end(M, t.total);
	for (int i = 0; i < 5; i++)
		if (e[i] > w)
			w = e[i];
	return w < 640 ? 640 : w;
}

static void layout(const struct ap_heatmap *h, struct geo *g)
{
	size_t chars = 12;

	for (uint32_t r = 0; r < h->rows; r++)
		if (strlen(h->row[r].label) > chars)
			chars = strlen(h->row[r].label);
	if (h->n_ext && chars < 18)
		chars = 18;	/* "widest #NNN: live" */
	g->label_chars = chars > MAX_LABEL ? MAX_LABEL : (uint32_t)chars;
	ap_heatmap_png_cell(h, &g->cw, &g->ch);
	g->header_lines = h->mismatch && h->warning[0] ? 3 : 2;
	g->band_y = M + g->header_lines * LINE + 4;
	g->y0 = g->band_y + (h->n_ext ? LINE + 8 : 0);
	g->x0 = M + (int64_t)g->label_chars * AP_GLYPH_W + 8;
	g->pw = (int64_t)h->cols * g->cw;
	g->ph = (int64_t)h->rows * g->ch;
	g->axis_y = g->y0 + g->ph;
	g->legend_y = g->axis_y + 4 + LINE + LINE + 8;
	g->w = width(h, g);
	g->h = g->legend_y + 12 + 4 + LINE + LINE + M;
}

static int64_t x_of(const struct ap_heatmap *h, const struct geo *g, int64_t off)
{
	return g->x0 + (int64_t)llround((double)(off - h->col0_offset) / (double)h->col_bytes *
					g->cw);
}

static void header(const struct ap_heatmap *h, const struct geo *g, struct ap_canvas *c)
{
	/* bold: the title drawn twice, a pixel apart */
	ap_canvas_text(c, M, M, TS(h->title), ink);
	ap_canvas_text(c, M + 1, M, TS(h->title), ink);
	ap_canvas_text(c, M, M + LINE, TS(h->subtitle), grey);
	if (g->header_lines == 3)
		ap_canvas_text(c, M, M + 2 * LINE, TS(h->warning), red);
}

static void band(const struct ap_heatmap *h, const struct geo *g, struct ap_canvas *c)
{
	char s[48], name[64], cut[64];

	if (!h->n_ext)
		return;
	snprintf(s, sizeof(s), "widest #%d: live", h->widest_op);
	ap_canvas_text_end(c, g->x0 - 8, g->band_y + 3, s, blue);
	for (uint32_t i = 0; i < h->n_ext; i++) {
		const struct ap_hm_extent *e = &h->ext[i];
		int64_t x = x_of(h, g, e->off), x1 = x_of(h, g, e->off + (int64_t)e->bytes);
		int64_t w = x1 - x > 1 ? x1 - x : 1;
		int64_t fit = (w - 4) / AP_GLYPH_W;

		ap_canvas_fill(c, x, g->band_y, w, LINE + 2, band_c, 255);
		ap_canvas_frame(c, x, g->band_y, w, LINE + 2, blue);
		if (fit >= 4) {
			ap_corr_short_name(h->plan->t[e->tensor].name, name, sizeof(name));
			ap_canvas_text(c, x + 3, g->band_y + 3,
				       ap_hm_fit_label(TS(name), (unsigned)(fit < 63 ? fit : 63),
						       cut, sizeof(cut)), blue);
		}
	}
}

static void rows(const struct ap_heatmap *h, const struct geo *g, struct ap_canvas *c)
{
	uint32_t every = g->ch >= AP_GLYPH_H ? 1 : (AP_GLYPH_H + g->ch - 1) / g->ch;
	char cut[MAX_LABEL + 8];

	for (uint32_t r = 0; r < h->rows; r++) {
		int64_t y = g->y0 + (int64_t)r * g->ch;
		bool wide = (int32_t)r == h->widest_row;

		if (r % 2)
			ap_canvas_fill(c, g->x0, y, g->pw, g->ch, stripe, 255);
		if (r % every)
			continue;
		ap_canvas_text_end(c, g->x0 - 6, y + ((int64_t)g->ch - AP_GLYPH_H) / 2,
				   ap_hm_fit_label(TS(h->row[r].label), g->label_chars, cut,
						   sizeof(cut)), wide ? blue : ink);
	}
}

/* By operator: each row's live tensors, faint, so a row that touches nothing shows why. */
static void plan_behind(const struct ap_heatmap *h, const struct geo *g, struct ap_canvas *c)
{
	for (uint32_t r = 0; r < h->rows; r++) {
		const struct ap_ptensor *t;
		uint32_t i = 0;

		while ((t = ap_hm_row_live(h, r, &i))) {
			int64_t x0, x1;

			x0 = x_of(h, g, t->offset);
			x1 = x_of(h, g, t->offset + (int64_t)t->bytes);
			if (x0 < g->x0)
				x0 = g->x0;
			if (x1 > g->x0 + g->pw)
				x1 = g->x0 + g->pw;
			if (x1 > x0)
				ap_canvas_fill(c, x0, g->y0 + (int64_t)r * g->ch, x1 - x0, g->ch,
					       plan_c, 115);
		}
	}
}

/* The planned arena's end, dashed, under the cells: a fault past it shows over it. */
static void arena_end(const struct ap_heatmap *h, const struct geo *g, struct ap_canvas *c)
{
	int64_t end = h->col0_offset + (int64_t)(h->cols * h->col_bytes);
	int64_t x = x_of(h, g, (int64_t)h->arena_bytes);

	if ((int64_t)h->arena_bytes >= end || (int64_t)h->arena_bytes <= h->col0_offset)
		return;
	for (int64_t y = g->band_y; y < g->axis_y; y += 7)
		ap_canvas_fill(c, x, y, 1, 4, red, 255);
}

static void cells(const struct ap_heatmap *h, const struct geo *g, struct ap_canvas *c)
{
	for (uint32_t r = 0; r < h->rows; r++)
		for (uint32_t col = 0; col < h->cols; col++) {
			uint64_t v = h->cell[(uint64_t)r * h->cols + col];
			uint8_t rgb[3];

			if (!v)
				continue;
			ap_hm_rgb(h, v, rgb);
			ap_canvas_fill(c, g->x0 + (int64_t)col * g->cw, g->y0 + (int64_t)r * g->ch,
				       g->cw, g->ch, rgb, 255);
		}
}

static void outlines(const struct ap_heatmap *h, const struct geo *g, struct ap_canvas *c)
{
	int64_t y;

	if (h->widest_row < 0 || (uint32_t)h->widest_row >= h->rows || g->ch < 3)
		return;
	y = g->y0 + (int64_t)h->widest_row * g->ch;
	for (uint32_t i = 0; i < h->n_ext; i++) {
		const struct ap_hm_extent *e = &h->ext[i];
		int64_t x = x_of(h, g, e->off), x1 = x_of(h, g, e->off + (int64_t)e->bytes);

		ap_canvas_frame(c, x, y, x1 - x > 2 ? x1 - x : 2, g->ch, blue);
	}
}

static void axis(const struct ap_heatmap *h, const struct geo *g, struct ap_canvas *c)
{
	uint64_t step = ap_hm_tick_step(h);
	int64_t end = h->col0_offset + (int64_t)(h->cols * h->col_bytes), free_x = 0;
	char b[32];

	ap_canvas_frame(c, g->x0 - 1, g->y0 - 1, g->pw + 2, g->ph + 2, frame_c);
	for (int64_t off = 0; off <= end; off += (int64_t)step) {
		int64_t x = x_of(h, g, off), tw;

		if (off < h->col0_offset)
			continue;
		if (x > g->x0 + g->pw)
			break;
		ap_canvas_fill(c, x, g->axis_y + 1, 1, 4, grey, 255);
		ap_hm_offset(off, b);
		tw = (int64_t)strlen(b) * AP_GLYPH_W;
		if (x - tw / 2 >= free_x) {	/* no label over the last one */
			ap_canvas_text_mid(c, x, g->axis_y + 6, b, ink);
			free_x = x + tw / 2 + AP_GLYPH_W;
		}
	}
	ap_canvas_text_mid(c, g->x0 + g->pw / 2, g->axis_y + 6 + LINE, h->axis, grey);
}

static void legend(const struct ap_heatmap *h, const struct geo *g, struct ap_canvas *c)
{
	int64_t x = M, y = g->legend_y, sx = x + 36;
	bool lg = ap_hm_log_scale(h);
	struct legend_texts t;
	char b[32];

	ap_canvas_frame(c, x, y, 14, 12, frame_c);
	ap_canvas_text(c, x + 18, y + 1, "0", ink);
	for (int64_t i = 0; i < SCALE_W; i++) {
		uint8_t rgb[3];

		ap_hm_rgb_at((double)i / (SCALE_W - 1), rgb);
		ap_canvas_fill(c, sx + i, y, 1, 12, rgb, 255);
	}
	ap_canvas_frame(c, sx - 1, y - 1, SCALE_W + 2, 14, frame_c);
	if (h->max > 1)
		ap_canvas_text_mid(c, sx, y + 16, "1", ink);
	if (h->max > 2) {
		uint64_t mid = lg ? (uint64_t)llround(sqrt((double)h->max)) : (1 + h->max) / 2;
		double t = lg ? log((double)mid) / log((double)h->max) :
			   (double)(mid - 1) / (double)(h->max - 1);

		snprintf(b, sizeof(b), "%" PRIu64, mid);
		ap_canvas_text_mid(c, sx + (int64_t)(SCALE_W * t), y + 16, b, ink);
	}
	snprintf(b, sizeof(b), "%" PRIu64, h->max > 0 ? h->max : 1);
	ap_canvas_text_mid(c, sx + SCALE_W, y + 16, b, ink);
	legend_texts(h, &t);
	ap_canvas_text(c, sx + SCALE_W + 16, y + 1, t.scale, grey);
	ap_canvas_text(c, M, y + 16 + LINE, t.total, grey);
}

int ap_heatmap_png(const struct ap_heatmap *h, FILE *f, uint32_t *w, uint32_t *ht, char *err)
{
	struct ap_canvas c;
	struct geo g;
	char plot[96];
	struct ap_png_text txt[] = {
		{ "Title", TS(h->title) },
		{ "Description", TS(h->subtitle) },
		{ "Software", "arenaprof" },
		{ "arenaprof:plot", plot },
	};
	int rc;

	layout(h, &g);
	if (g.w > UINT32_MAX || g.h > UINT32_MAX)
		g.w = g.h = UINT32_MAX;		/* refused by the canvas's bound */
	*w = (uint32_t)g.w;
	*ht = (uint32_t)g.h;
	rc = ap_canvas_init(&c, *w, *ht, err);
	if (rc)
		return rc;
	snprintf(plot, sizeof(plot), "%" PRId64 " %" PRId64 " %u %u %u %u", g.x0, g.y0, g.cw,
		 g.ch, h->cols, h->rows);
	header(h, &g, &c);
	band(h, &g, &c);
	rows(h, &g, &c);
	plan_behind(h, &g, &c);
	arena_end(h, &g, &c);
	cells(h, &g, &c);
	outlines(h, &g, &c);
	axis(h, &g, &c);
	legend(h, &g, &c);
	rc = ap_canvas_png(&c, txt, 4, f, err);
	ap_canvas_free(&c);
	return rc;
}
