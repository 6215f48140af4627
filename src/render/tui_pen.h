/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tui_pen: the toolkit the TUI's panels draw with. tui.c lays the panels out (tui_xnn.c
 * the XNNPACK panel, tui_models.c the models', tui_dmabuf.c the dma-bufs': each with a
 * header of its own); tui_pen.c puts their items on the screen; tui_text.c formats the
 * figures they show (pure functions: the strings, not where they go); tui_term.c owns the
 * terminal (open, keys, colours, giving it back on exit or a crash).
 */
#ifndef ARENAPROF_TUI_PEN_H
#define ARENAPROF_TUI_PEN_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	C_RED = 1, C_YELLOW, C_GREEN, C_CYAN, C_MAGENTA, C_BLUE, C_WHITE, C_OP0,
	N_OP_COLORS = 6,
};

/* tui_term.c: what the terminal can show (set by ap_tui_open) */
bool ap_tui_has_utf8(void);
bool ap_tui_has_colors(void);

/* tui_text.c: a figure as the panels print it, into buf (len bytes), which it returns */
bool tui_have(uint64_t v);		/* read (not AP_NO_VALUE) */
const char *tui_kib(uint64_t v, char *buf, size_t len);	/* "12 KiB", exact; "-" */
const char *tui_limit(uint64_t v, char *buf, size_t len);	/* "max" or tui_kib */
const char *tui_pct(uint64_t v, char *buf, size_t len);	/* PSI percent x 100: "1.25" */
const char *tui_rate(double v, char *buf, size_t len);	/* "12.5/s", "340/s" */
const char *tui_duration(uint64_t ns, char *buf, size_t len);	/* "850 us", "1.25 s" */
const char *tui_size(uint64_t v, char *buf, size_t len);	/* "1.44MiB": 3 figures */
const char *tui_span(uint64_t ns, char *buf, size_t len);	/* "45s", "4m16s" */
/* display columns of a UTF-8 string (every glyph used here is one column wide) */
int tui_text_w(const char *s);
void tui_fit_words(const char *s, int w, char *out, size_t len);
const char *tui_tail_fit(const char *s, int w, char *buf, size_t len);

/* tui_pen.c: the screen, and the pen that places a panel's items */
#define TUI_LABEL_W 10		/* the panel label column */
#define TUI_GAP 2		/* between items */

struct ap_live;
struct ap_live_hist;

struct pen {
	int y, x;		/* cursor */
	int x0, x1;		/* the panel's content columns [x0, x1) */
	int y_end;		/* first row the panel may not use */
	bool any;		/* an item is on this row */
};

/* Every string reaches the screen through here: made safe (util/escape.h) */
void tui_addstr(int y, int x, const char *s);
attr_t tui_color(int pair);	/* a colour pair, or nothing without colours */
void tui_pen_at(struct pen *p, int y, int x0, int x1, int rows);
int tui_pen_rows(const struct pen *p, int y0);	/* rows used so far (at least one) */
bool tui_pen_newline(struct pen *p);
/* Room for w columns on this row, or on the next one; false: not drawn. */
bool tui_pen_room(struct pen *p, int w);
void tui_pen_put(struct pen *p, attr_t a, const char *s);
/* An item: label, value in bold (and attr), then a dim remark: one unit. */
bool tui_item_r(struct pen *p, const char *label, attr_t attr, const char *val,
		const char *remark);
bool tui_item(struct pen *p, const char *label, attr_t attr, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
bool tui_words(struct pen *p, attr_t attr, const char *s);	/* a note in words */
void tui_label(int y, int x, const char *s);	/* a panel's label */
/* A sparkline of the last n points of h, scaled to its own maximum. */
bool tui_sparkline(struct pen *p, const struct ap_live_hist *h, int n, attr_t attr);
/* A sparkline one column after the item before it (not the usual gap). */
void tui_spark_after(struct pen *p, const struct ap_live_hist *h, int n, attr_t attr);

/* The history of a series with times: "MIN ▁▂▅█ MAX last 4m16s", scaled to its window. */
bool tui_spark_window(struct pen *p, const struct ap_live_hist *h, const uint64_t *ts,
		      int cells, attr_t attr, const char *(*fmt)(uint64_t, char *, size_t));

#define KIB(v) tui_kib((v), (char[32]){ 0 }, 32)
#define LIMIT(v) tui_limit((v), (char[32]){ 0 }, 32)
#define PCT(v) tui_pct((v), (char[32]){ 0 }, 32)
#define RATE(v) tui_rate((v), (char[32]){ 0 }, 32)
#define SIZE(v) tui_size((v), (char[32]){ 0 }, 32)

#endif
