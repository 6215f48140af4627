/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup_session: the sampler of a process's memory cgroup (record, the live TUI): its
 * current usage and peak through held descriptors, a snapshot of everything the TUI shows,
 * the peak reset, and notes on what cannot be read. Parsers and errors: cgroup.h.
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
 */
#ifndef ARENAPROF_CGROUP_SESSION_H
#define ARENAPROF_CGROUP_SESSION_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/kernel/cgroup.h"
#include "arenaprof/kernel/psi.h"

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
 * descriptor until ap_cg_session_close. Fails only for a bad or gone pid (-EINVAL,
 * -ESRCH), no memory (-ENOMEM) or an unreadable /proc (ap_cg_read_where's errors); a host
 * without a usable memory cgroup or without PSI gives a session that samples what it can,
 * with the reason queued as a note (ap_cg_next_note). The process is not followed if it
 * later moves to another cgroup.
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
 * (6.12+; other descriptors, and other tools, still see the peak since creation).
 * -EOPNOTSUPP with a message saying what to do instead on a kernel where memory.peak is
 * read-only or absent and on v1 (whose reset is global); -ENODEV: the cgroup is gone.
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

#endif
