/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dmabuf_event: what bpf/dmabuf_events.bpf.c writes into its ring buffer and keeps in its
 * .bss, shared by bpf/ and src/record/dmabuf_events.c (as event.h is for the fault
 * programs). Plain __u32/__u64 fields, no vmlinux.h, so both sides compile it.
 */
#ifndef ARENAPROF_DMABUF_EVENT_H
#define ARENAPROF_DMABUF_EVENT_H

#ifdef __BPF__
/* vmlinux.h provides the __u32 family */
#else
#include <linux/types.h>
#endif

#define AP_DMABUF_EV_KEPT 16384		/* the target's live buffers the program tracks */
#define AP_DMABUF_EV_RING (256u << 10)	/* bytes: some 3,000 events between two drains */

enum ap_dmabuf_ev_kind {
	AP_DMABUF_EV_EXPORT = 1,	/* dma_buf_export() returned a buffer in the target */
	AP_DMABUF_EV_RELEASE = 2,	/* dma_buf_release() freed one of those, in any task */
};

struct ap_dmabuf_ev_raw {
	__u64 ts_ns;			/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 inode, size;
	__u32 kind;			/* enum ap_dmabuf_ev_kind */
	__u32 tid;			/* the task that exported or released it */
	char exporter[32];		/* exp_name at export; "" at release */
};

struct ap_dmabuf_ev_counters {
	__u64 ring_drops;		/* events the full ring lost */
	__u64 untracked;		/* exports past AP_DMABUF_EV_KEPT: release not seen */
};

#endif
