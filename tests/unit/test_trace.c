// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the trace file (src/trace/layout.c, reader.c, writer.c): a round trip of every record type, field by
 * field and byte by byte on disk; a trace cut at every byte; every bit of a trace flipped;
 * the reader's refusals (not a trace, empty, newer version, huge length); unknown record
 * types; payloads of older and newer writers; reading a window at a time, and scans;
 * write errors (EFBIG from RLIMIT_FSIZE; a device such as /dev/full is refused) and a
 * writer killed with SIGKILL mid-stream. Files go to /tmp.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "arenaprof/event.h"
#include "arenaprof/util/err.h"
#include "arenaprof/trace/trace.h"
#include "test.h"

/* ---- helpers ---- */

#define TMP_PATH_LEN 256

/* buf (TMP_PATH_LEN bytes) = a file of this process under /tmp */
static char *tmp_path(char *buf, const char *name)
{
	snprintf(buf, TMP_PATH_LEN, "/tmp/arenaprof-test_trace.%d.%s", (int)getpid(), name);
	return buf;
}

static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	size_t cap = 0, n = 0, got;

	if (!f)
		return NULL;
	do {
		if (n == cap) {
			uint8_t *nb = realloc(b, cap = cap ? 2 * cap : 4096);

			if (!nb) {
				free(b);
				fclose(f);
				return NULL;
			}
			b = nb;
		}
		got = fread(b + n, 1, cap - n, f);
		n += got;
	} while (got);
	fclose(f);
	*size = n;
	return b;
}

static bool spit(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(b, 1, n, f) == n;
	return fclose(f) == 0 && ok;
}

static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One message line: non-empty, no control characters. */
static bool one_line(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	}
	return true;
}

/* ---- the reference trace: one record of every type ---- */

struct xrec {
	uint32_t type, len;
	uint8_t data[512];
};

#define MAX_X 32
static struct xrec xs[MAX_X];	/* as written, header record first */
static uint64_t xoff[MAX_X + 1];	/* file offset of each record, then the file size */
static int nx;

static const char *const hdr_strings[AP_HS_COUNT] = {
	"x86_64", "6.1.0-27-amd64", "fentry", "mininfer --runs 3 tests/models/m.tflite", "",
	"ap_op_begin",
};
static const struct ap_rec_header ref_hdr = {
	.page_size = 4096, .flags = AP_HDR_STARTED, .clock_base_ns = 0x0102030405060708ull,
	.realtime_base_ns = 0x1811223344556677ull, .pid = 123456,
};
static const struct ap_rec_fault ref_fault = {
	.ts_ns = 0x0102030405060709ull, .addr = 0x7f0011223000ull, .ip = 0x55aa55aa1234ull,
	.vm_start = 0x7f0011200000ull, .vm_end = 0x7f0011600000ull, .vm_flags = 0x100073,
	.tid = 123457, .flags = 0x3c5, .run = -1, .op = 17,
};
static const struct ap_rec_mapping ref_map = {
	.ts_ns = 0x010203040506070aull, .start = 0x7f0022000000ull, .end = 0x7f0022400000ull,
	.offset = 0x1000, .inode = 0xabcdef012345ull, .snapshot = 3, .prot = 1 | 4 | 8,
	.dev_major = 259, .dev_minor = 0x80001,
};
static const char ref_map_path[] = "/usr/share/models/mobilenet v2 (quant).tflite";
static const struct ap_rec_sample ref_sample = {
	.ts_ns = 0x010203040506070bull, .vm_rss = 11 << 20, .vm_hwm = 12 << 20,
	.rss_anon = 5 << 20, .rss_file = 6 << 20, .rss_shmem = 4096, .rss = 11 << 20,
	.pss = 10 << 20, .pss_anon = 5 << 20, .pss_file = 5 << 20, .pss_shmem = 2048,
	.anonymous = 5 << 20, .anon_huge = 2 << 20, .swap = AP_NO_VALUE,
	.cg_current = 0x123456789aull, .cg_peak = 0x223456789aull, .psi_some_avg10 = 123,
	.psi_full_avg10 = 45, .psi_some_total = 0xfedcba9876ull, .psi_full_total = 77,
};
static const struct ap_rec_drops ref_drops = {
	.ts_ns = 0x010203040506070cull, .events = 1000001, .ringbuf_drops = 3,
	.vma_misses = 0x100000000ull, .retries = 9,
};
static const struct ap_rec_note ref_note = { .ts_ns = 0x010203040506070dull, .level = 1 };
static const char ref_note_text[] = "attached to a running process: 3 pages already resident";
static const struct ap_rec_resident ref_res = {
	.ts_ns = 0x010203040506070eull, .start = 0x7f0033000000ull,
	.end = 0x7f0033000000ull + 20 * 4096, .present = 7,
};
static const uint8_t ref_bitmap[3] = { 0x81, 0x00, 0x0f };	/* 20 bits, 7 set, a NUL */
static const struct ap_rec_end ref_end = {
	.ts_ns = 0x010203040506070full, .reason = AP_END_SIGNAL, .exit_status = -1,
	.term_signal = 9, .runs = 0x80000003u,
};

static const struct ap_rec_alloc ref_alloc = {
	.ts_ns = 0x0102030405060710ull, .ptr = 0x7f0044000040ull, .size = 1655872,
	.align = 64, .caller = 0x7f0055123456ull, .tid = 123458, .fn = 4, .run = -1,
};

static void expect(uint32_t type, const void *p, size_t n, const void *tail, size_t tn)
{
	struct xrec *x = &xs[nx];

	x->type = type;
	x->len = (uint32_t)(n + tn);
	memcpy(x->data, p, n);
	if (tn)
		memcpy(x->data + n, tail, tn);
	xoff[nx + 1] = xoff[nx] + AP_TRACE_REC_HDR_LEN + x->len;
	nx++;
}

static struct ap_rec_marker marker(uint64_t ts, int32_t run, int32_t op)
{
	struct ap_rec_marker m = { .ts_ns = ts, .tid = 123457, .run = run, .op = op };

	return m;
}

/*
 * Writes the reference trace to path: the header and one record of every type (four
 * markers), and fills xs[]. With extra, unknown record types are mixed in (written, not
 * expected back).
 */
static int write_reference(const char *path, bool extra, char *err)
{
	struct ap_trace_writer w;
	struct ap_rec_marker m[4] = {
		marker(0x0102030405060710ull, 0, -1), marker(0x0102030405060711ull, 0, 0),
		marker(0x0102030405060712ull, 0, 0), marker(0x0102030405060713ull, 0, -1),
	};
	static const uint32_t mtype[4] = {
		AP_REC_RUN_BEGIN, AP_REC_OP_BEGIN, AP_REC_OP_END, AP_REC_RUN_END,
	};
	uint8_t resident[sizeof(ref_res) + sizeof(ref_bitmap)];
	uint8_t hdr_payload[512];
	uint8_t junk[40];
	size_t n = sizeof(ref_hdr);
	int i;

	nx = 0;
	xoff[0] = AP_TRACE_FILE_HDR_LEN;
	memcpy(hdr_payload, &ref_hdr, sizeof(ref_hdr));
	for (i = 0; i < 6; i++) {
		memcpy(hdr_payload + n, hdr_strings[i], strlen(hdr_strings[i]) + 1);
		n += strlen(hdr_strings[i]) + 1;
	}
	expect(AP_REC_HEADER, hdr_payload, n, NULL, 0);
	if (ap_trace_create(&w, path, &ref_hdr, hdr_strings, err))
		return -1;
	w.plain = true;		/* a record each: the framing tests count on it */
	for (i = 0; i < (int)sizeof(junk); i++)
		junk[i] = (uint8_t)(i * 7);
	memcpy(resident, &ref_res, sizeof(ref_res));
	memcpy(resident + sizeof(ref_res), ref_bitmap, sizeof(ref_bitmap));

	if (ap_trace_write(&w, AP_REC_FAULT, &ref_fault, sizeof(ref_fault), err))
		return -1;
	expect(AP_REC_FAULT, &ref_fault, sizeof(ref_fault), NULL, 0);
	if (extra && (ap_trace_write(&w, 99, junk, sizeof(junk), err) ||
		      ap_trace_write(&w, 0, junk, 3, err)))
		return -1;
	if (ap_trace_write_str(&w, AP_REC_MAPPING, &ref_map, sizeof(ref_map), ref_map_path,
			       err))
		return -1;
	expect(AP_REC_MAPPING, &ref_map, sizeof(ref_map), ref_map_path, sizeof(ref_map_path));
	for (i = 0; i < 4; i++) {
		if (ap_trace_write(&w, mtype[i], &m[i], sizeof(m[i]), err))
			return -1;
		expect(mtype[i], &m[i], sizeof(m[i]), NULL, 0);
	}
	if (ap_trace_write(&w, AP_REC_SAMPLE, &ref_sample, sizeof(ref_sample), err) ||
	    ap_trace_write(&w, AP_REC_DROPS, &ref_drops, sizeof(ref_drops), err) ||
	    ap_trace_write_str(&w, AP_REC_NOTE, &ref_note, sizeof(ref_note), ref_note_text,
			       err) ||
	    (extra && ap_trace_write(&w, 0xffffffffu, NULL, 0, err)) ||
	    ap_trace_write(&w, AP_REC_RESIDENT, resident, sizeof(resident), err) ||
	    ap_trace_write(&w, AP_REC_ALLOC, &ref_alloc, sizeof(ref_alloc), err) ||
	    (extra && ap_trace_write(&w, AP_REC_MAX + 1, junk, sizeof(junk), err)) ||
	    ap_trace_write(&w, AP_REC_END, &ref_end, sizeof(ref_end), err))
		return -1;
	expect(AP_REC_SAMPLE, &ref_sample, sizeof(ref_sample), NULL, 0);
	expect(AP_REC_DROPS, &ref_drops, sizeof(ref_drops), NULL, 0);
	expect(AP_REC_NOTE, &ref_note, sizeof(ref_note), ref_note_text, sizeof(ref_note_text));
	expect(AP_REC_RESIDENT, resident, sizeof(resident), NULL, 0);
	expect(AP_REC_ALLOC, &ref_alloc, sizeof(ref_alloc), NULL, 0);
	expect(AP_REC_END, &ref_end, sizeof(ref_end), NULL, 0);
	return ap_trace_close(&w, err);
}

/* Reads every record after the header; got[i] = record i + 1 of xs. Returns the last rc. */
static int read_rest(struct ap_trace_reader *r, struct xrec *got, int max, int *n, char *err)
{
	struct ap_trace_rec rec;
	int rc;

	*n = 0;
	while ((rc = ap_trace_next(r, &rec, err)) == 1) {
		if (*n < max) {
			got[*n].type = rec.type;
			got[*n].len = rec.len;
			memset(got[*n].data, 0, sizeof(got[*n].data));
			memcpy(got[*n].data, rec.payload,
			       rec.len < sizeof(got[0].data) ? rec.len : sizeof(got[0].data));
		}
		(*n)++;
	}
	return rc;
}

static bool same(const struct xrec *a, const struct xrec *b)
{
	return a->type == b->type && a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* The index of the record holding file byte b; -1 in the file header. */
static int rec_at(uint64_t b)
{
	for (int i = 0; i < nx; i++) {
		if (b >= xoff[i] && b < xoff[i + 1])
			return i;
	}
	return -1;
}

/* ---- tests ---- */

/*
 * tests/fixtures/trace/v1-reference.aptrace: the reference trace as the format-1 writer
 * wrote it (commit 6e3f42b, before format 2), committed so that a reader of every later
 * version is held to reading it: the same records, field by field, as write_reference
 * writes today, and the same bytes but for the version word.
 */
static void test_v1_fixture(void)
{
	static const char fix[] = "tests/fixtures/trace/v1-reference.aptrace";
	char path[TMP_PATH_LEN], err[AP_ERR_LEN] = "";
	struct xrec got[MAX_X];
	struct ap_trace_reader r;
	uint8_t *now = NULL;
	size_t flen = 0, nlen = 0;
	char *old;
	int n = 0, rc, bad = 0;

	old = test_fixture(fix, &flen);
	if (!old)
		return;
	tmp_path(path, "v1.aptrace");
	if (write_reference(path, false, err) == 0)
		now = slurp(path, &nlen);
	unlink(path);
	CHECK("trace v1: the fixture is the reference trace, version 1",
	      now && flen == nlen && flen > 16 && le32((uint8_t *)old + 8) == 1 &&
	      !memcmp(old, now, 8) && !memcmp(old + 12, now + 12, flen - 12),
	      "fixture %zu bytes, reference %zu (%s)", flen, nlen, err);
	free(now);
	free(old);
	rc = ap_trace_open(&r, fix, err);
	CHECK("trace v1: opens", rc == 0, "%s", err);
	if (rc)
		return;
	CHECK("trace v1: version 1, header fields and strings",
	      r.version == 1 && !memcmp(&r.hdr, &ref_hdr, sizeof(ref_hdr)) &&
	      !strcmp(r.strings[AP_HS_CMDLINE], hdr_strings[AP_HS_CMDLINE]) &&
	      !strcmp(r.strings[AP_HS_OP_PROBE], "ap_op_begin"),
	      "version %u pid %d", r.version, r.hdr.pid);
	rc = read_rest(&r, got, MAX_X, &n, err);
	for (int i = 0; i < n && i + 1 < nx; i++)
		bad += !same(&got[i], &xs[i + 1]);
	CHECK("trace v1: every record read back as written, then a clean end",
	      rc == 0 && n == nx - 1 && !bad && !r.truncated && r.saw_end,
	      "rc %d, %d records of %d, %d differ (%s)", rc, n, nx - 1, bad, err);
	ap_trace_reader_close(&r);
}

/* ---- format 4: every record packed, mapping snapshots copied from the one before ---- */

struct rrec {
	uint32_t type, len;
	uint8_t *p;
};

/* Every record after the header of a trace, copied; n set; -1 with err on a bad read. */
static struct rrec *read_all(struct ap_trace_reader *r, size_t *n, char *err)
{
	struct ap_trace_rec rec;
	struct rrec *v = NULL;
	size_t cap = 0;
	int rc;

	*n = 0;
	while ((rc = ap_trace_next(r, &rec, err)) == 1) {
		if (*n == cap) {
			struct rrec *nv = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));

			if (!nv)
				break;
			v = nv;
		}
		v[*n].type = rec.type;
		v[*n].len = rec.len;
		v[*n].p = malloc(rec.len + 1);
		if (!v[*n].p)
			break;
		memcpy(v[*n].p, rec.payload, rec.len);
		(*n)++;
	}
	if (rc) {
		for (size_t i = 0; i < *n; i++)
			free(v[i].p);
		free(v);
		*n = 0;
		return NULL;
	}
	return v;
}

static void free_all(struct rrec *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].p);
	free(v);
}

/* Writes records as a recorder would: mappings and notes with their strings apart. */
static int write_all(struct ap_trace_writer *w, const struct rrec *v, size_t n, char *err)
{
	for (size_t i = 0; i < n; i++) {
		size_t fixed = v[i].type == AP_REC_MAPPING ? sizeof(struct ap_rec_mapping) :
			       v[i].type == AP_REC_NOTE ? sizeof(struct ap_rec_note) : 0;
		int rc;

		if (fixed && v[i].len > fixed && !v[i].p[v[i].len - 1] &&
		    strlen((char *)v[i].p + fixed) == v[i].len - fixed - 1)
			rc = ap_trace_write_str(w, v[i].type, v[i].p, (uint32_t)fixed,
						(char *)v[i].p + fixed, err);
		else
			rc = ap_trace_write(w, v[i].type, v[i].p, v[i].len, err);
		if (rc)
			return rc;
	}
	return 0;
}

/* How many records of a and b differ, type, length or byte; their counts if they differ. */
static size_t differ(const struct rrec *a, size_t na, const struct rrec *b, size_t nb)
{
	size_t bad = na > nb ? na - nb : nb - na;

	for (size_t i = 0; i < na && i < nb; i++)
		bad += a[i].type != b[i].type || a[i].len != b[i].len ||
		       memcmp(a[i].p, b[i].p, a[i].len);
	return bad;
}

/*
 * The committed traces of formats 1 and 2 (v2-mininfer is a real recording: mapping
 * snapshots, allocations, samples, faults and markers) rewritten by today's writer read
 * back record for record, byte for byte.
 */
static void test_fixture_rewrite(void)
{
	static const char *const fix[] = {
		"tests/fixtures/trace/v1-reference.aptrace",
		"tests/fixtures/trace/v2-mininfer.aptrace",
	};

	for (size_t f = 0; f < 2; f++) {
		char path[TMP_PATH_LEN], err[AP_ERR_LEN] = "";
		struct ap_trace_reader r;
		struct ap_trace_writer w;
		struct rrec *a = NULL, *b = NULL;
		size_t na = 0, nb = 0, maps = 0;
		uint64_t old_bytes = 0;
		int rc;

		tmp_path(path, "rewrite.aptrace");
		rc = ap_trace_open(&r, fix[f], err);
		if (!rc) {
			a = read_all(&r, &na, err);
			old_bytes = r.offset;
			rc = a ? 0 : -1;
			rc = rc ? rc : ap_trace_create(&w, path, &r.hdr,
						       (const char *const *)r.strings, err);
			ap_trace_reader_close(&r);
			rc = rc ? rc : write_all(&w, a, na, err);
			rc = rc ? rc : ap_trace_close(&w, err);
		}
		rc = rc ? rc : ap_trace_open(&r, path, err);
		if (!rc) {
			b = read_all(&r, &nb, err);
			rc = b ? 0 : -1;
			CHECK("format 4: a rewritten fixture reads as version 4, complete",
			      r.version == 4 && r.saw_end && !r.truncated,
			      "version %u", r.version);
			ap_trace_reader_close(&r);
		}
		for (size_t i = 0; i < na; i++)
			maps += a[i].type == AP_REC_MAPPING;
		CHECK(f ? "format 4: the v2 fixture rewritten reads back record for record" :
			  "format 4: the v1 fixture rewritten reads back record for record",
		      !rc && na > 0 && !differ(a, na, b, nb), "rc %d, %zu records, %zu read "
		      "back, %zu differ (%s)", rc, na, nb, rc ? 0 : differ(a, na, b, nb), err);
		if (f == 1)
			printf("  (%zu records, %zu of them mappings: %" PRIu64 " bytes in format "
			       "2, %" PRIu64 " in format 4)\n", na, maps, old_bytes, w.bytes);
		free_all(a, na);
		free_all(b, nb);
		unlink(path);
	}
}

#define MS_N 300		/* mappings in the first snapshot */
#define MS_FILL 4000		/* faults between the last two snapshots */

/* Snapshot k's mapping i (n set to its count): each a change of the one before. */
static int ms_map(int k, int i, struct ap_rec_mapping *m, char *path, size_t cap)
{
	int n = k == 0 ? MS_N : MS_N - 1;
	int j = i;

	if (i >= n)
		return n;
	if (k >= 1 && i >= 100)		/* 1 on: mapping 100 gone, 200 grown, the last gone */
		j = i + 1;
	if (k == 3)			/* 3: every one moved */
		j = n - 1 - i + 1000;
	*m = (struct ap_rec_mapping){
		.ts_ns = 1000000000ull * (uint64_t)(k + 1), .start = 0x7f0000000000ull +
		0x10000ull * (uint64_t)j, .end = 0x7f0000000000ull + 0x10000ull * (uint64_t)j +
		(j % 3 + 1) * 4096ull, .offset = (uint64_t)(j % 4) * 4096, .inode = 1000u + j / 4,
		.snapshot = (uint32_t)(k * 2 + 1), .prot = 1 | (j % 2) << 1, .dev_major = 8,
		.dev_minor = (uint32_t)(j / 100),
	};
	if (k >= 1 && j == 200)
		m->end += 4096;
	if (j % 5 == 4)
		path[0] = 0;
	else
		snprintf(path, cap, "/usr/lib/x86_64-linux-gnu/libm%d.so", j / 4);
	return n;
}

/*
 * Mapping snapshots: one whole, one changed (a mapping gone, one grown, the last gone),
 * one repeated, one all new, backwards; each block ends with its snapshot (a flush). Read
 * back exactly; the repeated one in a few bytes; with the changed one's block damaged,
 * the one that copies from it is refused, or skipped with salvage, and the others read;
 * after a rewind the next snapshot is written whole.
 */
static void test_map_snapshots(void)
{
	char path[TMP_PATH_LEN], err[AP_ERR_LEN] = "", mp[96];
	uint64_t block_at[4] = { 0 }, size_of[4] = { 0 }, rw_bytes = 0, rw_records = 0;
	struct ap_trace_writer w;
	struct ap_trace_reader r;
	struct rrec *got = NULL;
	struct ap_rec_mapping m;
	size_t ngot = 0, want = 0, bad = 0, k3 = 0;
	uint64_t rng = 0x2545f4914f6cdd1dull;
	uint8_t *file = NULL;
	size_t size = 0;
	int rc, k, i, n;

	tmp_path(path, "snapshots.aptrace");
	rc = ap_trace_create(&w, path, &ref_hdr, hdr_strings, err);
	for (k = 0; !rc && k < 4; k++) {
		uint64_t before = w.bytes;

		block_at[k] = w.bytes;
		n = ms_map(k, MS_N, &m, mp, sizeof(mp));
		for (i = 0; !rc && i < n; i++) {
			ms_map(k, i, &m, mp, sizeof(mp));
			rc = ap_trace_write_str(&w, AP_REC_MAPPING, &m, sizeof(m), mp, err);
			want++;
			if (!rc && k == 1 && i == 150)	/* a fault among the mappings */
				rc = ap_trace_write(&w, AP_REC_FAULT, &ref_fault, sizeof(ref_fault),
						    err);
		}
		rc = rc ? rc : ap_trace_flush(&w, err);
		size_of[k] = w.bytes - before;
		/* before the last, faults enough that its block is a key block */
		for (i = 0; !rc && k == 2 && i < MS_FILL; i++) {
			struct ap_rec_fault f = ref_fault;

			f.addr = test_xorshift64(&rng);
			f.ts_ns += (uint64_t)i;
			rc = ap_trace_write(&w, AP_REC_FAULT, &f, sizeof(f), err);
		}
		rc = rc || k != 2 ? rc : ap_trace_flush(&w, err);
	}
	rc = rc ? rc : ap_trace_close(&w, err);
	rc = rc ? rc : ap_trace_open(&r, path, err);
	if (!rc) {
		got = read_all(&r, &ngot, err);
		rc = got ? 0 : -1;
		ap_trace_reader_close(&r);
	}
	for (k = 0, i = 0; !rc && k < 4; k++) {
		n = ms_map(k, MS_N, &m, mp, sizeof(mp));
		for (int j = 0; j < n; j++, i++) {
			if (k == 1 && j == 151)
				bad += got[i++].type != AP_REC_FAULT;
			if (k == 3 && j == 0)
				i += MS_FILL;
			ms_map(k, j, &m, mp, sizeof(mp));
			bad += (size_t)i >= ngot || got[i].type != AP_REC_MAPPING ||
			       got[i].len != sizeof(m) + strlen(mp) + 1 ||
			       memcmp(got[i].p, &m, sizeof(m)) ||
			       strcmp((char *)got[i].p + sizeof(m), mp);
		}
	}
	CHECK("format 4: mapping snapshots read back exactly, changed, repeated, all new",
	      !rc && ngot == want + 1 + MS_FILL && !bad, "rc %d, %zu records of %zu, %zu wrong "
	      "(%s)", rc, ngot, want + 1 + MS_FILL, bad, err);
	CHECK("format 4: a snapshot as the one before: copied, a few bytes; a changed one: "
	      "copies and a few new", !rc && size_of[2] < 48 && size_of[1] < 160 &&
	      size_of[0] > 10 * size_of[1], "whole %" PRIu64 ", changed %" PRIu64 ", repeated %"
	      PRIu64 ", new %" PRIu64 " bytes", size_of[0], size_of[1], size_of[2],
	      size_of[3]);
	free_all(got, ngot);
	got = NULL;

	/*
	 * the changed snapshot's block damaged: the blocks after it continue it (the repeat
	 * copies from it, too) up to the key block of the last snapshot
	 */
	file = rc ? NULL : slurp(path, &size);
	if (file) {
		char want_err[96];

		file[block_at[1] + AP_TRACE_REC_HDR_LEN + 3] ^= 0x10;
		rc = !spit(path, file, size);
		rc = rc ? rc : ap_trace_open(&r, path, err);
		got = rc ? NULL : read_all(&r, &ngot, err);
		snprintf(want_err, sizeof(want_err), "corrupt record at offset %" PRIu64,
			 block_at[1]);
		CHECK("format 4: a damaged snapshot: the checked read stops there, one line",
		      !rc && !got && strstr(err, want_err) && one_line(err), "'%s'", err);
		if (!rc)
			ap_trace_reader_close(&r);
		rc = ap_trace_open(&r, path, err);
		r.salvage = true;
		got = rc ? NULL : read_all(&r, &ngot, err);
		for (size_t g = 0, bad = 0; got && g < ngot; g++) {
			const struct ap_rec_mapping *gm = (const void *)got[g].p;

			if (got[g].type != AP_REC_MAPPING)
				continue;
			k = (int)gm->snapshot / 2;
			k3 += k == 3;
			bad += k != 0 && k != 3;
		}
		CHECK("format 4: salvage: the damaged block and those continuing it are "
		      "skipped, the key blocks read", got && ngot == 2 * MS_N - 1 &&
		      k3 == MS_N - 1 && r.salvage_gaps == 3, "%zu records, %zu of the last "
		      "snapshot, %" PRIu64 " gaps (%s)", ngot, k3, r.salvage_gaps, err);
		if (!rc)
			ap_trace_reader_close(&r);
		free_all(got, ngot);
		free(file);
	}

	/* rewound past a snapshot: the next one may not copy from it */
	rc = ap_trace_create(&w, path, &ref_hdr, hdr_strings, err);
	for (k = 0; !rc && k < 3; k++) {
		if (k == 1 && !(rc = ap_trace_flush(&w, err))) {
			rw_bytes = w.bytes;
			rw_records = w.records;
		}
		n = ms_map(k == 2 ? 1 : 0, MS_N, &m, mp, sizeof(mp));
		for (i = 0; !rc && i < n; i++) {
			ms_map(k == 2 ? 1 : 0, i, &m, mp, sizeof(mp));
			m.snapshot = (uint32_t)k + 10;
			rc = ap_trace_write_str(&w, AP_REC_MAPPING, &m, sizeof(m), mp, err);
		}
		if (!rc && k == 1)
			rc = ap_trace_rewind(&w, rw_bytes, rw_records, err);
	}
	rc = rc ? rc : ap_trace_close(&w, err);
	rc = rc ? rc : ap_trace_open(&r, path, err);
	got = rc ? NULL : read_all(&r, &ngot, err);
	CHECK("format 4: after a rewind the next snapshot is whole: read back",
	      got && ngot == 2 * MS_N - 1, "%zu records (%s)", ngot, err);
	if (!rc)
		ap_trace_reader_close(&r);
	free_all(got, ngot);
	unlink(path);
}

static void test_round_trip(void)
{
	char path[TMP_PATH_LEN];
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	char err[AP_ERR_LEN] = "";
	int i, rc, bad = 0;
	size_t size = 0;
	uint8_t *file;

	tmp_path(path, "roundtrip.aptrace");
	rc = write_reference(path, false, err);
	CHECK("trace: write every record type", rc == 0, "%s", err);
	file = slurp(path, &size);
	CHECK_EQ_I64("trace: file size is the sum of the records", size, xoff[nx]);
	if (!file || size != xoff[nx]) {
		free(file);
		return;
	}

	/* the bytes on disk, decoded by hand: the format pinned down */
	CHECK("trace: magic", !memcmp(file, "APTRACE\0", 8), "bad magic");
	CHECK_EQ_I64("trace: version 4, little-endian", le32(file + 8), 4);
	CHECK_EQ_I64("trace: reserved flags 0", le32(file + 12), 0);
	CHECK_EQ_I64("trace: first record is the header", le32(file + 16), AP_REC_HEADER);
	CHECK_EQ_I64("trace: header record length", le32(file + 20), xs[0].len);
	for (i = 0; i < nx; i++) {
		const uint8_t *h = file + xoff[i];
		uint32_t crc = (uint32_t)crc32(0, h, 8);

		crc = (uint32_t)crc32(crc, h + 12, le32(h + 4));
		if (le32(h) != xs[i].type || le32(h + 4) != xs[i].len || le32(h + 8) != crc)
			bad++;
	}
	CHECK("trace: record headers {type, len, crc32 of type+len+payload}", !bad,
	      "%d records differ", bad);
	{
		const uint8_t *p = file + xoff[1] + 12;	/* the fault */

		CHECK("trace: fault fields little-endian at their offsets",
		      le64(p) == ref_fault.ts_ns && le64(p + 8) == ref_fault.addr &&
		      le64(p + 40) == ref_fault.vm_flags && le32(p + 48) == ref_fault.tid &&
		      le32(p + 52) == ref_fault.flags && le32(p + 56) == 0xffffffffu &&
		      le32(p + 60) == 17, "fault payload bytes differ");
		p = file + xoff[0] + 12;
		CHECK("trace: header fields and strings on disk",
		      le32(p) == 4096 && le32(p + 4) == AP_HDR_STARTED &&
		      le64(p + 8) == ref_hdr.clock_base_ns &&
		      le64(p + 16) == ref_hdr.realtime_base_ns && le32(p + 24) == 123456 &&
		      !strcmp((const char *)p + 32, "x86_64"), "header payload bytes differ");
	}
	free(file);

	rc = ap_trace_open(&r, path, err);
	CHECK("trace: open", rc == 0, "%s", err);
	if (rc)
		return;
	CHECK("trace: header record fields",
	      !memcmp(&r.hdr, &ref_hdr, sizeof(ref_hdr)) && r.version == 4,
	      "page %u pid %d version %u", r.hdr.page_size, r.hdr.pid, r.version);
	for (i = 0, bad = 0; i < 6; i++)
		bad += !r.strings[i] || strcmp(r.strings[i], hdr_strings[i]);
	CHECK("trace: header strings (arch, kernel, method, cmdline, probes)", !bad,
	      "arch '%s' cmdline '%s' run '%s' op '%s'", r.strings[AP_HS_ARCH],
	      r.strings[AP_HS_CMDLINE],
	      r.strings[AP_HS_RUN_PROBE], r.strings[AP_HS_OP_PROBE]);
	CHECK_EQ_I64("trace: offset after the header", r.offset, xoff[1]);

	for (i = 1; i < nx; i++) {
		rc = ap_trace_next(&r, &rec, err);
		if (rc != 1 || rec.type != xs[i].type || rec.len != xs[i].len) {
			CHECK("trace: record types and lengths", 0,
			      "record %d: rc %d type %u len %u, want %u %u (%s)", i, rc,
			      rec.type, rec.len, xs[i].type, xs[i].len, err);
			break;
		}
		switch (rec.type) {
		case AP_REC_FAULT: {
			struct ap_rec_fault f;

			ap_trace_get(&rec, &f, sizeof(f));
			CHECK("trace: fault round trip",
			      !memcmp(&f, &ref_fault, sizeof(f)) && f.run == -1 && f.op == 17 &&
			      f.addr == 0x7f0011223000ull && f.flags == 0x3c5,
			      "ts %" PRIu64 " addr %" PRIx64 " run %d", f.ts_ns, f.addr, f.run);
			break;
		}
		case AP_REC_MAPPING: {
			struct ap_rec_mapping m;

			ap_trace_get(&rec, &m, sizeof(m));
			CHECK("trace: mapping round trip, path",
			      !memcmp(&m, &ref_map, sizeof(m)) && m.dev_minor == 0x80001 &&
			      !strcmp(ap_trace_str(&rec, sizeof(m)), ref_map_path),
			      "path '%s'", ap_trace_str(&rec, sizeof(m)));
			break;
		}
		case AP_REC_RUN_BEGIN:
		case AP_REC_RUN_END:
		case AP_REC_OP_BEGIN:
		case AP_REC_OP_END: {
			struct ap_rec_marker m;

			ap_trace_get(&rec, &m, sizeof(m));
			CHECK("trace: marker round trip", !memcmp(&m, xs[i].data, sizeof(m)) &&
			      m.tid == 123457 && m.run == 0 &&
			      m.op == (rec.type == AP_REC_OP_BEGIN || rec.type == AP_REC_OP_END ?
				       0 : -1), "type %u run %d op %d", rec.type, m.run, m.op);
			break;
		}
		case AP_REC_SAMPLE: {
			struct ap_rec_sample s;

			ap_trace_get(&rec, &s, sizeof(s));
			CHECK("trace: sample round trip",
			      !memcmp(&s, &ref_sample, sizeof(s)) && s.swap == AP_NO_VALUE &&
			      s.psi_some_avg10 == 123 && s.cg_peak == 0x223456789aull,
			      "rss %" PRIu64 " swap %" PRIu64, s.rss, s.swap);
			break;
		}
		case AP_REC_DROPS: {
			struct ap_rec_drops d;

			ap_trace_get(&rec, &d, sizeof(d));
			CHECK("trace: drops round trip", !memcmp(&d, &ref_drops, sizeof(d)) &&
			      d.vma_misses == 0x100000000ull, "events %" PRIu64, d.events);
			break;
		}
		case AP_REC_NOTE: {
			struct ap_rec_note nt;

			ap_trace_get(&rec, &nt, sizeof(nt));
			CHECK("trace: note round trip, text",
			      !memcmp(&nt, &ref_note, sizeof(nt)) && nt.level == 1 &&
			      !strcmp(ap_trace_str(&rec, sizeof(nt)), ref_note_text),
			      "text '%s'", ap_trace_str(&rec, sizeof(nt)));
			break;
		}
		case AP_REC_RESIDENT: {
			struct ap_rec_resident rr;

			ap_trace_get(&rec, &rr, sizeof(rr));
			CHECK("trace: resident round trip, bitmap with a NUL byte",
			      !memcmp(&rr, &ref_res, sizeof(rr)) &&
			      rec.len == sizeof(rr) + sizeof(ref_bitmap) &&
			      !memcmp(rec.payload + sizeof(rr), ref_bitmap, sizeof(ref_bitmap)),
			      "len %u present %" PRIu64, rec.len, rr.present);
			break;
		}
		case AP_REC_ALLOC: {
			struct ap_rec_alloc al;

			ap_trace_get(&rec, &al, sizeof(al));
			CHECK("trace: allocation round trip", !memcmp(&al, &ref_alloc, sizeof(al)) &&
			      al.run == -1 && al.size == 1655872 && al.caller == 0x7f0055123456ull,
			      "ptr %" PRIx64 " size %" PRIu64, al.ptr, al.size);
			break;
		}
		case AP_REC_END: {
			struct ap_rec_end e;

			ap_trace_get(&rec, &e, sizeof(e));
			CHECK("trace: end round trip", !memcmp(&e, &ref_end, sizeof(e)) &&
			      e.exit_status == -1 && e.term_signal == 9 && e.runs == 0x80000003u,
			      "reason %u status %d", e.reason, e.exit_status);
			break;
		}
		}
		CHECK("trace: payload followed by a NUL", rec.payload[rec.len] == 0, "no NUL");
	}
	rc = ap_trace_next(&r, &rec, err);
	CHECK("trace: clean end: 0, not truncated, END seen",
	      rc == 0 && !r.truncated && r.saw_end && r.offset == xoff[nx],
	      "rc %d truncated %d saw_end %d", rc, r.truncated, r.saw_end);
	rc = ap_trace_next(&r, &rec, err);
	CHECK("trace: after the end, 0 again", rc == 0 && !r.truncated, "rc %d", rc);
	ap_trace_reader_close(&r);
	ap_trace_reader_close(&r);	/* a second close is harmless */

	/* the same through a stream */
	file = slurp(path, &size);
	if (file) {
		FILE *f = fmemopen(file, size, "rb");
		struct xrec got[MAX_X];
		int n = 0;

		rc = f ? ap_trace_open_stream(&r, f, "memory", err) : -1;
		if (!rc)
			rc = read_rest(&r, got, MAX_X, &n, err);
		for (i = 0, bad = 0; i < n && i + 1 < nx; i++)
			bad += !same(&got[i], &xs[i + 1]);
		CHECK("trace: read from a stream (fmemopen)", rc == 0 && n == nx - 1 && !bad,
		      "rc %d n %d bad %d %s", rc, n, bad, err);
		if (f)
			ap_trace_reader_close(&r);
		free(file);
	}
	unlink(path);
}

static void test_truncation(void)
{
	char path[TMP_PATH_LEN], cut_path[TMP_PATH_LEN];
	char err[AP_ERR_LEN] = "", first[512] = "";
	struct xrec got[MAX_X];
	size_t size, cut;
	int fails = 0, truncs = 0;
	uint8_t *file;

	tmp_path(path, "full.aptrace");
	tmp_path(cut_path, "cut.aptrace");

	if (write_reference(path, false, err) || !(file = slurp(path, &size))) {
		CHECK("trace: cut at every byte", 0, "cannot write the trace: %s", err);
		return;
	}
	for (cut = 0; cut <= size; cut++) {
		struct ap_trace_reader r;
		int rc, n = 0, whole = 0, i;
		bool boundary = false;

		for (i = 0; i <= nx; i++) {
			if (xoff[i] <= cut && i > 0)
				whole = i;
			if (xoff[i] == cut)
				boundary = true;
		}
		if (!spit(cut_path, file, cut)) {
			fails++;
			break;
		}
		err[0] = 0;
		rc = ap_trace_open(&r, cut_path, err);
		if (cut < xoff[1]) {
			const char *want = cut == 0 ? "empty file" : cut < 16 ?
				"cut short in its file header" : "cut short in its header record";

			if (rc != -EINVAL || !strstr(err, want) || !one_line(err)) {
				if (!fails++)
					snprintf(first, sizeof(first), "cut %zu: rc %d '%s'", cut,
						 rc, err);
			}
			if (!rc)
				ap_trace_reader_close(&r);
			continue;
		}
		if (rc) {
			if (!fails++)
				snprintf(first, sizeof(first), "cut %zu: open: %s", cut, err);
			continue;
		}
		rc = read_rest(&r, got, MAX_X, &n, err);
		for (i = 0; i < n && i < MAX_X; i++) {
			if (!same(&got[i], &xs[i + 1]))
				rc = 99;
		}
		if (rc != 0 || n != whole - 1 || r.truncated == boundary ||
		    r.saw_end != (cut == size)) {
			if (!fails++)
				snprintf(first, sizeof(first),
					 "cut %zu: rc %d, %d records (want %d), truncated %d, %s",
					 cut, rc, n, whole - 1, r.truncated, err);
		}
		truncs += r.truncated;
		ap_trace_reader_close(&r);
	}
	CHECK("trace: cut at every byte: every whole record before the cut, then truncated",
	      !fails, "%d of %zu cuts wrong; first: %s", fails, size + 1, first);
	CHECK("trace: cuts inside records are reported as truncated",
	      truncs == (int)(size - xoff[1]) - (nx - 1), "%d truncated", truncs);
	free(file);
	unlink(path);
	unlink(cut_path);
}

static void test_bit_flips(void)
{
	char path[TMP_PATH_LEN];
	char err[AP_ERR_LEN] = "", first[512] = "";
	int fails = 0, crc_errors = 0, open_errors = 0, len_truncs = 0;
	struct xrec got[MAX_X];
	uint8_t *file, *copy;
	size_t size, b;

	tmp_path(path, "flip.aptrace");
	if (write_reference(path, false, err) || !(file = slurp(path, &size)) ||
	    !(copy = malloc(size))) {
		CHECK("trace: every bit flipped", 0, "cannot write the trace: %s", err);
		return;
	}
	for (b = 0; b < size; b++) {
		for (int bit = 0; bit < 8; bit++) {
			int ri = rec_at(b), rc, n = 0, i;
			struct ap_trace_reader r;
			char why[300] = "";
			FILE *f;

			memcpy(copy, file, size);
			copy[b] ^= (uint8_t)(1u << bit);
			f = fmemopen(copy, size, "rb");
			if (!f) {
				fails++;
				continue;
			}
			err[0] = 0;
			rc = ap_trace_open_stream(&r, f, "flipped", err);
			if (b >= 12 && b < 16) {
				/* reserved flags: ignored */
				if (rc || read_rest(&r, got, MAX_X, &n, err) || n != nx - 1)
					snprintf(why, sizeof(why), "flags flip refused: %s", err);
			} else if (ri <= 0) {
				/* file header, header record: refused at open, one line */
				if (rc != -EINVAL || !one_line(err))
					snprintf(why, sizeof(why), "open rc %d '%s'", rc, err);
				open_errors++;
				if (!rc)
					ap_trace_reader_close(&r);
				f = NULL;
			} else if (rc) {
				snprintf(why, sizeof(why), "open failed: %s", err);
				f = NULL;
			} else {
				char want[64];
				bool in_len = b >= xoff[ri] + 4 && b < xoff[ri] + 8;

				rc = read_rest(&r, got, MAX_X, &n, err);
				for (i = 0; i < n && i < MAX_X; i++) {
					if (!same(&got[i], &xs[i + 1]))
						snprintf(why, sizeof(why), "record %d changed", i);
				}
				snprintf(want, sizeof(want), "corrupt record at offset %" PRIu64,
					 xoff[ri]);
				if (n != ri - 1)
					snprintf(why, sizeof(why), "%d records before the flip in "
						 "record %d", n, ri);
				else if (rc == -EINVAL && strstr(err, want) && one_line(err))
					crc_errors++;
				else if (rc == 0 && r.truncated && in_len)
					len_truncs++;	/* a length grown past the end */
				else
					snprintf(why, sizeof(why), "rc %d truncated %d '%s'", rc,
						 r.truncated, err);
			}
			if (f)
				ap_trace_reader_close(&r);
			if (why[0] && !fails++)
				snprintf(first, sizeof(first), "byte %zu bit %d: %s", b, bit, why);
		}
	}
	CHECK("trace: every bit flipped: refused with a message, or corrupt at its record's "
	      "offset, never a changed record", !fails,
	      "%d flips wrong; first: %s", fails, first);
	printf("  (%d flips refused at open, %d crc/length errors, %d lengths past the end)\n",
	       open_errors, crc_errors, len_truncs);
	free(copy);
	free(file);
	unlink(path);
}

static void expect_open_error(const char *name, const void *bytes, size_t n, const char *want)
{
	char path[TMP_PATH_LEN];
	char err[AP_ERR_LEN] = "", full[AP_ERR_LEN + 300];
	struct ap_trace_reader r;
	int rc;

	tmp_path(path, "bad.aptrace");
	snprintf(full, sizeof(full), "%s: %s", path, want);
	if (!spit(path, bytes, n)) {
		CHECK(name, 0, "cannot write %s", path);
		return;
	}
	rc = ap_trace_open(&r, path, err);
	CHECK(name, rc == -EINVAL && !strcmp(err, full), "rc %d, message '%s', want '%s'", rc, err,
	      full);
	if (!rc)
		ap_trace_reader_close(&r);
	unlink(path);
}

static void test_refusals(void)
{
	char path[TMP_PATH_LEN];
	char err[AP_ERR_LEN] = "", text[] = "tensor,name,offset,size\n0,input,0,150528\n";
	struct ap_trace_reader r;
	uint8_t *file;
	size_t size;
	int rc;

	tmp_path(path, "ref.aptrace");
	expect_open_error("trace: not a trace", text, sizeof(text) - 1,
			  "not an arenaprof trace");
	expect_open_error("trace: empty file", "", 0, "empty file, not an arenaprof trace");
	expect_open_error("trace: short non-trace", "XY", 2, "not an arenaprof trace");
	expect_open_error("trace: a prefix of the magic", "APTR", 4,
			  "trace cut short in its file header (4 of 16 bytes)");
	rc = ap_trace_open(&r, "/nonexistent/dir/x.aptrace", err);
	CHECK("trace: missing file", rc == -ENOENT && strstr(err, "No such file"), "'%s'", err);
	rc = ap_trace_open(&r, "/tmp", err);
	CHECK("trace: a directory is refused before any read",
	      rc == -EINVAL && !strcmp(err, "/tmp: not a regular file (a directory)") && !r.f,
	      "rc %d '%s'", rc, err);

	if (write_reference(path, false, err) || !(file = slurp(path, &size))) {
		CHECK("trace: refusals", 0, "cannot write the trace: %s", err);
		return;
	}
	put32(file + 8, 7);
	expect_open_error("trace: a newer version is refused with advice", file, size,
			  "trace format version 7 is newer than this arenaprof (4): "
			  "upgrade arenaprof");
	put32(file + 8, 0);
	expect_open_error("trace: version 0", file, size,
			  "corrupt file header: format version 0 (never written)");
	put32(file + 8, 3);
	expect_open_error("trace: version 3 (skipped: a bit flip away from 2 and 4)", file, size,
			  "corrupt file header: format version 3 (never written)");
	put32(file + 8, 1);
	put32(file + 12, 0xdeadbeef);
	{
		char p2[TMP_PATH_LEN];

		tmp_path(p2, "flags.aptrace");
		spit(p2, file, size);
		rc = ap_trace_open(&r, p2, err);
		CHECK("trace: reserved file flags are ignored", rc == 0, "%s", err);
		if (!rc)
			ap_trace_reader_close(&r);
		unlink(p2);
	}
	put32(file + 12, 0);

	/* the first record is not a header: the fault record moved to the front */
	{
		size_t hl = xoff[1] - xoff[0], fl = xoff[2] - xoff[1];
		uint8_t *swapped = malloc(size);
		char want[128];

		memcpy(swapped, file, 16);
		memcpy(swapped + 16, file + xoff[1], fl);
		memcpy(swapped + 16 + fl, file + 16, hl);
		memcpy(swapped + 16 + fl + hl, file + xoff[2], size - xoff[2]);
		snprintf(want, sizeof(want),
			 "corrupt trace: the first record is of type %d, not a header",
			 AP_REC_FAULT);
		expect_open_error("trace: first record not a header", swapped, size, want);
		free(swapped);
	}

	/* huge lengths in the record after the header */
	{
		uint32_t lens[3] = { AP_TRACE_MAX_PAYLOAD + 1, 0xffffffffu, 0x80000000u };
		struct ap_trace_rec rec;
		char want[128];

		for (int i = 0; i < 3; i++) {
			put32(file + xoff[1] + 4, lens[i]);
			spit(path, file, size);
			rc = ap_trace_open(&r, path, err);
			if (!rc)
				rc = ap_trace_next(&r, &rec, err);
			snprintf(want, sizeof(want), "corrupt record at offset %" PRIu64
				 ": length %u exceeds the maximum %u", xoff[1], lens[i],
				 AP_TRACE_MAX_PAYLOAD);
			CHECK("trace: a huge length is corruption, at its offset",
			      rc == -EINVAL && strstr(err, want), "len %u: rc %d '%s'", lens[i], rc,
			      err);
			rc = ap_trace_next(&r, &rec, err);
			CHECK("trace: after an error, the same error again", rc == -EINVAL, "rc %d", rc);
			ap_trace_reader_close(&r);
		}
		/* the largest length allowed, in a short file: truncation, little memory */
		put32(file + xoff[1] + 4, AP_TRACE_MAX_PAYLOAD);
		spit(path, file, size);
		rc = ap_trace_open(&r, path, err);
		if (!rc)
			rc = ap_trace_next(&r, &rec, err);
		CHECK("trace: a maximal length past the end is truncation, without a 16 MiB "
		      "buffer", rc == 0 && r.truncated && r.cap <= (128u << 10),
		      "rc %d truncated %d cap %u '%s'", rc, r.truncated, r.cap, err);
		ap_trace_reader_close(&r);
	}
	free(file);
	unlink(path);
}

static void test_unknown_types(void)
{
	char path[TMP_PATH_LEN];
	char err[AP_ERR_LEN] = "";
	struct ap_trace_reader r;
	struct xrec got[MAX_X];
	int rc, n = 0, bad = 0;

	tmp_path(path, "unknown.aptrace");
	rc = write_reference(path, true, err);
	if (!rc)
		rc = ap_trace_open(&r, path, err);
	if (rc) {
		CHECK("trace: unknown record types skipped", 0, "%s", err);
		return;
	}
	rc = read_rest(&r, got, MAX_X, &n, err);
	for (int i = 0; i < n && i + 1 < nx; i++)
		bad += !same(&got[i], &xs[i + 1]);
	CHECK("trace: unknown record types (0, 13, 99, 0xffffffff) skipped",
	      rc == 0 && n == nx - 1 && !bad && r.saw_end && !r.truncated,
	      "rc %d, %d records (want %d), %d differ: %s", rc, n, nx - 1, bad, err);
	ap_trace_reader_close(&r);
	unlink(path);
}

/* Payloads of other versions: shorter ones zero-fill, longer ones are cut. */
static void test_payload_growth(void)
{
	char path[TMP_PATH_LEN];
	uint8_t longer[sizeof(struct ap_rec_sample) + 24], raw_map[sizeof(ref_map) + 4];
	char err[AP_ERR_LEN] = "";
	struct ap_trace_writer w;
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	struct ap_rec_sample s;
	size_t old_len = offsetof(struct ap_rec_sample, cg_current);
	int rc;

	tmp_path(path, "growth.aptrace");
	memcpy(longer, &ref_sample, sizeof(ref_sample));
	memset(longer + sizeof(ref_sample), 0xee, 24);
	memcpy(raw_map, &ref_map, sizeof(ref_map));
	memcpy(raw_map + sizeof(ref_map), "abcd", 4);	/* a path without its NUL */
	rc = ap_trace_create(&w, path, &ref_hdr, NULL, err);
	rc = rc ? rc : ap_trace_write(&w, AP_REC_SAMPLE, &ref_sample, (uint32_t)old_len, err);
	rc = rc ? rc : ap_trace_write(&w, AP_REC_SAMPLE, longer, sizeof(longer), err);
	rc = rc ? rc : ap_trace_write(&w, AP_REC_FAULT, NULL, 0, err);
	rc = rc ? rc : ap_trace_write(&w, AP_REC_MAPPING, &ref_map, sizeof(ref_map), err);
	rc = rc ? rc : ap_trace_write(&w, AP_REC_MAPPING, raw_map, sizeof(raw_map), err);
	rc = rc ? rc : ap_trace_write_str(&w, AP_REC_NOTE, &ref_note, sizeof(ref_note), NULL,
					  err);
	rc = rc ? rc : ap_trace_close(&w, err);
	rc = rc ? rc : ap_trace_open(&r, path, err);
	CHECK("trace: write payloads of other sizes", rc == 0, "%s", err);
	if (rc)
		return;
	CHECK("trace: header strings absent read as \"\"",
	      r.strings[AP_HS_ARCH] && !r.strings[AP_HS_ARCH][0] &&
	      r.strings[AP_HS_OP_PROBE] && !r.strings[AP_HS_OP_PROBE][0],
	      "'%s'", r.strings[AP_HS_ARCH] ? r.strings[AP_HS_ARCH] : "(null)");

	rc = ap_trace_next(&r, &rec, err);
	memset(&s, 0xaa, sizeof(s));
	ap_trace_get(&rec, &s, sizeof(s));
	CHECK("trace: an older writer's shorter sample zero-fills the new fields",
	      rc == 1 && rec.len == old_len && !memcmp(&s, &ref_sample, old_len) &&
	      s.cg_current == 0 && s.cg_peak == 0 && s.psi_some_avg10 == 0 &&
	      s.psi_full_total == 0 && s.swap == AP_NO_VALUE,
	      "rc %d len %u cg_current %" PRIu64 " psi_full_total %" PRIu64, rc, rec.len,
	      s.cg_current, s.psi_full_total);

	rc = ap_trace_next(&r, &rec, err);
	ap_trace_get(&rec, &s, sizeof(s));
	CHECK("trace: a newer writer's longer sample: the known fields",
	      rc == 1 && rec.len == sizeof(longer) && !memcmp(&s, &ref_sample, sizeof(s)),
	      "rc %d len %u", rc, rec.len);

	rc = ap_trace_next(&r, &rec, err);
	{
		struct ap_rec_fault f;

		memset(&f, 0xaa, sizeof(f));
		ap_trace_get(&rec, &f, sizeof(f));
		CHECK("trace: an empty payload reads as zeros",
		      rc == 1 && rec.len == 0 && f.ts_ns == 0 && f.op == 0 &&
		      !strcmp(ap_trace_str(&rec, sizeof(f)), ""), "rc %d len %u", rc, rec.len);
	}
	rc = ap_trace_next(&r, &rec, err);
	CHECK("trace: a mapping without a path: \"\"",
	      rc == 1 && !strcmp(ap_trace_str(&rec, sizeof(ref_map)), "") &&
	      !strcmp(ap_trace_str(&rec, 4096), ""), "rc %d", rc);
	rc = ap_trace_next(&r, &rec, err);
	CHECK("trace: a path without its NUL: \"\"",
	      rc == 1 && !strcmp(ap_trace_str(&rec, sizeof(ref_map)), "") &&
	      !strcmp(ap_trace_str(&rec, sizeof(ref_map) + 1), ""), "rc %d '%s'", rc,
	      ap_trace_str(&rec, sizeof(ref_map)));
	rc = ap_trace_next(&r, &rec, err);
	CHECK("trace: write_str with NULL writes \"\"",
	      rc == 1 && rec.len == sizeof(ref_note) + 1 &&
	      !strcmp(ap_trace_str(&rec, sizeof(ref_note)), ""), "rc %d len %u", rc, rec.len);
	rc = ap_trace_next(&r, &rec, err);
	CHECK("trace: a trace without END: not truncated, no END seen",
	      rc == 0 && !r.truncated && !r.saw_end, "rc %d", rc);
	ap_trace_reader_close(&r);
	unlink(path);
}

/*
 * A trace of several MiB, read a window at a time: records across the window's edges, a
 * payload larger than the window, and ap_trace_scan returning only the types asked for
 * (the unchecked ones skipped, so a corrupt note, too large for a block, does not stop a
 * scan for allocations, while ap_trace_next stops at its offset; format 4 blocks may hold
 * any type, so a scan checks every one).
 */
#define SCAN_FAULTS 60000
#define SCAN_EVERY 7919		/* an allocation record after every this many faults */

static void test_windows_and_scan(void)
{
	char path[TMP_PATH_LEN], err[AP_ERR_LEN] = "", want[80];
	size_t big_len = (3u << 20) + 123, size = 0;
	uint64_t bad_off = 0;
	struct ap_trace_writer w;
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	struct ap_rec_note nt = { .ts_ns = 5 };
	uint32_t faults = 0, allocs = 0, notes = 0, wrong = 0;
	char *big = malloc(big_len + 1);
	uint8_t *file = NULL;
	int rc;

	tmp_path(path, "window.aptrace");
	if (!big) {
		CHECK("trace: windows", 0, "out of memory");
		return;
	}
	for (size_t i = 0; i < big_len; i++)
		big[i] = (char)('a' + i % 26);
	big[big_len] = 0;
	rc = ap_trace_create(&w, path, &ref_hdr, NULL, err);
	for (uint32_t i = 0; !rc && i < SCAN_FAULTS; i++) {
		struct ap_rec_fault f = { .ts_ns = i, .addr = 4096ull * i, .run = (int32_t)i };

		rc = ap_trace_write(&w, AP_REC_FAULT, &f, sizeof(f), err);
		if (!rc && i % SCAN_EVERY == 0) {
			struct ap_rec_alloc a = { .ts_ns = i, .ptr = 0x1000ull + i, .size = i };

			rc = ap_trace_write(&w, AP_REC_ALLOC, &a, sizeof(a), err);
		}
		if (!rc && i == SCAN_FAULTS / 4)	/* too large for a block, within a window */
			rc = ap_trace_write_str(&w, AP_REC_NOTE, &nt, sizeof(nt),
						big + big_len - 9000, err);
		if (!rc && i == SCAN_FAULTS / 2)
			rc = ap_trace_write_str(&w, AP_REC_NOTE, &nt, sizeof(nt), big, err);
	}
	rc = rc ? rc : ap_trace_close(&w, err);
	rc = rc ? rc : ap_trace_open(&r, path, err);
	CHECK("trace: write a 7 MiB trace", rc == 0, "%s", err);
	if (rc) {
		free(big);
		return;
	}
	while ((rc = ap_trace_next(&r, &rec, err)) == 1) {
		if (rec.type == AP_REC_FAULT) {
			struct ap_rec_fault f;

			ap_trace_get(&rec, &f, sizeof(f));
			wrong += f.ts_ns != faults || f.addr != 4096ull * faults;
			faults++;
		} else if (rec.type == AP_REC_ALLOC) {
			allocs++;
		} else if (rec.type == AP_REC_NOTE) {
			wrong += strcmp(ap_trace_str(&rec, sizeof(nt)),
					notes++ ? big : big + big_len - 9000) != 0;
		}
	}
	CHECK("trace: read a window at a time: every record, in order, intact (one larger "
	      "than the window)", rc == 0 && faults == SCAN_FAULTS && notes == 2 &&
	      allocs == SCAN_FAULTS / SCAN_EVERY + 1 && !wrong && !r.truncated,
	      "rc %d faults %u notes %u allocs %u wrong %u: %s", rc, faults, notes, allocs,
	      wrong, err);
	ap_trace_reader_close(&r);

	/* corrupt the CRC of the first note, a record of its own */
	file = slurp(path, &size);
	if (file) {
		uint64_t off = AP_TRACE_FILE_HDR_LEN;

		while (off + AP_TRACE_REC_HDR_LEN <= size) {
			uint32_t type, len;

			memcpy(&type, file + off, 4);
			memcpy(&len, file + off + 4, 4);
			if (type == AP_REC_NOTE) {
				bad_off = off;
				break;
			}
			off += AP_TRACE_REC_HDR_LEN + len;
		}
	}
	if (!file || !bad_off) {
		CHECK("trace: scan", 0, "cannot read %s back", path);
		free(file);
		free(big);
		return;
	}
	file[bad_off + 8] ^= 1;
	{
		FILE *f = fopen(path, "wb");

		rc = !f || fwrite(file, 1, size, f) != size;
		if (f)
			rc |= fclose(f) != 0;
	}
	allocs = notes = faults = wrong = 0;
	rc = rc ? -1 : ap_trace_open(&r, path, err);
	while (rc == 0 && (rc = ap_trace_scan(&r, &rec, 1ull << AP_REC_ALLOC, err)) == 1) {
		rc = 0;
		struct ap_rec_alloc a;

		if (rec.type == AP_REC_ALLOC) {
			ap_trace_get(&rec, &a, sizeof(a));
			wrong += a.ptr != 0x1000ull + allocs * SCAN_EVERY;
			allocs++;
		} else if (rec.type == AP_REC_NOTE) {
			notes++;
		} else {
			faults++;
		}
	}
	CHECK("trace: scan for allocations: those only, every one, past a corrupt note",
	      rc == 0 && faults == 0 && notes == 0 && !wrong &&
	      allocs == SCAN_FAULTS / SCAN_EVERY + 1,
	      "rc %d allocs %u notes %u others %u wrong %u: %s", rc, allocs, notes, faults,
	      wrong, err);
	ap_trace_reader_close(&r);
	rc = ap_trace_open(&r, path, err);
	faults = 0;
	while (rc == 0 && (rc = ap_trace_next(&r, &rec, err)) == 1) {
		rc = 0;
		faults += rec.type == AP_REC_FAULT;
	}
	snprintf(want, sizeof(want), "corrupt record at offset %" PRIu64 ": crc mismatch",
		 bad_off);
	CHECK("trace: the checked read stops at the corrupt block, its offset named",
	      rc == -EINVAL && faults == SCAN_FAULTS / 4 + 1 && strstr(err, want),
	      "rc %d after %u faults: '%s'", rc,
	      faults, err);
	ap_trace_reader_close(&r);
	unlink(path);
	free(file);
	free(big);
}

/* ---- format 2: faults and markers packed ---- */

#define PK_N 60000		/* faults and markers */

static uint64_t pk_rng = 0x9e3779b97f4a7c15ull;

static uint64_t pk_next(void)
{
	return test_xorshift64(&pk_rng);
}

/*
 * Event i of the packed test stream: mostly a storm (the next page, the same thread, ip and
 * vma, a few us later), with every field jumping now and then, to its extremes too; every
 * 50th a marker. Returns its record type.
 */
static uint32_t pk_event(int i, struct ap_rec_fault *f, struct ap_rec_marker *m)
{
	static const uint32_t mtypes[] = {
		AP_REC_RUN_BEGIN, AP_REC_OP_BEGIN, AP_REC_OP_END, AP_REC_RUN_END,
	};
	static const int32_t s32s[] = { INT32_MIN, INT32_MAX, -1, 0, 1 };
	uint64_t x;

	if (i == 0) {
		*f = ref_fault;
		pk_rng = 0x9e3779b97f4a7c15ull;
	}
	x = pk_next();
	f->ts_ns += 1000 + x % 3000;
	f->addr += 4096;
	if (x % 97 == 0)
		f->addr = pk_next();		/* anywhere, backwards too */
	if (x % 89 == 0)
		f->ip = pk_next();
	if (x % 83 == 0) {
		f->vm_start = pk_next();
		f->vm_end = pk_next();		/* below vm_start too: kept as written */
		f->vm_flags = pk_next();
	}
	if (x % 79 == 0)
		f->tid = (uint32_t)pk_next();
	if (x % 73 == 0)
		f->flags = (uint32_t)pk_next();
	if (x % 71 == 0)
		f->run = s32s[pk_next() % 5];
	if (x % 67 == 0)
		f->op = (int32_t)pk_next();
	if (x % 61 == 0)
		f->ts_ns = pk_next();		/* time out of order */
	if (i % 50 != 49)
		return AP_REC_FAULT;
	*m = (struct ap_rec_marker){ .ts_ns = f->ts_ns + 1, .tid = f->tid, .run = f->run,
				     .op = s32s[x % 5] };
	return mtypes[(i / 50) % 4];
}

static void test_packed(void)
{
	char path[TMP_PATH_LEN], err[AP_ERR_LEN] = "";
	struct ap_trace_writer w;
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	struct ap_rec_fault f = { 0 }, storm = ref_fault;
	struct ap_rec_marker m = { 0 }, padded = marker(5, 1, 2);
	struct ap_rec_sample smp = ref_sample;
	uint64_t storm_bytes, blocks = 0, block_end[64], in_block[64] = { 0 };
	uint32_t type, bad = 0, n = 0, packed = 0, samples = 0;
	int rc, i;

	tmp_path(path, "packed.aptrace");
	/* the storm alone: bytes a fault */
	rc = ap_trace_create(&w, path, &ref_hdr, hdr_strings, err);
	storm_bytes = w.bytes;
	for (i = 0; !rc && i < 262144; i++) {
		storm.ts_ns += 1500 + i % 1000;
		storm.addr += 4096;
		rc = ap_trace_write(&w, AP_REC_FAULT, &storm, sizeof(storm), err);
	}
	rc = rc ? rc : ap_trace_close(&w, err);
	storm_bytes = w.bytes - storm_bytes;
	CHECK("packed: a 262144-fault storm at most 8 bytes a fault",
	      !rc && storm_bytes <= 8 * 262144ull, "rc %d, %.2f bytes a fault (%s)", rc,
	      (double)storm_bytes / 262144, err);

	/* the mixed stream, a sample every 10000 events and a marker with a pad */
	rc = ap_trace_create(&w, path, &ref_hdr, hdr_strings, err);
	for (i = 0; !rc && i < PK_N; i++) {
		type = pk_event(i, &f, &m);
		rc = ap_trace_write(&w, type, type == AP_REC_FAULT ? (void *)&f : (void *)&m,
				    type == AP_REC_FAULT ? sizeof(f) : sizeof(m), err);
		if (!rc && i % 10000 == 9999)
			rc = ap_trace_write(&w, AP_REC_SAMPLE, &smp, sizeof(smp), err);
	}
	padded.pad = 7;
	rc = rc ? rc : ap_trace_write(&w, AP_REC_OP_BEGIN, &padded, sizeof(padded), err);
	rc = rc ? rc : ap_trace_close(&w, err);
	rc = rc ? rc : ap_trace_open(&r, path, err);
	CHECK("packed: write 60000 faults and markers", rc == 0, "%s", err);
	if (rc)
		return;
	for (i = 0; (rc = ap_trace_next(&r, &rec, err)) == 1; ) {
		/* format 4: every record is in a block, the blocks end only when full */
		packed += rec.packed;
		if (blocks < 64 && (!blocks || block_end[blocks - 1] != r.offset))
			block_end[blocks++] = r.offset;
		if (blocks <= 64)
			in_block[blocks - 1]++;
		if (rec.type == AP_REC_SAMPLE) {
			samples++;
			bad += i % 10000 != 0 || memcmp(rec.payload, &smp, sizeof(smp));
			continue;
		}
		if (i == PK_N) {
			bad += rec.type != AP_REC_OP_BEGIN ||
			       memcmp(rec.payload, &padded, sizeof(padded));
			i++;
			continue;
		}
		type = pk_event(i++, &f, &m);
		if (rec.type != type || rec.payload[rec.len] != 0 ||
		    rec.len != (type == AP_REC_FAULT ? sizeof(f) : sizeof(m)) ||
		    memcmp(rec.payload, type == AP_REC_FAULT ? (void *)&f : (void *)&m, rec.len)) {
			if (!bad++)
				printf("  first difference: event %d, type %u, want %u\n", i - 1,
				       rec.type, type);
		}
	}
	CHECK("packed: every fault and marker read back as written, in order, the others "
	      "between them, all packed", rc == 0 && i == PK_N + 1 && !bad &&
	      samples == PK_N / 10000 && packed == PK_N + samples + 1,
	      "rc %d, %d events, %u packed, %u samples, %u wrong (%s)", rc, i, packed, samples,
	      bad, err);
	ap_trace_reader_close(&r);

	/* a scan for faults only returns faults, all of them */
	rc = ap_trace_open(&r, path, err);
	for (n = 0, bad = 0; !rc && ap_trace_scan(&r, &rec, 1ull << AP_REC_FAULT, err) == 1; n++)
		bad += rec.type != AP_REC_FAULT;
	CHECK_EQ_I64("packed: a scan for faults: the faults only", n * !bad * !rc,
		     PK_N - PK_N / 50);
	ap_trace_reader_close(&r);

	/* one bit of the third block flipped: salvage loses exactly that block's records */
	{
		uint8_t *file;
		size_t size;
		uint64_t at = block_end[2] - 20, lost = in_block[2];

		file = slurp(path, &size);
		if (!file || blocks < 4) {
			CHECK("packed: salvage", 0, "%u blocks", (unsigned)blocks);
			free(file);
			unlink(path);
			return;
		}
		file[at] ^= 4;
		n = 0;
		rc = !spit(path, file, size);
		rc = rc ? rc : ap_trace_open(&r, path, err);
		r.salvage = true;
		while (!rc && (rc = ap_trace_next(&r, &rec, err) - 1) == 0)
			n += rec.packed;
		rc = rc == -1 ? 0 : rc;
		CHECK("packed: salvage skips exactly the damaged block",
		      rc == 0 && n == packed - lost && r.salvage_gaps == 1 &&
		      r.salvaged_bytes == block_end[2] - block_end[1],
		      "rc %d, %u events of %d, %" PRIu64 " in the block, %" PRIu64 " bytes skipped",
		      rc, n, PK_N, lost, r.salvaged_bytes);
		ap_trace_reader_close(&r);
		file[at] ^= 4;

		/* cut inside the third block: the events of the two before it, truncated */
		rc = !spit(path, file, (size_t)at);
		rc = rc ? rc : ap_trace_open(&r, path, err);
		n = 0;
		while (!rc && (rc = ap_trace_next(&r, &rec, err) - 1) == 0)
			n += rec.packed;
		rc = rc == -1 ? 0 : rc;
		CHECK("packed: a cut block: every event of the whole blocks before it",
		      rc == 0 && r.truncated && n == in_block[0] + in_block[1],
		      "rc %d, %u events, truncated %d", rc, n, r.truncated);
		ap_trace_reader_close(&r);
		free(file);
	}
	unlink(path);
}

/* Writes snapshot k of ms_map (as snapshot number snap) and a few faults of its own. */
static int cut_part(struct ap_trace_writer *w, int k, uint32_t snap, uint64_t ts, char *err)
{
	struct ap_rec_mapping m;
	char mp[96];
	int n = ms_map(k, MS_N, &m, mp, sizeof(mp)), rc = 0;

	for (int i = 0; !rc && i < n; i++) {
		ms_map(k, i, &m, mp, sizeof(mp));
		m.snapshot = snap;
		rc = ap_trace_write_str(w, AP_REC_MAPPING, &m, sizeof(m), mp, err);
	}
	for (int i = 0; !rc && i < 50; i++) {
		struct ap_rec_fault f = ref_fault;

		f.ts_ns = ts + (uint64_t)i * 1000;
		f.addr += 4096u * (uint64_t)i;
		rc = ap_trace_write(w, AP_REC_FAULT, &f, sizeof(f), err);
	}
	return rc;
}

/*
 * The live view's save: one trace whole, then another's records from a cut on (its
 * preamble left out). What follows the cut reads on without the preamble, after the
 * first trace's own records: its first block a key block, its next snapshot whole.
 */
static void test_cut(void)
{
	char a[TMP_PATH_LEN], b[TMP_PATH_LEN], err[AP_ERR_LEN] = "";
	struct rrec *got = NULL, *want = NULL, *wb = NULL;
	size_t ngot = 0, nwant = 0, nwb = 0, sa = 0, sb = 0;
	struct ap_trace_writer w;
	struct ap_trace_reader r;
	uint64_t cut_at = 0;
	uint8_t *fa = NULL, *fb = NULL;
	int rc;

	tmp_path(a, "cut-a.aptrace");
	tmp_path(b, "cut-b.aptrace");
	rc = ap_trace_create(&w, a, &ref_hdr, hdr_strings, err);
	rc = rc ? rc : cut_part(&w, 0, 5, 1000000, err);
	rc = rc ? rc : ap_trace_close(&w, err);
	/* the second: the preamble (snapshot 5 again, other faults), the cut, its own */
	rc = rc ? rc : ap_trace_create(&w, b, &ref_hdr, hdr_strings, err);
	rc = rc ? rc : cut_part(&w, 0, 5, 9000000, err);
	rc = rc ? rc : ap_trace_cut(&w, err);
	cut_at = w.bytes;
	rc = rc ? rc : cut_part(&w, 1, 6, 2000000, err);
	rc = rc ? rc : ap_trace_close(&w, err);
	fa = rc ? NULL : slurp(a, &sa);
	fb = rc ? NULL : slurp(b, &sb);
	if (fa && fb && cut_at <= sb) {
		uint8_t *both = malloc(sa + sb - cut_at);

		if (both) {
			memcpy(both, fa, sa);
			memcpy(both + sa, fb + cut_at, sb - cut_at);
			rc = !spit(b, both, sa + sb - cut_at) ? -1 : 0;
			free(both);
		}
		/* what it should read: the first trace's records, then the second's own */
		if (!rc && !ap_trace_open(&r, a, err)) {
			want = read_all(&r, &nwant, err);
			ap_trace_reader_close(&r);
		}
		rc = rc || ap_trace_open(&r, b, err) ? -1 : 0;
		if (!rc) {
			got = read_all(&r, &ngot, err);
			ap_trace_reader_close(&r);
		}
	}
	/* the second trace's own records, written again on their own */
	if (!rc && !ap_trace_create(&w, a, &ref_hdr, hdr_strings, err) &&
	    !cut_part(&w, 1, 6, 2000000, err) && !ap_trace_close(&w, err) &&
	    !ap_trace_open(&r, a, err)) {
		wb = read_all(&r, &nwb, err);
		ap_trace_reader_close(&r);
	}
	CHECK("format 4: a trace, then another's records from a cut on: read as written",
	      got && want && wb && ngot == nwant + nwb && !differ(got, nwant, want, nwant) &&
	      !differ(got + nwant, nwb, wb, nwb), "%zu records, want %zu + %zu (%s)", ngot,
	      nwant, nwb, err);
	free_all(got, ngot);
	free_all(want, nwant);
	free_all(wb, nwb);
	free(fa);
	free(fb);
	unlink(a);
	unlink(b);
}

#define AMP_N 6000		/* mappings naming one 4000-byte path, a few bytes each */

/*
 * A hostile snapshot: thousands of mappings, a few bytes each in the file, each naming
 * the block's 4000-byte path. The reader returns them all but keeps at most 16 MiB of a
 * snapshot: past that it is not one to copy from, and a copy of it is refused.
 */
static void test_map_amplified(void)
{
	size_t cap = 4096 + AMP_N * 8 + 64, n = 0, got = 0;
	char path[TMP_PATH_LEN], err[AP_ERR_LEN] = "";
	uint8_t *blk = malloc(cap), *file = NULL, hdr[12];
	struct ap_trace_writer w;
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	size_t size = 0;
	int rc;

	tmp_path(path, "amplified.aptrace");
	if (!blk) {
		CHECK("format 4: a hostile snapshot", 0, "out of memory");
		return;
	}
	blk[n++] = 0;				/* a key block */
	blk[n++] = 0x07;			/* a mapping of snapshot 1, its path inline */
	blk[n++] = 0;				/* ts + 0 */
	blk[n++] = 2;				/* snapshot 0 + 1 */
	memcpy(blk + n, "\x00\x80\x20\x00\x00\x00\x00\x00", 8);	/* start, 4096, ... */
	n += 8;
	memset(blk + n, 'a', 4000);
	n += 4000;
	blk[n++] = 0;
	for (int i = 1; i < AMP_N; i++) {
		/* same time, snapshot and file; the path by number 0 */
		memcpy(blk + n, "\x77\x00\x80\x20\x00\x00\x00", 7);
		n += 7;
	}
	/* snapshot 2: a copy of the whole of snapshot 1 */
	memcpy(blk + n, "\x0f\x00\x02\x01\xf0\x2e\x00\xf0\x2e", 9);	/* 6000: f0 2e */
	n += 9;
	rc = ap_trace_create(&w, path, &ref_hdr, hdr_strings, err);
	rc = rc ? rc : ap_trace_close(&w, err);
	file = rc ? NULL : slurp(path, &size);
	if (file) {
		uint8_t *f2 = realloc(file, size + 12 + n);

		if (f2) {
			file = f2;
			put32(hdr, AP_REC_PACKED);
			put32(hdr + 4, (uint32_t)n);
			put32(hdr + 8, (uint32_t)crc32(crc32(0, hdr, 8), blk, (uInt)n));
			memcpy(file + size, hdr, 12);
			memcpy(file + size + 12, blk, n);
			rc = !spit(path, file, size + 12 + n);
		}
	}
	rc = rc ? rc : ap_trace_open(&r, path, err);
	while (!rc && (rc = ap_trace_next(&r, &rec, err)) == 1) {
		got += rec.type == AP_REC_MAPPING &&
		       rec.len == sizeof(struct ap_rec_mapping) + 4001;
		rc = 0;
	}
	CHECK("format 4: a hostile snapshot of 6000 mappings of a 4000-byte path: all read, "
	      "then a copy of it refused (the reader kept 16 MiB of it, not 24)",
	      rc == -EINVAL && got == AMP_N && strstr(err, "does not decode"), "rc %d, %zu mappings "
	      "read: %s", rc, got, err);
	if (rc <= 0)
		ap_trace_reader_close(&r);
	free(file);
	free(blk);
	unlink(path);
}

/* A PACKED record that passes its crc but holds no entry (a writer's bug): one line. */
static void test_packed_malformed(void)
{
	static const struct { uint8_t len, b[8]; } bodies[] = {
		{ 1, { 0x00 } },		/* an escape cut after its tag */
		{ 1, { 0x06 } },		/* an allocation cut after its tag */
		{ 2, { 0x23, 0x01 } },		/* a marker with an ip */
		{ 2, { 0x01, 0x80 } },		/* a fault cut inside its time */
		{ 4, { 0x11, 0xff, 0xff, 0x7f } }, /* run -1 + (2^20 - 1) / -2: fine; op cut */
		{ 3, { 0x00, 0x01, 0x00 } },	/* an escaped header */
		{ 3, { 0x08, 0x02, 0x00 } },	/* a delta of a fault */
		{ 2, { 0x47, 0x00 } },		/* a mapping's tag with a bit of no meaning */
		/* mappings copied from snapshot 1, of 5, which this reader never saw */
		{ 7, { 0x0f, 0x00, 0x04, 0x01, 0x05, 0x00, 0x01 } },
		{ 7, { 0x2f, 0x00, 0x04, 0x01, 0x05, 0x00, 0x01 } }, /* a copy with a path */
		{ 0, { 0 } },	/* the block continues one this reader did not read */
		{ 0, { 1 } },	/* a block said deflated that is not */
	};
	char path[TMP_PATH_LEN], err[AP_ERR_LEN], name[96];
	uint8_t file[512], *p;
	int bad = 0;

	tmp_path(path, "malformed.aptrace");
	for (size_t b = 0; b < sizeof(bodies) / sizeof(bodies[0]); b++) {
		struct ap_trace_writer w;
		struct ap_trace_reader r;
		struct ap_trace_rec rec;
		size_t size = 0, len = bodies[b].len;
		bool cont = !len;
		uint64_t at;
		uint32_t crc;
		int rc, n = 0;
		FILE *f;

		err[0] = 0;
		rc = ap_trace_create(&w, path, &ref_hdr, hdr_strings, err);
		rc = rc ? rc : ap_trace_close(&w, err);
		f = rc ? NULL : fopen(path, "rb");
		size = f ? fread(file, 1, sizeof(file) - 64, f) : 0;
		if (f)
			fclose(f);
		at = size;
		p = file + size;
		/* a key block: one fault, packed, first: it decodes; then the bad entry */
		memcpy(p + 12, !cont ? "\x00\x01\x02\x04" : bodies[b].b[0] ? "\x02\x03\x02\x04" :
		       "\x01\x01\x02\x04", 4);
		memcpy(p + 16, bodies[b].b, len);
		put32(p, AP_REC_PACKED);
		put32(p + 4, (uint32_t)(4 + len));
		crc = (uint32_t)crc32(0, p, 8);
		crc = (uint32_t)crc32(crc, p + 12, 4 + len);
		put32(p + 8, crc);
		size += 12 + 4 + len;
		if (!size || !spit(path, file, size) || ap_trace_open(&r, path, err)) {
			CHECK("packed: malformed entries", 0, "%s", err);
			return;
		}
		while ((rc = ap_trace_next(&r, &rec, err)) == 1)
			n++;
		snprintf(name, sizeof(name), "corrupt record at offset %" PRIu64 ": packed "
			 "entry %d does not decode", at, !cont);
		bad += rc != -EINVAL || n != !cont || !strstr(err, name) || !one_line(err);
		ap_trace_reader_close(&r);
		if (!ap_trace_open(&r, path, err)) {
			r.salvage = true;
			for (n = 0; (rc = ap_trace_next(&r, &rec, err)) == 1; )
				n++;
			bad += rc != 0 || n != !cont || r.salvaged_bytes != (cont ? 4 : len);
			ap_trace_reader_close(&r);
		}
	}
	CHECK("packed: an entry that does not decode: one line naming its block, or with "
	      "salvage the rest of the block skipped", !bad, "%d cases wrong: %s", bad, err);
	unlink(path);
}

static void test_writer_errors(void)
{
	char path[TMP_PATH_LEN];
	char err[AP_ERR_LEN] = "";
	struct ap_trace_writer w;
	struct ap_trace_reader r;
	struct xrec got[MAX_X];
	uint8_t *big;
	int rc, fd, n = 0;

	tmp_path(path, "werr.aptrace");
	/* a record over the limit: refused, nothing written, the writer still works */
	rc = ap_trace_create(&w, path, &ref_hdr, hdr_strings, err);
	big = calloc(1, AP_TRACE_MAX_PAYLOAD + 1);
	if (!rc && big) {
		rc = ap_trace_write(&w, AP_REC_NOTE, big, AP_TRACE_MAX_PAYLOAD + 1, err);
		CHECK("trace: a record over the limit is refused, the writer goes on",
		      rc == -EINVAL && !w.failed && strstr(err, "too large"), "rc %d '%s'", rc, err);
		rc = ap_trace_write_str(&w, AP_REC_NOTE, big, AP_TRACE_MAX_PAYLOAD, "x", err);
		CHECK("trace: struct and string over the limit refused", rc == -EINVAL && !w.failed,
		      "rc %d", rc);
		rc = ap_trace_write(&w, AP_REC_FAULT, &ref_fault, sizeof(ref_fault), err);
		rc = rc ? rc : ap_trace_flush(&w, err);
		CHECK("trace: write after a refused record", rc == 0 && w.records == 2, "%s",
		      err);
	}
	free(big);

	/* the file's descriptor now writes to /dev/full: the next flush fails */
	fd = open("/dev/full", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || !w.f) {
		printf("SKIP: trace: ENOSPC mid-stream: no /dev/full (%s)\n", strerror(errno));
		ap_trace_close(&w, err);
	} else {
		dup2(fd, fileno(w.f));
		close(fd);
		rc = ap_trace_write(&w, AP_REC_DROPS, &ref_drops, sizeof(ref_drops), err);
		if (!rc)
			rc = ap_trace_flush(&w, err);
		CHECK("trace: ENOSPC at flush: -ENOSPC, failed set, a clear message",
		      rc == -ENOSPC && w.failed && w.error == ENOSPC &&
		      strstr(err, "No space left on device") && strstr(err, path) &&
		      one_line(err), "rc %d failed %d '%s'", rc, w.failed, err);
		rc = ap_trace_write(&w, AP_REC_FAULT, &ref_fault, sizeof(ref_fault), err);
		CHECK("trace: writes refused after a failure", rc == -ENOSPC &&
		      strstr(err, "earlier write failed"), "rc %d '%s'", rc, err);
		rc = ap_trace_flush(&w, err);
		CHECK("trace: flush refused after a failure", rc == -ENOSPC, "rc %d", rc);
		rc = ap_trace_close(&w, err);
		CHECK("trace: close says the trace is incomplete",
		      rc == -ENOSPC && strstr(err, "incomplete") && w.failed, "rc %d '%s'", rc, err);
		rc = ap_trace_open(&r, path, err);
		if (!rc)
			rc = read_rest(&r, got, MAX_X, &n, err);
		CHECK("trace: the trace before the failure reads whole",
		      rc == 0 && n == 1 && got[0].type == AP_REC_FAULT && !r.truncated,
		      "rc %d n %d '%s'", rc, n, err);
		ap_trace_reader_close(&r);
	}

	/* a device is not an output (util/outfile.c); write errors are tested with EFBIG */
	if (access("/dev/full", W_OK)) {
		printf("SKIP: trace: create on /dev/full: not writable\n");
	} else {
		rc = ap_trace_create(&w, "/dev/full", &ref_hdr, hdr_strings, err);
		CHECK("trace: create on a device (/dev/full): refused, failed set",
		      rc == -EINVAL && w.failed && !w.f && strstr(err, "/dev/full: not a regular file"),
		      "rc %d failed %d '%s'", rc, w.failed, err);
		rc = ap_trace_write(&w, AP_REC_FAULT, &ref_fault, sizeof(ref_fault), err);
		CHECK("trace: no write after a failed create", rc == -EINVAL, "rc %d", rc);
		CHECK("trace: close after a failed create", ap_trace_close(&w, err) == 0, "%s",
		      err);
	}
	rc = ap_trace_create(&w, "/nonexistent/dir/t.aptrace", &ref_hdr, NULL, err);
	CHECK("trace: create in a missing directory", rc == -ENOENT && w.failed &&
	      strstr(err, "No such file"), "rc %d '%s'", rc, err);
	ap_trace_close(&w, NULL);
	unlink(path);
}

/*
 * A child writes faults numbered from 0 under RLIMIT_FSIZE: a write fails with EFBIG in
 * the middle of a record. The file must hold faults 0..k-1 whole, then perhaps a part.
 */
static void test_efbig(void)
{
	char path[TMP_PATH_LEN];
	char err[AP_ERR_LEN] = "";
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	int status = 0, rc, n = 0, bad = 0;
	const off_t limit = 10007;
	struct stat st;
	pid_t pid;

	tmp_path(path, "efbig.aptrace");
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct rlimit rl = { limit, limit };
		struct ap_trace_writer w;
		struct ap_rec_fault f = ref_fault;
		uint64_t i;

		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &rl) ||
		    ap_trace_create(&w, path, &ref_hdr, hdr_strings, err))
			_exit(10);
		for (i = 0; i < 100000; i++) {
			f.ts_ns = i;
			if (ap_trace_write(&w, AP_REC_FAULT, &f, sizeof(f), err) ||
			    (i % 7 == 6 && ap_trace_flush(&w, err)))
				break;
		}
		if (i == 100000 || !w.failed || w.error != EFBIG ||
		    !strstr(err, "File too large"))
			_exit(11);
		if (!ap_trace_write(&w, AP_REC_FAULT, &f, sizeof(f), err) ||
		    !ap_trace_close(&w, err))
			_exit(12);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	CHECK("trace: EFBIG mid-record: failed set, EFBIG reported, later writes refused",
	      WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	rc = ap_trace_open(&r, path, err);
	if (rc) {
		CHECK("trace: EFBIG: the file reads", 0, "%s", err);
		return;
	}
	while ((rc = ap_trace_next(&r, &rec, err)) == 1) {
		struct ap_rec_fault f;

		ap_trace_get(&rec, &f, sizeof(f));
		bad += rec.type != AP_REC_FAULT || f.ts_ns != (uint64_t)n;
		n++;
	}
	stat(path, &st);
	CHECK("trace: EFBIG: every whole record up to the limit, then truncation",
	      rc == 0 && !bad && st.st_size <= limit &&
	      r.offset + 12 + sizeof(struct ap_rec_fault) > (uint64_t)st.st_size &&
	      r.truncated == (r.offset != (uint64_t)st.st_size),
	      "rc %d, %d faults, %d bad, size %lld, last whole record ends at %" PRIu64 " (%s)",
	      rc, n, bad, (long long)st.st_size, r.offset, err);
	ap_trace_reader_close(&r);
	unlink(path);
}

/* A child writes faults numbered from 0, flushing now and then, and is killed with -9. */
static void test_sigkill(void)
{
	char path[TMP_PATH_LEN];
	char err[AP_ERR_LEN] = "";
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	int pfd[2], status = 0, rc, n = 0, bad = 0;
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	pid_t pid;
	char c = 0;

	tmp_path(path, "killed.aptrace");
	if (pipe(pfd)) {
		CHECK("trace: SIGKILL mid-stream", 0, "pipe: %s", strerror(errno));
		return;
	}
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct ap_trace_writer w;
		struct ap_rec_fault f = ref_fault;
		uint64_t i;

		close(pfd[0]);
		if (ap_trace_create(&w, path, &ref_hdr, hdr_strings, err))
			_exit(10);
		for (i = 0;; i++) {
			f.ts_ns = i;
			f.addr = i * 4096;
			if (ap_trace_write(&w, AP_REC_FAULT, &f, sizeof(f), err))
				_exit(11);
			if (i % 100 == 99 && ap_trace_flush(&w, err))
				_exit(12);
			if (i == 2099 && write(pfd[1], "x", 1) != 1)
				_exit(13);
			if (i == 4000000)
				pause();	/* about 300 MB: wait to be killed */
		}
	}
	close(pfd[1]);
	if (read(pfd[0], &c, 1) == 1)
		nanosleep(&ts, NULL);
	close(pfd[0]);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	CHECK("trace: the writer was killed by SIGKILL mid-stream",
	      c == 'x' && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
	      "status %#x", status);
	rc = ap_trace_open(&r, path, err);
	if (rc) {
		CHECK("trace: a killed writer's trace opens", 0, "%s", err);
		return;
	}
	while ((rc = ap_trace_next(&r, &rec, err)) == 1) {
		struct ap_rec_fault f;

		ap_trace_get(&rec, &f, sizeof(f));
		bad += rec.type != AP_REC_FAULT || f.ts_ns != (uint64_t)n ||
		       f.addr != (uint64_t)n * 4096;
		n++;
	}
	CHECK("trace: a killed writer's trace reads up to its last whole record",
	      rc == 0 && !bad && n >= 2100 && !r.saw_end,
	      "rc %d, %d faults, %d bad, truncated %d (%s)", rc, n, bad, r.truncated, err);
	printf("  (killed after %d whole faults; the file %s)\n", n,
	       r.truncated ? "ends inside a record" : "ends on a record boundary");
	ap_trace_reader_close(&r);
	unlink(path);
}

#ifdef TEST_TRACE_WRITE_SEEDS
/* The start of test_packed's stream, packed, with a sample between two blocks. */
static int write_packed_seed(const char *path, char *err)
{
	struct ap_trace_writer w;
	struct ap_rec_fault f = { 0 };
	struct ap_rec_marker m = { 0 };
	uint32_t type;
	int rc = ap_trace_create(&w, path, &ref_hdr, hdr_strings, err);

	for (int i = 0; !rc && i < 300; i++) {
		type = pk_event(i, &f, &m);
		rc = ap_trace_write(&w, type, type == AP_REC_FAULT ? (void *)&f : (void *)&m,
				    type == AP_REC_FAULT ? sizeof(f) : sizeof(m), err);
		if (!rc && i == 150)
			rc = ap_trace_write(&w, AP_REC_SAMPLE, &ref_sample, sizeof(ref_sample),
					    err);
	}
	return rc ? rc : ap_trace_close(&w, err);
}

/*
 * Format 4's other entries: mapping snapshots (whole, changed, repeated), allocations
 * and their frees, samples and drops, in blocks that continue each other.
 */
static int write_v4_seed(const char *path, char *err)
{
	struct ap_trace_writer w;
	struct ap_rec_mapping m;
	struct ap_rec_sample smp = ref_sample;
	struct ap_rec_drops dr = ref_drops;
	char mp[96];
	int rc = ap_trace_create(&w, path, &ref_hdr, hdr_strings, err);

	for (int k = 0; !rc && k < 3; k++) {
		int n = ms_map(k, MS_N, &m, mp, sizeof(mp));

		for (int i = 0; !rc && i < n; i += 1 + (i > 20) * 9) {
			ms_map(k, i, &m, mp, sizeof(mp));
			rc = ap_trace_write_str(&w, AP_REC_MAPPING, &m, sizeof(m), mp, err);
		}
		for (int i = 0; !rc && i < 4; i++) {
			struct ap_rec_alloc a = ref_alloc;

			a.ptr += 4096u * (uint64_t)i;
			a.fn = i % 2 ? AP_ALLOC_FREE : 1;
			a.align = 0;
			rc = ap_trace_write(&w, AP_REC_ALLOC, &a, sizeof(a), err);
		}
		smp.ts_ns += 100000000;
		smp.vm_rss += 4096;
		dr.ts_ns = smp.ts_ns;
		dr.events += 10;
		rc = rc ? rc : ap_trace_write(&w, AP_REC_SAMPLE, &smp, sizeof(smp), err);
		rc = rc ? rc : ap_trace_write(&w, AP_REC_DROPS, &dr, sizeof(dr), err);
		rc = rc ? rc : ap_trace_flush(&w, err);
	}
	return rc ? rc : ap_trace_close(&w, err);
}

/*
 * tests/fuzz/run-fuzz builds this file with TEST_TRACE_WRITE_SEEDS to seed the trace
 * fuzzer: the reference trace, the same with unknown record types, a cut one, and one
 * with every crc 0 (which the fuzzing build lets through, so that mutations of it reach
 * the code after the crc check).
 */
int main(int argc, char **argv)
{
	char path[4096], err[AP_ERR_LEN] = "";
	uint8_t *b;
	size_t size;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	snprintf(path, sizeof(path), "%s/unknown.aptrace", argv[1]);
	if (write_reference(path, true, err))
		goto fail;
	snprintf(path, sizeof(path), "%s/reference.aptrace", argv[1]);
	if (write_reference(path, false, err))
		goto fail;
	b = slurp(path, &size);
	snprintf(path, sizeof(path), "%s/cut.aptrace", argv[1]);
	if (!b || !spit(path, b, size - 5)) {
		snprintf(err, sizeof(err), "%s: %s", path, strerror(errno));
		goto fail;
	}
	for (int i = 0; i < nx; i++)
		memset(b + xoff[i] + 8, 0, 4);
	snprintf(path, sizeof(path), "%s/nocrc.aptrace", argv[1]);
	if (!spit(path, b, size)) {
		snprintf(err, sizeof(err), "%s: %s", path, strerror(errno));
		goto fail;
	}
	free(b);
	snprintf(path, sizeof(path), "%s/packed.aptrace", argv[1]);
	if (write_packed_seed(path, err))
		goto fail;
	snprintf(path, sizeof(path), "%s/v4.aptrace", argv[1]);
	if (write_v4_seed(path, err))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "%s\n", err);
	return 1;
}
#else
/* Removes this process's files, also those a failed test left behind. */
/* ---- salvage ---- */

/*
 * Every bit of every record after the header flipped in turn, read with salvage from a
 * file: exactly the damaged record is lost, every other one read unchanged and in order,
 * and its bytes are what was skipped (a length flipped past the end of the file in the
 * last record stays truncation, nothing skipped). The records it held are an estimate
 * by the mean record size: at least one, at most one per 12 bytes.
 */
static void test_salvage_flips(void)
{
	char path[TMP_PATH_LEN], first[512] = "";
	char err[AP_ERR_LEN] = "";
	struct xrec got[MAX_X];
	uint8_t *file;
	size_t size;
	int fails = 0, tried = 0, fd;

	tmp_path(path, "ref.aptrace");
	if (write_reference(path, false, err) || !(file = slurp(path, &size))) {
		CHECK("salvage: every bit flipped", 0, "cannot write the trace: %s", err);
		return;
	}
	tmp_path(path, "salvage.aptrace");
	fd = spit(path, file, size) ? open(path, O_WRONLY) : -1;
	for (size_t b = xoff[1]; fd >= 0 && b < size; b++) {
		for (int bit = 0; bit < 8; bit++) {
			struct ap_trace_reader r;
			int ri = rec_at(b), n = 0, rc, k = 0;
			bool in_len = b >= xoff[ri] + 4 && b < xoff[ri] + 8;
			uint64_t rsize = xoff[ri + 1] - xoff[ri];
			char why[300] = "";

			/* the byte rewritten in place: one pwrite, not a new file each time */
			file[b] ^= (uint8_t)(1u << bit);
			if (pwrite(fd, file + b, 1, (off_t)b) != 1 || ap_trace_open(&r, path, err)) {
				snprintf(why, sizeof(why), "cannot open: %s", err);
			} else {
				r.salvage = true;
				rc = read_rest(&r, got, MAX_X, &n, err);
				for (int i = 1; i < nx && !why[0]; i++) {
					if (i == ri)
						continue;
					if (k >= n || !same(&got[k], &xs[i]))
						snprintf(why, sizeof(why), "record %d lost or changed",
							 i);
					k++;
				}
				if (why[0])
					;
				else if (rc || k != n)
					snprintf(why, sizeof(why), "rc %d, %d records for %d: %s",
						 rc, n, k, err);
				else if (ri == nx - 1 && in_len && r.truncated)
					why[0] = r.salvaged_bytes ? 'x' : 0;
				else if (r.salvaged_bytes != rsize || !r.salvaged_records ||
					 r.salvaged_records > rsize / AP_TRACE_REC_HDR_LEN ||
					 r.truncated)
					snprintf(why, sizeof(why), "skipped %" PRIu64 " bytes (%"
						 PRIu64 " records) for %" PRIu64 ", truncated %d",
						 r.salvaged_bytes, r.salvaged_records, rsize,
						 r.truncated);
				ap_trace_reader_close(&r);
			}
			file[b] ^= (uint8_t)(1u << bit);
			if (pwrite(fd, file + b, 1, (off_t)b) != 1)
				snprintf(why, sizeof(why), "cannot restore byte %zu", b);
			tried++;
			if (why[0] && !fails++)
				snprintf(first, sizeof(first), "byte %zu bit %d (record %d): %s", b,
					 bit, ri, why);
		}
	}
	CHECK("salvage: every bit flipped past the header: exactly its record skipped",
	      fd >= 0 && tried && !fails, "%d of %d flips wrong; first: %s", fails, tried,
	      fd < 0 ? "cannot write the trace" : first);
	if (fd >= 0)
		close(fd);
	free(file);
}

/*
 * A trace of 3 MiB: 40,000 faults around a 2 MiB NOTE (longer than the reader's window).
 * Damaged: the NOTE itself (a long record skipped whole), the fault just before it (the
 * search finds the NOTE, read past its window), a fault near the end (the search crosses
 * no window). Each loses exactly the damaged record.
 */
static void test_salvage_long(void)
{
	enum { NF = 40000, NOTE_AT = 20000 };
	char path[TMP_PATH_LEN], err[AP_ERR_LEN] = "";
	static char text[2 << 20];
	uint64_t off_note = 0, off_before = 0, off_late = 0, at;
	struct ap_trace_writer w;
	struct ap_rec_fault f = ref_fault;
	struct ap_rec_note note = ref_note;
	uint8_t *file;
	size_t size;

	memset(text, 'n', sizeof(text) - 1);
	tmp_path(path, "salvage.aptrace");
	if (ap_trace_create(&w, path, &ref_hdr, hdr_strings, err)) {
		CHECK("salvage: long records", 0, "%s", err);
		return;
	}
	w.plain = true;		/* the fault records are counted one by one */
	at = w.bytes;
	for (int i = 0; i < NF; i++) {
		if (i == NOTE_AT) {
			off_note = at;
			if (ap_trace_write_str(&w, AP_REC_NOTE, &note, sizeof(note), text, err))
				break;
			at = w.bytes;
		}
		if (i == NOTE_AT - 1)
			off_before = at;
		if (i == NF - 10)
			off_late = at;
		f.ts_ns = (uint64_t)i;
		if (ap_trace_write(&w, AP_REC_FAULT, &f, sizeof(f), err))
			break;
		at = w.bytes;
	}
	if (ap_trace_close(&w, err) || !(file = slurp(path, &size))) {
		CHECK("salvage: long records", 0, "%s", err);
		return;
	}
	for (int c = 0; c < 3; c++) {
		uint64_t off = c == 0 ? off_note : c == 1 ? off_before : off_late;
		uint64_t rsize = c == 0 ? AP_TRACE_REC_HDR_LEN + sizeof(note) + sizeof(text) :
			       AP_TRACE_REC_HDR_LEN + sizeof(f);
		uint64_t faults = 0, notes = 0, ts_sum = 0, want_sum = 0;
		const char *what = c == 0 ? "the 2 MiB NOTE" : c == 1 ? "the fault before it" :
				   "a fault near the end";
		struct ap_trace_reader r;
		struct ap_trace_rec rec;
		char name[160];
		int rc = -1, lost = c == 1 ? NOTE_AT - 1 : c == 2 ? NF - 10 : -1;

		file[off + AP_TRACE_REC_HDR_LEN + 3] ^= 0x10;
		if (spit(path, file, size) && !ap_trace_open(&r, path, err)) {
			r.salvage = true;
			while ((rc = ap_trace_next(&r, &rec, err)) == 1) {
				struct ap_rec_fault g;

				if (rec.type == AP_REC_NOTE)
					notes++;
				if (rec.type != AP_REC_FAULT)
					continue;
				ap_trace_get(&rec, &g, sizeof(g));
				faults++;
				ts_sum += g.ts_ns;
			}
			for (int i = 0; i < NF; i++)
				want_sum += i == lost ? 0 : (uint64_t)i;
			snprintf(name, sizeof(name), "salvage: damaged %s: exactly it skipped", what);
			CHECK(name, !rc && faults == NF - (lost >= 0) && ts_sum == want_sum &&
			      notes == (c != 0) && r.salvaged_bytes == rsize && !r.truncated,
			      "rc %d '%s', %" PRIu64 " faults, %" PRIu64 " notes, skipped %" PRIu64
			      " of %" PRIu64, rc, err, faults, notes, r.salvaged_bytes, rsize);
			ap_trace_reader_close(&r);
		} else {
			CHECK("salvage: long records", 0, "%s", err);
		}
		file[off + AP_TRACE_REC_HDR_LEN + 3] ^= 0x10;
	}
	free(file);
}

static void cleanup(void)
{
	static const char *const names[] = {
		"roundtrip.aptrace", "full.aptrace", "cut.aptrace", "flip.aptrace", "bad.aptrace",
		"ref.aptrace", "flags.aptrace", "unknown.aptrace", "growth.aptrace",
		"werr.aptrace", "efbig.aptrace", "killed.aptrace", "window.aptrace",
		"salvage.aptrace",
	};
	char path[TMP_PATH_LEN];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		unlink(tmp_path(path, names[i]));
}

int main(void)
{
	test_round_trip();
	test_v1_fixture();
	test_fixture_rewrite();
	test_map_snapshots();
	test_map_amplified();
	test_cut();
	test_truncation();
	test_bit_flips();
	test_refusals();
	test_unknown_types();
	test_payload_growth();
	test_windows_and_scan();
	test_packed();
	test_packed_malformed();
	test_writer_errors();
	test_efbig();
	test_sigkill();
	test_salvage_flips();
	test_salvage_long();
	cleanup();
	TEST_EXIT();
}
#endif
