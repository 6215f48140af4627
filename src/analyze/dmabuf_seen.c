// SPDX-License-Identifier: Apache-2.0
/* dmabuf_seen: the peak of the target's dma-bufs and every buffer (dmabuf_seen.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/dmabuf_seen.h"
#include "arenaprof/util/grow.h"

#define MAX(a, b) ((a) > (b) ? (a) : (b))

void ap_dmabuf_seen_init(struct ap_dmabuf_seen *s)
{
	memset(s, 0, sizeof(*s));
	s->peak_run = -1;
	s->cma_total = s->cma_free = s->cma_free_min = AP_NO_VALUE;
	s->sys_bytes_peak = AP_NO_VALUE;
}

const char *ap_dmabuf_source_name(uint32_t source)
{
	return source == 1 ? "fdinfo" : source == 2 ? "bpf_iter" : "none";
}

int ap_dmabuf_seen_sample(struct ap_dmabuf_seen *s, const struct ap_rec_dmabuf *d,
			  int64_t run)
{
	s->samples++;
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

int ap_dmabuf_seen_buf(struct ap_dmabuf_seen *s, const struct ap_rec_dmabuf_buf *r)
{
	struct ap_dmabuf_seen_buf *b = NULL;

	for (uint32_t i = 0; i < s->n && !b; i++)
		if (s->b[i].inode == r->inode)
			b = &s->b[i];
	if (!b) {
		if (ap_grow32(&s->b, &s->cap, s->n, sizeof(*s->b), 16))
			return -ENOMEM;
		b = &s->b[s->n++];
		memset(b, 0, sizeof(*b));
		b->inode = r->inode;
		b->first_ns = r->ts_ns;
		b->flags = r->flags;
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

void ap_dmabuf_seen_free(struct ap_dmabuf_seen *s)
{
	free(s->b);
	ap_dmabuf_seen_init(s);
}
