/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dmabuf_iter: every dma-buf of the system from the kernel's BPF dma-buf iterator
 * (iter/dmabuf, 6.16 on; bpf/dmabuf_iter.bpf.c), as the set kernel/dmabuf.h parses. The
 * object is loaded once by its loader program (bpf_load.h) and attached as an iterator
 * link; each read makes an iterator from the link and reads its text whole.
 */
#ifndef ARENAPROF_RECORD_DMABUF_ITER_H
#define ARENAPROF_RECORD_DMABUF_ITER_H

#include "arenaprof/kernel/dmabuf.h"

struct ap_dmabuf_iter;

/*
 * 0 with *it, or a negative errno with err saying why there is no iterator: -ENOENT
 * "this kernel has no dma-buf iterator (iter/dmabuf, 6.16 on)", -EPERM, or the kernel's
 * own answer to the load or attach.
 */
int ap_dmabuf_iter_open(struct ap_dmabuf_iter **it, char *err);
/* Every buffer of the system into all (its fds and maps 0): 0 or a negative errno. */
int ap_dmabuf_iter_read(struct ap_dmabuf_iter *it, struct ap_dmabuf_set *all, char *err);
void ap_dmabuf_iter_close(struct ap_dmabuf_iter *it);

#endif
