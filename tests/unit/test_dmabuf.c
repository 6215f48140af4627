// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the dma-buf reader (src/kernel/dmabuf.c) on the fixtures in
 * tests/fixtures/dmabuf/ (README there): a /proc/PID copy holding four buffers by fd, by
 * mapping and both, one held twice; one holding none; one whose fdinfo does not parse;
 * single fdinfo files, meminfo with and without CMA, the iterator's text and the merge
 * of its list into a process's buffers; this process read live (none held), a process
 * gone. Run from the repository root.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arenaprof/kernel/dmabuf.h"
#include "arenaprof/util/err.h"
#include "test.h"

#define FIX "tests/fixtures/dmabuf/"
#define KB(x) ((uint64_t)(x) * 1024)

static const struct ap_dmabuf *find(const struct ap_dmabuf_set *s, uint64_t ino)
{
	for (uint32_t i = 0; i < s->n; i++)
		if (s->b[i].inode == ino)
			return &s->b[i];
	return NULL;
}

struct want {
	uint64_t ino, size, mapped_bytes, mapped_rss;
	uint32_t fds, maps;
	const char *exporter, *name;
};

static void check_buf(const char *tag, const struct ap_dmabuf_set *s, const struct want *w)
{
	const struct ap_dmabuf *b = find(s, w->ino);
	char nm[128];

	snprintf(nm, sizeof(nm), "%s: inode %" PRIu64 " found", tag, w->ino);
	CHECK(nm, b, "not in the set of %u", s->n);
	if (!b)
		return;
	snprintf(nm, sizeof(nm), "%s: inode %" PRIu64 " size", tag, w->ino);
	CHECK_U64(nm, b->size, w->size);
	snprintf(nm, sizeof(nm), "%s: inode %" PRIu64 " mapped bytes, rss", tag, w->ino);
	CHECK(nm, b->mapped_bytes == w->mapped_bytes && b->mapped_rss == w->mapped_rss,
	      "got %" PRIu64 ", %" PRIu64 ", want %" PRIu64 ", %" PRIu64, b->mapped_bytes,
	      b->mapped_rss, w->mapped_bytes, w->mapped_rss);
	snprintf(nm, sizeof(nm), "%s: inode %" PRIu64 " fds, maps", tag, w->ino);
	CHECK(nm, b->fds == w->fds && b->maps == w->maps, "got %u, %u, want %u, %u", b->fds,
	      b->maps, w->fds, w->maps);
	snprintf(nm, sizeof(nm), "%s: inode %" PRIu64 " exporter, name", tag, w->ino);
	CHECK(nm, !strcmp(b->exporter, w->exporter) && !strcmp(b->name, w->name),
	      "got '%s' '%s', want '%s' '%s'", b->exporter, b->name, w->exporter, w->name);
}

static void test_held(void)
{
	static const struct want w[] = {
		{ 977, 4096, 0, 0, 1, 0, "drm", "" },
		{ 1041, KB(1024), KB(256), KB(128), 2, 1, "system", "" },
		{ 1042, KB(64), KB(64), KB(64), 1, 1, "udmabuf", "npu-in" },
		{ 1050, KB(8), KB(8), KB(8), 0, 1, "", "cam-out" },	/* mapped only */
	};
	struct ap_dmabuf_set s = { 0 };
	char err[AP_ERR_LEN] = "";
	int rc = ap_dmabuf_read_dir(FIX "held", &s, err);

	CHECK("held: reads", rc == 0, "rc %d: %s", rc, err);
	CHECK_U64("held: four buffers, one per inode (fds 3 and 5 are one)", s.n, 4);
	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
		check_buf("held", &s, &w[i]);
	CHECK("held: 1050's size is its mapping's only", find(&s, 1050) &&
	      find(&s, 1050)->size_from_map && !find(&s, 1041)->size_from_map, "flags wrong");
	CHECK_U64("held: total bytes", s.bytes, 4096 + KB(1024) + KB(64) + KB(8));
	CHECK_U64("held: total mapped rss", s.mapped_rss, KB(200));
	CHECK_U64("held: count of 1041", find(&s, 1041) ? find(&s, 1041)->count : 0, 2);
	CHECK_U64("held: source fdinfo", s.source, AP_DMABUF_SRC_FDINFO);
	ap_dmabuf_free(&s);
}

static void test_none_and_bad(void)
{
	struct ap_dmabuf_set s = { 0 };
	char err[AP_ERR_LEN] = "";
	int rc = ap_dmabuf_read_dir(FIX "none", &s, err);

	CHECK("none: reads, no buffer", rc == 0 && s.n == 0 && s.bytes == 0, "rc %d n %u: %s",
	      rc, s.n, err);
	rc = ap_dmabuf_read_dir(FIX "bad", &s, err);
	CHECK("bad: refused with the line", rc == -EINVAL &&
	      !strcmp(err, FIX "bad/fdinfo/3:5: size: '1x48576' is not a number") && s.n == 0,
	      "rc %d n %u: '%s'", rc, s.n, err);
	rc = ap_dmabuf_read_dir(FIX "missing", &s, err);
	CHECK("missing dir: the process is gone", rc == -ESRCH &&
	      !strcmp(err, FIX "missing/fd: the process does not exist (exited?)"),
	      "rc %d: '%s'", rc, err);
	ap_dmabuf_free(&s);
}

static int parse_fix(const char *file, struct ap_dmabuf_fdinfo *fi, char *err)
{
	size_t len;
	char *buf = test_fixture(file, &len);
	int rc;

	if (!buf)
		return -ENOENT;
	rc = ap_dmabuf_parse_fdinfo(buf, len, file, fi, err);
	free(buf);
	return rc;
}

static void test_fdinfo(void)
{
	struct ap_dmabuf_fdinfo fi;
	char err[AP_ERR_LEN] = "";
	int rc;

	rc = parse_fix(FIX "fdinfo.odd", &fi, err);
	CHECK("fdinfo.odd: CRLF, an unknown key, a control byte in the name", rc == 0 &&
	      fi.size == 4096 && !strcmp(fi.exp_name, "cma") && !strcmp(fi.name, "weights?bad") &&
	      fi.ino == AP_NO_VALUE && fi.count == AP_NO_VALUE,
	      "rc %d size %" PRIu64 " exp '%s' name '%s': %s", rc, fi.size, fi.exp_name, fi.name,
	      err);
	rc = parse_fix(FIX "fdinfo.nosize", &fi, err);
	CHECK("fdinfo.nosize: refused", rc == -EINVAL && !strcmp(err, FIX "fdinfo.nosize: no size "
	      "line: not a dma-buf's fdinfo (a kernel before 5.3 prints none)"), "rc %d: '%s'",
	      rc, err);
	rc = parse_fix(FIX "fdinfo.nocolon", &fi, err);
	CHECK("fdinfo.nocolon: refused at line 3", rc == -EINVAL && !strcmp(err, FIX
	      "fdinfo.nocolon:3: 'size 4096' is not a 'key: value' line"), "rc %d: '%s'", rc, err);
	rc = parse_fix(FIX "fdinfo.huge", &fi, err);
	CHECK("fdinfo.huge: refused", rc == -EINVAL && strstr(err, "fdinfo.huge:1: size: ") &&
	      strstr(err, "is too large"), "rc %d: '%s'", rc, err);
	/* every prefix of a good one: parsed or refused, never a crash */
	{
		size_t len;
		char *buf = test_fixture(FIX "held/fdinfo/4", &len);
		int ok = 0;

		for (size_t n = 0; buf && n <= len; n++)
			if (!ap_dmabuf_parse_fdinfo(buf, n, "prefix", &fi, err))
				ok++;
		CHECK("fdinfo prefixes: only those with size and exp_name parse", buf && ok > 0 &&
		      ok < (int)len, "%d of %zu parsed", ok, len);
		free(buf);
	}
}

static void test_meminfo_iter(void)
{
	struct ap_dmabuf_set s = { 0 }, all = { 0 };
	char err[AP_ERR_LEN] = "";
	struct ap_cma c;
	size_t len;
	char *buf;
	int rc;

	buf = test_fixture(FIX "meminfo", &len);
	rc = buf ? ap_dmabuf_parse_meminfo(buf, len, "meminfo", &c, err) : -1;
	CHECK("meminfo: CmaTotal, CmaFree", rc == 0 && c.total == KB(262144) &&
	      c.free == KB(196608), "rc %d: %s", rc, err);
	free(buf);
	buf = test_fixture(FIX "meminfo.nocma", &len);
	rc = buf ? ap_dmabuf_parse_meminfo(buf, len, "meminfo", &c, err) : -1;
	CHECK("meminfo.nocma: absent", rc == 0 && c.total == AP_NO_VALUE && c.free == AP_NO_VALUE,
	      "rc %d: %s", rc, err);
	free(buf);
	buf = test_fixture(FIX "meminfo.bad", &len);
	rc = buf ? ap_dmabuf_parse_meminfo(buf, len, "meminfo", &c, err) : -1;
	CHECK("meminfo.bad: refused at line 53", rc == -EINVAL &&
	      !strcmp(err, "meminfo:53: CmaFree: 'lots kB' is not a number"), "rc %d: '%s'", rc,
	      err);
	free(buf);

	buf = test_fixture(FIX "iter", &len);
	rc = buf ? ap_dmabuf_parse_iter(buf, len, "iter", &all, err) : -1;
	CHECK("iter: four buffers of the system", rc == 0 && all.n == 4 &&
	      all.bytes == KB(1024) + KB(64) + KB(8) + KB(4096), "rc %d n %u: %s", rc, all.n, err);
	free(buf);
	CHECK("iter: a name with a space", find(&all, 1050) &&
	      !strcmp(find(&all, 1050)->name, "cam out") &&
	      !strcmp(find(&all, 1050)->exporter, "reserved"), "wrong");
	rc = ap_dmabuf_read_dir(FIX "held", &s, err);
	ap_dmabuf_fill(&s, &all);
	CHECK("fill: sizes and exporters from the iterator", rc == 0 &&
	      s.source == AP_DMABUF_SRC_BPF_ITER && find(&s, 1050)->size == KB(8) &&
	      !find(&s, 1050)->size_from_map && !strcmp(find(&s, 1050)->exporter, "reserved") &&
	      find(&s, 977)->size == 4096 && !strcmp(find(&s, 977)->exporter, "drm"),
	      "rc %d: %s", rc, err);
	buf = test_fixture(FIX "iter.bad", &len);
	rc = buf ? ap_dmabuf_parse_iter(buf, len, "iter.bad", &all, err) : -1;
	CHECK("iter.bad: refused at line 2", rc == -EINVAL && all.n == 0 &&
	      !strcmp(err, "iter.bad:2: 'bad line' is not 'INODE SIZE EXPORTER NAME'"),
	      "rc %d: '%s'", rc, err);
	free(buf);
	CHECK("exporter kinds", !strcmp(ap_dmabuf_exporter_kind("system"), "DMA heap (system)") &&
	      !strcmp(ap_dmabuf_exporter_kind("reserved"), "DMA heap (CMA)") &&
	      !strcmp(ap_dmabuf_exporter_kind("udmabuf"), "udmabuf") &&
	      !strcmp(ap_dmabuf_exporter_kind("drm"), "DRM/GEM") &&
	      !strcmp(ap_dmabuf_exporter_kind("vendor"), ""), "wrong");
	ap_dmabuf_free(&s);
	ap_dmabuf_free(&all);
}

/* This process (no dma-buf: the host has no exporter, and it made none) and one gone. */
static void test_live(void)
{
	struct ap_dmabuf_set s = { 0 };
	char err[AP_ERR_LEN] = "";
	struct ap_cma c;
	pid_t pid = fork();
	int rc, st;

	if (pid == 0)
		_exit(0);
	waitpid(pid, &st, 0);
	rc = ap_dmabuf_read(getpid(), &s, err);
	CHECK("live: this process reads, and holds no dma-buf", rc == 0 && s.n == 0 &&
	      s.source == AP_DMABUF_SRC_FDINFO, "rc %d n %u: %s", rc, s.n, err);
	rc = ap_dmabuf_read(pid, &s, err);
	CHECK("live: a reaped child is gone (-ESRCH, one line)", rc == -ESRCH &&
	      strstr(err, "the process does not exist (exited?)"), "rc %d: '%s'", rc, err);
	rc = ap_dmabuf_read(0, &s, err);
	CHECK("live: pid 0 refused", rc == -EINVAL && !strcmp(err, "invalid process id 0"),
	      "rc %d: '%s'", rc, err);
	rc = ap_dmabuf_cma(&c, err);
	CHECK("live: /proc/meminfo parses (CMA or none)", rc == 0 &&
	      (c.total == AP_NO_VALUE) == (c.free == AP_NO_VALUE), "rc %d: %s", rc, err);
	ap_dmabuf_free(&s);
}

int main(void)
{
	test_held();
	test_none_and_bad();
	test_fdinfo();
	test_meminfo_iter();
	test_live();
	TEST_EXIT();
}
