// SPDX-License-Identifier: Apache-2.0
/*
 * tui_pen: how the panels put text on the screen (tui_pen.h): every string through
 * tui_addstr, and the pen, which places items (a label and its value, drawn whole or not
 * at all) on a panel's rows, wrapping to its next row and dropping what does not fit.
 */
#include <curses.h>
#include <stdarg.h>
#include <stdio.h>

#include "arenaprof/analyze/live.h"
#include "arenaprof/util/escape.h"
#include "tui_pen.h"

/*
 * Every string reaches the screen through here: operator names come from the model, paths
 * and the command line from the target, and none of them may move the cursor or speak to
 * the terminal (util/escape.h).
 */
void tui_addstr(int y, int x, const char *s)
{
	char buf[1024];

	mvaddstr(y, x, ap_text_safe(s, buf, sizeof(buf)));
}

/* ---- glyphs and text ---- */

static const char *const spark_utf8[] = { "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█" };
static const char *const spark_ascii[] = { "_", ".", ",", ":", "-", "=", "+", "#" };

attr_t tui_color(int pair)
{
	return ap_tui_has_colors() ? COLOR_PAIR(pair) : 0;
}

/* ---- the pen: items placed in a panel ---- */


void tui_pen_at(struct pen *p, int y, int x0, int x1, int rows)
{
	*p = (struct pen){ .y = y, .x = x0, .x0 = x0, .x1 = x1, .y_end = y + rows };
}

/* rows used so far (at least one) */
int tui_pen_rows(const struct pen *p, int y0)
{
	int n = p->y - y0 + (p->any || p->x > p->x0 ? 1 : 0);

	return n > 0 ? n : 1;	/* the label's row, even when no item fitted */
}

bool tui_pen_newline(struct pen *p)
{
	if (p->y + 1 >= p->y_end)
		return false;
	p->y++;
	p->x = p->x0;
	p->any = false;
	return true;
}

/* Room for w columns on this row, or on the next one; false: not drawn. */
bool tui_pen_room(struct pen *p, int w)
{
	if (p->y >= p->y_end || w > p->x1 - p->x0)
		return false;
	if (p->x + w + (p->any ? TUI_GAP : 0) > p->x1 && !tui_pen_newline(p))
		return false;
	if (p->any)
		p->x += TUI_GAP;
	return true;
}

void tui_pen_put(struct pen *p, attr_t a, const char *s)
{
	attrset(a);
	tui_addstr(p->y, p->x, s);
	p->x += tui_text_w(s);
	p->any = true;
	attrset(A_NORMAL);
}

/* An item: label, value in bold (and attr), then a dim remark: one unit. */
bool tui_item_r(struct pen *p, const char *label, attr_t attr, const char *val,
		   const char *remark)
{
	int w = tui_text_w(label) + (label[0] && val[0] ? 1 : 0) + tui_text_w(val);

	if (remark[0])
		w += 1 + tui_text_w(remark);
	if (!tui_pen_room(p, w))
		return false;
	if (label[0]) {
		tui_pen_put(p, A_NORMAL, label);
		if (val[0])
			p->x++;
	}
	if (val[0])
		tui_pen_put(p, A_BOLD | attr, val);
	if (remark[0]) {
		p->x++;
		tui_pen_put(p, A_DIM, remark);
	}
	return true;
}

bool tui_item(struct pen *p, const char *label, attr_t attr, const char *fmt, ...)
{
	char val[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	return tui_item_r(p, label, attr, val, "");
}

/* A note in words, dim: "not read", "no plan: ..." */
bool tui_words(struct pen *p, attr_t attr, const char *s)
{
	if (!tui_pen_room(p, tui_text_w(s)))
		return false;
	tui_pen_put(p, attr, s);
	return true;
}

void tui_label(int y, int x, const char *s)
{
	attrset(A_BOLD | tui_color(C_CYAN));
	tui_addstr(y, x, s);
	attrset(A_NORMAL);
}

/* A sparkline of the last n points of h, scaled to its own maximum. */
bool tui_sparkline(struct pen *p, const struct ap_live_hist *h, int n, attr_t attr)
{
	uint64_t have_n = h->n < AP_LIVE_HIST ? h->n : AP_LIVE_HIST;
	const char *const *g = ap_tui_has_utf8() ? spark_utf8 : spark_ascii;
	float max = 0;

	if (n <= 0 || !tui_pen_room(p, n))
		return false;
	if ((uint64_t)n > have_n)
		n = (int)(have_n ? have_n : 1);
	for (int i = 0; i < n && have_n; i++) {
		float v = h->v[(h->n - 1 - (uint64_t)i) % AP_LIVE_HIST];

		if (v > max)
			max = v;
	}
	attrset(attr);
	for (int i = n - 1; i >= 0; i--) {
		float v = (uint64_t)i < have_n ? h->v[(h->n - 1 - (uint64_t)i) % AP_LIVE_HIST] : 0;
		int k = max > 0 ? (int)(v / max * 7.0f + 0.5f) : 0;

		tui_addstr(p->y, p->x++, g[k < 0 ? 0 : k > 7 ? 7 : k]);
	}
	attrset(A_NORMAL);
	p->any = true;
	return true;
}

/* A sparkline one column after the item before it (not the usual gap). */
void tui_spark_after(struct pen *p, const struct ap_live_hist *h, int n, attr_t attr)
{
	if (n <= 0)
		return;
	p->x -= TUI_GAP - 1;
	if (!tui_sparkline(p, h, n, attr))
		p->x += TUI_GAP - 1;
}

/*
 * The history of a series with times as one unit: "MIN ▁▂▅█ MAX last 4m16s", cells
 * columns of sparkline (each the largest of its samples: ap_live_window), scaled from the
 * smallest to the largest sample of that window, which the labels give (fmt formats
 * them), over the time it spans. False when it is not drawn.
 */
bool tui_spark_window(struct pen *p, const struct ap_live_hist *h, const uint64_t *ts,
		      int cells, attr_t attr, const char *(*fmt)(uint64_t, char *, size_t))
{
	const char *const *g = ap_tui_has_utf8() ? spark_utf8 : spark_ascii;
	float v[AP_LIVE_HIST], min, max;
	char lo[32], hi[32], span[48], win[32];
	uint64_t span_ns;
	int n, w;

	if (cells <= 0 || cells > AP_LIVE_HIST ||
	    !ap_live_window(h, ts, cells, v, &n, &min, &max, &span_ns))
		return false;
	fmt((uint64_t)min, lo, sizeof(lo));
	fmt((uint64_t)max, hi, sizeof(hi));
	snprintf(win, sizeof(win), "last %s", tui_span(span_ns, span, sizeof(span)));
	w = tui_text_w(lo) + 1 + cells + 1 + tui_text_w(hi) + 1 + tui_text_w(win);
	if (!tui_pen_room(p, w))
		return false;
	tui_pen_put(p, A_DIM, lo);
	p->x += 1 + cells - n;		/* a history shorter than the cells: from the right */
	attrset(attr);
	for (int i = 0; i < n; i++) {
		int k = max > min ? (int)((v[i] - min) / (max - min) * 7.0f + 0.5f) : 7;

		tui_addstr(p->y, p->x++, g[k < 0 ? 0 : k > 7 ? 7 : k]);
	}
	attrset(A_NORMAL);
	p->x++;
	tui_pen_put(p, A_DIM, hi);
	p->x++;
	tui_pen_put(p, A_DIM, win);
	return true;
}
