/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the trace tests share (test_trace.c, test_trace_damage.c, test_trace_packed.c):
 * files under /tmp, read and written whole; the reference trace, one record of every type
 * as write_reference writes it, with each record's offset; every record of a trace
 * copied, written again and compared; and the mapping snapshots of ms_map. Each test
 * binary is one translation unit, so the tables here are its own.
 */
#ifndef ARENAPROF_TRACE_FIXTURE_H
#define ARENAPROF_TRACE_FIXTURE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/event.h"
#include "arenaprof/util/err.h"
#include "arenaprof/trace/trace.h"
#include "test.h"

/* ---- helpers ---- */

#define TMP_PATH_LEN 256

/* buf (TMP_PATH_LEN bytes) = a file of this process under /tmp */
static inline char *tmp_path(char *buf, const char *name)
{
	snprintf(buf, TMP_PATH_LEN, "/tmp/arenaprof-test_trace.%d.%s", (int)getpid(), name);
	return buf;
}

static inline uint8_t *slurp(const char *path, size_t *size)
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

static inline bool spit(const char *path, const void *b, size_t n)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(b, 1, n, f) == n;
	return fclose(f) == 0 && ok;
}

static inline uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t le64(const uint8_t *p)
{
	return (uint64_t)le32(p) | (uint64_t)le32(p + 4) << 32;
}

static inline void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

/* One message line: non-empty, no control characters. */
static inline bool one_line(const char *s)
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

static inline void expect(uint32_t type, const void *p, size_t n, const void *tail, size_t tn)
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

static inline struct ap_rec_marker marker(uint64_t ts, int32_t run, int32_t op)
{
	struct ap_rec_marker m = { .ts_ns = ts, .tid = 123457, .run = run, .op = op };

	return m;
}

/*
 * Writes the reference trace to path: the header and one record of every type (four
 * markers), and fills xs[]. With extra, unknown record types are mixed in (written, not
 * expected back).
 */
static inline int write_reference(const char *path, bool extra, char *err)
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
static inline int read_rest(struct ap_trace_reader *r, struct xrec *got, int max, int *n,
			    char *err)
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

static inline bool same(const struct xrec *a, const struct xrec *b)
{
	return a->type == b->type && a->len == b->len && !memcmp(a->data, b->data, a->len);
}

/* The index of the record holding file byte b; -1 in the file header. */
static inline int rec_at(uint64_t b)
{
	for (int i = 0; i < nx; i++) {
		if (b >= xoff[i] && b < xoff[i + 1])
			return i;
	}
	return -1;
}

/* ---- every record of a trace, copied: read, written again, compared ---- */

struct rrec {
	uint32_t type, len;
	uint8_t *p;
};

/* Every record after the header of a trace, copied; n set; -1 with err on a bad read. */
static inline struct rrec *read_all(struct ap_trace_reader *r, size_t *n, char *err)
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

static inline void free_all(struct rrec *v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i].p);
	free(v);
}

/* Writes records as a recorder would: mappings and notes with their strings apart. */
static inline int write_all(struct ap_trace_writer *w, const struct rrec *v, size_t n, char *err)
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
static inline size_t differ(const struct rrec *a, size_t na, const struct rrec *b, size_t nb)
{
	size_t bad = na > nb ? na - nb : nb - na;

	for (size_t i = 0; i < na && i < nb; i++)
		bad += a[i].type != b[i].type || a[i].len != b[i].len ||
		       memcmp(a[i].p, b[i].p, a[i].len);
	return bad;
}

/* ---- mapping snapshots: each a change of the one before ---- */

#define MS_N 300		/* mappings in the first snapshot */
#define MS_FILL 4000		/* faults between the last two snapshots */

/* Snapshot k's mapping i (n set to its count): each a change of the one before. */
static inline int ms_map(int k, int i, struct ap_rec_mapping *m, char *path, size_t cap)
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

/* Removes this process's files, also those a failed test left behind. */
static inline void trace_cleanup(const char *const *names, size_t n)
{
	char path[TMP_PATH_LEN];

	for (size_t i = 0; i < n; i++)
		unlink(tmp_path(path, names[i]));
}

#endif
