/* SPDX-License-Identifier: Apache-2.0 */
/* tui_dmabuf: the TUI's dma-buf panel (tui_pen.h draws it). */
#ifndef ARENAPROF_TUI_DMABUF_H
#define ARENAPROF_TUI_DMABUF_H

struct ap_live;

/* The dma-buf panel (once the target had one): rows used. */
int tui_draw_dmabuf(const struct ap_live *l, int y, int x0, int x1, int rows);

#endif
