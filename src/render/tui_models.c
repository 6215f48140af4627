// SPDX-License-Identifier: Apache-2.0
/*
 * tui_models: the models panel (tui_models.h), drawn when top follows several models
 * (--plan A --plan B): a row each, as report's models section gives them (live.h's
 * live_models): its runs (those begun on its interpreter), its arena (the plan's size,
 * and where, when the row has room) and the arena's pages first touched that its plan
 * names, of those first touched. A row per model or none: the last row says how many
 * did not fit.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>

#include "arenaprof/analyze/live.h"
#include "arenaprof/analyze/live_models.h"
#include "tui_pen.h"
#include "tui_models.h"

#define NAME_W 18	/* columns of a model's file name (its end cut: ".tflite" first) */

/* One model's row at y. */
static void model_row(const struct ap_live *l, uint32_t i, int y, int x0, int x1)
{
	struct ap_live_model_view v;
	char name[64], runs[32];
	struct pen p;

	ap_live_models_view(l, i, &v);
	tui_pen_at(&p, y, x0, x1, 1);
	snprintf(name, sizeof(name), "%u %s", i + 1, v.name);
	if (tui_text_w(name) > NAME_W)
		snprintf(name + NAME_W - 1, sizeof(name) - NAME_W + 1, "~");
	tui_item_r(&p, "", 0, name, "");
	if (v.runs.rule == AP_MR_NONE)
		snprintf(runs, sizeof(runs), "-");
	else
		snprintf(runs, sizeof(runs), "%" PRIu64, v.runs.completed);
	/* yellow: told by the order the arenas came, not by its runs' first touches */
	tui_item_r(&p, "runs", v.runs.rule == AP_MR_ORDER ? tui_color(C_YELLOW) : 0, runs,
		   v.runs.rule == AP_MR_PROCESS ? "(all)" : "");
	if (!v.found) {
		tui_words(&p, A_DIM, "arena not seen allocated");
		return;
	}
	tui_item(&p, "arena", 0, "%s", SIZE(v.bytes));
	tui_item(&p, "named", 0, "%" PRIu64 "/%" PRIu64 "pg", v.named_pages, v.ft_pages);
	tui_item(&p, "at", A_DIM, "0x%" PRIx64, v.base);
}

int tui_draw_models(const struct ap_live *l, int y, int x0, int x1, int rows)
{
	uint32_t n = ap_live_models_n(l), i;
	struct pen p;

	if (n < 2 || rows < 1)
		return 0;
	tui_label(y, x0, "models");
	for (i = 0; i < n && (int)i < rows; i++) {
		if ((int)i == rows - 1 && i + 1 < n) {
			tui_pen_at(&p, y + (int)i, x0 + TUI_LABEL_W, x1, 1);
			tui_item(&p, "", A_DIM, "%u more models (a taller terminal shows them)",
				 n - i);
			return (int)i + 1;
		}
		model_row(l, i, y + (int)i, x0 + TUI_LABEL_W, x1);
	}
	return (int)i;
}
