/* SPDX-License-Identifier: Apache-2.0 */
/* tui_models: the TUI's models panel (tui_pen.h draws it). */
#ifndef ARENAPROF_TUI_MODELS_H
#define ARENAPROF_TUI_MODELS_H

struct ap_live;

/* A row per model when top follows several (--plan A --plan B): rows used. */
int tui_draw_models(const struct ap_live *l, int y, int x0, int x1, int rows);

#endif
