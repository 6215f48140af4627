/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bpf_attach: attaches loaded BPF programs by fd (see bpf_load.h: libbpf's attach calls
 * need a program libbpf loaded itself). Each call returns 0 or a negative errno and
 * fills a link that ap_bpf_link_close detaches.
 */
#ifndef ARENAPROF_RECORD_BPF_ATTACH_H
#define ARENAPROF_RECORD_BPF_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

struct ap_bpf_link {
	int fd;			/* the BPF link, -1: none */
	int pfd;		/* its perf event (perf, uprobe), -1: none */
};

#define AP_BPF_LINK_NONE ((struct ap_bpf_link){ .fd = -1, .pfd = -1 })

/* tp_btf, fentry and fexit programs: their target is in the program. */
int ap_bpf_attach_tracing(int prog_fd, struct ap_bpf_link *l);
/* A perf event opened by the caller; the link owns pfd from here on, even on failure. */
int ap_bpf_attach_perf_event(int prog_fd, int pfd, uint64_t cookie, struct ap_bpf_link *l);
/* A uprobe (ret: uretprobe) at file offset off of path, in process pid only. */
int ap_bpf_attach_uprobe(int prog_fd, pid_t pid, const char *path, uint64_t off, bool ret,
			 uint64_t cookie, struct ap_bpf_link *l);
void ap_bpf_link_close(struct ap_bpf_link *l);

#endif
