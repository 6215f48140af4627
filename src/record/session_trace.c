// SPDX-License-Identifier: Apache-2.0
/*
 * session_trace: the sink that writes a session into a trace file (arenaprof-trace(5)),
 * for `record` and for the live TUI's snapshots. After a failed write nothing more is
 * written: the file ends with its last whole record.
 */
#include <stdlib.h>
#include <string.h>

#include "arenaprof/record/session.h"
#include "arenaprof/trace/trace.h"

static int wr(struct ap_trace_sink *t, uint32_t type, const void *p, uint32_t len)
{
	if (t->failed)
		return t->soft ? 0 : -1;
	if (ap_trace_write(&t->w, type, p, len, t->err)) {
		t->failed = true;
		return t->soft ? 0 : -1;
	}
	return 0;
}

static int wr_str(struct ap_trace_sink *t, uint32_t type, const void *p, uint32_t len,
		  const char *str)
{
	if (t->failed)
		return t->soft ? 0 : -1;
	if (ap_trace_write_str(&t->w, type, p, len, str, t->err)) {
		t->failed = true;
		return t->soft ? 0 : -1;
	}
	return 0;
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

		return wr(t, marker_type[ev->type], &m, sizeof(m));
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

static int on_mappings(void *ctx, const struct ap_maps *maps, uint32_t snapshot,
		       uint64_t ts_ns)
{
	struct ap_trace_sink *t = ctx;

	for (size_t i = 0; i < maps->n; i++) {
		const struct ap_map *m = &maps->m[i];
		struct ap_rec_mapping mr = {
			.ts_ns = ts_ns, .start = m->start, .end = m->end, .offset = m->offset,
			.inode = m->inode, .snapshot = snapshot, .prot = m->prot,
			.dev_major = m->dev_major, .dev_minor = m->dev_minor,
		};

		if (wr_str(t, AP_REC_MAPPING, &mr, sizeof(mr), m->path))
			return -1;
	}
	return 0;
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
	return rc;
}

static int on_sample(void *ctx, const struct ap_session_sample *s)
{
	return wr(ctx, AP_REC_SAMPLE, &s->rec, sizeof(s->rec));
}

static int on_drops(void *ctx, const struct ap_rec_drops *d)
{
	return wr(ctx, AP_REC_DROPS, d, sizeof(*d));
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
		return t->soft ? 0 : -1;
	if (ap_trace_flush(&t->w, t->err)) {
		t->failed = true;
		return t->soft ? 0 : -1;
	}
	return 0;
}

int ap_trace_sink_open(struct ap_trace_sink *t, struct ap_session *s, const char *path,
		       char *err)
{
	struct ap_rec_header hdr;
	const char *strings[AP_HS_COUNT];

	memset(t, 0, sizeof(*t));
	ap_session_header(s, &hdr, strings);
	if (ap_trace_create(&t->w, path, &hdr, strings, err))
		return -1;
	t->sink = (struct ap_session_sink){
		.ctx = t, .event = on_event, .mappings = on_mappings,
		.resident = on_resident, .sample = on_sample, .drops = on_drops,
		.note = on_note, .flush = on_flush,
	};
	return 0;
}

int ap_trace_sink_close(struct ap_trace_sink *t, const struct ap_session *s)
{
	struct ap_rec_end end;
	char err[AP_ERR_LEN];

	ap_session_end(s, &end);
	wr(t, AP_REC_END, &end, sizeof(end));
	if (t->failed) {
		ap_trace_close(&t->w, err);
		return -1;
	}
	if (ap_trace_close(&t->w, t->err)) {
		t->failed = true;
		return -2;
	}
	return 0;
}
