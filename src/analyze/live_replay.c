// SPDX-License-Identifier: Apache-2.0
/*
 * live_replay: a recorded trace fed to the live model (live.h) as the session fed it when
 * it was recorded, a sample at a time, so that `top TRACE` shows it in the same screens
 * (live_replay.h). The records go through the one walk (trace/walk.h), which the sample
 * callback pauses after each sample; the header stands in for the session.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/live_models.h"
#include "arenaprof/analyze/live_replay.h"
#include "arenaprof/trace/walk.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/grow.h"

#define PAUSE 1		/* a callback's return: the walk stops after this record */

/* ---- a snapshot's mapping records, gathered until the snapshot is whole ---- */

static void maps_clear(struct ap_live_replay *rp)
{
	for (uint32_t i = 0; i < rp->n_maps; i++)
		free(rp->maps[i].path);
	rp->n_maps = 0;
}

/* The snapshot gathered so far to the model: a record of another snapshot or type came. */
static int maps_flush(struct ap_live_replay *rp)
{
	struct ap_maps m = { .m = rp->maps, .n = rp->n_maps };
	const struct ap_session_sink *k = &rp->live.sink;
	int rc;

	if (!rp->n_maps)
		return 0;
	rc = k->mappings(k->ctx, &m, rp->snapshot, rp->maps_ts);
	maps_clear(rp);
	return rc;
}

static int on_mapping(void *ctx, const struct ap_rec_mapping *r, const char *path)
{
	struct ap_live_replay *rp = ctx;
	int rc = r->snapshot != rp->snapshot ? maps_flush(rp) : 0;
	struct ap_map *m;

	if (rc)
		return rc;
	if (ap_grow32(&rp->maps, &rp->cap_maps, rp->n_maps, sizeof(*rp->maps), 64))
		return -ENOMEM;
	m = &rp->maps[rp->n_maps];
	*m = (struct ap_map){ .start = r->start, .end = r->end, .offset = r->offset,
			      .inode = r->inode, .prot = r->prot, .dev_major = r->dev_major,
			      .dev_minor = r->dev_minor, .path = strdup(path) };
	if (!m->path)
		return -ENOMEM;
	rp->n_maps++;
	rp->snapshot = r->snapshot;
	rp->maps_ts = r->ts_ns;
	return 0;
}

/* ---- the other records, as the session's sink calls ---- */

static int event(struct ap_live_replay *rp, const struct ap_event *ev)
{
	int rc = maps_flush(rp);

	return rc ? rc : rp->live.sink.event(rp->live.sink.ctx, ev);
}

static int on_fault(void *ctx, const struct ap_rec_fault *f)
{
	struct ap_event ev = { .type = AP_EV_FAULT, .ts_ns = f->ts_ns, .addr = f->addr,
			       .ip = f->ip, .vm_start = f->vm_start, .vm_end = f->vm_end,
			       .vm_flags = f->vm_flags, .tid = f->tid, .flags = f->flags,
			       .run = f->run, .op = f->op };

	return event(ctx, &ev);
}

static int on_marker(void *ctx, uint32_t type, const struct ap_rec_marker *m)
{
	struct ap_event ev = { .type = AP_EV_RUN_BEGIN + (type - AP_REC_RUN_BEGIN),
			       .ts_ns = m->ts_ns, .tid = m->tid, .run = m->run, .op = m->op };

	return event(ctx, &ev);
}

static int on_alloc(void *ctx, const struct ap_rec_alloc *a)
{
	struct ap_event ev = { .type = AP_EV_ALLOC, .ts_ns = a->ts_ns, .addr = a->ptr,
			       .size = a->size, .align = a->align, .ip = a->caller,
			       .tid = a->tid, .fn = a->fn, .run = a->run, .op = -1 };

	return event(ctx, &ev);
}

/* A run's object: the session gave it with the RUN_BEGIN, the trace after it. */
static int on_run_obj(void *ctx, const struct ap_rec_run_obj *o)
{
	struct ap_live_replay *rp = ctx;

	ap_live_models_run_obj(&rp->live, o->run, o->obj);
	return 0;
}

static int on_resident(void *ctx, const struct ap_rec_resident *r, const uint8_t *bits,
		       uint64_t nbits)
{
	struct ap_live_replay *rp = ctx;
	int rc = maps_flush(rp);

	return rc ? rc : rp->live.sink.resident(rp->live.sink.ctx, r, bits,
						(size_t)(nbits / 8));
}

/* A sample as the session sent it: the trace keeps the cgroup's and the system's PSI. */
static int on_sample(void *ctx, const struct ap_rec_sample *r)
{
	struct ap_live_replay *rp = ctx;
	struct ap_session_sample s;
	int rc = maps_flush(rp);

	if (rc)
		return rc;
	memset(&s, 0xff, sizeof(s));	/* every figure AP_NO_VALUE unless the trace has it */
	s.rec = *r;
	s.smaps_read = r->rss != AP_NO_VALUE || r->pss_anon != AP_NO_VALUE;
	s.acct.cg_path[0] = '\0';
	s.acct.cg_current = r->cg_current;
	s.acct.cg_peak = r->cg_peak;
	s.acct.psi_sys.some_avg[0] = r->psi_some_avg10;
	s.acct.psi_sys.full_avg[0] = r->psi_full_avg10;
	s.acct.psi_sys.some_total = r->psi_some_total;
	s.acct.psi_sys.full_total = r->psi_full_total;
	rc = rp->live.sink.sample(rp->live.sink.ctx, &s);
	rp->samples++;
	return rc ? rc : PAUSE;
}

static int on_drops(void *ctx, const struct ap_rec_drops *d)
{
	struct ap_live_replay *rp = ctx;
	int rc = maps_flush(rp);

	return rc ? rc : rp->live.sink.drops(rp->live.sink.ctx, d);
}

static int on_note(void *ctx, const struct ap_rec_note *n, const char *text)
{
	struct ap_live_replay *rp = ctx;
	int rc = maps_flush(rp);

	return rc ? rc : rp->live.sink.note(rp->live.sink.ctx, n->level, n->ts_ns, text);
}

static int on_dmabuf(void *ctx, const struct ap_rec_dmabuf *r)
{
	ap_live_dmabuf_poll(&((struct ap_live_replay *)ctx)->live, r);
	return 0;
}

static int on_dmabuf_ev(void *ctx, const struct ap_rec_dmabuf_ev *e)
{
	ap_live_dmabuf_event(&((struct ap_live_replay *)ctx)->live, e);
	return 0;
}

static int on_end(void *ctx, const struct ap_rec_end *e)
{
	struct ap_live_replay *rp = ctx;

	rp->s.end_reason = e->reason;
	rp->s.exit_status = e->exit_status;
	rp->s.term_signal = e->term_signal;
	return maps_flush(rp);
}

/* ---- the API ---- */

int ap_live_replay_open(struct ap_live_replay *rp, const char *path,
			const struct ap_tplan *plan, const char *plan_path, char *err)
{
	struct ap_trace_reader *r = &rp->r;
	struct ap_session *s = &rp->s;
	int rc;

	memset(rp, 0, sizeof(*rp));
	rc = ap_trace_open(r, path, err);
	if (rc)
		return rc;
	/* what the live model reads of a session, from the header */
	s->pid = r->hdr.pid;
	s->started = r->hdr.flags & AP_HDR_STARTED;
	snprintf(s->cmdline, sizeof(s->cmdline), "%s", r->strings[AP_HS_CMDLINE]);
	snprintf(s->uts.release, sizeof(s->uts.release), "%s", r->strings[AP_HS_KERNEL]);
	s->t_start_ns = r->hdr.clock_base_ns;
	s->t_start_real_ns = r->hdr.realtime_base_ns;
	s->run_probe = r->strings[AP_HS_RUN_PROBE][0];
	s->o.arena_mode = AP_ARENA_AUTO;	/* the Allocs panel shows what was recorded */
	s->exit_status = -1;
	rc = ap_live_init_pages(&rp->live, s, plan, plan_path, r->hdr.page_size ?
				r->hdr.page_size : 4096, err);
	if (rc) {
		ap_trace_reader_close(r);
		return rc;
	}
	rp->live.method = r->strings[AP_HS_METHOD];
	return 0;
}

int ap_live_replay_step(struct ap_live_replay *rp, char *err)
{
	const struct ap_trace_consumer c = {
		.fault = on_fault, .mapping = on_mapping, .resident = on_resident,
		.marker = on_marker, .sample = on_sample, .drops = on_drops, .note = on_note,
		.alloc = on_alloc, .run_obj = on_run_obj, .end = on_end, .dmabuf = on_dmabuf,
		.dmabuf_ev = on_dmabuf_ev, .ctx = rp,
	};
	int rc;

	if (rp->live.ended)
		return 0;
	rc = ap_trace_walk(&rp->r, &c, NULL, err);
	if (rc == PAUSE)
		return 1;
	if (!rc)
		rc = maps_flush(rp);
	if (rc == -ENOMEM)
		ap_seterr(err, "out of memory");
	/* no END record (a recorder that died, a cut trace): shown up to its last record */
	if (!rp->s.end_reason)
		rp->s.end_reason = AP_END_ERROR;
	ap_live_set_end(&rp->live, &rp->s);
	return rc;
}

void ap_live_replay_close(struct ap_live_replay *rp)
{
	maps_clear(rp);
	free(rp->maps);
	ap_live_free(&rp->live);
	ap_trace_reader_close(&rp->r);
	memset(rp, 0, sizeof(*rp));
}
