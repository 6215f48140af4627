/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tui: the faces of the live model (live.h): an ncurses screen whose panels reflow with
 * the terminal (80x24 and up; two columns from 150 columns when a plan is loaded; --batch's
 * lines are top_batch.h's). Layout only: every figure comes from the model. An item (a
 * label and its value) is drawn whole or not at all, never cut; a panel wraps its items
 * onto the rows it has and drops what does not fit.
 */
#ifndef ARENAPROF_TUI_H
#define ARENAPROF_TUI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arenaprof/analyze/live.h"

/* What the view shows besides the model: the caller's state, drawn as is. */
struct ap_tui_view {
	enum ap_live_sort sort;
	bool reverse;
	bool paused;
	bool help;
	uint64_t psi_alarm;		/* cgroup full avg10 (percent x 100) that turns red */
	char status[512];		/* a message for the footer, "" none */
	int status_level;		/* 0 info, 1 warning, 2 error */
	uint64_t trace_bytes;		/* the session's trace: bytes held, */
	uint64_t trace_cap;		/* and its ring's cap (0: -o, no cap) */
	uint64_t budget;		/* --budget: the process judged against it; 0 none */
	bool replay;			/* top TRACE: a recorded session, stepped through */
	double speed;			/* its pace: trace seconds per second */
};

/* Takes the terminal (stdin/stdout must be a tty). -ENOTTY with err if it cannot. */
int ap_tui_open(char *err);
/* Gives the terminal back as it was; safe to call twice and from any exit path. */
void ap_tui_close(void);
/* Draws everything (erase and refresh: curses sends only what changed). */
void ap_tui_draw(const struct ap_live *l, const struct ap_tui_view *v);
/* Draws only the footer: while paused the panels stay as they were. */
void ap_tui_draw_footer(const struct ap_live *l, const struct ap_tui_view *v);
#define AP_KEY_RESIZE 0x10000	/* the terminal was resized */

/* A key if one is waiting (AP_KEY_RESIZE after a resize), else -1; never blocks. */
int ap_tui_key(void);

#endif
