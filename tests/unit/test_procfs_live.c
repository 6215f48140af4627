// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the /proc readers (src/kernel/procfs.c) on live processes: this one's
 * status, smaps_rollup, maps and smaps; a 64-page anonymous mapping with 10 pages touched
 * (pagemap residency and its bitmap, RSS growth, the smaps entry of the mapping); the
 * VmHWM reset; a child that exited (a zombie, then gone); and a child dropped to nobody
 * reading a root process's files (the permission messages; needs root, else skipped).
 * The parsers on fixed text are test_procfs.c's.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/kernel/procfs.h"
#include "procfs_check.h"
#include "test.h"

/* ------------------------------------------------------------------------------------- */
/* Live: this process                                                                    */

static long page;

/*
 * Pages that the readers' own buffers may add to RSS between two samples. A sanitizer's
 * allocator (quarantine, shadow memory) touches fresh pages on every malloc.
 */
#if defined(__SANITIZE_ADDRESS__)
#define SLACK 64
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SLACK 64
#endif
#endif
#ifndef SLACK
#define SLACK 4
#endif

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	if (uname(&u) || sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

static void test_live_self(const char *argv0)
{
	char err[AP_ERR_LEN] = "", want[AP_ERR_LEN], comm[16];
	const char *base = strrchr(argv0, '/');
	struct ap_status st;
	struct ap_smaps sm;
	struct ap_maps a, b;
	size_t i, bad, same;
	bool *found;
	int rc;

	base = base ? base + 1 : argv0;
	snprintf(comm, sizeof(comm), "%s", base);
	rc = ap_procfs_status(getpid(), &st, err);
	CHECK("live status", rc == 0, "%s", err);
	/* under qemu-user (tests/integration/test_arm64_user.sh) this process is the
	 * emulator: its name and its threads are qemu's, not the test's */
	if (getenv("AP_TEST_QEMU_USER")) {
		printf("SKIP: live status: name and threads: the process is qemu-user's\n");
	} else {
		check_str("live status: name", st.name, comm);
		CHECK_EQ_I64("live status: threads", st.threads, 1);
	}
	CHECK_EQ_I64("live status: state", st.state, 'R');
	CHECK("live status: VmRSS = RssAnon + RssFile + RssShmem",
	      st.vm_rss != NV && st.vm_rss == st.rss_anon + st.rss_file + st.rss_shmem &&
	      st.vm_hwm >= st.vm_rss && st.vm_size >= st.vm_rss, "%" PRIu64 " %" PRIu64 " %"
	      PRIu64 " %" PRIu64, st.vm_rss, st.rss_anon, st.rss_file, st.rss_shmem);
	rc = ap_procfs_smaps_rollup(getpid(), &sm, err);
	CHECK("live smaps_rollup", rc == 0 && sm.rss != NV && sm.rss > 0 && sm.pss <= sm.rss &&
	      sm.start < sm.end && sm.anonymous != NV, "%s", err);

	rc = ap_procfs_maps(getpid(), &a, err);
	CHECK("live maps", rc == 0 && a.n > 5, "%s", err);
	ap_maps_free(&a);
	/*
	 * Two reads in a row are equal. An allocator may map memory between them (ASan's
	 * grows its regions while the first reads warm it up: make SANITIZE=1), so up to
	 * twenty pairs are read; a parse that differs between reads fails every pair.
	 */
	ap_procfs_maps(getpid(), &a, err);
	for (int k = 0;; k++) {
		bool same;

		rc = ap_procfs_maps(getpid(), &b, err);
		same = rc == 0 && ap_maps_equal(&a, &b);
		if (same || k == 19) {
			CHECK("live maps: two reads in a row equal", same, "%s", err);
			break;
		}
		ap_maps_free(&a);
		a = b;
	}
	CHECK("live maps: [stack] is found and anonymous",
	      ap_maps_find(&b, (uintptr_t)&rc) && ap_map_is_anon(ap_maps_find(&b, (uintptr_t)&rc)),
	      "not found");
	ap_maps_free(&a);

	/*
	 * The smaps entry of every mapping, found while streaming smaps (lines cut across
	 * read()s). The allocator may grow a mapping meanwhile ([heap], a sanitizer's
	 * regions): only mappings that are the same in maps before and after count.
	 */
	found = calloc(b.n ? b.n : 1, 1);
	for (i = 0; found && i < b.n; i++) {
		const struct ap_map *m = &b.m[i];

		found[i] = !ap_procfs_smaps_range(getpid(), m->end - 1, &sm, err) &&
			   sm.start == m->start && sm.end == m->end &&
			   sm.size == m->end - m->start && sm.rss != NV;
	}
	rc = ap_procfs_maps(getpid(), &a, err);
	for (i = 0, bad = 0, same = 0; found && !rc && i < b.n; i++) {
		const struct ap_map *m = &b.m[i], *m2 = ap_maps_find(&a, m->start);

		if (!m2 || m2->start != m->start || m2->end != m->end)
			continue;
		same++;
		if (!found[i]) {
			printf("# %#" PRIx64 "-%#" PRIx64 " %s: no such smaps entry\n", m->start,
			       m->end, m->path);
			bad++;
		}
	}
	CHECK("live smaps: the entry of every mapping", found && !rc && same > 5 && !bad,
	      "%zu of %zu (%zu mappings) %s", bad, same, b.n, rc ? err : "");
	free(found);
	ap_maps_free(&a);
	ap_maps_free(&b);

	rc = ap_procfs_smaps_range(getpid(), 0x1000, &sm, err);
	snprintf(want, sizeof(want), "/proc/%d/smaps: no mapping contains 0x1000", (int)getpid());
	check_fail("live smaps: nothing at 0x1000", rc, errno, err, want, ENXIO);
	rc = ap_procfs_status(0, &st, err);
	check_fail("pid 0", rc, errno, err, "invalid process id 0", EINVAL);
	rc = ap_procfs_maps(-3, &a, err);
	check_fail("pid -3", rc, errno, err, "invalid process id -3", EINVAL);
}

/* A 64-page anonymous mapping between two PROT_NONE guards (so that no neighbour merges
 * into it), 10 pages touched. */
static void test_live_arena(void)
{
	static const unsigned int touch[] = { 0, 1, 2, 7, 8, 20, 33, 40, 62, 63 };
	const uint64_t np = 64;
	char err[AP_ERR_LEN] = "", want_bits[8] = { 0 };
	struct ap_residency r;
	struct ap_status s0, s1;
	struct ap_smaps sm, r0, r1;
	struct ap_maps maps;
	const struct ap_map *m;
	uint64_t arena, rss0, rss1, k;
	char *g;
	size_t i;
	int rc;

	g = mmap(NULL, (np + 2) * page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED || mprotect(g + page, np * page, PROT_READ | PROT_WRITE)) {
		CHECK("live arena: mmap", 0, "%s", strerror(errno));
		return;
	}
	madvise(g + page, np * page, MADV_NOHUGEPAGE);
	arena = (uintptr_t)(g + page);

	rc = ap_procfs_maps(getpid(), &maps, err);
	m = rc ? NULL : ap_maps_find(&maps, arena + 5 * page);
	CHECK("live arena: in maps", m && m->start == arena && m->end == arena + np * page &&
	      m->prot == (AP_PROT_READ | AP_PROT_WRITE) && !m->path[0] && ap_map_is_anon(m),
	      "%s", rc ? err : "not found or not as mapped");
	ap_maps_free(&maps);

	rc = ap_procfs_residency(getpid(), arena, arena + np * page, true, &r, err);
	CHECK("live arena: nothing resident before", rc == 0 && r.pages == np && r.present == 0,
	      "%s present %" PRIu64, err, r.present);
	free(r.bitmap);

	rc = ap_procfs_smaps_rollup(getpid(), &r0, err);
	rc |= ap_procfs_status(getpid(), &s0, err);
	rss0 = rc ? NV : s0.vm_rss;
	for (i = 0; i < N(touch); i++) {
		g[page + touch[i] * page + 17] = 1;
		want_bits[touch[i] / 8] |= (char)(1u << (touch[i] % 8));
	}
	rc = ap_procfs_status(getpid(), &s1, err);
	rss1 = rc ? NV : s1.vm_rss;
	rc |= ap_procfs_smaps_rollup(getpid(), &r1, err);
	CHECK("live arena: status and smaps_rollup around the touches", rc == 0, "%s", err);

	rc = ap_procfs_residency(getpid(), arena, arena + np * page, true, &r, err);
	CHECK("live arena: residency", rc == 0, "%s", err);
	CHECK_U64("live arena: pages", r.pages, np);
	CHECK_U64("live arena: present == 10", r.present, N(touch));
	CHECK_U64("live arena: swapped", r.swapped, 0);
	CHECK_U64("live arena: start", r.start, arena);
	CHECK_U64("live arena: page size", r.page_size, page);
	CHECK("live arena: bitmap bits", r.bitmap && !memcmp(r.bitmap, want_bits, 8),
	      "%02x %02x %02x %02x %02x %02x %02x %02x", r.bitmap ? r.bitmap[0] : 0,
	      r.bitmap ? r.bitmap[1] : 0, r.bitmap ? r.bitmap[2] : 0, r.bitmap ? r.bitmap[3] : 0,
	      r.bitmap ? r.bitmap[4] : 0, r.bitmap ? r.bitmap[5] : 0, r.bitmap ? r.bitmap[6] : 0,
	      r.bitmap ? r.bitmap[7] : 0);
	free(r.bitmap);

	rc = ap_procfs_residency(getpid(), arena, arena + np * page, false, &r, err);
	CHECK("live arena: no bitmap when not wanted", rc == 0 && !r.bitmap && r.present == 10,
	      "%s", err);
	/* unaligned bounds are widened to pages; the guards count as pages, not present */
	rc = ap_procfs_residency(getpid(), arena - page + 100, arena + np * page + 1, true, &r,
				 err);
	CHECK("live arena: widened to pages with the guards",
	      rc == 0 && r.pages == np + 2 && r.present == 10 && r.start == arena - page &&
	      r.bitmap && !(r.bitmap[0] & 1) && (r.bitmap[0] & 2),
	      "%s pages %" PRIu64 " present %" PRIu64, err, r.pages, r.present);
	free(r.bitmap);
	rc = ap_procfs_residency(getpid(), arena + 3 * page, arena + 3 * page, true, &r, err);
	CHECK("live arena: empty range", rc == 0 && r.pages == 0 && !r.bitmap, "%s", err);
	rc = ap_procfs_residency(getpid(), arena + page, arena, true, &r, err);
	CHECK("live arena: end below start", rc == -EINVAL, "%d", rc);

	/*
	 * RSS grows by the 10 pages (and at most SLACK pages for the readers' own buffers).
	 * smaps_rollup walks the page tables: exact on every kernel. VmRSS and RssAnon come
	 * from counters that are exact since 6.16 ("mm: fix the inaccurate memory statistics
	 * issue for users"); before, per-CPU (6.2+) or per-thread batches make them lag.
	 */
	CHECK("live arena: smaps_rollup Rss grows by 10 pages",
	      r1.rss >= r0.rss + 10 * page && r1.rss <= r0.rss + 10 * page + SLACK * page,
	      "before %" PRIu64 " after %" PRIu64, r0.rss, r1.rss);
	CHECK("live arena: smaps_rollup Anonymous grows by 10 pages",
	      r1.anonymous >= r0.anonymous + 10 * page &&
	      r1.anonymous <= r0.anonymous + 10 * page + SLACK * page,
	      "before %" PRIu64 " after %" PRIu64, r0.anonymous, r1.anonymous);
	if (kernel_at_least(6, 16)) {
		CHECK("live arena: VmRSS grows by 10 pages",
		      rss0 != NV && rss1 != NV && rss1 >= rss0 + 10 * page &&
		      rss1 <= rss0 + 10 * page + SLACK * page,
		      "before %" PRIu64 " after %" PRIu64 " (delta %" PRId64 ", want %ld)", rss0,
		      rss1, (int64_t)(rss1 - rss0), 10 * page);
		CHECK("live arena: RssAnon grows by 10 pages",
		      s1.rss_anon >= s0.rss_anon + 10 * page &&
		      s1.rss_anon <= s0.rss_anon + 10 * page + SLACK * page,
		      "before %" PRIu64 " after %" PRIu64, s0.rss_anon, s1.rss_anon);
	} else {
		printf("SKIP: live arena: VmRSS grows by 10 pages: this kernel (before 6.16) "
		       "reports VmRSS from approximate counters\n");
	}

	rc = ap_procfs_smaps_range(getpid(), arena + 30 * page + 5, &sm, err);
	CHECK("live arena: smaps_range", rc == 0, "%s", err);
	CHECK_U64("live arena: smaps start", sm.start, arena);
	CHECK_U64("live arena: smaps end", sm.end, arena + np * page);
	CHECK_U64("live arena: smaps Size", sm.size, np * page);
	CHECK_U64("live arena: smaps Rss = 10 pages", sm.rss, 10 * page);
	CHECK_U64("live arena: smaps Anonymous", sm.anonymous, 10 * page);
	CHECK_U64("live arena: smaps Private_Dirty", sm.private_dirty, 10 * page);
	CHECK_U64("live arena: smaps KernelPageSize", sm.kernel_page_size, page);
	if (page == 4096)
		CHECK_U64("live arena: smaps Rss 40 KiB on 4 KiB pages", sm.rss, 40960);
	rc = ap_procfs_smaps_range(getpid(), arena - 1, &sm, err);
	CHECK("live arena: the guard below is its own entry",
	      rc == 0 && sm.start == arena - page && sm.end == arena && sm.rss == 0, "%s", err);

	for (k = 0; k < np; k++)
		g[page + k * page] = 2;
	rc = ap_procfs_residency(getpid(), arena, arena + np * page, false, &r, err);
	CHECK("live arena: all 64 touched", rc == 0 && r.present == np, "%s", err);
	munmap(g, (np + 2) * page);
	rc = ap_procfs_residency(getpid(), arena, arena + np * page, false, &r, err);
	CHECK("live arena: unmapped: none present", rc == 0 && r.present == 0 && r.pages == np,
	      "%s", err);
}

/* VmHWM: raise it with 512 pages, unmap them, reset: VmHWM comes down to VmRSS, not 0. */
static void test_live_hwm(void)
{
	const uint64_t np = 512;
	char err[AP_ERR_LEN] = "";
	struct ap_status st;
	uint64_t k;
	char *g;
	int rc;

	g = mmap(NULL, np * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (g == MAP_FAILED) {
		CHECK("live hwm: mmap", 0, "%s", strerror(errno));
		return;
	}
	for (k = 0; k < np; k++)
		g[k * page] = 1;
	munmap(g, np * page);
	rc = ap_procfs_status(getpid(), &st, err);
	/*
	 * The kernel records the peak from its per-CPU (approximate) RSS counters, at munmap:
	 * it can be off by tens of pages, hence half of the 512.
	 */
	CHECK("live hwm: VmHWM above VmRSS after munmap",
	      rc == 0 && st.vm_hwm >= st.vm_rss + np / 2 * page,
	      "%s hwm %" PRIu64 " rss %" PRIu64, err, st.vm_hwm, st.vm_rss);
	rc = ap_procfs_reset_hwm(getpid(), err);
	CHECK("live hwm: reset", rc == 0, "%s", err);
	rc = ap_procfs_status(getpid(), &st, err);
	CHECK("live hwm: VmHWM ~ VmRSS after the reset (not 0)",
	      rc == 0 && st.vm_hwm >= st.vm_rss && st.vm_hwm <= st.vm_rss + 16 * page &&
	      st.vm_hwm > 0, "%s hwm %" PRIu64 " rss %" PRIu64, err, st.vm_hwm, st.vm_rss);
}

/* ------------------------------------------------------------------------------------- */
/* Live: children                                                                        */

static void check_gone(const char *tag, int pid, bool zombie)
{
	char err[AP_ERR_LEN] = "", want[AP_ERR_LEN], t[128];
	struct ap_status st;
	struct ap_smaps sm;
	struct ap_maps maps;
	struct ap_residency r;
	int rc;

	snprintf(want, sizeof(want), "process %d does not exist (exited?)", pid);
	rc = ap_procfs_smaps_rollup(pid, &sm, err);
	snprintf(t, sizeof(t), "%s: smaps_rollup", tag);
	check_fail(t, rc, errno, err, want, ESRCH);
	rc = ap_procfs_maps(pid, &maps, err);
	snprintf(t, sizeof(t), "%s: maps", tag);
	check_fail(t, rc, errno, err, want, ESRCH);
	rc = ap_procfs_smaps_range(pid, 0x400000, &sm, err);
	snprintf(t, sizeof(t), "%s: smaps_range", tag);
	check_fail(t, rc, errno, err, want, ESRCH);
	rc = ap_procfs_residency(pid, 0x400000, 0x500000, true, &r, err);
	snprintf(t, sizeof(t), "%s: residency", tag);
	check_fail(t, rc, errno, err, want, ESRCH);
	rc = ap_procfs_status(pid, &st, err);
	snprintf(t, sizeof(t), "%s: status", tag);
	if (zombie) {
		CHECK(t, rc == 0 && st.state == 'Z' && st.vm_rss == NV && st.threads == 1,
		      "rc %d state %c rss %" PRIu64 " %s", rc, st.state ? st.state : '0',
		      st.vm_rss, err);
	} else {
		check_fail(t, rc, errno, err, want, ESRCH);
		rc = ap_procfs_reset_hwm(pid, err);
		snprintf(t, sizeof(t), "%s: reset_hwm", tag);
		check_fail(t, rc, errno, err, want, ESRCH);
	}
}

static void test_dead_child(void)
{
	siginfo_t si;
	pid_t pid;

	pid = fork();
	if (pid < 0) {
		CHECK("dead child: fork", 0, "%s", strerror(errno));
		return;
	}
	if (!pid)
		_exit(0);
	/* exited, not reaped: a zombie has no address space */
	memset(&si, 0, sizeof(si));
	waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT);
	check_gone("zombie child", pid, true);
	waitpid(pid, NULL, 0);
	check_gone("exited child", pid, false);
}

/*
 * A child that drops to nobody (65534) reads the files of this (root) process: the
 * kernel refuses smaps_rollup, maps, smaps, pagemap and clear_refs (ptrace access mode
 * read), not status.
 */
static void test_permission(void)
{
	const int target = (int)getpid();
	char got[5][AP_ERR_LEN], want[5][AP_ERR_LEN];
	static const char *const what[5] = {
		"smaps_rollup", "maps", "pagemap", "clear_refs", "status"
	};
	int fds[2], status, i, e[5];
	pid_t pid;

	if (geteuid() != 0) {
		printf("SKIP: permission: needs root to drop to nobody (uid 65534)\n");
		return;
	}
	if (pipe(fds)) {
		CHECK("permission: pipe", 0, "%s", strerror(errno));
		return;
	}
	pid = fork();
	if (!pid) {
		struct ap_smaps sm;
		struct ap_maps maps;
		struct ap_residency r;
		struct ap_status st;
		char res[5][AP_ERR_LEN];
		int re[5];

		memset(res, 0, sizeof(res));
		close(fds[0]);
		if (setgroups(0, NULL) || setgid(65534) || setuid(65534))
			_exit(3);
		re[0] = -ap_procfs_smaps_rollup(target, &sm, res[0]);
		re[1] = -ap_procfs_maps(target, &maps, res[1]);
		re[2] = -ap_procfs_residency(target, 0x400000, 0x401000, true, &r, res[2]);
		re[3] = -ap_procfs_reset_hwm(target, res[3]);
		re[4] = -ap_procfs_status(target, &st, res[4]);
		if (write(fds[1], re, sizeof(re)) != sizeof(re) ||
		    write(fds[1], res, sizeof(res)) != sizeof(res))
			_exit(4);
		_exit(0);
	}
	close(fds[1]);
	if (pid < 0 || read(fds[0], e, sizeof(e)) != sizeof(e) ||
	    read(fds[0], got, sizeof(got)) != sizeof(got)) {
		CHECK("permission: child", 0, "fork or read failed");
		close(fds[0]);
		if (pid > 0)
			waitpid(pid, NULL, 0);
		return;
	}
	close(fds[0]);
	waitpid(pid, &status, 0);
	for (i = 0; i < 4; i++) {
		snprintf(want[i], sizeof(want[i]), "no permission to %s /proc/%d/%s (run as root "
			 "or the process owner)", i == 3 ? "write" : "read", target, what[i]);
		check_fail(nm("permission", what[i]), -e[i], e[i], got[i], want[i], EACCES);
	}
	CHECK("permission: status is readable by anyone", e[4] == 0, "%s", got[4]);
}

int main(int argc, char **argv)
{
	(void)argc;
	page = sysconf(_SC_PAGESIZE);
	test_live_self(argv[0]);
	test_live_arena();
	test_live_hwm();
	test_dead_child();
	test_permission();
	TEST_EXIT();
}
