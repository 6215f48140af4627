// SPDX-License-Identifier: Apache-2.0
/*
 * session: the collector and samplers of one traced process, behind `record` and the live
 * TUI (see session.h). The process is started here, stopped on a pipe until the probe is
 * attached, or attached with -p (its resident pages are then taken from pagemap).
 */
#include <errno.h>
#include <poll.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arenaprof/kernel/cgroup_session.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/record/probe.h"
#include "arenaprof/kernel/procfs.h"
#include "arenaprof/record/session.h"
#include "arenaprof/util/units.h"
#include "arenaprof/record/runtime_id.h"
#include "arenaprof/util/clock.h"
#include "arenaprof/util/escape.h"

#define MAX_RESIDENT_MAP (64ULL << 30)	/* bitmaps above this are left out, with a note */
#define STALE_SNAPSHOT_NS 2000000ULL	/* new mappings are named at most every 2 ms */

/* ---- sending to the sink chain: one callback of every sink, the first failure's code ---- */
#define SEND(s, cb, ...)							\
	({									\
		int bad_ = 0, r_;						\
		for (const struct ap_session_sink *k_ = (s)->sink; k_; k_ = k_->next) \
			if (k_->cb && (r_ = k_->cb(k_->ctx, ##__VA_ARGS__)) && !bad_) \
				bad_ = r_ < 0 ? r_ : -EIO;			\
		if (bad_)							\
			(s)->failed = true;					\
		bad_;								\
	})

static void send_note(struct ap_session *s, uint32_t level, const char *text)
{
	uint64_t ts = ap_clock_ns(CLOCK_MONOTONIC);

	for (const struct ap_session_sink *k = s->sink; k; k = k->next) {
		/* a set-up line is information to a sink that does not tell them apart */
		uint32_t l = level == AP_NOTE_SETUP && !k->setup_notes ? 0 : level;

		if (k->note && k->note(k->ctx, l, ts, text))
			s->failed = true;
	}
}

void ap_session_note(struct ap_session *s, uint32_t level, const char *fmt, ...)
{
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	send_note(s, level, text);
}

/* The allocation probe's notes and events go to the sinks like the session's own. */
static void alloc_note(void *ctx, uint32_t level, const char *text)
{
	send_note(ctx, level, text);
}

static void alloc_event(void *ctx, const struct ap_event *ev)
{
	struct ap_session *s = ctx;

	SEND(s, event, ev);
}

/* ---- events ---- */

static int on_event(void *ctx, const struct ap_event *ev)
{
	struct ap_session *s = ctx;
	int rc;

	if (ev->type == AP_EV_FAULT) {
		s->faults++;
		if (s->have_maps && !s->maps_stale && !(ev->flags & AP_FF_VMA_UNKNOWN)) {
			const struct ap_map *m = ap_maps_find(&s->maps, ev->addr);

			/* a new or resized mapping: snapshot it while it still exists */
			if (!m || m->start != ev->vm_start || m->end != ev->vm_end)
				s->maps_stale = true;
		}
	}
	rc = SEND(s, event, ev);
	if (rc)
		return rc;
	if (ev->type == AP_EV_RUN_END)
		ap_alloc_probe_run_end(&s->alloc);
	if (ev->type == AP_EV_RUN_END && ++s->runs >= s->o.runs_limit && s->o.runs_limit) {
		s->end_reason = AP_END_RUNS;
		s->t_runs_end = ev->ts_ns;
		return 1;	/* stop polling: the requested runs are done */
	}
	return 0;
}

/* --runs N: the faults still batched that came before the N-th run's end, nothing else */
static int on_tail_event(void *ctx, const struct ap_event *ev)
{
	struct ap_session *s = ctx;

	if (ev->type != AP_EV_FAULT || ev->ts_ns > s->t_runs_end)
		return 0;
	s->faults++;
	return SEND(s, event, ev);
}

/* ---- mappings ---- */

static bool already_checked(struct ap_session *s, const char *path)
{
	char **p;

	for (size_t i = 0; i < s->n_checked; i++)
		if (!strcmp(s->checked[i], path))
			return true;
	p = realloc(s->checked, (s->n_checked + 1) * sizeof(*p));
	if (p) {
		s->checked = p;
		s->checked[s->n_checked] = strdup(path);
		if (s->checked[s->n_checked])
			s->n_checked++;
	}
	return false;
}

/* Without --run-probe: LiteRT's run entry points in every newly mapped ELF file, every API
 * found (a process may run the Interpreter and a CompiledModel, from two libraries). */
static void find_run_probe(struct ap_session *s)
{
	for (size_t i = 0; s->probe && i < s->maps.n; i++) {
		const struct ap_map *m = &s->maps.m[i];
		struct ap_run_entry re[16];
		char buf[1280];		/* an attach error, then the runtime note */
		int n;

		if (!(m->prot & AP_PROT_EXEC) || m->path[0] != '/' ||
		    already_checked(s, m->path))
			continue;
		n = ap_symbols_find_runs(m->path, re, sizeof(re) / sizeof(re[0]));
		for (int k = 0; k < n; k++) {
			if (ap_probe_attach_run(s->probe, m->path, re[k].symbol, true, buf)) {
				ap_session_note(s, 1, "found %s in %s but could not attach to it: "
						"%s", re[k].symbol, m->path, buf);
				continue;
			}
			s->run_probe = true;
			ap_session_note(s, AP_NOTE_SETUP, "run probe: %s:%s (run entry point found "
					"automatically: %s)", m->path, re[k].symbol, re[k].api);
		}
		if (n > 0)	/* attached first; still written before any run is drained */
			ap_session_note(s, AP_NOTE_SETUP, "%s",
					ap_runtime_id_note_of(m->path, buf, sizeof(buf)));
	}
}

/* The target's mappings, sent as a new snapshot when they changed. */
static void snapshot_maps(struct ap_session *s, bool auto_probe)
{
	struct ap_maps now = { 0 };
	char err[AP_ERR_LEN];
	uint64_t ts = ap_clock_ns(CLOCK_MONOTONIC);

	s->maps_stale = false;
	s->last_snapshot = ts;
	if (ap_procfs_maps(s->pid, &now, err))
		return;		/* the target is exiting; its exit is noticed elsewhere */
	if (s->have_maps && ap_maps_equal(&now, &s->maps)) {
		ap_maps_free(&now);
		return;
	}
	s->snapshot++;
	SEND(s, mappings, &now, s->snapshot, ts);
	if (s->have_maps)
		ap_maps_free(&s->maps);
	s->maps = now;
	s->have_maps = true;
	/* XNNPACK packs its weights as soon as a model is loaded: its allocator's probes
	 * first, the run probe's longer search of the same files after */
	ap_alloc_probe_maps(&s->alloc, &s->maps);
	if (auto_probe)
		find_run_probe(s);
}

/* -p: which pages of each mapping were already resident when the tracer attached. */
static void send_resident(struct ap_session *s)
{
	for (size_t i = 0; i < s->maps.n; i++) {
		const struct ap_map *m = &s->maps.m[i];
		struct ap_rec_resident rr = { .ts_ns = ap_clock_ns(CLOCK_MONOTONIC),
					      .start = m->start, .end = m->end };
		struct ap_residency res = { 0 };
		char err[AP_ERR_LEN];

		if (!strcmp(m->path, "[vsyscall]"))
			continue;
		if (m->end - m->start > MAX_RESIDENT_MAP) {
			ap_session_note(s, 1, "mapping %" PRIx64 "-%" PRIx64 " is too large to "
					"record its resident pages at attach", m->start, m->end);
			continue;
		}
		if (ap_procfs_residency(s->pid, m->start, m->end, true, &res, err))
			continue;
		rr.present = res.present;
		if (res.present)
			SEND(s, resident, &rr, res.bitmap, (size_t)((res.pages + 7) / 8));
		free(res.bitmap);
	}
}

/* ---- samplers ---- */

/* What the cgroup session can and cannot read, as notes (each once). */
static void cg_notes(struct ap_session *s)
{
	const char *n;

	while (s->cg && (n = ap_cg_next_note(s->cg)))
		ap_session_note(s, AP_NOTE_SETUP, "%s", n);
}

static void psi_copy(struct ap_psi_figures *f, const struct ap_psi *p)
{
	f->some_avg[0] = p->some.avg10;
	f->some_avg[1] = p->some.avg60;
	f->some_avg[2] = p->some.avg300;
	f->full_avg[0] = p->full.avg10;
	f->full_avg[1] = p->full.avg60;
	f->full_avg[2] = p->full.avg300;
	f->some_total = p->some.total_us;
	f->full_total = p->full.total_us;
}

/*
 * cgroup (v2, v1 read-only) and PSI: memory.current, memory.peak (one held fd) and the
 * system's PSI into the trace sample (ap_cg_sample); with full_acct (the TUI) also
 * max/high/min/low, memory.events.local and the cgroup's memory.pressure (ap_cg_snapshot).
 * The one place they are read, for record and the TUI alike.
 */
static void sample_kernel_accounting(struct ap_session *s, struct ap_session_sample *smp)
{
	struct ap_kernel_acct *a = &smp->acct;
	struct ap_cg_snapshot cs;

	if (!s->cg)
		return;
	ap_cg_sample(s->cg, &smp->rec);
	if (s->o.full_acct) {
		ap_cg_snapshot(s->cg, &cs);
		snprintf(a->cg_path, sizeof(a->cg_path), "%s", ap_cg_session_dir(s->cg));
		a->cg_current = cs.current;
		a->cg_peak = cs.peak;
		a->cg_max = cs.max;
		a->cg_high = cs.high;
		a->cg_min = cs.min;
		a->cg_low = cs.low;
		a->ev_low = cs.events_local.low;
		a->ev_high = cs.events_local.high;
		a->ev_max = cs.events_local.max;
		a->ev_oom = cs.events_local.oom;
		a->ev_oom_kill = cs.events_local.oom_kill;
		psi_copy(&a->psi_sys, &cs.system);
		psi_copy(&a->psi_cg, &cs.pressure);
	}
	cg_notes(s);
}

/*
 * The cgroup's memory.peak through the session's held fd: 0 done or no cgroup read, a
 * negative errno with err when it cannot be reset here (before 6.12, cgroup v1: its reset
 * is global).
 */
static int reset_kernel_peaks(struct ap_session *s, char *err)
{
	if (!s->cg || ap_cg_session_mode(s->cg) == AP_CG_NONE)
		return 0;
	return ap_cg_reset_peak(s->cg, err);
}

static void send_dmabuf_ev(void *ctx, const struct ap_rec_dmabuf_ev *e)
{
	SEND((struct ap_session *)ctx, dmabuf_ev, e);
}

/* The target's dma-bufs: their events, then the poll when it changed; a failure said once. */
static void sample_dmabuf(struct ap_session *s, uint64_t ts)
{
	struct ap_rec_dmabuf rec;
	char err[AP_ERR_LEN];
	int rc;

	if (!s->dmabuf || s->dmabuf->failed)
		return;
	rc = ap_dmabuf_sampler_poll(s->dmabuf, s->pid, ts, &rec, send_dmabuf_ev, s, err);
	if (s->dmabuf->note[0]) {
		ap_session_note(s, 0, "%s", s->dmabuf->note);
		s->dmabuf->note[0] = 0;
	}
	if (rc == 1)
		SEND(s, dmabuf, &rec, s->dmabuf);
	if (rc < 0 && rc != -ESRCH) {
		s->dmabuf->failed = true;
		ap_session_note(s, 1, "dma-bufs: no longer sampled: %s", err);
	}
}

/* The events the kernel queued before the end, and what they lost. */
static void stop_dmabuf(struct ap_session *s)
{
	char err[AP_ERR_LEN], lost[256];

	if (!s->dmabuf || s->dmabuf->failed)
		return;
	if (ap_dmabuf_sampler_drain(s->dmabuf, send_dmabuf_ev, s, err))
		ap_session_note(s, 1, "dma-bufs: the last events were not read: %s", err);
	if (s->dmabuf->note[0]) {
		ap_session_note(s, 0, "%s", s->dmabuf->note);
		s->dmabuf->note[0] = 0;
	}
	ap_dmabuf_sampler_losses(s->dmabuf, lost, sizeof(lost));
	if (lost[0])
		ap_session_note(s, 1, "%s", lost);
}

static void sample(struct ap_session *s, uint64_t now)
{
	struct ap_session_sample smp;
	struct ap_status st;
	struct ap_smaps sm;
	char err[AP_ERR_LEN];

	memset(&smp, 0xff, sizeof(smp));	/* every field AP_NO_VALUE until read */
	smp.smaps_read = false;
	smp.acct.cg_path[0] = '\0';
	smp.rec.ts_ns = ap_clock_ns(CLOCK_MONOTONIC);
	if (!ap_procfs_status(s->pid, &st, err)) {
		smp.rec.vm_rss = st.vm_rss;
		smp.rec.vm_hwm = st.vm_hwm;
		smp.rec.rss_anon = st.rss_anon;
		smp.rec.rss_file = st.rss_file;
		smp.rec.rss_shmem = st.rss_shmem;
	}
	/* smaps_rollup walks every page table: at its own rate when one is set */
	if (!s->o.smaps_interval_ms || now >= s->t_next_smaps) {
		s->t_next_smaps = now + (uint64_t)s->o.smaps_interval_ms * 1000000ULL;
		if (!ap_procfs_smaps_rollup(s->pid, &sm, err)) {
			smp.smaps_read = true;
			smp.rec.rss = sm.rss;
			smp.rec.pss = sm.pss;
			smp.rec.pss_anon = sm.pss_anon;
			smp.rec.pss_file = sm.pss_file;
			smp.rec.pss_shmem = sm.pss_shmem;
			smp.rec.anonymous = sm.anonymous;
			smp.rec.anon_huge = sm.anon_huge;
			smp.rec.swap = sm.swap;
		}
	}
	sample_kernel_accounting(s, &smp);
	if (smp.rec.vm_rss != AP_NO_VALUE || smp.rec.rss != AP_NO_VALUE)
		SEND(s, sample, &smp);
	sample_dmabuf(s, smp.rec.ts_ns);
}

static void send_counters(struct ap_session *s, bool force)
{
	struct ap_counters c;
	struct ap_rec_drops d;

	if (!s->probe)
		return;		/* procfs_only: no BPF side to count */
	ap_probe_counters(s->probe, &c);
	if (!force && !memcmp(&c, &s->counters, sizeof(c)))
		return;
	s->counters = c;
	d = (struct ap_rec_drops){ .ts_ns = ap_clock_ns(CLOCK_MONOTONIC), .events = c.events,
				   .ringbuf_drops = c.ringbuf_drops,
				   .vma_misses = c.vma_misses, .retries = c.retries };
	SEND(s, drops, &d);
}

void ap_session_send_counters(struct ap_session *s)
{
	send_counters(s, true);
}

void ap_session_sample_now(struct ap_session *s)
{
	s->t_next = 0;
	s->t_next_smaps = 0;
}

int ap_session_reset_peaks(struct ap_session *s, char *err)
{
	int rc = ap_procfs_reset_hwm(s->pid, err);

	if (reset_kernel_peaks(s, rc ? NULL : err) && !rc)
		rc = 1;
	ap_session_sample_now(s);
	return rc;
}

/*
 * A process that has exited, its zombie not reaped yet: stat's state is Z (or X), and no
 * other thread runs on (a leader that called pthread_exit is a zombie too, while the
 * process lives on in its other threads).
 */
static bool is_zombie(int pid, const struct ap_pstat *ps)
{
	struct ap_status st;

	if (ps->state != 'Z' && ps->state != 'X')
		return false;
	return ap_procfs_status(pid, &st, NULL) || st.threads <= 1;
}

/* A wait status into exit_status (or -1) and term_signal (or 0). */
static void set_exit(struct ap_session *s, int st)
{
	s->target_gone = true;
	s->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	s->term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
}

/*
 * Started: waitpid. Attached (not our child, so no wait): /proc/PID/stat; a zombie's
 * status is there until its parent reaps it, after that it is not knowable (exit_status
 * stays -1). A pid that now names another process (start time) is gone too.
 */
static bool target_alive(struct ap_session *s)
{
	struct ap_pstat ps;
	int rc;

	if (s->target_gone)
		return false;
	if (s->started) {
		int st;
		pid_t w = waitpid(s->pid, &st, WNOHANG);

		if (w == s->pid && (WIFEXITED(st) || WIFSIGNALED(st)))
			set_exit(s, st);
	} else if (!(rc = ap_procfs_stat(s->pid, &ps, NULL))) {
		if (ps.start_time != s->start_time) {
			s->target_gone = true;
		} else if (is_zombie(s->pid, &ps)) {
			s->target_gone = true;
			if (ps.exit_code >= 0)
				set_exit(s, (int)ps.exit_code);
		}
	} else if (rc == -ESRCH || (kill(s->pid, 0) && errno == ESRCH)) {
		s->target_gone = true;
	}
	return !s->target_gone;
}

const char *ap_session_exit_text(const struct ap_session *s, char *buf, size_t len)
{
	if (s->term_signal)
		snprintf(buf, len, "killed by signal %d (%s)", s->term_signal,
			 strsignal(s->term_signal));
	else if (s->exit_status >= 0)
		snprintf(buf, len, "status %d", s->exit_status);
	else if (!s->started)
		snprintf(buf, len, "status unknown: not our child");
	else
		snprintf(buf, len, "status unknown");
	return buf;
}

/* ---- start ---- */

/* -p: a process with user memory: not gone (-ESRCH), not a kernel thread nor a zombie
 * (-EINVAL). */
static int check_attachable(struct ap_session *s, char *err)
{
	struct ap_pstat ps;
	char e[AP_ERR_LEN];
	int rc = ap_procfs_stat(s->pid, &ps, e);

	if (rc) {
		if (rc == -ESRCH || (kill(s->pid, 0) && errno == ESRCH)) {
			ap_seterr(err, "process %d does not exist", s->pid);
			return -ESRCH;
		}
		return 0;	/* unreadable here: the probe says what it can */
	}
	s->start_time = ps.start_time;
	if (ps.flags & AP_PF_KTHREAD) {
		ap_seterr(err, "process %d (%s) is a kernel thread: it has no user memory to "
			  "profile", s->pid, ps.comm);
		return -EINVAL;
	}
	if (is_zombie(s->pid, &ps)) {
		ap_seterr(err, "process %d (%s) is a zombie: it has exited and holds no memory "
			  "(its parent, pid %d, has not reaped it)", s->pid, ps.comm, ps.ppid);
		return -EINVAL;
	}
	return 0;
}

/* "BINARY:SYMBOL[:ARG]": 0, or -EINVAL */
static int split_spec(char *spec, char **bin, char **sym, int *arg, bool want_arg)
{
	char *c1 = strchr(spec, ':'), *c2;

	if (!c1 || c1 == spec || !c1[1])
		return -EINVAL;
	*c1 = '\0';
	*bin = spec;
	*sym = c1 + 1;
	c2 = strchr(*sym, ':');
	if (c2) {
		uint64_t v;

		if (!want_arg)
			return -EINVAL;
		*c2 = '\0';
		if (ap_parse_u64(c2 + 1, 10, 0, 7, &v))
			return -EINVAL;
		*arg = (int)v;
	}
	return **sym ? 0 : -EINVAL;
}

/* --run-probe / --op-probe: 0, or -EINVAL with err */
static int attach_markers(struct ap_session *s, char *err)
{
	const char *run_spec = s->o.run_spec, *op_spec = s->o.op_spec;
	char *spec, *bin, *sym, e[AP_ERR_LEN];
	int arg = 0;

	if (run_spec) {
		spec = strdup(run_spec);
		if (!spec || split_spec(spec, &bin, &sym, &arg, false)) {
			ap_seterr(err, "--run-probe '%s' is not BINARY:SYMBOL", run_spec);
			free(spec);
			return -EINVAL;
		}
		if (ap_probe_attach_run(s->probe, bin, sym, false, e)) {
			ap_seterr(err, "--run-probe %s: %s", run_spec, e);
			free(spec);
			return -EINVAL;
		}
		free(spec);
		s->run_probe = true;
	}
	if (op_spec) {
		spec = strdup(op_spec);
		if (!spec || split_spec(spec, &bin, &sym, &arg, true)) {
			ap_seterr(err, "--op-probe '%s' is not BINARY:SYMBOL[:ARG] (ARG 0-7)",
				  op_spec);
			free(spec);
			return -EINVAL;
		}
		if (ap_probe_attach_op(s->probe, bin, sym, arg, e)) {
			ap_seterr(err, "--op-probe %s: %s", op_spec, e);
			free(spec);
			return -EINVAL;
		}
		free(spec);
	}
	return 0;
}

/*
 * procfs_only -p: the target's maps (and smaps_rollup, pagemap) are readable only with
 * the right to ptrace it, a process of one's own user: 0, or -EPERM with err.
 */
static int procfs_readable(struct ap_session *s, char *err)
{
	struct ap_maps m;
	struct stat st;
	char e[AP_ERR_LEN], path[64];
	int rc = ap_procfs_maps(s->pid, &m, e);

	if (!rc) {
		ap_maps_free(&m);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d", s->pid);
	if (rc == -EACCES || rc == -EPERM) {
		if (!stat(path, &st) && st.st_uid != geteuid())
			ap_seterr(err, "no permission: process %d belongs to uid %u, and without "
				  "root (or CAP_BPF and CAP_PERFMON) only your own processes can "
				  "be read", s->pid, (unsigned)st.st_uid);
		else
			ap_seterr(err, "cannot read process %d's mappings without root: %s",
				  s->pid, e);
		return -EPERM;
	}
	ap_seterr(err, "%s", e);
	return rc;
}

static void read_cmdline(int pid, char *buf, size_t len)
{
	char path[64];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", pid);
	f = fopen(path, "re");
	n = f ? fread(buf, 1, len - 1, f) : 0;
	if (f)
		fclose(f);
	for (size_t i = 0; i + 1 < n; i++)
		if (!buf[i])
			buf[i] = ' ';
	buf[n] = '\0';
	ap_name_clean(buf);	/* the target's arguments are anyone's text (escape.h) */
}

int ap_session_start(struct ap_session *s, const struct ap_session_opts *opts, char *err)
{
	struct ap_probe_opts po = { .method = opts->method, .ring_bytes = opts->ring_bytes,
				    .verbose = opts->verbose };
	char e[AP_ERR_LEN];
	int rc;

	memset(s, 0, sizeof(*s));
	s->o = *opts;
	if (!s->o.interval_ms)
		s->o.interval_ms = AP_SESSION_INTERVAL_MS;
	s->pid = opts->pid > 0 ? opts->pid : -1;
	s->exit_status = -1;
	s->child.release_fd = s->child.exec_err_fd = -1;
	s->started = opts->pid <= 0;
	if (s->started && (!opts->argv || !opts->argv[0])) {
		ap_seterr(err, "no command to start");
		return -EINVAL;
	}
	if (!s->started && opts->user) {
		ap_seterr(err, "--user is for a command started with --: -p attaches to a "
			  "process as it runs");
		return -EINVAL;
	}
	if (!s->started) {
		rc = check_attachable(s, err);
		if (rc)
			return rc;
	}
	if (s->started) {
		size_t len = 0;

		for (int i = 0; opts->argv[i] && len < sizeof(s->cmdline) - 1; i++)
			len += (size_t)snprintf(s->cmdline + len, sizeof(s->cmdline) - len,
						"%s%s", i ? " " : "", opts->argv[i]);
		struct ap_spawn_opts sp = { .outlive = opts->keep };

		if (opts->user) {
			if (ap_spawn_user_lookup(opts->user, &s->user, err))
				return -EINVAL;
			s->have_user = true;
			sp.user = &s->user;
		}
		/* held until the tracer is attached: its first fault is seen */
		rc = ap_spawn_held(&s->child, opts->argv, &sp);
		if (rc) {
			ap_seterr(err, "cannot start %s: %s", opts->argv[0], strerror(-rc));
			ap_session_free(s);
			return -EAGAIN;
		}
		s->pid = s->child.pid;
	} else {
		read_cmdline(s->pid, s->cmdline, sizeof(s->cmdline));
	}

	po.pid = s->pid;
	if (s->o.procfs_only && (s->o.run_spec || s->o.op_spec)) {
		ap_seterr(err, "--run-probe and --op-probe need BPF: not without it");
		ap_session_free(s);
		return -EINVAL;
	}
	s->o.arena_mode = s->o.procfs_only ? 0 : s->o.arena_mode;
	if (s->o.procfs_only && !s->started) {
		rc = procfs_readable(s, err);
		if (rc) {
			ap_session_free(s);
			return rc;
		}
	}
	if (!s->o.procfs_only && ap_probe_open(&s->probe, &po, e)) {
		ap_seterr(err, "%s%s", geteuid() ? "no permission to load BPF (run as root, or "
			  "give CAP_BPF and CAP_PERFMON): " : "", e);
		ap_session_free(s);
		return -EPERM;
	}
	rc = s->probe ? attach_markers(s, err) : 0;
	if (rc) {
		ap_session_free(s);
		return rc;
	}
	/* --runs N: the N-th run's end is not left in a batch (the target runs on) */
	if (s->o.runs_limit && s->probe)
		ap_probe_set_wake_runs(s->probe, s->o.runs_limit > UINT32_MAX ? UINT32_MAX :
				       (uint32_t)s->o.runs_limit);
	if (ap_cg_session_open(&s->cg, s->pid, e))
		s->cg = NULL;	/* the target is gone: the first step notices */
	uname(&s->uts);
	s->t_start_ns = ap_clock_ns(CLOCK_MONOTONIC);
	s->t_start_real_ns = ap_clock_ns(CLOCK_REALTIME);
	return 0;
}

void ap_session_header(struct ap_session *s, struct ap_rec_header *h,
		       const char *strings[AP_HS_COUNT])
{
	memset(h, 0, sizeof(*h));
	h->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	h->flags = s->started ? AP_HDR_STARTED : AP_HDR_ATTACHED;
	h->clock_base_ns = s->t_start_ns;
	h->realtime_base_ns = s->t_start_real_ns;
	h->pid = s->pid;
	strings[AP_HS_ARCH] = s->uts.machine;
	strings[AP_HS_KERNEL] = s->uts.release;
	strings[AP_HS_METHOD] = s->probe ? ap_method_name(ap_probe_method(s->probe)) : "none";
	strings[AP_HS_CMDLINE] = s->cmdline;
	strings[AP_HS_RUN_PROBE] = s->o.run_spec ? s->o.run_spec : "";
	strings[AP_HS_OP_PROBE] = s->o.op_spec ? s->o.op_spec : "";
}

int ap_session_release(struct ap_session *s, const struct ap_session_sink *sink)
{
	int rc = 0;

	s->sink = sink;
	s->alloc = (struct ap_alloc_probe){
		.probe = s->probe, .mode = s->o.arena_mode, .arena_addr = s->o.arena_addr,
		.alloc_min = s->o.alloc_min, .started = s->started,
		.note = alloc_note, .event = alloc_event, .ctx = s,
	};
	if (s->probe && ap_probe_auto_skipped(s->probe)[0])
		ap_session_note(s, AP_NOTE_SETUP, "fault source: %s, chosen by --probe auto "
				"after: %s",
				ap_method_name(ap_probe_method(s->probe)),
				ap_probe_auto_skipped(s->probe));
	ap_alloc_probe_start(&s->alloc);
	if (s->o.dmabuf && !s->dmabuf) {
		s->dmabuf = calloc(1, sizeof(*s->dmabuf));
		if (s->dmabuf)
			ap_dmabuf_sampler_init(s->dmabuf, s->o.interval_ms, s->pid);
	}
	if (!s->started) {
		snapshot_maps(s, !s->o.run_spec);
		send_resident(s);
		if (!target_alive(s))
			ap_session_note(s, 1, "process %d exited during attach", s->pid);
	} else {
		int e = ap_spawn_release(&s->child);

		if (e && s->have_user && strcmp(s->child.failed_at, "exec")) {
			ap_session_note(s, 2, "cannot run %s as %s: %s: %s", s->o.argv[0],
					s->user.name, s->child.failed_at, strerror(-e));
			s->end_reason = AP_END_ERROR;
			rc = e;
			target_alive(s);
		} else if (e) {
			ap_session_note(s, 2, "cannot run %s: %s", s->o.argv[0], strerror(-e));
			s->end_reason = AP_END_ERROR;
			rc = e;
			target_alive(s);
		}
		if (!e && s->have_user)
			ap_session_note(s, AP_NOTE_SETUP, "%s runs as user %s (uid %u, gid "
					"%u); the probes stay with the recorder", s->o.argv[0],
					s->user.name,
					(unsigned)s->user.uid, (unsigned)s->user.gid);
		if (!s->end_reason)
			snapshot_maps(s, !s->o.run_spec);
	}
	if (s->o.runs_limit && !s->run_probe && !s->o.run_spec)
		ap_session_note(s, AP_NOTE_SETUP, "--runs %" PRIu64 " waits for a run probe: "
				"none attached yet (looking for LiteRT's Invoke as libraries are "
				"mapped)",
				s->o.runs_limit);
	s->t_next = ap_clock_ns(CLOCK_MONOTONIC);
	if (s->o.duration_ns)
		s->t_end = s->t_next + s->o.duration_ns;
	return rc;
}

/* ---- the loop ---- */

int ap_session_step(struct ap_session *s, int max_wait_ms)
{
	uint64_t now = ap_clock_ns(CLOCK_MONOTONIC);
	char err[AP_ERR_LEN];
	int n, wait_ms;

	if (s->end_reason || s->failed)
		return 0;
	if (s->o.stop && *s->o.stop) {
		s->end_reason = AP_END_SIGNAL;
		return 0;
	}
	if (now >= s->t_next) {
		if (!target_alive(s)) {
			s->end_reason = AP_END_TARGET_EXIT;
			return 0;
		}
		snapshot_maps(s, !s->o.run_spec);
		sample(s, now);
		if (s->probe)
			ap_probe_flush(s->probe);	/* read at the poll below */
		send_counters(s, false);
		SEND(s, flush);
		s->t_next = now + (uint64_t)s->o.interval_ms * 1000000ULL;
	}
	if (s->t_end && now >= s->t_end) {
		s->end_reason = AP_END_DURATION;
		return 0;
	}
	wait_ms = (int)((s->t_next - now) / 1000000ULL) + 1;
	if (max_wait_ms >= 0 && wait_ms > max_wait_ms)
		wait_ms = max_wait_ms;
	/* a stale snapshot held back by the rate limit is due in at most 2 ms: do not sleep
	 * past it, or a short-lived mapping (or process) goes unnamed */
	if (s->maps_stale && wait_ms > (int)(STALE_SNAPSHOT_NS / 1000000ULL) + 1)
		wait_ms = (int)(STALE_SNAPSHOT_NS / 1000000ULL) + 1;
	if (s->probe) {
		n = ap_probe_poll(s->probe, wait_ms, on_event, s, err);
	} else {	/* procfs_only: nothing to poll but the clock */
		n = poll(NULL, 0, wait_ms) < 0 && errno != EINTR ? -errno : 0;
		if (n)
			ap_seterr(err, "%s", strerror(-n));
	}
	if (s->maps_stale && ap_clock_ns(CLOCK_MONOTONIC) - s->last_snapshot > STALE_SNAPSHOT_NS)
		snapshot_maps(s, !s->o.run_spec);
	if (n < 0 && !(s->o.stop && *s->o.stop)) {
		ap_session_note(s, 2, "polling the ring buffer failed: %s", err);
		s->end_reason = AP_END_ERROR;
	}
	return !s->end_reason && !s->failed;
}

void ap_session_stop(struct ap_session *s, uint32_t reason)
{
	char err[AP_ERR_LEN];

	if (!s->end_reason)
		s->end_reason = reason;
	if (s->stopped)
		return;
	s->stopped = true;
	/* drain what the kernel already queued, the faults it still batched too */
	if (!s->failed && s->probe) {
		bool tail = s->end_reason == AP_END_RUNS;
		int (*cb)(void *, const struct ap_event *) = tail ? on_tail_event : on_event;

		ap_probe_flush(s->probe);
		/* after --runs N the target runs on: what the flush sent, not all it does next */
		for (int i = 0; (!tail || i < 16) && !s->failed; i++)
			if (ap_probe_poll(s->probe, 0, cb, s, err) <= 0)
				break;
	}
	if (s->end_reason == AP_END_RUNS && s->started && s->o.kill_at_runs &&
	    target_alive(s)) {
		int st;

		s->ended_by_stop = true;
		kill(s->pid, SIGTERM);
		for (int i = 0; i < 200 && target_alive(s); i++)
			usleep(10000);
		if (target_alive(s)) {
			kill(s->pid, SIGKILL);
			if (waitpid(s->pid, &st, 0) == s->pid)
				set_exit(s, st);
		}
	} else if (s->end_reason == AP_END_RUNS) {
		/* the command goes on to its own end, its output whole (ap_session_wait) */
	} else if (s->started && s->end_reason != AP_END_TARGET_EXIT && !s->o.keep &&
		   target_alive(s)) {
		/* interrupted: the command we started goes too */
		s->ended_by_stop = true;
		kill(s->pid, SIGTERM);
		for (int i = 0; i < 200 && target_alive(s); i++)
			usleep(10000);
	}
	send_counters(s, true);
	stop_dmabuf(s);
	ap_alloc_probe_stop(&s->alloc, s->have_maps);
	if (!s->probe)
		return;		/* procfs_only: no probe was looked for */
	if (!s->run_probe && !s->o.run_spec)
		ap_session_note(s, 0, "no run probe: no LiteRT invoke entry point was found in "
				"the target's mapped ELF files; pass --run-probe BINARY:SYMBOL");
	else if (!s->o.run_spec && !s->runs && s->end_reason == AP_END_TARGET_EXIT)
		ap_session_note(s, 0, "no run was counted through the run entry points found "
				"(the notes name them); a program that runs its model through "
				"another (C++ tflite::Interpreter::Invoke in a library that also "
				"holds CompiledModel) needs --run-probe BINARY:SYMBOL");
}

void ap_session_end(const struct ap_session *s, struct ap_rec_end *end)
{
	*end = (struct ap_rec_end){ .ts_ns = ap_clock_ns(CLOCK_MONOTONIC), .reason = s->end_reason,
				    .exit_status = s->exit_status,
				    .term_signal = s->term_signal, .runs = (uint32_t)s->runs };
}

void ap_session_detach(struct ap_session *s)
{
	ap_probe_close(s->probe);
	s->probe = NULL;
	s->alloc.probe = NULL;
	ap_cg_session_close(s->cg);
	s->cg = NULL;
}

int ap_session_wait(struct ap_session *s, volatile sig_atomic_t *n_signals,
		    volatile sig_atomic_t *pass_on, sig_atomic_t seen)
{
	static volatile sig_atomic_t none;
	int st, rc;

	if (!s->started || s->target_gone || s->o.keep || s->end_reason != AP_END_RUNS)
		return 0;
	rc = ap_spawn_wait(s->pid, n_signals ? n_signals : &none, seen,
			   pass_on ? pass_on : &none, &st);
	if (!rc)
		set_exit(s, st);
	return rc;
}

void ap_session_free(struct ap_session *s)
{
	ap_cg_session_close(s->cg);
	s->cg = NULL;
	ap_probe_close(s->probe);
	s->probe = NULL;
	ap_spawn_abandon(&s->child);	/* never released: it exits without exec */
	if (s->have_user)
		ap_spawn_user_free(&s->user);
	s->have_user = false;
	if (s->have_maps)
		ap_maps_free(&s->maps);
	s->have_maps = false;
	for (size_t i = 0; i < s->n_checked; i++)
		free(s->checked[i]);
	free(s->checked);
	s->checked = NULL;
	s->n_checked = 0;
	ap_alloc_probe_free(&s->alloc);
	if (s->dmabuf)
		ap_dmabuf_sampler_free(s->dmabuf);
	free(s->dmabuf);
	s->dmabuf = NULL;
}

int ap_session_parse_opt(struct ap_session_opts *so, int c, const char *arg)
{
	uint64_t sz;

	switch (c) {
	case 'p':
		return ap_parse_pid(arg, &so->pid) ? -EINVAL : 1;
	case 'm':
		return ap_method_parse(arg, &so->method) ? -EINVAL : 1;
	case 'R':
		so->run_spec = arg;
		return 1;
	case 'O':
		so->op_spec = arg;
		return 1;
	case 's':
		if (ap_parse_size(arg, &sz) || sz < 4096 || sz > (1ULL << 31))
			return -EINVAL;
		so->ring_bytes = (uint32_t)sz;
		return 1;
	case 'v':
		so->verbose = true;
		return 1;
	default:
		return 0;
	}
}

const char *ap_opt_name(char **argv, int optind, const char *optarg)
{
	/* "--opt value": the value is argv[optind - 1] itself; "--opt=value": it is inside */
	if (optind >= 2 && argv[optind - 1] == optarg)
		return argv[optind - 2];
	return argv[optind - 1];
}
