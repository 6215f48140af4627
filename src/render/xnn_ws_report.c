// SPDX-License-Identifier: Apache-2.0
/* xnn_ws_report: XNNPACK's workspace pages by operator (xnn_ws_report.h). */
#include <inttypes.h>
#include <stdlib.h>

#include "arenaprof/analyze/allocs.h"
#include "arenaprof/render/xnn_ws_report.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

#define TOP_OPS 10	/* operators listed, most pages first */

struct ws_counts {
	uint64_t block_bytes;
	uint64_t pages;		/* of the block */
	uint64_t before_run0;	/* first touched before run 0 (at reshape) */
	uint64_t named;		/* first-touched pages an operator is named for */
	uint32_t n_ops;		/* operators named for a page */
};

static void counts(const struct ap_corr_all *x, struct ws_counts *w)
{
	const struct ap_corr *c = &x->ws;

	*w = (struct ws_counts){ 0 };
	w->block_bytes = x->a.allocs->b[x->ws_id.block].size;
	w->pages = c->page_hi - c->page_lo;
	for (uint64_t i = 0; i < x->a.as.n_touches; i++) {
		const struct ap_touch *t = &x->a.as.touches[i];

		if ((int32_t)t->map == c->arena && t->page >= c->page_lo &&
		    t->page < c->page_hi && t->run < 0)
			w->before_run0++;
	}
	w->named = ap_corr_attributed(c, &w->n_ops);
}

/* The first touches of a block that took the workspace's place. */
static uint64_t move_pages(const struct ap_corr_all *x, const struct ap_arena_move *mv)
{
	return mv->map >= 0 ? x->a.as.maps[mv->map].first_touch_pages : 0;
}

/* Operators (slot k + 1 of c->ops) with pages, most first; UINT32_MAX ends it. */
static uint32_t *ops_by_pages(const struct ap_corr *c)
{
	uint32_t *o = calloc(c->n_ops + 2, sizeof(*o)), n = 0;

	if (!o)
		return NULL;
	for (uint32_t k = 0; k <= c->n_ops; k++)
		if (c->ops[k].plan_pages)
			o[n++] = k;
	for (uint32_t i = 1; i < n; i++) {	/* operators are hundreds at most */
		uint32_t v = o[i], j = i;

		while (j && c->ops[o[j - 1]].plan_pages < c->ops[v].plan_pages) {
			o[j] = o[j - 1];
			j--;
		}
		o[j] = v;
	}
	o[n] = UINT32_MAX;
	return o;
}

void ap_xnn_ws_text(FILE *f, const struct ap_corr_all *x)
{
	const struct ap_corr *c = &x->ws;
	struct ws_counts w;
	uint32_t *o;
	char lb[160];

	if (!x->have_ws)
		return;
	counts(x, &w);
	fprintf(f, "  workspace  block of %s at 0x%" PRIx64 " (the plan's %s): %" PRIu64 " of its %"
		PRIu64 " pages first touched, %" PRIu64 " of them before run 0 (XNNPACK zeroes "
		"the block when it reshapes)\n", B(w.block_bytes), x->ws_id.base,
		B(x->ws_plan.arena_bytes), c->ft_pages, w.pages, w.before_run0);
	fprintf(f, "             pages by the operator whose value lies there first (the plan of "
		"its %u values): %" PRIu64 " to %u operators, %" PRIu64 " where no value lies, %"
		PRIu64 " past the plan's end\n", x->ws_plan.n, w.named, w.n_ops,
		c->unplanned_pages, c->beyond_pages);
	for (uint32_t k = 0; k < x->ws_id.n_moves; k++) {
		const struct ap_arena_move *mv = &x->ws_id.moves[k];

		fprintf(f, "  re-planned in run %d: the workspace grew to a block of %s at "
			"0x%" PRIx64 "%s: %" PRIu64 " pages first touched there (the plan of the "
			"model's shapes no longer describes it)\n", mv->run, B(mv->bytes), mv->base,
			mv->free_seen ? ", the old block freed" : "", move_pages(x, mv));
	}
	o = ops_by_pages(c);
	if (!o)
		return;
	for (uint32_t i = 0; i < TOP_OPS && o[i] != UINT32_MAX; i++)
		fprintf(f, "  %-32s %8" PRIu64 " pages %12s\n",
			ap_corr_op_label(&x->ws_plan, (int32_t)o[i] - 1, lb, sizeof(lb)),
			c->ops[o[i]].plan_pages, B(c->ops[o[i]].plan_pages * c->page_size));
	free(o);
}

void ap_xnn_ws_json(struct ap_json *j, const struct ap_corr_all *x)
{
	const struct ap_corr *c = &x->ws;
	struct ws_counts w;

	if (!x->have_ws) {
		ap_json_null(j, "workspace_pages");
		return;
	}
	counts(x, &w);
	ap_json_obj(j, "workspace_pages");
	ap_json_u64(j, "base", x->ws_id.base);
	ap_json_u64(j, "block_bytes", w.block_bytes);
	ap_json_u64(j, "planned_bytes", x->ws_plan.arena_bytes);
	ap_json_u64(j, "values", x->ws_plan.n);
	ap_json_u64(j, "pages", w.pages);
	ap_json_u64(j, "first_touched_pages", c->ft_pages);
	ap_json_u64(j, "before_run0_pages", w.before_run0);
	ap_json_u64(j, "attributed_pages", w.named);
	ap_json_u64(j, "unplanned_pages", c->unplanned_pages);
	ap_json_u64(j, "beyond_pages", c->beyond_pages);
	ap_json_arr(j, "moves");	/* a larger block took its place (a reshape) */
	for (uint32_t k = 0; k < x->ws_id.n_moves; k++) {
		const struct ap_arena_move *mv = &x->ws_id.moves[k];

		ap_json_obj(j, NULL);
		ap_json_i64(j, "run", mv->run);
		ap_json_u64(j, "base", mv->base);
		ap_json_u64(j, "block_bytes", mv->bytes);
		ap_json_bool(j, "old_freed", mv->free_seen);
		ap_json_u64(j, "first_touched_pages", move_pages(x, mv));
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_arr(j, "ops");	/* execution order; -1 would be a graph input's */
	for (uint32_t k = 0; k <= c->n_ops; k++) {
		if (!c->ops[k].plan_pages)
			continue;
		ap_json_obj(j, NULL);
		ap_json_i64(j, "index", (int64_t)k - 1);
		ap_json_str(j, "opcode", k ? x->ws_plan.ops[k - 1].opname : "input");
		ap_json_u64(j, "pages", c->ops[k].plan_pages);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_end_obj(j);
}
