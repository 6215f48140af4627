// SPDX-License-Identifier: Apache-2.0
/* run_harness: `arenaprof run`'s runs (include/arenaprof/record/run_harness.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arenaprof/kernel/cgroup_run.h"
#include "arenaprof/kernel/psi.h"
#include "arenaprof/record/run_harness.h"
#include "arenaprof/util/clock.h"
#include "arenaprof/util/err.h"

#define MAX_FIRINGS 1000	/* times kept per trigger and run; the count goes on */

static volatile sig_atomic_t got_signal, n_signals;

static void on_signal(int sig)
{
	got_signal = sig;
	n_signals++;
}

static void note(const struct ap_run_req *rq, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void note(const struct ap_run_req *rq, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	rq->note(rq->ctx, fmt, ap);
	va_end(ap);
}

static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	errno = ENOSYS;
	return -1;
#endif
}

const char *ap_run_sig_name(int sig, char *buf, size_t len)
{
	const char *abbrev = NULL;

#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	abbrev = sigabbrev_np(sig);
#endif
	if (abbrev)
		snprintf(buf, len, "SIG%s", abbrev);
	else
		snprintf(buf, len, "signal %d", sig);
	return buf;
}

/* -errno of a call that failed: EIO where it left none, or ENOEXEC (the exec's own) */
static int failed(int e)
{
	return e && e != ENOEXEC ? -e : -EIO;
}

static uint64_t delta(uint64_t after, uint64_t before)
{
	if (after == AP_NO_VALUE)
		return AP_NO_VALUE;
	if (before == AP_NO_VALUE || before > after)
		return after;
	return after - before;
}

static void add_firing(struct ap_run_trig *tr, double t)
{
	if (tr->n_times >= MAX_FIRINGS)
		return;
	if (!tr->times) {
		tr->times = calloc(MAX_FIRINGS, sizeof(*tr->times));
		if (!tr->times)
			return;
	}
	tr->times[tr->n_times++] = t;
}

/* One run while its child lives: what one_run's helpers share. */
struct run_ctx {
	const struct ap_run_req *rq;
	bool *psi_said;				/* "PSI is not available" was said */
	struct ap_run_result *r;
	char pressure[AP_CG_PATH_MAX + 32];	/* the cgroup's memory.pressure */
	struct ap_cg_events ev0;		/* memory.events.local before the run */
	struct ap_psi p0;			/* memory.pressure before the run */
	bool have_peak;				/* memory.peak exists, else it is polled */
	uint64_t polled_peak;
	pid_t pid;
	int pidfd;				/* -1: none, the loop polls */
	uint64_t t0;				/* when the child was released */
	bool reaped;
	int status;
	struct rusage ru;
};

static void result_init(struct ap_run_result *r, int index)
{
	memset(r, 0, sizeof(*r));
	r->index = index;
	r->peak = r->vmhwm = AP_NO_VALUE;
	r->some_us = r->full_us = AP_NO_VALUE;
	memset(&r->ev, 0xff, sizeof(r->ev));
}

/* The triggers closed and the cgroup removed. */
static void clean_up(const struct ap_run_req *rq, struct ap_run_result *r)
{
	char err[AP_ERR_LEN];

	for (size_t i = 0; i < r->n_trig; i++)
		ap_psi_trigger_close(&r->trig[i].t);
	if (ap_cg_remove(r->cgroup, err))
		note(rq, "%s", err);
}

/* The run's fresh cgroup with its limits: 0, or -errno said (and the cgroup removed). */
static int make_cgroup(const struct ap_run_req *rq, const char *parent,
		       struct ap_run_result *r)
{
	char name[96], err[AP_ERR_LEN];
	int rc;

	snprintf(name, sizeof(name), "arenaprof-run-%d-%d", (int)getpid(), r->index);
	rc = ap_cg_create(parent, name, r->cgroup, sizeof(r->cgroup), err);
	if (rc) {
		note(rq, "%s", err);
		return failed(-rc);
	}
	if (rq->min != AP_NO_VALUE)
		rc = ap_cg_set(r->cgroup, "memory.min", rq->min, err);
	if (!rc && rq->high != AP_NO_VALUE)
		rc = ap_cg_set(r->cgroup, "memory.high", rq->high, err);
	if (!rc && rq->max != AP_NO_VALUE)
		rc = ap_cg_set(r->cgroup, "memory.max", rq->max, err);
	if (rc) {
		note(rq, "%s", err);
		clean_up(rq, r);
		return failed(-rc);
	}
	return 0;
}

/* Has the cgroup a memory.peak? The first run says how per-run peaks are had. */
static bool check_peak(const struct ap_run_req *rq, const struct ap_run_result *r)
{
	char peak_path[AP_CG_PATH_MAX + 32];
	struct stat st;
	bool have_peak;

	snprintf(peak_path, sizeof(peak_path), "%s/memory.peak", r->cgroup);
	have_peak = !stat(peak_path, &st);
	if (r->index == 1) {
		/* per-run peaks matter with --repeat: say how they are had */
		if (!have_peak)
			note(rq, "%s has no memory.peak (a kernel before 5.19): the peak is the "
			     "largest memory.current polled every %d ms, a lower bound",
			     r->cgroup, AP_RUN_POLL_MS);
		else if (!(st.st_mode & S_IWUSR) && rq->repeat > 1)
			note(rq, "memory.peak is read-only on this kernel (resettable from 6.12): "
			     "its reset is unsupported; each run gets a fresh cgroup, whose "
			     "memory.peak is that run's peak");
	}
	return have_peak;
}

/* The counters before the run, and the --psi-trigger ones armed on the cgroup. */
static void before_run(struct run_ctx *c)
{
	const struct ap_run_req *rq = c->rq;
	struct ap_run_result *r = c->r;
	char err[AP_ERR_LEN];

	ap_cg_read_events(r->cgroup, true, &c->ev0, err);
	snprintf(c->pressure, sizeof(c->pressure), "%s/memory.pressure", r->cgroup);
	if (ap_psi_read(c->pressure, &c->p0, err) && !*c->psi_said) {
		note(rq, "%s; carrying on without pressure totals", err);
		*c->psi_said = true;
	}
	r->n_trig = rq->n_trig;
	for (size_t i = 0; i < rq->n_trig; i++) {
		struct ap_run_trig *tr = &r->trig[i];
		int rc;

		ap_psi_trigger_parse(rq->trig_spec[i], &tr->t, NULL);
		rc = ap_psi_trigger_arm(&tr->t, c->pressure, tr->error);
		if (rc) {
			bool absent = rc == -ENOENT || rc == -EOPNOTSUPP;

			if (!*c->psi_said || !absent)
				note(rq, "--psi-trigger '%s' not armed: %s", tr->t.spec, tr->error);
			*c->psi_said = *c->psi_said || absent;
			continue;
		}
		tr->armed = true;
	}
}

/*
 * Starts the command held, moves it into the cgroup and lets it exec: 0, or the failure
 * said: -ENOEXEC (the exec failed), another -errno (not started or not moved).
 */
static int start_child(struct run_ctx *c)
{
	const struct ap_run_req *rq = c->rq;
	char err[AP_ERR_LEN];
	struct ap_spawn sp;
	int rc;

	fflush(stdout);
	fflush(stderr);
	/* held until it is in its cgroup: everything it allocates is charged there */
	rc = ap_spawn_held(&sp, rq->argv, &(struct ap_spawn_opts){
				.out_to_err = rq->out_to_err, .user = rq->user });
	if (rc) {
		note(rq, "cannot start %s: %s", rq->argv[0], strerror(-rc));
		return failed(-rc);
	}
	c->pid = sp.pid;
	rc = ap_cg_move(c->r->cgroup, c->pid, err);
	if (rc) {
		note(rq, "%s", err);
		ap_spawn_abandon(&sp);
		return failed(-rc);
	}
	c->pidfd = pidfd_of(c->pid);
	c->t0 = ap_clock_ns(CLOCK_MONOTONIC);
	rc = ap_spawn_release(&sp);
	if (rc) {
		if (rq->user && strcmp(sp.failed_at, "exec"))
			note(rq, "cannot run %s as %s: %s: %s", rq->argv[0], rq->user->name,
			     sp.failed_at, strerror(-rc));
		else
			note(rq, "cannot run %s: %s", rq->argv[0], strerror(-rc));
		if (c->pidfd >= 0)
			close(c->pidfd);
		waitpid(c->pid, NULL, 0);
		return -ENOEXEC;
	}
	return 0;
}

/* The pollfds of the armed triggers, then the pidfd if any; how many. */
static nfds_t fill_pollfds(const struct run_ctx *c, struct pollfd *pf)
{
	nfds_t n = 0;

	for (size_t i = 0; i < c->r->n_trig; i++) {
		if (!c->r->trig[i].armed || c->r->trig[i].t.gone)
			continue;
		pf[n].fd = c->r->trig[i].t.fd;
		pf[n].events = POLLPRI;
		pf[n].revents = 0;
		n++;
	}
	if (c->pidfd >= 0) {
		pf[n].fd = c->pidfd;
		pf[n].events = POLLIN;
		pf[n].revents = 0;
		n++;
	}
	return n;
}

/* The triggers that fired in pf (as fill_pollfds laid it out) get a firing time. */
static void take_firings(struct run_ctx *c, const struct pollfd *pf)
{
	nfds_t n = 0;

	for (size_t i = 0; i < c->r->n_trig; i++) {
		struct ap_run_trig *tr = &c->r->trig[i];

		if (!tr->armed || tr->t.gone)
			continue;
		switch (ap_psi_trigger_event(&tr->t, pf[n++].revents)) {
		case AP_PSI_FIRED:
			add_firing(tr, (double)(ap_clock_ns(CLOCK_MONOTONIC) - c->t0) / 1e9);
			break;
		case AP_PSI_GONE:
			note(c->rq, "--psi-trigger '%s': the cgroup's pressure file is gone "
			     "(POLLERR); no more firings from it", tr->t.spec);
			break;
		case AP_PSI_NONE:
			break;
		}
	}
}

/*
 * Until the child is reaped: signals passed on, memory.current polled where there is no
 * memory.peak, trigger firings taken.
 */
static void wait_child(struct run_ctx *c)
{
	struct pollfd pf[AP_RUN_MAX_TRIGGERS + 1];
	uint64_t next_poll = c->t0;
	sig_atomic_t forwarded = 0;

	for (;;) {
		int timeout = AP_RUN_POLL_MS;
		nfds_t n;
		pid_t w;

		/* the first signal is passed on; another one kills */
		if (n_signals > forwarded) {
			kill(c->pid, forwarded ? SIGKILL : got_signal);
			forwarded = n_signals;
		}
		w = wait4(c->pid, &c->status, WNOHANG, &c->ru);
		if (w == c->pid) {
			c->reaped = true;
			break;
		}
		if (w < 0 && errno != EINTR) {
			note(c->rq, "waiting for %d: %s", (int)c->pid, strerror(errno));
			break;
		}
		if (!c->have_peak && ap_clock_ns(CLOCK_MONOTONIC) >= next_poll) {
			uint64_t v;

			if (!ap_cg_read_value(c->r->cgroup, "memory.current", false, &v, NULL) &&
			    v > c->polled_peak)
				c->polled_peak = v;
			next_poll = ap_clock_ns(CLOCK_MONOTONIC) + AP_RUN_POLL_MS * 1000000ULL;
		}
		n = fill_pollfds(c, pf);
		if (c->pidfd >= 0 && c->have_peak)
			timeout = -1;
		if (poll(pf, n, timeout) > 0)
			take_firings(c, pf);
	}
}

static void events_delta(struct ap_cg_events *d, const struct ap_cg_events *after,
			 const struct ap_cg_events *before)
{
	d->low = delta(after->low, before->low);
	d->high = delta(after->high, before->high);
	d->max = delta(after->max, before->max);
	d->oom = delta(after->oom, before->oom);
	d->oom_kill = delta(after->oom_kill, before->oom_kill);
	d->oom_group_kill = delta(after->oom_group_kill, before->oom_group_kill);
}

/* What the child's end and the cgroup's counters say about the run. */
static void collect(struct run_ctx *c)
{
	struct ap_run_result *r = c->r;
	char err[AP_ERR_LEN];
	struct ap_cg_events ev1;
	struct ap_psi p1;

	if (c->reaped && WIFEXITED(c->status)) {
		r->exited = true;
		r->exit_status = WEXITSTATUS(c->status);
	} else if (c->reaped && WIFSIGNALED(c->status)) {
		r->signal = WTERMSIG(c->status);
	}
	if (c->reaped)
		r->vmhwm = (uint64_t)c->ru.ru_maxrss * 1024;
	if (c->have_peak) {
		if (ap_cg_read_value(r->cgroup, "memory.peak", false, &r->peak, err))
			note(c->rq, "%s", err);
	} else {
		r->peak = c->polled_peak;
	}
	if (!ap_cg_read_events(r->cgroup, true, &ev1, err))
		events_delta(&r->ev, &ev1, &c->ev0);
	else
		note(c->rq, "%s", err);
	if (!ap_psi_read(c->pressure, &p1, err)) {
		r->some_us = delta(p1.some.total_us, c->p0.some.total_us);
		r->full_us = delta(p1.full.total_us, c->p0.full.total_us);
	}
	r->oom_killed = r->signal == SIGKILL && r->ev.oom_kill != AP_NO_VALUE &&
			r->ev.oom_kill > 0;
	r->paid_in_reclaim = r->ev.high != AP_NO_VALUE && r->ev.high > 0 &&
			     (r->ev.oom_kill == 0 || r->ev.oom_kill == AP_NO_VALUE);
}

/* One repetition: 0, or the run's failure said (start_child's, make_cgroup's). */
static int one_run(const struct ap_run_req *rq, struct ap_run_set *set, bool *psi_said,
		   struct ap_run_result *r)
{
	struct run_ctx c = { .rq = rq, .psi_said = psi_said, .r = r, .pidfd = -1 };
	int rc;

	result_init(r, (int)set->done + 1);
	rc = make_cgroup(rq, set->parent, r);
	if (rc)
		return rc;
	c.have_peak = check_peak(rq, r);
	r->peak_polled = !c.have_peak;
	before_run(&c);
	rc = start_child(&c);
	if (rc) {
		clean_up(rq, r);
		return rc;
	}
	wait_child(&c);
	r->wall_s = (double)(ap_clock_ns(CLOCK_MONOTONIC) - c.t0) / 1e9;
	if (c.pidfd >= 0)
		close(c.pidfd);
	collect(&c);
	clean_up(rq, r);
	return 0;
}

int ap_run_prepare(const struct ap_run_req *rq, struct ap_run_set *set)
{
	char err[AP_ERR_LEN];

	memset(set, 0, sizeof(*set));
	if (rq->parent) {
		if (ap_cg_v2_check_dir(rq->parent, err)) {
			note(rq, "%s; nothing was changed", err);
			return -ENOTSUP;
		}
		snprintf(set->parent, sizeof(set->parent), "%s", rq->parent);
	} else if (ap_cg_v2_parent((int)getpid(), set->parent, sizeof(set->parent), err)) {
		note(rq, "%s; nothing was changed", err);
		return -ENOTSUP;
	}
	if (geteuid() != 0 && access(set->parent, W_OK)) {
		note(rq, "no permission to create cgroups in %s (run as root, or pass a "
		     "delegated --cgroup-parent); nothing was changed", set->parent);
		return -EPERM;
	}
	set->runs = calloc((size_t)rq->repeat, sizeof(*set->runs));
	if (!set->runs) {
		note(rq, "out of memory");
		return -ENOMEM;
	}
	set->n = rq->repeat;
	return 0;
}

int ap_run_all(const struct ap_run_req *rq, struct ap_run_set *set)
{
	struct sigaction sa = { .sa_handler = on_signal };
	bool psi_said = false;
	char b[32];
	int rc = 0;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed output pipe ('| head') must not kill run before its cgroups are removed
	 * (the command gets its default back before exec: record/spawn.c) */
	signal(SIGPIPE, SIG_IGN);
	while (set->done < set->n && !got_signal) {
		rc = one_run(rq, set, &psi_said, &set->runs[set->done]);
		if (rc)
			break;
		set->done++;
		if (rq->on_run)
			rq->on_run(rq->ctx, &set->runs[set->done - 1]);
	}
	if (got_signal) {
		set->interrupted = got_signal;
		note(rq, "interrupted by %s after %ld run%s", ap_run_sig_name(got_signal, b,
		     sizeof(b)), set->done, set->done == 1 ? "" : "s");
		if (!rc)
			rc = -EINTR;
	}
	return rc;
}

void ap_run_free(struct ap_run_set *set)
{
	for (long i = 0; i < set->n; i++)
		for (size_t k = 0; k < set->runs[i].n_trig; k++)
			free(set->runs[i].trig[k].times);
	free(set->runs);
	set->runs = NULL;
	set->n = set->done = 0;
}
