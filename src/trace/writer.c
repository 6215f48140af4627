// SPDX-License-Identifier: Apache-2.0
/*
 * trace writer (include/arenaprof/trace/trace.h, man arenaprof-trace(5)). It goes through
 * stdio and stops at its first failed write, so the file is always a prefix of the record
 * stream it was given: whole records, perhaps followed by part of one, never a whole
 * record after a partial one.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/outfile.h"
#include "arenaprof/trace/trace.h"
#include "layout.h"
#include "pack.h"

static int write_failed(struct ap_trace_writer *w, int e, const char *what, char *err)
{
	w->failed = true;
	w->error = e ? e : EIO;
	ap_seterr(err, "%s: %s: %s; the trace ends at its last whole record", w->path, what,
		  strerror(w->error));
	return -w->error;
}

static int put(struct ap_trace_writer *w, const void *p, size_t n, char *err)
{
	if (!n)
		return 0;
	errno = 0;
	if (fwrite(p, 1, n, w->f) != n)
		return write_failed(w, errno, "write error", err);
	return 0;
}

/* Writes the open PACKED block, if any, as a record (its bytes are counted already). */
static int close_block(struct ap_trace_writer *w, char *err)
{
	struct ap_trace_block *b = w->blk;
	uint8_t hdr[AP_TRACE_REC_HDR_LEN];
	const uint8_t *payload;
	uint32_t crc, len;
	int rc;

	if (!b || !b->open)
		return 0;
	w->bytes += ap_pack_end_run(b);
	b->since_key += b->len;
	len = ap_pack_finish(b, &payload);
	w->bytes -= b->len - len;	/* counted as the entries were packed */
	b->len = 0;
	b->open = false;
	ap_le32_put(hdr, AP_REC_PACKED);
	ap_le32_put(hdr + 4, len);
	crc = ap_trace_crc_add(ap_trace_crc_add(0, hdr, 8), payload, len);
	ap_le32_put(hdr + 8, crc);
	rc = put(w, hdr, sizeof(hdr), err);
	return rc ? rc : put(w, payload, len, err);
}

static void free_block(struct ap_trace_writer *w)
{
	if (w->blk)
		ap_map_state_free(&w->blk->maps);
	free(w->blk);
	w->blk = NULL;
}

/*
 * A record into the open block (a new one if none, or if it is full). 1: not packed (no
 * memory for a block): the caller writes it as a record of its own.
 */
static int pack_record(struct ap_trace_writer *w, uint32_t type, const void *payload,
		       uint32_t len, const void *tail, size_t tail_len, char *err)
{
	struct ap_trace_block *b = w->blk;
	int rc;

	if (!b) {
		b = w->blk = calloc(1, sizeof(*b));
		if (!b)
			return 1;
	}
	if (b->len + ap_pack_bound(len, tail_len) > AP_PACK_BLOCK_MAX) {
		rc = close_block(w, err);
		if (rc)
			return rc;
	}
	if (!b->open) {
		b->open = true;
		b->len = 1;
		b->buf[0] = AP_PACK_CONT;
		if (!b->chain || b->since_key >= AP_PACK_KEY_EVERY) {
			ap_pack_reset(&b->s, AP_TRACE_VERSION);
			b->buf[0] = AP_PACK_KEY;
			b->since_key = 0;
			b->chain = true;
		}
		ap_pack_clear_paths(b);
		w->records++;
		w->bytes += AP_TRACE_REC_HDR_LEN + 1;
	}
	w->bytes += ap_pack_put(b, type, payload, len, tail, tail_len);
	return 0;
}

/*
 * Writes one record: type, the payload (its struct part converted to file order) and an
 * optional tail (strings, a bitmap) that is part of the payload.
 */
static int write_record(struct ap_trace_writer *w, uint32_t type, const void *payload,
			uint32_t len, const void *tail, size_t tail_len, char *err)
{
	const uint8_t *p = payload;
	uint8_t hdr[AP_TRACE_REC_HDR_LEN];
	union ap_payload u;
	size_t n = 0;
	uint32_t crc, total;
	int rc;

	if (!w->f)
		return ap_fail(err, -EINVAL, "%s: trace not open for writing",
			       w->path ? w->path : "trace");
	if (w->failed)
		return ap_fail(err, -w->error, "%s: not written: an earlier write failed (%s)",
			       w->path, strerror(w->error));
	if (len > AP_TRACE_MAX_PAYLOAD || tail_len > AP_TRACE_MAX_PAYLOAD - len)
		return ap_fail(err, -EINVAL, "%s: record of type %u too large (%zu bytes, at "
			       "most %u)", w->path, type, (size_t)len + tail_len,
			       AP_TRACE_MAX_PAYLOAD);
	if (len && !payload)
		return ap_fail(err, -EINVAL, "%s: record of type %u: no payload", w->path, type);
	if (!w->plain && ap_pack_fits(AP_TRACE_VERSION, type, payload, len, tail_len)) {
		rc = pack_record(w, type, payload, len, tail, tail_len, err);
		if (rc <= 0)
			return rc;
	}
	rc = close_block(w, err);
	if (rc)
		return rc;
	/* a mapping not in a block: its snapshot is not one to copy from */
	if (type == AP_REC_MAPPING && w->blk && len >= sizeof(struct ap_rec_mapping)) {
		ap_map_begin(&w->blk->maps, ((const struct ap_rec_mapping *)payload)->snapshot);
		w->blk->maps.cur.bad = true;
	}
	total = len + (uint32_t)tail_len;
	if (AP_TRACE_SWAP) {
		n = ap_trace_fixed_size(type);
		n = n < len ? n : len;
		memset(&u, 0, sizeof(u));
		memcpy(&u, p, n);
		ap_trace_swap_fields(type, &u);
	}
	p = len ? p + n : NULL;		/* what is left of the payload, unconverted */
	ap_le32_put(hdr, type);
	ap_le32_put(hdr + 4, total);
	crc = ap_trace_crc_add(0, hdr, 8);
	crc = ap_trace_crc_add(crc, &u, n);
	crc = ap_trace_crc_add(crc, p, len - n);
	crc = ap_trace_crc_add(crc, tail, tail_len);
	ap_le32_put(hdr + 8, crc);
	if (put(w, hdr, sizeof(hdr), err) || put(w, &u, n, err) || put(w, p, len - n, err) ||
	    put(w, tail, tail_len, err))
		return -w->error;	/* put failed: write_failed set it */
	w->records++;
	w->bytes += AP_TRACE_REC_HDR_LEN + (uint64_t)total;
	return 0;
}

int ap_trace_write(struct ap_trace_writer *w, uint32_t type, const void *payload,
		   uint32_t len, char *err)
{
	return write_record(w, type, payload, len, NULL, 0, err);
}

int ap_trace_write_str(struct ap_trace_writer *w, uint32_t type, const void *payload,
		       uint32_t len, const char *s, char *err)
{
	if (!s)
		s = "";
	return write_record(w, type, payload, len, s, strlen(s) + 1, err);
}

int ap_trace_flush(struct ap_trace_writer *w, char *err)
{
	int rc;

	if (!w->f)
		return ap_fail(err, -EINVAL, "%s: trace not open for writing",
			       w->path ? w->path : "trace");
	if (w->failed)
		return ap_fail(err, -w->error, "%s: an earlier write failed (%s); the trace ends "
			       "at its last whole record", w->path, strerror(w->error));
	rc = close_block(w, err);
	if (rc)
		return rc;
	errno = 0;
	if (fflush(w->f))
		return write_failed(w, errno, "write error", err);
	return 0;
}

/* The blocks and mapping snapshots from here on depend on nothing before. */
static void forget(struct ap_trace_writer *w)
{
	if (w->blk) {
		ap_map_state_free(&w->blk->maps);
		w->blk->chain = false;
	}
}

int ap_trace_cut(struct ap_trace_writer *w, char *err)
{
	int rc = ap_trace_flush(w, err);

	if (rc)
		return rc;
	forget(w);
	return 0;
}

int ap_trace_rewind(struct ap_trace_writer *w, uint64_t bytes, uint64_t records, char *err)
{
	int rc = ap_trace_flush(w, err);

	if (rc)
		return rc;
	if (bytes > w->bytes || records > w->records)
		return ap_fail(err, -EINVAL, "%s: cannot rewind to %" PRIu64 " bytes: only %"
			       PRIu64 " written", w->path, bytes, w->bytes);
	errno = 0;
	if (ftruncate(fileno(w->f), (off_t)bytes) || fseeko(w->f, (off_t)bytes, SEEK_SET))
		return write_failed(w, errno, "rewind", err);
	w->bytes = bytes;
	w->records = records;
	forget(w);	/* what was written since is gone */
	return 0;
}

int ap_trace_close(struct ap_trace_writer *w, char *err)
{
	int rc = 0;

	if (!w->f) {
		free(w->path);
		free_block(w);
		w->path = NULL;
		return 0;
	}
	if (!w->failed && !close_block(w, err)) {
		errno = 0;
		if (fflush(w->f))
			write_failed(w, errno, "write error", err);
	}
	/* after a failure nothing more reaches the file, even what stdio still holds */
	if (w->failed)
		__fpurge(w->f);
	errno = 0;
	if (fclose(w->f) && !w->failed)
		write_failed(w, errno, "close", err);
	w->f = NULL;
	if (w->failed) {
		ap_seterr(err, "%s: incomplete trace: a write failed (%s); it ends at its last "
			  "whole record", w->path, strerror(w->error));
		rc = -w->error;
	}
	free(w->path);
	free_block(w);
	w->path = NULL;
	return rc;
}

int ap_trace_create(struct ap_trace_writer *w, const char *path,
		    const struct ap_rec_header *h, const char *const strings[AP_HS_COUNT],
		    char *err)
{
	uint8_t file_hdr[AP_TRACE_FILE_HDR_LEN];
	struct ap_rec_header hdr;
	size_t tail_len = 0, off = 0;
	char *tail;
	int fd, i;

	memset(w, 0, sizeof(*w));
	memset(&hdr, 0, sizeof(hdr));
	if (h)
		hdr = *h;
	for (i = 0; i < AP_HS_COUNT; i++) {
		const char *s = strings && strings[i] ? strings[i] : "";

		tail_len += strlen(s) + 1;
		if (tail_len > AP_TRACE_MAX_PAYLOAD - sizeof(hdr)) {
			w->failed = true;
			w->error = EINVAL;
			return ap_fail(err, -EINVAL, "%s: header strings too long (at most %u "
				       "bytes)", path, AP_TRACE_MAX_PAYLOAD);
		}
	}
	w->path = strdup(path);
	tail = malloc(tail_len);
	if (!w->path || !tail) {
		free(tail);
		free(w->path);
		w->path = NULL;
		w->failed = true;
		w->error = ENOMEM;
		return ap_fail(err, -ENOMEM, "%s: out of memory", path);
	}
	for (i = 0; i < AP_HS_COUNT; i++) {
		const char *s = strings && strings[i] ? strings[i] : "";
		size_t n = strlen(s) + 1;

		memcpy(tail + off, s, n);
		off += n;
	}

	/* 0600: a trace holds the target's addresses and command line */
	fd = ap_outfile_open(path, 0600, err);
	if (fd < 0 || !(w->f = fdopen(fd, "w"))) {
		w->failed = true;
		w->error = fd < 0 ? -fd : errno ? errno : EIO;
		if (fd >= 0)
			ap_seterr(err, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tail);
		free(w->path);
		w->path = NULL;
		return -w->error;
	}
	memcpy(file_hdr, AP_TRACE_MAGIC, 8);
	ap_le32_put(file_hdr + 8, AP_TRACE_VERSION);
	ap_le32_put(file_hdr + 12, 0);
	if (put(w, file_hdr, sizeof(file_hdr), err) == 0)
		w->bytes = sizeof(file_hdr);
	if (w->failed || write_record(w, AP_REC_HEADER, &hdr, sizeof(hdr), tail, tail_len, err) ||
	    ap_trace_flush(w, err)) {
		char msg[AP_ERR_LEN];

		/* keep the first message; close would replace it */
		snprintf(msg, sizeof(msg), "%s", err ? err : "");
		free(tail);
		ap_trace_close(w, NULL);
		w->failed = true;
		if (!w->error)
			w->error = EIO;
		if (err)
			memcpy(err, msg, AP_ERR_LEN);
		return -w->error;
	}
	free(tail);
	return 0;
}
