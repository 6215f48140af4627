/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dmabuf_seen: the accelerator half of a trace, from its AP_REC_DMABUF samples and their
 * buffers (trace.h): the peak of the target's dma-buf bytes and when it came (time and
 * run), every buffer it held once per inode, the source of the figures and the system's
 * CMA. A trace without dma-buf records leaves it empty (samples 0).
 *
 * Its AP_REC_DMABUF_EV events, where record could trace them, give the buffers the target
 * exported and their releases at their times: the live bytes at every export, their peak
 * and when, and the buffers no sample saw (held for less than one interval).
 */
#ifndef ARENAPROF_ANALYZE_DMABUF_SEEN_H
#define ARENAPROF_ANALYZE_DMABUF_SEEN_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/trace/trace.h"

struct ap_dmabuf_seen_buf {
	uint64_t inode;
	uint64_t size;			/* the largest seen */
	uint64_t mapped_bytes, mapped_rss;	/* the largest seen */
	uint32_t fds, maps;		/* the most seen */
	uint32_t flags;			/* AP_DMABUF_F_*: set in every sample */
	bool at_peak;			/* held in the peak's sample */
	uint64_t first_ns, last_ns;	/* the samples it was first and last in */
	char exporter[32], name[32];	/* the latest known ("" never) */
	bool sampled;			/* in a sample (else only its events saw it) */
	bool exported, released;	/* its events */
	bool at_ev_peak;		/* live at the events' peak */
	uint64_t export_ns, release_ns;	/* their times */
};

/* The peak the verdict's device line gives: the events' where there are some. */
struct ap_dmabuf_peak {
	uint64_t bytes, ns;
	uint32_t buffers;
	int64_t run;
	bool events;			/* from the events, else from the samples */
};

struct ap_dmabuf_seen {
	uint32_t samples;
	uint32_t source;		/* of the latest sample: 1 fdinfo, 2 bpf_iter */
	uint32_t interval_ms;
	uint64_t peak_bytes, peak_mapped_rss, peak_ns;
	uint32_t peak_buffers;
	int64_t peak_run;		/* the run in progress at the peak, -1 none yet */
	uint64_t max_mapped_rss;	/* the largest mapped Rss of any sample */
	uint64_t last_bytes, last_ns;	/* the latest sample's */
	uint32_t last_buffers;
	uint64_t cma_total, cma_free;	/* the latest known, AP_NO_VALUE none */
	uint64_t cma_free_min;		/* the lowest CmaFree seen */
	uint64_t sys_bytes_peak;	/* the system's, bpf_iter only; AP_NO_VALUE none */
	/* the events: the target's exports and their releases */
	uint32_t ev_method;		/* AP_DMABUF_EVENTS_* of the samples or events */
	uint32_t ev_exports, ev_releases;
	uint64_t ev_live_bytes;		/* exported, not yet released */
	uint32_t ev_live;
	uint64_t ev_peak_bytes, ev_peak_ns;	/* the live bytes' peak, its first time */
	uint32_t ev_peak_buffers;
	int64_t ev_peak_run;
	uint32_t ev_unsampled;		/* buffers exported that no sample held */
	struct ap_dmabuf_seen_buf *b;	/* by first appearance */
	uint32_t n, cap;
	/* private: the sample whose buffers come next */
	uint64_t cur_ts;
	bool cur_peak;
};

void ap_dmabuf_seen_init(struct ap_dmabuf_seen *s);
/* A sample; run: the run in progress then (runs begun minus 1). 0 or -ENOMEM. */
int ap_dmabuf_seen_sample(struct ap_dmabuf_seen *s, const struct ap_rec_dmabuf *d,
			  int64_t run);
int ap_dmabuf_seen_buf(struct ap_dmabuf_seen *s, const struct ap_rec_dmabuf_buf *b);
/* An event; run: the run in progress at its time. 0 or -ENOMEM. */
int ap_dmabuf_seen_event(struct ap_dmabuf_seen *s, const struct ap_rec_dmabuf_ev *e,
			 int64_t run);
/* Anything to show: a sample or an export. */
bool ap_dmabuf_seen_any(const struct ap_dmabuf_seen *s);
/* The device peak: the events' for a target the recorder started (it saw every export). */
void ap_dmabuf_seen_device(const struct ap_dmabuf_seen *s, bool started,
			   struct ap_dmabuf_peak *p);
/* "fdinfo", "bpf_iter" or "none" */
const char *ap_dmabuf_source_name(uint32_t source);
/* "fentry" or "none" */
const char *ap_dmabuf_events_name(uint32_t method);
void ap_dmabuf_seen_free(struct ap_dmabuf_seen *s);

#endif
