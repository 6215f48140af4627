// SPDX-License-Identifier: Apache-2.0
/*
 * session_trace: the sink that writes a session into a trace file (arenaprof-trace(5)),
 * for `record` and for the live TUI's snapshots. After a failed write nothing more is
 * written: the file ends with its last whole record.
 *
 * The live view's hidden trace is a ring (ap_trace_sink_open_ring): two segment files,
 * each a trace of its own, together at most the cap. A segment is the file header and
 * the header record, a preamble (the latest maps snapshot, the pages resident at attach,
 * the latest sample and counters, and a note of what came before it and is gone), then
 * its own records. When the active segment would pass half the cap, the older one is cut
 * back to its header record and becomes the active one, with a new preamble. What the
 * ring holds, as one trace: the older segment whole, then the newer one's own records.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arenaprof/record/session.h"
#include "arenaprof/trace/trace.h"
#include "arenaprof/util/units.h"
#include "arenaprof/util/clock.h"

struct ring_resident {
	struct ap_rec_resident rr;
	uint8_t *bitmap;
	size_t bytes;
};

struct ap_trace_ring {
	const struct ap_session *s;
	uint64_t cap, seg_cap;		/* the whole ring; one segment (half) */
	uint64_t min_own;		/* a segment's own bytes before it may be left */
	struct ap_trace_writer old;	/* the older segment (the active one is t->w) */
	bool have_old;			/* old holds the part before the active one */
	uint64_t head_bytes, head_records;	/* a segment's file and header records */
	uint64_t own_start;		/* the active segment's own records start here */
	bool hold;		/* a preamble or a maps snapshot being written: no
				 * rotation, nor counts record by record */
	/* the session's stream (preambles aside) so far, and before each segment */
	uint64_t records, bytes;
	uint64_t old_before_records, old_before_bytes;
	uint64_t cur_before_records, cur_before_bytes;
	/* what a preamble repeats */
	struct ap_rec_mapping *maps;
	char **paths;
	size_t n_maps;
	struct ring_resident *res;
	size_t n_res;
	struct ap_rec_sample sample;
	bool have_sample;
	struct ap_rec_drops drops;
	bool have_drops;
};

static int rotate(struct ap_trace_sink *t);

/* Before a record of `need` bytes (or a group of them): rotate the ring if it is due. */
static void make_room(struct ap_trace_sink *t, uint64_t need)
{
	struct ap_trace_ring *r = t->ring;

	if (!r || r->hold || t->failed)
		return;
	if (t->w.bytes + need > r->seg_cap && t->w.bytes - r->own_start >= r->min_own) {
		int rc = rotate(t);

		if (rc)
			t->failed = rc;
	}
}

static void counted(struct ap_trace_sink *t, uint64_t need)
{
	if (t->ring && !t->ring->hold) {
		t->ring->records++;
		t->ring->bytes += need;
	}
}

static int wr(struct ap_trace_sink *t, uint32_t type, const void *p, uint32_t len)
{
	uint64_t before;

	/* at most this much: a fault or marker packed takes a few bytes (trace/pack.c) */
	make_room(t, AP_TRACE_REC_HDR_LEN + (uint64_t)len);
	if (t->failed)
		return t->soft ? 0 : t->failed;
	before = t->w.bytes;
	t->failed = ap_trace_write(&t->w, type, p, len, t->err);
	if (t->failed)
		return t->soft ? 0 : t->failed;
	counted(t, t->w.bytes - before);
	return 0;
}

static int wr_str(struct ap_trace_sink *t, uint32_t type, const void *p, uint32_t len,
		  const char *str)
{
	uint64_t need = AP_TRACE_REC_HDR_LEN + (uint64_t)len + (str ? strlen(str) : 0) + 1;

	make_room(t, need);
	if (t->failed)
		return t->soft ? 0 : t->failed;
	t->failed = ap_trace_write_str(&t->w, type, p, len, str, t->err);
	if (t->failed)
		return t->soft ? 0 : t->failed;
	counted(t, need);
	return 0;
}

/*
 * A new segment's preamble: what a trace that starts with this segment needs from before
 * it, and a note of what it lacks. The pages resident at attach are left out (and a note
 * says so) when they and the maps would take more than a quarter of the ring.
 */
static void write_preamble(struct ap_trace_sink *t)
{
	struct ap_trace_ring *r = t->ring;
	struct ap_rec_note n = { .ts_ns = ap_clock_ns(CLOCK_MONOTONIC), .level = 1 };
	uint64_t maps_bytes = 0, res_bytes = 0;
	char cap[32], gone[32], text[512];
	bool res_fits;

	r->hold = true;
	t->run_obj = 0;		/* a file of its own: its next run says its object again */
	for (size_t i = 0; i < r->n_maps; i++)
		maps_bytes += AP_TRACE_REC_HDR_LEN + sizeof(struct ap_rec_mapping) +
			      strlen(r->paths[i]) + 1;
	for (size_t i = 0; i < r->n_res; i++)
		res_bytes += AP_TRACE_REC_HDR_LEN + sizeof(struct ap_rec_resident) +
			     r->res[i].bytes;
	res_fits = maps_bytes + res_bytes <= r->cap / 4;
	snprintf(text, sizeof(text), "trace ring of %s: the session's first %" PRIu64
		 " records (%s, %.1f s) were dropped, this trace holds what followed; the "
		 "mappings%s, the latest sample and counters are repeated from before",
		 ap_fmt_bytes(r->cap, cap, sizeof(cap)), r->records,
		 ap_fmt_bytes(r->bytes, gone, sizeof(gone)),
		 (double)(n.ts_ns - r->s->t_start_ns) / 1e9,
		 res_fits && r->n_res ? " and the pages resident at attach" : "");
	wr_str(t, AP_REC_NOTE, &n, sizeof(n), text);
	if (!res_fits && r->n_res) {
		snprintf(text, sizeof(text), "the pages resident at attach (%s of bitmaps) do "
			 "not fit in the trace ring's preamble: left out", ap_fmt_bytes(res_bytes,
			 gone, sizeof(gone)));
		wr_str(t, AP_REC_NOTE, &n, sizeof(n), text);
	}
	/* stamped now: the trace's time range is that of the part it holds */
	for (size_t i = 0; i < r->n_maps; i++) {
		struct ap_rec_mapping mr = r->maps[i];

		mr.ts_ns = n.ts_ns;
		wr_str(t, AP_REC_MAPPING, &mr, sizeof(mr), r->paths[i]);
	}
	for (size_t i = 0; res_fits && i < r->n_res; i++) {
		struct ap_rec_resident rr = r->res[i].rr;
		uint8_t *buf = malloc(sizeof(rr) + r->res[i].bytes);

		if (!buf)
			continue;
		rr.ts_ns = n.ts_ns;
		memcpy(buf, &rr, sizeof(rr));
		memcpy(buf + sizeof(r->res[i].rr), r->res[i].bitmap, r->res[i].bytes);
		wr(t, AP_REC_RESIDENT, buf, (uint32_t)(sizeof(r->res[i].rr) + r->res[i].bytes));
		free(buf);
	}
	if (r->have_sample)
		wr(t, AP_REC_SAMPLE, &r->sample, sizeof(r->sample));
	if (r->have_drops)
		wr(t, AP_REC_DROPS, &r->drops, sizeof(r->drops));
	r->hold = false;
}

/* The older segment is cut back to its header record and becomes the active one. */
static int rotate(struct ap_trace_sink *t)
{
	struct ap_trace_ring *r = t->ring;
	struct ap_trace_writer w;
	int rc = ap_trace_flush(&t->w, t->err);

	if (rc)
		return rc;
	w = r->old;
	r->old = t->w;
	t->w = w;
	r->old_before_records = r->cur_before_records;
	r->old_before_bytes = r->cur_before_bytes;
	r->have_old = true;
	rc = ap_trace_rewind(&t->w, r->head_bytes, r->head_records, t->err);
	if (rc)
		return rc;
	r->cur_before_records = r->records;
	r->cur_before_bytes = r->bytes;
	write_preamble(t);
	/* own records from a record boundary on, readable without the preamble (save) */
	rc = ap_trace_cut(&t->w, t->err);
	if (rc && !t->failed)
		t->failed = rc;
	r->own_start = t->w.bytes;
	return t->failed;
}

static int on_event(void *ctx, const struct ap_event *ev)
{
	static const uint32_t marker_type[] = {
		[AP_EV_RUN_BEGIN] = AP_REC_RUN_BEGIN, [AP_EV_RUN_END] = AP_REC_RUN_END,
		[AP_EV_OP_BEGIN] = AP_REC_OP_BEGIN, [AP_EV_OP_END] = AP_REC_OP_END,
	};
	struct ap_trace_sink *t = ctx;

	switch (ev->type) {
	case AP_EV_FAULT: {
		struct ap_rec_fault f = {
			.ts_ns = ev->ts_ns, .addr = ev->addr, .ip = ev->ip,
			.vm_start = ev->vm_start, .vm_end = ev->vm_end, .vm_flags = ev->vm_flags,
			.tid = ev->tid, .flags = ev->flags, .run = ev->run, .op = ev->op,
		};

		return wr(t, AP_REC_FAULT, &f, sizeof(f));
	}
	case AP_EV_RUN_BEGIN:
	case AP_EV_RUN_END:
	case AP_EV_OP_BEGIN:
	case AP_EV_OP_END: {
		struct ap_rec_marker m = { .ts_ns = ev->ts_ns, .tid = ev->tid, .run = ev->run,
					   .op = ev->type >= AP_EV_OP_BEGIN ? ev->op : -1 };
		struct ap_rec_run_obj o = { .ts_ns = ev->ts_ns, .obj = ev->addr,
					    .run = ev->run, .tid = ev->tid };
		int rc = wr(t, marker_type[ev->type], &m, sizeof(m));

		/* only when it changes: a run's object is the last one written before it */
		if (rc || ev->type != AP_EV_RUN_BEGIN || !ev->addr || ev->addr == t->run_obj)
			return rc;
		t->run_obj = ev->addr;
		return wr(t, AP_REC_RUN_OBJ, &o, sizeof(o));
	}
	case AP_EV_ALLOC: {
		struct ap_rec_alloc r = { .ts_ns = ev->ts_ns, .ptr = ev->addr, .size = ev->size,
					  .align = ev->align, .caller = ev->ip, .tid = ev->tid,
					  .fn = (uint32_t)ev->fn, .run = ev->run };

		return wr(t, AP_REC_ALLOC, &r, sizeof(r));
	}
	default:
		return 0;
	}
}

/* The ring's copy of the latest snapshot, repeated by the next preamble. */
static void remember_maps(struct ap_trace_ring *r, const struct ap_maps *maps,
			  uint32_t snapshot, uint64_t ts_ns)
{
	struct ap_rec_mapping *m = calloc(maps->n ? maps->n : 1, sizeof(*m));
	char **paths = calloc(maps->n ? maps->n : 1, sizeof(*paths));
	size_t i;

	for (i = 0; m && paths && i < maps->n; i++) {
		const struct ap_map *mp = &maps->m[i];

		m[i] = (struct ap_rec_mapping){
			.ts_ns = ts_ns, .start = mp->start, .end = mp->end, .offset = mp->offset,
			.inode = mp->inode, .snapshot = snapshot, .prot = mp->prot,
			.dev_major = mp->dev_major, .dev_minor = mp->dev_minor,
		};
		paths[i] = strdup(mp->path);
		if (!paths[i])
			break;
	}
	if (!m || !paths || i < maps->n) {	/* out of memory: keep the older copy */
		for (size_t k = 0; paths && k < i; k++)
			free(paths[k]);
		free(paths);
		free(m);
		return;
	}
	for (i = 0; i < r->n_maps; i++)
		free(r->paths[i]);
	free(r->paths);
	free(r->maps);
	r->maps = m;
	r->paths = paths;
	r->n_maps = maps->n;
}

static int on_mappings(void *ctx, const struct ap_maps *maps, uint32_t snapshot,
		       uint64_t ts_ns)
{
	struct ap_trace_sink *t = ctx;
	uint64_t need = 0;
	int rc = 0;

	/* a snapshot is never split between two segments */
	for (size_t i = 0; t->ring && i < maps->n; i++)
		need += AP_TRACE_REC_HDR_LEN + sizeof(struct ap_rec_mapping) +
			strlen(maps->m[i].path) + 1;
	make_room(t, need);
	if (t->ring)
		t->ring->hold = true;
	for (size_t i = 0; i < maps->n && !rc; i++) {
		const struct ap_map *m = &maps->m[i];
		struct ap_rec_mapping mr = {
			.ts_ns = ts_ns, .start = m->start, .end = m->end, .offset = m->offset,
			.inode = m->inode, .snapshot = snapshot, .prot = m->prot,
			.dev_major = m->dev_major, .dev_minor = m->dev_minor,
		};

		rc = wr_str(t, AP_REC_MAPPING, &mr, sizeof(mr), m->path);
	}
	if (t->ring) {
		t->ring->hold = false;
		t->ring->records += maps->n;
		t->ring->bytes += need;
		remember_maps(t->ring, maps, snapshot, ts_ns);
	}
	return rc;
}

static int on_resident(void *ctx, const struct ap_rec_resident *rr, const uint8_t *bitmap,
		       size_t nb)
{
	struct ap_trace_sink *t = ctx;
	uint8_t *buf = malloc(sizeof(*rr) + nb);
	int rc = 0;

	if (buf) {	/* as before the session existed: out of memory skips the record */
		memcpy(buf, rr, sizeof(*rr));
		memcpy(buf + sizeof(*rr), bitmap, nb);
		rc = wr(t, AP_REC_RESIDENT, buf, (uint32_t)(sizeof(*rr) + nb));
	}
	free(buf);
	if (t->ring) {	/* attach-time state: every preamble repeats it */
		struct ring_resident *res = realloc(t->ring->res,
						    (t->ring->n_res + 1) * sizeof(*res));
		uint8_t *copy = malloc(nb ? nb : 1);

		if (res)
			t->ring->res = res;
		if (res && copy) {
			memcpy(copy, bitmap, nb);
			res[t->ring->n_res++] = (struct ring_resident){ *rr, copy, nb };
		} else {
			free(copy);
		}
	}
	return rc;
}

static int on_sample(void *ctx, const struct ap_session_sample *s)
{
	struct ap_trace_sink *t = ctx;

	if (t->ring) {
		t->ring->sample = s->rec;
		t->ring->have_sample = true;
	}
	return wr(t, AP_REC_SAMPLE, &s->rec, sizeof(s->rec));
}

static int on_drops(void *ctx, const struct ap_rec_drops *d)
{
	struct ap_trace_sink *t = ctx;

	if (t->ring) {
		t->ring->drops = *d;
		t->ring->have_drops = true;
	}
	return wr(t, AP_REC_DROPS, d, sizeof(*d));
}

/* A poll's summary, then its buffers, each its own record (never packed: trace.h). */
static int on_dmabuf(void *ctx, const struct ap_rec_dmabuf *rec,
		     const struct ap_dmabuf_sampler *d)
{
	struct ap_trace_sink *t = ctx;
	struct ap_rec_dmabuf_buf b;
	int rc = wr(t, AP_REC_DMABUF, rec, sizeof(*rec));

	for (uint32_t i = 0; !rc && i < d->cur.n; i++) {
		ap_dmabuf_sampler_buf(d, i, rec->ts_ns, &b);
		rc = wr(t, AP_REC_DMABUF_BUF, &b, sizeof(b));
	}
	return rc;
}

static int on_dmabuf_ev(void *ctx, const struct ap_rec_dmabuf_ev *e)
{
	return wr(ctx, AP_REC_DMABUF_EV, e, sizeof(*e));
}

static int on_note(void *ctx, uint32_t level, uint64_t ts_ns, const char *text)
{
	struct ap_rec_note n = { .ts_ns = ts_ns, .level = level };

	return wr_str(ctx, AP_REC_NOTE, &n, sizeof(n), text);
}

static int on_flush(void *ctx)
{
	struct ap_trace_sink *t = ctx;

	if (t->failed)
		return t->soft ? 0 : t->failed;
	t->failed = ap_trace_flush(&t->w, t->err);
	if (t->failed)
		return t->soft ? 0 : t->failed;
	return 0;
}

int ap_trace_sink_open(struct ap_trace_sink *t, struct ap_session *s, const char *path,
		       char *err)
{
	struct ap_rec_header hdr;
	const char *strings[AP_HS_COUNT];
	int rc;

	memset(t, 0, sizeof(*t));
	ap_session_header(s, &hdr, strings);
	rc = ap_trace_create(&t->w, path, &hdr, strings, err);
	if (rc)
		return rc;
	t->sink = (struct ap_session_sink){
		.ctx = t, .event = on_event, .mappings = on_mappings,
		.resident = on_resident, .sample = on_sample, .drops = on_drops,
		.note = on_note, .setup_notes = true, .flush = on_flush, .dmabuf = on_dmabuf,
		.dmabuf_ev = on_dmabuf_ev,
	};
	return 0;
}

static void ring_free(struct ap_trace_ring *r)
{
	char err[AP_ERR_LEN];

	if (!r)
		return;
	ap_trace_close(&r->old, err);
	for (size_t i = 0; i < r->n_maps; i++)
		free(r->paths[i]);
	free(r->paths);
	free(r->maps);
	for (size_t i = 0; i < r->n_res; i++)
		free(r->res[i].bitmap);
	free(r->res);
	free(r);
}

int ap_trace_sink_open_ring(struct ap_trace_sink *t, struct ap_session *s, const char *dir,
			    uint64_t cap, char *err)
{
	struct ap_rec_header hdr;
	const char *strings[AP_HS_COUNT];
	struct ap_trace_ring *r;
	char path[PATH_MAX];
	int rc;

	snprintf(path, sizeof(path), "%s/session.trace", dir);
	rc = ap_trace_sink_open(t, s, path, err);
	if (rc)
		return rc;
	unlink(path);
	r = calloc(1, sizeof(*r));
	if (!r) {
		ap_trace_close(&t->w, NULL);
		return ap_fail(err, -ENOMEM, "out of memory");
	}
	snprintf(path, sizeof(path), "%s/session.trace.1", dir);
	ap_session_header(s, &hdr, strings);
	rc = ap_trace_create(&r->old, path, &hdr, strings, err);
	if (rc) {
		free(r);
		ap_trace_close(&t->w, NULL);
		return rc;
	}
	unlink(path);
	r->s = s;
	r->cap = cap;
	r->seg_cap = cap / 2;
	r->min_own = cap / 4;
	r->head_bytes = r->own_start = t->w.bytes;
	r->head_records = t->w.records;
	t->ring = r;
	return 0;
}

void ap_trace_sink_usage(const struct ap_trace_sink *t, uint64_t *bytes, uint64_t *cap,
			 uint64_t *dropped)
{
	const struct ap_trace_ring *r = t->ring;

	*bytes = t->w.bytes + (r && r->have_old ? r->old.bytes : 0);
	*cap = r ? r->cap : 0;
	*dropped = r ? (r->have_old ? r->old_before_records : r->cur_before_records) : 0;
}

/* Bytes [from, to) of a writer's file (opened again to be read), appended to fd_out. */
static int copy_range(const struct ap_trace_writer *w, uint64_t from, uint64_t to, int fd_out)
{
	char buf[1 << 16], src[64];
	int fd_in, e;

	snprintf(src, sizeof(src), "/proc/self/fd/%d", fileno(w->f));
	fd_in = open(src, O_RDONLY | O_CLOEXEC);
	if (fd_in < 0)
		return -errno;

	while (from < to) {
		size_t want = to - from < sizeof(buf) ? (size_t)(to - from) : sizeof(buf);
		ssize_t n = pread(fd_in, buf, want, (off_t)from);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;	/* shorter than written: cut under us */
			goto fail;
		}
		for (ssize_t off = 0; off < n;) {
			ssize_t k = write(fd_out, buf + off, (size_t)(n - off));

			if (k < 0) {
				if (errno == EINTR)
					continue;
				goto fail;
			}
			off += k;
		}
		from += (uint64_t)n;
	}
	close(fd_in);
	return 0;
fail:
	e = errno;
	close(fd_in);
	return -e;
}

int ap_trace_sink_save(struct ap_trace_sink *t, int fd, char *err)
{
	const struct ap_trace_ring *r = t->ring;
	int rc;

	if (t->failed)
		return ap_fail(err, t->failed, "the session's trace failed: %s", t->err);
	rc = ap_trace_flush(&t->w, err);
	if (rc)
		return rc;
	if (r && r->have_old) {
		rc = copy_range(&r->old, 0, r->old.bytes, fd);
		if (!rc)
			rc = copy_range(&t->w, r->own_start, t->w.bytes, fd);
	} else {
		rc = copy_range(&t->w, 0, t->w.bytes, fd);
	}
	return rc ? ap_fail(err, rc, "%s", strerror(-rc)) : 0;
}

int ap_trace_sink_close(struct ap_trace_sink *t, const struct ap_session *s)
{
	struct ap_rec_end end;
	char err[AP_ERR_LEN];

	ap_session_end(s, &end);
	wr(t, AP_REC_END, &end, sizeof(end));
	ring_free(t->ring);
	t->ring = NULL;
	if (t->failed) {
		ap_trace_close(&t->w, err);
		return t->failed;
	}
	t->failed = ap_trace_close(&t->w, t->err);
	t->close_failed = t->failed != 0;
	return t->failed;
}
