// SPDX-License-Identifier: Apache-2.0
/*
 * cgroup_run: the fresh-cgroup-per-run harness of `arenaprof run` (cgroup_run.h has the
 * contract): checks that only read, then create, set, move and remove (cgroup.c's kernel
 * facts apply).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "arenaprof/kernel/cgroup_run.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/textparse.h"

/* fail(err, EINVAL, ...): every error of this reader, as a negative errno (err.c) */
#define fail(err, e, ...) ap_fail(err, -(e), __VA_ARGS__)

static bool file_exists(const char *dir, const char *file)
{
	char path[AP_CG_PATH_MAX + 64];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return !stat(path, &st);
}

int ap_cg_v2_check_dir(const char *dir, char *err)
{
	char path[AP_CG_PATH_MAX + 64], *buf;
	size_t len;
	bool yes;
	int rc;

	snprintf(path, sizeof(path), "%s/cgroup.controllers", dir);
	rc = ap_read_file(path, AP_CG_FILE_CAP, &buf, &len);
	if (rc) {
		if (rc == -ENOENT)
			return fail(err, ENOTSUP, "%s is not a cgroup v2 directory (no "
				    "cgroup.controllers)", dir);
		return ap_cg_sys_fail(path, -rc, "read", err);
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
	struct ap_cg_where *w = calloc(1, sizeof(*w));
	int rc;

	if (!w)
		return fail(err, ENOMEM, "out of memory");
	rc = ap_cg_read_where(pid, w, err);
	if (rc)
		goto out;
	if (!w->mt.has_v2) {
		rc = fail(err, ENOTSUP, w->mt.has_v1_memory ?
			  "needs cgroup v2 with the memory controller: this host has only "
			  "cgroup v1 (memory controller at %s) and no cgroup v2 mounted" :
			  "needs cgroup v2 with the memory controller: no cgroup v2 is mounted%s",
			  w->mt.has_v1_memory ? w->mt.v1_memory_dir : "");
		goto out;
	}
	if (!ap_cg_dir_list_has(w->mt.v2_dir, "cgroup.controllers", "memory")) {
		if (w->mt.has_v1_memory)
			rc = fail(err, ENOTSUP, "needs cgroup v2 with the memory controller: "
				  "this host's memory controller is bound to cgroup v1 (%s); its "
				  "cgroup v2 (%s) has no memory controller", w->mt.v1_memory_dir,
				  w->mt.v2_dir);
		else
			rc = fail(err, ENOTSUP, "needs cgroup v2 with the memory controller: "
				  "cgroup v2 at %s does not offer it (a kernel without "
				  "CONFIG_MEMCG, or cgroup_disable=memory)", w->mt.v2_dir);
		goto out;
	}
	if (!w->m.has_v2) {
		rc = fail(err, ENOTSUP, "process %d has no cgroup v2 path in /proc/%d/cgroup", pid,
			  pid);
		goto out;
	}
	rc = ap_cg_join(w->mt.v2_dir, w->mt.v2_root, w->m.v2, dir, len, err);
	if (rc)
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
	int fd, e, rc;

	rc = ap_cg_path_of(path, sizeof(path), dir, file, err);
	if (rc)
		return rc;
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return ap_cg_sys_fail(path, errno, "write", err);
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
		return ap_cg_sys_fail(path, e, "write", err);
	}
	return 0;
}

int ap_cg_create(const char *parent, const char *name, char *out, size_t len, char *err)
{
	int n, rc;

	if (!ap_cg_dir_list_has(parent, "cgroup.subtree_control", "memory")) {
		rc = write_file(parent, "cgroup.subtree_control", "+memory", err);
		if (rc)
			return rc;
	}
	n = snprintf(out, len, "%s/%s", parent, name);
	if (n < 0 || (size_t)n >= len)
		return fail(err, ENAMETOOLONG, "%s/%s: path too long", parent, name);
	if (mkdir(out, 0755)) {
		int e = errno;

		if (e == EEXIST)
			return fail(err, e, "%s already exists", out);
		return ap_cg_sys_fail(out, e, "create", err);
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
			return ap_cg_sys_fail(dir, errno, "remove", err);
		if (i == 0 || i % 20 == 0)
			kill_procs(dir);
		nanosleep(&ts, NULL);
	}
	return fail(err, EBUSY, "%s: still busy after 2 s (processes left in it?)", dir);
}
