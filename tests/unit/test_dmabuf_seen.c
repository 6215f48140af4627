// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the dma-buf events' side of report (src/analyze/dmabuf_seen.c): a hand
 * written sequence of exports, releases and samples, as record writes them, with the
 * figures it must give worked out by hand below: the live bytes' peak and its time, the
 * buffers no sample saw, a release of a buffer never exported (ignored), a release seen
 * twice (counted once), and the device peak for a started command (the events') and for
 * an attach (the samples').
 */
#include <string.h>

#include "arenaprof/analyze/dmabuf_seen.h"
#include "test.h"

#define KB(x) ((uint64_t)(x) * 1024)

static void ev(struct ap_dmabuf_seen *s, uint64_t ts, uint32_t kind, uint64_t ino,
	       uint64_t size)
{
	struct ap_rec_dmabuf_ev e = { .ts_ns = ts, .inode = ino, .size = size, .kind = kind,
				      .method = AP_DMABUF_EVENTS_FENTRY };

	if (kind == AP_DMABUF_EV_EXPORTED)
		strcpy(e.exporter, "system");
	ap_dmabuf_seen_event(s, &e, -1);
}

/* A sample holding inode ino by a mapping alone, its size its mapping's. */
static void sample_of(struct ap_dmabuf_seen *s, uint64_t ts, uint64_t ino, uint64_t size)
{
	struct ap_rec_dmabuf d = { .ts_ns = ts, .bytes = size, .buffers = 1, .source = 1,
				   .interval_ms = 100, .cma_total = AP_NO_VALUE,
				   .cma_free = AP_NO_VALUE, .sys_bytes = AP_NO_VALUE,
				   .events = AP_DMABUF_EVENTS_FENTRY };
	struct ap_rec_dmabuf_buf b = { .ts_ns = ts, .inode = ino, .size = size,
				       .mapped_bytes = size, .maps = 1,
				       .flags = AP_DMABUF_F_SIZE_FROM_MAP };

	ap_dmabuf_seen_sample(s, &d, -1);
	ap_dmabuf_seen_buf(s, &b);
}

static const struct ap_dmabuf_seen_buf *find(const struct ap_dmabuf_seen *s, uint64_t ino)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->b[i].inode == ino)
			return &s->b[i];
	return NULL;
}

int main(void)
{
	struct ap_dmabuf_seen s;
	struct ap_dmabuf_peak p;
	const struct ap_dmabuf_seen_buf *b;

	ap_dmabuf_seen_init(&s);
	/* A 1 MiB at 10, B 256 KiB at 20; a sample at 50 sees A alone (by its mapping) */
	ev(&s, 10, AP_DMABUF_EV_EXPORTED, 1, KB(1024));
	ev(&s, 20, AP_DMABUF_EV_EXPORTED, 2, KB(256));
	sample_of(&s, 50, 1, KB(1024));
	/* S 2 MiB lives from 60 to 61: the peak, 3.25 MiB in 3, at 60 */
	ev(&s, 60, AP_DMABUF_EV_EXPORTED, 3, KB(2048));
	ev(&s, 61, AP_DMABUF_EV_RELEASED, 3, KB(2048));
	/* a release of an inode never exported, and B's release seen twice */
	ev(&s, 70, AP_DMABUF_EV_RELEASED, 99, KB(4096));
	ev(&s, 80, AP_DMABUF_EV_RELEASED, 2, KB(256));
	ev(&s, 81, AP_DMABUF_EV_RELEASED, 2, KB(256));
	CHECK_U64("events: 3 exports", s.ev_exports, 3);
	CHECK_U64("events: 2 releases (the unknown one and the repeat not counted)",
		  s.ev_releases, 2);
	CHECK_U64("events: peak A + B + S", s.ev_peak_bytes, KB(1024 + 256 + 2048));
	CHECK_U64("events: ... in 3 buffers", s.ev_peak_buffers, 3);
	CHECK_U64("events: ... first reached at S's export", s.ev_peak_ns, 60);
	CHECK_U64("events: A alone live at the end", s.ev_live_bytes, KB(1024));
	CHECK_U64("events: B and S were in no sample", s.ev_unsampled, 2);
	b = find(&s, 3);
	CHECK("events: S exported at 60, released at 61, never sampled, live at the peak",
	      b && b->exported && b->released && b->export_ns == 60 && b->release_ns == 61 &&
	      !b->sampled && b->at_ev_peak, "%s", b ? "fields differ" : "not found");
	b = find(&s, 1);
	CHECK("events: A's size from its export, not its mapping's (size_from_map cleared)",
	      b && b->sampled && !(b->flags & AP_DMABUF_F_SIZE_FROM_MAP) &&
	      !strcmp(b->exporter, "system"), "%s", b ? "flag or exporter" : "not found");
	CHECK("events: no buffer for the unknown release", !find(&s, 99), "inode 99 kept");
	ap_dmabuf_seen_device(&s, true, &p);
	CHECK("device peak of a started command: the events'", p.events &&
	      p.bytes == KB(3328) && p.buffers == 3 && p.ns == 60, "%d %" PRIu64,
	      p.events, p.bytes);
	ap_dmabuf_seen_device(&s, false, &p);
	CHECK("device peak of an attach: the samples'", !p.events && p.bytes == KB(1024) &&
	      p.ns == 50, "%d %" PRIu64, p.events, p.bytes);
	ap_dmabuf_seen_free(&s);
	TEST_EXIT();
}
