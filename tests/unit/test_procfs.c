// SPDX-License-Identifier: Apache-2.0
/*
 * Unit tests of the /proc parsers (src/kernel/procfs.c) on text: every field of the
 * fixtures in tests/fixtures/procfs/ (real samples of this project's development machine
 * and hand-written variants, see the README there) and the error, with its line number, of
 * every broken one, for status, smaps_rollup, smaps and maps; every prefix of the real
 * samples; /proc/PID/stat lines (a name with ") (", a kernel thread, a zombie, a line cut
 * short, garbage) and this process's own. The readers on live processes are
 * test_procfs_live.c's. Run from the repository root.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/kernel/procfs.h"
#include "procfs_check.h"
#include "test.h"

#define FIX "tests/fixtures/procfs/"
#define KB(x) ((uint64_t)(x) * 1024)
#define LIT(s) (s), sizeof(s) - 1	/* a string literal and its length (NULs included) */

/* ------------------------------------------------------------------------------------- */
/* status                                                                                */

struct want_status {
	uint64_t vm_peak, vm_size, vm_hwm, vm_rss, rss_anon, rss_file, rss_shmem, vm_data,
		 vm_swap;
	int threads;
	char state;
	const char *name;
};

/* The parsers under test, with one signature: (buf, len, name, out, err). */
typedef int (*parse_fn)(const char *buf, size_t len, const char *name, void *out, char *err);

static int p_status(const char *buf, size_t len, const char *name, void *out, char *err)
{
	return ap_procfs_parse_status(buf, len, name, out, err);
}

static int p_smaps(const char *buf, size_t len, const char *name, void *out, char *err)
{
	return ap_procfs_parse_smaps(buf, len, name, out, err);
}

static int p_maps(const char *buf, size_t len, const char *name, void *out, char *err)
{
	return ap_procfs_parse_maps(buf, len, name, out, err);
}

/* FIX file parsed into out: checks it parses; false when unreadable or refused. */
static bool fixture_parses(const char *file, parse_fn fn, void *out)
{
	char path[128], err[AP_ERR_LEN] = "";
	size_t len;
	char *buf;
	int rc;

	snprintf(path, sizeof(path), FIX "%s", file);
	buf = test_fixture(path, &len);
	if (!buf)
		return false;
	rc = fn(buf, len, path, out, err);
	CHECK(nm(file, "parses"), rc == 0, "%s", err);
	free(buf);
	return rc == 0;
}

/* FIX file refused with "PATH" want and EINVAL; false when unreadable. */
static bool fixture_refused(const char *file, parse_fn fn, void *out, const char *want)
{
	char path[128], err[AP_ERR_LEN] = "", w[AP_ERR_LEN];
	size_t len;
	char *buf;
	int rc, e;

	snprintf(path, sizeof(path), FIX "%s", file);
	snprintf(w, sizeof(w), "%s%s", path, want);
	buf = test_fixture(path, &len);
	if (!buf)
		return false;
	errno = 0;
	rc = fn(buf, len, path, out, err);
	e = errno;
	check_fail(nm(file, "error"), rc, e, err, w, EINVAL);
	free(buf);
	return true;
}

static void check_status_fields(const char *tag, const struct ap_status *s,
				const struct want_status *w)
{
	CHECK_U64(nm(tag, "vm_peak"), s->vm_peak, w->vm_peak);
	CHECK_U64(nm(tag, "vm_size"), s->vm_size, w->vm_size);
	CHECK_U64(nm(tag, "vm_hwm"), s->vm_hwm, w->vm_hwm);
	CHECK_U64(nm(tag, "vm_rss"), s->vm_rss, w->vm_rss);
	CHECK_U64(nm(tag, "rss_anon"), s->rss_anon, w->rss_anon);
	CHECK_U64(nm(tag, "rss_file"), s->rss_file, w->rss_file);
	CHECK_U64(nm(tag, "rss_shmem"), s->rss_shmem, w->rss_shmem);
	CHECK_U64(nm(tag, "vm_data"), s->vm_data, w->vm_data);
	CHECK_U64(nm(tag, "vm_swap"), s->vm_swap, w->vm_swap);
	CHECK_EQ_I64(nm(tag, "threads"), s->threads, w->threads);
	CHECK_EQ_I64(nm(tag, "state"), s->state, w->state);
	check_str(nm(tag, "name"), s->name, w->name);
}

static const struct want_status none_status = {
	NV, NV, NV, NV, NV, NV, NV, NV, NV, -1, 0, ""
};

static void status_fixture(const char *file, const struct want_status *w)
{
	struct ap_status s;

	if (fixture_parses(file, p_status, &s))
		check_status_fields(file, &s, w);
}

static void status_fixture_err(const char *file, const char *want)
{
	struct ap_status s;

	if (fixture_refused(file, p_status, &s, want))
		check_status_fields(nm(file, "reset on error"), &s, &none_status);
}

static void status_inline_err(const char *text, const char *want)
{
	char err[AP_ERR_LEN] = "";
	struct ap_status s;
	int rc;

	rc = ap_procfs_parse_status(text, strlen(text), "x", &s, err);
	check_fail(nm("status inline", want), rc, errno, err, want, EINVAL);
}

/* Every prefix of the real sample: an error naming the file, or the full values / absent. */
static void status_prefixes(void)
{
	const char *path = FIX "status";
	char err[AP_ERR_LEN];
	struct ap_status full, s;
	size_t len, i, ok = 0, failed = 0, bad_vals = 0, bad_errs = 0;
	char *buf = test_fixture(path, &len), *cut;

	if (!buf || ap_procfs_parse_status(buf, len, path, &full, err))
		return;
	for (i = 0; i <= len; i++) {
		/* a copy of exactly i bytes, so that ASan sees any read past the end */
		cut = malloc(i ? i : 1);
		memcpy(cut, buf, i);
		if (ap_procfs_parse_status(cut, i, path, &s, err)) {
			failed++;
			if (strncmp(err, path, strlen(path)) || strchr(err, '\n'))
				bad_errs++;
		} else {
			ok++;
#define SAME(f) (s.f == full.f || s.f == NV)
			if (!SAME(vm_peak) || !SAME(vm_size) || !SAME(vm_hwm) || !SAME(vm_rss) ||
			    !SAME(rss_anon) || !SAME(rss_file) || !SAME(rss_shmem) ||
			    !SAME(vm_data) || !SAME(vm_swap) ||
			    (s.threads != full.threads && s.threads != -1))
				bad_vals++;
#undef SAME
		}
		free(cut);
	}
	CHECK("status prefixes: values are the full file's or absent", bad_vals == 0,
	      "%zu of %zu", bad_vals, ok);
	CHECK("status prefixes: errors name the file, one line", bad_errs == 0, "%zu of %zu",
	      bad_errs, failed);
	CHECK("status prefixes: some fail (cut numbers), some parse", ok > 0 && failed > 0,
	      "ok %zu failed %zu", ok, failed);
	free(buf);
}

static void test_status(void)
{
	static const struct want_status real = {
		KB(3060), KB(3060), KB(1748), KB(1748), KB(116), KB(1632), 0, KB(360), 0,
		1, 'R', "cat"
	};
	/* 4.4: no RssAnon, RssFile, RssShmem */
	static const struct want_status k44 = {
		KB(96212), KB(96212), KB(40120), KB(38016), NV, NV, NV, KB(71240), 0,
		4, 'S', "TF Lite"
	};
	/* unknown keys ignored, the last VmRSS counts, CRLF and spaces around units */
	static const struct want_status unknown = {
		NV, NV, KB(4096), KB(2048), NV, NV, NV, NV, NV, 7, 0, "mininfer"
	};
	static const struct want_status huge = {
		UINT64_MAX - 1023, 0, 1024, NV, NV, NV, NV, NV, NV, INT_MAX, 0, "big"
	};
	struct ap_status s;
	char err[AP_ERR_LEN] = "";

	status_fixture("status", &real);
	status_fixture("status.4_4", &k44);
	status_fixture("status.unknown_keys", &unknown);
	status_fixture("status.huge", &huge);
	status_fixture("status.empty", &none_status);
	status_fixture_err("status.bad_value", ":7: VmRSS: 'abc' is not a number");
	status_fixture_err("status.truncated", ":23: VmRSS: '17' is not a size in kB");
	status_fixture_err("status.garbage", ":3: '?ELF????garbage' is not a 'Key: value' line");

	status_inline_err("VmRSS:\t18014398509481984 kB\n",
			  "x:1: VmRSS: '18014398509481984 kB' is too large");
	status_inline_err("Name:\tx\nVmHWM:\t99999999999999999999999 kB\n",
			  "x:2: VmHWM: '99999999999999999999999 kB' is too large");
	status_inline_err("VmRSS:\t-4 kB\n", "x:1: VmRSS: '-4 kB' is not a number");
	status_inline_err("VmRSS:\t4 MB\n", "x:1: VmRSS: '4 MB' is not a size in kB");
	status_inline_err("VmRSS:\t4 kB kB\n", "x:1: VmRSS: '4 kB kB' is not a size in kB");
	status_inline_err("VmRSS:\n", "x:1: VmRSS: '' is not a number");
	status_inline_err("Threads:\t2147483648\n", "x:1: Threads: '2147483648' is too large");
	status_inline_err("Threads:\t3 x\n", "x:1: Threads: '3 x' is not a number");
	status_inline_err(": 5 kB\n", "x:1: ': 5 kB' is not a 'Key: value' line");
	status_inline_err("VmRSS:\t1 kB\nVmRSS 2 kB\n",
			  "x:2: 'VmRSS 2 kB' is not a 'Key: value' line");
	status_inline_err("Name:\tx\nVmRSS:\t1234567890123456789012345678901234567890"
			  "1234567890 kB\n",
			  "x:2: VmRSS: '1234567890123456789012345678901234567890...' is too large");
	CHECK("status: NULL buffer of length 0 parses",
	      ap_procfs_parse_status(NULL, 0, NULL, &s, err) == 0 && s.vm_rss == NV, "%s", err);
	/* a NUL byte inside a value */
	CHECK("status: NUL in a value",
	      ap_procfs_parse_status(LIT("VmRSS:\t1\0 kB\n"), "x", &s, err) == -EINVAL &&
	      !strcmp(err, "x:1: VmRSS: '1? kB' is not a size in kB"), "%s", err);
	CHECK("status: name cut to 63 bytes",
	      !ap_procfs_parse_status(LIT("Name:\t0123456789012345678901234567890123456789"
					  "0123456789012345678901234567890123456789\n"), "x", &s,
				      err) &&
	      strlen(s.name) == 63 && s.name[62] == '2', "'%s' %s", s.name, err);
	status_prefixes();
}

/* ------------------------------------------------------------------------------------- */
/* smaps_rollup, smaps                                                                   */

struct want_smaps {
	uint64_t start, end, size, kps, mmu;
	uint64_t rss, pss, pss_dirty, pss_anon, pss_file, pss_shmem, shared_clean, shared_dirty,
		 private_clean, private_dirty, referenced, anonymous, ksm, lazy_free, anon_huge,
		 shmem_pmd, file_pmd, shared_hugetlb, private_hugetlb, swap, swap_pss, locked;
};

static void check_smaps_fields(const char *tag, const struct ap_smaps *s,
			       const struct want_smaps *w)
{
	CHECK_U64(nm(tag, "start"), s->start, w->start);
	CHECK_U64(nm(tag, "end"), s->end, w->end);
	CHECK_U64(nm(tag, "size"), s->size, w->size);
	CHECK_U64(nm(tag, "kernel_page_size"), s->kernel_page_size, w->kps);
	CHECK_U64(nm(tag, "mmu_page_size"), s->mmu_page_size, w->mmu);
	CHECK_U64(nm(tag, "rss"), s->rss, w->rss);
	CHECK_U64(nm(tag, "pss"), s->pss, w->pss);
	CHECK_U64(nm(tag, "pss_dirty"), s->pss_dirty, w->pss_dirty);
	CHECK_U64(nm(tag, "pss_anon"), s->pss_anon, w->pss_anon);
	CHECK_U64(nm(tag, "pss_file"), s->pss_file, w->pss_file);
	CHECK_U64(nm(tag, "pss_shmem"), s->pss_shmem, w->pss_shmem);
	CHECK_U64(nm(tag, "shared_clean"), s->shared_clean, w->shared_clean);
	CHECK_U64(nm(tag, "shared_dirty"), s->shared_dirty, w->shared_dirty);
	CHECK_U64(nm(tag, "private_clean"), s->private_clean, w->private_clean);
	CHECK_U64(nm(tag, "private_dirty"), s->private_dirty, w->private_dirty);
	CHECK_U64(nm(tag, "referenced"), s->referenced, w->referenced);
	CHECK_U64(nm(tag, "anonymous"), s->anonymous, w->anonymous);
	CHECK_U64(nm(tag, "ksm"), s->ksm, w->ksm);
	CHECK_U64(nm(tag, "lazy_free"), s->lazy_free, w->lazy_free);
	CHECK_U64(nm(tag, "anon_huge"), s->anon_huge, w->anon_huge);
	CHECK_U64(nm(tag, "shmem_pmd"), s->shmem_pmd, w->shmem_pmd);
	CHECK_U64(nm(tag, "file_pmd"), s->file_pmd, w->file_pmd);
	CHECK_U64(nm(tag, "shared_hugetlb"), s->shared_hugetlb, w->shared_hugetlb);
	CHECK_U64(nm(tag, "private_hugetlb"), s->private_hugetlb, w->private_hugetlb);
	CHECK_U64(nm(tag, "swap"), s->swap, w->swap);
	CHECK_U64(nm(tag, "swap_pss"), s->swap_pss, w->swap_pss);
	CHECK_U64(nm(tag, "locked"), s->locked, w->locked);
}

static const struct want_smaps none_smaps = {
	NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV, NV,
	NV, NV, NV, NV, NV
};

static void smaps_fixture(const char *file, const struct want_smaps *w)
{
	struct ap_smaps s;

	if (fixture_parses(file, p_smaps, &s))
		check_smaps_fields(file, &s, w);
}

static void smaps_fixture_err(const char *file, const char *want)
{
	struct ap_smaps s;

	if (fixture_refused(file, p_smaps, &s, want))
		check_smaps_fields(nm(file, "reset on error"), &s, &none_smaps);
}

static void smaps_range_fixture(const char *tag, uint64_t addr, const struct want_smaps *w)
{
	const char *path = FIX "smaps";
	char err[AP_ERR_LEN] = "";
	struct ap_smaps s;
	size_t len;
	char *buf = test_fixture(path, &len);
	int rc;

	if (!buf)
		return;
	rc = ap_procfs_parse_smaps_range(buf, len, path, addr, &s, err);
	CHECK(nm(tag, "parses"), rc == 0, "%s", err);
	check_smaps_fields(tag, &s, w);
	free(buf);
}

static void smaps_prefixes(void)
{
	const char *path = FIX "smaps_rollup";
	char err[AP_ERR_LEN];
	struct ap_smaps full, s;
	size_t len, i, k, ok = 0, failed = 0, bad_vals = 0, bad_errs = 0;
	char *buf = test_fixture(path, &len), *cut;

	if (!buf || ap_procfs_parse_smaps(buf, len, path, &full, err))
		return;
	for (i = 0; i <= len; i++) {
		cut = malloc(i ? i : 1);
		memcpy(cut, buf, i);
		if (ap_procfs_parse_smaps(cut, i, path, &s, err)) {
			failed++;
			if (strncmp(err, path, strlen(path)) || strchr(err, '\n'))
				bad_errs++;
		} else {
			ok++;
			for (k = 0; k < sizeof(s) / sizeof(uint64_t); k++) {
				uint64_t g = ((uint64_t *)&s)[k], f = ((uint64_t *)&full)[k];

				if (g != f && g != NV) {
					bad_vals++;
					break;
				}
			}
		}
		free(cut);
	}
	CHECK("smaps_rollup prefixes: values are the full file's or absent", bad_vals == 0,
	      "%zu of %zu", bad_vals, ok);
	CHECK("smaps_rollup prefixes: errors name the file, one line", bad_errs == 0,
	      "%zu of %zu", bad_errs, failed);
	CHECK("smaps_rollup prefixes: some fail, some parse", ok > 0 && failed > 0,
	      "ok %zu failed %zu", ok, failed);
	free(buf);
}

static void test_smaps(void)
{
	static const struct want_smaps real = {
		0x563864e31000, 0x7ffc4cccb000, NV, NV, NV,
		KB(1692), KB(344), KB(112), KB(112), KB(232), 0, KB(1528), 0, KB(52), KB(112),
		KB(1692), KB(112), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
	};
	/* 4.14: no Pss_Dirty, Pss_Anon, Pss_File, Pss_Shmem, KSM, FilePmdMapped */
	static const struct want_smaps k414 = {
		0x400000, 0x7ffd3e9ff000, NV, NV, NV,
		KB(38016), KB(31877), NV, NV, NV, NV, KB(7200), 0, KB(12288), KB(18528),
		KB(37140), KB(18528), NV, 0, KB(2048), 0, NV, 0, 0, 0, 0, 0
	};
	/* /proc/self/smaps of cat: [heap], [stack], libc's text, [vsyscall] (the last entry) */
	static const struct want_smaps heap = {
		0x562e85d81000, 0x562e85da2000, KB(132), KB(4), KB(4),
		KB(16), KB(16), KB(16), NV, NV, NV, 0, 0, 0, KB(16),
		KB(16), KB(16), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
	};
	static const struct want_smaps stack = {
		0x7ffc571ba000, 0x7ffc571db000, KB(132), KB(4), KB(4),
		KB(12), KB(12), KB(12), NV, NV, NV, 0, 0, 0, KB(12),
		KB(12), KB(12), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
	};
	static const struct want_smaps libc_text = {
		0x7f46b9f53000, 0x7f46ba0a9000, KB(1368), KB(4), KB(4),
		KB(756), KB(91), 0, NV, NV, NV, KB(740), 0, KB(16), 0,
		KB(756), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
	};
	static const struct want_smaps vsyscall = {
		0xffffffffff600000, 0xffffffffff601000, KB(4), KB(4), KB(4),
		0, 0, 0, NV, NV, NV, 0, 0, 0, 0,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0
	};
	const char *path = FIX "smaps";
	char err[AP_ERR_LEN] = "";
	struct ap_smaps s;
	size_t len;
	char *buf;
	int rc;

	smaps_fixture("smaps_rollup", &real);
	smaps_fixture("smaps_rollup.4_14", &k414);
	smaps_fixture("smaps_rollup.empty", &none_smaps);
	smaps_fixture_err("smaps_rollup.truncated", ":10: 'Private_Cl' is not a 'Key: value' line");
	smaps_fixture_err("smaps_rollup.garbage", ":3: Pss: '3x4 kB' is not a size in kB");
	smaps_fixture_err("smaps_rollup.huge", ":3: Pss: '18014398509481984 kB' is too large");
	smaps_fixture_err("smaps_rollup.two_entries", ":26: a mapping header after the first "
			  "line: expected one entry (smaps_rollup), not a whole smaps file");
	smaps_prefixes();

	smaps_range_fixture("smaps [heap] start", 0x562e85d81000, &heap);
	smaps_range_fixture("smaps [heap] last byte", 0x562e85da1fff, &heap);
	smaps_range_fixture("smaps [stack]", 0x7ffc571da000, &stack);
	smaps_range_fixture("smaps libc text", 0x7f46b9f60123, &libc_text);
	smaps_range_fixture("smaps [vsyscall]", 0xffffffffff600800, &vsyscall);
	buf = test_fixture(path, &len);
	if (!buf)
		return;
	rc = ap_procfs_parse_smaps_range(buf, len, path, 0x1000, &s, err);
	check_fail("smaps: no mapping at 0x1000", rc, errno, err,
		   FIX "smaps: no mapping contains 0x1000", ENXIO);
	rc = ap_procfs_parse_smaps_range(buf, len, path, 0x562e85da2000, &s, err);
	check_fail("smaps: the end of [heap] is outside it", rc, errno, err,
		   FIX "smaps: no mapping contains 0x562e85da2000", ENXIO);
	rc = ap_procfs_parse_smaps(buf, len, path, &s, err);
	check_fail("smaps: a whole smaps is not one entry", rc, errno, err,
		   FIX "smaps:26: a mapping header after the first line: expected one entry "
		   "(smaps_rollup), not a whole smaps file", EINVAL);
	free(buf);

	/* a bad header of the wanted entry, a bad value in it; other entries are not parsed */
	rc = ap_procfs_parse_smaps_range(LIT("1000-2000 rw-p 0 00:00 0\nRss: x\n"
					     "3000-2000 rw-p 0 00:00 0\n"), "y", 0x1000, &s, err);
	check_fail("smaps: bad value in the wanted entry", rc, errno, err,
		   "y:2: Rss: 'x' is not a number", EINVAL);
	rc = ap_procfs_parse_smaps_range(LIT("1000-2000 rw-p 0 00:00 0\nRss: x\n"
					     "3000-4000 rw-p 0 00:00 0\nRss: 8 kB\n"), "y", 0x3000,
					 &s, err);
	CHECK("smaps: other entries are not parsed", rc == 0 && s.rss == KB(8), "%d %s", rc, err);
	rc = ap_procfs_parse_smaps_range(LIT("1000-2000 rw-p 0 00:00 0\n"
					     "3000-2000 rw-p 0 00:00 0\n"), "y", 0x5000, &s, err);
	check_fail("smaps: bad header", rc, errno, err,
		   "y:2: mapping 0x3000-0x2000: start is not below end", EINVAL);
	/* the [rollup] header of a process without mappings: start == end */
	rc = ap_procfs_parse_smaps(LIT("00000000-00000000 ---p 00000000 00:00 0  [rollup]\n"
				       "Rss: 0 kB\n"), "z", &s, err);
	CHECK("smaps_rollup: empty span", rc == 0 && s.start == 0 && s.end == 0 && s.rss == 0,
	      "%d %s", rc, err);
}

/* ------------------------------------------------------------------------------------- */
/* maps                                                                                  */

struct want_map {
	size_t i;
	uint64_t start, end, offset, inode;
	uint32_t prot, major, minor;
	const char *path;
	bool anon;
};

#define R AP_PROT_READ
#define W AP_PROT_WRITE
#define X AP_PROT_EXEC
#define S AP_PROT_SHARED

static void check_maps_fixture(const char *file, size_t n, size_t n_anon,
			       const struct want_map *w, size_t nw)
{
	char path[128], err[AP_ERR_LEN] = "", tag[160];
	struct ap_maps maps, again;
	size_t len, i, anon = 0;
	char *buf;
	int rc;

	snprintf(path, sizeof(path), FIX "%s", file);
	buf = test_fixture(path, &len);
	if (!buf)
		return;
	rc = ap_procfs_parse_maps(buf, len, path, &maps, err);
	CHECK(nm(file, "parses"), rc == 0, "%s", err);
	if (rc) {
		free(buf);
		return;
	}
	CHECK_EQ_I64(nm(file, "n"), maps.n, n);
	for (i = 0; i < maps.n; i++)
		anon += ap_map_is_anon(&maps.m[i]);
	CHECK_EQ_I64(nm(file, "anonymous mappings"), anon, n_anon);
	for (i = 0; i < nw && w[i].i < maps.n; i++) {
		const struct ap_map *m = &maps.m[w[i].i];

		snprintf(tag, sizeof(tag), "%s[%zu]", file, w[i].i);
		CHECK_U64(nm(tag, "start"), m->start, w[i].start);
		CHECK_U64(nm(tag, "end"), m->end, w[i].end);
		CHECK_U64(nm(tag, "offset"), m->offset, w[i].offset);
		CHECK_U64(nm(tag, "inode"), m->inode, w[i].inode);
		CHECK_EQ_I64(nm(tag, "prot"), m->prot, w[i].prot);
		CHECK_EQ_I64(nm(tag, "dev_major"), m->dev_major, w[i].major);
		CHECK_EQ_I64(nm(tag, "dev_minor"), m->dev_minor, w[i].minor);
		check_str(nm(tag, "path"), m->path, w[i].path);
		CHECK_EQ_I64(nm(tag, "anon"), ap_map_is_anon(m), w[i].anon);
		CHECK(nm(tag, "find start"), ap_maps_find(&maps, m->start) == m, "not found");
		CHECK(nm(tag, "find end - 1"), ap_maps_find(&maps, m->end - 1) == m, "not found");
	}
	CHECK(nm(file, "find below the first"),
	      !maps.n || !maps.m[0].start || !ap_maps_find(&maps, maps.m[0].start - 1), "found");
	CHECK(nm(file, "equal to itself"), ap_maps_equal(&maps, &maps), "not equal");
	rc = ap_procfs_parse_maps(buf, len, path, &again, err);
	CHECK(nm(file, "equal to a second parse"), !rc && ap_maps_equal(&maps, &again),
	      "not equal");
	if (!rc && again.n) {
		again.m[again.n - 1].path[0] ^= 1;
		CHECK(nm(file, "a changed path is not equal"), !ap_maps_equal(&maps, &again),
		      "equal");
		again.m[again.n - 1].path[0] ^= 1;
		again.m[0].prot ^= AP_PROT_WRITE;
		CHECK(nm(file, "a changed prot is not equal"), !ap_maps_equal(&maps, &again),
		      "equal");
		again.n--;
		CHECK(nm(file, "one fewer is not equal"), !ap_maps_equal(&maps, &again), "equal");
		again.n++;
	}
	ap_maps_free(&again);
	ap_maps_free(&maps);
	CHECK(nm(file, "free empties"), !maps.m && !maps.n && !maps.strs, "not empty");
	free(buf);
}

static void maps_fixture_err(const char *file, const char *want)
{
	struct ap_maps maps;

	if (fixture_refused(file, p_maps, &maps, want))
		CHECK(nm(file, "empty on error"), !maps.m && !maps.n && !maps.strs, "not empty");
}

static void maps_prefixes(void)
{
	const char *path = FIX "maps.special";
	char err[AP_ERR_LEN];
	struct ap_maps full, m;
	size_t len, i, k, ok = 0, failed = 0, bad_vals = 0, bad_errs = 0;
	char *buf = test_fixture(path, &len), *cut;

	if (!buf || ap_procfs_parse_maps(buf, len, path, &full, err))
		return;
	for (i = 0; i <= len; i++) {
		cut = malloc(i ? i : 1);
		memcpy(cut, buf, i);
		if (ap_procfs_parse_maps(cut, i, path, &m, err)) {
			failed++;
			if (strncmp(err, path, strlen(path)) || strchr(err, '\n'))
				bad_errs++;
		} else {
			ok++;
			/* every whole line as in the full file; the cut one only by its fields */
			for (k = 0; k < m.n; k++) {
				const struct ap_map *a = &m.m[k], *b = &full.m[k];

				if (k >= full.n || a->start != b->start || a->end != b->end ||
				    a->prot != b->prot || a->offset != b->offset ||
				    strncmp(a->path, b->path, strlen(a->path)) ||
				    (k + 1 < m.n && strcmp(a->path, b->path))) {
					bad_vals++;
					break;
				}
			}
			ap_maps_free(&m);
		}
		free(cut);
	}
	CHECK("maps prefixes: mappings as in the full file", bad_vals == 0, "%zu of %zu",
	      bad_vals, ok);
	CHECK("maps prefixes: errors name the file, one line", bad_errs == 0, "%zu of %zu",
	      bad_errs, failed);
	CHECK("maps prefixes: some fail, some parse", ok > 0 && failed > 0, "ok %zu failed %zu",
	      ok, failed);
	ap_maps_free(&full);
	free(buf);
}

static void test_maps(void)
{
	static const struct want_map real[] = {
		{ 0, 0x55972953c000, 0x55972953e000, 0, 247026, R, 0xfe, 0, "/usr/bin/cat", 0 },
		{ 5, 0x559732090000, 0x5597320b1000, 0, 0, R | W, 0, 0, "[heap]", 1 },
		{ 6, 0x7fe541ad2000, 0x7fe541af4000, 0, 0, R | W, 0, 0, "", 1 },
		{ 30, 0x7fe541d4a000, 0x7fe541d4c000, 0, 0, R | X, 0, 0, "[vdso]", 0 },
		{ 32, 0x7fe541d4d000, 0x7fe541d73000, 0x1000, 325835, R | X, 0xfe, 0,
		  "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 0 },
		{ 35, 0x7fe541d7f000, 0x7fe541d81000, 0x33000, 325835, R | W, 0xfe, 0,
		  "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2", 0 },
		{ 36, 0x7ffce73b5000, 0x7ffce73d6000, 0, 0, R | W, 0, 0, "[stack]", 1 },
	};
	static const struct want_map special[] = {
		{ 12, 0x7f09d9860000, 0x7f09d9862000, 0, 1025, R | W | S, 0, 1,
		  "/dev/zero (deleted)", 0 },
		{ 13, 0x7f09d9862000, 0x7f09d9863000, 0x1000, 9986215, R | W | S, 0xfe, 0,
		  "/tmp/arenaprof fixture/gone.bin (deleted)", 0 },
		{ 14, 0x7f09d9863000, 0x7f09d9866000, 0, 9986214, R, 0xfe, 0,
		  "/tmp/arenaprof fixture/model weights.tflite", 0 },
		{ 15, 0x7f09d9866000, 0x7f09d9868000, 0, 0, R | W, 0, 0, "", 1 },
		{ 25, 0xffffffffff600000, 0xffffffffff601000, 0, 0, X, 0, 0, "[vsyscall]", 0 },
	};
	static const struct want_map hand[] = {
		{ 0, 0x10000, 0x11000, 0, 131090, R | X, 0xb3, 2, "/usr/bin/mininfer", 0 },
		{ 2, 0x21000, 0x42000, 0, 0, R | W, 0, 0, "[heap]", 1 },
		{ 3, 0x40000000, 0x40400000, 0, 0, R | W, 0, 0, "", 1 },
		{ 4, 0x40400000, 0x40410000, 0, 0, R | W, 0, 0, "[anon:tflite arena]", 1 },
		{ 5, 0x40410000, 0x40411000, 0, 0, 0, 0, 0, "", 1 },
		{ 6, 0x40411000, 0x40c11000, 0, 0, R | W, 0, 0, "[stack:4711]", 1 },
		{ 7, 0x40c11000, 0x40c12000, 0, 4097, R | W | S, 0, 5, "[anon_shmem:ring]", 0 },
		{ 8, 0x40c12000, 0x40c13000, 0, 2050, R | W | S, 0, 1, "/dev/zero (deleted)", 0 },
		{ 9, 0x7f000000, 0x7f2a0000, 0x1000, UINT64_MAX, R | S, 0x103, 2,
		  "/data/models/my model  v2.tflite (deleted)", 0 },
		{ 10, 0x7f2a0000, 0x7f2a1000, 0, 0, R | X, 0, 0, "[uprobes]", 0 },
		{ 11, 0xfffd0000, 0xffff0000, 0, 0, R | W, 0, 0, "[stack]", 1 },
		{ 12, 0xffff0000, 0xffff1000, 0, 0, R | X, 0, 0, "[vectors]", 0 },
	};
	struct ap_maps maps;
	char err[AP_ERR_LEN] = "";
	int rc;

	check_maps_fixture("maps", 38, 6, real, N(real));
	check_maps_fixture("maps.special", 26, 4, special, N(special));
	check_maps_fixture("maps.handmade", 13, 6, hand, N(hand));
	rc = ap_procfs_parse_maps("", 0, "e", &maps, err);
	CHECK("maps: empty", rc == 0 && maps.n == 0 && !maps.m && !ap_maps_find(&maps, 0),
	      "%d %s", rc, err);
	ap_maps_free(&maps);
	rc = ap_procfs_parse_maps("\n\n", 2, "e", &maps, err);
	CHECK("maps: blank lines", rc == 0 && maps.n == 0, "%d %s", rc, err);
	ap_maps_free(&maps);
	rc = ap_procfs_parse_maps(LIT("1000-2000 r--p 0 0:0 0"), "e", &maps, err);
	CHECK("maps: shortest line, no newline",
	      rc == 0 && maps.n == 1 && maps.m[0].end == 0x2000 && !strcmp(maps.m[0].path, ""),
	      "%d %s", rc, err);
	ap_maps_free(&maps);

	rc = ap_procfs_parse_maps(LIT("1000-2001 r--p 0 0:0 0\n"), "e", &maps, err);
	check_fail("maps: end not page-aligned", rc, errno, err,
		   "e:1: mapping 0x1000-0x2001: not aligned to pages", EINVAL);
	/* found by the fuzzer: an end of 2^64 - 1 would read as AP_NO_VALUE in smaps */
	rc = ap_procfs_parse_maps(LIT("5592-fffffFfffffFFfff --xp 09 5615100:00 0   \xff\xff"),
				  "e", &maps, err);
	check_fail("maps: end 2^64 - 1", rc, errno, err,
		   "e:1: mapping 0x5592-0xffffffffffffffff: not aligned to pages", EINVAL);
	maps_fixture_err("maps.truncated",
			 ":31: bad offset in '7f7b53ab9000-7f7b53abb000 r-xp 0000'");
	maps_fixture_err("maps.overlap", ":3: mapping 0x651000-0x653000 starts before the "
			 "previous one ends (0x652000)");
	maps_fixture_err("maps.bad_hex", ":2: bad start address in '0065g000-00652000 r--p "
			 "00051000 08:02 17...'");
	maps_fixture_err("maps.bad_perms", ":3: bad permissions in '00652000-00653000 rwzp "
			 "00052000 08:02 17...'");
	maps_fixture_err("maps.empty_range", ":2: mapping 0x652000-0x652000: start is not "
			 "below end");
	maps_fixture_err("maps.garbage", ":1: bad start address in 'Hello, this is not "
			 "/proc/PID/maps.'");
	maps_fixture_err("maps.bad_inode", ":1: bad inode in '00400000-00452000 r-xp 00000000 "
			 "08:02 17...'");
	maps_fixture_err("maps.huge_inode", ":2: bad inode in '00652000-00653000 rw-p 00052000 "
			 "08:02 18...'");
	maps_fixture_err("maps.huge_addr", ":1: bad end address in '00400000-100000000000000"
			 "00 r-xp 00000000...'");
	check_maps_fixture("maps.empty", 0, 0, NULL, 0);
	maps_prefixes();
}

/* /proc/PID/stat: a command name with ") (" and spaces, a kernel thread, a zombie's exit
 * code, a line cut short, garbage; and this process live (its start time, not a kthread) */
static void test_stat(void)
{
	static const char user[] = "4242 (a) (b c) S 1 4242 4242 0 -1 4194560 100 0 0 0 1 2 0 0 "
		"20 0 1 0 123456 1000 10 18446744073709551615 1 1 0 0 0 0 0 0 0 0 0 0 17 1 0 0 "
		"0 0 0 0 0 0 0 0 0 0 0\n";
	static const char kthread[] = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 0 0 0 20 0 "
		"1 0 2 0 0 18446744073709551615 0 0 0 0 0 0 0 2147483647 0 0 0 0 0 1 0 0 0 0 0 "
		"0 0 0 0 0 0 0\n";
	static const char zombie[] = "77 (t) Z 1 77 77 0 -1 4227148 0 0 0 0 0 0 0 0 20 0 1 0 "
		"99 0 0 18446744073709551615 0 0 0 0 0 0 0 0 0 0 0 0 17 0 0 0 0 0 0 0 0 0 0 0 0 "
		"0 1792\n";
	static const char cut[] = "5 (x) S 1 5 5 0 -1 4194560 0 0\n";
	static const char junk[] = "5 (x) S 1 5 5 0 -1 41x94560 0 0 0 0 0 0 0 0 20 0 1 0 7\n";
	struct ap_pstat st, me;
	char err[AP_ERR_LEN] = "";
	int rc;

	rc = ap_procfs_parse_stat(LIT(user), "u", &st, err);
	CHECK("stat: a name with ') (' and spaces", rc == 0 && !strcmp(st.comm, "a) (b c") &&
	      st.state == 'S' && st.ppid == 1 && st.flags == 4194560 && st.start_time == 123456 &&
	      st.exit_code == 0, "rc %d '%s' %c %d %" PRIu64 " %" PRIu64 " %" PRId64 " %s", rc,
	      st.comm, st.state, st.ppid, st.flags, st.start_time, st.exit_code, err);
	rc = ap_procfs_parse_stat(LIT(kthread), "k", &st, err);
	CHECK("stat: kthreadd has PF_KTHREAD", rc == 0 && (st.flags & AP_PF_KTHREAD) &&
	      !strcmp(st.comm, "kthreadd"), "rc %d flags %" PRIx64 " %s", rc, st.flags, err);
	rc = ap_procfs_parse_stat(LIT(zombie), "z", &st, err);
	CHECK("stat: a zombie's state and exit code (exit 7 = 1792)", rc == 0 &&
	      st.state == 'Z' && st.exit_code == 1792 && WIFEXITED(1792) &&
	      WEXITSTATUS(1792) == 7, "rc %d %c %" PRId64, rc, st.state, st.exit_code);
	rc = ap_procfs_parse_stat(LIT(cut), "c", &st, err);
	check_fail("stat: a line cut short", rc, errno, err, "c: 11 fields, at least 22 expected",
		   EINVAL);
	CHECK("stat: before field 52, no exit code", ap_procfs_parse_stat(LIT(user) - 10, "u",
	      &st, err) == 0 && st.exit_code == -1, "exit_code %" PRId64 " %s", st.exit_code, err);
	rc = ap_procfs_parse_stat(LIT(junk), "j", &st, err);
	check_fail("stat: a field that is not a number", rc, errno, err,
		   "j: field 9: '41x94560' is not a number", EINVAL);
	rc = ap_procfs_parse_stat(LIT("no parenthesis here"), "n", &st, err);
	CHECK("stat: not a stat line", rc == -EINVAL, "rc %d", rc);
	/* under qemu-user this process's /proc/self/stat is the emulator's own rendering,
	 * not the kernel's line (tests/integration/test_arm64_user.sh) */
	if (getenv("AP_TEST_QEMU_USER")) {
		printf("SKIP: stat: this process, live: /proc/self/stat is qemu-user's\n");
		return;
	}
	rc = ap_procfs_stat((int)getpid(), &me, err);
	CHECK("stat: this process, live: running, no PF_KTHREAD, a start time", rc == 0 &&
	      !(me.flags & AP_PF_KTHREAD) && me.start_time > 0 && me.ppid == (int)getppid() &&
	      (me.state == 'R' || me.state == 'S'), "rc %d %c %" PRIx64 " %s", rc, me.state,
	      me.flags, err);
}

int main(void)
{
	test_status();
	test_smaps();
	test_maps();
	test_stat();
	TEST_EXIT();
}
