// SPDX-License-Identifier: Apache-2.0
/* live_dmabuf: the target's dma-bufs in the live model (live.h, struct ap_live_dmabuf). */
#include "arenaprof/analyze/live.h"

/* Events count as the device figure only when they saw every export: from the start. */
static bool by_events(const struct ap_live *l)
{
	return l->dmabuf.events && !l->attached;
}

uint64_t ap_live_dmabuf_peak(const struct ap_live *l)
{
	return by_events(l) ? l->dmabuf.live_peak : l->dmabuf.held_peak;
}

static void peak_now(struct ap_live *l, uint64_t before, uint64_t ts)
{
	if (ap_live_dmabuf_peak(l) > before)
		l->dmabuf.peak_ns = ts;
}

void ap_live_dmabuf_poll(struct ap_live *l, const struct ap_rec_dmabuf *r)
{
	struct ap_live_dmabuf *d = &l->dmabuf;
	uint64_t before = ap_live_dmabuf_peak(l);

	d->seen |= r->buffers > 0;
	d->held = r->bytes;
	d->held_n = r->buffers;
	if (r->buffers || !d->source)
		d->source = r->source;
	if (r->events)
		d->events = r->events;
	if (r->bytes > d->held_peak)
		d->held_peak = r->bytes;
	peak_now(l, before, r->ts_ns);
}

void ap_live_dmabuf_event(struct ap_live *l, const struct ap_rec_dmabuf_ev *e)
{
	struct ap_live_dmabuf *d = &l->dmabuf;
	uint64_t before = ap_live_dmabuf_peak(l);

	d->events = e->method;
	if (e->kind == AP_DMABUF_EV_EXPORTED) {
		d->seen = true;
		d->live += e->size;
		d->live_n++;
	} else if (e->kind == AP_DMABUF_EV_RELEASED && d->live_n) {
		/* the program sends a release only for an export it kept: one of ours */
		d->live -= e->size < d->live ? e->size : d->live;
		d->live_n--;
	}
	if (d->live > d->live_peak)
		d->live_peak = d->live;
	peak_now(l, before, e->ts_ns);
}
