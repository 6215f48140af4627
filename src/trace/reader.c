// SPDX-License-Identifier: Apache-2.0
/*
 * trace reader (include/arenaprof/trace/trace.h, man arenaprof-trace(5)). It takes any
 * bytes: every length is bounded, every payload is checked against its crc before it is
 * used, and a file that ends inside a record ends the stream as "truncated". With salvage
 * on, a record that fails its check is skipped to the next one that passes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"
#include "arenaprof/trace/trace.h"
#include "arenaprof/util/escape.h"
#include "layout.h"
#include "pack.h"

#define AP_TRACE_WINDOW (1u << 20)	/* bytes read at once */

enum { RD_READING, RD_ENDED, RD_FAILED };
enum { SYNC_BAD = 2, SYNC_CUT = 3 };	/* read_one in salvage mode: resynchronise */

/* The reader fails with code (a negative errno): every later call returns it again. */
static int failed(struct ap_trace_reader *r, int code)
{
	r->state = RD_FAILED;
	r->error = code;
	return code;
}

static int read_failed(struct ap_trace_reader *r, char *err)
{
	int e = errno ? errno : EIO;

	ap_seterr(err, "%s: read error: %s", r->path, strerror(e));
	return failed(r, -e);
}

static int corrupt(struct ap_trace_reader *r, char *err, const char *why)
{
	ap_seterr(err, "%s: corrupt record at offset %" PRIu64 ": %s", r->path, r->offset, why);
	return failed(r, -EINVAL);
}

static int ended(struct ap_trace_reader *r, bool truncated)
{
	r->truncated = truncated;
	r->state = RD_ENDED;
	return 0;
}

/* Makes room for n payload bytes and the NUL after them (n <= AP_TRACE_MAX_PAYLOAD). */
static int reserve(struct ap_trace_reader *r, uint32_t n, char *err)
{
	uint8_t *b;

	if (r->cap > n)
		return 0;
	b = realloc(r->buf, (size_t)n + 1);
	if (!b) {
		ap_seterr(err, "%s: out of memory reading a %u-byte record", r->path, n);
		return failed(r, -ENOMEM);
	}
	r->buf = b;
	r->cap = n + 1;
	return 0;
}

/*
 * Makes n bytes available at r->win + r->pos (n <= AP_TRACE_WINDOW), reading the file a
 * window at a time: one fread per MiB, not two per record (they were a quarter of a pass).
 * Returns the bytes available, fewer than n at the end of the file; -1 on a read error.
 */
static int64_t fill(struct ap_trace_reader *r, uint32_t n)
{
	uint32_t have = r->win_len - r->pos;
	size_t got;

	if (have >= n)
		return have;
	if (!r->win) {
		r->win = malloc(AP_TRACE_WINDOW);
		if (!r->win)
			return -1;
	}
	memmove(r->win, r->win + r->pos, have);
	r->pos = 0;
	r->win_len = have;
	errno = 0;
	got = fread(r->win + have, 1, AP_TRACE_WINDOW - have, r->f);
	r->win_len += (uint32_t)got;
	if (r->win_len < n && ferror(r->f))
		return -1;
	return r->win_len;
}

/*
 * A payload longer than the window: what the window holds, then the rest read straight
 * into r->buf, which grows with the bytes actually read (at most twice them), so a length
 * that runs past the end of a short file costs no large allocation. 1, 0 (cut), -errno.
 */
static int read_long(struct ap_trace_reader *r, uint32_t len, char *err)
{
	uint32_t have = r->win_len - r->pos;
	size_t n;
	int rc;

	rc = reserve(r, have, err);
	if (rc)
		return rc;
	memcpy(r->buf, r->win + r->pos, have);
	r->pos = r->win_len;
	while (have < len) {
		uint32_t want = len;

		if (len - have > (64u << 10) && have < len / 2)
			want = have > (32u << 10) ? 2 * have : 64u << 10;
		rc = reserve(r, want, err);
		if (rc)
			return rc;
		errno = 0;
		n = fread(r->buf + have, 1, want - have, r->f);
		have += (uint32_t)n;
		if (have < want) {
			if (ferror(r->f))
				return read_failed(r, err);
			return r->salvage ? 0 : ended(r, true);	/* salvage: SYNC_CUT */
		}
	}
	return 1;
}

/*
 * Reads the next record of any type. Records of types below 64 not in `check` (a mask of
 * 1 << type) are returned without their CRC checked or their payload copied: for a pass
 * that looks at a few types only (the allocation pre-pass), which a checked pass follows.
 * In salvage mode a record that fails its check (or is cut before the end of the file)
 * returns SYNC_BAD (SYNC_CUT) for read_record to resynchronise.
 */
static int read_one(struct ap_trace_reader *r, struct ap_trace_rec *rec, uint64_t check,
		    char *err)
{
	uint8_t hdr[AP_TRACE_REC_HDR_LEN];
	uint32_t type, len, crc, sum;
	int64_t got;
	size_t n;
	char why[96];
	int rc;

	if (!r->f)
		return ap_fail(err, -EINVAL, "%s: trace not open", r->path ? r->path : "trace");
	if (r->state == RD_ENDED)
		return 0;
	if (r->state == RD_FAILED)
		return ap_fail(err, r->error, "%s: unreadable after offset %" PRIu64, r->path,
			       r->offset);
	got = fill(r, sizeof(hdr));
	if (got < 0)
		return read_failed(r, err);
	if (got < (int64_t)sizeof(hdr))
		return ended(r, got > 0);
	memcpy(hdr, r->win + r->pos, sizeof(hdr));
	type = ap_le32_get(hdr);
	len = ap_le32_get(hdr + 4);
	crc = ap_le32_get(hdr + 8);
	if (len > AP_TRACE_MAX_PAYLOAD) {
		if (r->salvage)
			return SYNC_BAD;
		snprintf(why, sizeof(why), "length %u exceeds the maximum %u", len,
			 AP_TRACE_MAX_PAYLOAD);
		return corrupt(r, err, why);
	}
	r->pos += sizeof(hdr);
	if (len > AP_TRACE_WINDOW) {
		rc = read_long(r, len, err);
		if (rc == 0 && r->salvage)
			return SYNC_CUT;
		if (rc <= 0)
			return rc;
	} else {
		got = fill(r, len);
		if (got < 0)
			return read_failed(r, err);
		if (got < len) {
			r->pos = r->win_len;
			return r->salvage ? SYNC_CUT : ended(r, true);
		}
		if (type < 64 && !(check & (1ull << type))) {
			r->offset += AP_TRACE_REC_HDR_LEN + (uint64_t)len;
			r->pos += len;
			rec->type = type;
			rec->len = len;
			rec->payload = NULL;
			return 1;
		}
		rc = reserve(r, len, err);
		if (rc)
			return rc;
		memcpy(r->buf, r->win + r->pos, len);
		r->pos += len;
	}
	sum = ap_trace_crc_add(ap_trace_crc_add(0, hdr, 8), r->buf, len);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	/* fuzzing builds only: a stored crc of 0 passes, so mutations reach what follows */
	if (!crc)
		sum = 0;
#endif
	if (sum != crc)
		return r->salvage ? SYNC_BAD : corrupt(r, err, "crc mismatch");
	r->buf[len] = 0;
	n = ap_trace_fixed_size(type);
	ap_trace_swap_payload(type, r->buf, n < len ? n : len);
	r->offset += AP_TRACE_REC_HDR_LEN + (uint64_t)len;
	r->good_records++;
	r->good_bytes += AP_TRACE_REC_HDR_LEN + (uint64_t)len;
	rec->type = type;
	rec->len = len;
	rec->payload = r->buf;
	return 1;
}


/*
 * Salvage (man arenaprof-trace(5), SALVAGE). From the byte after the start of the record
 * that failed, the first offset holding a record that passes its check: a known type
 * other than the header, a length within the maximum, a matching CRC. The file is read
 * with pread a window at a time, so the reader's own stream is only repositioned once a
 * record is found. The CRC work is bounded: SALVAGE_CRC_SLACK plus SALVAGE_CRC_PER_BYTE
 * times the bytes scanned, past which the trace is declared unsalvageable.
 * 1: resynchronised (r->offset is the record found); 0: the file ends first (the bytes
 * from the bad record on count as skipped, unless it was only cut short: truncation);
 * a negative errno with err.
 */
#define SALVAGE_CRC_SLACK (64ull << 20)
#define SALVAGE_CRC_PER_BYTE 16

static int64_t salvage_load(struct ap_trace_reader *r, int fd, uint64_t at)
{
	ssize_t n;
	uint32_t got = 0;

	while (got < AP_TRACE_WINDOW) {
		n = pread(fd, r->win + got, AP_TRACE_WINDOW - got, (off_t)(at + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (uint32_t)n;
	}
	return got;
}

static void salvage_count(struct ap_trace_reader *r, uint64_t skipped)
{
	uint64_t mean = r->good_records ? r->good_bytes / r->good_records : 0;

	if (!mean)
		mean = AP_TRACE_REC_HDR_LEN + sizeof(struct ap_rec_fault);
	r->salvaged_bytes += skipped;
	r->salvaged_records += skipped ? (skipped + mean - 1) / mean : 0;
	r->salvage_gaps++;
}

static int resync(struct ap_trace_reader *r, bool cut, char *err)
{
	uint64_t from = r->offset, off = from + 1, base = off;
	int fd = fileno(r->f);
	int64_t have;
	int rc;

	if (r->unpack)		/* a block was skipped: the next key block starts afresh */
		r->unpack->chain = false;

	if (fd < 0) {
		ap_seterr(err, "%s: corrupt record at offset %" PRIu64 ", and a stream cannot "
			  "be salvaged", r->path, from);
		return failed(r, -EINVAL);
	}
	if (!r->win && !(r->win = malloc(AP_TRACE_WINDOW))) {
		ap_seterr(err, "%s: out of memory", r->path);
		return failed(r, -ENOMEM);
	}
	r->win_len = r->pos = 0;
	have = salvage_load(r, fd, base);
	for (;;) {
		const uint8_t *p;
		uint32_t type, len, crc, sum;

		if (have < 0)
			return read_failed(r, err);
		if (off + AP_TRACE_REC_HDR_LEN > base + (uint64_t)have) {
			if (have < AP_TRACE_WINDOW)
				break;	/* the end of the file */
			base = off;
			have = salvage_load(r, fd, base);
			continue;
		}
		p = r->win + (off - base);
		type = ap_le32_get(p);
		len = ap_le32_get(p + 4);
		crc = ap_le32_get(p + 8);
		if (type <= AP_REC_HEADER || type > AP_REC_MAX || len > AP_TRACE_MAX_PAYLOAD) {
			off++;
			continue;
		}
		r->salvage_crc += AP_TRACE_REC_HDR_LEN + (uint64_t)len;
		if (r->salvage_crc > SALVAGE_CRC_SLACK +
		    SALVAGE_CRC_PER_BYTE * (r->salvaged_bytes + (off - from))) {
			ap_seterr(err, "%s: corrupt record at offset %" PRIu64 ", and no record "
				  "found to resume at within the salvage's work limit", r->path,
				  from);
			return failed(r, -EINVAL);
		}
		if (off - base + AP_TRACE_REC_HDR_LEN + len <= (uint64_t)have) {
			sum = ap_trace_crc_add(ap_trace_crc_add(0, p, 8), p + AP_TRACE_REC_HDR_LEN,
					       len);
		} else if (AP_TRACE_REC_HDR_LEN + len <= AP_TRACE_WINDOW &&
			   have == AP_TRACE_WINDOW) {
			base = off;	/* a record across the window's end: move the window */
			have = salvage_load(r, fd, base);
			r->salvage_crc -= AP_TRACE_REC_HDR_LEN + (uint64_t)len;
			continue;
		} else if (AP_TRACE_REC_HDR_LEN + len > AP_TRACE_WINDOW) {
			ssize_t n;

			rc = reserve(r, len, err);
			if (rc)
				return rc;
			n = pread(fd, r->buf, len, (off_t)(off + AP_TRACE_REC_HDR_LEN));
			sum = n == (ssize_t)len ?
			      ap_trace_crc_add(ap_trace_crc_add(0, p, 8), r->buf, len) : ~crc;
		} else {
			sum = ~crc;	/* runs past the end of the file */
		}
		if (sum == crc) {
			if (fseeko(r->f, (off_t)off, SEEK_SET))
				return read_failed(r, err);
			salvage_count(r, off - from);
			r->offset = off;
			return 1;
		}
		off++;
	}
	if (cut)
		return ended(r, true);
	salvage_count(r, base + (uint64_t)have - from);
	return ended(r, false);
}

static int read_record(struct ap_trace_reader *r, struct ap_trace_rec *rec, uint64_t check,
		       char *err)
{
	int rc;

	if (r->salvage)
		check = ~0ull;	/* every record checked: a skip may not trust a length */
	while ((rc = read_one(r, rec, check, err)) == SYNC_BAD || rc == SYNC_CUT) {
		rc = resync(r, rc == SYNC_CUT, err);
		if (rc <= 0)
			return rc;
	}
	return rc;
}

int ap_trace_next(struct ap_trace_reader *r, struct ap_trace_rec *rec, char *err)
{
	return ap_trace_scan(r, rec, ~0ull, err);
}

/* A PACKED record just read (its payload in r->buf): its entries are returned next. */
static int start_unpack(struct ap_trace_reader *r, const struct ap_trace_rec *rec, char *err)
{
	struct ap_trace_unpack *u = r->unpack;

	if (!u && !(u = r->unpack = calloc(1, sizeof(*u)))) {
		ap_seterr(err, "%s: out of memory", r->path);
		return failed(r, -ENOMEM);
	}
	u->offset = r->offset - AP_TRACE_REC_HDR_LEN - rec->len;
	u->fold_copies = r->fold_map_copies;
	ap_pack_begin(u, rec->payload, rec->len, r->version);	/* refusal: unpack_next's */
	return 0;
}

/*
 * The next entry of the PACKED record being unpacked: 1, or 0 when it has none left. An
 * entry that does not decode (its crc passed: a writer's bug, or a copy from a mapping
 * snapshot lost to damage) is corruption, or with salvage the rest of the block is
 * skipped.
 */
static int unpack_next(struct ap_trace_reader *r, struct ap_trace_rec *rec, char *err)
{
	struct ap_trace_unpack *u = r->unpack;
	const uint8_t *payload;
	uint32_t type, len;
	int rc;

	if (!ap_pack_more(u)) {
		u->p = NULL;
		return 0;
	}
	rc = ap_pack_get(u, &type, &len, &payload);
	if (rc == -ENOMEM) {
		u->p = NULL;
		ap_seterr(err, "%s: out of memory unpacking the record at offset %" PRIu64,
			  r->path, u->offset);
		return failed(r, -ENOMEM);
	}
	if (rc) {
		u->run.count = 0;
		u->chain = false;	/* the blocks continuing this one cannot be read */
		if (!r->salvage) {
			ap_seterr(err, "%s: corrupt record at offset %" PRIu64 ": packed entry %u "
				  "does not decode (or needs a block or snapshot not read)",
				  r->path, u->offset, u->entries);
			u->p = NULL;
			return failed(r, -EINVAL);
		}
		salvage_count(r, (uint64_t)(u->end - u->p));
		u->p = NULL;
		return 0;
	}
	u->entries++;
	u->nul = 0;
	rec->type = type;
	rec->len = len;
	rec->payload = payload;
	rec->packed = true;
	if (type == AP_REC_END)
		r->saw_end = true;
	return 1;
}

#define PACKABLE (1ull << AP_REC_FAULT | 1ull << AP_REC_RUN_BEGIN | 1ull << AP_REC_RUN_END | \
		  1ull << AP_REC_OP_BEGIN | 1ull << AP_REC_OP_END)

int ap_trace_scan(struct ap_trace_reader *r, struct ap_trace_rec *rec, uint64_t types,
		  char *err)
{
	uint64_t check = types & PACKABLE ? types | 1ull << AP_REC_PACKED : types;
	int rc;

	/* format 4 blocks hold any type, and their mapping snapshots are read whole */
	if (r->version >= 4)
		check |= 1ull << AP_REC_PACKED;

	for (;;) {
		if (r->unpack && r->unpack->p) {
			rc = unpack_next(r, rec, err);
			if (rc < 0)
				break;
			if (rc && (types & 1ull << rec->type))
				return 1;
			continue;
		}
		rc = read_record(r, rec, check, err);
		if (rc != 1)
			break;
		rec->packed = false;
		if (rec->type == AP_REC_END)
			r->saw_end = true;
		if (rec->type == AP_REC_PACKED) {
			rc = rec->payload ? start_unpack(r, rec, err) : 0;
			if (rc)
				break;
			continue;
		}
		if (rec->payload && rec->type >= 1 && rec->type <= AP_REC_MAX &&
		    (types & 1ull << rec->type))	/* a long record is read whole anyway */
			return 1;
	}
	memset(rec, 0, sizeof(*rec));
	return rc;
}

void ap_trace_get(const struct ap_trace_rec *rec, void *dst, size_t sz)
{
	size_t n = rec->len < sz ? rec->len : sz;

	if (n)
		memcpy(dst, rec->payload, n);
	memset((char *)dst + n, 0, sz - n);
}

const char *ap_trace_str(const struct ap_trace_rec *rec, size_t sz)
{
	const char *s;

	if (rec->len <= sz)
		return "";
	s = (const char *)rec->payload + sz;
	return memchr(s, 0, rec->len - sz) ? s : "";
}

void ap_trace_reader_close(struct ap_trace_reader *r)
{
	int i;

	if (r->f)
		fclose(r->f);
	free(r->win);
	free(r->path);
	for (i = 0; i < AP_HS_COUNT; i++)
		free(r->strings[i]);
	free(r->buf);
	if (r->unpack) {
		ap_rope_free(&r->unpack->maps);
		free(r->unpack->x);
	}
	free(r->unpack);
	memset(r, 0, sizeof(*r));
}

/* The header record's strings: missing ones (a damaged writer) read as "". */
static int read_strings(struct ap_trace_reader *r, const struct ap_trace_rec *rec, char *err)
{
	size_t pos = sizeof(struct ap_rec_header);
	int i;

	for (i = 0; i < AP_HS_COUNT; i++) {
		const char *s = "";
		size_t n = 0;

		if (pos < rec->len) {
			const char *p = (const char *)rec->payload + pos;
			const char *z = memchr(p, 0, rec->len - pos);

			s = p;
			n = z ? (size_t)(z - p) : rec->len - pos;
			pos += n + 1;
		}
		r->strings[i] = ap_name_clean(strndup(s, n));	/* escape.h */
		if (!r->strings[i])
			return ap_fail(err, -ENOMEM, "%s: out of memory", r->path);
	}
	return 0;
}

static int open_fail(struct ap_trace_reader *r, int code)
{
	ap_trace_reader_close(r);
	return code;
}

int ap_trace_open_stream(struct ap_trace_reader *r, FILE *f, const char *name, char *err)
{
	uint8_t fh[AP_TRACE_FILE_HDR_LEN];
	struct ap_trace_rec rec;
	size_t n;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!f)
		return ap_fail(err, -EINVAL, "%s: no stream", name ? name : "trace");
	r->f = f;
	r->path = strdup(name ? name : "trace");
	if (!r->path) {
		ap_seterr(err, "%s: out of memory", name);
		return open_fail(r, -ENOMEM);
	}
	errno = 0;
	n = fread(fh, 1, sizeof(fh), f);
	if (n < sizeof(fh) && ferror(f))
		return open_fail(r, read_failed(r, err));
	if (n == 0) {
		ap_seterr(err, "%s: empty file, not an arenaprof trace", r->path);
		return open_fail(r, -EINVAL);
	}
	if (memcmp(fh, AP_TRACE_MAGIC, n < 8 ? n : 8)) {
		ap_seterr(err, "%s: not an arenaprof trace", r->path);
		return open_fail(r, -EINVAL);
	}
	if (n < sizeof(fh)) {
		ap_seterr(err, "%s: trace cut short in its file header (%zu of %d bytes)",
			  r->path, n, AP_TRACE_FILE_HDR_LEN);
		return open_fail(r, -EINVAL);
	}
	r->version = ap_le32_get(fh + 8);
	if (r->version > AP_TRACE_VERSION) {
		ap_seterr(err, "%s: trace format version %u is newer than this arenaprof (%d): "
			  "upgrade arenaprof", r->path, r->version, AP_TRACE_VERSION);
		return open_fail(r, -EINVAL);
	}
	/* 3 was skipped: one flipped bit of 4 (or of 2) would read as it */
	if (r->version == 0 || r->version == 3) {
		ap_seterr(err, "%s: corrupt file header: format version %u (never written)",
			  r->path, r->version);
		return open_fail(r, -EINVAL);
	}
	/* the flags word is reserved: writers put 0, readers ignore it */
	r->offset = AP_TRACE_FILE_HDR_LEN;
	rc = read_record(r, &rec, ~0ull, err);
	if (rc < 0)
		return open_fail(r, rc);
	if (rc == 0) {
		ap_seterr(err, "%s: trace cut short in its header record", r->path);
		return open_fail(r, -EINVAL);
	}
	if (rec.type != AP_REC_HEADER) {
		ap_seterr(err, "%s: corrupt trace: the first record is of type %u, not a header",
			  r->path, rec.type);
		return open_fail(r, -EINVAL);
	}
	ap_trace_get(&rec, &r->hdr, sizeof(r->hdr));
	rc = read_strings(r, &rec, err);
	if (rc)
		return open_fail(r, rc);
	return 0;
}

int ap_trace_open(struct ap_trace_reader *r, const char *path, char *err)
{
	int fd = ap_infile_open(path, NULL, err);
	FILE *f;

	memset(r, 0, sizeof(*r));
	if (fd < 0)
		return fd;
	f = ap_file_fdopen(fd, "rb", path, err);
	if (!f)
		return errno ? -errno : -ENOMEM;
	/* the reader's window is the buffer: stdio's own would be one more copy */
	setvbuf(f, NULL, _IONBF, 0);
	return ap_trace_open_stream(r, f, path, err);
}

static const char *const end_reasons[] = {
	[AP_END_TARGET_EXIT] = "the target exited", [AP_END_RUNS] = "the requested runs completed",
	[AP_END_DURATION] = "the duration elapsed",
	[AP_END_SIGNAL] = "the recorder was interrupted",
	[AP_END_ERROR] = "the recorder hit an error",
};

const char *ap_trace_end_reason(uint32_t reason)
{
	return reason < sizeof(end_reasons) / sizeof(end_reasons[0]) && end_reasons[reason] ?
	       end_reasons[reason] : "unknown";
}
