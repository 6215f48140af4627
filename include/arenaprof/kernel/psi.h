/* SPDX-License-Identifier: Apache-2.0 */
/*
 * psi: pressure stall information (docs/design.md, "Folders, bottom to top"): the system's
 * /proc/pressure/memory and a cgroup's memory.pressure, parsed, and triggers waited on
 * with POLLPRI. Used by record's sampler, the live TUI and `arenaprof run`.
 *
 * The files (Documentation/accounting/psi.rst):
 *     some avg10=0.00 avg60=0.00 avg300=0.00 total=0
 *     full avg10=0.00 avg60=0.00 avg300=0.00 total=0
 * avgN: percent of wall time some (or all) non-idle tasks were stalled on memory over the
 * last N seconds, two decimals; total: cumulative stall in microseconds. `full` means
 * every non-idle task stalled at once: thrashing.
 *
 * Parsing is by key: a line is "KIND key=value ...". Lines of another kind and keys
 * other than avg10, avg60, avg300 and total are ignored (a later kernel may add them); a
 * missing key leaves AP_NO_VALUE; a repeated line: the last one counts; blank lines are
 * skipped. A line that is not of that shape, or a value that is not a number, is an error
 * naming the file and line: "/proc/pressure/memory:2: total: '12x' is not a number".
 * Never crashes on garbage, truncated or unknown contents.
 *
 * Availability: the files need CONFIG_PSI and no psi=0 on the command line (Debian's
 * kernels have both). When they are missing, reads fail with -ENOENT or -EOPNOTSUPP
 * and the message says PSI is not available; callers say so once and carry on.
 *
 * Errors: every int function returns 0 (or a count) or a negative errno with a one-line
 * message in err (AP_ERR_LEN bytes, may be NULL).
 */
#ifndef ARENAPROF_PSI_H
#define ARENAPROF_PSI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifndef AP_NO_VALUE
#define AP_NO_VALUE UINT64_MAX	/* a field that is absent (same as trace.h) */
#endif

#define AP_PSI_SYSTEM_MEMORY "/proc/pressure/memory"

/* One line. Averages are percent x 100 (12.34 % -> 1234), as the trace samples store. */
struct ap_psi_line {
	uint64_t avg10, avg60, avg300;
	uint64_t total_us;
};

struct ap_psi {
	struct ap_psi_line some, full;	/* all AP_NO_VALUE when the line is absent */
};

void ap_psi_init(struct ap_psi *p);	/* every field AP_NO_VALUE */
/* Parses a buffer (need not be NUL-terminated); name is the file name used in messages. */
int ap_psi_parse(const char *buf, size_t len, const char *name, struct ap_psi *p, char *err);
/*
 * Reads a pressure file: /proc/pressure/memory (AP_PSI_SYSTEM_MEMORY) or a cgroup's
 * memory.pressure. -ENOENT or -EOPNOTSUPP: "PSI is not available: ..." (no CONFIG_PSI,
 * psi=0, or no such cgroup); -ENODEV: the cgroup was removed; -EINVAL: not a pressure
 * file's contents.
 */
int ap_psi_read(const char *path, struct ap_psi *p, char *err);

/* ---- triggers ---- */

/*
 * "some 150000 1000000": wake when tasks stalled on memory for 150 ms in total within any
 * 1 s window. The window is 500 ms to 10 s; the stall is 1 us to the window. One open
 * file per trigger. Unprivileged users (6.4+) need a window that is a multiple of 2 s.
 */
struct ap_psi_trigger {
	bool full;			/* "full", else "some" */
	uint64_t stall_us, window_us;
	char spec[64];			/* as written to the kernel: "some 150000 1000000" */
	char path[256];			/* the pressure file it is armed on */
	int fd;				/* -1 until armed, and after close */
	bool gone;			/* POLLERR seen: the source is gone (cgroup removed) */
	uint64_t fired;			/* POLLPRI events seen by ap_psi_trigger_event */
};

#define AP_PSI_WINDOW_MIN_US 500000ULL
#define AP_PSI_WINDOW_MAX_US 10000000ULL

/*
 * Validates spec ("some|full STALL_US WINDOW_US", spaces or tabs between) and fills t
 * (fd -1). -EINVAL with a message that says what is wrong.
 */
int ap_psi_trigger_parse(const char *spec, struct ap_psi_trigger *t, char *err);
/*
 * Opens path (O_RDWR | O_NONBLOCK | O_CLOEXEC) and writes t->spec: from then on the open
 * file signals POLLPRI when the trigger fires. Errors: -ENOENT/-EOPNOTSUPP (PSI not
 * available), -EACCES/-EPERM (unprivileged: window not a multiple of 2 s, or no write
 * permission), -EINVAL (the kernel refused the spec), -EBUSY (a trigger is already armed
 * on this file descriptor), -ENODEV (the cgroup is gone).
 */
int ap_psi_trigger_arm(struct ap_psi_trigger *t, const char *path, char *err);

enum ap_psi_event {
	AP_PSI_NONE = 0,
	AP_PSI_FIRED = 1,		/* POLLPRI: the threshold was crossed in the window */
	AP_PSI_GONE = 2,		/* POLLERR: the source is gone, stop polling it */
};

/*
 * Interprets the revents poll() returned for t->fd: counts a firing, or marks the
 * trigger gone (POLLERR wins over POLLPRI: a removed cgroup's file reports both).
 */
enum ap_psi_event ap_psi_trigger_event(struct ap_psi_trigger *t, short revents);

/*
 * Waits up to timeout_ms (-1 forever) for any armed, not gone trigger of t[0..n) and
 * interprets what poll() returned. events[i] (may be NULL) gets each trigger's event.
 * Returns how many fired, 0 on timeout, a negative errno with err (poll's, -ENOMEM, or
 * -ENODEV when no trigger is left to wait on: they are all gone).
 */
int ap_psi_wait(struct ap_psi_trigger *t, size_t n, int timeout_ms, enum ap_psi_event *events,
		char *err);
void ap_psi_trigger_close(struct ap_psi_trigger *t);

#endif
