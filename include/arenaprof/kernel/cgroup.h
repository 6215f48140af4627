/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup: the memory controller's view of a process (docs/design.md, "Folders, bottom to
 * top"): where its cgroup is, what it is charged (memory.current, memory.peak, memory.stat), its limits
 * (memory.max, high, min, low), what happened (memory.events, memory.events.local) and
 * its pressure (memory.pressure, see psi.h); and the fresh-cgroup-per-run harness of
 * `arenaprof run`. Used by record's sampler, the live TUI and run.
 *
 * cgroup v2 is the model. memory.peak (5.19+) is the peak of memory.current since the
 * cgroup was created; since 6.12 a write of any string to an open memory.peak resets the
 * peak *seen through that file descriptor* to the current usage, and other descriptors
 * are not affected. A session therefore opens memory.peak once and keeps that descriptor
 * for its whole life. The file's mode says which kind it is: writable (0644) on 6.12+,
 * read-only (0444) on 5.19 to 6.11. A trap (kernel of_peak_reset()): a reset through
 * *another* descriptor that has itself been written to (a second tool resetting the same
 * cgroup) raises every writer's floor to the usage at that moment, so a peak our
 * descriptor saw before it can be lost; descriptors never written to keep the peak since
 * creation whatever the others do.
 *
 * On a host whose memory controller is bound to cgroup v1 (like this project's
 * development machine) a session reads memory.usage_in_bytes and
 * memory.max_usage_in_bytes of the process's v1 memory cgroup, read-only: the v1 reset
 * (writing 0 to memory.max_usage_in_bytes) is global, it clears the peak for every other
 * reader of that cgroup, so arenaprof never writes it. `arenaprof run` refuses such a host.
 *
 * Parsing. Every parser takes (buffer, length, name), the buffer need not be
 * NUL-terminated and may hold any bytes; name is the file used in messages. Flat keyed
 * files ("key value" lines: memory.events, memory.stat) are parsed by key: unknown keys
 * are ignored, a missing key leaves AP_NO_VALUE, a repeated key: the last one counts,
 * blank lines are skipped. Never crashes on garbage, truncated or unknown contents; an
 * error is one line naming the file and the line:
 *     "/sys/fs/cgroup/a/memory.events:3: max: 'x1' is not a number".
 *
 * Errors. Every int function returns 0 or -1 with a one-line message in err (AP_ERR_LEN
 * bytes, may be NULL) and errno set: ENOENT (no such file: an older kernel, or no such
 * cgroup), ENODEV (the cgroup was removed while a file of it was open), EACCES (no
 * permission: run as root), EINVAL (contents that do not parse), EOPNOTSUPP (the kernel
 * cannot do it: memory.peak reset before 6.12, any reset on v1), others as the kernel said.
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
 * dir + (cg without the root prefix). -1 (ENOENT) when cg is not below root (not visible
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

/* ---- the sampler session (record, TUI) ---- */

enum ap_cg_mode {
	AP_CG_NONE,		/* no memory cgroup readable: cg fields stay AP_NO_VALUE */
	AP_CG_V2,
	AP_CG_V1,		/* read-only: usage_in_bytes, max_usage_in_bytes */
};

enum ap_cg_peak {
	AP_PEAK_NONE,		/* nothing to read */
	AP_PEAK_RESETTABLE,	/* v2, 6.12+: held fd, ap_cg_reset_peak works */
	AP_PEAK_READONLY,	/* v2, 5.19-6.11: peak since the cgroup was created */
	AP_PEAK_POLLED,		/* v2 before 5.19: the largest memory.current sampled */
	AP_PEAK_V1,		/* v1 max_usage_in_bytes (its reset is global: never done) */
};

struct ap_cg_session;

/*
 * Resolves pid's memory cgroup (v2, else v1) once, opens memory.peak (v2) and keeps that
 * descriptor until ap_cg_session_close. Fails only for a bad or gone pid (ESRCH) or no
 * memory; a host without a usable memory cgroup or without PSI gives a session that
 * samples what it can, with the reason queued as a note (ap_cg_next_note). The process
 * is not followed if it later moves to another cgroup.
 */
int ap_cg_session_open(struct ap_cg_session **s, int pid, char *err);
enum ap_cg_mode ap_cg_session_mode(const struct ap_cg_session *s);
enum ap_cg_peak ap_cg_session_peak(const struct ap_cg_session *s);
/* The cgroup's directory ("/sys/fs/cgroup/a/b"), "" in AP_CG_NONE. */
const char *ap_cg_session_dir(const struct ap_cg_session *s);
/* Is the system-wide PSI file (/proc/pressure/memory) readable? */
bool ap_cg_session_has_psi(const struct ap_cg_session *s);

struct ap_rec_sample;

/*
 * Fills s->cg_current and s->cg_peak (memory.current and memory.peak through the held
 * fd; v1: usage_in_bytes and max_usage_in_bytes; AP_PEAK_POLLED: the largest current
 * seen so far) and s->psi_some_avg10, psi_full_avg10, psi_some_total, psi_full_total
 * from /proc/pressure/memory (system-wide, as trace.h says). Only those six fields are
 * written: AP_NO_VALUE where a value cannot be read. A failure is queued as a note the
 * first time it happens (not every sample); a removed cgroup (ENODEV/ENOENT) switches the
 * session to AP_CG_NONE with one note.
 */
void ap_cg_sample(struct ap_cg_session *s, struct ap_rec_sample *smp);

/*
 * Everything the TUI shows of the cgroup, AP_NO_VALUE where a file cannot be read: a
 * superset of ap_cg_sample (current and peak from the same held descriptors, system PSI
 * from the same file), so a sampler calls one or the other. Reads about ten small files
 * (v2); on v1 only current, peak, memory.stat and max (limit_in_bytes, its "no limit"
 * number turned into AP_CG_UNLIMITED); events stay AP_NO_VALUE there.
 */
struct ap_cg_snapshot {
	uint64_t current, peak;
	uint64_t max, high, min, low;		/* AP_CG_UNLIMITED for "max" */
	struct ap_cg_events events, events_local;
	struct ap_cg_stat stat;
	struct ap_psi pressure;			/* the cgroup's memory.pressure */
	struct ap_psi system;			/* /proc/pressure/memory */
};

void ap_cg_snapshot(struct ap_cg_session *s, struct ap_cg_snapshot *snap);

/*
 * Resets the peak seen through the session's memory.peak descriptor to the current usage
 * (6.12+; other descriptors, and other tools, still see the peak since creation). -1 with
 * errno EOPNOTSUPP and a message saying what to do instead on a kernel where memory.peak
 * is read-only or absent and on v1 (whose reset is global); ENODEV: the cgroup is gone.
 */
int ap_cg_reset_peak(struct ap_cg_session *s, char *err);

/*
 * The oldest note not yet taken, or NULL: one-line, human-readable facts about what the
 * session can and cannot read ("cgroup v1 memory controller: ... read-only; ...",
 * "PSI is not available: ...", "cgroup /a was removed: ..."). Valid until the next call
 * of any function of this session. The recorder writes them as trace notes.
 */
const char *ap_cg_next_note(struct ap_cg_session *s);
void ap_cg_session_close(struct ap_cg_session *s);

/* ---- the fresh-cgroup harness (arenaprof run; needs cgroup v2 with memory) ---- */

/*
 * Finds where `run` can create cgroups: the v2 directory of pid's cgroup (the default
 * parent) with the memory controller available in it. -1 (errno ENOTSUP) with one line
 * saying exactly what is missing: no cgroup v2 mounted, the memory controller bound to
 * cgroup v1 (and where), memory not enabled in the parent's parent, ...
 * Reads only.
 */
int ap_cg_v2_parent(int pid, char *dir, size_t len, char *err);
/* Same check for an explicit parent directory (--cgroup-parent), which must exist. */
int ap_cg_v2_check_dir(const char *dir, char *err);

/*
 * mkdir parent/name (mode 0755) after enabling +memory in parent's cgroup.subtree_control
 * when it is not on yet. EBUSY from subtree_control (the parent has processes of its own:
 * the no-internal-processes rule) gets a message that says to pass --cgroup-parent.
 * out gets the new directory.
 */
int ap_cg_create(const char *parent, const char *name, char *out, size_t len, char *err);
/* Writes value ("max" for AP_CG_UNLIMITED) to dir/file, e.g. memory.max. */
int ap_cg_set(const char *dir, const char *file, uint64_t value, char *err);
/* Moves pid into dir (writes it to dir/cgroup.procs). */
int ap_cg_move(const char *dir, int pid, char *err);
/*
 * Removes dir: kills what is left in it (cgroup.kill, 5.14+, else SIGKILL to each pid of
 * cgroup.procs), then rmdir, retried for up to 2 s while the kernel still counts exited
 * tasks. ENOENT (already gone) is success.
 */
int ap_cg_remove(const char *dir, char *err);

#endif
