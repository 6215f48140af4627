// SPDX-License-Identifier: Apache-2.0
/*
 * arenaprof run: runs a command N times, each time in a fresh cgroup v2 with the memory
 * limits asked for, and reports what the memory controller saw: exit status or signal
 * (an OOM kill named as such), memory.peak, memory.events.local deltas, memory.pressure
 * totals, PSI trigger firings and the child's VmHWM. The cgroup is removed after each run.
 *
 * The child is forked, stopped on a pipe, moved into the cgroup (cgroup.procs) and only
 * then allowed to exec: every page it touches is charged to the new cgroup. Nothing is
 * written anywhere before the checks have passed: a host without cgroup v2 and its memory
 * controller gets one line and exit 1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
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
#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/record/spawn.h"
#include "arenaprof/util/json.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/kernel/psi.h"
#include "arenaprof/util/units.h"
#include "arenaprof/util/clock.h"

#define MAX_TRIGGERS 8
#define MAX_FIRINGS 1000	/* times kept per trigger and run; the count goes on */
#define MAX_REPEAT 100000
#define POLL_MS 100

static volatile sig_atomic_t got_signal, n_signals;

static void on_signal(int sig)
{
	got_signal = sig;
	n_signals++;
}

struct trig {
	struct ap_psi_trigger t;
	bool armed;
	char error[AP_ERR_LEN];
	double *times;		/* seconds since the child started */
	size_t n_times;
};

struct run_result {
	int index;
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
	struct trig trig[MAX_TRIGGERS];
	size_t n_trig;
};

struct opts {
	uint64_t max, high, min;	/* AP_NO_VALUE: not set */
	bool high_auto, min_weights;
	const char *plan;
	const char *parent;
	const char *trig_spec[MAX_TRIGGERS];
	size_t n_trig;
	long repeat;
	bool json;
	char **argv;
	const char *user;		/* --user, looked up into u */
	struct ap_spawn_user u;
};

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof run [--memory-max SIZE] [--memory-high SIZE|auto]\n"
		"           [--memory-min SIZE|weights] [--plan MODEL.tflite]\n"
		"           [--psi-trigger 'some|full STALL_US WINDOW_US']...\n"
		"           [--repeat N] [--cgroup-parent DIR] [--json] [--user USER]\n"
		"           -- CMD ARGS...\n\n"
		"Runs CMD in a fresh cgroup v2 (one per repetition) with these memory\n"
		"limits and reports what the memory controller saw. Needs cgroup v2 with\n"
		"the memory controller (a cgroup v1 host is refused, nothing is changed)\n"
		"and root.\n"
		"  --memory-max SIZE    hard limit: over it, reclaim, then the OOM killer\n"
		"  --memory-high SIZE   throttle limit: over it, reclaim and penalty\n"
		"                       sleeps, never an OOM kill; auto = 95%% of max\n"
		"  --memory-min SIZE    protected from reclaim; weights = the plan's\n"
		"                       weights bytes\n"
		"  --plan MODEL         the model (or plan file) CMD runs\n"
		"  --psi-trigger SPEC   wake on memory pressure in the cgroup:\n"
		"                       'some 150000 1000000' = 150 ms stalled within any\n"
		"                       1 s window (window 500000 to 10000000 us);\n"
		"                       repeatable; each firing is reported with its time\n"
		"  --repeat N           run N times, each in a new cgroup (default 1)\n"
		"  --cgroup-parent DIR  create the cgroups under DIR (default: arenaprof's\n"
		"                       own cgroup v2; +memory is enabled in its\n"
		"                       cgroup.subtree_control if needed)\n"
		"  --json               {\"runs\": [{\"exit_status\", \"signal\",\n"
		"                       \"oom_killed\", \"memory_peak_bytes\", \"vmhwm_bytes\",\n"
		"                       \"events\", \"pressure\", \"triggers\", ...}]} on\n"
		"                       stdout; CMD's own stdout then goes to stderr\n"
		"  --user USER          run CMD as USER (name or uid, with its groups);\n"
		"                       default: as run itself, so root under sudo, as\n"
		"                       'sudo CMD' does (devices and files the service\n"
		"                       uses stay reachable); under sudo, --user\n"
		"                       \"$SUDO_USER\" runs it as you. CMD gets SIGKILL if\n"
		"                       run dies\n"
		"Exit 0 when every run was measured (whatever CMD's own status), 1 runtime\n"
		"failure (no cgroup v2 memory controller, a cgroup that cannot be created,\n"
		"interrupted), 2 bad usage or a command that cannot be run.\n");
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ap_cli_vsay("run", fmt, ap);
	va_end(ap);
}

#define GO_ON AP_CMD_GO_ON	/* parse_opts: run; else the exit code */

/* The command line into o: GO_ON, or the exit code (--help, a bad option, said). */
static int parse_opts(int argc, char **argv, struct opts *o)
{
	char err[AP_ERR_LEN];
	int c;
	struct ap_opts op;

	o->max = o->high = o->min = AP_NO_VALUE;
	o->repeat = 1;
	ap_opts_init(&op, "+M=memory-max: H=memory-high: N=memory-min: P=plan: T=psi-trigger: "
		     "r=repeat: C=cgroup-parent: j=json u=user: h|help");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		switch (c) {
		case 'M':
			if (ap_parse_size(optarg, &o->max) || !o->max)
				goto bad_value;
			break;
		case 'H':
			if (!strcmp(optarg, "auto"))
				o->high_auto = true;
			else if (ap_parse_size(optarg, &o->high) || !o->high)
				goto bad_value;
			break;
		case 'N':
			if (!strcmp(optarg, "weights"))
				o->min_weights = true;
			else if (ap_parse_size(optarg, &o->min))
				goto bad_value;
			break;
		case 'P': o->plan = optarg; break;
		case 'T': {
			struct ap_psi_trigger t;

			if (o->n_trig == MAX_TRIGGERS) {
				note("at most %d --psi-trigger options", MAX_TRIGGERS);
				return AP_EXIT_USAGE;
			}
			if (ap_psi_trigger_parse(optarg, &t, err)) {
				note("--psi-trigger: %s", err);
				return AP_EXIT_USAGE;
			}
			o->trig_spec[o->n_trig++] = optarg;
			break;
		}
		case 'r': {
			int64_t v;

			if (ap_parse_i64(optarg, 1, MAX_REPEAT, &v))
				goto bad_value;
			o->repeat = (int)v;
			break;
		}
		case 'C': o->parent = optarg; break;
		case 'j': o->json = true; break;
		case 'u': o->user = optarg; break;
		case 'h': usage(stdout); return AP_EXIT_OK;
		default: return ap_cli_bad_option("run", argv);
		}
		continue;
bad_value:
		note("bad value '%s' for %s", optarg, argv[optind - 1]);
		return AP_EXIT_USAGE;
	}
	if (optind >= argc) {
		note("no command given: arenaprof run [OPTIONS] -- CMD ARGS... (see --help)");
		return AP_EXIT_USAGE;
	}
	if (o->high_auto && o->max == AP_NO_VALUE) {
		note("--memory-high auto is 95%% of --memory-max: give --memory-max too");
		return AP_EXIT_USAGE;
	}
	if (o->min_weights && !o->plan) {
		note("--memory-min weights needs --plan MODEL.tflite");
		return AP_EXIT_USAGE;
	}
	o->argv = argv + optind;
	return GO_ON;
}

int cmd_run_parse(int argc, char **argv)
{
	struct opts o = { 0 };

	return parse_opts(argc, argv, &o);
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

static const char *sig_name(int sig, char *buf, size_t len)
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

static uint64_t delta(uint64_t after, uint64_t before)
{
	if (after == AP_NO_VALUE)
		return AP_NO_VALUE;
	if (before == AP_NO_VALUE || before > after)
		return after;
	return after - before;
}

static void add_firing(struct trig *tr, double t)
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

static bool psi_said;		/* "PSI is not available" was said */

/* One run while its child lives: what one_run's helpers share. */
struct run_ctx {
	const struct opts *o;
	struct run_result *r;
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

static void result_init(struct run_result *r, int index)
{
	memset(r, 0, sizeof(*r));
	r->index = index;
	r->peak = r->vmhwm = AP_NO_VALUE;
	r->some_us = r->full_us = AP_NO_VALUE;
	memset(&r->ev, 0xff, sizeof(r->ev));
}

/* The triggers closed and the cgroup removed. */
static void clean_up(struct run_result *r)
{
	char err[AP_ERR_LEN];

	for (size_t i = 0; i < r->n_trig; i++)
		ap_psi_trigger_close(&r->trig[i].t);
	if (ap_cg_remove(r->cgroup, err))
		note("%s", err);
}

/* The run's fresh cgroup with its limits: 0, or -1 said (and the cgroup removed). */
static int make_cgroup(const struct opts *o, const char *parent, struct run_result *r)
{
	char name[96], err[AP_ERR_LEN];

	snprintf(name, sizeof(name), "arenaprof-run-%d-%d", (int)getpid(), r->index);
	if (ap_cg_create(parent, name, r->cgroup, sizeof(r->cgroup), err)) {
		note("%s", err);
		return -1;
	}
	if ((o->min != AP_NO_VALUE && ap_cg_set(r->cgroup, "memory.min", o->min, err)) ||
	    (o->high != AP_NO_VALUE && ap_cg_set(r->cgroup, "memory.high", o->high, err)) ||
	    (o->max != AP_NO_VALUE && ap_cg_set(r->cgroup, "memory.max", o->max, err))) {
		note("%s", err);
		clean_up(r);
		return -1;
	}
	return 0;
}

/* Has the cgroup a memory.peak? The first run says how per-run peaks are had. */
static bool check_peak(const struct opts *o, const struct run_result *r)
{
	char peak_path[AP_CG_PATH_MAX + 32];
	struct stat st;
	bool have_peak;

	snprintf(peak_path, sizeof(peak_path), "%s/memory.peak", r->cgroup);
	have_peak = !stat(peak_path, &st);
	if (r->index == 1) {
		/* per-run peaks matter with --repeat: say how they are had */
		if (!have_peak)
			note("%s has no memory.peak (a kernel before 5.19): the peak is the "
			     "largest memory.current polled every %d ms, a lower bound", r->cgroup,
			     POLL_MS);
		else if (!(st.st_mode & S_IWUSR) && o->repeat > 1)
			note("memory.peak is read-only on this kernel (resettable from 6.12): "
			     "its reset is unsupported; each run gets a fresh cgroup, whose "
			     "memory.peak is that run's peak");
	}
	return have_peak;
}

/* The counters before the run, and the --psi-trigger ones armed on the cgroup. */
static void before_run(struct run_ctx *c)
{
	struct run_result *r = c->r;
	char err[AP_ERR_LEN];

	ap_cg_read_events(r->cgroup, true, &c->ev0, err);
	snprintf(c->pressure, sizeof(c->pressure), "%s/memory.pressure", r->cgroup);
	if (ap_psi_read(c->pressure, &c->p0, err) && !psi_said) {
		note("%s; carrying on without pressure totals", err);
		psi_said = true;
	}
	r->n_trig = c->o->n_trig;
	for (size_t i = 0; i < c->o->n_trig; i++) {
		struct trig *tr = &r->trig[i];

		ap_psi_trigger_parse(c->o->trig_spec[i], &tr->t, NULL);
		if (ap_psi_trigger_arm(&tr->t, c->pressure, tr->error)) {
			if (!psi_said || (errno != ENOENT && errno != EOPNOTSUPP))
				note("--psi-trigger '%s' not armed: %s", tr->t.spec, tr->error);
			psi_said = psi_said || errno == ENOENT || errno == EOPNOTSUPP;
			continue;
		}
		tr->armed = true;
	}
}

/*
 * Starts the command held, moves it into the cgroup and lets it exec: 0, or the exit code
 * of a failure said: AP_EXIT_RUNTIME (not started or not moved), AP_EXIT_USAGE (the exec
 * failed).
 */
static int start_child(struct run_ctx *c)
{
	char err[AP_ERR_LEN];
	struct ap_spawn sp;
	int e;

	fflush(stdout);
	fflush(stderr);
	/* held until it is in its cgroup: everything it allocates is charged there */
	if (ap_spawn_held(&sp, c->o->argv, &(struct ap_spawn_opts){
				.out_to_err = c->o->json, .user = c->o->user ? &c->o->u : NULL })) {
		note("cannot start %s: %s", c->o->argv[0], strerror(errno));
		return AP_EXIT_RUNTIME;
	}
	c->pid = sp.pid;
	if (ap_cg_move(c->r->cgroup, c->pid, err)) {
		note("%s", err);
		ap_spawn_abandon(&sp);
		return AP_EXIT_RUNTIME;
	}
	c->pidfd = pidfd_of(c->pid);
	c->t0 = ap_clock_ns(CLOCK_MONOTONIC);
	e = ap_spawn_release(&sp);
	if (e) {
		if (c->o->user && strcmp(sp.failed_at, "exec"))
			note("cannot run %s as %s: %s: %s", c->o->argv[0], c->o->u.name,
			     sp.failed_at, strerror(e));
		else
			note("cannot run %s: %s", c->o->argv[0], strerror(e));
		if (c->pidfd >= 0)
			close(c->pidfd);
		waitpid(c->pid, NULL, 0);
		return AP_EXIT_USAGE;
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
		struct trig *tr = &c->r->trig[i];

		if (!tr->armed || tr->t.gone)
			continue;
		switch (ap_psi_trigger_event(&tr->t, pf[n++].revents)) {
		case AP_PSI_FIRED:
			add_firing(tr, (double)(ap_clock_ns(CLOCK_MONOTONIC) - c->t0) / 1e9);
			break;
		case AP_PSI_GONE:
			note("--psi-trigger '%s': the cgroup's pressure file is gone "
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
	struct pollfd pf[MAX_TRIGGERS + 1];
	uint64_t next_poll = c->t0;
	sig_atomic_t forwarded = 0;

	for (;;) {
		int timeout = POLL_MS;
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
			note("waiting for %d: %s", (int)c->pid, strerror(errno));
			break;
		}
		if (!c->have_peak && ap_clock_ns(CLOCK_MONOTONIC) >= next_poll) {
			uint64_t v;

			if (!ap_cg_read_value(c->r->cgroup, "memory.current", false, &v, NULL) &&
			    v > c->polled_peak)
				c->polled_peak = v;
			next_poll = ap_clock_ns(CLOCK_MONOTONIC) + POLL_MS * 1000000ULL;
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
	struct run_result *r = c->r;
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
			note("%s", err);
	} else {
		r->peak = c->polled_peak;
	}
	if (!ap_cg_read_events(r->cgroup, true, &ev1, err))
		events_delta(&r->ev, &ev1, &c->ev0);
	else
		note("%s", err);
	if (!ap_psi_read(c->pressure, &p1, err)) {
		r->some_us = delta(p1.some.total_us, c->p0.some.total_us);
		r->full_us = delta(p1.full.total_us, c->p0.full.total_us);
	}
	r->oom_killed = r->signal == SIGKILL && r->ev.oom_kill != AP_NO_VALUE &&
			r->ev.oom_kill > 0;
	r->paid_in_reclaim = r->ev.high != AP_NO_VALUE && r->ev.high > 0 &&
			     (r->ev.oom_kill == 0 || r->ev.oom_kill == AP_NO_VALUE);
}

/* One repetition; 0, or -1 with the run's error said (exit code in *rc). */
static int one_run(const struct opts *o, const char *parent, int index, struct run_result *r,
		   int *rc)
{
	struct run_ctx c = { .o = o, .r = r, .pidfd = -1 };
	int k;

	result_init(r, index);
	if (make_cgroup(o, parent, r)) {
		*rc = AP_EXIT_RUNTIME;
		return -1;
	}
	c.have_peak = check_peak(o, r);
	r->peak_polled = !c.have_peak;
	before_run(&c);
	k = start_child(&c);
	if (k) {
		*rc = k;
		clean_up(r);
		return -1;
	}
	wait_child(&c);
	r->wall_s = (double)(ap_clock_ns(CLOCK_MONOTONIC) - c.t0) / 1e9;
	if (c.pidfd >= 0)
		close(c.pidfd);
	collect(&c);
	clean_up(r);
	return 0;
}

static void print_u64_or(FILE *f, uint64_t v)
{
	if (v == AP_NO_VALUE)
		fputs("?", f);
	else
		fprintf(f, "%" PRIu64, v);
}

static void print_text(const struct opts *o, const struct run_result *r, long n)
{
	char b1[32], b2[32];

	printf("run %d/%ld (%s): ", r->index, n, r->cgroup);
	if (r->exited)
		printf("exit %d\n", r->exit_status);
	else if (r->oom_killed)
		printf("killed by SIGKILL: OOM kill (memory.max %s)\n",
		       o->max != AP_NO_VALUE ? ap_fmt_bytes(o->max, b1, sizeof(b1)) : "max");
	else if (r->signal)
		printf("killed by %s\n", sig_name(r->signal, b1, sizeof(b1)));
	else
		printf("status unknown (the child was not reaped here)\n");
	if (r->peak != AP_NO_VALUE)
		printf("  memory.peak     %s (%" PRIu64 " bytes)%s\n",
		       ap_fmt_bytes(r->peak, b1, sizeof(b1)), r->peak,
		       r->peak_polled ? ", polled memory.current: a lower bound" : "");
	else
		printf("  memory.peak     ?\n");
	if (r->vmhwm != AP_NO_VALUE)
		printf("  VmHWM           %s\n", ap_fmt_bytes(r->vmhwm, b2, sizeof(b2)));
	printf("  events.local    low ");
	print_u64_or(stdout, r->ev.low);
	printf(", high ");
	print_u64_or(stdout, r->ev.high);
	printf(", max ");
	print_u64_or(stdout, r->ev.max);
	printf(", oom ");
	print_u64_or(stdout, r->ev.oom);
	printf(", oom_kill ");
	print_u64_or(stdout, r->ev.oom_kill);
	printf("\n  pressure        some ");
	print_u64_or(stdout, r->some_us);
	printf(" us, full ");
	print_u64_or(stdout, r->full_us);
	printf(" us (stalled on memory during the run)\n");
	for (size_t i = 0; i < r->n_trig; i++) {
		const struct trig *tr = &r->trig[i];

		printf("  psi trigger     '%s': ", tr->t.spec);
		if (!tr->armed) {
			printf("not armed: %s\n", tr->error);
			continue;
		}
		printf("armed, fired %" PRIu64 " time%s", tr->t.fired, tr->t.fired == 1 ? "" : "s");
		for (size_t k = 0; k < tr->n_times && k < 20; k++)
			printf("%s%.3f s", k ? ", " : " at ", tr->times[k]);
		if (tr->n_times > 20)
			printf(", ...");
		printf("%s\n", tr->t.gone ? " (then the cgroup was gone)" : "");
	}
	if (r->paid_in_reclaim)
		printf("  paid in reclaim memory.high was crossed %" PRIu64 " times and nothing "
		       "was OOM-killed: the excess was paid in reclaim and throttling\n",
		       r->ev.high);
	printf("  wall time       %.3f s\n", r->wall_s);
}

static void json_u64_or_null(struct ap_json *j, const char *key, uint64_t v)
{
	if (v == AP_NO_VALUE)
		ap_json_null(j, key);
	else
		ap_json_u64(j, key, v);
}

static void print_json(const struct opts *o, const struct ap_tplan *plan,
		       const struct run_result *runs, long n)
{
	struct ap_json j;
	char b[32];

	ap_json_init(&j, stdout);
	ap_json_obj(&j, NULL);
	ap_json_obj(&j, "limits");
	json_u64_or_null(&j, "memory_max_bytes", o->max);
	json_u64_or_null(&j, "memory_high_bytes", o->high);
	json_u64_or_null(&j, "memory_min_bytes", o->min);
	ap_json_end_obj(&j);
	if (plan) {
		ap_json_obj(&j, "plan");
		ap_json_u64(&j, "arena_bytes", plan->arena_bytes);
		ap_json_u64(&j, "weights_bytes", plan->weights_bytes);
		ap_json_end_obj(&j);
	}
	ap_json_arr(&j, "runs");
	for (long i = 0; i < n; i++) {
		const struct run_result *r = &runs[i];

		ap_json_obj(&j, NULL);
		ap_json_i64(&j, "run", r->index);
		ap_json_str(&j, "cgroup", r->cgroup);
		if (r->exited)
			ap_json_i64(&j, "exit_status", r->exit_status);
		else
			ap_json_null(&j, "exit_status");
		if (r->signal) {
			ap_json_i64(&j, "signal", r->signal);
			ap_json_str(&j, "signal_name", sig_name(r->signal, b, sizeof(b)));
		} else {
			ap_json_null(&j, "signal");
		}
		ap_json_bool(&j, "oom_killed", r->oom_killed);
		json_u64_or_null(&j, "memory_peak_bytes", r->peak);
		ap_json_str(&j, "memory_peak_source", r->peak_polled ? "polled memory.current" :
			    "memory.peak");
		json_u64_or_null(&j, "vmhwm_bytes", r->vmhwm);
		ap_json_obj(&j, "events");
		json_u64_or_null(&j, "low", r->ev.low);
		json_u64_or_null(&j, "high", r->ev.high);
		json_u64_or_null(&j, "max", r->ev.max);
		json_u64_or_null(&j, "oom", r->ev.oom);
		json_u64_or_null(&j, "oom_kill", r->ev.oom_kill);
		ap_json_end_obj(&j);
		ap_json_obj(&j, "pressure");
		json_u64_or_null(&j, "some_total_us", r->some_us);
		json_u64_or_null(&j, "full_total_us", r->full_us);
		ap_json_end_obj(&j);
		ap_json_bool(&j, "paid_in_reclaim", r->paid_in_reclaim);
		ap_json_arr(&j, "triggers");
		for (size_t k = 0; k < r->n_trig; k++) {
			const struct trig *tr = &r->trig[k];

			ap_json_obj(&j, NULL);
			ap_json_str(&j, "spec", tr->t.spec);
			ap_json_bool(&j, "armed", tr->armed);
			if (!tr->armed)
				ap_json_str(&j, "error", tr->error);
			ap_json_u64(&j, "fired", tr->t.fired);
			ap_json_arr(&j, "times_s");
			for (size_t m = 0; m < tr->n_times; m++)
				ap_json_f64(&j, NULL, tr->times[m]);
			ap_json_end_arr(&j);
			ap_json_bool(&j, "source_gone", tr->t.gone);
			ap_json_end_obj(&j);
		}
		ap_json_end_arr(&j);
		ap_json_f64(&j, "wall_s", r->wall_s);
		ap_json_end_obj(&j);
	}
	ap_json_end_arr(&j);
	ap_json_end_obj(&j);
	ap_json_finish(&j);
}

static int run_all(struct opts o)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char parent[AP_CG_PATH_MAX], err[AP_ERR_LEN], b1[32], b2[32];
	struct ap_tplan plan;
	bool have_plan = false;
	struct run_result *runs;
	int rc = AP_EXIT_OK;
	long done = 0;

	if (o.plan) {
		if (ap_plan_load(o.plan, &plan, err)) {
			note("--plan: %s", err);
			return AP_EXIT_USAGE;
		}
		have_plan = true;
	}
	if (o.min_weights) {
		if (!plan.weights_bytes) {
			note("--memory-min weights: the plan %s has no weights size", o.plan);
			ap_tplan_free(&plan);
			return AP_EXIT_USAGE;
		}
		o.min = plan.weights_bytes;
	}
	if (o.high_auto)
		o.high = o.max / 100 * 95 + o.max % 100 * 95 / 100;
	if (o.min != AP_NO_VALUE && o.max != AP_NO_VALUE && o.min > o.max)
		note("warning: --memory-min %s is above --memory-max %s",
		     ap_fmt_bytes(o.min, b1, sizeof(b1)), ap_fmt_bytes(o.max, b2, sizeof(b2)));
	/* checks that only read: refuse before anything is written */
	if (o.parent) {
		if (ap_cg_v2_check_dir(o.parent, err)) {
			note("%s; nothing was changed", err);
			goto out_plan_rt;
		}
		snprintf(parent, sizeof(parent), "%s", o.parent);
	} else if (ap_cg_v2_parent((int)getpid(), parent, sizeof(parent), err)) {
		note("%s; nothing was changed", err);
		goto out_plan_rt;
	}
	if (geteuid() != 0 && access(parent, W_OK)) {
		note("no permission to create cgroups in %s (run as root, or pass a delegated "
		     "--cgroup-parent); nothing was changed", parent);
		goto out_plan_rt;
	}
	runs = calloc((size_t)o.repeat, sizeof(*runs));
	if (!runs) {
		note("out of memory");
		goto out_plan_rt;
	}
	if (!o.json) {
		printf("arenaprof run: %ld run%s of %s in fresh cgroups under %s", o.repeat,
		       o.repeat == 1 ? "" : "s", o.argv[0], parent);
		if (o.max != AP_NO_VALUE)
			printf("; memory.max %s", ap_fmt_bytes(o.max, b1, sizeof(b1)));
		if (o.high != AP_NO_VALUE)
			printf("; memory.high %s", ap_fmt_bytes(o.high, b1, sizeof(b1)));
		if (o.min != AP_NO_VALUE)
			printf("; memory.min %s", ap_fmt_bytes(o.min, b1, sizeof(b1)));
		printf("\n");
		if (have_plan)
			printf("plan: arena %s, weights %s\n",
			       ap_fmt_bytes(plan.arena_bytes, b1, sizeof(b1)),
			       ap_fmt_bytes(plan.weights_bytes, b2, sizeof(b2)));
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed output pipe ('| head') must not kill run before its cgroups are removed
	 * (the command gets its default back before exec: record/spawn.c) */
	signal(SIGPIPE, SIG_IGN);
	for (long i = 0; i < o.repeat && !got_signal; i++) {
		if (one_run(&o, parent, (int)i + 1, &runs[i], &rc))
			break;
		done++;
		if (!o.json)
			print_text(&o, &runs[i], o.repeat);
		fflush(stdout);
	}
	if (got_signal) {
		note("interrupted by %s after %ld run%s", sig_name(got_signal, b1, sizeof(b1)),
		     done, done == 1 ? "" : "s");
		if (rc == AP_EXIT_OK)
			rc = AP_EXIT_RUNTIME;
	}
	if (o.json && done)
		print_json(&o, have_plan ? &plan : NULL, runs, done);
	for (long i = 0; i < o.repeat; i++)
		for (size_t k = 0; k < runs[i].n_trig; k++)
			free(runs[i].trig[k].times);
	free(runs);
	if (have_plan)
		ap_tplan_free(&plan);
	return rc;

out_plan_rt:
	if (have_plan)
		ap_tplan_free(&plan);
	return AP_EXIT_RUNTIME;
}

int cmd_run(int argc, char **argv)
{
	char err[AP_ERR_LEN];
	struct opts o = { 0 };
	int rc;

	rc = parse_opts(argc, argv, &o);
	if (rc != GO_ON)
		return rc;
	if (o.user && ap_spawn_user_lookup(o.user, &o.u, err)) {
		note("%s", err);
		return AP_EXIT_USAGE;
	}
	rc = run_all(o);
	if (o.user)
		ap_spawn_user_free(&o.u);
	return rc;
}
