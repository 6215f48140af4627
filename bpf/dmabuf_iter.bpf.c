// SPDX-License-Identifier: (GPL-2.0-only OR Apache-2.0)
/*
 * dmabuf_iter.bpf.c: every dma-buf of the system, one line each, through the kernel's
 * dma-buf iterator (iter/dmabuf, 6.16 on): "INODE SIZE EXPORTER NAME\n", an empty field
 * as "-" (src/kernel/dmabuf.c, ap_dmabuf_parse_iter, reads it). The names are the
 * exporter's and DMA_BUF_SET_NAME's: bytes below 0x21 become '_' so a line stays one line
 * of four fields (the name, last, keeps its spaces as '_' too).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>

char LICENSE[] SEC("license") = "GPL";

#define NAME_LEN 32	/* DMA_BUF_NAME_LEN */

/*
 * The iterator's context (kernel/bpf/dmabuf_iter.c): not in the checked-in vmlinux.h,
 * whose kernels predate it; CO-RE relocates the fields against the running kernel's.
 */
struct bpf_iter__dmabuf {
	struct bpf_iter_meta *meta;
	struct dma_buf *dmabuf;
} __attribute__((preserve_access_index));

static __always_inline void clean(char *s)
{
	for (int i = 0; i < NAME_LEN; i++) {
		if (!s[i])
			break;
		if ((unsigned char)s[i] < 0x21 || s[i] == 0x7f)
			s[i] = '_';
	}
	if (!s[0]) {
		s[0] = '-';
		s[1] = 0;
	}
}

SEC("iter/dmabuf")
int dmabuf_list(struct bpf_iter__dmabuf *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct dma_buf *d = ctx->dmabuf;
	char name[NAME_LEN] = {}, exp[NAME_LEN] = {};
	const char *pname = NULL, *pexp = NULL;
	unsigned long ino = 0;
	__u64 size;

	if (!d)
		return 0;
	if (BPF_CORE_READ_INTO(&ino, d, file, f_inode, i_ino))
		return 0;
	size = BPF_CORE_READ(d, size);
	/* name is under the buffer's name_lock: a racy copy, at worst a torn name */
	if (!BPF_CORE_READ_INTO(&pname, d, name) && pname)
		bpf_probe_read_kernel_str(name, sizeof(name), pname);
	if (!BPF_CORE_READ_INTO(&pexp, d, exp_name) && pexp)
		bpf_probe_read_kernel_str(exp, sizeof(exp), pexp);
	name[NAME_LEN - 1] = 0;
	exp[NAME_LEN - 1] = 0;
	clean(name);
	clean(exp);
	BPF_SEQ_PRINTF(seq, "%lu %llu %s %s\n", ino, size, exp, name);
	return 0;
}
