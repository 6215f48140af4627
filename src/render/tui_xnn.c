// SPDX-License-Identifier: Apache-2.0
/*
 * tui_xnn: the XNNPACK panel (tui_xnn.h), drawn when XNNPACK is in the target: the
 * halves report's XNNPACK section gives, live: the TFLite arena left beside XNNPACK, the
 * workspace, the packed weights, the operators' buffers and the runtime objects, as the
 * blocks its allocator holds now (live.h's struct ap_live_xnn), each with the default
 * path's plan after a slash when top has a model's --plan (yellow when they differ).
 * Short names below FULL_NAMES_W columns, so that 80 columns take them in two rows.
 */
#include <curses.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/analyze/live.h"
#include "tui_pen.h"
#include "tui_xnn.h"

#define FULL_NAMES_W 132	/* content columns from which the names are report's */

/* One half: measured, and "/planned" with a plan. */
static void half(struct pen *p, const char *name, uint64_t held, bool planned, uint64_t plan)
{
	char val[64], a[32], b[32];
	attr_t attr = planned && held != plan ? tui_color(C_YELLOW) : 0;

	tui_size(held, a, sizeof(a));
	tui_size(plan, b, sizeof(b));
	/* "1.44/1.52MiB": one unit for both when they share it (80 columns hold them all) */
	if (planned && !strcmp(a + strspn(a, "0123456789."), b + strspn(b, "0123456789.")))
		snprintf(val, sizeof(val), "%.*s/%s", (int)strspn(a, "0123456789."), a, b);
	else if (planned)
		snprintf(val, sizeof(val), "%s/%s", a, b);
	else
		snprintf(val, sizeof(val), "%s", tui_size(held, a, sizeof(a)));
	tui_item_r(p, name, attr, val, "");
}

int tui_draw_xnn(const struct ap_live *l, int y, int x0, int x1, int rows)
{
	static const char *const full[] = {
		[AP_XNN_PACKED] = "packed weights", [AP_XNN_WORKSPACE] = "workspace",
		[AP_XNN_SCRATCH] = "operator buffers", [AP_XNN_OTHER] = "runtime objects",
	};
	static const char *const brief[] = {
		[AP_XNN_PACKED] = "packed", [AP_XNN_WORKSPACE] = "workspace",
		[AP_XNN_SCRATCH] = "op buffers", [AP_XNN_OTHER] = "objects",
	};
	static const enum ap_xnn_class order[] = {
		AP_XNN_WORKSPACE, AP_XNN_PACKED, AP_XNN_SCRATCH, AP_XNN_OTHER,
	};
	const struct ap_live_xnn *x = &l->xnn;
	bool wide = x1 - x0 - TUI_LABEL_W >= FULL_NAMES_W;
	const char *const *names = wide ? full : brief;
	uint64_t arena;
	uint32_t rule;
	struct pen p;

	if (!ap_live_xnn_seen(l) || rows < 1)
		return 0;
	tui_label(y, x0, "XNNPACK");
	tui_pen_at(&p, y, x0 + TUI_LABEL_W, x1, rows);
	if (!x->events) {
		tui_words(&p, A_DIM, "allocator probed: no block since attach");
		tui_words(&p, A_DIM, "(blocks made before attach are not seen)");
		return tui_pen_rows(&p, y);
	}
	arena = ap_live_xnn_arena(l, &rule);
	if (rule != AP_ARID_NONE || x->planned)
		half(&p, wide ? "TFLite arena" : "arena", arena,
		     x->planned && x->plan_arena, x->plan_arena);
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		half(&p, names[order[i]], x->cls[order[i]], x->planned, x->plan_cls[order[i]]);
	if (x->unclassed)
		tui_item(&p, "not named yet", tui_color(C_YELLOW), "%s", SIZE(x->unclassed));
	/* what the figures are, where the row has room for it */
	if (p.x + TUI_GAP + 9 <= p.x1)
		tui_words(&p, A_DIM, x->planned ? "held/plan" : "held");
	return tui_pen_rows(&p, y);	/* the label's row at least */
}
