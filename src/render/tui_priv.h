/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tui_priv: what the TUI's files share. tui.c lays the panels out; tui_text.c formats
 * the figures they show (pure functions: the strings, not where they go); tui_term.c owns
 * the terminal (open, keys, colours, giving it back on exit or a crash).
 */
#ifndef ARENAPROF_TUI_PRIV_H
#define ARENAPROF_TUI_PRIV_H

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
const char *tui_bytes(uint64_t v, char *buf, size_t len);	/* "4096 B" */
/* display columns of a UTF-8 string (every glyph used here is one column wide) */
int tui_text_w(const char *s);
void tui_fit_words(const char *s, int w, char *out, size_t len);
const char *tui_tail_fit(const char *s, int w, char *buf, size_t len);

#define KIB(v) tui_kib((v), (char[32]){ 0 }, 32)
#define LIMIT(v) tui_limit((v), (char[32]){ 0 }, 32)
#define PCT(v) tui_pct((v), (char[32]){ 0 }, 32)
#define RATE(v) tui_rate((v), (char[32]){ 0 }, 32)
#define BYTES(v) tui_bytes((v), (char[32]){ 0 }, 32)

#endif
