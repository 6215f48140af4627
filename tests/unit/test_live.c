// SPDX-License-Identifier: Apache-2.0
/*
 * The live model (the TUI's) fed by hand as a session would feed it, with the plan of the
 * bundled MobileNet v2: the arena rule before and after the arena is touched, first
 * touches per operator by plan and by marker (the fixture's ground truth, which
 * test_tui.sh checks against mininfer --truth), pages resident at attach, rates, the
 * residency bar, the operator order; and the arena rule on its own.
 */
#include <stdlib.h>

#include "arenaprof/analyze/arena.h"
#include "arenaprof/util/err.h"
#include "arenaprof/analyze/live.h"
#include "arenaprof/plan/plan_load.h"
#include "test.h"

#define PS 4096u
#define ARENA 0x7f0000000000ULL
#define SMALL 0x7f1000000000ULL
#define MODEL TEST_MODELS "/mobilenet_v2_1.0_224_quant.tflite"

/* mininfer --truth: first-touch pages of the arena per writer (-1: graph inputs) */
static const struct { int32_t op; uint64_t pages; } truth[] = {
	{ -1, 37 }, { 0, 181 }, { 1, 15 }, { 2, 50 }, { 3, 97 }, { 4, 25 },
};

static struct ap_map maps_m[3];
static struct ap_maps maps = { .m = maps_m, .n = 3 };

static void set_maps(uint64_t arena_pages)
{
	maps_m[0] = (struct ap_map){ .start = 0x555500000000ULL, .end = 0x555500021000ULL,
				     .prot = 3, .path = (char *)"[heap]" };
	maps_m[1] = (struct ap_map){ .start = ARENA, .end = ARENA + arena_pages * PS,
				     .prot = 3, .path = (char *)"" };
	maps_m[2] = (struct ap_map){ .start = SMALL, .end = SMALL + 66 * PS, .prot = 3,
				     .path = (char *)"" };
}

static void fault(struct ap_live *l, uint64_t addr, uint64_t start, uint64_t end, int32_t op,
		  uint64_t ts)
{
	struct ap_event ev = { .ts_ns = ts, .addr = addr, .vm_start = start, .vm_end = end,
			       .type = AP_EV_FAULT, .flags = AP_FF_VMA_ANON | AP_FF_WRITE,
			       .run = 0, .op = op };

	l->sink.event(l->sink.ctx, &ev);
}

static void sample(struct ap_live *l, uint64_t ts)
{
	struct ap_session_sample s;

	memset(&s, 0xff, sizeof(s));
	s.rec.ts_ns = ts;
	s.smaps_read = false;
	s.acct.cg_path[0] = '\0';
	l->sink.sample(l->sink.ctx, &s);
}

int main(void)
{
	struct ap_session sess = { .pid = 42, .cmdline = "mininfer", .t_start_ns = 1000000000 };
	struct ap_live_cell cells[8];
	struct ap_tplan plan;
	struct ap_live l;
	char err[AP_ERR_LEN];
	int32_t *owner;
	uint32_t order[128];
	uint64_t pages, page_of_op[128] = { 0 }, n = 0;
	uint8_t bits[9] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03 };
	bool ok;

	if (ap_plan_load(MODEL, &plan, err)) {
		printf("FAIL: plan %s: %s\n", MODEL, err);
		return 1;
	}
	pages = (plan.arena_bytes + PS - 1) / PS;
	CHECK_EQ_I64("the plan's arena is 405 pages", pages, 405);
	if (ap_live_init(&l, &sess, &plan, MODEL, err)) {
		printf("FAIL: ap_live_init: %s\n", err);
		return 1;
	}
	set_maps(pages);
	l.sink.mappings(l.sink.ctx, &maps, 1, 1000000000);
	/* -p: 66 of the small mapping's pages resident at attach, the arena untouched */
	{
		struct ap_rec_resident rr = { .start = SMALL, .end = SMALL + 66 * PS,
					      .present = 66 };

		l.sink.resident(l.sink.ctx, &rr, bits, sizeof(bits));
	}
	sample(&l, 1500000000);
	CHECK("untouched arena: the largest held anonymous mapping, not the plan's size",
	      l.id.map >= 0 && l.maps[l.id.map].start == SMALL && l.id.rule == AP_AR_LARGEST &&
	      l.arena_held == 66 && l.arena_ft == 0,
	      "arena %d held %" PRIu64 " rule %d", l.id.map, l.arena_held, l.id.rule);

	/* the first run: every arena page first touched by its writer, markers agreeing */
	if (ap_arena_page_owners(&plan, PS, &owner) != (int64_t)pages) {
		printf("FAIL: page owners\n");
		return 1;
	}
	for (uint64_t p = 0; p < pages; p++) {
		fault(&l, ARENA + p * PS + 8, ARENA, ARENA + pages * PS, owner[p], 1600000000 + p);
		fault(&l, ARENA + p * PS + 16, ARENA, ARENA + pages * PS, owner[p], 1600000000 + p);
		if (owner[p] >= 0 && owner[p] < 128)
			page_of_op[owner[p]]++;
	}
	free(owner);
	sample(&l, 2500000000);
	CHECK("touched arena: the mapping of the plan's size",
	      l.id.map >= 0 && l.maps[l.id.map].start == ARENA && l.id.rule == AP_AR_MAPPING,
	      "arena %d rule %s", l.id.map, l.id.why);
	CHECK_EQ_I64("arena: every page held", l.arena_held, pages);
	CHECK_EQ_I64("arena: every page first touched while traced", l.arena_ft, pages);
	CHECK_EQ_I64("faults counted (two per page)", l.faults, 2 * pages);
	ok = true;
	for (size_t i = 0; i < sizeof(truth) / sizeof(truth[0]); i++) {
		int32_t op = truth[i].op;

		n += truth[i].pages;
		if (op < 0)
			continue;
		if (l.ops[op].ft_plan != truth[i].pages || l.ops[op].ft_marker != truth[i].pages ||
		    l.ops[op].resident_pages != truth[i].pages || page_of_op[op] != truth[i].pages)
			ok = false;
	}
	for (uint32_t i = 5; i < l.n_ops; i++)
		if (l.ops[i].ft_plan || l.ops[i].ft_marker)
			ok = false;
	CHECK("first touches per operator (plan and marker) are mininfer's truth",
	      ok && n == pages, "op 0: %" PRIu64 "/%" PRIu64, l.ops[0].ft_plan,
	      l.ops[0].ft_marker);
	CHECK("first-touch rate: 405 pages in one second",
	      ap_live_rate(&l.ft_rate) > 404.9 && ap_live_rate(&l.ft_rate) < 405.1,
	      "%f", ap_live_rate(&l.ft_rate));
	CHECK_EQ_I64("the bar: 8 cells", ap_live_bar(&l, cells, 8), 8);
	CHECK("the bar: every cell held, the first owned by the graph inputs",
	      cells[0].held == cells[0].pages && cells[7].held == cells[7].pages &&
	      cells[0].owner == AP_OWNER_INPUT, "cell 0 %u/%u owner %d", cells[0].held,
	      cells[0].pages, cells[0].owner);
	ap_live_op_order(&l, AP_SORT_BREADTH, false, order);
	CHECK_EQ_I64("sort by breadth: the widest first", order[0], l.prof.widest_op);
	ap_live_op_order(&l, AP_SORT_FIRST_TOUCH, false, order);
	CHECK_EQ_I64("sort by first touch: op 0 first", order[0], 0);
	ap_live_op_order(&l, AP_SORT_INDEX, true, order);
	CHECK_EQ_I64("index, reversed: the last first", order[0], l.n_ops - 1);
	ap_live_free(&l);

	/* attached after the first run: the arena resident at attach, no first touch */
	if (ap_live_init(&l, &sess, &plan, MODEL, err)) {
		printf("FAIL: ap_live_init: %s\n", err);
		return 1;
	}
	l.sink.mappings(l.sink.ctx, &maps, 1, 1000000000);
	{
		struct ap_rec_resident rr = { .start = ARENA, .end = ARENA + pages * PS,
					      .present = pages };
		uint8_t all[64];

		memset(all, 0xff, sizeof(all));
		l.sink.resident(l.sink.ctx, &rr, all, (pages + 7) / 8);
	}
	fault(&l, ARENA + 8, ARENA, ARENA + pages * PS, 0, 1600000000);
	sample(&l, 2000000000);
	CHECK("resident at attach: the arena held, nothing first touched",
	      l.id.map >= 0 && l.maps[l.id.map].start == ARENA && l.arena_held == pages &&
	      l.arena_ft == 0 && l.ops[0].resident_pages == 181 && l.ops[0].ft_plan == 0,
	      "held %" PRIu64 " ft %" PRIu64 " op0 %" PRIu64, l.arena_held, l.arena_ft,
	      l.ops[0].resident_pages);
	ap_live_free(&l);

	/* the rule alone: plan size with slack wins over larger; [stack] never */
	{
		struct ap_arena_cand c[] = {
			{ .start = 0, .end = 100 * PS, .pages = 90, .anon = true, .path = "" },
			{ .start = 0, .end = (pages + 1) * PS, .pages = 3, .anon = true, .path = "",
			  .first_run = 0 },
			{ .start = 0, .end = 900 * PS, .pages = 900, .anon = true,
			  .path = "[stack]" },
		};
		char rule[160];
		bool by_size;

		CHECK_EQ_I64("rule: the plan's size (one page of slack)",
			     ap_arena_pick(c, 3, &plan, PS, rule, sizeof(rule), &by_size), 1);
		CHECK("rule: by the plan's size", by_size, "by_size %d", by_size);
		CHECK_EQ_I64("rule: without a plan the largest held, never [stack]",
			     ap_arena_pick(c, 3, NULL, PS, rule, sizeof(rule), &by_size), 0);
		CHECK("rule: says so", !strcmp(rule, "largest faulted anonymous mapping (no plan "
		      "given)"), "%s", rule);
	}
	ap_tplan_free(&plan);
	TEST_EXIT();
}
