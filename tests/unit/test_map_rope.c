// SPDX-License-Identifier: Apache-2.0
/*
 * The reader's mapping snapshots (src/trace/map_rope.c), through the trace writer and
 * reader: hundreds of snapshots of thousands of mappings, each edited from the one before
 * at random (mappings gone, new, grown; a few snapshots all new, a few repeated whole).
 * Read back, every mapping written must come back in order; folded (fold_map_copies), a
 * subsequence of them with each repeated snapshot one mapping long; and the reader's pool
 * and segments must stay within the bounds map_rope.c states.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/event.h"
#include "arenaprof/trace/trace.h"
#include "arenaprof/util/err.h"
#include "../../src/trace/pack.h"
#include "test.h"

#define GENS 400
#define START_N 3000

struct want {
	struct ap_rec_mapping m;
	char path[40];
};

static struct want *wants;	/* every mapping written, in order */
static size_t n_wants, cap_wants;
static bool repeated[GENS + 2];	/* snapshot number: written as the one before, whole */

static void want_push(const struct ap_rec_mapping *m, const char *path)
{
	if (n_wants == cap_wants) {
		cap_wants = cap_wants ? cap_wants * 2 : 4096;
		wants = realloc(wants, cap_wants * sizeof(*wants));
		if (!wants)
			abort();
	}
	wants[n_wants].m = *m;
	snprintf(wants[n_wants].path, sizeof(wants[n_wants].path), "%s", path);
	n_wants++;
}

static void path_of(uint64_t id, char *out, size_t cap)
{
	if (id % 5 == 0)
		out[0] = 0;
	else if (id % 5 == 1)
		snprintf(out, cap, "[anon:arena %" PRIu64 "]", id % 7);
	else
		snprintf(out, cap, "/usr/lib/libm%" PRIu64 ".so", id / 3);
}

/* The snapshots, written to path; -1 on a writer error (a FAIL line printed). */
static int write_trace(const char *path)
{
	static const char *strings[AP_HS_COUNT] = { "x86_64", "test", "tp", "test_map_rope",
						    "", "" };
	struct ap_rec_header h = { .page_size = 4096, .flags = AP_HDR_STARTED, .pid = 1 };
	struct ap_trace_writer w;
	uint64_t *ids = malloc(2 * START_N * sizeof(*ids)), *next = malloc(2 * START_N * 8);
	uint64_t seed = 0x9e3779b97f4a7c15ull, fresh = 0;
	size_t n = START_N;
	char err[AP_ERR_LEN], p[40];
	int rc = 0;

	if (!ids || !next || ap_trace_create(&w, path, &h, strings, err)) {
		CHECK("map_rope: the trace is written", 0, "%s", err);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		ids[i] = fresh++;
	for (uint32_t g = 1; g <= GENS && !rc; g++) {
		uint64_t r = test_xorshift64(&seed) % 20;
		size_t k = 0;

		repeated[g] = g > 1 && r == 0;
		for (size_t i = 0; i < n && !repeated[g]; i++) {
			uint64_t e = test_xorshift64(&seed) % 1000;

			if (r == 1)			/* all new */
				next[k++] = fresh++;
			else if (e < 3 && n > START_N / 2)	/* gone */
				continue;
			else if (e < 6 && k + 2 < 2 * START_N)	/* a new one before it */
				next[k++] = fresh++, next[k++] = ids[i];
			else if (e < 8)			/* grown: a new id at its place */
				next[k++] = ids[i] | 1ull << 40;
			else
				next[k++] = ids[i];
		}
		if (!repeated[g]) {
			memcpy(ids, next, k * sizeof(*ids));
			n = k;
		}
		for (size_t i = 0; i < n && !rc; i++) {
			uint64_t id = ids[i] & ~(1ull << 40);
			struct ap_rec_mapping m = {
				.ts_ns = 1000ull * g, .start = 0x7f0000000000ull + id * 0x10000,
				.end = 0x7f0000000000ull + id * 0x10000 + 4096 *
				       (1 + (ids[i] >> 40)), .offset = id % 4 * 4096,
				.inode = id % 5 > 1 ? 1000 + id / 3 : 0, .snapshot = g,
				.prot = 1 | (uint32_t)(id % 2) << 1, .dev_major = 8,
			};

			path_of(id, p, sizeof(p));
			want_push(&m, p);
			rc = ap_trace_write_str(&w, AP_REC_MAPPING, &m, sizeof(m), p, err);
		}
	}
	if (rc || ap_trace_close(&w, err)) {
		CHECK("map_rope: the trace is written", 0, "%s", err);
		rc = -1;
	}
	free(ids);
	free(next);
	return rc;
}

static bool same(const struct ap_trace_rec *rec, const struct want *w)
{
	struct ap_rec_mapping m;

	ap_trace_get(rec, &m, sizeof(m));
	return !memcmp(&m, &w->m, sizeof(m)) && !strcmp(ap_trace_str(rec, sizeof(m)), w->path);
}

/* The reader's state within map_rope.c's bounds: pool and base segments. */
static bool in_bounds(const struct ap_trace_reader *r, size_t *worst_pool, size_t *worst_seg)
{
	const struct ap_rope_state *st = r->unpack ? &r->unpack->maps : NULL;
	size_t extra;

	if (!st)
		return true;
	if (st->pool_n > *worst_pool)
		*worst_pool = st->pool_n;
	if (st->base.n_seg > *worst_seg)
		*worst_seg = st->base.n_seg;
	extra = st->base.n_seg > 64 ? st->base.n_seg - 64 : 0;
	/* a base is compacted when it begins; the pool holds it, its garbage and cur */
	return st->pool_n <= 3 * (2 * START_N) + 1024 && extra * extra <= st->base.n;
}

static void read_back(const char *path, bool fold)
{
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	char err[AP_ERR_LEN] = "";
	size_t at = 0, got = 0, wrong = 0, worst = 0, worst_seg = 0, out_of_bounds = 0;
	size_t per_snap[GENS + 2] = { 0 };
	int rc;

	if (ap_trace_open(&r, path, err)) {
		CHECK("map_rope: the trace opens", 0, "%s", err);
		return;
	}
	r.fold_map_copies = fold;
	while ((rc = ap_trace_next(&r, &rec, err)) == 1) {
		struct ap_rec_mapping m;

		if (rec.type != AP_REC_MAPPING)
			continue;
		ap_trace_get(&rec, &m, sizeof(m));
		got++;
		if (m.snapshot <= GENS)
			per_snap[m.snapshot]++;
		out_of_bounds += !in_bounds(&r, &worst, &worst_seg);
		if (!fold) {
			wrong += at >= n_wants || !same(&rec, &wants[at]);
			at++;
			continue;
		}
		/* folded: the next mapping written that it is, in its own snapshot */
		while (at < n_wants && wants[at].m.snapshot <= m.snapshot &&
		       !same(&rec, &wants[at]))
			at++;
		wrong += at == n_wants;
		at += at < n_wants;
	}
	ap_trace_reader_close(&r);
	CHECK(fold ? "map_rope: folded, each mapping read is the next of those written" :
	      "map_rope: every mapping written is read back, in order", rc == 0 && !wrong &&
	      (fold || got == n_wants), "rc %d (%s), %zu wrong, %zu read of %zu", rc, err, wrong,
	      got, n_wants);
	CHECK(fold ? "map_rope: folded, the pool and segments within their bounds" :
	      "map_rope: the pool and segments within their bounds", !out_of_bounds,
	      "%zu records out of bounds; the pool reached %zu entries", out_of_bounds, worst);
	printf("  (the pool reached %zu entries, a base %zu segments)\n", worst, worst_seg);
	if (fold) {
		size_t bad = 0, reps = 0;

		for (uint32_t g = 2; g <= GENS; g++)
			if (repeated[g]) {
				reps++;
				bad += per_snap[g] != 1;
			}
		CHECK("map_rope: folded, a snapshot repeated whole is one mapping", reps && !bad,
		      "%zu of %zu repeated snapshots read as more than one mapping", bad, reps);
		CHECK("map_rope: folded, far fewer mappings returned", got * 10 < n_wants,
		      "%zu of %zu", got, n_wants);
	}
}

int main(void)
{
	char path[] = "/tmp/test_map_rope.XXXXXX";
	int fd = mkstemp(path);

	if (fd < 0) {
		CHECK("map_rope: a temporary file", 0, "mkstemp failed");
		TEST_EXIT();
	}
	close(fd);
	if (!write_trace(path)) {
		read_back(path, false);
		read_back(path, true);
	}
	unlink(path);
	free(wants);
	TEST_EXIT();
}
