// SPDX-License-Identifier: Apache-2.0
/* tui_term: the terminal the TUI draws on (tui.h, tui_pen.h). */
#include <errno.h>
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/render/tui.h"
#include "arenaprof/util/err.h"
#include "tui_pen.h"

static bool tui_open, utf8, colors;

bool ap_tui_has_utf8(void)
{
	return utf8;
}

bool ap_tui_has_colors(void)
{
	return colors;
}

int ap_tui_key(void)
{
	int c = getch();

	if (c == KEY_RESIZE)
		return AP_KEY_RESIZE;
	return c == ERR ? -1 : c;
}

static void on_exit_restore(void)
{
	ap_tui_close();
}

/* A crash still gives the terminal back (best effort, as htop does), then dies as it would. */
static void on_crash(int sig)
{
	if (tui_open)
		endwin();
	signal(sig, SIG_DFL);
	raise(sig);
}

int ap_tui_open(char *err)
{
	static bool registered;

	setlocale(LC_ALL, "");
	utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
	if (!newterm(NULL, stdout, stdin)) {
		ap_seterr(err, "cannot use the terminal (TERM=%s)", getenv("TERM") ?
			  getenv("TERM") : "unset");
		return -ENOTTY;
	}
	tui_open = true;
	if (!registered) {
		static const int crash[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

		atexit(on_exit_restore);
		for (size_t i = 0; i < sizeof(crash) / sizeof(crash[0]); i++)
			signal(crash[i], on_crash);
		registered = true;
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	nodelay(stdscr, TRUE);
	curs_set(0);
	/* NO_COLOR (no-color.org): any non-empty value means no colour */
	colors = has_colors() && !(getenv("NO_COLOR") && getenv("NO_COLOR")[0]);
	if (colors) {
		static const short op_fg[N_OP_COLORS] = {
			COLOR_GREEN, COLOR_CYAN, COLOR_MAGENTA, COLOR_BLUE, COLOR_YELLOW,
			COLOR_RED,
		};

		start_color();
		use_default_colors();
		init_pair(C_RED, COLOR_RED, -1);
		init_pair(C_YELLOW, COLOR_YELLOW, -1);
		init_pair(C_GREEN, COLOR_GREEN, -1);
		init_pair(C_CYAN, COLOR_CYAN, -1);
		init_pair(C_MAGENTA, COLOR_MAGENTA, -1);
		init_pair(C_BLUE, COLOR_BLUE, -1);
		init_pair(C_WHITE, COLOR_WHITE, -1);
		for (int i = 0; i < N_OP_COLORS; i++)
			init_pair((short)(C_OP0 + i), op_fg[i], -1);
	}
	return 0;
}

void ap_tui_close(void)
{
	if (!tui_open)
		return;
	tui_open = false;
	curs_set(1);
	endwin();
	fflush(stdout);
}
