// SPDX-License-Identifier: Apache-2.0
/*
 * The live model (the TUI's) fed by hand as a session would feed it, with the plan of the
 * bundled MobileNet v2: the arena rule before and after the arena is touched, first
 * touches per operator by plan and by marker (the fixture's ground truth, which
 * test_tui.sh checks against mininfer --truth), pages resident at attach, rates, the
 * residency bar, the operator order; XNNPACK's blocks apart from the callers, the TFLite
 * arena's block beside them and the history window; and the arena rule on its own.
 */
#include <stdlib.h>

#include "arenaprof/analyze/allocs.h"
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

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
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

/*
 * The first run, attached before it: the arena untouched at first (the rule falls back on
 * the largest held mapping), then every arena page first touched by its writer, markers
 * agreeing; rates, the residency bar, the operator order. -1 when it cannot go on.
 */
static int check_first_run(const struct ap_session *sess, const struct ap_tplan *plan,
			   uint64_t pages)
{
	struct ap_live_cell cells[8];
	struct ap_live l;
	char err[AP_ERR_LEN];
	int32_t *owner;
	uint32_t order[128];
	uint64_t page_of_op[128] = { 0 }, n = 0;
	uint8_t bits[9] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x03 };
	bool ok;

	if (ap_live_init(&l, sess, plan, MODEL, err)) {
		printf("FAIL: ap_live_init: %s\n", err);
		return -1;
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
	      l.id.map >= 0 && l.as.maps[l.id.map].start == SMALL && l.id.rule == AP_AR_LARGEST &&
	      l.arena_held == 66 && l.arena_ft == 0,
	      "arena %d held %" PRIu64 " rule %d", l.id.map, l.arena_held, l.id.rule);

	/* the first run: every arena page first touched by its writer, markers agreeing */
	if (ap_arena_page_owners(plan, PS, &owner) != (int64_t)pages) {
		printf("FAIL: page owners\n");
		return -1;
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
	      l.id.map >= 0 && l.as.maps[l.id.map].start == ARENA && l.id.rule == AP_AR_MAPPING,
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
	return 0;
}

/* Attached after the first run: the arena resident at attach, no first touch. */
static int check_attached(const struct ap_session *sess, const struct ap_tplan *plan,
			  uint64_t pages)
{
	struct ap_live l;
	char err[AP_ERR_LEN];

	if (ap_live_init(&l, sess, plan, MODEL, err)) {
		printf("FAIL: ap_live_init: %s\n", err);
		return -1;
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
	      l.id.map >= 0 && l.as.maps[l.id.map].start == ARENA && l.arena_held == pages &&
	      l.arena_ft == 0 && l.ops[0].resident_pages == 181 && l.ops[0].ft_plan == 0,
	      "held %" PRIu64 " ft %" PRIu64 " op0 %" PRIu64, l.arena_held, l.arena_ft,
	      l.ops[0].resident_pages);
	ap_live_free(&l);
	return 0;
}

/*
 * Attached to an arena merged with a neighbour (issue 28: a 5.3 MB mapping taken for the
 * arena): its pages are held, but no operator is filled from a mapping that is not the
 * plan's size, its offsets not the plan's.
 */
static int check_merged(const struct ap_session *sess, const struct ap_tplan *plan,
			uint64_t pages)
{
	const uint64_t merged = pages + 300;
	struct ap_rec_resident rr = { .start = ARENA, .end = ARENA + merged * PS,
				      .present = merged };
	uint8_t all[128];
	struct ap_live l;
	char err[AP_ERR_LEN];
	bool none = true;

	if (ap_live_init(&l, sess, plan, MODEL, err)) {
		printf("FAIL: ap_live_init: %s\n", err);
		return -1;
	}
	set_maps(merged);
	l.sink.mappings(l.sink.ctx, &maps, 1, 1000000000);
	memset(all, 0xff, sizeof(all));
	l.sink.resident(l.sink.ctx, &rr, all, (merged + 7) / 8);
	fault(&l, ARENA + 8, ARENA, ARENA + merged * PS, 0, 1600000000);
	sample(&l, 2000000000);
	for (uint32_t i = 0; i < l.n_ops; i++)
		none &= !l.ops[i].resident_pages && !l.ops[i].ft_plan && !l.ops[i].ft_marker;
	CHECK("merged mapping: held, not the plan's size, no operator filled from it",
	      l.id.map >= 0 && l.id.rule != AP_AR_MAPPING && l.arena_held == merged && none,
	      "rule %d held %" PRIu64 " op0 %" PRIu64, l.id.rule, l.arena_held,
	      l.ops[0].resident_pages);
	ap_live_free(&l);
	set_maps(pages);
	return 0;
}

/* Run latency: none before a run, then p50 and p99 of the last 256 runs. */
static void check_latency(struct ap_live *l)
{
	uint64_t p50 = 0, p99 = 0;
	uint32_t k = 0;

	CHECK("latency: none before a run", !ap_live_latency(l, &p50, &p99, &k) && !k,
	      "k %u", k);
	/* 300 runs of 1..300 us (in a shuffled order), and one run's end on
	 * another thread, which times nothing; the last 256 are 45..300 us */
	for (uint64_t i = 0; i < 300; i++) {
		uint64_t d = (i * 7 % 300 + 1) * 1000, t = 5000000000 + i * 1000000;
		struct ap_event b = { .ts_ns = t, .tid = 7, .type = AP_EV_RUN_BEGIN };
		struct ap_event e = { .ts_ns = t + d, .tid = 7, .type = AP_EV_RUN_END };

		l->sink.event(l->sink.ctx, &b);
		if (i == 100)
			e.tid = 8;
		l->sink.event(l->sink.ctx, &e);
	}
	ap_live_latency(l, &p50, &p99, &k);
	{
		/* ground truth: the last 256 timed durations, sorted by hand */
		uint64_t v[300], n = 0, want50, want99;

		for (uint64_t i = 0; i < 300; i++)
			if (i != 100)
				v[n++] = (i * 7 % 300 + 1) * 1000;
		qsort(v + (n - 256), 256, sizeof(*v), cmp_u64);
		want50 = v[n - 256 + 127];	/* the lower middle: (256 - 1) / 2 */
		want99 = v[n - 256 + 253];	/* 256 * 99 / 100 */
		CHECK("latency: p50 and p99 of the last 256 runs",
		      k == 256 && p50 == want50 && p99 == want99,
		      "k %u p50 %" PRIu64 " (want %" PRIu64 ") p99 %" PRIu64
		      " (want %" PRIu64 ")", k, p50, want50, p99, want99);
	}
	{
		/* a summary's _count and _sum (openmetrics): every run timed, not the window */
		uint64_t sum = 0;

		for (uint64_t i = 0; i < 300; i++)
			if (i != 100)
				sum += (i * 7 % 300 + 1) * 1000;
		CHECK("latency: the count and sum of every run timed", l->lat.n == 299 &&
		      l->lat.sum_ns == sum, "n %" PRIu64 " sum %" PRIu64 " (want 299, %" PRIu64
		      ")", l->lat.n, l->lat.sum_ns, sum);
	}
}

/* Allocating calls: the bytes held, the sites ranked by them, blocks replaced and freed. */
static void check_allocs(struct ap_live *l)
{
	struct ap_event ev = { .type = AP_EV_ALLOC, .tid = 7 };

	/* two sites: A holds 3 blocks of 64 KiB then frees one; B one of 1 MiB */
	for (int i = 0; i < 3; i++) {
		ev.fn = AP_ALLOC_MALLOC;
		ev.addr = 0x1000000 + (uint64_t)i * 0x100000;
		ev.size = 65536;
		ev.ip = 0xa000;
		l->sink.event(l->sink.ctx, &ev);
	}
	ev.addr = 0x9000000;
	ev.size = 1 << 20;
	ev.ip = 0xb000;
	ev.fn = AP_ALLOC_ALIGNED_ALLOC;
	l->sink.event(l->sink.ctx, &ev);
	ev.fn = AP_ALLOC_FREE;
	ev.addr = 0x1100000;
	ev.size = 65536;
	ev.ip = 0xa000;
	l->sink.event(l->sink.ctx, &ev);
	ev.addr = 0xdead000;	/* a free of a block never seen: nothing */
	l->sink.event(l->sink.ctx, &ev);
	sample(l, 6000000000);
	CHECK("allocs: held bytes, sites ranked by bytes not freed",
	      l->alloc_bytes == (1 << 20) + 2 * 65536 && l->n_callers == 2 &&
	      l->callers[0].ip == 0xb000 && l->callers[0].bytes == 1 << 20 &&
	      l->callers[1].ip == 0xa000 && l->callers[1].bytes == 2 * 65536 &&
	      l->callers[1].blocks == 2,
	      "held %" PRIu64 " callers %u", l->alloc_bytes, l->n_callers);

	/* 3000 more blocks from 1000 sites, freed in another order than made; a
	 * block at an address still held replaces it (its free went unseen) */
	for (uint64_t i = 0; i < 3000; i++) {
		ev.fn = AP_ALLOC_MALLOC;
		ev.addr = 0x40000000 + i * 0x10000;
		ev.size = 4096 + i;
		ev.ip = 0xc000 + (i % 1000) * 8;
		l->sink.event(l->sink.ctx, &ev);
	}
	ev.addr = 0x40000000;
	ev.size = 100;
	l->sink.event(l->sink.ctx, &ev);
	sample(l, 6500000000);
	CHECK("allocs: 3000 blocks more, one replaced; the sites holding them",
	      l->alloc_bytes == (1 << 20) + 2 * 65536 + 3000 * 4096 +
			       2999 * 3000 / 2 - 4096 + 100 &&
	      l->n_callers == 2 + 1000,
	      "held %" PRIu64 " callers %u", l->alloc_bytes, l->n_callers);
	ev.fn = AP_ALLOC_FREE;
	for (uint64_t i = 3000; i-- > 0;) {
		ev.addr = 0x40000000 + (i * 7 % 3000) * 0x10000;
		l->sink.event(l->sink.ctx, &ev);
	}
	sample(l, 6600000000);
	CHECK("allocs: every one freed, the sites that hold nothing dropped",
	      l->alloc_bytes == (1 << 20) + 2 * 65536 && l->n_callers == 2 &&
	      l->callers[0].ip == 0xb000 && l->callers[1].blocks == 2,
	      "held %" PRIu64 " callers %u", l->alloc_bytes, l->n_callers);
}

/* Objects: [heap] twice (two vmas) and the unnamed anonymous ones. */
static void check_objects(struct ap_live *l)
{
	struct ap_live_object o[4];
	uint32_t k;

	set_maps(10);
	l->sink.mappings(l->sink.ctx, &maps, 1, 6000000000);
	maps_m[0].start = 0x555500021000ULL;
	maps_m[0].end = 0x555500030000ULL;
	l->sink.mappings(l->sink.ctx, &maps, 2, 6100000000);
	fault(l, 0x555500000010ULL, 0x555500000000ULL, 0x555500021000ULL, -1, 6200000000);
	fault(l, 0x555500001010ULL, 0x555500000000ULL, 0x555500021000ULL, -1, 6200000001);
	fault(l, 0x555500022010ULL, 0x555500021000ULL, 0x555500030000ULL, -1, 6200000002);
	fault(l, ARENA + 8, ARENA, ARENA + 10 * PS, -1, 6200000003);
	fault(l, ARENA + 16, ARENA, ARENA + 10 * PS, -1, 6200000004);
	k = ap_live_objects(l, o, 4);
	CHECK("objects: vmas summed per object, the most held first",
	      k == 2 && !strcmp(o[0].name, "[heap]") && o[0].held_pages == 3 &&
	      o[0].mappings == 2 && o[0].faults == 3 && !strcmp(o[1].name, "[anon]") &&
	      o[1].held_pages == 1 && o[1].faults == 2 && o[1].mappings == 2,
	      "%u objects: %s %" PRIu64 " pages %u maps", k, k ? o[0].name : "-",
	      k ? o[0].held_pages : 0, k ? o[0].mappings : 0);
}

/*
 * XNNPACK's blocks: kept apart from the callers (the C library's block its allocator took
 * leaves them), held until freed, not classed while no file names their site; the TFLite
 * arena's block by the plan's size, else the first aligned_alloc(64); the history window.
 */
static void check_xnn(struct ap_live *l)
{
	struct ap_event ev = { .type = AP_EV_ALLOC, .tid = 7 };
	const uint64_t planned[AP_XNN_N_CLASSES] = { 10, 20, 30, 40 };
	uint64_t held0 = l->alloc_bytes, span;
	uint32_t rule;
	float v[8], min, max;
	int n;

	ap_live_xnn_plan(l, planned, 214528);
	/* xnn_allocate(8192) calls malloc(8192): the C library's event comes first */
	ev.fn = AP_ALLOC_MALLOC;
	ev.addr = 0x70000000;
	ev.size = 8192;
	ev.ip = 0xe000;
	l->sink.event(l->sink.ctx, &ev);
	ev.fn = AP_ALLOC_XNN_ALIGNED;
	ev.ip = 0xf000;
	ev.align = 0xf100;	/* the caller's caller */
	l->sink.event(l->sink.ctx, &ev);
	for (uint64_t i = 1; i <= 4; i++) {	/* small ones: every size is probed */
		ev.addr = 0x70000000 + i * 0x100;
		ev.size = 64;
		l->sink.event(l->sink.ctx, &ev);
	}
	ev.fn = AP_ALLOC_FREE;
	ev.addr = 0x70000100;
	l->sink.event(l->sink.ctx, &ev);
	/* the TFLite arena: aligned_alloc(64, plan + 64), and an earlier aligned one */
	ev.fn = AP_ALLOC_ALIGNED_ALLOC;
	ev.align = 64;
	ev.addr = 0x71000000;
	ev.size = 65536;
	ev.ip = 0xd000;
	l->sink.event(l->sink.ctx, &ev);
	CHECK("xnn: before the plan's size, rule 2 (the first aligned_alloc(64))",
	      ap_live_xnn_arena(l, &rule) == 65536 - 63 && rule == AP_ARID_RUNTIME,
	      "rule %u", rule);
	ev.addr = 0x72000040;
	ev.size = 214528 + 64;
	ev.ip = 0xd100;		/* another call: not a re-plan of the first */
	l->sink.event(l->sink.ctx, &ev);
	sample(l, 7000000000);
	CHECK("xnn: its blocks held apart from the callers', not classed without a file",
	      l->xnn.events == 5 && l->xnn.blocks == 4 && l->xnn.bytes == 8192 + 3 * 64 &&
	      l->xnn.unclassed == l->xnn.bytes &&
	      l->alloc_bytes == held0 + 65536 + 214528 + 64 && ap_live_xnn_seen(l),
	      "events %" PRIu64 " blocks %" PRIu64 " bytes %" PRIu64 " callers' %" PRIu64,
	      l->xnn.events, l->xnn.blocks, l->xnn.bytes, l->alloc_bytes - held0);
	CHECK("xnn: the TFLite arena's block of the plan's size (rule 1), the plan kept",
	      ap_live_xnn_arena(l, &rule) == 214528 && rule == AP_ARID_PLAN_SIZE &&
	      l->xnn.planned && l->xnn.plan_cls[AP_XNN_OTHER] == 40, "rule %u", rule);
	ev.fn = AP_ALLOC_FREE;
	ev.addr = 0x72000040;
	l->sink.event(l->sink.ctx, &ev);
	ev.addr = 0x70000000;
	l->sink.event(l->sink.ctx, &ev);
	CHECK("xnn: freed, the arena block and XNNPACK's",
	      ap_live_xnn_arena(l, &rule) == 65536 - 63 && l->xnn.bytes == 3 * 64 &&
	      l->xnn.blocks == 3, "bytes %" PRIu64, l->xnn.bytes);

	/* the window: 10 samples into at most 4 cells: 4 a cell, aligned */
	struct ap_live_hist h = { 0 };
	uint64_t ts[AP_LIVE_HIST];

	for (int i = 0; i < 10; i++) {
		h.v[i] = (float)(100 + i);
		ts[i] = 1000000000ULL * (uint64_t)i;
	}
	h.n = 10;
	CHECK("window: 10 samples in 3 cells of 4 (the last filling), min, max, span",
	      ap_live_window(&h, ts, 4, v, &n, &min, &max, &span) && n == 3 &&
	      v[0] == 103 && v[1] == 107 && v[2] == 109 && min == 100 && max == 109 &&
	      span == 9000000000ULL, "n %d v %g %g %g min %g max %g span %" PRIu64, n,
	      (double)v[0], (double)v[1], (double)v[2], (double)min, (double)max, span);
}

/* Latency, allocating calls and objects, without a plan. -1 when it cannot go on. */
static int check_without_plan(const struct ap_session *sess)
{
	struct ap_live l;
	char err[AP_ERR_LEN];

	if (ap_live_init(&l, sess, NULL, NULL, err)) {
		printf("FAIL: ap_live_init: %s\n", err);
		return -1;
	}
	check_latency(&l);
	check_allocs(&l);
	check_xnn(&l);
	check_objects(&l);
	ap_live_free(&l);
	return 0;
}

/* The rule alone: plan size with slack wins over larger; [stack] never. */
static void check_rule(const struct ap_tplan *plan, uint64_t pages)
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
		     ap_arena_pick(c, 3, plan, PS, rule, sizeof(rule), &by_size), 1);
	CHECK("rule: by the plan's size", by_size, "by_size %d", by_size);
	CHECK_EQ_I64("rule: without a plan the largest held, never [stack]",
		     ap_arena_pick(c, 3, NULL, PS, rule, sizeof(rule), &by_size), 0);
	CHECK("rule: says so", !strcmp(rule, "largest faulted anonymous mapping (no plan "
	      "given)"), "%s", rule);
}

int main(void)
{
	struct ap_session sess = { .pid = 42, .cmdline = "mininfer", .t_start_ns = 1000000000 };
	struct ap_tplan plan;
	char err[AP_ERR_LEN];
	uint64_t pages;

	if (ap_plan_load(MODEL, &plan, err)) {
		printf("FAIL: plan %s: %s\n", MODEL, err);
		return 1;
	}
	pages = (plan.arena_bytes + PS - 1) / PS;
	CHECK_EQ_I64("the plan's arena is 405 pages", pages, 405);
	if (check_first_run(&sess, &plan, pages) || check_attached(&sess, &plan, pages) ||
	    check_merged(&sess, &plan, pages) || check_without_plan(&sess))
		return 1;
	check_rule(&plan, pages);
	ap_tplan_free(&plan);
	TEST_EXIT();
}
