/* SPDX-License-Identifier: Apache-2.0 */
/*
 * run_harness: `arenaprof run`'s runs: a command run N times, each time in a fresh cgroup
 * v2 with the memory limits asked for, and what the memory controller saw of each: exit
 * status or signal (an OOM kill named as such), memory.peak, memory.events.local deltas,
 * memory.pressure totals, PSI trigger firings and the child's VmHWM. The cgroup is removed
 * after each run.
 *
 * The child is forked, held before its exec (spawn.h), moved into the cgroup
 * (cgroup.procs) and only then allowed to exec: every page it touches is charged to the
 * new cgroup. Nothing is written anywhere before the checks of ap_run_parent have passed.
 * It lives in record/, not kernel/, for spawn.h; the cgroup files are kernel/'s.
 *
 * What the harness has to say on the way (a cgroup it could not remove, PSI missing, a
 * trigger gone) goes to the request's note callback, one line each, never to a stream.
 */
#ifndef ARENAPROF_RUN_HARNESS_H
#define ARENAPROF_RUN_HARNESS_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/kernel/cgroup.h"
#include "arenaprof/kernel/psi.h"
#include "arenaprof/record/spawn.h"
#include "arenaprof/util/err.h"

#define AP_RUN_MAX_TRIGGERS 8
#define AP_RUN_POLL_MS 100	/* memory.current polled this often without memory.peak */

struct ap_run_result;

struct ap_run_req {
	uint64_t max, high, min;	/* the limits; AP_NO_VALUE: not set */
	const char *parent;		/* --cgroup-parent, or NULL: our own cgroup v2 */
	const char *trig_spec[AP_RUN_MAX_TRIGGERS];	/* --psi-trigger, already parsed once */
	size_t n_trig;
	long repeat;
	char **argv;
	bool out_to_err;			/* the command's stdout goes to our stderr */
	const struct ap_spawn_user *user;	/* NULL: as we run */
	/* one line for the user (no newline), as the command prints its own */
	void (*note)(void *ctx, const char *fmt, va_list ap);
	/* each run as it is measured, before the next starts (NULL: none) */
	void (*on_run)(void *ctx, const struct ap_run_result *r);
	void *ctx;
};

struct ap_run_trig {
	struct ap_psi_trigger t;
	bool armed;
	char error[AP_ERR_LEN];
	double *times;		/* seconds since the child started */
	size_t n_times;
};

struct ap_run_result {
	int index;		/* from 1 */
	char cgroup[AP_CG_PATH_MAX];
	bool exited;
	int exit_status;	/* when exited */
	int signal;		/* when killed, else 0 */
	bool oom_killed;
	uint64_t peak;		/* AP_NO_VALUE unknown */
	bool peak_polled;	/* no memory.peak: the largest memory.current polled */
	uint64_t vmhwm;
	struct ap_cg_events ev;	/* deltas of memory.events.local */
	uint64_t some_us, full_us;	/* memory.pressure total deltas */
	bool paid_in_reclaim;
	double wall_s;
	struct ap_run_trig trig[AP_RUN_MAX_TRIGGERS];
	size_t n_trig;
};

struct ap_run_set {
	char parent[AP_CG_PATH_MAX];	/* where the cgroups go */
	struct ap_run_result *runs;	/* rq->repeat of them */
	long n, done;			/* runs[0..done) were measured */
	int interrupted;		/* the signal that stopped the runs, or 0 */
};

/*
 * Before anything is written: where the cgroups go (rq->parent checked, or our own
 * cgroup v2) with the memory controller available and room to create them, and room
 * for the results. 0, or a negative errno with the reason noted. set is zeroed first and
 * is for ap_run_free in every case.
 */
int ap_run_prepare(const struct ap_run_req *rq, struct ap_run_set *set);

/*
 * The runs, one after the other in fresh cgroups under set->parent, until all are done
 * or a signal (SIGINT, SIGTERM, SIGHUP: passed on to the command, a second one kills it)
 * stops them. 0 when every run was measured; -ENOEXEC when the command could not be run
 * (bad input); another negative errno for a runtime failure (a cgroup not made, the
 * command not started, interrupted): each said through rq->note.
 */
int ap_run_all(const struct ap_run_req *rq, struct ap_run_set *set);
void ap_run_free(struct ap_run_set *set);

/* "SIGKILL", or "signal 64" where the C library has no name for it. */
const char *ap_run_sig_name(int sig, char *buf, size_t len);

#endif
