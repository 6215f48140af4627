// SPDX-License-Identifier: Apache-2.0
/* dmabuf_iter: the system's dma-bufs through the BPF iterator (dmabuf_iter.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "arenaprof/record/bpf_load.h"
#include "arenaprof/record/dmabuf_iter.h"
#include "arenaprof/util/err.h"
#include "dmabuf_iter.skel.h"

#define ITER_MAX (16u << 20)	/* 16 MiB of lines: some 300,000 buffers */

struct ap_dmabuf_iter {
	struct dmabuf_iter_bpf *skel;
	struct ap_bpf_loaded ld;
	int link_fd;
};

void ap_dmabuf_iter_close(struct ap_dmabuf_iter *it)
{
	if (!it)
		return;
	if (it->link_fd >= 0)
		close(it->link_fd);
	ap_bpf_unload(&it->ld);
	dmabuf_iter_bpf__destroy(it->skel);
	free(it);
}

int ap_dmabuf_iter_open(struct ap_dmabuf_iter **out, char *err)
{
	struct ap_dmabuf_iter *it = calloc(1, sizeof(*it));
	char why[AP_ERR_LEN];
	int rc, fd;

	*out = NULL;
	if (!it)
		return ap_fail(err, -ENOMEM, "out of memory");
	it->link_fd = -1;
	it->skel = dmabuf_iter_bpf__open();
	if (!it->skel) {
		rc = -errno;
		free(it);
		return ap_fail(err, rc, "opening the dma-buf iterator's BPF object failed: %s",
			       strerror(-rc));
	}
	rc = ap_bpf_load(it->skel->obj, &it->ld, false, why);
	if (rc) {
		ap_dmabuf_iter_close(it);
		/* the attach target bpf_iter_dmabuf is not in the kernel's BTF */
		if (rc == -ENOENT || rc == -ESRCH || rc == -EINVAL)
			return ap_fail(err, -ENOENT, "this kernel has no dma-buf iterator "
				       "(iter/dmabuf, 6.16 on): %s", why);
		return ap_fail(err, rc, "loading the dma-buf iterator failed: %s", why);
	}
	fd = bpf_link_create(ap_bpf_prog_fd(&it->ld, it->skel->progs.dmabuf_list), 0,
			     BPF_TRACE_ITER, NULL);
	if (fd < 0) {
		rc = -errno;
		ap_dmabuf_iter_close(it);
		return ap_fail(err, rc, "attaching the dma-buf iterator failed: %s",
			       strerror(-rc));
	}
	it->link_fd = fd;
	*out = it;
	return 0;
}

/* An iterator fd is a seq_file without a position: read() to the end, not pread. */
static int read_stream(int fd, char **out, size_t *len)
{
	size_t cap = 1 << 16, got = 0;
	char *buf = malloc(cap + 1), *nb;
	ssize_t n;

	if (!buf)
		return -ENOMEM;
	for (;;) {
		if (got == cap) {
			if (cap >= ITER_MAX) {
				free(buf);
				return -EFBIG;
			}
			nb = realloc(buf, cap * 2 + 1);
			if (!nb) {
				free(buf);
				return -ENOMEM;
			}
			buf = nb;
			cap *= 2;
		}
		n = read(fd, buf + got, cap - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			n = -errno;
			free(buf);
			return (int)n;
		}
		if (!n)
			break;
		got += (size_t)n;
	}
	buf[got] = 0;
	*out = buf;
	*len = got;
	return 0;
}

int ap_dmabuf_iter_read(struct ap_dmabuf_iter *it, struct ap_dmabuf_set *all, char *err)
{
	char *buf = NULL;
	size_t len = 0;
	int fd = bpf_iter_create(it->link_fd), rc;

	if (fd < 0)
		return ap_fail(err, -errno, "creating a dma-buf iterator failed: %s",
			       strerror(errno));
	rc = read_stream(fd, &buf, &len);
	close(fd);
	if (rc)
		return ap_fail(err, rc, "reading the dma-buf iterator failed: %s", strerror(-rc));
	rc = ap_dmabuf_parse_iter(buf, len, "iter/dmabuf", all, err);
	free(buf);
	return rc;
}
