/* SPDX-License-Identifier: Apache-2.0 */
/* tui_xnn: the TUI's XNNPACK panel (tui_pen.h draws it). */
#ifndef ARENAPROF_TUI_XNN_H
#define ARENAPROF_TUI_XNN_H

struct ap_live;

/* The XNNPACK panel (with XNNPACK in the target): rows used. */
int tui_draw_xnn(const struct ap_live *l, int y, int x0, int x1, int rows);

#endif
