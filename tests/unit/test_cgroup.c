// SPDX-License-Identifier: Apache-2.0
/*
 * cgroup: every field of the fixtures in tests/fixtures/cgroup/ (real samples of this
 * project's development machine, a cgroup v1 host, and of the VM suite's 6.1 and 6.12
 * guests, and hand-written variants, see the README there), the error (file and line) of
 * every broken one, every prefix of the real samples and random bytes (no crash, no
 * half-filled result); path joining; then live checks that only read: this process's
 * session (v1 read-only on the development machine: its note, the global-reset refusal),
 * the refusal of `run`'s harness on a host without cgroup v2 memory, a dead pid. Nothing
 * here writes a cgroup: the harness and the memory.peak reset are tested in the VM suite.
 * Run from the repository root.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arenaprof/kernel/cgroup_run.h"
#include "arenaprof/kernel/cgroup_session.h"
#include "arenaprof/util/err.h"
#include "arenaprof/trace/trace.h"
#include "test.h"

#define FIX "tests/fixtures/cgroup/"
#define NV AP_NO_VALUE
#define UNL AP_CG_UNLIMITED

static char name_buf[256];

static const char *nm(const char *tag, const char *what)
{
	snprintf(name_buf, sizeof(name_buf), "%s: %s", tag, what);
	return name_buf;
}

static void check_str(const char *name, const char *got, const char *want)
{
	CHECK(name, !strcmp(got, want), "got '%s', want '%s'", got, want);
}

/* A parser under test: (buf, len, name, out, err), out cleared on failure. */
typedef int (*parse_fn)(const char *buf, size_t len, const char *name, void *out, char *err);

static int p_membership(const char *b, size_t l, const char *n, void *o, char *e)
{
	return ap_cg_parse_membership(b, l, n, o, e);
}

static int p_mountinfo(const char *b, size_t l, const char *n, void *o, char *e)
{
	return ap_cg_parse_mountinfo(b, l, n, o, e);
}

static int p_events(const char *b, size_t l, const char *n, void *o, char *e)
{
	return ap_cg_parse_events(b, l, n, o, e);
}

static int p_stat(const char *b, size_t l, const char *n, void *o, char *e)
{
	return ap_cg_parse_stat(b, l, n, o, e);
}

static int p_value(const char *b, size_t l, const char *n, void *o, char *e)
{
	return ap_cg_parse_value(b, l, n, false, o, e);
}

static int p_limit(const char *b, size_t l, const char *n, void *o, char *e)
{
	return ap_cg_parse_value(b, l, n, true, o, e);
}

/* Every byte of a failed result: zero (membership, mounts) or AP_NO_VALUE (the rest). */
static bool cleared(const void *out, size_t sz, bool zero)
{
	const uint8_t *p = out;

	for (size_t i = 0; i < sz; i++)
		if (p[i] != (zero ? 0 : 0xff))
			return false;
	return true;
}

static void *parse_fixture(const char *file, parse_fn fn, void *out)
{
	char path[128], err[AP_ERR_LEN] = "";
	size_t len;
	char *buf;
	int rc;

	snprintf(path, sizeof(path), FIX "%s", file);
	buf = test_fixture(path, &len);
	if (!buf)
		return NULL;
	rc = fn(buf, len, path, out, err);
	CHECK(nm(file, "parses"), rc == 0, "%s", err);
	free(buf);
	return rc ? NULL : out;
}

static void fixture_err(const char *file, parse_fn fn, void *out, size_t sz, bool zero,
			const char *want_msg)
{
	char path[128], err[AP_ERR_LEN] = "", want[AP_ERR_LEN];
	size_t len;
	char *buf;
	int rc;

	snprintf(path, sizeof(path), FIX "%s", file);
	buf = test_fixture(path, &len);
	if (!buf)
		return;
	rc = fn(buf, len, path, out, err);
	snprintf(want, sizeof(want), "%s:%s", path, want_msg);
	CHECK(nm(file, "refused with the file and line"), rc == -EINVAL &&
	      !strcmp(err, want), "rc %d err '%s', want '%s'", rc, err, want);
	CHECK(nm(file, "nothing half-filled"), cleared(out, sz, zero), "fields left set");
	free(buf);
}

static void prefixes(const char *file, parse_fn fn, void *out, size_t sz, bool zero)
{
	char path[128], err[AP_ERR_LEN];
	size_t len, bad = 0;
	char *buf;

	snprintf(path, sizeof(path), FIX "%s", file);
	buf = test_fixture(path, &len);
	if (!buf)
		return;
	for (size_t n = 0; n <= len; n++) {
		char *copy = malloc(n ? n : 1);

		memcpy(copy, buf, n);
		if (fn(copy, n, path, out, err) && (!cleared(out, sz, zero) || !strstr(err, path)))
			bad++;
		free(copy);
	}
	CHECK(nm(file, "every prefix parses or fails cleanly with the file named"), bad == 0,
	      "%zu prefixes misbehaved", bad);
	free(buf);
}

static void random_bytes(const char *tag, parse_fn fn, void *out, size_t sz, bool zero,
			 const char *alphabet)
{
	size_t na = strlen(alphabet), bad = 0;
	char err[AP_ERR_LEN], buf[300];
	uint32_t x = 777;

	for (int i = 0; i < 10000; i++) {
		size_t n = (size_t)(i % 299) + 1;

		for (size_t k = 0; k < n; k++) {
			x = x * 1103515245 + 12345;
			buf[k] = alphabet[(x >> 16) % na];
			if (((x >> 8) & 63) == 0)
				buf[k] = (char)(x >> 24);
		}
		if (fn(buf, n, "random", out, err) && !cleared(out, sz, zero))
			bad++;
	}
	CHECK(nm(tag, "10000 random buffers: no crash, failures leave nothing set"), bad == 0,
	      "%zu half-filled", bad);
}

/* ---- /proc/PID/cgroup ---- */

static void membership(void)
{
	struct ap_cg_membership m;

	if (parse_fixture("proc_cgroup.hybrid", p_membership, &m)) {
		CHECK("hybrid: v2 path", m.has_v2 && !strcmp(m.v2, "/"), "'%s'", m.v2);
		CHECK("hybrid: v1 memory path", m.has_v1_memory &&
		      !strcmp(m.v1_memory, "/process_api/68824ce48b557d176b038a656759c26e"),
		      "'%s'", m.v1_memory);
	}
	if (parse_fixture("proc_cgroup.v2", p_membership, &m))
		CHECK("v2: the path, no v1", m.has_v2 && !m.has_v1_memory &&
		      !strcmp(m.v2, "/user.slice/user-1000.slice/session-2.scope"), "'%s'", m.v2);
	if (parse_fixture("proc_cgroup.colon", p_membership, &m))
		CHECK("colon: a path with ':' and a space is kept whole", m.has_v2 &&
		      !strcmp(m.v2, "/a:b/c d") && !strcmp(m.v1_memory, "/docker/abc"), "'%s'",
		      m.v2);
	if (parse_fixture("proc_cgroup.v1_only", p_membership, &m))
		CHECK("v1 only: memory among several controllers; no v2", !m.has_v2 &&
		      m.has_v1_memory && !strcmp(m.v1_memory, "/lxc/box"), "'%s'", m.v1_memory);
	if (parse_fixture("proc_cgroup.empty", p_membership, &m))
		CHECK("empty: nothing", !m.has_v2 && !m.has_v1_memory, "found something");
	fixture_err("proc_cgroup.truncated", p_membership, &m, sizeof(m), true,
		    "2: '5:cpu' is not an 'ID:CONTROLLERS:/PATH' line");
	fixture_err("proc_cgroup.bad_id", p_membership, &m, sizeof(m), true,
		    "2: 'abc:def:/x' is not an 'ID:CONTROLLERS:/PATH' line");
	fixture_err("proc_cgroup.garbage", p_membership, &m, sizeof(m), true,
		    "2: '??? garbage' is not an 'ID:CONTROLLERS:/PATH' line");
	fixture_err("proc_cgroup.no_slash", p_membership, &m, sizeof(m), true,
		    "1: '0::relative/path' is not an 'ID:CONTROLLERS:/PATH' line");
	prefixes("proc_cgroup.hybrid", p_membership, &m, sizeof(m), true);
	random_bytes("proc cgroup", p_membership, &m, sizeof(m), true, "0123:/memory,\n");
}

/* ---- mountinfo ---- */

static void mountinfo(void)
{
	struct ap_cg_mounts mt;

	if (parse_fixture("mountinfo.hybrid", p_mountinfo, &mt)) {
		CHECK("hybrid: cgroup2 at /sys/fs/cgroup/unified", mt.has_v2 &&
		      !strcmp(mt.v2_dir, "/sys/fs/cgroup/unified") && !strcmp(mt.v2_root, "/"),
		      "'%s' '%s'", mt.v2_dir, mt.v2_root);
		CHECK("hybrid: v1 memory at /sys/fs/cgroup/memory", mt.has_v1_memory &&
		      !strcmp(mt.v1_memory_dir, "/sys/fs/cgroup/memory"), "'%s'",
		      mt.v1_memory_dir);
	}
	if (parse_fixture("mountinfo.vm", p_mountinfo, &mt))
		CHECK("vm guest: cgroup2 only", mt.has_v2 && !mt.has_v1_memory &&
		      !strcmp(mt.v2_dir, "/sys/fs/cgroup"), "'%s'", mt.v2_dir);
	if (parse_fixture("mountinfo.systemd", p_mountinfo, &mt))
		CHECK("systemd: optional fields before '-'", mt.has_v2 &&
		      !strcmp(mt.v2_dir, "/sys/fs/cgroup"), "'%s'", mt.v2_dir);
	if (parse_fixture("mountinfo.escaped", p_mountinfo, &mt)) {
		CHECK("escaped: /sys/fs/cgroup preferred over an earlier cgroup2 mount",
		      !strcmp(mt.v2_dir, "/sys/fs/cgroup") && !strcmp(mt.v2_root, "/"),
		      "'%s' '%s'", mt.v2_dir, mt.v2_root);
		check_str("escaped: \\134 in a v1 mount point", mt.v1_memory_dir, "/mnt/v1\\mem");
		check_str("escaped: v1 mount root", mt.v1_memory_root, "/lxc");
	}
	{
		static const char two[] = "40 30 0:40 /kubepods/pod\\0401 /mnt/cg\\040two rw - "
					  "cgroup2 none rw\n";

		CHECK("\\040 decoded in root and mount point",
		      ap_cg_parse_mountinfo(two, sizeof(two) - 1, "x", &mt, NULL) == 0 &&
		      !strcmp(mt.v2_dir, "/mnt/cg two") && !strcmp(mt.v2_root, "/kubepods/pod 1"),
		      "'%s' '%s'", mt.v2_dir, mt.v2_root);
	}
	fixture_err("mountinfo.truncated", p_mountinfo, &mt, sizeof(mt), true,
		    "2: '30 24 0:27 / /sys/fs/c' is not a mountinfo line");
	fixture_err("mountinfo.no_separator", p_mountinfo, &mt, sizeof(mt), true,
		    "1: '29 24 0:26 / /sys/fs/cgroup rw,relatime ...' is not a mountinfo line");
	fixture_err("mountinfo.garbage", p_mountinfo, &mt, sizeof(mt), true,
		    "1: 'hello world' is not a mountinfo line");
	prefixes("mountinfo.hybrid", p_mountinfo, &mt, sizeof(mt), true);
	random_bytes("mountinfo", p_mountinfo, &mt, sizeof(mt), true,
		     "0123 /:-cgroup2memory,\n\\");
}

static void join(void)
{
	char out[AP_CG_PATH_MAX], err[AP_ERR_LEN];

	CHECK("join: root '/'", !ap_cg_join("/sys/fs/cgroup", "/", "/a/b", out, sizeof(out), err) &&
	      !strcmp(out, "/sys/fs/cgroup/a/b"), "'%s'", out);
	CHECK("join: the root cgroup is the mount point",
	      !ap_cg_join("/sys/fs/cgroup", "/", "/", out, sizeof(out), err) &&
	      !strcmp(out, "/sys/fs/cgroup"), "'%s'", out);
	CHECK("join: a mount whose root is a sub-cgroup",
	      !ap_cg_join("/mnt/v1", "/lxc", "/lxc/box/x", out, sizeof(out), err) &&
	      !strcmp(out, "/mnt/v1/box/x"), "'%s'", out);
	CHECK("join: the mount's own root", !ap_cg_join("/mnt/v1", "/lxc", "/lxc", out,
							  sizeof(out), err) &&
	      !strcmp(out, "/mnt/v1"), "'%s'", out);
	CHECK("join: a cgroup outside the mount's root is refused",
	      ap_cg_join("/mnt/v1", "/lxc", "/lxcother/x", out, sizeof(out), err) == -ENOENT &&
	      strstr(err, "not visible"), "%s", err);
}

/* ---- single values ---- */

static void values(void)
{
	char err[AP_ERR_LEN];
	uint64_t v;

	if (parse_fixture("memory.peak", p_value, &v))
		CHECK_U64("memory.peak (6.12 guest)", v, 41943040);
	if (parse_fixture("memory.current", p_value, &v))
		CHECK_U64("memory.current (6.12 guest)", v, 20480);
	if (parse_fixture("memory.max_usage_in_bytes", p_value, &v))
		CHECK("memory.max_usage_in_bytes (v1 host)", v > 0 && v != NV, "%" PRIu64, v);
	if (parse_fixture("memory.max", p_limit, &v))
		CHECK_U64("memory.max 'max' is unlimited", v, UNL);
	if (parse_fixture("memory.max.number", p_limit, &v))
		CHECK_U64("memory.max as a number", v, 41943040);
	if (parse_fixture("value.no_newline", p_value, &v))
		CHECK_U64("a value without its newline", v, 4096);
	if (parse_fixture("value.u64max", p_value, &v))
		CHECK_U64("the largest 64-bit value", v, UINT64_MAX);
	fixture_err("value.max_not_allowed", p_value, &v, sizeof(v), false,
		    "1: 'max' is not a number");
	fixture_err("value.empty", p_value, &v, sizeof(v), false, "1: empty: a value was expected");
	fixture_err("value.blank", p_value, &v, sizeof(v), false, "1: empty: a value was expected");
	fixture_err("value.garbage", p_limit, &v, sizeof(v), false,
		    "1: '12x' is not a number or 'max'");
	fixture_err("value.two_lines", p_value, &v, sizeof(v), false,
		    "2: '456': one value expected, this is a second line");
	fixture_err("value.huge", p_value, &v, sizeof(v), false,
		    "1: '18446744073709551616' is too large");
	fixture_err("value.negative", p_value, &v, sizeof(v), false, "1: '-1' is not a number");
	CHECK("a value with a NUL byte is refused",
	      ap_cg_parse_value("12\0003\n", 5, "nul", false, &v, err) < 0 && v == NV,
	      "%s", err);
	random_bytes("value", p_limit, &v, sizeof(v), false, "0123456789max\n ");
}

/* ---- memory.events ---- */

struct want_ev {
	uint64_t low, high, max, oom, oom_kill, oom_group_kill;
};

static void check_events(const char *tag, const struct ap_cg_events *e, const struct want_ev *w)
{
	CHECK_U64(nm(tag, "low"), e->low, w->low);
	CHECK_U64(nm(tag, "high"), e->high, w->high);
	CHECK_U64(nm(tag, "max"), e->max, w->max);
	CHECK_U64(nm(tag, "oom"), e->oom, w->oom);
	CHECK_U64(nm(tag, "oom_kill"), e->oom_kill, w->oom_kill);
	CHECK_U64(nm(tag, "oom_group_kill"), e->oom_group_kill, w->oom_group_kill);
}

static void events(void)
{
	struct ap_cg_events e;

	if (parse_fixture("memory.events", p_events, &e))
		check_events("memory.events", &e, &(struct want_ev){ 0, 1837, 40, 1, 1, 0 });
	if (parse_fixture("memory.events.5_15", p_events, &e))
		check_events("memory.events.5_15", &e, &(struct want_ev){ 0, 5, 2, 1, 1, NV });
	if (parse_fixture("memory.events.unknown_keys", p_events, &e))
		check_events("memory.events.unknown_keys", &e,
			     &(struct want_ev){ 0, 9, 0, 0, 0, 0 });
	fixture_err("memory.events.truncated", p_events, &e, sizeof(e), false,
		    "5: 'oom_ki' is not a 'key value' line");
	fixture_err("memory.events.bad_value", p_events, &e, sizeof(e), false,
		    "3: max: 'x1' is not a number");
	fixture_err("memory.events.huge", p_events, &e, sizeof(e), false,
		    "2: high: '99999999999999999999' is too large");
	fixture_err("memory.events.garbage", p_events, &e, sizeof(e), false,
		    "2: '?ELF??? binary' is not a 'key value' line");
	fixture_err("memory.events.three_fields", p_events, &e, sizeof(e), false,
		    "1: 'low 0 extra' is not a 'key value' line");
	prefixes("memory.events", p_events, &e, sizeof(e), false);
	random_bytes("memory.events", p_events, &e, sizeof(e), false,
		     "lowhigmaxk_ 0123456789\n");
}

/* ---- memory.stat ---- */

static void stat_files(void)
{
	struct ap_cg_stat s;

	if (parse_fixture("memory.stat", p_stat, &s)) {
		CHECK_U64("memory.stat (6.12): kernel", s.kernel, 12288);
		CHECK_U64("memory.stat (6.12): anon", s.anon, 0);
		CHECK_U64("memory.stat (6.12): pgfault", s.pgfault, 10261);
		CHECK_U64("memory.stat (6.12): shmem", s.shmem, 0);
	}
	if (parse_fixture("memory.stat.6_1", p_stat, &s)) {
		CHECK_U64("memory.stat (6.1): pgfault", s.pgfault, 10198);
		CHECK_U64("memory.stat (6.1): workingset_refault_file", s.workingset_refault_file,
			  0);
	}
	if (parse_fixture("memory.stat.v1", p_stat, &s)) {
		CHECK_U64("memory.stat (v1): rss is anon", s.anon, 2158592);
		CHECK_U64("memory.stat (v1): cache is file", s.file, 163848192);
		CHECK_U64("memory.stat (v1): mapped_file", s.file_mapped, 782336);
		CHECK_U64("memory.stat (v1): dirty", s.file_dirty, 3739648);
		CHECK_U64("memory.stat (v1): pgmajfault", s.pgmajfault, 565);
		CHECK_U64("memory.stat (v1): no kernel key", s.kernel, NV);
	}
	if (parse_fixture("memory.stat.unknown_keys", p_stat, &s)) {
		CHECK_U64("memory.stat unknown keys: anon", s.anon, 1000);
		CHECK_U64("memory.stat unknown keys: file", s.file, 2000);
		CHECK_U64("memory.stat unknown keys: shmem", s.shmem, 300);
		CHECK_U64("memory.stat unknown keys: absent key", s.pgfault, NV);
	}
	fixture_err("memory.stat.truncated", p_stat, &s, sizeof(s), false,
		    "25: 'slab_recla' is not a 'key value' line");
	fixture_err("memory.stat.bad_value", p_stat, &s, sizeof(s), false,
		    "2: file: '-5' is not a number");
	prefixes("memory.stat", p_stat, &s, sizeof(s), false);
	prefixes("memory.stat.v1", p_stat, &s, sizeof(s), false);
	random_bytes("memory.stat", p_stat, &s, sizeof(s), false, "anonfilerss_ 0123456789\n");
}

static void controllers(void)
{
	char path[128];
	size_t len;
	char *buf;

	snprintf(path, sizeof(path), FIX "cgroup.controllers.child");
	buf = test_fixture(path, &len);
	CHECK("controllers: 'memory' alone", buf && ap_cg_list_has(buf, len, "memory"), "no");
	free(buf);
	snprintf(path, sizeof(path), FIX "cgroup.controllers.hybrid");
	buf = test_fixture(path, &len);
	CHECK("controllers: the hybrid host's v2 has no memory",
	      buf && !ap_cg_list_has(buf, len, "memory") && ap_cg_list_has(buf, len, "hugetlb"),
	      "wrong");
	free(buf);
	snprintf(path, sizeof(path), FIX "cgroup.controllers.multi");
	buf = test_fixture(path, &len);
	CHECK("controllers: 'memory pids'", buf && ap_cg_list_has(buf, len, "memory") &&
	      ap_cg_list_has(buf, len, "pids") && !ap_cg_list_has(buf, len, "mem"), "wrong");
	free(buf);
	CHECK("controllers: empty", !ap_cg_list_has("", 0, "memory"), "found");
}

/* ---- live, read-only ---- */

static void live(void)
{
	char err[AP_ERR_LEN], dir[AP_CG_PATH_MAX];
	struct ap_cg_session *s;
	struct ap_rec_sample smp;
	struct ap_cg_snapshot snap;
	const char *n;
	bool v1_note = false, psi_note = false;
	pid_t dead;
	int rc;

	rc = ap_cg_session_open(&s, (int)getpid(), err);
	CHECK("live: a session on this process opens", rc == 0, "%s", err);
	if (rc)
		return;
	while ((n = ap_cg_next_note(s))) {
		printf("# note: %s\n", n);
		v1_note |= strstr(n, "cgroup v1") && strstr(n, "global");
		psi_note |= strstr(n, "PSI is not available") != NULL;
	}
	memset(&smp, 0x55, sizeof(smp));
	smp.vm_rss = 1234;
	ap_cg_sample(s, &smp);
	CHECK("live: a sample writes only the cg and psi fields", smp.vm_rss == 1234 &&
	      smp.ts_ns == 0x5555555555555555ULL, "other fields touched");
	CHECK("live: system PSI fields follow PSI's availability",
	      ap_cg_session_has_psi(s) ? smp.psi_some_total != NV && smp.psi_full_avg10 != NV :
	      psi_note && smp.psi_some_total == NV, "has_psi %d some_total %" PRIu64,
	      ap_cg_session_has_psi(s), smp.psi_some_total);
	switch (ap_cg_session_mode(s)) {
	case AP_CG_V1:
		CHECK("live (v1 host): the session says v1 is read-only and its reset global",
		      v1_note && ap_cg_session_peak(s) == AP_PEAK_V1, "note %d peak %d", v1_note,
		      ap_cg_session_peak(s));
		CHECK("live (v1 host): usage and max usage read", smp.cg_current != NV &&
		      smp.cg_current > 0 && smp.cg_peak != NV && smp.cg_peak >= smp.cg_current,
		      "current %" PRIu64 " peak %" PRIu64, smp.cg_current, smp.cg_peak);
		rc = ap_cg_reset_peak(s, err);
		CHECK("live (v1 host): reset refused (EOPNOTSUPP), saying it would be global",
		      rc == -EOPNOTSUPP && strstr(err, "global"), "rc %d: %s", rc, err);
		ap_cg_snapshot(s, &snap);
		CHECK("live (v1 host): snapshot reads memory.stat and the limit",
		      snap.stat.anon != NV && snap.stat.file != NV && snap.max != NV &&
		      snap.events.oom_kill == NV, "anon %" PRIu64 " max %" PRIu64, snap.stat.anon,
		      snap.max);
		break;
	case AP_CG_V2:
		CHECK("live (v2 host): memory.current read", smp.cg_current != NV &&
		      smp.cg_current > 0, "current %" PRIu64, smp.cg_current);
		break;
	case AP_CG_NONE:
		CHECK("live (no memory cgroup): fields empty", smp.cg_current == NV &&
		      smp.cg_peak == NV, "current %" PRIu64, smp.cg_current);
		break;
	}
	ap_cg_session_close(s);

	/* `run` refuses this host when the memory controller is not on cgroup v2 */
	rc = ap_cg_v2_parent((int)getpid(), dir, sizeof(dir), err);
	if (rc)
		CHECK("live: run's harness refuses with the reason (ENOTSUP)", rc == -ENOTSUP &&
		      strstr(err, "cgroup v2"), "rc %d: %s", rc, err);
	else
		printf("# this host has cgroup v2 memory: run would use %s\n", dir);
	CHECK("live: --cgroup-parent that is not a cgroup is refused",
	      ap_cg_v2_check_dir("/tmp", err) == -ENOTSUP &&
	      strstr(err, "not a cgroup v2 directory"), "%s", err);

	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	rc = ap_cg_session_open(&s, (int)dead, err);
	CHECK("live: a session on a dead pid: ESRCH, one line", rc == -ESRCH &&
	      strstr(err, "does not exist"), "rc %d: %s", rc, err);
	rc = ap_cg_session_open(&s, 0, err);
	CHECK("live: pid 0 is refused", rc == -EINVAL, "rc %d", rc);
}

int main(void)
{
	membership();
	mountinfo();
	join();
	values();
	events();
	stat_files();
	controllers();
	live();
	TEST_EXIT();
}
