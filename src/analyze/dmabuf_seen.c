// SPDX-License-Identifier: Apache-2.0
/* dmabuf_seen: the peak of the target's dma-bufs and every buffer (dmabuf_seen.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/dmabuf_seen.h"
#include "arenaprof/util/grow.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))
#define MIN(a, b) ((a) < (b) ? (a) : (b))

void ap_dmabuf_seen_init(struct ap_dmabuf_seen *s)
{
	memset(s, 0, sizeof(*s));
	s->peak_run = -1;
	s->cma_total = s->cma_free = s->cma_free_min = AP_NO_VALUE;
	s->sys_bytes_peak = AP_NO_VALUE;
	s->ev_peak_run = -1;
}

const char *ap_dmabuf_source_name(uint32_t source)
{
	return source == 1 ? "fdinfo" : source == 2 ? "bpf_iter" : "none";
}

const char *ap_dmabuf_events_name(uint32_t method)
{
	return method == AP_DMABUF_EVENTS_FENTRY ? "fentry" : "none";
}

int ap_dmabuf_seen_sample(struct ap_dmabuf_seen *s, const struct ap_rec_dmabuf *d,
			  int64_t run)
{
	s->samples++;
	if (d->events)
		s->ev_method = d->events;
	/* the source of the figures: a sample without buffers had nothing to read from it */
	if (d->buffers || !s->source)
		s->source = d->source;
	s->interval_ms = d->interval_ms;
	s->cur_ts = d->ts_ns;
	/* the first time the peak is reached is when it was reached */
	s->cur_peak = s->samples == 1 || d->bytes > s->peak_bytes;
	if (s->cur_peak) {
		s->peak_bytes = d->bytes;
		s->peak_mapped_rss = d->mapped_rss;
		s->peak_ns = d->ts_ns;
		s->peak_buffers = d->buffers;
		s->peak_run = run;
		for (uint32_t i = 0; i < s->n; i++)
			s->b[i].at_peak = false;
	}
	s->max_mapped_rss = MAX(s->max_mapped_rss, d->mapped_rss);
	s->last_bytes = d->bytes;
	s->last_ns = d->ts_ns;
	s->last_buffers = d->buffers;
	if (d->cma_total != AP_NO_VALUE)
		s->cma_total = d->cma_total;
	if (d->cma_free != AP_NO_VALUE) {
		s->cma_free = d->cma_free;
		if (s->cma_free_min == AP_NO_VALUE || d->cma_free < s->cma_free_min)
			s->cma_free_min = d->cma_free;
	}
	if (d->sys_bytes != AP_NO_VALUE)
		s->sys_bytes_peak = s->sys_bytes_peak == AP_NO_VALUE ? d->sys_bytes :
				    MAX(s->sys_bytes_peak, d->sys_bytes);
	return 0;
}

static struct ap_dmabuf_seen_buf *buf_find(struct ap_dmabuf_seen *s, uint64_t inode)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->b[i].inode == inode)
			return &s->b[i];
	return NULL;
}

/* The buffer of this inode, added zeroed when new; NULL: no memory. */
static struct ap_dmabuf_seen_buf *buf_of(struct ap_dmabuf_seen *s, uint64_t inode)
{
	struct ap_dmabuf_seen_buf *b = buf_find(s, inode);

	if (b)
		return b;
	if (ap_grow32(&s->b, &s->cap, s->n, sizeof(*s->b), 16))
		return NULL;
	b = &s->b[s->n++];
	memset(b, 0, sizeof(*b));
	b->inode = inode;
	return b;
}

int ap_dmabuf_seen_buf(struct ap_dmabuf_seen *s, const struct ap_rec_dmabuf_buf *r)
{
	struct ap_dmabuf_seen_buf *b = buf_of(s, r->inode);

	if (!b)
		return -ENOMEM;
	if (!b->sampled) {
		b->sampled = true;
		b->first_ns = r->ts_ns;
		b->flags = r->flags & (b->exported ? ~(uint32_t)AP_DMABUF_F_SIZE_FROM_MAP : ~0u);
		if (b->exported)
			s->ev_unsampled--;
	}
	b->size = MAX(b->size, r->size);
	b->mapped_bytes = MAX(b->mapped_bytes, r->mapped_bytes);
	b->mapped_rss = MAX(b->mapped_rss, r->mapped_rss);
	b->fds = MAX(b->fds, r->fds);
	b->maps = MAX(b->maps, r->maps);
	/* its size is its mappings' only if no sample knew better */
	b->flags &= r->flags;
	b->last_ns = r->ts_ns;
	if (r->ts_ns == s->cur_ts && s->cur_peak)
		b->at_peak = true;
	/* kept once known: a sample of it mapped only has none */
	if (r->exporter[0])
		memcpy(b->exporter, r->exporter, sizeof(b->exporter));
	if (r->name[0])
		memcpy(b->name, r->name, sizeof(b->name));
	return 0;
}

static void export_of(struct ap_dmabuf_seen *s, struct ap_dmabuf_seen_buf *b,
		      const struct ap_rec_dmabuf_ev *e, int64_t run)
{
	s->ev_exports++;
	b->exported = true;
	b->released = false;	/* an inode made again: live anew */
	b->export_ns = e->ts_ns;
	b->size = MAX(b->size, e->size);
	b->flags &= ~(uint32_t)AP_DMABUF_F_SIZE_FROM_MAP;	/* the export says its size */
	if (e->exporter[0])
		memcpy(b->exporter, e->exporter, sizeof(b->exporter));
	if (!b->sampled)
		s->ev_unsampled++;
	s->ev_live_bytes += e->size;
	s->ev_live++;
	if (s->ev_live_bytes <= s->ev_peak_bytes)
		return;
	s->ev_peak_bytes = s->ev_live_bytes;
	s->ev_peak_ns = e->ts_ns;
	s->ev_peak_buffers = s->ev_live;
	s->ev_peak_run = run;
	for (uint32_t i = 0; i < s->n; i++)
		s->b[i].at_ev_peak = s->b[i].exported && !s->b[i].released;
}

int ap_dmabuf_seen_event(struct ap_dmabuf_seen *s, const struct ap_rec_dmabuf_ev *e,
			 int64_t run)
{
	/* a release of a buffer no export made is not one of the target's: not kept */
	struct ap_dmabuf_seen_buf *b = e->kind == AP_DMABUF_EV_EXPORTED ? buf_of(s, e->inode) :
				       buf_find(s, e->inode);

	s->ev_method = e->method;
	if (e->kind == AP_DMABUF_EV_EXPORTED) {
		if (!b)
			return -ENOMEM;
		export_of(s, b, e, run);
	} else if (e->kind == AP_DMABUF_EV_RELEASED && b && b->exported && !b->released) {
		s->ev_releases++;
		b->released = true;
		b->release_ns = e->ts_ns;
		s->ev_live_bytes -= MIN(s->ev_live_bytes, e->size);
		s->ev_live--;
	}
	return 0;
}

bool ap_dmabuf_seen_any(const struct ap_dmabuf_seen *s)
{
	return s->samples || s->ev_exports;
}

void ap_dmabuf_seen_device(const struct ap_dmabuf_seen *s, bool started,
			   struct ap_dmabuf_peak *p)
{
	p->events = s->ev_exports && started;
	p->bytes = p->events ? s->ev_peak_bytes : s->peak_bytes;
	p->ns = p->events ? s->ev_peak_ns : s->peak_ns;
	p->buffers = p->events ? s->ev_peak_buffers : s->peak_buffers;
	p->run = p->events ? s->ev_peak_run : s->peak_run;
}

void ap_dmabuf_seen_free(struct ap_dmabuf_seen *s)
{
	free(s->b);
	ap_dmabuf_seen_init(s);
}
