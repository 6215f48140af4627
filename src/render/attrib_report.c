// SPDX-License-Identifier: Apache-2.0
/* attrib_report: attribution without markers as text and JSON (attrib_report.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/util/escape.h"
#include "arenaprof/analyze/attrib.h"
#include "arenaprof/event.h"
#include "arenaprof/render/attrib_report.h"
#include "arenaprof/render/weights_report.h"
#include "arenaprof/util/json.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
/* names and paths from the trace and the target, safe for a terminal */
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

static const char *map_name(const struct ap_attrib_map *g, char *buf, size_t len)
{
	snprintf(buf, len, "%s %" PRIx64 "-%" PRIx64, g->path[0] ? g->path : "anon", g->start,
		 g->end);
	return buf;
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

/*
 * The runtime's own arena is smaller than the plan: what took the plan's place, the
 * largest allocating calls from the same library as the arena's buffer.
 */
static void in_its_place(FILE *f, const struct ap_analysis *a, const struct ap_allocs *al,
			 const struct ap_attrib *at)
{
	char who[240];
	const char *lib;
	int shown = 0;

	fprintf(f, "  size       the runtime's arena is %s, the plan's %s (%.1f %%): a delegate "
		"took the rest of the graph\n", B(at->bytes), B(at->plan_bytes),
		pct(at->bytes, at->plan_bytes));
	ap_as_addr_name(&a->as, al->b[a->id.block].caller, who, sizeof(who));
	lib = strrchr(who, '(');
	for (uint32_t k = 0; lib && k < at->n_callers && shown < 3; k++) {
		const struct ap_attrib_caller *c = &at->callers[k];
		const char *l = strrchr(c->name, '(');

		if (!l || strcmp(l, lib) || !strcmp(c->name, who))
			continue;
		fprintf(f, "  in its place %s: %u %s blocks, %s (%s first-touched)\n", TS(c->name),
			c->blocks, ap_alloc_fn_name(c->fn), B(c->bytes),
			B(c->ft_pages * at->page_size));
		shown++;
	}
}

/* The steps back in planned operator order within run 0, the first ten of them. */
static void text_consistency(FILE *f, const struct ap_tplan *p, const struct ap_attrib *at)
{
	char l1[64], l2[64], tn[64];

	fprintf(f, "  consistency %.4f: %" PRIu64 " of %" PRIu64 " first touches of run 0 do "
		"not go back in planned operator order", (double)at->cons_ok /
		(double)at->cons_total, at->cons_ok, at->cons_total);
	if (at->cons_ok == at->cons_total) {
		fprintf(f, "\n");
		return;
	}
	fprintf(f, "; the %" PRIu64 " others: %" PRIu64 " after a touch ahead of its "
		"neighbours (a page first touched before its planned writer ran), %" PRIu64
		" read faults\n", at->cons_total - at->cons_ok, at->back_ahead, at->back_reads);
	for (uint32_t i = 0; i < at->n_back && i < 10; i++) {
		const struct ap_attrib_back *b = &at->back[i];
		const char *rw = !(b->flags & AP_FF_ACCESS_KNOWN) ? "" :
				 (b->flags & AP_FF_WRITE) ? "write" : "read";

		fprintf(f, "    offset %8" PRIu64 ": %-22s after %-22s %s%s %s\n", b->offset,
			ap_corr_op_label(p, b->op, l1, sizeof(l1)),
			ap_corr_op_label(p, b->prev_op, l2, sizeof(l2)),
			rw, b->prev_ahead ? " (previous ahead)" : "", b->tensor < 0 ? "" :
			ap_corr_short_name(p->t[b->tensor].name, tn, sizeof(tn)));
	}
}

/* The arena region: where, how large, its first touches, their attribution. */
static void text_region(FILE *f, const struct ap_corr_all *x, const struct ap_attrib *at)
{
	const struct ap_analysis *a = &x->a;
	const struct ap_tplan *p = x->have_plan ? &x->plan : NULL;
	uint64_t ps = at->page_size;

	fprintf(f, "  region     0x%" PRIx64 "-0x%" PRIx64 " (%s), in %s mapping %" PRIx64 "-%"
		PRIx64 "\n", at->base, at->base + at->bytes, B(at->bytes),
		at->in_larger_mapping ? "a larger" : "its own", at->map_start, at->map_end);
	if (p && a->id.rule != AP_AR_RUNTIME)
		fprintf(f, "  size       the plan's arena %" PRIu64 " bytes%s\n", at->plan_bytes,
			a->id.block >= 0 ? "; the block holds it with LiteRT's alignment slack" :
			"");
	else if (p)
		in_its_place(f, a, at->al, at);
	fprintf(f, "  touches    %" PRIu64 " first-touched pages (%s): before run 0 %" PRIu64,
		at->ft_pages, B(at->ft_pages * ps), at->ft_before);
	if (at->ft_before && ap_attrib_by_plan(at, x))
		fprintf(f, " (%" PRIu64 " of them graph inputs, set before the first invoke)",
			at->ft_before_input);
	fprintf(f, ", run 0 %" PRIu64 ", later runs %" PRIu64, at->ft_run0, at->ft_later);
	if (at->ft_later)
		fprintf(f, " (the latest in run %d)", at->last_run);
	fprintf(f, "\n");
	if (at->pers_block >= 0) {
		const struct ap_block *b = &at->al->b[at->pers_block];
		char call[96];

		fprintf(f, "  persistent the plan's persistent arena (%" PRIu64 " bytes): %s = 0x%"
			PRIx64 " in run %d\n", p->persistent_bytes,
			ap_block_call(b, call, sizeof(call)), b->ptr, b->run_alloc);
	}
	/* no first touch (an arena resident before attach): n/a, not "0 of 0" */
	if (ap_attrib_by_plan(at, x) && !at->ft_pages)
		fprintf(f, "  plan       n/a: no first touch of the region to attribute\n");
	else if (ap_attrib_by_plan(at, x))
		fprintf(f, "  plan       %" PRIu64 " of %" PRIu64 " attributed to a planned "
			"operator (%.1f %%), %" PRIu64 " where the plan puts no tensor\n",
			at->attributed, at->ft_pages, pct(at->attributed, at->ft_pages),
			at->unplanned);
	if (at->cons_total)
		text_consistency(f, p, at);
}

/* Re-plans and run times. */
static void text_runs(FILE *f, const struct ap_arena_id *id, const struct ap_attrib *at)
{
	const struct ap_allocs *al = at->al;
	char call[96];

	for (uint32_t k = 0; k < id->n_moves; k++) {
		const struct ap_arena_move *mv = &id->moves[k];
		const struct ap_block *b = mv->block >= 0 ? &al->b[mv->block] : NULL;

		if (!b) {
			fprintf(f, "  re-planned in run %d: a later mapping 0x%" PRIx64
				" (%s) took the arena's place (by mapping: no allocation "
				"records)\n", mv->run, mv->base, B(mv->bytes));
			continue;
		}
		fprintf(f, "  re-planned in run %d: the arena moved to %s = 0x%" PRIx64 " (up to "
			"%s), %s\n", mv->run, ap_block_call(b, call, sizeof(call)), b->ptr,
			B(mv->bytes), mv->free_seen ? "the old block freed" : "a larger block from "
			"the arena's call site (frees are not probed after the first run)");
	}
	if (id->n_moves)
		fprintf(f, "             %" PRIu64 " pages first touched in the moved arena (the "
			"model's plan no longer describes it)\n", at->moved_ft_pages);
	if (!at->run_first_ns)
		return;
	/* run 0, the median and p99 run: the summary's latency line */
	fprintf(f, "  first run  %" PRIu64 " first touches in run 0 (every mapping; %" PRIu64
		" in the median run) cost at most %.2f ms: run 0 less the median run (cold "
		"caches and lazy kernel set-up count too)\n", at->run0_touches,
		at->run_median_touches,
		((double)at->run_first_ns - (double)at->run_median_ns) / 1e6);
}

/* Anonymous first touches outside the arena: per mapping, per allocating call. */
static void text_not_planned(FILE *f, const struct ap_analysis *a, const struct ap_attrib *at)
{
	uint64_t ps = at->page_size;
	char nm[240], call[96];

	fprintf(f, "\nnot planned: first-touched anonymous memory outside the arena, %" PRIu64
		" pages (%s)\n", at->np_pages, B(at->np_pages * ps));
	for (uint32_t k = 0; k < at->n_maps && k < 12; k++) {
		const struct ap_attrib_map *g = &at->maps[k];
		struct ap_block tb = { .fn = g->top_fn, .size = g->top_size,
				       .align = g->top_align };

		if (!g->ft_pages)
			continue;
		fprintf(f, "  %-44s %10s", TS(map_name(g, nm, sizeof(nm))), B(g->ft_pages * ps));
		if (g->top_caller)
			fprintf(f, "  %u blocks, largest touched %s from %s", g->blocks,
				TS(ap_block_call(&tb, call, sizeof(call))),
				TS(ap_as_addr_name(&a->as, g->top_caller, nm, sizeof(nm))));
		fprintf(f, "\n");
	}
	if (at->n_maps > 12)
		fprintf(f, "  (%u more mappings)\n", at->n_maps - 12);
	if (!at->n_callers)
		return;
	fprintf(f, "  by allocating call (blocks of a page or more live at run 0 or touched):\n");
	for (uint32_t k = 0; k < at->n_callers; k++) {
		const struct ap_attrib_caller *c = &at->callers[k];

		fprintf(f, "    %-15s %5u blocks %10s, %10s first-touched  %s\n",
			ap_alloc_fn_name(c->fn), c->blocks, B(c->bytes), B(c->ft_pages * ps),
			TS(c->name));
	}
	fprintf(f, "    %-15s %28s first-touched  (in no block of a page or more: mmap'd "
		"directly, small allocations, stacks)\n", "other", B(at->np_unblocked_pages * ps));
}

void ap_attrib_text_arena(FILE *f, const struct ap_corr_all *x, const struct ap_attrib *at)
{
	if (at->base)
		text_region(f, x, at);
	else
		fprintf(f, "  no arena region: no first touch is attributed to the plan%s\n",
			x->a.id.rule == AP_AR_LARGEST ? " (a mapping picked for its size alone "
			"is not trusted: give --arena ADDR, or record with --arena auto)" : "");
	text_runs(f, &x->a.id, at);
}

/* No mapping of the model faulted: a copy of the file in a block of the runtime's? */
static void text_unmapped(FILE *f, const struct ap_corr_all *x, const struct ap_tplan *p)
{
	const struct ap_model_weights *w = &x->weights[0];
	char who[240];

	if (w->held != AP_WH_COPY) {
		fprintf(f, "\nweights    no mapping of %s was faulted (the model was read into "
			"memory, not mapped?)\n", TS(p->model));
		return;
	}
	fprintf(f, "\nweights    a copy in anonymous memory: no mapping of %s, and a block of "
		"its size (%" PRIu64 " bytes, the file's %" PRIu64 ") from %s held: "
		"non-reclaimable, with the arena (plan --weights copy plans it so)\n",
		TS(p->model), w->copy_bytes, w->file_bytes,
		ap_as_addr_name(&x->a.as, x->a.allocs->b[w->block].caller, who, sizeof(who)));
}

void ap_attrib_text(FILE *f, const struct ap_corr_all *x, const struct ap_attrib *at)
{
	const struct ap_analysis *a = &x->a;
	const struct ap_tplan *p = x->have_plan ? &x->plan : NULL;
	uint64_t ps = at->page_size;

	text_not_planned(f, a, at);
	if (at->w_maps)
		fprintf(f, "\nweights    %s: %" PRIu64 " faults (%" PRIu64 " major), %" PRIu64
			" pages first touched (%s of a %s mapping): file-backed, reclaimable\n",
			at->w_files > 1 ? "several model files (each model's: models above)" :
			TS(at->w_path), at->w_faults, at->w_major, at->w_ft_pages,
			B(at->w_ft_pages * ps), B(at->w_bytes));
	if (at->w_maps)
		ap_weights_text(f, x);
	else if (p)
		text_unmapped(f, x, p);
}

/* The arena's block and the persistent arena's, or null. */
static void json_blocks(struct ap_json *j, const struct ap_analysis *a,
			const struct ap_attrib *at)
{
	const struct ap_allocs *al = at->al;
	char nm[240];

	if (a->id.block >= 0) {
		const struct ap_block *b = &al->b[a->id.block];

		ap_json_obj(j, "block");
		ap_json_str(j, "function", ap_alloc_fn_name(b->fn));
		ap_json_u64(j, "ptr", b->ptr);
		ap_json_u64(j, "size", b->size);
		ap_json_u64(j, "align", b->align);
		ap_json_i64(j, "run", b->run_alloc);
		ap_json_str(j, "caller", ap_as_addr_name(&a->as, b->caller, nm, sizeof(nm)));
		ap_json_end_obj(j);
	} else {
		ap_json_null(j, "block");
	}
	if (at->pers_block >= 0) {
		ap_json_obj(j, "persistent_block");
		ap_json_u64(j, "ptr", al->b[at->pers_block].ptr);
		ap_json_u64(j, "size", al->b[at->pers_block].size);
		ap_json_end_obj(j);
	} else {
		ap_json_null(j, "persistent_block");
	}
}

/* The arena's identification: the rule, the region, its block, first touches, re-plans. */
static void json_arena_id(struct ap_json *j, const struct ap_analysis *a,
			  const struct ap_attrib *at)
{
	const struct ap_allocs *al = at->al;

	ap_json_obj(j, "arena_id");
	ap_json_str(j, "rule", ap_arena_rule_key(a->id.rule));
	ap_json_str(j, "rule_text", a->id.why);
	ap_json_u64(j, "base", at->base);
	ap_json_u64(j, "bytes", at->bytes);
	ap_json_u64(j, "plan_bytes", at->plan_bytes);
	ap_json_bool(j, "in_larger_mapping", at->in_larger_mapping);
	ap_json_u64(j, "mapping_start", at->map_start);
	ap_json_u64(j, "mapping_end", at->map_end);
	json_blocks(j, a, at);
	ap_json_u64(j, "alloc_blocks", al->n);
	ap_json_u64(j, "plan_size_matches", a->id.matches);
	ap_json_arr(j, "base_candidates");
	for (uint32_t i = 0; i < a->id.n_cand; i++) {
		ap_json_obj(j, NULL);
		ap_json_i64(j, "delta", a->id.cand[i].delta);
		ap_json_u64(j, "explained", a->id.cand[i].explained);
		ap_json_u64(j, "exact_starts", a->id.cand[i].exact);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_u64(j, "first_touch_pages", at->ft_pages);
	ap_json_u64(j, "attributed_pages", at->attributed);
	ap_json_u64(j, "unplanned_pages", at->unplanned);
	ap_json_u64(j, "first_touch_before_run0", at->ft_before);
	ap_json_u64(j, "first_touch_before_run0_inputs", at->ft_before_input);
	ap_json_u64(j, "first_touch_run0", at->ft_run0);
	ap_json_u64(j, "first_touch_later", at->ft_later);
	ap_json_i64(j, "last_run", at->last_run);
	ap_json_arr(j, "moves");
	for (uint32_t k = 0; k < a->id.n_moves; k++) {
		const struct ap_arena_move *mv = &a->id.moves[k];

		ap_json_obj(j, NULL);
		ap_json_u64(j, "base", mv->base);
		ap_json_u64(j, "bytes", mv->bytes);
		ap_json_u64(j, "block_size", mv->block >= 0 ? al->b[mv->block].size : 0);
		ap_json_i64(j, "run", mv->run);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_u64(j, "moved_first_touch_pages", at->moved_ft_pages);
	ap_json_end_obj(j);
}

static void json_consistency(struct ap_json *j, const struct ap_corr_all *x,
			     const struct ap_attrib *at)
{
	ap_json_obj(j, "consistency");
	ap_json_u64(j, "run0_touches", at->cons_total);
	ap_json_u64(j, "in_order", at->cons_ok);
	if (at->cons_total)
		ap_json_f64(j, "value", (double)at->cons_ok / (double)at->cons_total);
	else
		ap_json_null(j, "value");
	ap_json_u64(j, "back_after_ahead", at->back_ahead);
	ap_json_u64(j, "back_reads", at->back_reads);
	ap_json_arr(j, "back");
	for (uint32_t i = 0; i < at->n_back; i++) {
		const struct ap_attrib_back *b = &at->back[i];

		ap_json_obj(j, NULL);
		ap_json_u64(j, "offset", b->offset);
		ap_json_i64(j, "op", b->op);
		ap_json_i64(j, "prev_op", b->prev_op);
		ap_json_bool(j, "prev_ahead", b->prev_ahead);
		ap_json_bool(j, "write", b->flags & AP_FF_WRITE);
		ap_json_str(j, "tensor", b->tensor >= 0 ? x->plan.t[b->tensor].name : "");
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_end_obj(j);
}

static void json_run_times(struct ap_json *j, const struct ap_attrib *at)
{
	ap_json_obj(j, "run_times");
	ap_json_u64(j, "runs", at->runs_completed);
	ap_json_u64(j, "first_ns", at->run_first_ns);
	ap_json_u64(j, "median_ns", at->run_median_ns);
	ap_json_u64(j, "p99_ns", at->run_p99_ns);
	ap_json_u64(j, "run0_first_touches", at->run0_touches);
	ap_json_u64(j, "median_run_first_touches", at->run_median_touches);
	ap_json_end_obj(j);
}

static void json_not_planned(struct ap_json *j, const struct ap_analysis *a,
			     const struct ap_attrib *at)
{
	uint64_t ps = at->page_size;
	char nm[240];

	ap_json_obj(j, "not_planned");
	ap_json_u64(j, "pages", at->np_pages);
	ap_json_u64(j, "bytes", at->np_pages * ps);
	ap_json_arr(j, "mappings");
	for (uint32_t k = 0; k < at->n_maps; k++) {
		const struct ap_attrib_map *g = &at->maps[k];

		if (!g->ft_pages)
			continue;
		ap_json_obj(j, NULL);
		ap_json_u64(j, "start", g->start);
		ap_json_u64(j, "end", g->end);
		ap_json_str(j, "path", g->path);
		ap_json_u64(j, "first_touch_pages", g->ft_pages);
		ap_json_u64(j, "faults", g->faults);
		ap_json_u64(j, "blocks", g->blocks);
		ap_json_u64(j, "block_bytes", g->block_bytes);
		ap_json_str(j, "largest_caller", g->top_caller ?
			    ap_as_addr_name(&a->as, g->top_caller, nm, sizeof(nm)) : "");
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_arr(j, "callers");
	for (uint32_t k = 0; k < at->n_callers; k++) {
		const struct ap_attrib_caller *c = &at->callers[k];

		ap_json_obj(j, NULL);
		ap_json_str(j, "function", ap_alloc_fn_name(c->fn));
		ap_json_str(j, "caller", c->name);
		ap_json_u64(j, "blocks", c->blocks);
		ap_json_u64(j, "bytes", c->bytes);
		ap_json_u64(j, "first_touch_pages", c->ft_pages);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	ap_json_u64(j, "unblocked_pages", at->np_unblocked_pages);
	ap_json_end_obj(j);
}

static void json_weights(struct ap_json *j, const struct ap_corr_all *x, const struct ap_attrib *at)
{
	ap_json_obj(j, "weights");
	ap_json_str(j, "path", at->w_path ? at->w_path : "");
	ap_json_u64(j, "mappings", at->w_maps);
	ap_json_u64(j, "faults", at->w_faults);
	ap_json_u64(j, "major_faults", at->w_major);
	ap_json_u64(j, "first_touch_pages", at->w_ft_pages);
	ap_json_u64(j, "mapping_bytes", at->w_bytes);
	ap_weights_json(j, x);
	ap_json_end_obj(j);
}

void ap_attrib_json(struct ap_json *j, const struct ap_corr_all *x,
		    const struct ap_attrib *at)
{
	json_arena_id(j, &x->a, at);
	json_consistency(j, x, at);
	json_run_times(j, at);
	json_not_planned(j, &x->a, at);
	json_weights(j, x, at);
}
