// SPDX-License-Identifier: Apache-2.0
/*
 * The planner's fast paths against simple references kept here, on random inputs from
 * fixed seeds: placement (src/plan/litert/place.c) against SimpleMemoryArena's scan of every
 * placed allocation, as LiteRT writes it and as arenaprof did before the treap; the
 * greedy-breadth order and the sharers' last readers (planner.c) against per-operator
 * lists and a scan of every operator; the overlap check (profile.c) against every pair.
 */
#include <stdlib.h>

#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/util/err.h"
#include "test.h"

enum ref_fit { REF_TFLITE, REF_BEST, REF_FIRST };

static uint64_t ref_align(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static const struct ap_rec *ref_recs;

static int ref_cmp_cand(const void *pa, const void *pb)
{
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
	uint64_t oa = ref_recs[a].offset, ob = ref_recs[b].offset;

	if (oa != ob)
		return oa < ob ? -1 : 1;
	return (a > b) - (a < b);
}

/* SimpleMemoryArena::Allocate: every placed allocation live at the same time, by offset. */
static uint64_t ref_place(struct ap_rec *r, size_t n, uint64_t align, enum ref_fit fit)
{
	uint32_t *cand = malloc((n + 1) * sizeof(*cand));
	uint64_t hwm = 0;

	for (size_t i = 0; i < n; i++) {
		uint64_t cur = 0, best = UINT64_MAX, best_fit = UINT64_MAX;
		size_t nc = 0;

		if (r[i].size == 0) {
			r[i].offset = 0;
			continue;
		}
		for (size_t j = 0; j < i; j++)
			if (r[j].size && !(r[j].last < r[i].first || r[j].first > r[i].last))
				cand[nc++] = (uint32_t)j;
		ref_recs = r;
		qsort(cand, nc, sizeof(*cand), ref_cmp_cand);
		for (size_t k = 0; k < nc; k++) {
			const struct ap_rec *a = &r[cand[k]];
			uint64_t at = ref_align(cur, align);

			if (at + r[i].size <= a->offset && a->offset - at < best_fit) {
				best = at;
				best_fit = a->offset - (fit == REF_TFLITE ? cur : at);
				if (fit == REF_FIRST)
					break;
			}
			if (a->offset + a->size > cur)
				cur = a->offset + a->size;
		}
		r[i].offset = best != UINT64_MAX ? best : ref_align(cur, align);
		if (r[i].offset + r[i].size > hwm)
			hwm = r[i].offset + r[i].size;
	}
	free(cand);
	return hwm;
}

static uint64_t rnd(uint64_t *s, uint64_t n)
{
	return n ? test_xorshift64(s) % n : 0;
}

static uint64_t rand_size(uint64_t *s, int regime)
{
	static const uint64_t picks[] = { 0, 1, 4, 17, 32, 48, 64, 92, 100, 128, 160, 192,
					  256, 1000, 1024, 4096 };

	switch (regime % 3) {
	case 0:
		return picks[rnd(s, sizeof(picks) / sizeof(picks[0]))];
	case 1:
		return 64 * (1 + rnd(s, 8));
	default:
		return rnd(s, 6) ? 1 + rnd(s, 3000) : 0;
	}
}

/*
 * Random records: short lifetimes over a long run, long ones over a short run, a fan-in
 * (everything alive into the last node), nested lifetimes, and whole-run records.
 */
static size_t rand_records(uint64_t *s, struct ap_rec *r, size_t max, int regime)
{
	size_t n = 1 + rnd(s, max);
	int32_t t = (int32_t)(regime / 3 == 0 ? 4 + rnd(s, 8) : 2 + rnd(s, 2 * n));

	for (size_t i = 0; i < n; i++) {
		int32_t first = (int32_t)rnd(s, (uint64_t)t + 1) - 1, last;

		switch ((regime / 3 + i) % 4) {
		case 0:
			last = first + (int32_t)rnd(s, 4);
			break;
		case 1:
			last = t;
			break;
		case 2:
			first = (int32_t)(i % (size_t)(t / 2 + 1));
			last = t - first;
			break;
		default:
			last = first + (int32_t)rnd(s, (uint64_t)t);
			break;
		}
		if (first > last)
			last = first;
		if (rnd(s, 16) == 0)
			first = 0, last = AP_NODE_NONE;
		r[i] = (struct ap_rec){ .size = rand_size(s, regime), .first = first, .last = last,
					.id = (int32_t)i };
	}
	switch (rnd(s, 3)) {
	case 0:
		ap_order_tflite(r, n);
		break;
	case 1:
		ap_order_micro(r, n);
		break;
	default:
		for (size_t i = n; i > 1; i--) {	/* any order */
			size_t j = rnd(s, i);
			struct ap_rec tmp = r[i - 1];

			r[i - 1] = r[j];
			r[j] = tmp;
		}
	}
	return n;
}

static bool same_plan(const struct ap_rec *a, const struct ap_rec *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].offset != b[i].offset)
			return false;
	return true;
}

/* trials random record sets of up to max records: every fit against its reference. */
static void test_place_random(const char *what, uint64_t seed, int trials, size_t max)
{
	struct ap_rec *r = calloc(max, sizeof(*r)), *a = calloc(max, sizeof(*a));
	struct ap_rec *b = calloc(max, sizeof(*b));
	static const uint64_t aligns[] = { 64, 16, 4, 1 };
	int bad = 0, first_bad = -1;
	char name[128];

	for (int k = 0; k < trials; k++) {
		size_t n = rand_records(&seed, r, max, k % 12);
		uint64_t align = aligns[rnd(&seed, 4)];

		for (int fit = REF_TFLITE; fit <= REF_FIRST; fit++) {
			uint64_t ha, hb;

			memcpy(a, r, n * sizeof(*r));
			memcpy(b, r, n * sizeof(*r));
			hb = ref_place(b, n, fit == REF_FIRST ? 1 : align, (enum ref_fit)fit);
			ha = fit == REF_TFLITE ? ap_place_tflite(a, n, align) :
			     fit == REF_BEST ? ap_place_best_fit(a, n, align) :
					       ap_place_first_fit(a, n);
			if (ha != hb || !same_plan(a, b, n)) {
				if (first_bad < 0)
					first_bad = k * 3 + fit;
				bad++;
			}
		}
	}
	snprintf(name, sizeof(name), "place: %s: %d trials x 3 fits equal the reference",
		 what, trials);
	CHECK(name, bad == 0, "%d differ, the first at trial %d fit %d", bad, first_bad / 3,
	      first_bad % 3);
	free(r);
	free(a);
	free(b);
}

/* A fan-in of n records alive into one last node, in LiteRT's order: one big case. */
static void test_place_fanin(size_t n)
{
	struct ap_rec *a = calloc(n, sizeof(*a)), *b = calloc(n, sizeof(*b));
	static const uint64_t widths[] = { 8, 23, 40, 64 };
	uint64_t ha, hb;

	for (size_t i = 0; i < n; i++)
		a[i] = (struct ap_rec){ .size = 4 * widths[i % 4], .first = (int32_t)i,
					.last = (int32_t)n, .id = (int32_t)i };
	ap_order_tflite(a, n);
	memcpy(b, a, n * sizeof(*a));
	ha = ap_place_tflite(a, n, 64);
	hb = ref_place(b, n, 64, REF_TFLITE);
	CHECK("place: a fan-in of 2000 equals the reference", ha == hb && same_plan(a, b, n),
	      "arena %" PRIu64 ", reference %" PRIu64, ha, hb);
	free(a);
	free(b);
}

/* planner.c's greedy-breadth order as it was: a list of the live tensors per operator. */
static size_t ref_order_by_breadth(const struct ap_graph *g, struct ap_rec *r, size_t n)
{
	uint32_t n_ops = g->n_ops;
	uint64_t *breadth = calloc(n_ops + 1, sizeof(*breadth));
	uint32_t *ops = calloc(n_ops + 1, sizeof(*ops));
	uint32_t *start = calloc(n_ops + 2, sizeof(*start)), *fill = NULL, *live = NULL;
	uint32_t *whole = calloc(n + 1, sizeof(*whole)), n_whole = 0;
	struct ap_rec *out = calloc(n + 1, sizeof(*out));
	bool *done = calloc(n + 1, sizeof(*done));
	size_t m = 0, total = 0;

	if (!breadth || !ops || !start || !whole || !out || !done)
		goto fail;
	for (size_t k = 0; k < n; k++) {
		int32_t last = r[k].last == AP_NODE_NONE ? (int32_t)n_ops - 1 : r[k].last;
		int32_t i = r[k].first < 0 ? 0 : r[k].first;

		for (; i <= last && i < (int32_t)n_ops; i++)
			breadth[i] += r[k].size;
		if (r[k].last == AP_NODE_NONE)
			whole[n_whole++] = (uint32_t)k;
		else
			for (int32_t i = r[k].first < 0 ? 0 : r[k].first; i <= last &&
			     i < (int32_t)n_ops; i++)
				start[i + 1]++;
	}
	for (uint32_t i = 0; i < n_ops; i++)
		start[i + 1] += start[i];
	total = start[n_ops];
	fill = malloc((n_ops + 1) * sizeof(*fill));
	live = malloc((total + 1) * sizeof(*live));
	if (!fill || !live)
		goto fail;
	memcpy(fill, start, n_ops * sizeof(*fill));
	for (size_t k = 0; k < n; k++)	/* in size order, so each list is too */
		if (r[k].last != AP_NODE_NONE)
			for (int32_t i = r[k].first < 0 ? 0 : r[k].first; i <= r[k].last &&
			     i < (int32_t)n_ops; i++)
				live[fill[i]++] = (uint32_t)k;
	for (uint32_t i = 0; i < n_ops; i++)
		ops[i] = i;
	/* insertion sort keeps equal breadths in execution order */
	for (uint32_t i = 1; i < n_ops; i++) {
		uint32_t v = ops[i], j = i;

		while (j > 0 && breadth[ops[j - 1]] < breadth[v]) {
			ops[j] = ops[j - 1];
			j--;
		}
		ops[j] = v;
	}
	for (uint32_t oi = 0; oi < n_ops; oi++) {
		uint32_t op = ops[oi], a = start[op], e = start[op + 1], w = 0;

		/* merge the op's list with the live whole-run tensors, both in size order */
		while (a < e || w < n_whole) {
			uint32_t k;

			if (w < n_whole && (a == e || whole[w] < live[a]))
				k = whole[w++];
			else
				k = live[a++];
			if (done[k] || r[k].first > (int32_t)op)
				continue;
			done[k] = true;
			out[m++] = r[k];
		}
	}
	for (size_t k = 0; k < n; k++)	/* live at no operator (no ops at all) */
		if (!done[k])
			out[m++] = r[k];
	memcpy(r, out, n * sizeof(*r));
fail:
	free(breadth);
	free(ops);
	free(start);
	free(whole);
	free(fill);
	free(live);
	free(out);
	free(done);
	return m;
}

static int ref_cmp_size_desc(const void *pa, const void *pb)
{
	const struct ap_rec *a = pa, *b = pb;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return (a->id > b->id) - (a->id < b->id);
}

/* A random graph: ADD, MUL, RESHAPE (in place), CONV_2D and CONCATENATION. */
struct rgraph {
	struct ap_graph g;
	struct ap_tensor t[400];
	struct ap_op ops[120];
	int32_t io[120][8];
	int32_t gin[2], gout[3];
};

static void rand_graph(uint64_t *s, struct rgraph *G)
{
	static const int32_t codes[] = { 0, 18, 22, 3, 2 };
	static const uint64_t sizes[] = { 0, 4, 64, 100, 256, 256, 1024, 4096 };
	uint32_t n_ops = 1 + (uint32_t)rnd(s, 120), nt = 2, no = 0;

	memset(G, 0, sizeof(*G));
	for (uint32_t i = 0; i < 400; i++)
		G->t[i] = (struct ap_tensor){ .bytes = sizes[rnd(s, 8)], .alloc = AP_ALLOC_ARENA,
					      .producer = -1 };
	G->gin[0] = 0;
	G->gin[1] = 1;
	for (uint32_t i = 0; i < n_ops; i++) {
		int32_t *io = G->io[i];
		uint32_t n_in = 1 + (uint32_t)rnd(s, 3), n_out = 1 + (uint32_t)rnd(s, 2);
		bool wide = rnd(s, 8) == 0;	/* reads any tensor so far: long lifetimes */

		for (uint32_t k = 0; k < n_in; k++)
			io[k] = (int32_t)(wide ? rnd(s, nt) : nt - 1 - rnd(s, nt < 4 ? nt : 4));
		for (uint32_t k = 0; k < n_out; k++) {
			io[n_in + k] = (int32_t)nt;
			G->t[nt++].producer = (int32_t)i;
		}
		if (rnd(s, 2))	/* in place: the same size as the input */
			G->t[io[n_in]].bytes = G->t[io[0]].bytes;
		G->ops[i] = (struct ap_op){ .opcode = codes[rnd(s, 5)], .name = "OP", .in = io,
					    .n_in = n_in, .out = io + n_in, .n_out = n_out };
	}
	G->gout[no++] = (int32_t)nt - 1;
	if (nt > 4)
		G->gout[no++] = (int32_t)(2 + rnd(s, nt - 3));
	G->g = (struct ap_graph){ .t = G->t, .n_tensors = nt, .ops = G->ops, .n_ops = n_ops,
				  .inputs = G->gin, .n_inputs = 2, .outputs = G->gout,
				  .n_outputs = no };
	for (uint32_t k = 0; k < 2; k++)
		G->t[G->gin[k]].flags |= AP_TF_INPUT;
	for (uint32_t k = 0; k < no; k++)
		G->t[G->gout[k]].flags |= AP_TF_OUTPUT;
	ap_lifetimes_tflite(&G->g, true);
}

/* The last reader of t the way tplan_init looked for it: every operator's inputs. */
static int32_t ref_last_use(const struct ap_graph *g, int32_t t)
{
	int32_t last = -1;

	if (g->t[t].flags & AP_TF_OUTPUT)
		return AP_LAST_END;
	for (uint32_t i = 0; i < g->n_ops; i++)
		for (uint32_t k = 0; k < g->ops[i].n_in; k++)
			if (g->ops[i].in[k] == t)
				last = (int32_t)i;
	return last < 0 ? AP_LAST_END : last;
}

/* Greedy breadth against its reference; every strategy's plan passes the overlap check. */
static void test_graphs(uint64_t seed, int trials)
{
	struct rgraph *G = malloc(sizeof(*G));
	struct ap_rec r[400];
	int bad_order = 0, bad_last = 0, bad_check = 0, shared = 0;
	char err[AP_ERR_LEN];

	for (int k = 0; k < trials; k++) {
		struct ap_tplan p;
		size_t n = 0;

		rand_graph(&seed, G);
		for (uint32_t i = 0; i < G->g.n_tensors; i++)
			if (G->t[i].first != AP_NODE_NONE && G->t[i].share_root < 0)
				r[n++] = (struct ap_rec){ .size = G->t[i].bytes,
							  .first = G->t[i].first,
							  .last = G->t[i].last, .id = (int32_t)i };
		qsort(r, n, sizeof(*r), ref_cmp_size_desc);
		n = ref_order_by_breadth(&G->g, r, n);
		ref_place(r, n, AP_TENSOR_ALIGN, REF_BEST);
		for (int st = 0; st < AP_STRAT_COUNT; st++) {
			if (ap_plan_graph(&G->g, (enum ap_strategy)st, &p, err)) {
				bad_check++;
				continue;
			}
			if (ap_tplan_check(&p, err))
				bad_check++;
			for (uint32_t i = 0; st == AP_STRAT_TFLITE && i < p.n; i++) {
				if (p.t[i].share_root < 0 || G->t[i].first == AP_NODE_NONE)
					continue;
				shared++;
				if (p.t[i].last != ref_last_use(&G->g, (int32_t)i))
					bad_last++;
			}
			for (size_t j = 0; st == AP_STRAT_GREEDY_BREADTH && j < n; j++)
				if (p.t[r[j].id].offset != (int64_t)r[j].offset)
					bad_order++;
			ap_tplan_free(&p);
		}
	}
	CHECK("greedy-breadth: random graphs place as the per-operator lists did",
	      bad_order == 0, "%d tensors differ", bad_order);
	CHECK("plan: in-place sharers' last readers as a scan of every operator finds them",
	      bad_last == 0 && shared > 100, "%d of %d differ", bad_last, shared);
	CHECK("plan: every strategy's plan of a random graph passes the overlap check",
	      bad_check == 0, "%d fail", bad_check);
	free(G);
}

/* The check as it was: every pair that shares bytes, by offset. */
static bool ref_overlaps(const struct ap_tplan *p)
{
	for (uint32_t a = 0; a < p->n; a++) {
		const struct ap_ptensor *x = &p->t[a];
		int32_t xl = x->last == AP_LAST_END ? INT32_MAX : x->last;

		if (!ap_ptensor_in_arena(x))
			continue;
		for (uint32_t b = a + 1; b < p->n; b++) {
			const struct ap_ptensor *y = &p->t[b];
			int32_t yl = y->last == AP_LAST_END ? INT32_MAX : y->last;

			if (!ap_ptensor_in_arena(y) || xl < y->first || yl < x->first)
				continue;
			if (x->offset < y->offset + (int64_t)y->bytes &&
			    y->offset < x->offset + (int64_t)x->bytes)
				return true;
		}
	}
	return false;
}

/* Random plans, some placed, some with tensors moved: the check's verdict is every pair's. */
static void test_check_random(uint64_t seed, int trials)
{
	struct ap_ptensor t[64];
	struct ap_rec r[64];
	int bad = 0, overlapping = 0;
	char err[AP_ERR_LEN];

	for (int k = 0; k < trials; k++) {
		size_t n = rand_records(&seed, r, 64, k % 12);
		struct ap_tplan p = { .t = t, .n = (uint32_t)n, .n_ops = 40 };
		bool want, got;

		ap_place_tflite(r, n, 64);
		for (size_t i = 0; i < n; i++) {
			t[i] = (struct ap_ptensor){ .index = (int32_t)i, .bytes = r[i].size,
						    .offset = (int64_t)r[i].offset,
						    .first = r[i].first, .kind = AP_KIND_ARENA,
						    .share_root = -1 };
			t[i].last = r[i].last == AP_NODE_NONE ? AP_LAST_END : r[i].last;
			if (k % 3 == 0 && rnd(&seed, 8) == 0)
				t[i].offset = (int64_t)(64 * rnd(&seed, 40) + rnd(&seed, 2) * 32);
		}
		want = ref_overlaps(&p);
		got = ap_tplan_check(&p, err) != 0;
		overlapping += want;
		bad += want != got;
	}
	CHECK("plan check: the verdict of every pair on random plans", bad == 0 &&
	      overlapping > trials / 10, "%d differ (%d overlap)", bad, overlapping);
}

int main(void)
{
	test_place_random("small", 0x9e3779b97f4a7c15ull, 4000, 12);
	test_place_random("medium", 0x2545f4914f6cdd1dull, 1500, 80);
	test_place_random("large", 0xda942042e4dd58b5ull, 60, 600);
	test_place_fanin(2000);
	test_graphs(0x853c49e6748fea9bull, 400);
	test_check_random(0xcafef00dd15ea5e5ull, 3000);
	TEST_EXIT();
}
