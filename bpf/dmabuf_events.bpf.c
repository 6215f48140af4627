// SPDX-License-Identifier: (GPL-2.0-only OR Apache-2.0)
/*
 * dmabuf_events.bpf.c: the target's dma-buf exports and their releases, with exact times
 * (src/record/dmabuf_events.c reads them; docs/dmabuf.md).
 *
 * Every exporter (a DMA heap, udmabuf, DRM PRIME) makes its buffer with dma_buf_export();
 * its fexit, in the caller's context, keeps the buffers the target's threads made, by
 * their struct dma_buf pointer. The buffer is freed by dma_buf_release(), the d_release
 * of its dentry, when its last file reference goes: in whichever task dropped it (a
 * process the buffer was passed to, a kworker), so the release is matched by the pointer
 * (dentry->d_fsdata) and not by the task; the inode is gone from the dentry by then, so
 * the export's is sent. Neither function has a tracepoint in the kernels measured (6.1 to
 * 6.18).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

#include "arenaprof/dmabuf_event.h"

char LICENSE[] SEC("license") = "GPL";

/* Set by userspace before load. A tgid that can never exist matches nothing. */
const volatile __u32 target_tgid = 0xffffffff;

struct kept {
	__u64 inode, size;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, AP_DMABUF_EV_KEPT);
	__type(key, __u64);		/* struct dma_buf * */
	__type(value, struct kept);
} bufs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, AP_DMABUF_EV_RING);
} dmabuf_ring SEC(".maps");

/* .bss: read by userspace through the mapped skeleton */
struct ap_dmabuf_ev_counters counters;

static __always_inline void send(__u32 kind, __u64 inode, __u64 size, const char *exp)
{
	struct ap_dmabuf_ev_raw *e = bpf_ringbuf_reserve(&dmabuf_ring, sizeof(*e), 0);

	if (!e) {
		__sync_fetch_and_add(&counters.ring_drops, 1);
		return;
	}
	e->ts_ns = bpf_ktime_get_ns();
	e->inode = inode;
	e->size = size;
	e->kind = kind;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	e->exporter[0] = 0;
	if (exp)
		bpf_probe_read_kernel_str(e->exporter, sizeof(e->exporter), exp);
	bpf_ringbuf_submit(e, 0);
}

SEC("fexit/dma_buf_export")
int BPF_PROG(dmabuf_export, const void *info, struct dma_buf *d)
{
	struct kept k = {};
	const char *exp = NULL;
	__u64 key = (__u64)d;

	if ((bpf_get_current_pid_tgid() >> 32) != target_tgid)
		return 0;
	if (!d || key >= (__u64)-4095)	/* NULL or ERR_PTR: nothing was made */
		return 0;
	k.size = BPF_CORE_READ(d, size);
	BPF_CORE_READ_INTO(&k.inode, d, file, f_inode, i_ino);
	BPF_CORE_READ_INTO(&exp, d, exp_name);
	if (bpf_map_update_elem(&bufs, &key, &k, BPF_NOEXIST))
		__sync_fetch_and_add(&counters.untracked, 1);	/* its release goes unseen */
	send(AP_DMABUF_EV_EXPORT, k.inode, k.size, exp);
	return 0;
}

SEC("fentry/dma_buf_release")
int BPF_PROG(dmabuf_release, struct dentry *dentry)
{
	__u64 key = (__u64)BPF_CORE_READ(dentry, d_fsdata);
	struct kept *k = bpf_map_lookup_elem(&bufs, &key);

	if (!k)
		return 0;	/* not one of the target's */
	send(AP_DMABUF_EV_RELEASE, k->inode, k->size, NULL);
	bpf_map_delete_elem(&bufs, &key);
	return 0;
}
