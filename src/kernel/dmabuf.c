// SPDX-License-Identifier: Apache-2.0
/* dmabuf: the dma-bufs a process holds, by fd and by mapping (dmabuf.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/kernel/dmabuf.h"
#include "arenaprof/kernel/procfs.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/grow.h"
#include "arenaprof/util/textparse.h"

#define FDINFO_MAX (64u << 10)
#define MEMINFO_MAX (64u << 10)

bool ap_dmabuf_link(const char *target)
{
	return !strncmp(target, "/dmabuf:", 8) || !strcmp(target, "anon_inode:dmabuf");
}

bool ap_dmabuf_map_path(const char *path)
{
	return !strncmp(path, "/dmabuf:", 8);
}

const char *ap_dmabuf_exporter_kind(const char *e)
{
	/* the heaps export under their own names (drivers/dma-buf/heaps/) */
	if (!strcmp(e, "system") || !strcmp(e, "system-uncached"))
		return "DMA heap (system)";
	if (!strcmp(e, "reserved") || !strcmp(e, "linux,cma") || !strcmp(e, "default_cma_region") ||
	    strstr(e, "cma"))
		return "DMA heap (CMA)";
	if (!strcmp(e, "udmabuf"))
		return "udmabuf";
	/* DRM PRIME exports with its module's name; some drivers with their own */
	if (!strcmp(e, "drm") || !strncmp(e, "drm_", 4) || !strcmp(e, "i915") ||
	    !strcmp(e, "amdgpu") || !strcmp(e, "rknpu") || !strcmp(e, "panfrost") ||
	    !strcmp(e, "panthor") || !strcmp(e, "etnaviv") || !strcmp(e, "virtio_gpu"))
		return "DRM/GEM";
	return "";
}

/* A string value into a fixed field, cut and cleaned (it is the kernel's, not ours). */
static void copy_name(char *dst, const char *s, size_t n)
{
	if (n > AP_DMABUF_NAME_LEN - 1)
		n = AP_DMABUF_NAME_LEN - 1;
	memcpy(dst, s, n);
	dst[n] = 0;
	ap_name_clean(dst);
}

static int number(struct ap_tp *t, const char *k, size_t kn, const char *v, size_t vn,
		  uint64_t *out)
{
	char q[AP_TP_QUOTE_LEN];
	int rc = ap_tp_u64(v, vn, out);

	if (rc == AP_TP_NAN)
		return ap_tp_bad(t, "%.*s: '%s' is not a number", (int)kn, k,
				 ap_tp_quote(q, v, vn));
	if (rc == AP_TP_RANGE)
		return ap_tp_bad(t, "%.*s: '%s' is too large", (int)kn, k, ap_tp_quote(q, v, vn));
	return 0;
}

/* "Key: value" split, both trimmed; a line without a key is an error. */
static int key_value(struct ap_tp *t, const char *s, size_t n, const char **k, size_t *kn,
		     const char **v, size_t *vn)
{
	const char *colon = memchr(s, ':', n);
	char q[AP_TP_QUOTE_LEN];

	*k = s;
	*kn = colon ? (size_t)(colon - s) : 0;
	ap_tp_trim(k, kn);
	if (!colon || !*kn)
		return ap_tp_bad(t, "'%s' is not a 'key: value' line", ap_tp_quote(q, s, n));
	*v = colon + 1;
	*vn = n - (size_t)(*v - s);
	ap_tp_trim(v, vn);
	return 0;
}

int ap_dmabuf_parse_fdinfo(const char *buf, size_t len, const char *name,
			   struct ap_dmabuf_fdinfo *fi, char *err)
{
	struct ap_tp t;
	const char *s, *k, *v;
	size_t n, kn, vn;
	bool have_exp = false;
	int rc = 0;

	memset(fi, 0, sizeof(*fi));
	fi->size = fi->ino = fi->count = AP_NO_VALUE;
	ap_tp_init(&t, buf, len, name, err);
	while (!rc && ap_tp_next(&t, &s, &n)) {
		if (ap_tp_blank(s, n))
			continue;
		rc = key_value(&t, s, n, &k, &kn, &v, &vn);
		if (rc)
			break;
		if (ap_tp_eq(k, kn, "size"))
			rc = number(&t, k, kn, v, vn, &fi->size);
		else if (ap_tp_eq(k, kn, "ino"))
			rc = number(&t, k, kn, v, vn, &fi->ino);
		else if (ap_tp_eq(k, kn, "count"))
			rc = number(&t, k, kn, v, vn, &fi->count);
		else if (ap_tp_eq(k, kn, "exp_name"))
			copy_name(fi->exp_name, v, vn), have_exp = true;
		else if (ap_tp_eq(k, kn, "name"))
			copy_name(fi->name, v, vn);
	}
	if (!rc && (fi->size == AP_NO_VALUE || !have_exp))
		rc = ap_fail(err, -EINVAL, "%s: no %s line: not a dma-buf's fdinfo (a kernel "
			     "before 5.3 prints none)", name, have_exp ? "size" : "exp_name");
	if (rc) {
		memset(fi, 0, sizeof(*fi));
		fi->size = fi->ino = fi->count = AP_NO_VALUE;
	}
	return rc;
}

/* "<n> kB" in bytes */
static int kb(struct ap_tp *t, const char *k, size_t kn, const char *v, size_t vn,
	      uint64_t *out)
{
	char q[AP_TP_QUOTE_LEN];
	const char *p = v, *e = v + vn;
	uint64_t x;
	int rc = ap_tp_eat_dec(&p, e, &x);

	if (rc == AP_TP_NAN)
		return ap_tp_bad(t, "%.*s: '%s' is not a number", (int)kn, k,
				 ap_tp_quote(q, v, vn));
	if (rc == AP_TP_RANGE || x > UINT64_MAX / 1024)
		return ap_tp_bad(t, "%.*s: '%s' is too large", (int)kn, k, ap_tp_quote(q, v, vn));
	ap_tp_eat_sep(&p, e);
	if (e - p != 2 || p[0] != 'k' || p[1] != 'B')
		return ap_tp_bad(t, "%.*s: '%s' is not a size in kB", (int)kn, k,
				 ap_tp_quote(q, v, vn));
	*out = x * 1024;
	return 0;
}

int ap_dmabuf_parse_meminfo(const char *buf, size_t len, const char *name, struct ap_cma *c,
			    char *err)
{
	struct ap_tp t;
	const char *s, *k, *v;
	size_t n, kn, vn;
	int rc = 0;

	c->total = c->free = AP_NO_VALUE;
	ap_tp_init(&t, buf, len, name, err);
	while (!rc && ap_tp_next(&t, &s, &n)) {
		if (ap_tp_blank(s, n))
			continue;
		rc = key_value(&t, s, n, &k, &kn, &v, &vn);
		if (!rc && ap_tp_eq(k, kn, "CmaTotal"))
			rc = kb(&t, k, kn, v, vn, &c->total);
		else if (!rc && ap_tp_eq(k, kn, "CmaFree"))
			rc = kb(&t, k, kn, v, vn, &c->free);
	}
	if (rc)
		c->total = c->free = AP_NO_VALUE;
	return rc;
}

struct ap_dmabuf *ap_dmabuf_get(struct ap_dmabuf_set *set, uint64_t inode)
{
	uint32_t lo = 0, hi = set->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (set->b[mid].inode < inode)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < set->n && set->b[lo].inode == inode)
		return &set->b[lo];
	if (ap_grow32(&set->b, &set->cap, set->n, sizeof(*set->b), 16))
		return NULL;
	memmove(&set->b[lo + 1], &set->b[lo], (set->n - lo) * sizeof(*set->b));
	set->n++;
	memset(&set->b[lo], 0, sizeof(set->b[lo]));
	set->b[lo].inode = inode;
	set->b[lo].count = AP_NO_VALUE;
	return &set->b[lo];
}

/* The next space-separated token of [*p, e) */
static bool token(const char **p, const char *e, const char **tok, size_t *n)
{
	size_t left = (size_t)(e - *p);

	return ap_tp_token(p, &left, tok, n);
}

static int iter_line(struct ap_tp *t, const char *s, size_t n, struct ap_dmabuf_set *set)
{
	const char *p = s, *e = s + n, *tk[3];
	size_t tn[3], rest;
	char q[AP_TP_QUOTE_LEN];
	uint64_t ino, size;
	struct ap_dmabuf *b;

	for (int i = 0; i < 3; i++)
		if (!token(&p, e, &tk[i], &tn[i]))
			return ap_tp_bad(t, "'%s' is not 'INODE SIZE EXPORTER NAME'",
					 ap_tp_quote(q, s, n));
	if (ap_tp_u64(tk[0], tn[0], &ino) || ap_tp_u64(tk[1], tn[1], &size))
		return ap_tp_bad(t, "'%s': the inode and size must be numbers",
				 ap_tp_quote(q, s, n));
	b = ap_dmabuf_get(set, ino);
	if (!b)
		return ap_fail(t->err, -ENOMEM, "%s: out of memory", t->name);
	b->size = size;
	if (!ap_tp_eq(tk[2], tn[2], "-"))
		copy_name(b->exporter, tk[2], tn[2]);
	rest = (size_t)(e - p);
	ap_tp_trim(&p, &rest);
	if (rest && !ap_tp_eq(p, rest, "-"))
		copy_name(b->name, p, rest);
	return 0;
}

int ap_dmabuf_parse_iter(const char *buf, size_t len, const char *name,
			 struct ap_dmabuf_set *set, char *err)
{
	struct ap_tp t;
	const char *s;
	size_t n;
	int rc = 0;

	ap_dmabuf_clear(set);
	ap_tp_init(&t, buf, len, name, err);
	while (!rc && ap_tp_next(&t, &s, &n))
		if (!ap_tp_blank(s, n))
			rc = iter_line(&t, s, n, set);
	if (rc)
		ap_dmabuf_clear(set);
	else
		ap_dmabuf_total(set);
	set->source = AP_DMABUF_SRC_BPF_ITER;
	return rc;
}

/* A read's error as this module says it: the process gone, not allowed, or as is. */
static int read_fail(const char *path, int rc, char *err)
{
	if (rc == -ENOENT || rc == -ESRCH)
		return ap_fail(err, -ESRCH, "%s: the process does not exist (exited?)", path);
	if (rc == -EACCES || rc == -EPERM)
		return ap_fail(err, -EACCES, "no permission to read %s (run as root or the "
			       "process owner)", path);
	if (rc == -ENOMEM)
		return ap_fail(err, rc, "%s: out of memory", path);
	return ap_fail(err, rc, "%s: %s", path, strerror(-rc));
}

/* One fd: its fdinfo when its link is a dma-buf's. 0 also when it was closed meanwhile. */
static int read_fd(const char *dir, int fd_dir, const char *fd, struct ap_dmabuf_set *set,
		   char *err)
{
	char link[256], path[4096];
	struct ap_dmabuf_fdinfo fi;
	struct ap_dmabuf *b;
	struct stat st;
	char *buf;
	size_t len;
	ssize_t n;
	int rc;

	n = readlinkat(fd_dir, fd, link, sizeof(link) - 1);
	if (n < 0)
		return errno == ENOENT ? 0 : read_fail(dir, -errno, err);
	link[n] = 0;
	if (!ap_dmabuf_link(link))
		return 0;
	snprintf(path, sizeof(path), "%s/fdinfo/%s", dir, fd);
	rc = ap_read_file(path, FDINFO_MAX, &buf, &len);
	if (rc == -ENOENT)
		return 0;
	if (rc)
		return read_fail(path, rc, err);
	rc = ap_dmabuf_parse_fdinfo(buf, len, path, &fi, err);
	free(buf);
	if (rc)
		return rc;
	/* no "ino" line before 5.14 or so: the link's own inode is the buffer's */
	if (fi.ino == AP_NO_VALUE) {
		if (fstatat(fd_dir, fd, &st, 0))
			return errno == ENOENT ? 0 : ap_fail(err, -EINVAL, "%s: no ino line, and "
				"%s/fd/%s cannot be stat'ed: %s", path, dir, fd, strerror(errno));
		fi.ino = (uint64_t)st.st_ino;
	}
	b = ap_dmabuf_get(set, fi.ino);
	if (!b)
		return ap_fail(err, -ENOMEM, "%s: out of memory", path);
	b->fds++;
	b->size = fi.size;
	b->size_from_map = false;
	b->count = fi.count;
	snprintf(b->exporter, sizeof(b->exporter), "%s", fi.exp_name);
	snprintf(b->name, sizeof(b->name), "%s", fi.name);
	return 0;
}

static int read_fds(const char *dir, struct ap_dmabuf_set *set, char *err)
{
	char path[4096];
	struct dirent *de;
	DIR *d;
	int rc = 0;

	snprintf(path, sizeof(path), "%s/fd", dir);
	d = opendir(path);
	if (!d)
		return read_fail(path, -errno, err);
	while (!rc && (de = readdir(d)))
		if (de->d_name[0] != '.')
			rc = read_fd(dir, dirfd(d), de->d_name, set, err);
	closedir(d);
	return rc;
}

/* One "/dmabuf:" mapping: its Rss from smaps, into its buffer. */
static int add_map(const struct ap_map *m, const char *smaps, size_t len, const char *name,
		   struct ap_dmabuf_set *set, char *err)
{
	struct ap_dmabuf *b = ap_dmabuf_get(set, m->inode);
	struct ap_smaps sm;
	int rc;

	if (!b)
		return ap_fail(err, -ENOMEM, "%s: out of memory", name);
	rc = ap_procfs_parse_smaps_range(smaps, len, name, m->start, &sm, err);
	if (rc == -ENXIO)	/* unmapped between the two reads */
		return 0;
	if (rc)
		return rc;
	b->maps++;
	b->mapped_bytes += m->end - m->start;
	if (sm.rss != AP_NO_VALUE)
		b->mapped_rss += sm.rss;
	if (!b->fds && !b->size)	/* mapped only: its mappings are all we know */
		b->size_from_map = true;
	if (b->size_from_map)
		b->size = b->mapped_bytes;
	if (!b->name[0] && m->path[8])
		copy_name(b->name, m->path + 8, strlen(m->path + 8));
	return 0;
}

static int read_maps(const char *dir, struct ap_dmabuf_set *set, char *err)
{
	char path[4096], spath[4096];
	struct ap_maps maps = { 0 };
	char *buf = NULL, *smaps = NULL;
	size_t len, slen = 0;
	int rc;

	snprintf(path, sizeof(path), "%s/maps", dir);
	rc = ap_read_file(path, AP_PROCFS_MAX_MAPS, &buf, &len);
	if (rc)
		return read_fail(path, rc, err);
	rc = ap_procfs_parse_maps(buf, len, path, &maps, err);
	free(buf);
	for (size_t i = 0; !rc && i < maps.n; i++) {
		if (!ap_dmabuf_map_path(maps.m[i].path))
			continue;
		if (!smaps) {	/* only now: smaps walks every page table */
			snprintf(spath, sizeof(spath), "%s/smaps", dir);
			rc = ap_read_file(spath, AP_PROCFS_MAX_MAPS, &smaps, &slen);
			if (rc) {
				rc = read_fail(spath, rc, err);
				break;
			}
		}
		rc = add_map(&maps.m[i], smaps, slen, spath, set, err);
	}
	free(smaps);
	ap_maps_free(&maps);
	return rc;
}

int ap_dmabuf_read_dir(const char *dir, struct ap_dmabuf_set *set, char *err)
{
	int rc;

	ap_dmabuf_clear(set);
	set->source = AP_DMABUF_SRC_FDINFO;
	rc = read_fds(dir, set, err);
	if (!rc)
		rc = read_maps(dir, set, err);
	if (rc)
		ap_dmabuf_clear(set);
	ap_dmabuf_total(set);
	return rc;
}

int ap_dmabuf_read(int pid, struct ap_dmabuf_set *set, char *err)
{
	char dir[32];
	int rc, tries = 0;

	if (pid <= 0)
		return ap_fail(err, -EINVAL, "invalid process id %d", pid);
	snprintf(dir, sizeof(dir), "/proc/%d", pid);
	/* maps that change between two read()s can read as overlapping: twice more, as procfs */
	do
		rc = ap_dmabuf_read_dir(dir, set, err);
	while (rc == -EINVAL && ++tries < 3);
	return rc;
}

int ap_dmabuf_cma(struct ap_cma *c, char *err)
{
	char *buf;
	size_t len;
	int rc = ap_read_file("/proc/meminfo", MEMINFO_MAX, &buf, &len);

	c->total = c->free = AP_NO_VALUE;
	if (rc)
		return read_fail("/proc/meminfo", rc, err);
	rc = ap_dmabuf_parse_meminfo(buf, len, "/proc/meminfo", c, err);
	free(buf);
	return rc;
}

void ap_dmabuf_fill(struct ap_dmabuf_set *set, const struct ap_dmabuf_set *all)
{
	uint32_t j = 0;

	/* both sorted by inode: one merge */
	for (uint32_t i = 0; i < set->n; i++) {
		struct ap_dmabuf *b = &set->b[i];

		while (j < all->n && all->b[j].inode < b->inode)
			j++;
		if (j == all->n || all->b[j].inode != b->inode)
			continue;
		b->size = all->b[j].size;
		b->size_from_map = false;
		memcpy(b->exporter, all->b[j].exporter, sizeof(b->exporter));
		if (all->b[j].name[0])
			memcpy(b->name, all->b[j].name, sizeof(b->name));
	}
	set->source = AP_DMABUF_SRC_BPF_ITER;
	ap_dmabuf_total(set);
}

void ap_dmabuf_total(struct ap_dmabuf_set *set)
{
	set->bytes = set->mapped_rss = 0;
	for (uint32_t i = 0; i < set->n; i++) {
		set->bytes += set->b[i].size;
		set->mapped_rss += set->b[i].mapped_rss;
	}
}

bool ap_dmabuf_equal(const struct ap_dmabuf_set *a, const struct ap_dmabuf_set *b)
{
	if (a->n != b->n || a->source != b->source)
		return false;
	for (uint32_t i = 0; i < a->n; i++) {
		const struct ap_dmabuf *x = &a->b[i], *y = &b->b[i];

		if (x->inode != y->inode || x->size != y->size || x->fds != y->fds ||
		    x->maps != y->maps || x->mapped_bytes != y->mapped_bytes ||
		    x->mapped_rss != y->mapped_rss || strcmp(x->exporter, y->exporter) ||
		    strcmp(x->name, y->name))
			return false;
	}
	return true;
}

void ap_dmabuf_clear(struct ap_dmabuf_set *set)
{
	set->n = 0;
	set->bytes = set->mapped_rss = 0;
}

void ap_dmabuf_free(struct ap_dmabuf_set *set)
{
	free(set->b);
	memset(set, 0, sizeof(*set));
}
