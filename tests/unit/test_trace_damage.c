// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the trace reader and writer (src/trace/) against damage and foreign input:
 * the reference trace cut at every byte and every bit of it flipped; the reader's
 * refusals (not a trace, empty, a newer or a never-written version, the first record not
 * a header, a huge length); unknown record types; payloads of older and newer writers;
 * salvage past every flipped bit, and past damage in and around a record longer than the
 * reader's window; the writer's errors (a record over the limit, ENOSPC mid-stream, a
 * device refused, EFBIG from RLIMIT_FSIZE) and a writer killed with SIGKILL mid-stream.
 * Files go to /tmp.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>

#include "trace_fixture.h"

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
			CHECK("trace: after an error, the same error again", rc == -EINVAL, "rc %d",
			      rc);
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
		      rc == -EINVAL && !w.failed && strstr(err, "too large"), "rc %d '%s'", rc,
		      err);
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
		      rc == -ENOSPC && strstr(err, "incomplete") && w.failed, "rc %d '%s'", rc,
		      err);
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
		      rc == -EINVAL && w.failed && !w.f &&
		      strstr(err, "/dev/full: not a regular file"),
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
			if (pwrite(fd, file + b, 1, (off_t)b) != 1 ||
			    ap_trace_open(&r, path, err)) {
				snprintf(why, sizeof(why), "cannot open: %s", err);
			} else {
				r.salvage = true;
				rc = read_rest(&r, got, MAX_X, &n, err);
				for (int i = 1; i < nx && !why[0]; i++) {
					if (i == ri)
						continue;
					if (k >= n || !same(&got[k], &xs[i]))
						snprintf(why, sizeof(why),
							 "record %d lost or changed", i);
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
			snprintf(name, sizeof(name), "salvage: damaged %s: exactly it skipped",
				 what);
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
		"full.aptrace", "cut.aptrace", "flip.aptrace", "bad.aptrace", "ref.aptrace",
		"flags.aptrace", "unknown.aptrace", "growth.aptrace", "werr.aptrace",
		"efbig.aptrace", "killed.aptrace", "salvage.aptrace",
	};

	trace_cleanup(names, sizeof(names) / sizeof(names[0]));
}

int main(void)
{
	test_truncation();
	test_bit_flips();
	test_refusals();
	test_unknown_types();
	test_payload_growth();
	test_writer_errors();
	test_efbig();
	test_sigkill();
	test_salvage_flips();
	test_salvage_long();
	cleanup();
	TEST_EXIT();
}
