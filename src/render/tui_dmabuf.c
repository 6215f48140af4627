// SPDX-License-Identifier: Apache-2.0
/*
 * tui_dmabuf: the dma-buf panel (tui_dmabuf.h), one row, drawn once the target held a
 * dma-buf or exported one (live.h's struct ap_live_dmabuf): what it holds now and its
 * peak, by the polls; what it exported and has not freed and its peak, by the events
 * where record's programs attach; and where the figures come from ("fentry+fdinfo").
 * Nothing for a target without dma-bufs, so their screen is as before.
 */
#include <curses.h>
#include <stdio.h>

#include "arenaprof/analyze/dmabuf_seen.h"
#include "arenaprof/analyze/live.h"
#include "tui_pen.h"
#include "tui_dmabuf.h"

int tui_draw_dmabuf(const struct ap_live *l, int y, int x0, int x1, int rows)
{
	const struct ap_live_dmabuf *d = &l->dmabuf;
	char src[48];
	struct pen p;

	if (!d->seen || rows < 1)
		return 0;
	tui_label(y, x0, "dma-buf");
	tui_pen_at(&p, y, x0 + TUI_LABEL_W, x1, rows);
	/* the count where there is room: 80 columns take the rest on one row without it */
	if (x1 - x0 >= 100)
		tui_item(&p, "held", 0, "%s in %u", SIZE(d->held), d->held_n);
	else
		tui_item(&p, "held", 0, "%s", SIZE(d->held));
	if (d->events) {
		tui_item(&p, "not freed", 0, "%s", SIZE(d->live));
		tui_item(&p, "peak", tui_color(C_YELLOW), "%s", SIZE(ap_live_dmabuf_peak(l)));
	} else {
		tui_item(&p, "peak", tui_color(C_YELLOW), "%s", SIZE(d->held_peak));
	}
	snprintf(src, sizeof(src), "%s%s%s", d->events ? ap_dmabuf_events_name(d->events) : "",
		 d->events && d->source ? "+" : "", d->source ? ap_dmabuf_source_name(d->source) :
		 "");
	tui_words(&p, A_DIM, src);
	return tui_pen_rows(&p, y);
}
