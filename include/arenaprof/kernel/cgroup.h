/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup: the memory controller's view of a process (docs/design.md, "Folders, bottom to
 * top"): where its cgroup is, what it is charged (memory.current, memory.peak,
 * memory.stat), its limits (memory.max, high, min, low), what happened (memory.events,
 * memory.events.local) and its pressure (memory.pressure, see psi.h). The sampler session
 * of record and the live TUI is in cgroup_session.h, the cgroups of `arenaprof run`'s
 * fresh-cgroup-per-run harness in cgroup_run.h; both build on this header.
 *
 * Parsing. Every parser takes (buffer, length, name), the buffer need not be
 * NUL-terminated and may hold any bytes; name is the file used in messages. Flat keyed
 * files ("key value" lines: memory.events, memory.stat) are parsed by key: unknown keys
 * are ignored, a missing key leaves AP_NO_VALUE, a repeated key: the last one counts,
 * blank lines are skipped. Never crashes on garbage, truncated or unknown contents; an
 * error is one line naming the file and the line:
 *     "/sys/fs/cgroup/a/memory.events:3: max: 'x1' is not a number".
 *
 * Errors. Every int function of cgroup*.h returns 0 or a negative errno with a one-line
 * message in err (AP_ERR_LEN bytes, may be NULL), util/err.h's dialect: -ENOENT (no such
 * file: an older kernel, or no such cgroup), -ENODEV (the cgroup was removed while a file
 * of it was open), -EACCES (no permission: run as root), -EINVAL (contents that do not
 * parse), -EOPNOTSUPP (the kernel cannot do it: memory.peak reset before 6.12, any reset
 * on v1), others as the kernel said.
 */
#ifndef ARENAPROF_CGROUP_H
#define ARENAPROF_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/kernel/psi.h"

#ifndef AP_NO_VALUE
#define AP_NO_VALUE UINT64_MAX	/* a field that is absent (same as trace.h) */
#endif
#define AP_CG_UNLIMITED (UINT64_MAX - 1)	/* "max" in memory.max and memory.high */
#define AP_CG_PATH_MAX 1024
#define AP_CG_FILE_CAP (1u << 20)		/* largest cgroup or /proc file read */

/* ---- where: /proc/PID/cgroup and /proc/self/mountinfo ---- */

/* A process's cgroups: the v2 path ("0::/a/b") and the v1 memory hierarchy's, if any. */
struct ap_cg_membership {
	bool has_v2, has_v1_memory;
	char v2[AP_CG_PATH_MAX];		/* "/a/b", relative to the v2 mount's root */
	char v1_memory[AP_CG_PATH_MAX];		/* "/a/b" in the v1 memory hierarchy */
};

/*
 * /proc/PID/cgroup: "ID:CONTROLLERS:PATH" lines; ID 0 with no controllers is v2, a v1
 * line whose comma-separated controllers include "memory" is the v1 memory hierarchy.
 * A path may contain ':' (everything after the second ':' is the path).
 */
int ap_cg_parse_membership(const char *buf, size_t len, const char *name,
			   struct ap_cg_membership *m, char *err);

/* Where the hierarchies are mounted (the first of each; /sys/fs/cgroup preferred). */
struct ap_cg_mounts {
	bool has_v2, has_v1_memory;
	char v2_dir[AP_CG_PATH_MAX];		/* mount point, e.g. "/sys/fs/cgroup" */
	char v2_root[AP_CG_PATH_MAX];		/* the cgroup at the mount point, e.g. "/" */
	char v1_memory_dir[AP_CG_PATH_MAX];
	char v1_memory_root[AP_CG_PATH_MAX];
};

/*
 * /proc/self/mountinfo: "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTIONS [OPTIONAL...] - FSTYPE
 * SOURCE SUPEROPTIONS"; fstype cgroup2, or cgroup with "memory" among the super options.
 * Octal escapes (\040 for a space) are decoded.
 */
int ap_cg_parse_mountinfo(const char *buf, size_t len, const char *name, struct ap_cg_mounts *mt,
			  char *err);

/*
 * The directory of cgroup path cg in a hierarchy mounted at dir whose root is root:
 * dir + (cg without the root prefix). -ENOENT when cg is not below root (not visible
 * through that mount).
 */
int ap_cg_join(const char *dir, const char *root, const char *cg, char *out, size_t len,
	       char *err);

/* ---- what: the files ---- */

/*
 * A file of one value: memory.current, memory.peak, memory.max, memory.high, memory.min,
 * memory.low, memory.usage_in_bytes, ...: one line, a decimal number or (allow_max) "max"
 * = AP_CG_UNLIMITED. An empty file is an error (truncated).
 */
int ap_cg_parse_value(const char *buf, size_t len, const char *name, bool allow_max,
		      uint64_t *v, char *err);

/* memory.events and memory.events.local (counts since the cgroup was created). */
struct ap_cg_events {
	uint64_t low;		/* reclaimed below memory.low (protection breached) */
	uint64_t high;		/* went over memory.high: throttled and reclaimed */
	uint64_t max;		/* hit memory.max: direct reclaim */
	uint64_t oom;		/* reclaim failed at memory.max: the OOM path was entered */
	uint64_t oom_kill;	/* processes the OOM killer killed */
	uint64_t oom_group_kill;/* 5.17+ */
};

int ap_cg_parse_events(const char *buf, size_t len, const char *name, struct ap_cg_events *e,
		       char *err);

/*
 * memory.stat, bytes except the two counters. v2 keys; a v1 memory.stat fills the same
 * fields from its own keys (rss -> anon, cache -> file, mapped_file -> file_mapped) when
 * the v2 key is absent; v1's total_* keys are ignored.
 */
struct ap_cg_stat {
	uint64_t anon, file, shmem, file_mapped, file_dirty;
	uint64_t kernel, kernel_stack, pagetables, sock;
	uint64_t pgfault, pgmajfault;		/* counts */
	uint64_t workingset_refault_file;	/* count: file pages read back after reclaim */
};

int ap_cg_parse_stat(const char *buf, size_t len, const char *name, struct ap_cg_stat *s,
		     char *err);

/* cgroup.controllers / cgroup.subtree_control: is word one of the space-separated names? */
bool ap_cg_list_has(const char *buf, size_t len, const char *word);

/* ---- reading a cgroup directory ---- */

/* dir/file, one value (see ap_cg_parse_value). */
int ap_cg_read_value(const char *dir, const char *file, bool allow_max, uint64_t *v,
		     char *err);
/* dir/memory.events.local (local) or dir/memory.events. */
int ap_cg_read_events(const char *dir, bool local, struct ap_cg_events *e, char *err);
int ap_cg_read_stat(const char *dir, struct ap_cg_stat *s, char *err);

/* ---- shared by the session and the harness ---- */

/* A process's cgroups and where their hierarchies are mounted. */
struct ap_cg_where {
	struct ap_cg_membership m;
	struct ap_cg_mounts mt;
};

/* Reads /proc/PID/cgroup and /proc/self/mountinfo; -ESRCH when pid is gone. */
int ap_cg_read_where(int pid, struct ap_cg_where *w, char *err);
/* Does dir/file (cgroup.controllers, cgroup.subtree_control) list word? false unreadable. */
bool ap_cg_dir_list_has(const char *dir, const char *file, const char *word);
/* dir/file into out; -ENAMETOOLONG when it does not fit. */
int ap_cg_path_of(char *out, size_t len, const char *dir, const char *file, char *err);
/*
 * The message of a failed open, read or write (verb) of path with errno e: ENOENT (an
 * older kernel, or the cgroup is gone), ENODEV (removed), EACCES and EPERM (run as root).
 * Returns -e (-EACCES for EPERM too).
 */
int ap_cg_sys_fail(const char *path, int e, const char *verb, char *err);

#endif
