/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dmabuf: the dma-bufs a process holds (docs/dmabuf.md). An NPU or GPU delegate's buffers
 * are dma-bufs exported by a DMA heap (system, cma), a DRM driver or udmabuf: neither in
 * the arena nor in the process's anonymous memory, and a buffer held only by an fd shows
 * in no smaps figure. This module finds them in /proc:
 *
 *   - by fd: fd/N whose link is "/dmabuf:NAME" (5.3 on) or "anon_inode:dmabuf" (before),
 *     and fdinfo/N: "size", "exp_name", "count", "name" (5.3 on), "ino" (the inode);
 *   - by mapping: "/dmabuf:NAME" entries of maps (their inode column) and their Rss in
 *     smaps (read only when maps has such an entry: smaps walks every page table).
 *
 * Buffers are kept once per inode. The system-wide list of the BPF dma-buf iterator
 * (iter/dmabuf, 6.16 on; record/dmabuf_iter.c) is parsed here too, and can stand in for
 * fdinfo's sizes and names (ap_dmabuf_fill). /proc/meminfo gives CmaTotal and CmaFree.
 *
 * Parsers take a buffer (need not be NUL-terminated) and a name for messages; a line that
 * does not parse is -EINVAL with "NAME:LINE: why". Unknown keys are ignored. Readers take
 * a directory laid out as /proc/PID ("/proc/123", or a fixture's copy) and return 0 or a
 * negative errno with one line in err: -ESRCH the process is gone, -EACCES not allowed,
 * -EINVAL contents that do not parse, -ENOMEM. An fd closed between listing and reading
 * it is skipped (the process changes under us), not an error.
 */
#ifndef ARENAPROF_KERNEL_DMABUF_H
#define ARENAPROF_KERNEL_DMABUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef AP_NO_VALUE
#define AP_NO_VALUE UINT64_MAX	/* a field that is absent (same as trace.h) */
#endif

#define AP_DMABUF_NAME_LEN 32	/* the kernel's DMA_BUF_NAME_LEN, NUL included */

enum ap_dmabuf_source {
	AP_DMABUF_SRC_NONE = 0,
	AP_DMABUF_SRC_FDINFO = 1,	/* sizes and exporters from fdinfo */
	AP_DMABUF_SRC_BPF_ITER = 2,	/* from the BPF dma-buf iterator */
};

/* One fdinfo file of a dma-buf fd; AP_NO_VALUE for a field that is absent. */
struct ap_dmabuf_fdinfo {
	uint64_t size, ino, count;
	char exp_name[AP_DMABUF_NAME_LEN];	/* "" when absent */
	char name[AP_DMABUF_NAME_LEN];
};

/* One buffer the process holds, by fd, by mapping, or both. */
struct ap_dmabuf {
	uint64_t inode;
	uint64_t size;			/* bytes; 0 unknown (only mapped, no source) */
	uint64_t mapped_bytes;		/* the sizes of its mappings in the process */
	uint64_t mapped_rss;		/* their Rss (smaps) */
	uint64_t count;			/* the file's references (fdinfo), AP_NO_VALUE */
	uint32_t fds, maps;		/* the process's fds and mappings of it */
	bool size_from_map;		/* size is only its mappings' (no fd, no iterator) */
	char exporter[AP_DMABUF_NAME_LEN];	/* exp_name: "system", "udmabuf", ... */
	char name[AP_DMABUF_NAME_LEN];	/* DMA_BUF_SET_NAME's, "" none */
};

struct ap_dmabuf_set {
	struct ap_dmabuf *b;		/* by inode, ascending */
	uint32_t n, cap;
	uint32_t source;		/* enum ap_dmabuf_source of sizes and names */
	uint64_t bytes, mapped_rss;	/* sums over b (ap_dmabuf_total) */
};

/* /proc/meminfo: CmaTotal, CmaFree in bytes, AP_NO_VALUE without CONFIG_CMA. */
struct ap_cma {
	uint64_t total, free;
};

/* Is this fd link a dma-buf's? ("/dmabuf:..." or "anon_inode:dmabuf") */
bool ap_dmabuf_link(const char *target);
/* Is this maps path a dma-buf mapping? ("/dmabuf:...") */
bool ap_dmabuf_map_path(const char *path);
/*
 * What kind of exporter an exp_name is, in words: "DMA heap (system)", "DMA heap (CMA)",
 * "udmabuf", "DRM/GEM", or "" when the name says nothing this module knows.
 */
const char *ap_dmabuf_exporter_kind(const char *exp_name);

int ap_dmabuf_parse_fdinfo(const char *buf, size_t len, const char *name,
			   struct ap_dmabuf_fdinfo *fi, char *err);
int ap_dmabuf_parse_meminfo(const char *buf, size_t len, const char *name, struct ap_cma *c,
			    char *err);
/*
 * The iterator's text: one buffer a line, "INODE SIZE EXPORTER NAME" with EXPORTER and
 * NAME as "-" when empty (record/dmabuf_iter.c prints them so). Every buffer of the
 * system goes into set (its fds and maps 0).
 */
int ap_dmabuf_parse_iter(const char *buf, size_t len, const char *name,
			 struct ap_dmabuf_set *set, char *err);

/* The buffers of dir (a /proc/PID layout): its fds and its mappings. */
int ap_dmabuf_read_dir(const char *dir, struct ap_dmabuf_set *set, char *err);
/* /proc/PID; a read that does not parse is tried twice more (the process changes under it) */
int ap_dmabuf_read(int pid, struct ap_dmabuf_set *set, char *err);
int ap_dmabuf_cma(struct ap_cma *c, char *err);	/* /proc/meminfo */

/*
 * Sizes, exporters and names of set's buffers from all (the iterator's system-wide
 * list): source becomes AP_DMABUF_SRC_BPF_ITER. A buffer all lacks keeps what it had.
 */
void ap_dmabuf_fill(struct ap_dmabuf_set *set, const struct ap_dmabuf_set *all);
/* The buffer of this inode, added (zeroed, count AP_NO_VALUE) when new; NULL: no memory. */
struct ap_dmabuf *ap_dmabuf_get(struct ap_dmabuf_set *set, uint64_t inode);
/* set->bytes and set->mapped_rss from its buffers. */
void ap_dmabuf_total(struct ap_dmabuf_set *set);
/* The same buffers with the same figures: record writes a sample only on a change. */
bool ap_dmabuf_equal(const struct ap_dmabuf_set *a, const struct ap_dmabuf_set *b);
void ap_dmabuf_clear(struct ap_dmabuf_set *set);	/* empty, memory kept */
void ap_dmabuf_free(struct ap_dmabuf_set *set);

#endif
