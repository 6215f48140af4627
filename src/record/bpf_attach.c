// SPDX-License-Identifier: Apache-2.0
/*
 * bpf_attach: programs attached by fd. See include/arenaprof/record/bpf_attach.h.
 *
 * A uprobe is a perf event of the kernel's "uprobe" PMU (its type and retprobe bit in
 * /sys/bus/event_source/devices/uprobe/), with the path and offset in config1 and
 * config2, the way libbpf attaches one; the program joins it by a BPF perf link, which
 * carries the cookie (5.15).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include <bpf/bpf.h>

#include "arenaprof/record/bpf_attach.h"

#define UPROBE_PMU "/sys/bus/event_source/devices/uprobe"

int ap_bpf_attach_tracing(int prog_fd, struct ap_bpf_link *l)
{
	*l = AP_BPF_LINK_NONE;
	l->fd = bpf_raw_tracepoint_open(NULL, prog_fd);
	return l->fd < 0 ? -errno : 0;
}

int ap_bpf_attach_perf_event(int prog_fd, int pfd, uint64_t cookie, struct ap_bpf_link *l)
{
	LIBBPF_OPTS(bpf_link_create_opts, lo, .perf_event.bpf_cookie = cookie);
	int e;

	*l = AP_BPF_LINK_NONE;
	l->pfd = pfd;
	l->fd = bpf_link_create(prog_fd, pfd, BPF_PERF_EVENT, &lo);
	if (l->fd < 0 || ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0)) {
		e = errno;
		ap_bpf_link_close(l);
		return -e;
	}
	return 0;
}

/* An integer from a sysfs file, e.g. "8\n" or with prefix "config:" "config:0\n". */
static int read_sysfs_int(const char *path, const char *prefix, int *v)
{
	FILE *f = fopen(path, "re");
	char fmt[32];
	int ok;

	if (!f)
		return -errno;
	snprintf(fmt, sizeof(fmt), "%s%%d", prefix);
	ok = fscanf(f, fmt, v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

int ap_bpf_attach_uprobe(int prog_fd, pid_t pid, const char *path, uint64_t off, bool ret,
			 uint64_t cookie, struct ap_bpf_link *l)
{
	struct perf_event_attr attr;
	int type, bit = 0, e, pfd;

	*l = AP_BPF_LINK_NONE;
	e = read_sysfs_int(UPROBE_PMU "/type", "", &type);
	if (!e && ret)
		e = read_sysfs_int(UPROBE_PMU "/format/retprobe", "config:", &bit);
	if (e)
		return e;
	if (bit < 0 || bit > 63)
		return -EINVAL;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = (__u32)type;
	attr.config = ret ? 1ull << bit : 0;
	attr.config1 = (__u64)(unsigned long)path;
	attr.config2 = off;
	pfd = (int)syscall(__NR_perf_event_open, &attr, pid, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)
		return -errno;
	return ap_bpf_attach_perf_event(prog_fd, pfd, cookie, l);
}

void ap_bpf_link_close(struct ap_bpf_link *l)
{
	if (l->fd >= 0)
		close(l->fd);
	if (l->pfd >= 0)
		close(l->pfd);
	*l = AP_BPF_LINK_NONE;
}
