// SPDX-License-Identifier: Apache-2.0
/*
 * trace: the arenaprof trace file, writer and reader (include/arenaprof/trace/trace.h, man
 * arenaprof-trace(5)).
 *
 * The writer goes through stdio. It stops at its first failed write, so the file is
 * always a prefix of the record stream it was given: whole records, perhaps followed by
 * part of one, never a whole record after a partial one. The reader takes any bytes:
 * every length is bounded, every payload is checked against its crc before it is used,
 * and a file that ends inside a record ends the stream as "truncated".
 */
#include <byteswap.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/trace/crc32.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"
#include "arenaprof/util/outfile.h"
#include "arenaprof/trace/trace.h"

#define AP_TRACE_WINDOW (1u << 20)	/* bytes read at once */

/*
 * The payload structs are the file layout: naturally aligned fields, no implicit padding,
 * so their bytes are the record's bytes on a little-endian host.
 */
#define AP_LAYOUT(type, field, off) \
	_Static_assert(offsetof(struct type, field) == (off), #type "." #field " moved")

_Static_assert(sizeof(AP_TRACE_MAGIC) == 9, "magic is 8 bytes and a NUL");
_Static_assert(sizeof(struct ap_rec_header) == 32, "ap_rec_header size");
AP_LAYOUT(ap_rec_header, page_size, 0);
AP_LAYOUT(ap_rec_header, flags, 4);
AP_LAYOUT(ap_rec_header, clock_base_ns, 8);
AP_LAYOUT(ap_rec_header, realtime_base_ns, 16);
AP_LAYOUT(ap_rec_header, pid, 24);
AP_LAYOUT(ap_rec_header, pad, 28);
_Static_assert(sizeof(struct ap_rec_fault) == 64, "ap_rec_fault size");
AP_LAYOUT(ap_rec_fault, ts_ns, 0);
AP_LAYOUT(ap_rec_fault, addr, 8);
AP_LAYOUT(ap_rec_fault, ip, 16);
AP_LAYOUT(ap_rec_fault, vm_start, 24);
AP_LAYOUT(ap_rec_fault, vm_end, 32);
AP_LAYOUT(ap_rec_fault, vm_flags, 40);
AP_LAYOUT(ap_rec_fault, tid, 48);
AP_LAYOUT(ap_rec_fault, flags, 52);
AP_LAYOUT(ap_rec_fault, run, 56);
AP_LAYOUT(ap_rec_fault, op, 60);
_Static_assert(sizeof(struct ap_rec_mapping) == 56, "ap_rec_mapping size");
AP_LAYOUT(ap_rec_mapping, ts_ns, 0);
AP_LAYOUT(ap_rec_mapping, start, 8);
AP_LAYOUT(ap_rec_mapping, end, 16);
AP_LAYOUT(ap_rec_mapping, offset, 24);
AP_LAYOUT(ap_rec_mapping, inode, 32);
AP_LAYOUT(ap_rec_mapping, snapshot, 40);
AP_LAYOUT(ap_rec_mapping, prot, 44);
AP_LAYOUT(ap_rec_mapping, dev_major, 48);
AP_LAYOUT(ap_rec_mapping, dev_minor, 52);
_Static_assert(sizeof(struct ap_rec_marker) == 24, "ap_rec_marker size");
AP_LAYOUT(ap_rec_marker, ts_ns, 0);
AP_LAYOUT(ap_rec_marker, tid, 8);
AP_LAYOUT(ap_rec_marker, run, 12);
AP_LAYOUT(ap_rec_marker, op, 16);
AP_LAYOUT(ap_rec_marker, pad, 20);
_Static_assert(sizeof(struct ap_rec_sample) == 160, "ap_rec_sample size");
AP_LAYOUT(ap_rec_sample, ts_ns, 0);
AP_LAYOUT(ap_rec_sample, vm_rss, 8);
AP_LAYOUT(ap_rec_sample, vm_hwm, 16);
AP_LAYOUT(ap_rec_sample, rss_anon, 24);
AP_LAYOUT(ap_rec_sample, rss_file, 32);
AP_LAYOUT(ap_rec_sample, rss_shmem, 40);
AP_LAYOUT(ap_rec_sample, rss, 48);
AP_LAYOUT(ap_rec_sample, pss, 56);
AP_LAYOUT(ap_rec_sample, pss_anon, 64);
AP_LAYOUT(ap_rec_sample, pss_file, 72);
AP_LAYOUT(ap_rec_sample, pss_shmem, 80);
AP_LAYOUT(ap_rec_sample, anonymous, 88);
AP_LAYOUT(ap_rec_sample, anon_huge, 96);
AP_LAYOUT(ap_rec_sample, swap, 104);
AP_LAYOUT(ap_rec_sample, cg_current, 112);
AP_LAYOUT(ap_rec_sample, cg_peak, 120);
AP_LAYOUT(ap_rec_sample, psi_some_avg10, 128);
AP_LAYOUT(ap_rec_sample, psi_full_avg10, 136);
AP_LAYOUT(ap_rec_sample, psi_some_total, 144);
AP_LAYOUT(ap_rec_sample, psi_full_total, 152);
_Static_assert(sizeof(struct ap_rec_drops) == 40, "ap_rec_drops size");
AP_LAYOUT(ap_rec_drops, ts_ns, 0);
AP_LAYOUT(ap_rec_drops, events, 8);
AP_LAYOUT(ap_rec_drops, ringbuf_drops, 16);
AP_LAYOUT(ap_rec_drops, vma_misses, 24);
AP_LAYOUT(ap_rec_drops, retries, 32);
_Static_assert(sizeof(struct ap_rec_note) == 16, "ap_rec_note size");
AP_LAYOUT(ap_rec_note, ts_ns, 0);
AP_LAYOUT(ap_rec_note, level, 8);
AP_LAYOUT(ap_rec_note, pad, 12);
_Static_assert(sizeof(struct ap_rec_resident) == 32, "ap_rec_resident size");
AP_LAYOUT(ap_rec_resident, ts_ns, 0);
AP_LAYOUT(ap_rec_resident, start, 8);
AP_LAYOUT(ap_rec_resident, end, 16);
AP_LAYOUT(ap_rec_resident, present, 24);
_Static_assert(sizeof(struct ap_rec_end) == 24, "ap_rec_end size");
AP_LAYOUT(ap_rec_end, ts_ns, 0);
AP_LAYOUT(ap_rec_end, reason, 8);
AP_LAYOUT(ap_rec_end, exit_status, 12);
AP_LAYOUT(ap_rec_end, term_signal, 16);
AP_LAYOUT(ap_rec_end, runs, 20);
_Static_assert(sizeof(struct ap_rec_alloc) == 56, "ap_rec_alloc size");
AP_LAYOUT(ap_rec_alloc, ts_ns, 0);
AP_LAYOUT(ap_rec_alloc, ptr, 8);
AP_LAYOUT(ap_rec_alloc, size, 16);
AP_LAYOUT(ap_rec_alloc, align, 24);
AP_LAYOUT(ap_rec_alloc, caller, 32);
AP_LAYOUT(ap_rec_alloc, tid, 40);
AP_LAYOUT(ap_rec_alloc, fn, 44);
AP_LAYOUT(ap_rec_alloc, run, 48);
AP_LAYOUT(ap_rec_alloc, pad, 52);
_Static_assert(AP_TRACE_MAX_PAYLOAD < UINT32_MAX - AP_TRACE_REC_HDR_LEN, "payload bound");

/*
 * Payload fields are swapped on a big-endian host. AP_TRACE_SWAP can be forced to 1 to
 * exercise that path on a little-endian one (the payload fields, not the headers, then
 * come out byte-reversed).
 */
#ifndef AP_TRACE_SWAP
#define AP_TRACE_SWAP (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__)
#endif

enum { RD_READING, RD_ENDED, RD_FAILED };
enum { SYNC_BAD = 2, SYNC_CUT = 3 };	/* read_one in salvage mode: resynchronise */

union ap_payload {
	struct ap_rec_header header;
	struct ap_rec_fault fault;
	struct ap_rec_mapping mapping;
	struct ap_rec_marker marker;
	struct ap_rec_sample sample;
	struct ap_rec_drops drops;
	struct ap_rec_note note;
	struct ap_rec_resident resident;
	struct ap_rec_end end;
	struct ap_rec_alloc alloc;
};

/* The size of the struct at the start of a payload of this type; 0 for unknown types. */
static size_t fixed_size(uint32_t type)
{
	switch (type) {
	case AP_REC_HEADER:
		return sizeof(struct ap_rec_header);
	case AP_REC_FAULT:
		return sizeof(struct ap_rec_fault);
	case AP_REC_MAPPING:
		return sizeof(struct ap_rec_mapping);
	case AP_REC_RUN_BEGIN:
	case AP_REC_RUN_END:
	case AP_REC_OP_BEGIN:
	case AP_REC_OP_END:
		return sizeof(struct ap_rec_marker);
	case AP_REC_SAMPLE:
		return sizeof(struct ap_rec_sample);
	case AP_REC_DROPS:
		return sizeof(struct ap_rec_drops);
	case AP_REC_NOTE:
		return sizeof(struct ap_rec_note);
	case AP_REC_RESIDENT:
		return sizeof(struct ap_rec_resident);
	case AP_REC_END:
		return sizeof(struct ap_rec_end);
	case AP_REC_ALLOC:
		return sizeof(struct ap_rec_alloc);
	default:
		return 0;
	}
}

#define SW32(x) ((x) = (__typeof__(x))bswap_32((uint32_t)(x)))
#define SW64(x) ((x) = bswap_64(x))

/* Reverses the bytes of every field of a payload struct (both directions). */
static void swap_fields(uint32_t type, union ap_payload *u)
{
	size_t i;

	switch (type) {
	case AP_REC_HEADER:
		SW32(u->header.page_size);
		SW32(u->header.flags);
		SW64(u->header.clock_base_ns);
		SW64(u->header.realtime_base_ns);
		SW32(u->header.pid);
		SW32(u->header.pad);
		break;
	case AP_REC_FAULT:
		SW64(u->fault.ts_ns);
		SW64(u->fault.addr);
		SW64(u->fault.ip);
		SW64(u->fault.vm_start);
		SW64(u->fault.vm_end);
		SW64(u->fault.vm_flags);
		SW32(u->fault.tid);
		SW32(u->fault.flags);
		SW32(u->fault.run);
		SW32(u->fault.op);
		break;
	case AP_REC_MAPPING:
		SW64(u->mapping.ts_ns);
		SW64(u->mapping.start);
		SW64(u->mapping.end);
		SW64(u->mapping.offset);
		SW64(u->mapping.inode);
		SW32(u->mapping.snapshot);
		SW32(u->mapping.prot);
		SW32(u->mapping.dev_major);
		SW32(u->mapping.dev_minor);
		break;
	case AP_REC_RUN_BEGIN:
	case AP_REC_RUN_END:
	case AP_REC_OP_BEGIN:
	case AP_REC_OP_END:
		SW64(u->marker.ts_ns);
		SW32(u->marker.tid);
		SW32(u->marker.run);
		SW32(u->marker.op);
		SW32(u->marker.pad);
		break;
	case AP_REC_SAMPLE:
		/* twenty u64: ts_ns and the counters */
		for (i = 0; i < sizeof(u->sample) / 8; i++) {
			uint64_t v;

			memcpy(&v, (char *)&u->sample + 8 * i, 8);
			SW64(v);
			memcpy((char *)&u->sample + 8 * i, &v, 8);
		}
		break;
	case AP_REC_DROPS:
		SW64(u->drops.ts_ns);
		SW64(u->drops.events);
		SW64(u->drops.ringbuf_drops);
		SW64(u->drops.vma_misses);
		SW64(u->drops.retries);
		break;
	case AP_REC_NOTE:
		SW64(u->note.ts_ns);
		SW32(u->note.level);
		SW32(u->note.pad);
		break;
	case AP_REC_RESIDENT:
		SW64(u->resident.ts_ns);
		SW64(u->resident.start);
		SW64(u->resident.end);
		SW64(u->resident.present);
		break;
	case AP_REC_END:
		SW64(u->end.ts_ns);
		SW32(u->end.reason);
		SW32(u->end.exit_status);
		SW32(u->end.term_signal);
		SW32(u->end.runs);
		break;
	case AP_REC_ALLOC:
		SW64(u->alloc.ts_ns);
		SW64(u->alloc.ptr);
		SW64(u->alloc.size);
		SW64(u->alloc.align);
		SW64(u->alloc.caller);
		SW32(u->alloc.tid);
		SW32(u->alloc.fn);
		SW32(u->alloc.run);
		SW32(u->alloc.pad);
		break;
	}
}

_Static_assert(sizeof(struct ap_rec_sample) % 8 == 0, "ap_rec_sample is all u64");

/* Converts the struct part (the first n bytes) of a payload between host and file order. */
static void swap_payload(uint32_t type, uint8_t *p, size_t n)
{
	union ap_payload u;

	if (!AP_TRACE_SWAP || !n)
		return;
	memset(&u, 0, sizeof(u));
	memcpy(&u, p, n);
	swap_fields(type, &u);
	memcpy(p, &u, n);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint32_t crc_add(uint32_t crc, const void *p, size_t n)
{
	if (!n)
		return crc;
	return ap_crc32(crc, p, n);
}

/* ---- writer ---- */

static int write_failed(struct ap_trace_writer *w, int e, const char *what, char *err)
{
	w->failed = true;
	w->error = e ? e : EIO;
	ap_seterr(err, "%s: %s: %s; the trace ends at its last whole record", w->path, what,
		  strerror(w->error));
	return -1;
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

	if (!w->f) {
		ap_seterr(err, "%s: trace not open for writing", w->path ? w->path : "trace");
		return -1;
	}
	if (w->failed) {
		ap_seterr(err, "%s: not written: an earlier write failed (%s)", w->path,
			  strerror(w->error));
		return -1;
	}
	if (len > AP_TRACE_MAX_PAYLOAD || tail_len > AP_TRACE_MAX_PAYLOAD - len) {
		ap_seterr(err, "%s: record of type %u too large (%zu bytes, at most %u)",
			  w->path, type, (size_t)len + tail_len, AP_TRACE_MAX_PAYLOAD);
		return -1;
	}
	if (len && !payload) {
		ap_seterr(err, "%s: record of type %u: no payload", w->path, type);
		return -1;
	}
	total = len + (uint32_t)tail_len;
	if (AP_TRACE_SWAP) {
		n = fixed_size(type);
		n = n < len ? n : len;
		memset(&u, 0, sizeof(u));
		memcpy(&u, p, n);
		swap_fields(type, &u);
	}
	p = len ? p + n : NULL;		/* what is left of the payload, unconverted */
	put_le32(hdr, type);
	put_le32(hdr + 4, total);
	crc = crc_add(0, hdr, 8);
	crc = crc_add(crc, &u, n);
	crc = crc_add(crc, p, len - n);
	crc = crc_add(crc, tail, tail_len);
	put_le32(hdr + 8, crc);
	if (put(w, hdr, sizeof(hdr), err) || put(w, &u, n, err) || put(w, p, len - n, err) ||
	    put(w, tail, tail_len, err))
		return -1;
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
	if (!w->f) {
		ap_seterr(err, "%s: trace not open for writing", w->path ? w->path : "trace");
		return -1;
	}
	if (w->failed) {
		ap_seterr(err, "%s: an earlier write failed (%s); the trace ends at its last "
			  "whole record", w->path, strerror(w->error));
		return -1;
	}
	errno = 0;
	if (fflush(w->f))
		return write_failed(w, errno, "write error", err);
	return 0;
}

int ap_trace_rewind(struct ap_trace_writer *w, uint64_t bytes, uint64_t records, char *err)
{
	if (ap_trace_flush(w, err))
		return -1;
	if (bytes > w->bytes || records > w->records) {
		ap_seterr(err, "%s: cannot rewind to %" PRIu64 " bytes: only %" PRIu64
			  " written", w->path, bytes, w->bytes);
		return -1;
	}
	errno = 0;
	if (ftruncate(fileno(w->f), (off_t)bytes) || fseeko(w->f, (off_t)bytes, SEEK_SET))
		return write_failed(w, errno, "rewind", err);
	w->bytes = bytes;
	w->records = records;
	return 0;
}

int ap_trace_close(struct ap_trace_writer *w, char *err)
{
	int rc = 0;

	if (!w->f) {
		free(w->path);
		w->path = NULL;
		return 0;
	}
	if (!w->failed) {
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
		rc = -1;
	}
	free(w->path);
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
			ap_seterr(err, "%s: header strings too long (at most %u bytes)", path,
				  AP_TRACE_MAX_PAYLOAD);
			w->failed = true;
			return -1;
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
		ap_seterr(err, "%s: out of memory", path);
		return -1;
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
		w->error = errno;
		if (fd >= 0)
			ap_seterr(err, "%s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		free(tail);
		free(w->path);
		w->path = NULL;
		return -1;
	}
	memcpy(file_hdr, AP_TRACE_MAGIC, 8);
	put_le32(file_hdr + 8, AP_TRACE_VERSION);
	put_le32(file_hdr + 12, 0);
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
		if (err)
			memcpy(err, msg, AP_ERR_LEN);
		return -1;
	}
	free(tail);
	return 0;
}

/* ---- reader ---- */

static int read_failed(struct ap_trace_reader *r, char *err)
{
	ap_seterr(err, "%s: read error: %s", r->path, strerror(errno ? errno : EIO));
	r->state = RD_FAILED;
	return -1;
}

static int corrupt(struct ap_trace_reader *r, char *err, const char *why)
{
	ap_seterr(err, "%s: corrupt record at offset %" PRIu64 ": %s", r->path, r->offset, why);
	r->state = RD_FAILED;
	return -1;
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
		r->state = RD_FAILED;
		return -1;
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
 * that runs past the end of a short file costs no large allocation. 1, 0 (cut), -1.
 */
static int read_long(struct ap_trace_reader *r, uint32_t len, char *err)
{
	uint32_t have = r->win_len - r->pos;
	size_t n;

	if (reserve(r, have, err))
		return -1;
	memcpy(r->buf, r->win + r->pos, have);
	r->pos = r->win_len;
	while (have < len) {
		uint32_t want = len;

		if (len - have > (64u << 10) && have < len / 2)
			want = have > (32u << 10) ? 2 * have : 64u << 10;
		if (reserve(r, want, err))
			return -1;
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

	if (!r->f) {
		ap_seterr(err, "%s: trace not open", r->path ? r->path : "trace");
		return -1;
	}
	if (r->state == RD_ENDED)
		return 0;
	if (r->state == RD_FAILED) {
		ap_seterr(err, "%s: unreadable after offset %" PRIu64, r->path, r->offset);
		return -1;
	}
	got = fill(r, sizeof(hdr));
	if (got < 0)
		return read_failed(r, err);
	if (got < (int64_t)sizeof(hdr))
		return ended(r, got > 0);
	memcpy(hdr, r->win + r->pos, sizeof(hdr));
	type = get_le32(hdr);
	len = get_le32(hdr + 4);
	crc = get_le32(hdr + 8);
	if (len > AP_TRACE_MAX_PAYLOAD) {
		if (r->salvage)
			return SYNC_BAD;
		snprintf(why, sizeof(why), "length %u exceeds the maximum %u", len,
			 AP_TRACE_MAX_PAYLOAD);
		return corrupt(r, err, why);
	}
	r->pos += sizeof(hdr);
	if (len > AP_TRACE_WINDOW) {
		int rc = read_long(r, len, err);

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
		if (reserve(r, len, err))
			return -1;
		memcpy(r->buf, r->win + r->pos, len);
		r->pos += len;
	}
	sum = crc_add(crc_add(0, hdr, 8), r->buf, len);
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
	/* fuzzing builds only: a stored crc of 0 passes, so mutations reach what follows */
	if (!crc)
		sum = 0;
#endif
	if (sum != crc)
		return r->salvage ? SYNC_BAD : corrupt(r, err, "crc mismatch");
	r->buf[len] = 0;
	n = fixed_size(type);
	swap_payload(type, r->buf, n < len ? n : len);
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
 * -1 with err.
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

	if (fd < 0) {
		ap_seterr(err, "%s: corrupt record at offset %" PRIu64 ", and a stream cannot "
			  "be salvaged", r->path, from);
		r->state = RD_FAILED;
		return -1;
	}
	if (!r->win && !(r->win = malloc(AP_TRACE_WINDOW))) {
		ap_seterr(err, "%s: out of memory", r->path);
		r->state = RD_FAILED;
		return -1;
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
		type = get_le32(p);
		len = get_le32(p + 4);
		crc = get_le32(p + 8);
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
			r->state = RD_FAILED;
			return -1;
		}
		if (off - base + AP_TRACE_REC_HDR_LEN + len <= (uint64_t)have) {
			sum = crc_add(crc_add(0, p, 8), p + AP_TRACE_REC_HDR_LEN, len);
		} else if (AP_TRACE_REC_HDR_LEN + len <= AP_TRACE_WINDOW &&
			   have == AP_TRACE_WINDOW) {
			base = off;	/* a record across the window's end: move the window */
			have = salvage_load(r, fd, base);
			r->salvage_crc -= AP_TRACE_REC_HDR_LEN + (uint64_t)len;
			continue;
		} else if (AP_TRACE_REC_HDR_LEN + len > AP_TRACE_WINDOW) {
			ssize_t n;

			if (reserve(r, len, err))
				return -1;
			n = pread(fd, r->buf, len, (off_t)(off + AP_TRACE_REC_HDR_LEN));
			sum = n == (ssize_t)len ? crc_add(crc_add(0, p, 8), r->buf, len) : ~crc;
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

int ap_trace_scan(struct ap_trace_reader *r, struct ap_trace_rec *rec, uint64_t types,
		  char *err)
{
	int rc;

	while ((rc = read_record(r, rec, types, err)) == 1) {
		if (rec->type == AP_REC_END)
			r->saw_end = true;
		if (rec->payload && rec->type >= 1 && rec->type <= AP_REC_MAX)
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
		r->strings[i] = strndup(s, n);
		if (!r->strings[i]) {
			ap_seterr(err, "%s: out of memory", r->path);
			return -1;
		}
	}
	return 0;
}

static int open_fail(struct ap_trace_reader *r)
{
	ap_trace_reader_close(r);
	return -1;
}

int ap_trace_open_stream(struct ap_trace_reader *r, FILE *f, const char *name, char *err)
{
	uint8_t fh[AP_TRACE_FILE_HDR_LEN];
	struct ap_trace_rec rec;
	size_t n;
	int rc;

	memset(r, 0, sizeof(*r));
	if (!f) {
		ap_seterr(err, "%s: no stream", name ? name : "trace");
		return -1;
	}
	r->f = f;
	r->path = strdup(name ? name : "trace");
	if (!r->path) {
		ap_seterr(err, "%s: out of memory", name);
		return open_fail(r);
	}
	errno = 0;
	n = fread(fh, 1, sizeof(fh), f);
	if (n < sizeof(fh) && ferror(f)) {
		read_failed(r, err);
		return open_fail(r);
	}
	if (n == 0) {
		ap_seterr(err, "%s: empty file, not an arenaprof trace", r->path);
		return open_fail(r);
	}
	if (memcmp(fh, AP_TRACE_MAGIC, n < 8 ? n : 8)) {
		ap_seterr(err, "%s: not an arenaprof trace", r->path);
		return open_fail(r);
	}
	if (n < sizeof(fh)) {
		ap_seterr(err, "%s: trace cut short in its file header (%zu of %d bytes)",
			  r->path, n, AP_TRACE_FILE_HDR_LEN);
		return open_fail(r);
	}
	r->version = get_le32(fh + 8);
	if (r->version > AP_TRACE_VERSION) {
		ap_seterr(err, "%s: trace format version %u is newer than this arenaprof (%d): "
			  "upgrade arenaprof", r->path, r->version, AP_TRACE_VERSION);
		return open_fail(r);
	}
	if (r->version == 0) {
		ap_seterr(err, "%s: corrupt file header: format version 0", r->path);
		return open_fail(r);
	}
	/* the flags word is reserved: writers put 0, readers ignore it */
	r->offset = AP_TRACE_FILE_HDR_LEN;
	rc = read_record(r, &rec, ~0ull, err);
	if (rc < 0)
		return open_fail(r);
	if (rc == 0) {
		ap_seterr(err, "%s: trace cut short in its header record", r->path);
		return open_fail(r);
	}
	if (rec.type != AP_REC_HEADER) {
		ap_seterr(err, "%s: corrupt trace: the first record is of type %u, not a header",
			  r->path, rec.type);
		return open_fail(r);
	}
	ap_trace_get(&rec, &r->hdr, sizeof(r->hdr));
	if (read_strings(r, &rec, err))
		return open_fail(r);
	return 0;
}

int ap_trace_open(struct ap_trace_reader *r, const char *path, char *err)
{
	FILE *f = ap_infile_fopen(path, err);

	if (!f) {
		memset(r, 0, sizeof(*r));
		return -1;
	}
	/* the reader's window is the buffer: stdio's own would be one more copy */
	setvbuf(f, NULL, _IONBF, 0);
	return ap_trace_open_stream(r, f, path, err);
}
