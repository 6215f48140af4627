// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the trace's packed records (src/trace/): a fault storm's bytes a fault; a
 * stream of faults and markers whose every field jumps now and then, read back as written
 * and scanned, a damaged block salvaged and a cut one read up to it; a trace followed by
 * another's records from a cut on (the live view's save); a hostile snapshot of thousands
 * of mappings of one long path; packed entries that pass their crc and do not decode.
 * Files go to /tmp.
 *
 * Built with -DTEST_TRACE_WRITE_SEEDS (tests/fuzz/run-fuzz), it is instead the writer of
 * the trace fuzzer's seeds, at the end of this file.
 */
#include <errno.h>
#include <zlib.h>

#include "trace_fixture.h"

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
	      rc == -EINVAL && got == AMP_N && strstr(err, "does not decode"),
	      "rc %d, %zu mappings read: %s", rc, got, err);
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
 * the code after the crc check); then the two packed streams above.
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
static void cleanup(void)
{
	static const char *const names[] = {
		"packed.aptrace", "cut-a.aptrace", "cut-b.aptrace", "amplified.aptrace",
		"malformed.aptrace",
	};

	trace_cleanup(names, sizeof(names) / sizeof(names[0]));
}

int main(void)
{
	test_map_amplified();
	test_cut();
	test_packed();
	test_packed_malformed();
	cleanup();
	TEST_EXIT();
}
#endif
