// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the trace file (src/trace/layout.c, reader.c, writer.c), as written and
 * read back whole: every record type round trip, field by field and byte by byte on disk,
 * from a file and from a stream; the committed format-1 reference fixture, and the
 * committed traces of formats 1 and 2 rewritten by today's writer; mapping snapshots
 * (whole, changed, repeated, all new; a damaged one; after a rewind); and a trace of
 * several MiB read a window at a time, and scanned for one type. Damaged and foreign
 * input and the writer's failures are test_trace_damage.c's, the packed entries
 * test_trace_packed.c's. Files go to /tmp.
 */
#include <errno.h>
#include <zlib.h>

#include "trace_fixture.h"

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

/* Record i of the reference trace, read back: its fields, and the NUL after its payload. */
static void check_ref_record(const struct ap_trace_rec *rec, int i)
{
	switch (rec->type) {
	case AP_REC_FAULT: {
		struct ap_rec_fault f;

		ap_trace_get(rec, &f, sizeof(f));
		CHECK("trace: fault round trip",
		      !memcmp(&f, &ref_fault, sizeof(f)) && f.run == -1 && f.op == 17 &&
		      f.addr == 0x7f0011223000ull && f.flags == 0x3c5,
		      "ts %" PRIu64 " addr %" PRIx64 " run %d", f.ts_ns, f.addr, f.run);
		break;
	}
	case AP_REC_MAPPING: {
		struct ap_rec_mapping m;

		ap_trace_get(rec, &m, sizeof(m));
		CHECK("trace: mapping round trip, path",
		      !memcmp(&m, &ref_map, sizeof(m)) && m.dev_minor == 0x80001 &&
		      !strcmp(ap_trace_str(rec, sizeof(m)), ref_map_path),
		      "path '%s'", ap_trace_str(rec, sizeof(m)));
		break;
	}
	case AP_REC_RUN_BEGIN:
	case AP_REC_RUN_END:
	case AP_REC_OP_BEGIN:
	case AP_REC_OP_END: {
		struct ap_rec_marker m;

		ap_trace_get(rec, &m, sizeof(m));
		CHECK("trace: marker round trip", !memcmp(&m, xs[i].data, sizeof(m)) &&
		      m.tid == 123457 && m.run == 0 &&
		      m.op == (rec->type == AP_REC_OP_BEGIN || rec->type == AP_REC_OP_END ?
			       0 : -1), "type %u run %d op %d", rec->type, m.run, m.op);
		break;
	}
	case AP_REC_SAMPLE: {
		struct ap_rec_sample s;

		ap_trace_get(rec, &s, sizeof(s));
		CHECK("trace: sample round trip",
		      !memcmp(&s, &ref_sample, sizeof(s)) && s.swap == AP_NO_VALUE &&
		      s.psi_some_avg10 == 123 && s.cg_peak == 0x223456789aull,
		      "rss %" PRIu64 " swap %" PRIu64, s.rss, s.swap);
		break;
	}
	case AP_REC_DROPS: {
		struct ap_rec_drops d;

		ap_trace_get(rec, &d, sizeof(d));
		CHECK("trace: drops round trip", !memcmp(&d, &ref_drops, sizeof(d)) &&
		      d.vma_misses == 0x100000000ull, "events %" PRIu64, d.events);
		break;
	}
	case AP_REC_NOTE: {
		struct ap_rec_note nt;

		ap_trace_get(rec, &nt, sizeof(nt));
		CHECK("trace: note round trip, text",
		      !memcmp(&nt, &ref_note, sizeof(nt)) && nt.level == 1 &&
		      !strcmp(ap_trace_str(rec, sizeof(nt)), ref_note_text),
		      "text '%s'", ap_trace_str(rec, sizeof(nt)));
		break;
	}
	case AP_REC_RESIDENT: {
		struct ap_rec_resident rr;

		ap_trace_get(rec, &rr, sizeof(rr));
		CHECK("trace: resident round trip, bitmap with a NUL byte",
		      !memcmp(&rr, &ref_res, sizeof(rr)) &&
		      rec->len == sizeof(rr) + sizeof(ref_bitmap) &&
		      !memcmp(rec->payload + sizeof(rr), ref_bitmap, sizeof(ref_bitmap)),
		      "len %u present %" PRIu64, rec->len, rr.present);
		break;
	}
	case AP_REC_ALLOC: {
		struct ap_rec_alloc al;

		ap_trace_get(rec, &al, sizeof(al));
		CHECK("trace: allocation round trip", !memcmp(&al, &ref_alloc, sizeof(al)) &&
		      al.run == -1 && al.size == 1655872 && al.caller == 0x7f0055123456ull,
		      "ptr %" PRIx64 " size %" PRIu64, al.ptr, al.size);
		break;
	}
	case AP_REC_END: {
		struct ap_rec_end e;

		ap_trace_get(rec, &e, sizeof(e));
		CHECK("trace: end round trip", !memcmp(&e, &ref_end, sizeof(e)) &&
		      e.exit_status == -1 && e.term_signal == 9 && e.runs == 0x80000003u,
		      "reason %u status %d", e.reason, e.exit_status);
		break;
	}
	}
	CHECK("trace: payload followed by a NUL", rec->payload[rec->len] == 0, "no NUL");
}

/* The reference trace's bytes on disk (xoff[nx] of them), decoded by hand: the format. */
static void check_ref_bytes(const uint8_t *file)
{
	const uint8_t *p;
	int i, bad = 0;

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
	p = file + xoff[1] + 12;	/* the fault */
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

/* The reference trace at path read back, record by record; false when it does not open. */
static bool check_ref_read(const char *path)
{
	struct ap_trace_reader r;
	struct ap_trace_rec rec;
	char err[AP_ERR_LEN] = "";
	int i, rc, bad = 0;

	rc = ap_trace_open(&r, path, err);
	CHECK("trace: open", rc == 0, "%s", err);
	if (rc)
		return false;
	CHECK("trace: header record fields",
	      !memcmp(&r.hdr, &ref_hdr, sizeof(ref_hdr)) && r.version == 4,
	      "page %u pid %d version %u", r.hdr.page_size, r.hdr.pid, r.version);
	for (i = 0; i < 6; i++)
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
		check_ref_record(&rec, i);
	}
	rc = ap_trace_next(&r, &rec, err);
	CHECK("trace: clean end: 0, not truncated, END seen",
	      rc == 0 && !r.truncated && r.saw_end && r.offset == xoff[nx],
	      "rc %d truncated %d saw_end %d", rc, r.truncated, r.saw_end);
	rc = ap_trace_next(&r, &rec, err);
	CHECK("trace: after the end, 0 again", rc == 0 && !r.truncated, "rc %d", rc);
	ap_trace_reader_close(&r);
	ap_trace_reader_close(&r);	/* a second close is harmless */
	return true;
}

/* The reference trace at path read from a stream (fmemopen): the same records. */
static void check_ref_stream(const char *path)
{
	struct ap_trace_reader r;
	char err[AP_ERR_LEN] = "";
	struct xrec got[MAX_X];
	size_t size = 0;
	uint8_t *file = slurp(path, &size);
	FILE *f;
	int i, rc, n = 0, bad = 0;

	if (!file)
		return;
	f = fmemopen(file, size, "rb");
	rc = f ? ap_trace_open_stream(&r, f, "memory", err) : -1;
	if (!rc)
		rc = read_rest(&r, got, MAX_X, &n, err);
	for (i = 0; i < n && i + 1 < nx; i++)
		bad += !same(&got[i], &xs[i + 1]);
	CHECK("trace: read from a stream (fmemopen)", rc == 0 && n == nx - 1 && !bad,
	      "rc %d n %d bad %d %s", rc, n, bad, err);
	if (f)
		ap_trace_reader_close(&r);
	free(file);
}

/*
 * The reference trace written, its bytes decoded by hand, read back field by field (from
 * the file, then from a stream).
 */
static void test_round_trip(void)
{
	char path[TMP_PATH_LEN];
	char err[AP_ERR_LEN] = "";
	size_t size = 0;
	uint8_t *file;
	int rc;

	tmp_path(path, "roundtrip.aptrace");
	rc = write_reference(path, false, err);
	CHECK("trace: write every record type", rc == 0, "%s", err);
	file = slurp(path, &size);
	CHECK_EQ_I64("trace: file size is the sum of the records", size, xoff[nx]);
	if (!file || size != xoff[nx]) {
		free(file);
		return;
	}
	check_ref_bytes(file);
	free(file);
	if (!check_ref_read(path))
		return;
	check_ref_stream(path);
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

static void cleanup(void)
{
	static const char *const names[] = {
		"v1.aptrace", "rewrite.aptrace", "snapshots.aptrace", "roundtrip.aptrace",
		"window.aptrace",
	};

	trace_cleanup(names, sizeof(names) / sizeof(names[0]));
}

int main(void)
{
	test_round_trip();
	test_v1_fixture();
	test_fixture_rewrite();
	test_map_snapshots();
	test_windows_and_scan();
	cleanup();
	TEST_EXIT();
}
