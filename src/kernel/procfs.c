// SPDX-License-Identifier: Apache-2.0
/*
 * procfs: /proc/PID/status, smaps_rollup, smaps, maps, pagemap and clear_refs (procfs.h has
 * the contract).
 *
 * Every parser works on a (buffer, length) pair that need not be NUL-terminated and may
 * hold any bytes: lines are found with memchr, fields are parsed within the line's bounds,
 * numbers are overflow-checked. The live readers map the kernel's errors to the messages
 * of procfs.h: ENOENT on a file of a process that is gone and ESRCH say "does not exist",
 * EACCES and EPERM say "no permission".
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/kernel/procfs.h"
#include "arenaprof/util/textparse.h"
#include "arenaprof/util/escape.h"

/* fail(err, EINVAL, ...): every error of this reader, as a negative errno (err.c) */
#define fail(err, e, ...) ap_fail(err, -(e), __VA_ARGS__)

#define READ_START (16u << 10)		/* first buffer of a whole-file read */
#define SMAPS_CHUNK (64u << 10)		/* streaming buffer of smaps */
#define PAGEMAP_CHUNK 1024		/* pagemap entries per pread */
#define MAPS_TRIES 3
#define MIN_PAGE 4096u			/* the smallest page size of any architecture */

/* ------------------------------------------------------------------------------------- */
/* Errors                                                                                */



static int gone(int pid, char *err)
{
	return fail(err, ESRCH, "process %d does not exist (exited?)", pid);
}

/*
 * The process is gone or a zombie (no address space left). Reads /proc/PID/stat: the state
 * letter follows the last ')' (the command name may hold parentheses).
 */
static bool pid_dead(int pid)
{
	char path[32], buf[512];
	const char *rp;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	do {
		n = read(fd, buf, sizeof(buf) - 1);
	} while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return n < 0 && errno == ESRCH;
	buf[n] = '\0';
	rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' && (rp[2] == 'Z' || rp[2] == 'X');
}

/* A failed open, read or write of path (a file of process pid), errno e. */
static int sys_fail(int pid, const char *path, int e, const char *verb, char *err)
{
	struct stat st;

	switch (e) {
	case ENOENT:
		if (stat("/proc/self", &st))
			return fail(err, ENOENT, "%s: /proc is not mounted", path);
		if (pid_dead(pid))
			return gone(pid, err);
		return fail(err, ENOENT, "%s: no such file (this kernel does not provide it)",
			    path);
	case ESRCH:
		if (pid_dead(pid))
			return gone(pid, err);
		return fail(err, ESRCH, "%s: process %d has no address space (a kernel thread, "
			    "or exiting)", path, pid);
	case EACCES:
	case EPERM:
		/* a zombie's files belong to root: a dead process, not a permission problem */
		if (pid_dead(pid))
			return gone(pid, err);
		return fail(err, EACCES, "no permission to %s %s (run as root or the process "
			    "owner)", verb, path);
	default:
		return fail(err, e, "%s: %s", path, strerror(e));
	}
}

static int check_pid(int pid, char *err)
{
	if (pid <= 0)
		return fail(err, EINVAL, "invalid process id %d", pid);
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Fields                                                                                */

/* "Key: value": the key before the first ':', the value after it (both trimmed). */
static int split_kv(struct ap_tp *t, const char *s, size_t n, const char **k, size_t *kn,
		    const char **v, size_t *vn)
{
	const char *colon = memchr(s, ':', n);
	char q[AP_TP_QUOTE_LEN];

	*k = s;
	*kn = colon ? (size_t)(colon - s) : 0;
	ap_tp_trim(k, kn);
	if (!colon || !*kn)
		return ap_tp_bad(t, "'%s' is not a 'Key: value' line", ap_tp_quote(q, s, n));
	*v = colon + 1;
	*vn = n - (size_t)(*v - s);
	return 0;
}

/* "<n> kB" (spaces around) in bytes. */
static int parse_kb(struct ap_tp *t, const char *key, size_t kn, const char *v, size_t vn,
		    uint64_t *out)
{
	const char *p, *e;
	char q[AP_TP_QUOTE_LEN];
	uint64_t x;
	int k;

	ap_tp_trim(&v, &vn);
	p = v;
	e = v + vn;
	k = ap_tp_eat_dec(&p, e, &x);
	if (k == AP_TP_NAN)
		return ap_tp_bad(t, "%.*s: '%s' is not a number", (int)kn, key,
				 ap_tp_quote(q, v, vn));
	if (k == AP_TP_RANGE || x > UINT64_MAX / 1024)
		return ap_tp_bad(t, "%.*s: '%s' is too large", (int)kn, key,
				 ap_tp_quote(q, v, vn));
	ap_tp_eat_sep(&p, e);
	if (e - p != 2 || p[0] != 'k' || p[1] != 'B')
		return ap_tp_bad(t, "%.*s: '%s' is not a size in kB", (int)kn, key,
				 ap_tp_quote(q, v, vn));
	*out = x * 1024;
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* Reading                                                                               */

static void proc_path(char *buf, size_t len, int pid, const char *file)
{
	snprintf(buf, len, "/proc/%d/%s", pid, file);
}

/*
 * Reads /proc/PID/file whole (at most cap bytes) into a malloc'd *out, after checking pid;
 * path (plen bytes) gets the file's name for the parser's messages.
 */
static int read_all(int pid, const char *file, size_t cap, char *path, size_t plen, char **out,
		    size_t *len, char *err)
{
	size_t size = READ_START, got = 0;
	char *buf, *nb;
	ssize_t n;
	int fd, e;

	*out = NULL;
	*len = 0;
	e = check_pid(pid, err);
	if (e)
		return e;
	proc_path(path, plen, pid, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sys_fail(pid, path, errno, "read", err);
	buf = malloc(size);
	if (!buf) {
		close(fd);
		return fail(err, ENOMEM, "%s: out of memory", path);
	}
	for (;;) {
		if (got == size) {
			/* a byte over the cap tells a file of cap bytes from a larger one */
			if (size > cap) {
				free(buf);
				close(fd);
				return fail(err, EFBIG, "%s: larger than %zu KiB", path, cap >> 10);
			}
			size = size > cap / 2 ? cap + 1 : size * 2;
			nb = realloc(buf, size);
			if (!nb) {
				free(buf);
				close(fd);
				return fail(err, ENOMEM, "%s: out of memory for %zu bytes", path,
					    size);
			}
			buf = nb;
		}
		n = read(fd, buf + got, size - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			free(buf);
			close(fd);
			return sys_fail(pid, path, e, "read", err);
		}
		if (n == 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	*out = buf;
	*len = got;
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* status                                                                                */

static const struct ap_tp_key status_keys[] = {
	{ "VmPeak", offsetof(struct ap_status, vm_peak) },
	{ "VmSize", offsetof(struct ap_status, vm_size) },
	{ "VmHWM", offsetof(struct ap_status, vm_hwm) },
	{ "VmRSS", offsetof(struct ap_status, vm_rss) },
	{ "RssAnon", offsetof(struct ap_status, rss_anon) },
	{ "RssFile", offsetof(struct ap_status, rss_file) },
	{ "RssShmem", offsetof(struct ap_status, rss_shmem) },
	{ "VmData", offsetof(struct ap_status, vm_data) },
	{ "VmSwap", offsetof(struct ap_status, vm_swap) },
};

static void status_init(struct ap_status *s)
{
	memset(s, 0, sizeof(*s));
	ap_tp_set_keys(s, status_keys, AP_TP_N_KEYS(status_keys), AP_NO_VALUE);
	s->threads = -1;
}

static int status_line(struct ap_tp *t, const char *ln, size_t n, struct ap_status *s)
{
	const struct ap_tp_key *key;
	const char *k, *v, *p;
	size_t kn, vn, i;
	char q[AP_TP_QUOTE_LEN];
	uint64_t x;
	int r;

	r = split_kv(t, ln, n, &k, &kn, &v, &vn);
	if (r)
		return r;
	if (ap_tp_eq(k, kn, "Name")) {
		/* the kernel writes "Name:\t<comm>": a name may start or end with spaces */
		if (vn && *v == '\t') {
			v++;
			vn--;
		} else {
			while (vn && *v == ' ') {
				v++;
				vn--;
			}
		}
		if (vn > sizeof(s->name) - 1)
			vn = sizeof(s->name) - 1;
		for (i = 0; i < vn; i++)
			s->name[i] = v[i] ? v[i] : '?';
		s->name[vn] = '\0';
		return 0;
	}
	if (ap_tp_eq(k, kn, "State")) {
		ap_tp_trim(&v, &vn);
		s->state = vn ? v[0] : 0;
		return 0;
	}
	if (ap_tp_eq(k, kn, "Threads")) {
		ap_tp_trim(&v, &vn);
		p = v;
		r = ap_tp_eat_dec(&p, v + vn, &x);
		if (r == AP_TP_NAN || p != v + vn)
			return ap_tp_bad(t, "Threads: '%s' is not a number", ap_tp_quote(q, v, vn));
		if (r == AP_TP_RANGE || x > INT_MAX)
			return ap_tp_bad(t, "Threads: '%s' is too large", ap_tp_quote(q, v, vn));
		s->threads = (int)x;
		return 0;
	}
	key = ap_tp_find_key(status_keys, AP_TP_N_KEYS(status_keys), k, kn);
	if (!key)
		return 0;
	return parse_kb(t, k, kn, v, vn, AP_TP_FIELD(s, key->off));
}

int ap_procfs_parse_status(const char *buf, size_t len, const char *name, struct ap_status *s,
			   char *err)
{
	struct ap_tp t;
	const char *ln;
	size_t n;
	int rc;

	status_init(s);
	ap_tp_init(&t, buf, len, name, err);
	while (ap_tp_next_raw(&t, &ln, &n)) {
		if (ap_tp_blank(ln, n))
			continue;
		rc = status_line(&t, ln, n, s);
		if (rc) {
			status_init(s);
			return rc;
		}
	}
	return 0;
}

int ap_procfs_status(int pid, struct ap_status *s, char *err)
{
	char path[64], *buf;
	size_t len;
	int rc;

	status_init(s);
	rc = read_all(pid, "status", AP_PROCFS_MAX_SMALL, path, sizeof(path), &buf, &len, err);
	if (rc)
		return rc;
	rc = ap_procfs_parse_status(buf, len, path, s, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------------------------- */
/* stat                                                                                  */

int ap_procfs_parse_stat(const char *buf, size_t len, const char *name, struct ap_pstat *st,
			 char *err)
{
	const char *lp = memchr(buf, '(', len), *rp = NULL, *p, *e = buf + len;
	char tok[32];
	int field = 3;

	memset(st, 0, sizeof(*st));
	st->exit_code = -1;
	for (const char *q = buf; q < e; q++)
		if (*q == ')')
			rp = q;
	if (!lp || !rp || rp < lp || rp + 2 >= e || rp[1] != ' ')
		return fail(err, EINVAL, "%s: not a stat line (no '(command) ')", name);
	snprintf(st->comm, sizeof(st->comm), "%.*s", (int)(rp - lp - 1), lp + 1);
	for (p = rp + 2; p < e && *p != '\n'; field++) {
		const char *t = p;
		size_t n;
		uint64_t v;
		int64_t sv;

		while (p < e && *p != ' ' && *p != '\n')
			p++;
		n = (size_t)(p - t);
		if (p < e && *p == ' ')
			p++;
		if (field == 3) {
			if (n != 1)
				return fail(err, EINVAL, "%s: state '%.*s' is not one letter", name,
					    (int)(n < 16 ? n : 16), t);
			st->state = *t;
			continue;
		}
		if (field != 4 && field != 9 && field != 22 && field != 52)
			continue;
		if (n >= sizeof(tok))
			return fail(err, EINVAL, "%s: field %d is too long", name, field);
		memcpy(tok, t, n);
		tok[n] = '\0';
		if (field == 52) {
			if (ap_parse_i64(tok, INT32_MIN, INT32_MAX, &sv))
				return fail(err, EINVAL, "%s: field %d: '%s' is not a number",
					    name, field, tok);
			st->exit_code = sv;
			continue;
		}
		if (ap_parse_u64(tok, 10, 0, UINT64_MAX, &v))
			return fail(err, EINVAL, "%s: field %d: '%s' is not a number", name,
				    field, tok);
		if (field == 4)
			st->ppid = v > INT32_MAX ? -1 : (int)v;
		else if (field == 9)
			st->flags = v;
		else
			st->start_time = v;
	}
	if (field <= 22) {
		memset(st, 0, sizeof(*st));
		return fail(err, EINVAL, "%s: %d fields, at least 22 expected", name, field - 1);
	}
	return 0;
}

int ap_procfs_stat(int pid, struct ap_pstat *st, char *err)
{
	char path[64], *buf;
	size_t len;
	int rc;

	memset(st, 0, sizeof(*st));
	st->exit_code = -1;
	rc = read_all(pid, "stat", AP_PROCFS_MAX_SMALL, path, sizeof(path), &buf, &len, err);
	if (rc)
		return rc;
	rc = ap_procfs_parse_stat(buf, len, path, st, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------------------------- */
/* maps lines (also the header lines of smaps)                                           */

/* A line that starts like a mapping: hex digits, then '-'. No smaps key looks like that. */
static bool is_map_header(const char *s, size_t n)
{
	const char *p = s, *e = s + n;
	uint64_t x;

	/* any number of digits: the count is checked when the line is parsed */
	return ap_tp_eat_hex(&p, e, UINT_MAX, &x) && p < e && *p == '-';
}

/*
 * "start-end perms offset major:minor inode[ path]": fills m (path not set) and the path's
 * bounds. allow_empty: start == end is accepted (the [rollup] header of a process without
 * mappings).
 */
static int parse_map_line(struct ap_tp *t, const char *s, size_t n, struct ap_map *m,
			  const char **path, size_t *path_len, bool allow_empty)
{
	const char *p = s, *e = s + n, *what;
	char q[AP_TP_QUOTE_LEN];
	uint64_t maj, min;

	memset(m, 0, sizeof(*m));
	what = "start address";
	if (!ap_tp_eat_hex(&p, e, 16, &m->start) || p >= e || *p++ != '-')
		goto bad_field;
	what = "end address";
	if (!ap_tp_eat_hex(&p, e, 16, &m->end) || !ap_tp_eat_sep(&p, e))
		goto bad_field;
	what = "permissions";
	if (e - p < 4 || (p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 'p' && p[3] != 's'))
		goto bad_field;
	m->prot = (p[0] == 'r' ? AP_PROT_READ : 0) | (p[1] == 'w' ? AP_PROT_WRITE : 0) |
		  (p[2] == 'x' ? AP_PROT_EXEC : 0) | (p[3] == 's' ? AP_PROT_SHARED : 0);
	p += 4;
	if (!ap_tp_eat_sep(&p, e))
		goto bad_field;
	what = "offset";
	if (!ap_tp_eat_hex(&p, e, 16, &m->offset) || !ap_tp_eat_sep(&p, e))
		goto bad_field;
	what = "device";
	if (!ap_tp_eat_hex(&p, e, 8, &maj) || p >= e || *p++ != ':' ||
	    !ap_tp_eat_hex(&p, e, 8, &min) || !ap_tp_eat_sep(&p, e))
		goto bad_field;
	m->dev_major = (uint32_t)maj;
	m->dev_minor = (uint32_t)min;
	what = "inode";
	if (ap_tp_eat_dec(&p, e, &m->inode) != AP_TP_OK || (p < e && *p != ' ' && *p != '\t'))
		goto bad_field;
	ap_tp_eat_sep(&p, e);
	*path = p;
	*path_len = (size_t)(e - p);
	if (m->start > m->end || (m->start == m->end && !allow_empty))
		return ap_tp_bad(t, "mapping 0x%" PRIx64 "-0x%" PRIx64 ": start is not below end",
				 m->start, m->end);
	/* pages are 4 KiB or larger on every architecture: so end is never AP_NO_VALUE */
	if ((m->start | m->end) & (MIN_PAGE - 1))
		return ap_tp_bad(t, "mapping 0x%" PRIx64 "-0x%" PRIx64 ": not aligned to pages",
				 m->start, m->end);
	return 0;

bad_field:
	return ap_tp_bad(t, "bad %s in '%s'", what, ap_tp_quote(q, s, n));
}

/* ------------------------------------------------------------------------------------- */
/* smaps_rollup and smaps                                                                */

static const struct ap_tp_key smaps_keys[] = {
	{ "Size", offsetof(struct ap_smaps, size) },
	{ "KernelPageSize", offsetof(struct ap_smaps, kernel_page_size) },
	{ "MMUPageSize", offsetof(struct ap_smaps, mmu_page_size) },
	{ "Rss", offsetof(struct ap_smaps, rss) },
	{ "Pss", offsetof(struct ap_smaps, pss) },
	{ "Pss_Dirty", offsetof(struct ap_smaps, pss_dirty) },
	{ "Pss_Anon", offsetof(struct ap_smaps, pss_anon) },
	{ "Pss_File", offsetof(struct ap_smaps, pss_file) },
	{ "Pss_Shmem", offsetof(struct ap_smaps, pss_shmem) },
	{ "Shared_Clean", offsetof(struct ap_smaps, shared_clean) },
	{ "Shared_Dirty", offsetof(struct ap_smaps, shared_dirty) },
	{ "Private_Clean", offsetof(struct ap_smaps, private_clean) },
	{ "Private_Dirty", offsetof(struct ap_smaps, private_dirty) },
	{ "Referenced", offsetof(struct ap_smaps, referenced) },
	{ "Anonymous", offsetof(struct ap_smaps, anonymous) },
	{ "KSM", offsetof(struct ap_smaps, ksm) },
	{ "LazyFree", offsetof(struct ap_smaps, lazy_free) },
	{ "AnonHugePages", offsetof(struct ap_smaps, anon_huge) },
	{ "ShmemPmdMapped", offsetof(struct ap_smaps, shmem_pmd) },
	{ "FilePmdMapped", offsetof(struct ap_smaps, file_pmd) },
	{ "Shared_Hugetlb", offsetof(struct ap_smaps, shared_hugetlb) },
	{ "Private_Hugetlb", offsetof(struct ap_smaps, private_hugetlb) },
	{ "Swap", offsetof(struct ap_smaps, swap) },
	{ "SwapPss", offsetof(struct ap_smaps, swap_pss) },
	{ "Locked", offsetof(struct ap_smaps, locked) },
};

static void smaps_init(struct ap_smaps *s)
{
	s->start = s->end = AP_NO_VALUE;
	ap_tp_set_keys(s, smaps_keys, AP_TP_N_KEYS(smaps_keys), AP_NO_VALUE);
}

enum { SM_BEFORE, SM_IN, SM_DONE };

struct smaps_parser {
	struct ap_tp t;
	struct ap_smaps *s;
	bool range;		/* find the entry that contains addr (a whole smaps file) */
	uint64_t addr;
	int state;		/* range: SM_*; one entry: SM_IN once a header or key was seen */
};

/* 0: go on, 1: done (the wanted entry is complete), -1: error. */
static int smaps_line(struct smaps_parser *sp, const char *ln, size_t n)
{
	const struct ap_tp_key *key;
	const char *k, *v, *path;
	size_t kn, vn, path_len;
	struct ap_map m;
	int rc;

	if (ap_tp_blank(ln, n))
		return 0;
	if (is_map_header(ln, n)) {
		if (sp->range && sp->state == SM_IN) {
			sp->state = SM_DONE;
			return 1;
		}
		if (!sp->range && sp->state != SM_BEFORE)
			return ap_tp_bad(&sp->t, "a mapping header after the first line: expected "
					 "one entry (smaps_rollup), not a whole smaps file");
		rc = parse_map_line(&sp->t, ln, n, &m, &path, &path_len, !sp->range);
		if (rc)
			return rc;
		if (!sp->range || (m.start <= sp->addr && sp->addr < m.end)) {
			sp->state = SM_IN;
			sp->s->start = m.start;
			sp->s->end = m.end;
		}
		return 0;
	}
	if (sp->range && sp->state != SM_IN)
		return 0;	/* another mapping's entry: not parsed */
	sp->state = SM_IN;
	rc = split_kv(&sp->t, ln, n, &k, &kn, &v, &vn);
	if (rc)
		return rc;
	key = ap_tp_find_key(smaps_keys, AP_TP_N_KEYS(smaps_keys), k, kn);
	if (!key)
		return 0;	/* VmFlags, THPeligible, ProtectionKey, newer keys */
	return parse_kb(&sp->t, k, kn, v, vn, AP_TP_FIELD(sp->s, key->off));
}

static int smaps_finish(struct smaps_parser *sp, int rc)
{
	if (!rc && sp->range && sp->state == SM_BEFORE)
		rc = fail(sp->t.err, ENXIO, "%s: no mapping contains 0x%" PRIx64, sp->t.name,
			  sp->addr);
	if (rc)
		smaps_init(sp->s);
	return rc;
}

static int parse_smaps_buf(const char *buf, size_t len, const char *name, bool range,
			   uint64_t addr, struct ap_smaps *s, char *err)
{
	struct smaps_parser sp = { .s = s, .range = range, .addr = addr, .state = SM_BEFORE };
	const char *ln;
	size_t n;
	int r = 0;

	smaps_init(s);
	ap_tp_init(&sp.t, buf, len, name, err);
	while (ap_tp_next_raw(&sp.t, &ln, &n)) {
		r = smaps_line(&sp, ln, n);
		if (r)
			break;
	}
	return smaps_finish(&sp, r < 0 ? r : 0);
}

int ap_procfs_parse_smaps(const char *buf, size_t len, const char *name, struct ap_smaps *s,
			  char *err)
{
	return parse_smaps_buf(buf, len, name, false, 0, s, err);
}

int ap_procfs_parse_smaps_range(const char *buf, size_t len, const char *name, uint64_t addr,
				struct ap_smaps *s, char *err)
{
	return parse_smaps_buf(buf, len, name, true, addr, s, err);
}

int ap_procfs_smaps_rollup(int pid, struct ap_smaps *s, char *err)
{
	char path[64], *buf;
	size_t len;
	int rc;

	smaps_init(s);
	rc = read_all(pid, "smaps_rollup", AP_PROCFS_MAX_SMALL, path, sizeof(path), &buf, &len,
		      err);
	if (rc)
		return rc;
	rc = ap_procfs_parse_smaps(buf, len, path, s, err);
	free(buf);
	return rc;
}

/*
 * Streams /proc/PID/smaps: whole lines go to the parser as they arrive, and reading stops
 * after the wanted entry (the kernel walks the page tables of each entry it prints).
 */
int ap_procfs_smaps_range(int pid, uint64_t addr, struct ap_smaps *s, char *err)
{
	char path[64];
	struct smaps_parser sp = { .t = { .name = path, .err = err }, .s = s, .range = true,
				   .addr = addr, .state = SM_BEFORE };
	size_t size = SMAPS_CHUNK, have = 0;
	char *buf, *nb, *p, *nl;
	bool eof = false;
	ssize_t n;
	int fd, e, r = 0;

	smaps_init(s);
	r = check_pid(pid, err);
	if (r)
		return r;
	proc_path(path, sizeof(path), pid, "smaps");
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sys_fail(pid, path, errno, "read", err);
	buf = malloc(size);
	if (!buf) {
		close(fd);
		return fail(err, ENOMEM, "%s: out of memory", path);
	}
	while (!r && !eof) {
		if (have == size) {
			/* one line fills the buffer */
			if (size >= AP_PROCFS_MAX_LINE) {
				sp.t.line++;
				r = ap_tp_bad(&sp.t, "line longer than %u KiB",
					      AP_PROCFS_MAX_LINE >> 10);
				break;
			}
			nb = realloc(buf, size * 2);
			if (!nb) {
				r = fail(err, ENOMEM, "%s: out of memory", path);
				break;
			}
			buf = nb;
			size *= 2;
		}
		n = read(fd, buf + have, size - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			r = sys_fail(pid, path, e, "read", err);
			break;
		}
		eof = n == 0;
		have += (size_t)n;
		p = buf;
		while (!r && (nl = memchr(p, '\n', have - (size_t)(p - buf)))) {
			sp.t.line++;
			r = smaps_line(&sp, p, (size_t)(nl - p));
			p = nl + 1;
		}
		if (!r && eof && p < buf + have) {
			sp.t.line++;
			r = smaps_line(&sp, p, have - (size_t)(p - buf));
		}
		have -= (size_t)(p - buf);
		memmove(buf, p, have);
	}
	free(buf);
	close(fd);
	if (r >= 0 && sp.state == SM_BEFORE && pid_dead(pid)) {
		smaps_init(s);
		return gone(pid, err);	/* a zombie's smaps is empty */
	}
	return smaps_finish(&sp, r < 0 ? r : 0);
}

/* ------------------------------------------------------------------------------------- */
/* maps                                                                                  */

int ap_procfs_parse_maps(const char *buf, size_t len, const char *name, struct ap_maps *maps,
			 char *err)
{
	struct ap_tp t;
	size_t cap = 1, used = 0, n, path_len;
	const char *ln, *path, *p;
	struct ap_map *m, *nm;
	char *strs;
	int rc;

	memset(maps, 0, sizeof(*maps));
	ap_tp_init(&t, buf, len, name, err);
	if (!buf)
		len = 0;
	/* at most one mapping per line; the paths fit in len + 1 bytes with their NULs */
	for (p = buf; p && (p = memchr(p, '\n', len - (size_t)(p - buf))); p++)
		cap++;
	m = calloc(cap, sizeof(*m));
	strs = malloc(len + 1);
	if (!m || !strs) {
		free(m);
		free(strs);
		return fail(err, ENOMEM, "%s: out of memory for %zu mappings", t.name, cap);
	}
	maps->m = m;
	maps->strs = strs;
	while (ap_tp_next_raw(&t, &ln, &n)) {
		struct ap_map *cur = &m[maps->n];

		if (ap_tp_blank(ln, n))
			continue;
		rc = parse_map_line(&t, ln, n, cur, &path, &path_len, false);
		if (rc)
			goto fail;
		if (maps->n && cur->start < m[maps->n - 1].end) {
			rc = ap_tp_bad(&t, "mapping 0x%" PRIx64 "-0x%" PRIx64 " starts before the "
				  "previous one ends (0x%" PRIx64 ")", cur->start, cur->end,
				  m[maps->n - 1].end);
			goto fail;
		}
		memcpy(strs + used, path, path_len);
		cur->path = strs + used;
		used += path_len;
		strs[used++] = '\0';
		ap_name_clean(cur->path);	/* a file name may hold ESC: printed as it is */
		maps->n++;
	}
	if (!maps->n) {
		ap_maps_free(maps);
		return 0;
	}
	nm = realloc(m, maps->n * sizeof(*m));
	if (nm)
		maps->m = nm;
	return 0;

fail:
	ap_maps_free(maps);
	return rc;
}

int ap_procfs_maps(int pid, struct ap_maps *maps, char *err)
{
	char path[64], *buf;
	size_t len;
	int rc = -EINVAL, i;

	memset(maps, 0, sizeof(*maps));
	/* a mapping that changes between two read()s of the kernel can make entries overlap */
	for (i = 0; i < MAPS_TRIES; i++) {
		rc = read_all(pid, "maps", AP_PROCFS_MAX_MAPS, path, sizeof(path), &buf, &len, err);
		if (rc)
			return rc;
		rc = ap_procfs_parse_maps(buf, len, path, maps, err);
		free(buf);
		if (!rc)
			break;
	}
	if (!rc && !maps->n && pid_dead(pid))
		return gone(pid, err);	/* a zombie's maps is empty */
	return rc;
}

void ap_maps_free(struct ap_maps *maps)
{
	if (!maps)
		return;
	free(maps->m);
	free(maps->strs);
	memset(maps, 0, sizeof(*maps));
}

bool ap_maps_equal(const struct ap_maps *a, const struct ap_maps *b)
{
	size_t i;

	if (a->n != b->n)
		return false;
	for (i = 0; i < a->n; i++) {
		const struct ap_map *x = &a->m[i], *y = &b->m[i];

		if (x->start != y->start || x->end != y->end || x->offset != y->offset ||
		    x->inode != y->inode || x->prot != y->prot || x->dev_major != y->dev_major ||
		    x->dev_minor != y->dev_minor || strcmp(x->path, y->path))
			return false;
	}
	return true;
}

const struct ap_map *ap_maps_find(const struct ap_maps *maps, uint64_t addr)
{
	size_t lo = 0, hi = maps->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (addr < maps->m[mid].start)
			hi = mid;
		else if (addr >= maps->m[mid].end)
			lo = mid + 1;
		else
			return &maps->m[mid];
	}
	return NULL;
}

bool ap_map_is_anon(const struct ap_map *m)
{
	const char *p = m->path;

	if (!p[0] || !strcmp(p, "[heap]") || !strcmp(p, "[stack]") || !strncmp(p, "[anon:", 6))
		return true;
	if (strncmp(p, "[stack:", 7))
		return false;
	/* [stack:TID], before 4.5 */
	for (p += 7; *p >= '0' && *p <= '9'; p++)
		;
	return p > m->path + 7 && p[0] == ']' && !p[1];
}

/* ------------------------------------------------------------------------------------- */
/* pagemap                                                                               */

#define PM_PRESENT (1ull << 63)
#define PM_SWAPPED (1ull << 62)

int ap_procfs_residency(int pid, uint64_t start, uint64_t end, bool want_bitmap,
			struct ap_residency *r, char *err)
{
	uint64_t ent[PAGEMAP_CHUNK];
	uint64_t page, first, last, done = 0, i;
	char path[64];
	ssize_t n;
	int fd, e;

	memset(r, 0, sizeof(*r));
	e = check_pid(pid, err);
	if (e)
		return e;
	if (end < start)
		return fail(err, EINVAL, "residency: end 0x%" PRIx64 " is below start 0x%" PRIx64,
			    end, start);
	page = (uint64_t)sysconf(_SC_PAGESIZE);
	first = start / page;
	last = end / page + (end % page != 0);
	r->start = first * page;
	r->page_size = page;
	r->pages = last - first;
	if (!r->pages)
		return 0;
	proc_path(path, sizeof(path), pid, "pagemap");
	if (want_bitmap) {
		if ((r->pages + 7) / 8 > SIZE_MAX)
			return fail(err, ENOMEM, "%s: bitmap of %" PRIu64 " pages too large", path,
				    r->pages);
		r->bitmap = calloc((size_t)((r->pages + 7) / 8), 1);
		if (!r->bitmap)
			return fail(err, ENOMEM, "%s: out of memory for a bitmap of %" PRIu64
				    " pages", path, r->pages);
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		e = errno;
		goto sys_failed;
	}
	while (done < r->pages) {
		uint64_t want = r->pages - done, got;

		if (want > PAGEMAP_CHUNK)
			want = PAGEMAP_CHUNK;
		n = pread(fd, ent, (size_t)want * sizeof(ent[0]),
			  (off_t)((first + done) * sizeof(ent[0])));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			e = errno;
			close(fd);
			goto sys_failed;
		}
		got = (uint64_t)n / sizeof(ent[0]);
		if (!got) {
			/* end of file: no address space left, or above it (the vsyscall page) */
			close(fd);
			if (pid_dead(pid))
				goto dead;
			return 0;
		}
		for (i = 0; i < got; i++) {
			uint64_t k = done + i;

			if (ent[i] & PM_PRESENT) {
				r->present++;
				if (r->bitmap)
					r->bitmap[k / 8] |= (uint8_t)(1u << (k % 8));
			}
			if (ent[i] & PM_SWAPPED)
				r->swapped++;
		}
		done += got;
	}
	close(fd);
	return 0;

sys_failed:
	free(r->bitmap);
	memset(r, 0, sizeof(*r));
	return sys_fail(pid, path, e, "read", err);
dead:
	free(r->bitmap);
	memset(r, 0, sizeof(*r));
	return gone(pid, err);
}

/* ------------------------------------------------------------------------------------- */
/* clear_refs                                                                            */

int ap_procfs_reset_hwm(int pid, char *err)
{
	char path[64];
	ssize_t n;
	int fd, e;

	e = check_pid(pid, err);
	if (e)
		return e;
	proc_path(path, sizeof(path), pid, "clear_refs");
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return sys_fail(pid, path, errno, "write", err);
	do {
		n = write(fd, "5", 1);
	} while (n < 0 && errno == EINTR);
	e = errno;
	close(fd);
	if (n == 1)
		return 0;
	if (n < 0 && e == EINVAL)
		return fail(err, EINVAL, "%s: the kernel refused '5' (resetting VmHWM needs "
			    "Linux 4.0+)", path);
	return sys_fail(pid, path, n < 0 ? e : EIO, "write", err);
}
