// SPDX-License-Identifier: Apache-2.0
/*
 * arenaprof record: traces the page faults of a process (started here, stopped until the
 * tracer is attached, or attached with -p) into a trace file, with run/op markers and
 * /proc samples, until the target exits, N runs complete, the duration ends or a signal
 * arrives. Every stop finalises the trace.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "arenaprof/cmd.h"
#include "arenaprof/err.h"
#include "arenaprof/event.h"
#include "arenaprof/probe.h"
#include "arenaprof/procfs.h"
#include "arenaprof/symbols.h"
#include "arenaprof/trace.h"
#include "arenaprof/units.h"

#define DEFAULT_RING (8u << 20)
#define MAX_RESIDENT_MAP (64ULL << 30)	/* bitmaps above this are left out, with a note */

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct recorder {
	struct ap_probe *probe;
	struct ap_trace_writer w;
	int pid;
	bool started;		/* record -- CMD */
	bool keep;
	bool target_gone;
	int exit_status, term_signal;
	uint64_t runs, runs_limit;
	uint64_t faults;
	uint32_t snapshot;
	struct ap_maps maps;
	bool have_maps;
	bool maps_stale;	/* a fault hit a vma the last snapshot does not have */
	uint64_t last_snapshot;
	bool run_probe;		/* a run probe is attached */
	char **checked;		/* ELF files searched for a LiteRT entry point */
	size_t n_checked;
	struct ap_counters counters;
	uint32_t end_reason;
	char err[AP_ERR_LEN];
	bool failed;		/* a trace write failed */
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int wr(struct recorder *r, uint32_t type, const void *p, uint32_t len)
{
	if (r->failed)
		return -1;
	if (ap_trace_write(&r->w, type, p, len, r->err)) {
		r->failed = true;
		return -1;
	}
	return 0;
}

static void note(struct recorder *r, uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A note goes into the trace and, as one line, to stderr. */
static void note(struct recorder *r, uint32_t level, const char *fmt, ...)
{
	struct ap_rec_note n = { .ts_ns = now_ns(CLOCK_MONOTONIC), .level = level };
	char text[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	fprintf(stderr, "arenaprof record: %s%s\n", level ? "warning: " : "", text);
	if (!r->failed && ap_trace_write_str(&r->w, AP_REC_NOTE, &n, sizeof(n), text, r->err))
		r->failed = true;
}

static int on_event(void *ctx, const struct ap_event *ev)
{
	struct recorder *r = ctx;

	switch (ev->type) {
	case AP_EV_FAULT: {
		struct ap_rec_fault f = {
			.ts_ns = ev->ts_ns, .addr = ev->addr, .ip = ev->ip,
			.vm_start = ev->vm_start, .vm_end = ev->vm_end, .vm_flags = ev->vm_flags,
			.tid = ev->tid, .flags = ev->flags, .run = ev->run, .op = ev->op,
		};

		r->faults++;
		if (r->have_maps && !r->maps_stale && !(ev->flags & AP_FF_VMA_UNKNOWN)) {
			const struct ap_map *m = ap_maps_find(&r->maps, ev->addr);

			/* a new or resized mapping: snapshot it while it still exists */
			if (!m || m->start != ev->vm_start || m->end != ev->vm_end)
				r->maps_stale = true;
		}
		return wr(r, AP_REC_FAULT, &f, sizeof(f));
	}
	case AP_EV_RUN_BEGIN:
	case AP_EV_RUN_END:
	case AP_EV_OP_BEGIN:
	case AP_EV_OP_END: {
		static const uint32_t type[] = {
			[AP_EV_RUN_BEGIN] = AP_REC_RUN_BEGIN, [AP_EV_RUN_END] = AP_REC_RUN_END,
			[AP_EV_OP_BEGIN] = AP_REC_OP_BEGIN, [AP_EV_OP_END] = AP_REC_OP_END,
		};
		struct ap_rec_marker m = { .ts_ns = ev->ts_ns, .tid = ev->tid, .run = ev->run,
					   .op = ev->type >= AP_EV_OP_BEGIN ? ev->op : -1 };

		if (wr(r, type[ev->type], &m, sizeof(m)))
			return -1;
		if (ev->type == AP_EV_RUN_END && ++r->runs >= r->runs_limit && r->runs_limit) {
			r->end_reason = AP_END_RUNS;
			return 1;	/* stop polling: the requested runs are done */
		}
		return 0;
	}
	default:
		return 0;
	}
}

static bool already_checked(struct recorder *r, const char *path)
{
	char **p;

	for (size_t i = 0; i < r->n_checked; i++)
		if (!strcmp(r->checked[i], path))
			return true;
	p = realloc(r->checked, (r->n_checked + 1) * sizeof(*p));
	if (p) {
		r->checked = p;
		r->checked[r->n_checked] = strdup(path);
		if (r->checked[r->n_checked])
			r->n_checked++;
	}
	return false;
}

/* Without --run-probe: LiteRT's invoke entry point in any newly mapped ELF file. */
static void find_run_probe(struct recorder *r)
{
	for (size_t i = 0; i < r->maps.n && !r->run_probe; i++) {
		const struct ap_map *m = &r->maps.m[i];
		char sym[256], err[AP_ERR_LEN];

		if (!(m->prot & 4) || m->path[0] != '/' || already_checked(r, m->path))
			continue;
		if (ap_symbols_find_invoke(m->path, sym, sizeof(sym)) != 1)
			continue;
		if (ap_probe_attach_run(r->probe, m->path, sym, err)) {
			note(r, 1, "found %s in %s but could not attach to it: %s", sym, m->path,
			     err);
			continue;
		}
		r->run_probe = true;
		note(r, 0, "run probe: %s:%s (LiteRT entry point found automatically)", m->path,
		     sym);
	}
}

/* The target's mappings, written as a new snapshot when they changed. */
static void snapshot_maps(struct recorder *r, bool auto_probe)
{
	struct ap_maps now = { 0 };
	char err[AP_ERR_LEN];
	uint64_t ts = now_ns(CLOCK_MONOTONIC);

	r->maps_stale = false;
	r->last_snapshot = ts;
	if (ap_procfs_maps(r->pid, &now, err))
		return;		/* the target is exiting; its exit is noticed elsewhere */
	if (r->have_maps && ap_maps_equal(&now, &r->maps)) {
		ap_maps_free(&now);
		return;
	}
	r->snapshot++;
	for (size_t i = 0; i < now.n; i++) {
		const struct ap_map *m = &now.m[i];
		struct ap_rec_mapping mr = {
			.ts_ns = ts, .start = m->start, .end = m->end, .offset = m->offset,
			.inode = m->inode, .snapshot = r->snapshot, .prot = m->prot,
			.dev_major = m->dev_major, .dev_minor = m->dev_minor,
		};

		if (!r->failed && ap_trace_write_str(&r->w, AP_REC_MAPPING, &mr, sizeof(mr),
						     m->path, r->err))
			r->failed = true;
	}
	if (r->have_maps)
		ap_maps_free(&r->maps);
	r->maps = now;
	r->have_maps = true;
	if (auto_probe)
		find_run_probe(r);
}

static void sample(struct recorder *r)
{
	struct ap_rec_sample s;
	struct ap_status st;
	struct ap_smaps sm;
	char err[AP_ERR_LEN];

	memset(&s, 0xff, sizeof(s));	/* every field AP_NO_VALUE until read */
	s.ts_ns = now_ns(CLOCK_MONOTONIC);
	if (!ap_procfs_status(r->pid, &st, err)) {
		s.vm_rss = st.vm_rss;
		s.vm_hwm = st.vm_hwm;
		s.rss_anon = st.rss_anon;
		s.rss_file = st.rss_file;
		s.rss_shmem = st.rss_shmem;
	}
	if (!ap_procfs_smaps_rollup(r->pid, &sm, err)) {
		s.rss = sm.rss;
		s.pss = sm.pss;
		s.pss_anon = sm.pss_anon;
		s.pss_file = sm.pss_file;
		s.pss_shmem = sm.pss_shmem;
		s.anonymous = sm.anonymous;
		s.anon_huge = sm.anon_huge;
		s.swap = sm.swap;
	}
	if (s.vm_rss != AP_NO_VALUE || s.rss != AP_NO_VALUE)
		wr(r, AP_REC_SAMPLE, &s, sizeof(s));
}

static void write_counters(struct recorder *r, bool force)
{
	struct ap_counters c;
	struct ap_rec_drops d;

	ap_probe_counters(r->probe, &c);
	if (!force && !memcmp(&c, &r->counters, sizeof(c)))
		return;
	r->counters = c;
	d = (struct ap_rec_drops){ .ts_ns = now_ns(CLOCK_MONOTONIC), .events = c.events,
				   .ringbuf_drops = c.ringbuf_drops,
				   .vma_misses = c.vma_misses, .retries = c.retries };
	wr(r, AP_REC_DROPS, &d, sizeof(d));
}

/* -p: which pages of each mapping were already resident when the tracer attached. */
static void record_resident(struct recorder *r)
{
	for (size_t i = 0; i < r->maps.n; i++) {
		const struct ap_map *m = &r->maps.m[i];
		struct ap_rec_resident rr = { .ts_ns = now_ns(CLOCK_MONOTONIC),
					      .start = m->start, .end = m->end };
		struct ap_residency res = { 0 };
		char err[AP_ERR_LEN];
		uint8_t *buf;
		size_t nb;

		if (!strcmp(m->path, "[vsyscall]"))
			continue;
		if (m->end - m->start > MAX_RESIDENT_MAP) {
			note(r, 1, "mapping %" PRIx64 "-%" PRIx64 " is too large to record its "
			     "resident pages at attach", m->start, m->end);
			continue;
		}
		if (ap_procfs_residency(r->pid, m->start, m->end, true, &res, err))
			continue;
		rr.present = res.present;
		nb = (size_t)((res.pages + 7) / 8);
		buf = malloc(sizeof(rr) + nb);
		if (buf && res.present) {
			memcpy(buf, &rr, sizeof(rr));
			memcpy(buf + sizeof(rr), res.bitmap, nb);
			wr(r, AP_REC_RESIDENT, buf, (uint32_t)(sizeof(rr) + nb));
		}
		free(buf);
		free(res.bitmap);
	}
}

static bool target_alive(struct recorder *r)
{
	if (r->target_gone)
		return false;
	if (r->started) {
		int st;
		pid_t w = waitpid(r->pid, &st, WNOHANG);

		if (w == r->pid && (WIFEXITED(st) || WIFSIGNALED(st))) {
			r->target_gone = true;
			r->exit_status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
			r->term_signal = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
		}
	} else if (kill(r->pid, 0) && errno == ESRCH) {
		r->target_gone = true;
		r->exit_status = -1;
	}
	return !r->target_gone;
}

/* fork the command, stopped on a pipe until the tracer is attached */
static int spawn(char **argv, int *release_fd, int *exec_err_fd)
{
	int go[2], er[2];
	pid_t pid;

	if (pipe2(go, O_CLOEXEC) || pipe2(er, O_CLOEXEC))
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char c;
		int e;

		close(go[1]);
		close(er[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* the recorder gave up before attaching */
		execvp(argv[0], argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	*release_fd = go[1];
	*exec_err_fd = er[0];
	return pid;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof record [-p PID | -- CMD ARGS...] -o TRACE [--runs N] [--duration S]\n"
		"                        [--probe auto|tp|fentry|perf] [--run-probe BINARY:SYMBOL]\n"
		"                        [--op-probe BINARY:SYMBOL[:ARG]] [--interval MS]\n"
		"                        [--ring-size SIZE] [--keep] [-v]\n\n"
		"Traces every page fault of a process into TRACE (see arenaprof-trace(5)).\n"
		"  -- CMD ARGS      start CMD, attach before it runs: no first touch is missed\n"
		"  -p PID           attach to a running process; pages already resident are recorded\n"
		"  --runs N         stop after N completed runs (needs a run probe)\n"
		"  --duration S     stop after S seconds\n"
		"  --probe M        fault source: auto (tp, then fentry, then perf), tp, fentry, perf\n"
		"  --run-probe B:S  a function performing one inference (entry = run begins);\n"
		"                   default: LiteRT's Invoke, looked up in the target's ELF files\n"
		"  --op-probe B:S:A a function called per operator, its argument A (0-based) the\n"
		"                   operator index\n"
		"  --interval MS    /proc samples and mapping snapshots (default 100)\n"
		"  --ring-size SIZE BPF ring buffer (default 8M); drops are always reported\n"
		"  --keep           with -- CMD and --runs: leave the command running at the end\n"
		"  -v               libbpf diagnostics\n");
}

/* "BINARY:SYMBOL[:ARG]" */
static int split_spec(char *spec, char **bin, char **sym, int *arg, bool want_arg)
{
	char *c1 = strchr(spec, ':'), *c2;

	if (!c1 || c1 == spec || !c1[1])
		return -1;
	*c1 = '\0';
	*bin = spec;
	*sym = c1 + 1;
	c2 = strchr(*sym, ':');
	if (c2) {
		char *end;
		long v;

		if (!want_arg)
			return -1;
		*c2 = '\0';
		v = strtol(c2 + 1, &end, 10);
		if (*end || end == c2 + 1 || v < 0 || v > 7)
			return -1;
		*arg = (int)v;
	}
	return **sym ? 0 : -1;
}

int cmd_record(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "pid", required_argument, NULL, 'p' },
		{ "output", required_argument, NULL, 'o' },
		{ "runs", required_argument, NULL, 'n' },
		{ "duration", required_argument, NULL, 'd' },
		{ "probe", required_argument, NULL, 'm' },
		{ "run-probe", required_argument, NULL, 'R' },
		{ "op-probe", required_argument, NULL, 'O' },
		{ "interval", required_argument, NULL, 'i' },
		{ "ring-size", required_argument, NULL, 's' },
		{ "keep", no_argument, NULL, 'k' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	struct ap_probe_opts po = { .method = AP_METHOD_NONE, .ring_bytes = DEFAULT_RING };
	struct recorder r = { .pid = -1, .exit_status = -1 };
	char *out = NULL, *run_spec = NULL, *op_spec = NULL, cmdline[1024] = "";
	char err[AP_ERR_LEN];
	double duration = 0;
	long interval_ms = 100;
	int release_fd = -1, exec_err_fd = -1, rc = AP_EXIT_RUNTIME, c;
	uint64_t t_end = 0, t_next;
	struct sigaction sa = { .sa_handler = on_signal };
	struct ap_rec_header hdr = { 0 };
	struct ap_rec_end end = { 0 };
	struct utsname uts;
	const char *strings[6];

	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+p:o:n:d:m:R:O:i:s:kvh", opts, NULL)) != -1) {
		char *e = NULL;

		switch (c) {
		case 'p':
			r.pid = (int)strtol(optarg, &e, 10);
			if (*e || r.pid <= 0)
				goto bad_value;
			break;
		case 'o': out = optarg; break;
		case 'n':
			r.runs_limit = strtoull(optarg, &e, 10);
			if (*e || !r.runs_limit || optarg[0] == '-')
				goto bad_value;
			break;
		case 'd':
			duration = strtod(optarg, &e);
			if (*e || duration <= 0)
				goto bad_value;
			break;
		case 'm':
			if (ap_method_parse(optarg, &po.method))
				goto bad_value;
			break;
		case 'R': run_spec = optarg; break;
		case 'O': op_spec = optarg; break;
		case 'i':
			interval_ms = strtol(optarg, &e, 10);
			if (*e || interval_ms < 1 || interval_ms > 60000)
				goto bad_value;
			break;
		case 's': {
			uint64_t v;

			if (ap_parse_size(optarg, &v) || v < 4096 || v > (1ULL << 31))
				goto bad_value;
			po.ring_bytes = (uint32_t)v;
			break;
		}
		case 'k': r.keep = true; break;
		case 'v': po.verbose = true; break;
		case 'h': usage(stdout); return AP_EXIT_OK;
		default:
			fprintf(stderr, "arenaprof record: bad option or missing value: '%s' "
				"(see 'arenaprof record --help')\n", argv[optind - 1]);
			return AP_EXIT_USAGE;
		}
		continue;
bad_value:
		fprintf(stderr, "arenaprof record: bad value '%s' for %s\n", optarg,
			argv[optind - 1]);
		return AP_EXIT_USAGE;
	}
	if (!out || (r.pid > 0) == (optind < argc)) {
		fprintf(stderr, "arenaprof record: needs -o TRACE and either -p PID or -- CMD "
			"(see 'arenaprof record --help')\n");
		return AP_EXIT_USAGE;
	}
	r.started = r.pid <= 0;
	if (!r.started && kill(r.pid, 0) && errno == ESRCH) {
		fprintf(stderr, "arenaprof record: process %d does not exist\n", r.pid);
		return AP_EXIT_USAGE;
	}
	if (r.started) {
		size_t len = 0;

		for (int i = optind; i < argc && len < sizeof(cmdline) - 1; i++)
			len += (size_t)snprintf(cmdline + len, sizeof(cmdline) - len, "%s%s",
						i > optind ? " " : "", argv[i]);
		r.pid = spawn(argv + optind, &release_fd, &exec_err_fd);
		if (r.pid < 0) {
			fprintf(stderr, "arenaprof record: cannot start %s: %s\n", argv[optind],
				strerror(errno));
			return AP_EXIT_RUNTIME;
		}
	} else {
		char path[64];
		FILE *f;
		size_t n;

		snprintf(path, sizeof(path), "/proc/%d/cmdline", r.pid);
		f = fopen(path, "r");
		n = f ? fread(cmdline, 1, sizeof(cmdline) - 1, f) : 0;
		if (f)
			fclose(f);
		for (size_t i = 0; i + 1 < n; i++)
			if (!cmdline[i])
				cmdline[i] = ' ';
		cmdline[n] = '\0';
	}

	po.pid = r.pid;
	if (ap_probe_open(&r.probe, &po, err)) {
		fprintf(stderr, "arenaprof record: %s%s\n", geteuid() ? "no permission to "
			"load BPF (run as root, or give CAP_BPF and CAP_PERFMON): " : "", err);
		goto out_kill;
	}
	if (run_spec) {
		char *spec = strdup(run_spec), *bin, *sym;
		int arg = 0;

		if (!spec || split_spec(spec, &bin, &sym, &arg, false)) {
			fprintf(stderr, "arenaprof record: --run-probe '%s' is not BINARY:SYMBOL\n",
				run_spec);
			free(spec);
			rc = AP_EXIT_USAGE;
			goto out_probe;
		}
		if (ap_probe_attach_run(r.probe, bin, sym, err)) {
			fprintf(stderr, "arenaprof record: --run-probe %s: %s\n", run_spec, err);
			free(spec);
			rc = AP_EXIT_USAGE;
			goto out_probe;
		}
		free(spec);
		r.run_probe = true;
	}
	if (op_spec) {
		char *spec = strdup(op_spec), *bin, *sym;
		int arg = 0;

		if (!spec || split_spec(spec, &bin, &sym, &arg, true)) {
			fprintf(stderr, "arenaprof record: --op-probe '%s' is not "
				"BINARY:SYMBOL[:ARG] (ARG 0-7)\n", op_spec);
			free(spec);
			rc = AP_EXIT_USAGE;
			goto out_probe;
		}
		if (ap_probe_attach_op(r.probe, bin, sym, arg, err)) {
			fprintf(stderr, "arenaprof record: --op-probe %s: %s\n", op_spec, err);
			free(spec);
			rc = AP_EXIT_USAGE;
			goto out_probe;
		}
		free(spec);
	}

	uname(&uts);
	hdr.page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	hdr.flags = r.started ? AP_HDR_STARTED : AP_HDR_ATTACHED;
	hdr.clock_base_ns = now_ns(CLOCK_MONOTONIC);
	hdr.realtime_base_ns = now_ns(CLOCK_REALTIME);
	hdr.pid = r.pid;
	strings[0] = uts.machine;
	strings[1] = uts.release;
	strings[2] = ap_method_name(ap_probe_method(r.probe));
	strings[3] = cmdline;
	strings[4] = run_spec ? run_spec : "";
	strings[5] = op_spec ? op_spec : "";
	if (ap_trace_create(&r.w, out, &hdr, strings, err)) {
		fprintf(stderr, "arenaprof record: %s\n", err);
		rc = AP_EXIT_USAGE;
		goto out_probe;
	}
	fprintf(stderr, "arenaprof record: tracing pid %d with %s; writing %s\n", r.pid,
		strings[2], out);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (!r.started) {
		snapshot_maps(&r, !run_spec);
		record_resident(&r);
		if (!target_alive(&r))
			note(&r, 1, "process %d exited during attach", r.pid);
	} else {
		int e = 0;

		/* let the command exec; a CLOEXEC pipe that closes empty means it did */
		if (write(release_fd, "x", 1) != 1 ||
		    read(exec_err_fd, &e, sizeof(e)) == (ssize_t)sizeof(e)) {
			note(&r, 2, "cannot run %s: %s", argv[optind], strerror(e ? e : errno));
			r.end_reason = AP_END_ERROR;
			rc = AP_EXIT_USAGE;
			target_alive(&r);
		}
		close(release_fd);
		close(exec_err_fd);
		release_fd = -1;
		if (!r.end_reason)
			snapshot_maps(&r, !run_spec);
	}
	if (r.runs_limit && !r.run_probe && run_spec == NULL)
		note(&r, 0, "--runs %" PRIu64 " waits for a run probe: none attached yet "
		     "(looking for LiteRT's Invoke as libraries are mapped)", r.runs_limit);

	t_next = now_ns(CLOCK_MONOTONIC);
	if (duration > 0)
		t_end = t_next + (uint64_t)(duration * 1e9);
	while (!r.end_reason && !r.failed) {
		uint64_t now = now_ns(CLOCK_MONOTONIC);
		int n;

		if (stop_signal) {
			r.end_reason = AP_END_SIGNAL;
			break;
		}
		if (now >= t_next) {
			if (!target_alive(&r)) {
				r.end_reason = AP_END_TARGET_EXIT;
				break;
			}
			snapshot_maps(&r, !r.run_probe);
			sample(&r);
			write_counters(&r, false);
			if (ap_trace_flush(&r.w, r.err))
				r.failed = true;
			t_next = now + (uint64_t)interval_ms * 1000000ULL;
		}
		if (t_end && now >= t_end) {
			r.end_reason = AP_END_DURATION;
			break;
		}
		n = ap_probe_poll(r.probe, (int)((t_next - now) / 1000000ULL) + 1, on_event, &r,
				  err);
		/* new mappings are named as soon as they fault, at most every 2 ms */
		if (r.maps_stale && now_ns(CLOCK_MONOTONIC) - r.last_snapshot > 2000000ULL)
			snapshot_maps(&r, !r.run_probe);
		if (n < 0 && !stop_signal) {
			note(&r, 2, "polling the ring buffer failed: %s", err);
			r.end_reason = AP_END_ERROR;
		}
	}
	/* drain what the kernel already queued */
	if (!r.failed && r.end_reason != AP_END_RUNS)
		while (ap_probe_poll(r.probe, 0, on_event, &r, err) > 0 && !r.failed)
			;
	if (r.end_reason == AP_END_RUNS && r.started && !r.keep) {
		kill(r.pid, SIGTERM);
		for (int i = 0; i < 200 && target_alive(&r); i++)
			usleep(10000);
		if (target_alive(&r)) {
			kill(r.pid, SIGKILL);
			waitpid(r.pid, NULL, 0);
		}
	} else if (r.started && r.end_reason != AP_END_TARGET_EXIT && !r.keep &&
		   target_alive(&r)) {
		/* interrupted: the command we started goes too */
		kill(r.pid, SIGTERM);
		for (int i = 0; i < 200 && target_alive(&r); i++)
			usleep(10000);
	}
	write_counters(&r, true);
	if (!r.run_probe && !run_spec)
		note(&r, 0, "no run probe: no LiteRT invoke entry point was found in the "
		     "target's mapped ELF files; pass --run-probe BINARY:SYMBOL");
	end = (struct ap_rec_end){ .ts_ns = now_ns(CLOCK_MONOTONIC), .reason = r.end_reason,
				   .exit_status = r.exit_status, .term_signal = r.term_signal,
				   .runs = (uint32_t)r.runs };
	wr(&r, AP_REC_END, &end, sizeof(end));
	if (r.failed) {
		fprintf(stderr, "arenaprof record: writing %s failed: %s; the trace holds every "
			"whole record before the failure\n", out, r.err);
		ap_trace_close(&r.w, err);
		rc = AP_EXIT_RUNTIME;
		goto out_probe;
	}
	if (ap_trace_close(&r.w, err)) {
		fprintf(stderr, "arenaprof record: %s\n", err);
		rc = AP_EXIT_RUNTIME;
		goto out_probe;
	}
	fprintf(stderr, "arenaprof record: %" PRIu64 " faults, %" PRIu64 " runs, %llu "
		"dropped events; trace %s\n", r.faults, r.runs,
		(unsigned long long)r.counters.ringbuf_drops, out);
	if (r.counters.ringbuf_drops)
		fprintf(stderr, "arenaprof record: warning: %llu events were dropped: the ring "
			"buffer (%s) overflowed; record again with a larger --ring-size\n",
			(unsigned long long)r.counters.ringbuf_drops,
			ap_fmt_bytes(po.ring_bytes, (char[32]){ 0 }, 32));
	if (rc != AP_EXIT_USAGE)
		rc = r.end_reason == AP_END_ERROR ? AP_EXIT_RUNTIME : AP_EXIT_OK;
	if (!r.started && r.end_reason == AP_END_TARGET_EXIT && !r.faults && !r.runs)
		rc = AP_EXIT_RUNTIME;	/* the process was gone before anything was seen */
out_probe:
	ap_probe_close(r.probe);
out_kill:
	if (release_fd >= 0) {
		close(release_fd);	/* the child reads EOF and exits without exec */
		close(exec_err_fd);
		waitpid(r.pid, NULL, 0);
	}
	if (r.have_maps)
		ap_maps_free(&r.maps);
	for (size_t i = 0; i < r.n_checked; i++)
		free(r.checked[i]);
	free(r.checked);
	return rc;
}
