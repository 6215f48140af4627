/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dmabuf_events: the target's dma-buf exports and releases as they happen, with their
 * times, from bpf/dmabuf_events.bpf.c (fexit of dma_buf_export, fentry of
 * dma_buf_release; docs/dmabuf.md). Attached before the target runs, so that every buffer
 * it makes is seen, even one freed before the next sample. A kernel that refuses fentry
 * (no BTF, lockdown, a host that forbids trampolines) leaves the polls alone.
 */
#ifndef ARENAPROF_RECORD_DMABUF_EVENTS_H
#define ARENAPROF_RECORD_DMABUF_EVENTS_H

#include "arenaprof/dmabuf_event.h"

struct ap_dmabuf_events;

typedef void (*ap_dmabuf_ev_fn)(void *ctx, const struct ap_dmabuf_ev_raw *e);

/*
 * Loads and attaches the programs for tgid: 0 with *ev, or a negative errno with err
 * saying why not ("fentry of dma_buf_export refused: Operation not permitted (EPERM)").
 */
int ap_dmabuf_events_open(struct ap_dmabuf_events **ev, int tgid, char *err);
/* Every event queued so far, in order, to fn: their number, or a negative errno. */
int ap_dmabuf_events_drain(struct ap_dmabuf_events *ev, ap_dmabuf_ev_fn fn, void *ctx,
			   char *err);
void ap_dmabuf_events_counters(const struct ap_dmabuf_events *ev,
			       struct ap_dmabuf_ev_counters *c);
void ap_dmabuf_events_close(struct ap_dmabuf_events *ev);

#endif
