// SPDX-License-Identifier: Apache-2.0
/*
 * The correlator on hand-made plans and first touches: the arena base among the
 * candidates (mapping start, malloc header, 64-byte-aligned block), with and without op
 * markers; plan attribution (earliest writer, inputs, temporaries, in-place sharers);
 * agreement; groups; a plan that does not match.
 */
#include <stdlib.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/util/err.h"
#include "test.h"

#define PS 4096u
#define START 0x7f0000000000ULL

static struct ap_ptensor T[8];
static struct ap_pop OPS[3] = {
	{ "CONV_2D", "conv" }, { "ADD", "add" }, { "SOFTMAX", "out" },
};

/*
 * t0 input [0, 8192); t1 op 0 [8192, 20480); t2 op 1 [0, 4096) (reuses the input's page);
 * t3 op 2 temporary [20480, 24576); t4 op 2 output [24576, 24676); t5 op 1 in place on
 * t1 (shares it); t6 a weight (not in the arena).
 */
static void plan(struct ap_tplan *p)
{
	static const struct { int64_t off; uint64_t bytes; int32_t first; enum ap_kind k;
			      int32_t share; } d[] = {
		{ 0, 8192, 0, AP_KIND_INPUT, -1 },
		{ 8192, 12288, 0, AP_KIND_ARENA, -1 },
		{ 0, 4096, 1, AP_KIND_ARENA, -1 },
		{ 20480, 4096, 2, AP_KIND_TEMPORARY, -1 },
		{ 24576, 100, 2, AP_KIND_OUTPUT, -1 },
		{ 8192, 12288, 1, AP_KIND_ARENA, 1 },
		{ -1, 4000, -1, AP_KIND_WEIGHTS, -1 },
	};

	memset(p, 0, sizeof(*p));
	for (int i = 0; i < 7; i++)
		T[i] = (struct ap_ptensor){ .index = i, .name = (char *)"t", .bytes = d[i].bytes,
					    .offset = d[i].off, .first = d[i].first,
					    .last = d[i].first + 1, .kind = d[i].k,
					    .share_root = d[i].share };
	p->model = (char *)"hand";
	p->strategy = (char *)"tflite";
	p->t = T;
	p->n = 7;
	p->ops = OPS;
	p->n_ops = 3;
	p->arena_bytes = 24676;
}

struct fake {
	struct ap_analysis a;
	struct ap_amap maps[3];
	struct ap_touch touch[64];
	char *strings[AP_HS_COUNT];
	bool seen[16];
};

/* Runs the plan's writers in order at base START + delta: first touches in order. */
static void run(struct fake *x, const struct ap_tplan *p, int64_t delta, bool markers)
{
	static char empty[] = "", probe[] = "x:op:0";

	memset(x, 0, sizeof(*x));
	x->a.hdr.page_size = PS;
	x->maps[0] = (struct ap_amap){ .start = START, .end = START + 8 * PS, .anon = true,
				       .path = empty, .role = "arena", .faults = 9 };
	x->maps[1] = (struct ap_amap){ .start = 0x1000, .end = 0x9000, .path = (char *)"m",
				       .role = "weights", .faults = 3, .first_touch_pages = 2 };
	x->maps[2] = (struct ap_amap){ .start = 0x55000, .end = 0x56000, .anon = true,
				       .path = (char *)"[heap]", .role = "heap", .faults = 1,
				       .first_touch_pages = 1 };
	x->a.as.maps = x->maps;
	x->a.as.n_maps = 3;
	x->a.as.touches = x->touch;
	for (int i = 0; i < 6; i++)
		x->strings[i] = empty;
	x->strings[AP_HS_OP_PROBE] = markers ? probe : empty;
	memcpy(x->a.strings, x->strings, sizeof(x->strings));
	x->a.op_events = markers ? 6 : 0;
	for (int32_t w = -1; w < 3; w++) {
		for (uint32_t i = 0; i < p->n; i++) {
			const struct ap_ptensor *t = &p->t[i];
			int32_t wr = ap_corr_writer(p, t);

			if (wr != w)
				continue;
			for (uint64_t b = (uint64_t)(t->offset + delta);
			     b < (uint64_t)(t->offset + delta) + t->bytes; b = (b / PS + 1) * PS) {
				uint64_t pg = b / PS;

				if (x->seen[pg])
					continue;
				x->seen[pg] = true;
				x->touch[x->a.as.n_touches++] = (struct ap_touch){
					.map = 0, .run = 0, .op = markers ? w : -1, .page = pg,
					.in_page = (uint32_t)(b % PS) };
				x->maps[0].first_touch_pages++;
			}
		}
	}
}

/* The arena as the analysis finds it (arena.h), given an address or not; then correlation. */
static int build(struct fake *x, const struct ap_tplan *p, uint64_t given, struct ap_corr *c,
		 char *err)
{
	memset(&x->a.id, 0, sizeof(x->a.id));
	x->a.id.map = x->a.id.block = -1;
	int rc = ap_arena_identify(&x->a, p, given, -1, NULL, &x->a.id);

	/* the model's look-up painted the fake's maps: a cache its free would drop (the maps
	 * here are the test's own arrays, so not ap_as_free) */
	ap_newest_free(&x->a.as.newest);
	x->a.as.painted = 0;
	x->a.as.paint_oom = false;
	if (rc) {
		snprintf(err, AP_ERR_LEN, "out of memory identifying the arena");
		return -1;
	}
	return ap_corr_build(&x->a, p, c, err);
}

int main(void)
{
	struct ap_tplan p;
	struct ap_corr c;
	struct fake x;
	char err[AP_ERR_LEN];

	plan(&p);
	CHECK_EQ_I64("writer: graph input is -1", ap_corr_writer(&p, &T[0]), -1);
	CHECK_EQ_I64("writer: temporary is its node", ap_corr_writer(&p, &T[3]), 2);
	CHECK_EQ_I64("writer: weights have none", ap_corr_writer(&p, &T[6]), AP_OP_NONE);

	for (int m = 0; m < 2; m++) {
		bool markers = m == 0;

		for (int k = 0; k < 3; k++) {
			static const int64_t deltas[] = { 0, 64, 16 };
			char name[128];

			run(&x, &p, deltas[k], markers);
			if (build(&x, &p, 0, &c, err)) {
				CHECK("build", 0, "%s", err);
				continue;
			}
			snprintf(name, sizeof(name), "%s: base at mapping start + %lld found",
				 markers ? "markers" : "no markers", (long long)deltas[k]);
			CHECK(name, c.delta == deltas[k] && c.base == START + (uint64_t)deltas[k],
			      "got +%lld (%s)", (long long)c.delta, x.a.id.why);
			snprintf(name, sizeof(name), "%s +%lld: the plan matches",
				 markers ? "markers" : "no markers", (long long)deltas[k]);
			CHECK(name, !c.mismatch, "%s", c.n_reasons ? c.reasons[0] : "");
			if (markers) {
				snprintf(name, sizeof(name), "+%lld: 100 %% agreement",
					 (long long)deltas[k]);
				CHECK(name, c.agree == c.compared && c.compared == x.a.as.n_touches,
				      "%llu of %llu", (unsigned long long)c.agree,
				      (unsigned long long)c.compared);
			}
			ap_corr_free(&c);
		}
	}

	/* base +0: page attribution by the earliest writer */
	run(&x, &p, 0, true);
	build(&x, &p, 0, &c, err);
	CHECK_EQ_I64("page 0: input before op 1's reuse", c.page_op[0], -1);
	CHECK_EQ_I64("page 2: op 0 (the in-place op 1 writes later)", c.page_op[2], 0);
	CHECK_EQ_I64("page 5: the temporary's node", c.page_op[5], 2);
	CHECK_EQ_I64("page 6: the output's producer", c.page_op[6], 2);
	CHECK_EQ_I64("page 7: no tensor", c.page_op[7], AP_OP_NONE);
	CHECK_EQ_I64("per op: inputs 2 pages", c.ops[0].plan_pages, 2);
	CHECK_EQ_I64("per op: op 0 3 pages", c.ops[1].plan_pages, 3);
	CHECK_EQ_I64("per op: op 2 2 pages", c.ops[3].plan_pages, 2);
	CHECK_EQ_I64("groups: weights faults", c.groups[AP_GROUP_WEIGHTS].faults, 3);
	CHECK_EQ_I64("groups: heap pages", c.groups[AP_GROUP_HEAP].first_touch_pages, 1);
	CHECK_EQ_I64("groups: arena resident", c.groups[AP_GROUP_ARENA].resident_bytes, 7 * PS);
	ap_corr_free(&c);

	/* base +64: page 2 holds the input's last 64 bytes, so the input writes it first */
	run(&x, &p, 64, true);
	build(&x, &p, 0, &c, err);
	CHECK_EQ_I64("+64: page 2 belongs to the input", c.page_op[2], -1);
	ap_corr_free(&c);

	/* no markers, first touches against the plan's order: inside run 0 the plan does not
	 * describe the trace; all before run 0 (a runtime that copies or clears its arena
	 * whole first) their order tells nothing: pretouched, no mismatch */
	for (int before = 0; before < 2; before++) {
		static uint64_t begin[1] = { 1000 }, dur[1] = { 1000 };

		run(&x, &p, 0, false);
		for (uint64_t i = 0; i < x.a.as.n_touches / 2; i++) {
			struct ap_touch tmp = x.touch[i];

			x.touch[i] = x.touch[x.a.as.n_touches - 1 - i];
			x.touch[x.a.as.n_touches - 1 - i] = tmp;
		}
		for (uint64_t i = 0; i < x.a.as.n_touches; i++) {
			x.touch[i].ts_ns = before ? 100 + i : 1100 + i;
			x.touch[i].run = before ? -1 : 0;
		}
		x.a.run_begin = begin;
		x.a.run_ns = dur;
		x.a.n_run_ns = 1;
		build(&x, &p, START, &c, err);
		CHECK(before ? "touched whole before run 0, against the order: pretouched, the "
		      "plan not refused for its order" : "against the order inside run 0: the "
		      "plan does not describe the trace", before ? c.pretouched && !c.mismatch &&
		      c.outside_runs == c.ft_pages : !c.pretouched && c.mismatch &&
		      strstr(c.reasons[0], "operator order") && !c.outside_runs,
		      "pretouched %d mismatch %d outside %llu of %llu: %s", c.pretouched,
		      c.mismatch, (unsigned long long)c.outside_runs,
		      (unsigned long long)c.ft_pages, c.n_reasons ? c.reasons[0] : "");
		ap_corr_free(&c);
		x.a.n_run_ns = 0;
		x.a.run_begin = x.a.run_ns = NULL;
	}

	/* --arena ADDR: planned offset 0 is there, no search */
	{
		run(&x, &p, 0, true);
		build(&x, &p, START + 128, &c, err);
		CHECK("--arena ADDR is taken as given", x.a.id.rule == AP_AR_GIVEN &&
		      x.a.id.n_cand == 0 && c.delta == 128, "delta %lld", (long long)c.delta);
		CHECK("a wrong forced base shows as disagreement", c.agree < c.compared,
		      "%llu of %llu", (unsigned long long)c.agree, (unsigned long long)c.compared);
		ap_corr_free(&c);
	}

	/* markers that contradict the plan: agreement collapses, the plan does not match */
	run(&x, &p, 0, true);
	for (uint64_t i = 0; i < x.a.as.n_touches; i++)
		x.touch[i].op = (x.touch[i].op + 2) % 3;
	build(&x, &p, 0, &c, err);
	CHECK("contradicting markers: mismatch", c.mismatch && c.n_reasons &&
	      strstr(c.reasons[0], "agree on only"), "%s", c.n_reasons ? c.reasons[0] : "none");
	ap_corr_free(&c);

	/* one first touch in the mapping (another mapping taken for the arena): agrees with
	 * any plan, so it proves none */
	run(&x, &p, 0, false);
	x.a.as.n_touches = 1;
	x.maps[0].first_touch_pages = 1;
	build(&x, &p, 0, &c, err);
	CHECK("1 first touch of 7 planned pages: too few to match",
	      c.mismatch && c.n_reasons && strstr(c.reasons[0], "too few to tell"), "%s",
	      c.n_reasons ? c.reasons[0] : "matches");
	ap_corr_free(&c);
	/* ... unless the rest was resident when -p attached */
	x.maps[0].resident_at_attach = 6;
	build(&x, &p, 0, &c, err);
	CHECK("1 first touch and 6 pages resident at attach: matches", !c.mismatch, "%s",
	      c.n_reasons ? c.reasons[0] : "");
	ap_corr_free(&c);

	/* a plan for a much smaller arena than the mapping */
	run(&x, &p, 0, true);
	x.maps[0].end = START + 64 * PS;
	build(&x, &p, 0, &c, err);
	CHECK("a mapping far larger than the plan: arena size mismatch",
	      c.mismatch && strstr(c.reasons[0], "arena size mismatch"), "%s",
	      c.n_reasons ? c.reasons[0] : "none");
	ap_corr_free(&c);

	/*
	 * A trace that names a 64 TiB arena vma (a hostile one): the base search and the
	 * tables cover the plan's extent and a page, not 2^34 pages; the attribution of the
	 * pages the plan covers is the same.
	 */
	run(&x, &p, 0, true);
	x.maps[0].end = START + (1ULL << 46);
	CHECK("a 64 TiB arena mapping: built, not out of memory", build(&x, &p, 0, &c, err) == 0,
	      "%s", err);
	CHECK("... its tables cover the plan's 7 pages and a page or two, not 2^34",
	      c.n_pages <= 9 && c.n_pages >= 7 && c.page_op[5] == 2, "%llu pages",
	      (unsigned long long)c.n_pages);
	CHECK("... and the plan is said not to fit the mapping", c.mismatch, "no reason");
	ap_corr_free(&c);

	/* without a plan: groups only */
	run(&x, &p, 0, false);
	build(&x, NULL, 0, &c, err);
	CHECK("no plan: groups, no attribution", !c.have_plan && !c.page_op &&
	      c.groups[AP_GROUP_ARENA].mappings == 1, "have_plan %d", c.have_plan);
	ap_corr_free(&c);
	{
		char b[16];

		CHECK("short names keep the first ';' part",
		      !strcmp(ap_corr_short_name("a/b;c/d", b, sizeof(b)), "a/b"), "%s", b);
		CHECK("short names are cut with ...",
		      !strcmp(ap_corr_short_name("abcdefghijklmnopqrstuvwxyz", b, 10),
			      "abcdef..."), "%s", b);
	}
	TEST_EXIT();
}
