// SPDX-License-Identifier: Apache-2.0
/*
 * cgroup: parsers of /proc/PID/cgroup, mountinfo and the memory controller's files, and
 * where a process's cgroup is (cgroup.h has the contract). The sampler session is in
 * cgroup_session.c, the fresh-cgroup harness of `arenaprof run` in cgroup_run.c.
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
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/kernel/cgroup.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/textparse.h"

/* fail(err, EINVAL, ...): every error of this reader, as a negative errno (err.c) */
#define fail(err, e, ...) ap_fail(err, -(e), __VA_ARGS__)

/* A failed open, read or write of a cgroup (or /proc) file. */
int ap_cg_sys_fail(const char *path, int e, const char *verb, char *err)
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

/*
 * "key value" lines into the fields keys[] name. alias[] (may be NULL): keys that fill a
 * field only if its own key is absent from the file.
 */
static int parse_flat(const char *buf, size_t len, const char *name, void *out, size_t sz,
		      const struct ap_tp_key *keys, size_t nk, const struct ap_tp_key *alias,
		      size_t na, char *err)
{
	bool *seen = calloc(nk, sizeof(*seen));
	uint64_t *alias_v = calloc(na + 1, sizeof(*alias_v));
	char q[AP_TP_QUOTE_LEN];
	struct ap_tp t;
	const char *s;
	size_t n, i;
	int rc;

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
		const struct ap_tp_key *key;
		uint64_t x, *dst = NULL;
		int r;

		ap_tp_trim(&s, &n);
		if (!n)
			continue;
		rest = s;
		rn = n;
		ap_tp_token(&rest, &rn, &k, &kn);
		if (!ap_tp_token(&rest, &rn, &v, &vn) || ap_tp_token(&rest, &rn, &extra, &en)) {
			rc = ap_tp_bad(&t, "'%s' is not a 'key value' line",
				       ap_tp_quote(q, s, n));
			goto bad;
		}
		for (i = 0; i < kn; i++) {
			char c = k[i];

			if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			      (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-')) {
				rc = ap_tp_bad(&t, "'%s' is not a 'key value' line",
					       ap_tp_quote(q, s, n));
				goto bad;
			}
		}
		key = ap_tp_find_key(keys, nk, k, kn);
		if (key) {
			dst = AP_TP_FIELD(out, key->off);
			seen[key - keys] = true;
		}
		for (i = 0; i < na && !dst; i++)
			if (ap_tp_eq(k, kn, alias[i].key))
				dst = &alias_v[i];
		if (!dst)
			continue;	/* a key this version does not read */
		r = ap_tp_u64(v, vn, &x);
		if (r) {
			rc = ap_tp_bad(&t, "%.*s: '%s' is %s", (int)kn, k,
				       ap_tp_quote(q, v, vn),
				       r == AP_TP_RANGE ? "too large" : "not a number");
			goto bad;
		}
		*dst = x;
	}
	for (i = 0; i < na; i++) {
		uint64_t *f = AP_TP_FIELD(out, alias[i].off);

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
	return rc;
}

static const struct ap_tp_key event_keys[] = {
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
	return parse_flat(buf, len, name, e, sizeof(*e), event_keys, AP_TP_N_KEYS(event_keys),
			  NULL, 0, err);
}

static const struct ap_tp_key stat_keys[] = {
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
static const struct ap_tp_key stat_v1_keys[] = {
	{ "rss", offsetof(struct ap_cg_stat, anon) },
	{ "cache", offsetof(struct ap_cg_stat, file) },
	{ "mapped_file", offsetof(struct ap_cg_stat, file_mapped) },
	{ "dirty", offsetof(struct ap_cg_stat, file_dirty) },
};

int ap_cg_parse_stat(const char *buf, size_t len, const char *name, struct ap_cg_stat *s,
		     char *err)
{
	return parse_flat(buf, len, name, s, sizeof(*s), stat_keys, AP_TP_N_KEYS(stat_keys),
			  stat_v1_keys, AP_TP_N_KEYS(stat_v1_keys), err);
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

int ap_cg_path_of(char *out, size_t len, const char *dir, const char *file, char *err)
{
	int n = snprintf(out, len, "%s/%s", dir, file);

	if (n < 0 || (size_t)n >= len)
		return fail(err, ENAMETOOLONG, "%s/%s: path too long", dir, file);
	return 0;
}

/* Reads a file whole; ap_cg_sys_fail's messages. */
static int slurp(const char *path, char **buf, size_t *len, char *err)
{
	int rc = ap_read_file(path, AP_CG_FILE_CAP, buf, len);

	if (rc)
		return ap_cg_sys_fail(path, -rc, "read", err);
	return 0;
}

int ap_cg_read_value(const char *dir, const char *file, bool allow_max, uint64_t *v,
		     char *err)
{
	char path[AP_CG_PATH_MAX + 64], *buf;
	size_t len;
	int rc;

	*v = AP_NO_VALUE;
	rc = ap_cg_path_of(path, sizeof(path), dir, file, err);
	if (!rc)
		rc = slurp(path, &buf, &len, err);
	if (rc)
		return rc;
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
	rc = ap_cg_path_of(path, sizeof(path), dir,
			   local ? "memory.events.local" : "memory.events", err);
	if (!rc)
		rc = slurp(path, &buf, &len, err);
	if (rc)
		return rc;
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
	rc = ap_cg_path_of(path, sizeof(path), dir, "memory.stat", err);
	if (!rc)
		rc = slurp(path, &buf, &len, err);
	if (rc)
		return rc;
	rc = ap_cg_parse_stat(buf, len, path, s, err);
	free(buf);
	return rc;
}

/* ------------------------------------------------------------------------------------- */
/* where a process is                                                                    */

int ap_cg_read_where(int pid, struct ap_cg_where *w, char *err)
{
	char path[64], *buf;
	size_t len;
	int rc;

	if (pid <= 0)
		return fail(err, EINVAL, "invalid process id %d", pid);
	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	rc = ap_read_file(path, AP_CG_FILE_CAP, &buf, &len);
	if (rc) {
		if (rc == -ENOENT || rc == -ESRCH)
			return fail(err, ESRCH, "process %d does not exist (exited?)", pid);
		return ap_cg_sys_fail(path, -rc, "read", err);
	}
	rc = ap_cg_parse_membership(buf, len, path, &w->m, err);
	free(buf);
	if (rc)
		return rc;
	rc = slurp("/proc/self/mountinfo", &buf, &len, err);
	if (rc)
		return rc;
	rc = ap_cg_parse_mountinfo(buf, len, "/proc/self/mountinfo", &w->mt, err);
	free(buf);
	return rc;
}

bool ap_cg_dir_list_has(const char *dir, const char *file, const char *word)
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
