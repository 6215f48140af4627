// SPDX-License-Identifier: Apache-2.0
/*
 * cgroup: parsers of /proc/PID/cgroup, mountinfo and the memory controller's files, the
 * sampler session and the fresh-cgroup harness (cgroup.h has the contract).
 *
 * Kernel facts this relies on (Documentation/admin-guide/cgroup-v2.rst, mm/memcontrol.c):
 * - memory.current and memory.peak do not exist in the root cgroup;
 * - a cgroup's files open across its rmdir return ENODEV afterwards (kernfs deactivated);
 *   by path they are ENOENT;
 * - a controller can be enabled in a cgroup's subtree_control only when it is listed in
 *   the cgroup's cgroup.controllers, and (except at the root) only while the cgroup has no
 *   processes of its own (EBUSY);
 * - rmdir is EBUSY while the cgroup is populated, which lags the last task's exit a bit.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arenaprof/kernel/cgroup.h"
#include "arenaprof/util/err.h"
#include "arenaprof/kernel/psi.h"
#include "arenaprof/util/textparse.h"
#include "arenaprof/trace/trace.h"

/* every error of this reader sets errno too: ap_fail_errno (err.c) */
#define fail ap_fail_errno

#define N_KEYS(a) (sizeof(a) / sizeof((a)[0]))
#define FIELD(s, off) ((uint64_t *)((char *)(s) + (off)))



/* A failed open, read or write of a cgroup (or /proc) file. */
static int sys_fail(const char *path, int e, const char *verb, char *err)
{
	switch (e) {
	case ENOENT:
		return fail(err, e, "%s: no such file (an older kernel, or the cgroup is gone)",
			    path);
	case ENODEV:
		return fail(err, e, "%s: the cgroup was removed", path);
	case EACCES:
	case EPERM:
		return fail(err, EACCES, "no permission to %s %s (run as root)", verb, path);
	default:
		return fail(err, e, "%s: cannot %s: %s", path, verb, strerror(e));
	}
}

static void msg(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf for messages: a long path may cut them, which is fine. */
static void msg(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static void cpy(char *dst, size_t len, const char *s, size_t n)
{
	if (n >= len)
		n = len - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

/* ------------------------------------------------------------------------------------- */
/* /proc/PID/cgroup                                                                      */

static bool list_has(const char *s, size_t n, char sep, const char *word)
{
	size_t wl = strlen(word);

	while (n) {
		const char *c = memchr(s, sep, n);
		size_t k = c ? (size_t)(c - s) : n;

		ap_tp_trim(&s, &k);
		if (k == wl && !memcmp(s, word, k))
			return true;
		if (!c)
			break;
		n -= (size_t)(c + 1 - s);
		s = c + 1;
	}
	return false;
}

int ap_cg_parse_membership(const char *buf, size_t len, const char *name,
			   struct ap_cg_membership *m, char *err)
{
	char q[AP_TP_QUOTE_LEN];
	struct ap_tp t;
	const char *s;
	size_t n;

	memset(m, 0, sizeof(*m));
	ap_tp_init(&t, buf, len, name, err);
	while (ap_tp_next(&t, &s, &n)) {
		const char *c1, *c2, *path;
		size_t ctl_n, path_n;
		uint64_t id;

		if (!n)
			continue;
		c1 = memchr(s, ':', n);
		c2 = c1 ? memchr(c1 + 1, ':', n - (size_t)(c1 + 1 - s)) : NULL;
		if (!c2 || ap_tp_u64(s, (size_t)(c1 - s), &id) || id > INT32_MAX)
			goto bad_line;
		ctl_n = (size_t)(c2 - c1 - 1);
		path = c2 + 1;
		path_n = n - (size_t)(path - s);
		if (!path_n || path[0] != '/' || memchr(path, '\0', path_n))
			goto bad_line;
		if (id == 0 && ctl_n == 0) {
			m->has_v2 = true;
			cpy(m->v2, sizeof(m->v2), path, path_n);
		} else if (id != 0 && list_has(c1 + 1, ctl_n, ',', "memory")) {
			m->has_v1_memory = true;
			cpy(m->v1_memory, sizeof(m->v1_memory), path, path_n);
		}
		continue;
bad_line:
		memset(m, 0, sizeof(*m));
		return ap_tp_bad(&t, "'%s' is not an 'ID:CONTROLLERS:/PATH' line",
				 ap_tp_quote(q, s, n));
	}
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* /proc/self/mountinfo                                                                  */

/* Decodes mountinfo's octal escapes (\040 space, \011 tab, \012 newline, \134 '\'). */
static void unescape(char *dst, size_t len, const char *s, size_t n)
{
	size_t o = 0;

	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (s[i] == '\\' && i + 3 < n &&
		    s[i + 1] >= '0' && s[i + 1] <= '3' && s[i + 2] >= '0' && s[i + 2] <= '7' &&
		    s[i + 3] >= '0' && s[i + 3] <= '7') {
			dst[o++] = (char)((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
					  (s[i + 3] - '0'));
			i += 3;
		} else {
			dst[o++] = s[i];
		}
	}
	dst[o] = '\0';
}

int ap_cg_parse_mountinfo(const char *buf, size_t len, const char *name, struct ap_cg_mounts *mt,
			  char *err)
{
	char q[AP_TP_QUOTE_LEN];
	struct ap_tp t;
	const char *s;
	size_t n;

	memset(mt, 0, sizeof(*mt));
	ap_tp_init(&t, buf, len, name, err);
	while (ap_tp_next(&t, &s, &n)) {
		const char *rest = s, *tok[6], *fs, *src, *opts;
		size_t rn = n, tn[6], fsn, srcn, optn, k;
		const char *sep = NULL;
		size_t sepn = 0;
		uint64_t id;
		char dir[AP_CG_PATH_MAX];

		ap_tp_trim(&s, &n);
		if (!n)
			continue;
		rest = s;
		rn = n;
		for (k = 0; k < 6 && ap_tp_token(&rest, &rn, &tok[k], &tn[k]); k++)
			;
		if (k < 6 || ap_tp_u64(tok[0], tn[0], &id) || !memchr(tok[2], ':', tn[2]) ||
		    tok[4][0] != '/')
			goto bad_line;
		/* optional fields up to "-" */
		while (ap_tp_token(&rest, &rn, &sep, &sepn) && !ap_tp_eq(sep, sepn, "-"))
			;
		if (!sep || !ap_tp_eq(sep, sepn, "-") || !ap_tp_token(&rest, &rn, &fs, &fsn) ||
		    !ap_tp_token(&rest, &rn, &src, &srcn))
			goto bad_line;
		if (!ap_tp_token(&rest, &rn, &opts, &optn))
			optn = 0;
		unescape(dir, sizeof(dir), tok[4], tn[4]);
		if (ap_tp_eq(fs, fsn, "cgroup2")) {
			if (!mt->has_v2 || !strcmp(dir, "/sys/fs/cgroup")) {
				mt->has_v2 = true;
				snprintf(mt->v2_dir, sizeof(mt->v2_dir), "%s", dir);
				unescape(mt->v2_root, sizeof(mt->v2_root), tok[3], tn[3]);
			}
		} else if (ap_tp_eq(fs, fsn, "cgroup") && optn &&
			   list_has(opts, optn, ',', "memory") && !mt->has_v1_memory) {
			mt->has_v1_memory = true;
			snprintf(mt->v1_memory_dir, sizeof(mt->v1_memory_dir), "%s", dir);
			unescape(mt->v1_memory_root, sizeof(mt->v1_memory_root), tok[3], tn[3]);
		}
		continue;
bad_line:
		memset(mt, 0, sizeof(*mt));
		return ap_tp_bad(&t, "'%s' is not a mountinfo line", ap_tp_quote(q, s, n));
	}
	return 0;
}

int ap_cg_join(const char *dir, const char *root, const char *cg, char *out, size_t len,
	       char *err)
{
	size_t rl = strlen(root);
	const char *rest;
	int n;

	if (!strcmp(root, "/")) {
		rest = cg;
	} else if (!strncmp(cg, root, rl) && (cg[rl] == '/' || cg[rl] == '\0')) {
		rest = cg + rl;
	} else {
		return fail(err, ENOENT, "cgroup %s is not visible through the mount at %s "
			    "(whose root is %s)", cg, dir, root);
	}
	while (*rest == '/')
		rest++;
	n = *rest ? snprintf(out, len, "%s/%s", dir, rest) : snprintf(out, len, "%s", dir);
	if (n < 0 || (size_t)n >= len)
		return fail(err, ENAMETOOLONG, "cgroup path %s%s is too long", dir, cg);
	return 0;
}

/* ------------------------------------------------------------------------------------- */
/* the memory controller's files                                                        */

int ap_cg_parse_value(const char *buf, size_t len, const char *name, bool allow_max,
		      uint64_t *v, char *err)
{
	char q[AP_TP_QUOTE_LEN];
	struct ap_tp t;
	const char *s;
	size_t n;
	bool seen = false;
	int r;

	*v = AP_NO_VALUE;
	ap_tp_init(&t, buf, len, name, err);
	while (ap_tp_next(&t, &s, &n)) {
		ap_tp_trim(&s, &n);
		if (!n)
			continue;
		if (seen) {
			*v = AP_NO_VALUE;
			return ap_tp_bad(&t, "'%s': one value expected, this is a second line",
					 ap_tp_quote(q, s, n));
		}
		seen = true;
		if (allow_max && ap_tp_eq(s, n, "max")) {
			*v = AP_CG_UNLIMITED;
			continue;
		}
		r = ap_tp_u64(s, n, v);
		if (r) {
			*v = AP_NO_VALUE;
			return ap_tp_bad(&t, "'%s' is %s", ap_tp_quote(q, s, n),
					 r == AP_TP_RANGE ? "too large" :
					 allow_max ? "not a number or 'max'" : "not a number");
		}
	}
	if (!seen) {
		t.line = t.line ? t.line : 1;
		return ap_tp_bad(&t, "empty: a value was expected");
	}
	return 0;
}

struct key {
	const char *key;
	size_t off;
};

/*
 * "key value" lines into the fields keys[] name. alias[] (may be NULL): keys that fill a
 * field only if its own key is absent from the file.
 */
static int parse_flat(const char *buf, size_t len, const char *name, void *out, size_t sz,
		      const struct key *keys, size_t nk, const struct key *alias, size_t na,
		      char *err)
{
	bool *seen = calloc(nk, sizeof(*seen));
	uint64_t *alias_v = calloc(na + 1, sizeof(*alias_v));
	char q[AP_TP_QUOTE_LEN];
	struct ap_tp t;
	const char *s;
	size_t n, i;

	memset(out, 0xff, sz);
	if (!seen || !alias_v) {
		free(seen);
		free(alias_v);
		return fail(err, ENOMEM, "out of memory");
	}
	for (i = 0; i < na; i++)
		alias_v[i] = AP_NO_VALUE;
	ap_tp_init(&t, buf, len, name, err);
	while (ap_tp_next(&t, &s, &n)) {
		const char *k, *v, *extra, *rest;
		size_t kn, vn, en, rn;
		uint64_t x, *dst = NULL;
		int r;

		ap_tp_trim(&s, &n);
		if (!n)
			continue;
		rest = s;
		rn = n;
		ap_tp_token(&rest, &rn, &k, &kn);
		if (!ap_tp_token(&rest, &rn, &v, &vn) || ap_tp_token(&rest, &rn, &extra, &en)) {
			ap_tp_bad(&t, "'%s' is not a 'key value' line", ap_tp_quote(q, s, n));
			goto bad;
		}
		for (i = 0; i < kn; i++) {
			char c = k[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-')) {
				ap_tp_bad(&t, "'%s' is not a 'key value' line",
					  ap_tp_quote(q, s, n));
				goto bad;
			}
		}
		for (i = 0; i < nk && !dst; i++)
			if (ap_tp_eq(k, kn, keys[i].key)) {
				dst = FIELD(out, keys[i].off);
				seen[i] = true;
			}
		for (i = 0; i < na && !dst; i++)
			if (ap_tp_eq(k, kn, alias[i].key))
				dst = &alias_v[i];
		if (!dst)
			continue;	/* a key this version does not read */
		r = ap_tp_u64(v, vn, &x);
		if (r) {
			ap_tp_bad(&t, "%.*s: '%s' is %s", (int)kn, k, ap_tp_quote(q, v, vn),
				  r == AP_TP_RANGE ? "too large" : "not a number");
			goto bad;
		}
		*dst = x;
	}
	for (i = 0; i < na; i++) {
		uint64_t *f = FIELD(out, alias[i].off);

		if (alias_v[i] != AP_NO_VALUE && *f == AP_NO_VALUE)
			*f = alias_v[i];
	}
	free(seen);
	free(alias_v);
	return 0;
bad:
	memset(out, 0xff, sz);
	free(seen);
	free(alias_v);
	return -1;
}

static const struct key event_keys[] = {
	{ "low", offsetof(struct ap_cg_events, low) },
	{ "high", offsetof(struct ap_cg_events, high) },
	{ "max", offsetof(struct ap_cg_events, max) },
	{ "oom", offsetof(struct ap_cg_events, oom) },
	{ "oom_kill", offsetof(struct ap_cg_events, oom_kill) },
	{ "oom_group_kill", offsetof(struct ap_cg_events, oom_group_kill) },
};

int ap_cg_parse_events(const char *buf, size_t len, const char *name, struct ap_cg_events *e,
		       char *err)
{
	return parse_flat(buf, len, name, e, sizeof(*e), event_keys, N_KEYS(event_keys), NULL, 0,
			  err);
}

static const struct key stat_keys[] = {
	{ "anon", offsetof(struct ap_cg_stat, anon) },
	{ "file", offsetof(struct ap_cg_stat, file) },
	{ "shmem", offsetof(struct ap_cg_stat, shmem) },
	{ "file_mapped", offsetof(struct ap_cg_stat, file_mapped) },
	{ "file_dirty", offsetof(struct ap_cg_stat, file_dirty) },
	{ "kernel", offsetof(struct ap_cg_stat, kernel) },
	{ "kernel_stack", offsetof(struct ap_cg_stat, kernel_stack) },
	{ "pagetables", offsetof(struct ap_cg_stat, pagetables) },
	{ "sock", offsetof(struct ap_cg_stat, sock) },
	{ "pgfault", offsetof(struct ap_cg_stat, pgfault) },
	{ "pgmajfault", offsetof(struct ap_cg_stat, pgmajfault) },
	{ "workingset_refault_file", offsetof(struct ap_cg_stat, workingset_refault_file) },
};

/* cgroup v1 memory.stat names */
static const struct key stat_v1_keys[] = {
	{ "rss", offsetof(struct ap_cg_stat, anon) },
	{ "cache", offsetof(struct ap_cg_stat, file) },
	{ "mapped_file", offsetof(struct ap_cg_stat, file_mapped) },
	{ "dirty", offsetof(struct ap_cg_stat, file_dirty) },
};

int ap_cg_parse_stat(const char *buf, size_t len, const char *name, struct ap_cg_stat *s,
		     char *err)
{
	return parse_flat(buf, len, name, s, sizeof(*s), stat_keys, N_KEYS(stat_keys),
			  stat_v1_keys, N_KEYS(stat_v1_keys), err);
}

bool ap_cg_list_has(const char *buf, size_t len, const char *word)
{
	const char *s = buf, *tok;
	size_t n = len, tn;

	/* newlines separate names as well as spaces do */
	while (ap_tp_token(&s, &n, &tok, &tn)) {
		const char *nl;

		while ((nl = memchr(tok, '\n', tn))) {
			if (ap_tp_eq(tok, (size_t)(nl - tok), word))
				return true;
			tn -= (size_t)(nl + 1 - tok);
			tok = nl + 1;
		}
		if (ap_tp_eq(tok, tn, word))
			return true;
	}
	return false;
}

/* ------------------------------------------------------------------------------------- */
/* reading a directory                                                                   */

static int path_of(char *out, size_t len, const char *dir, const char *file, char *err)
{
	int n = snprintf(out, len, "%s/%s", dir, file);

	if (n < 0 || (size_t)n >= len)
		return fail(err, ENAMETOOLONG, "%s/%s: path too long", dir, file);
	return 0;
}

/* Reads a file whole; sys_fail's messages. */
static int slurp(const char *path, char **buf, size_t *len, char *err)
{
	if (ap_read_file(path, AP_CG_FILE_CAP, buf, len))
		return sys_fail(path, errno, "read", err);
	return 0;
}

int ap_cg_read_value(const char *dir, const char *file, bool allow_max, uint64_t *v,
		     char *err)
{
	char path[AP_CG_PATH_MAX + 64], *buf;
	size_t len;
	int rc;

	*v = AP_NO_VALUE;
	if (path_of(path, sizeof(path), dir, file, err) || slurp(path, &buf, &len, err))
		return -1;
	rc = ap_cg_parse_value(buf, len, path, allow_max, v, err);
	free(buf);
	return rc;
}

int ap_cg_read_events(const char *dir, bool local, struct ap_cg_events *e, char *err)
{
	char path[AP_CG_PATH_MAX + 64], *buf;
	size_t len;
	int rc;

	memset(e, 0xff, sizeof(*e));
	if (path_of(path, sizeof(path), dir, local ? "memory.events.local" : "memory.events",
		    err) || slurp(path, &buf, &len, err))
		return -1;
	rc = ap_cg_parse_events(buf, len, path, e, err);
	free(buf);
	return rc;
}

int ap_cg_read_stat(const char *dir, struct ap_cg_stat *s, char *err)
{
	char path[AP_CG_PATH_MAX + 64], *buf;
	size_t len;
	int rc;

	memset(s, 0xff, sizeof(*s));
	if (path_of(path, sizeof(path), dir, "memory.stat", err) ||
	    slurp(path, &buf, &len, err))
		return -1;
	rc = ap_cg_parse_stat(buf, len, path, s, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------------------------- */
/* where a process is                                                                    */

struct where {
	struct ap_cg_membership m;
	struct ap_cg_mounts mt;
};

static int read_where(int pid, struct where *w, char *err)
{
	char path[64], *buf;
	size_t len;
	int rc;

	if (pid <= 0)
		return fail(err, EINVAL, "invalid process id %d", pid);
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	if (ap_read_file(path, AP_CG_FILE_CAP, &buf, &len)) {
		int e = errno;

		if (e == ENOENT || e == ESRCH)
			return fail(err, ESRCH, "process %d does not exist (exited?)", pid);
		return sys_fail(path, e, "read", err);
	}
	rc = ap_cg_parse_membership(buf, len, path, &w->m, err);
	free(buf);
	if (rc)
		return -1;
	if (slurp("/proc/self/mountinfo", &buf, &len, err))
		return -1;
	rc = ap_cg_parse_mountinfo(buf, len, "/proc/self/mountinfo", &w->mt, err);
	free(buf);
	return rc;
}

static bool file_exists(const char *dir, const char *file)
{
	char path[AP_CG_PATH_MAX + 64];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return !stat(path, &st);
}

static bool dir_list_has(const char *dir, const char *file, const char *word)
{
	char path[AP_CG_PATH_MAX + 64], *buf;
	size_t len;
	bool yes;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (ap_read_file(path, AP_CG_FILE_CAP, &buf, &len))
		return false;
	yes = ap_cg_list_has(buf, len, word);
	free(buf);
	return yes;
}

/* ------------------------------------------------------------------------------------- */
/* the session                                                                           */

#define MAX_NOTES 16
#define NOTE_LEN (AP_ERR_LEN + 128)

enum { F_CURRENT, F_PEAK, F_PSI, F_N };

struct ap_cg_session {
	int pid;
	enum ap_cg_mode mode;
	enum ap_cg_peak peak;
	char dir[AP_CG_PATH_MAX];
	int fd[F_N];			/* held: memory.current, memory.peak, /proc/pressure */
	bool has_psi;
	uint64_t polled_peak;		/* AP_PEAK_POLLED: the largest current since reset */
	bool reported[F_N];		/* a read failure of that file was noted */
	char notes[MAX_NOTES][NOTE_LEN];
	unsigned int n_notes, head;
	unsigned int lost_notes;
	char out[NOTE_LEN];		/* what ap_cg_next_note returned */
};

static void note(struct ap_cg_session *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(struct ap_cg_session *s, const char *fmt, ...)
{
	va_list ap;

	if (s->n_notes == MAX_NOTES) {
		s->lost_notes++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(s->notes[(s->head + s->n_notes) % MAX_NOTES], NOTE_LEN, fmt, ap);
	va_end(ap);
	s->n_notes++;
}

const char *ap_cg_next_note(struct ap_cg_session *s)
{
	if (!s->n_notes) {
		if (!s->lost_notes)
			return NULL;
		snprintf(s->out, sizeof(s->out), "cgroup sampler: %u more notes were left out",
			 s->lost_notes);
		s->lost_notes = 0;
		return s->out;
	}
	memcpy(s->out, s->notes[s->head], NOTE_LEN);
	s->head = (s->head + 1) % MAX_NOTES;
	s->n_notes--;
	return s->out;
}

static int open_in(const char *dir, const char *file, int flags)
{
	char path[AP_CG_PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return open(path, flags | O_CLOEXEC);
}

static void close_fds(struct ap_cg_session *s)
{
	for (int i = 0; i < F_N; i++) {
		if (s->fd[i] >= 0)
			close(s->fd[i]);
		s->fd[i] = -1;
	}
}

/* v2: memory.current and memory.peak of w's cgroup, held open. */
static bool open_v2(struct ap_cg_session *s, const struct where *w, char *why, size_t wlen)
{
	char err[AP_ERR_LEN], path[AP_CG_PATH_MAX + 64];
	struct stat st;

	if (!w->m.has_v2 || !w->mt.has_v2) {
		msg(why, wlen, w->mt.has_v2 ? "process %d has no cgroup v2 path" :
		    "no cgroup v2 is mounted", s->pid);
		return false;
	}
	if (ap_cg_join(w->mt.v2_dir, w->mt.v2_root, w->m.v2, s->dir, sizeof(s->dir), err)) {
		msg(why, wlen, "%s", err);
		return false;
	}
	s->fd[F_CURRENT] = open_in(s->dir, "memory.current", O_RDONLY);
	if (s->fd[F_CURRENT] < 0) {
		int e = errno;

		if (e == ENOENT && !strcmp(w->m.v2, "/"))
			msg(why, wlen, "process %d is in the cgroup v2 root, which has no "
			    "memory.current", s->pid);
		else if (e == ENOENT && w->mt.has_v1_memory &&
			 !dir_list_has(w->mt.v2_dir, "cgroup.controllers", "memory"))
			msg(why, wlen, "the memory controller is bound to cgroup v1 (%s), "
			    "not to cgroup v2 (%s)", w->mt.v1_memory_dir, w->mt.v2_dir);
		else if (e == ENOENT)
			msg(why, wlen, "%s has no memory.current (the memory controller is "
			    "not enabled for it)", s->dir);
		else
			msg(why, wlen, "%s/memory.current: %s", s->dir, strerror(e));
		s->dir[0] = '\0';
		return false;
	}
	s->mode = AP_CG_V2;
	snprintf(path, sizeof(path), "%s/memory.peak", s->dir);
	if (stat(path, &st)) {
		s->peak = AP_PEAK_POLLED;
		s->polled_peak = 0;
		note(s, "%s has no memory.peak (a kernel before 5.19): the cgroup peak is the "
		     "largest memory.current sampled", s->dir);
		return true;
	}
	if (st.st_mode & S_IWUSR) {
		s->fd[F_PEAK] = open(path, O_RDWR | O_CLOEXEC);
		if (s->fd[F_PEAK] >= 0) {
			s->peak = AP_PEAK_RESETTABLE;
			return true;
		}
		note(s, "%s: cannot open for writing (%s): the peak cannot be reset here, it is "
		     "the peak since the cgroup was created", path, strerror(errno));
	} else {
		note(s, "%s is read-only on this kernel (resettable from 6.12): it is the peak "
		     "since the cgroup was created; for a per-run peak use a fresh cgroup per "
		     "run (arenaprof run)", path);
	}
	s->fd[F_PEAK] = open(path, O_RDONLY | O_CLOEXEC);
	s->peak = s->fd[F_PEAK] >= 0 ? AP_PEAK_READONLY : AP_PEAK_NONE;
	return true;
}

static bool open_v1(struct ap_cg_session *s, const struct where *w, char *why, size_t wlen)
{
	char err[AP_ERR_LEN];

	if (!w->m.has_v1_memory || !w->mt.has_v1_memory) {
		msg(why, wlen, "no cgroup v1 memory hierarchy");
		return false;
	}
	if (ap_cg_join(w->mt.v1_memory_dir, w->mt.v1_memory_root, w->m.v1_memory, s->dir,
		       sizeof(s->dir), err)) {
		msg(why, wlen, "%s", err);
		return false;
	}
	s->fd[F_CURRENT] = open_in(s->dir, "memory.usage_in_bytes", O_RDONLY);
	if (s->fd[F_CURRENT] < 0) {
		msg(why, wlen, "%s/memory.usage_in_bytes: %s", s->dir, strerror(errno));
		s->dir[0] = '\0';
		return false;
	}
	s->fd[F_PEAK] = open_in(s->dir, "memory.max_usage_in_bytes", O_RDONLY);
	s->mode = AP_CG_V1;
	s->peak = s->fd[F_PEAK] >= 0 ? AP_PEAK_V1 : AP_PEAK_NONE;
	note(s, "cgroup v1 memory controller (%s): memory.usage_in_bytes and "
	     "memory.max_usage_in_bytes are read, never written: the v1 peak reset is global "
	     "(it would clear the peak for every reader of the cgroup)", s->dir);
	return true;
}

int ap_cg_session_open(struct ap_cg_session **sp, int pid, char *err)
{
	struct ap_cg_session *s;
	char why2[AP_ERR_LEN], why1[AP_ERR_LEN], e[AP_ERR_LEN];
	struct where *w;
	struct ap_psi psi;

	*sp = NULL;
	s = calloc(1, sizeof(*s));
	w = calloc(1, sizeof(*w));
	if (!s || !w) {
		free(s);
		free(w);
		return fail(err, ENOMEM, "out of memory");
	}
	s->pid = pid;
	for (int i = 0; i < F_N; i++)
		s->fd[i] = -1;
	if (read_where(pid, w, err)) {
		int en = errno;

		free(s);
		free(w);
		errno = en;
		return -1;
	}
	if (!open_v2(s, w, why2, sizeof(why2)) && !open_v1(s, w, why1, sizeof(why1))) {
		close_fds(s);
		s->mode = AP_CG_NONE;
		s->peak = AP_PEAK_NONE;
		s->dir[0] = '\0';
		note(s, "no memory cgroup to read for process %d: %s; %s: the cgroup fields "
		     "stay empty", pid, why2, why1);
	}
	free(w);
	s->fd[F_PSI] = open(AP_PSI_SYSTEM_MEMORY, O_RDONLY | O_CLOEXEC);
	if (s->fd[F_PSI] < 0) {
		ap_psi_read(AP_PSI_SYSTEM_MEMORY, &psi, e);	/* for its message */
		note(s, "%s: the PSI fields stay empty", e);
	} else {
		s->has_psi = true;
	}
	*sp = s;
	return 0;
}

enum ap_cg_mode ap_cg_session_mode(const struct ap_cg_session *s)
{
	return s->mode;
}

enum ap_cg_peak ap_cg_session_peak(const struct ap_cg_session *s)
{
	return s->peak;
}

const char *ap_cg_session_dir(const struct ap_cg_session *s)
{
	return s->dir;
}

bool ap_cg_session_has_psi(const struct ap_cg_session *s)
{
	return s->has_psi;
}

/* The cgroup is gone: say so once and read nothing more from it. */
static void lost(struct ap_cg_session *s, int e)
{
	note(s, "cgroup %s was removed (%s): the cgroup fields are empty from now on", s->dir,
	     strerror(e));
	close(s->fd[F_CURRENT]);
	s->fd[F_CURRENT] = -1;
	if (s->fd[F_PEAK] >= 0)
		close(s->fd[F_PEAK]);
	s->fd[F_PEAK] = -1;
	s->mode = AP_CG_NONE;
	s->peak = AP_PEAK_NONE;
}

/* One held file's value; a failure is noted the first time. */
static int read_held(struct ap_cg_session *s, int which, const char *file, uint64_t *v)
{
	char name[AP_CG_PATH_MAX + 64], err[AP_ERR_LEN], *buf;
	size_t len;
	int rc;

	*v = AP_NO_VALUE;
	if (s->fd[which] < 0)
		return -1;
	snprintf(name, sizeof(name), "%s/%s", s->dir, file);
	if (ap_read_fd(s->fd[which], AP_CG_FILE_CAP, &buf, &len)) {
		int e = errno;

		if (e == ENODEV || e == ENOENT) {
			lost(s, e);
			return -1;
		}
		sys_fail(name, e, "read", err);
		goto noted;
	}
	rc = ap_cg_parse_value(buf, len, name, false, v, err);
	free(buf);
	if (!rc) {
		s->reported[which] = false;
		return 0;
	}
noted:
	if (!s->reported[which])
		note(s, "%s (noted once)", err);
	s->reported[which] = true;
	return -1;
}

/* /proc/pressure/memory through the held fd; a failure is noted the first time. */
static void read_sys_psi(struct ap_cg_session *s, struct ap_psi *p)
{
	char err[AP_ERR_LEN], *buf;
	size_t len;

	ap_psi_init(p);
	if (s->fd[F_PSI] < 0)
		return;
	if (ap_read_fd(s->fd[F_PSI], 1 << 16, &buf, &len)) {
		sys_fail(AP_PSI_SYSTEM_MEMORY, errno, "read", err);
		goto noted;
	}
	if (ap_psi_parse(buf, len, AP_PSI_SYSTEM_MEMORY, p, err)) {
		free(buf);
		goto noted;
	}
	free(buf);
	s->reported[F_PSI] = false;
	return;
noted:
	if (!s->reported[F_PSI])
		note(s, "%s (noted once)", err);
	s->reported[F_PSI] = true;
}

/* cg_current and cg_peak of smp */
static void sample_cg(struct ap_cg_session *s, struct ap_rec_sample *smp)
{
	uint64_t v;

	smp->cg_current = smp->cg_peak = AP_NO_VALUE;
	if (s->mode == AP_CG_NONE)
		return;
	if (!read_held(s, F_CURRENT, s->mode == AP_CG_V1 ? "memory.usage_in_bytes" :
		       "memory.current", &v))
		smp->cg_current = v;
	if (s->mode == AP_CG_NONE)
		return;
	if (s->peak == AP_PEAK_POLLED) {
		if (v != AP_NO_VALUE && v > s->polled_peak)
			s->polled_peak = v;
		if (smp->cg_current != AP_NO_VALUE)
			smp->cg_peak = s->polled_peak;
		return;
	}
	if (!read_held(s, F_PEAK, s->mode == AP_CG_V1 ? "memory.max_usage_in_bytes" :
		       "memory.peak", &v))
		smp->cg_peak = v;
}

void ap_cg_sample(struct ap_cg_session *s, struct ap_rec_sample *smp)
{
	struct ap_psi p;

	read_sys_psi(s, &p);
	smp->psi_some_avg10 = p.some.avg10;
	smp->psi_full_avg10 = p.full.avg10;
	smp->psi_some_total = p.some.total_us;
	smp->psi_full_total = p.full.total_us;
	sample_cg(s, smp);
}

/* v1 prints "no limit" as a huge page-aligned number (LONG_MAX rounded down to pages) */
#define V1_UNLIMITED_FROM (1ULL << 62)

void ap_cg_snapshot(struct ap_cg_session *s, struct ap_cg_snapshot *snap)
{
	struct ap_rec_sample smp;
	char err[AP_ERR_LEN], path[AP_CG_PATH_MAX + 64];

	memset(snap, 0xff, sizeof(*snap));
	read_sys_psi(s, &snap->system);
	ap_psi_init(&snap->pressure);
	sample_cg(s, &smp);
	snap->current = smp.cg_current;
	snap->peak = smp.cg_peak;
	if (s->mode == AP_CG_NONE)
		return;
	ap_cg_read_stat(s->dir, &snap->stat, err);
	if (s->mode == AP_CG_V1) {
		if (!ap_cg_read_value(s->dir, "memory.limit_in_bytes", false, &snap->max, err) &&
		    snap->max >= V1_UNLIMITED_FROM)
			snap->max = AP_CG_UNLIMITED;
		return;
	}
	ap_cg_read_value(s->dir, "memory.max", true, &snap->max, err);
	ap_cg_read_value(s->dir, "memory.high", true, &snap->high, err);
	ap_cg_read_value(s->dir, "memory.min", false, &snap->min, err);
	ap_cg_read_value(s->dir, "memory.low", false, &snap->low, err);
	ap_cg_read_events(s->dir, false, &snap->events, err);
	ap_cg_read_events(s->dir, true, &snap->events_local, err);
	snprintf(path, sizeof(path), "%s/memory.pressure", s->dir);
	ap_psi_read(path, &snap->pressure, err);
}

int ap_cg_reset_peak(struct ap_cg_session *s, char *err)
{
	static const char reset[] = "reset\n";
	ssize_t w;
	uint64_t v;

	switch (s->peak) {
	case AP_PEAK_RESETTABLE:
		do {
			w = write(s->fd[F_PEAK], reset, sizeof(reset) - 1);
		} while (w < 0 && errno == EINTR);
		if (w >= 0)
			return 0;
		if (errno == ENODEV || errno == ENOENT) {
			int e = errno;

			lost(s, e);
			return fail(err, ENODEV, "cgroup %s was removed", s->dir);
		}
		return fail(err, EOPNOTSUPP, "%s/memory.peak: the reset was refused (%s): the "
			    "kernel cannot reset it (6.12+ can)", s->dir, strerror(errno));
	case AP_PEAK_POLLED:
		if (!read_held(s, F_CURRENT, "memory.current", &v))
			s->polled_peak = v;
		else
			s->polled_peak = 0;
		return 0;
	case AP_PEAK_READONLY:
		return fail(err, EOPNOTSUPP, "%s/memory.peak cannot be reset on this kernel "
			    "(read-only before 6.12): it is the peak since the cgroup was "
			    "created; for a per-run peak use a fresh cgroup per run "
			    "(arenaprof run)", s->dir);
	case AP_PEAK_V1:
		return fail(err, EOPNOTSUPP, "cgroup v1: the only reset of %s/"
			    "memory.max_usage_in_bytes is global (writing 0 clears it for every "
			    "reader), so arenaprof does not do it; per-run peaks need cgroup v2 "
			    "(arenaprof run) or VmHWM (clear_refs)", s->dir);
	case AP_PEAK_NONE:
		break;
	}
	if (s->mode == AP_CG_NONE)
		return fail(err, EOPNOTSUPP, "no memory cgroup is read for process %d: no peak "
			    "to reset", s->pid);
	return fail(err, EOPNOTSUPP, "%s: memory.peak cannot be read or reset", s->dir);
}

void ap_cg_session_close(struct ap_cg_session *s)
{
	if (!s)
		return;
	close_fds(s);
	free(s);
}

/* ------------------------------------------------------------------------------------- */
/* the fresh-cgroup harness                                                             */

int ap_cg_v2_check_dir(const char *dir, char *err)
{
	char path[AP_CG_PATH_MAX + 64], *buf;
	size_t len;
	bool yes;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	if (ap_read_file(path, AP_CG_FILE_CAP, &buf, &len)) {
		if (errno == ENOENT)
			return fail(err, ENOTSUP, "%s is not a cgroup v2 directory (no "
				    "cgroup.controllers)", dir);
		return sys_fail(path, errno, "read", err);
	}
	yes = ap_cg_list_has(buf, len, "memory");
	free(buf);
	if (!yes)
		return fail(err, ENOTSUP, "the memory controller is not available in %s (its "
			    "parent's cgroup.subtree_control lacks +memory)", dir);
	return 0;
}

int ap_cg_v2_parent(int pid, char *dir, size_t len, char *err)
{
	struct where *w = calloc(1, sizeof(*w));
	int rc = -1;

	if (!w)
		return fail(err, ENOMEM, "out of memory");
	if (read_where(pid, w, err))
		goto out;
	if (!w->mt.has_v2) {
		fail(err, ENOTSUP, w->mt.has_v1_memory ?
		     "needs cgroup v2 with the memory controller: this host has only cgroup v1 "
		     "(memory controller at %s) and no cgroup v2 mounted" :
		     "needs cgroup v2 with the memory controller: no cgroup v2 is mounted%s",
		     w->mt.has_v1_memory ? w->mt.v1_memory_dir : "");
		goto out;
	}
	if (!dir_list_has(w->mt.v2_dir, "cgroup.controllers", "memory")) {
		if (w->mt.has_v1_memory)
			fail(err, ENOTSUP, "needs cgroup v2 with the memory controller: this "
			     "host's memory controller is bound to cgroup v1 (%s); its cgroup v2 "
			     "(%s) has no memory controller", w->mt.v1_memory_dir, w->mt.v2_dir);
		else
			fail(err, ENOTSUP, "needs cgroup v2 with the memory controller: cgroup v2 "
			     "at %s does not offer it (a kernel without CONFIG_MEMCG, or "
			     "cgroup_disable=memory)", w->mt.v2_dir);
		goto out;
	}
	if (!w->m.has_v2) {
		fail(err, ENOTSUP, "process %d has no cgroup v2 path in /proc/%d/cgroup", pid, pid);
		goto out;
	}
	if (ap_cg_join(w->mt.v2_dir, w->mt.v2_root, w->m.v2, dir, len, err))
		goto out;
	rc = ap_cg_v2_check_dir(dir, err);
out:
	free(w);
	return rc;
}

static int write_file(const char *dir, const char *file, const char *val, char *err)
{
	char path[AP_CG_PATH_MAX + 64];
	ssize_t w;
	int fd, e;

	if (path_of(path, sizeof(path), dir, file, err))
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return sys_fail(path, errno, "write", err);
	do {
		w = write(fd, val, strlen(val));
	} while (w < 0 && errno == EINTR);
	e = errno;
	close(fd);
	if (w < 0) {
		if (e == EINVAL)
			return fail(err, e, "%s: the kernel refused '%s' (EINVAL)", path, val);
		if (e == EBUSY && !strcmp(file, "cgroup.subtree_control"))
			return fail(err, e, "cannot enable the memory controller for the children "
				    "of %s: it has processes of its own (cgroup v2's "
				    "no-internal-processes rule); pass --cgroup-parent a cgroup "
				    "without processes", dir);
		return sys_fail(path, e, "write", err);
	}
	return 0;
}

int ap_cg_create(const char *parent, const char *name, char *out, size_t len, char *err)
{
	int n;

	if (!dir_list_has(parent, "cgroup.subtree_control", "memory") &&
	    write_file(parent, "cgroup.subtree_control", "+memory", err))
		return -1;
	n = snprintf(out, len, "%s/%s", parent, name);
	if (n < 0 || (size_t)n >= len)
		return fail(err, ENAMETOOLONG, "%s/%s: path too long", parent, name);
	if (mkdir(out, 0755)) {
		int e = errno;

		if (e == EEXIST)
			return fail(err, e, "%s already exists", out);
		return sys_fail(out, e, "create", err);
	}
	if (!file_exists(out, "memory.max")) {
		rmdir(out);
		return fail(err, ENOTSUP, "%s has no memory.max: the memory controller did not "
			    "reach it", out);
	}
	return 0;
}

int ap_cg_set(const char *dir, const char *file, uint64_t value, char *err)
{
	char v[32];

	if (value == AP_CG_UNLIMITED)
		snprintf(v, sizeof(v), "max");
	else
		snprintf(v, sizeof(v), "%" PRIu64, value);
	return write_file(dir, file, v, err);
}

int ap_cg_move(const char *dir, int pid, char *err)
{
	char v[32];

	snprintf(v, sizeof(v), "%d", pid);
	return write_file(dir, "cgroup.procs", v, err);
}

static void kill_procs(const char *dir)
{
	char path[AP_CG_PATH_MAX + 64], *buf;
	size_t len;

	if (!write_file(dir, "cgroup.kill", "1", NULL))
		return;
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if (ap_read_file(path, AP_CG_FILE_CAP, &buf, &len))
		return;
	for (char *p = buf, *e; *p; p = e) {
		long pid = strtol(p, &e, 10);

		if (e == p)
			break;
		if (pid > 0)
			kill((pid_t)pid, SIGKILL);
	}
	free(buf);
}

int ap_cg_remove(const char *dir, char *err)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	struct stat st;

	if (stat(dir, &st) && errno == ENOENT)
		return 0;
	for (int i = 0; i < 200; i++) {
		if (!rmdir(dir) || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return sys_fail(dir, errno, "remove", err);
		if (i == 0 || i % 20 == 0)
			kill_procs(dir);
		nanosleep(&ts, NULL);
	}
	return fail(err, EBUSY, "%s: still busy after 2 s (processes left in it?)", dir);
}
