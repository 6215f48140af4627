// SPDX-License-Identifier: Apache-2.0
/*
 * arenaprof top (also `arenaprof -p PID`): the live view of a running process. The same
 * session as record (session.h) feeds two sinks: the live model (live.h), which the TUI
 * (tui.h) lays out, and a trace, so that `w` can copy "the session so far" and -o keeps it.
 * Without -o the trace is a ring of --trace-ring bytes (record/session_trace.c) in unlinked
 * files of a private temporary directory: on a board /tmp is often the RAM it measures.
 * --batch (or no terminal) prints one line per interval instead.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/outfile.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/analyze/live.h"
#include "arenaprof/analyze/live_models.h"
#include "arenaprof/analyze/live_replay.h"
#include "arenaprof/plan/plan_build.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/record/btf_custom.h"
#include "arenaprof/record/probe.h"
#include "arenaprof/record/session.h"
#include "arenaprof/render/openmetrics.h"
#include "arenaprof/render/top_batch.h"
#include "arenaprof/render/tui.h"
#include "arenaprof/util/units.h"
#include "arenaprof/util/clock.h"

#define DEFAULT_INTERVAL_MS 1000
#define DEFAULT_SMAPS_MS 5000
#define KEY_WAIT_MS 50		/* longest wait before keys are read */
#define STATUS_NS (8ULL * 1000000000ULL)	/* how long a footer message stays */
#define DEFAULT_TRACE_RING (16ULL << 20)	/* the hidden trace keeps this much */
#define MIN_TRACE_RING (1ULL << 20)
#define MAX_TRACE_RING (4ULL << 30)

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

struct top {
	struct ap_session s;
	struct ap_live live;
	struct ap_trace_sink trace;
	bool have_trace;
	const char *out;		/* -o, or NULL */
	uint64_t trace_ring;		/* --trace-ring: the hidden trace's cap; 0 not given */
	const char *snap_dir;
	char tmp_dir[PATH_MAX];		/* the private directory of the unlinked trace */
	struct ap_tui_view v;
	uint64_t status_ts;
	uint64_t notes_seen;
	long iterations;		/* --batch -n */
	bool json;			/* --batch --json: JSON lines */
	const char *replay;		/* top TRACE: the trace, or NULL */
	const char *om_path;		/* --openmetrics FILE, or NULL */
	bool om_failed;			/* its write failed once: said, not repeated */
};

static void status(struct top *t, int level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void status(struct top *t, int level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(t->v.status, sizeof(t->v.status), fmt, ap);
	va_end(ap);
	t->v.status_level = level;
	t->status_ts = ap_clock_ns(CLOCK_MONOTONIC);
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof top -p PID [--plan MODEL.tflite|PLAN ...] [-o TRACE]\n"
		"                     [--interval MS] [--smaps-interval MS] [--psi-alarm PCT]\n"
		"                     [--batch [--json] [-n N]]\n"
		"                     [--probe auto|tp|fentry|perf] [--run-probe BINARY:SYMBOL]\n"
		"                     [--op-probe BINARY:SYMBOL[:ARG]] [--ring-size SIZE]\n"
		"                     [--snapshot-dir DIR] [--trace-ring SIZE]\n"
		"                     [--openmetrics FILE] [--alloc-probe on|off] [--btf FILE]\n"
		"                     [--budget SIZE]\n"
		"                     [-v]\n"
		"       arenaprof -p PID [same options]\n"
		"       arenaprof top TRACE [--plan FILE ...] [--batch [--json] [-n N]]\n\n"
		"The live view of a running process: memory, arena residency, cgroup, pressure,\n"
		"faults and, with a plan, operators. Keys: q quit, space pause, r reset peaks,\n"
		"s/S sort column/reverse, w write a snapshot trace, ? help. top TRACE replays\n"
		"a recorded trace in the same screens, a sample at a time at its own pace\n"
		"(space pause, n next sample, +/- twice/half the pace); --batch prints a line\n"
		"at each of its samples.\n"
		"  -p PID             the process to attach to\n"
		"  --plan FILE        a .tflite model or a plan: arena size, operators; again for\n"
		"                     each model of a process that runs several (at most %d):\n"
		"                     a row each: its runs, arena and pages its plan names\n"
		"  -o TRACE           keep the whole session as a trace (as record writes)\n"
		"  --trace-ring SIZE  without -o the session's trace (unlinked, in $TMPDIR) is a\n"
		"                     ring of SIZE (default 16M, 1M-4G): w saves its last part;\n"
		"                     the header shows its fill\n"
		"  --interval MS      samples and screen updates (default 1000)\n"
		"  --smaps-interval MS  smaps_rollup, which walks every page table (default 5000)\n"
		"  --psi-alarm PCT    the cgroup's full avg10 above this turns red (default 1)\n"
		"  --batch, -b        one line per interval on stdout (also without a terminal)\n"
		"  --json             with --batch (implied): one JSON object per line, the same\n"
		"                     keys, null for a value not known\n"
		"  -n N               with --batch: stop after N lines\n"
		"  --openmetrics FILE rewrite FILE (atomically) at every update with OpenMetrics\n"
		"                     text for node_exporter's textfile collector\n"
		"  --snapshot-dir DIR where w writes snapshots (default: the current directory)\n"
		"  --budget SIZE      the process so far against SIZE as report --budget judges\n"
		"                     it (peak, non-reclaimable part): a line that says if it\n"
		"                     fits; --batch: budget_* keys, exit 3 when the last does not\n"
		"  --alloc-probe on|off  uprobes on the C library's allocator: the Allocs panel's\n"
		"                     calls holding the most (default on)\n"
		"  --probe, --run-probe, --op-probe, --ring-size, --btf, -v: as for record\n"
		"Without root (or CAP_BPF and CAP_PERFMON): what /proc gives of one's own\n"
		"process; faults, runs and latency, allocs need root, and say so.\n",
		AP_MAX_MODELS);
}

/* ---- w: a snapshot of the session so far ---- */

static void snapshot(struct top *t)
{
	char path[PATH_MAX], stamp[32], err[AP_ERR_LEN];
	time_t now = time(NULL);
	struct tm tm;
	uint64_t held, cap, dropped;
	int to = -1, rc;

	if (t->trace.failed) {
		status(t, 2, "no snapshot: the session's trace failed: %s", t->trace.err);
		return;
	}
	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	for (int i = 0; i < 100 && to < 0; i++) {
		snprintf(path, sizeof(path), i ? "%s/arenaprof-%d-%s-%d.trace" :
			 "%s/arenaprof-%d-%s.trace", t->snap_dir, t->s.pid, stamp, i);
		/* O_EXCL: never an existing file or link; 0600: a trace holds addresses */
		to = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (to < 0 && errno != EEXIST)
			break;
	}
	if (to < 0) {
		status(t, 2, "no snapshot: cannot create %s: %s", path, strerror(errno));
		return;
	}
	/* the latest counters and a note first: the copy is the session up to now */
	ap_session_send_counters(&t->s);
	ap_trace_sink_usage(&t->trace, &held, &cap, &dropped);
	if (dropped)
		ap_session_note(&t->s, 0, "snapshot %s: the session's last part, as the trace "
				"ring of %s holds it (arenaprof top)", path,
				ap_fmt_bytes(cap, stamp, sizeof(stamp)));
	else
		ap_session_note(&t->s, 0, "snapshot %s: the session so far (arenaprof top)",
				path);
	rc = ap_trace_sink_save(&t->trace, to, err);
	if (close(to) && !rc) {
		snprintf(err, sizeof(err), "%s", strerror(errno));
		rc = -1;
	}
	if (rc) {
		unlink(path);
		status(t, 2, "no snapshot: writing %s: %s", path, err);
		return;
	}
	/* the file name first: a narrow footer drops the directory, which the user chose */
	status(t, 0, "snapshot written: %s in %s", strrchr(path, '/') + 1, t->snap_dir);
}

/* ---- the two faces ---- */

static void on_key(struct top *t, int k, bool *quit, bool *redraw, bool *footer_only)
{
	char err[AP_ERR_LEN];

	if (t->v.help && k != AP_KEY_RESIZE) {
		t->v.help = false;
		*redraw = true;
		return;
	}
	switch (k) {
	case 'q':
	case 'Q':
		*quit = true;
		break;
	case ' ':
		t->v.paused = !t->v.paused;
		*redraw = true;
		break;
	case 'r':
		if (t->live.ended) {
			status(t, 1, "the process has exited: nothing to reset");
		} else {
			switch (ap_session_reset_peaks(&t->s, err)) {
			case 0:
				status(t, 0, "peaks reset: VmHWM restarts from VmRSS");
				break;
			case 1:
				status(t, 1, "peaks reset: VmHWM restarts from VmRSS; %s", err);
				break;
			default:
				status(t, 2, "reset failed: %s", err);
				break;
			}
		}
		*footer_only = true;
		break;
	case 's':
		t->v.sort = (t->v.sort + 1) % AP_SORT_COUNT;
		*redraw = true;
		break;
	case 'S':
		t->v.reverse = !t->v.reverse;
		*redraw = true;
		break;
	case 'w':
		snapshot(t);
		*footer_only = true;
		break;
	case '?':
	case 'h':
		t->v.help = true;
		*redraw = true;
		break;
	case AP_KEY_RESIZE:
	case 12:	/* ^L */
		*redraw = true;
		break;
	}
}

/* The session ended by itself: say why, keep the last figures. */
static void session_ended(struct top *t)
{
	ap_session_stop(&t->s, 0);
	ap_live_set_end(&t->live, &t->s);
	char how[96];

	if (t->s.end_reason == AP_END_TARGET_EXIT)
		status(t, 1, "process %d exited (%s); the last values stay until q%s%s",
		       t->s.pid, ap_session_exit_text(&t->s, how, sizeof(how)),
		       t->out ? "; the session is saved to " : "", t->out ? t->out : "");
	else if (t->s.failed)
		status(t, 2, "the session stopped: %s", t->trace.err);
	else
		status(t, 2, "the session stopped: %s", t->live.note);
}

/*
 * --openmetrics FILE: rewritten whole at every update, through a temporary file beside it
 * and a rename, so that the collector never reads half of it.
 */
static void write_metrics(struct top *t, const struct ap_live *l, bool tui)
{
	char tmp[PATH_MAX], err[AP_ERR_LEN];
	FILE *f;

	if (!t->om_path || t->om_failed)
		return;
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", t->om_path, (int)getpid());
	f = ap_outfile_fopen(tmp, 0644, err);
	if (f) {
		ap_openmetrics_live(f, l, AP_VERSION);
		if (fclose(f) || rename(tmp, t->om_path)) {
			snprintf(err, sizeof(err), "%s: %s", t->om_path, strerror(errno));
			unlink(tmp);
			f = NULL;
		}
	}
	if (f)
		return;
	t->om_failed = true;
	if (tui)
		status(t, 2, "--openmetrics: %s; not written again", err);
	else
		ap_cli_say("top", "--openmetrics: %s; not written again", err);
}

static int run_tui(struct top *t)
{
	uint64_t drawn = UINT64_MAX;
	bool quit = false;
	char err[AP_ERR_LEN];

	if (ap_tui_open(err)) {
		ap_cli_say("top", "%s; use --batch", err);
		return AP_EXIT_RUNTIME;
	}
	while (!quit && !stop_signal) {
		bool redraw = false, footer_only = false;
		int k;

		if (!t->live.ended) {
			if (!ap_session_step(&t->s, KEY_WAIT_MS)) {
				if (stop_signal)
					break;
				session_ended(t);
				redraw = true;
			}
		} else {
			struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };

			poll(&pfd, 1, 250);
		}
		if (t->live.notes != t->notes_seen) {
			t->notes_seen = t->live.notes;
			if (t->live.note_level > 0 && !t->live.ended) {
				status(t, (int)t->live.note_level, "%s", t->live.note);
				footer_only = true;
			}
		}
		while ((k = ap_tui_key()) >= 0)
			on_key(t, k, &quit, &redraw, &footer_only);
		if (t->v.status[0] && !t->live.ended &&
		    ap_clock_ns(CLOCK_MONOTONIC) - t->status_ts > STATUS_NS) {
			t->v.status[0] = '\0';
			redraw = true;	/* a long message wrapped over the panels' last rows */
		}
		if (!t->v.paused && t->live.generation != drawn)
			redraw = true;
		if (redraw) {
			uint64_t dropped;

			ap_trace_sink_usage(&t->trace, &t->v.trace_bytes, &t->v.trace_cap,
					    &dropped);
			ap_tui_draw(&t->live, &t->v);
			if (drawn != t->live.generation)
				write_metrics(t, &t->live, true);
			drawn = t->live.generation;
		} else if (footer_only) {
			ap_tui_draw_footer(&t->live, &t->v);
		}
	}
	ap_tui_close();
	return t->s.end_reason == AP_END_ERROR ? AP_EXIT_RUNTIME : AP_EXIT_OK;
}

/* --batch --budget: exit 3 when the process, judged on its last figures, does not fit. */
static int budget_exit(const struct top *t, const struct ap_live *l, int rc)
{
	struct ap_budget_process v;
	struct ap_procmem pm;

	if (rc != AP_EXIT_OK || !t->v.budget || !l->have_sample)
		return rc;
	ap_live_budget(l, t->v.budget, &pm, &v);
	return v.fits || v.unknown ? rc : AP_EXIT_OVER;
}

static int run_batch(struct top *t)
{
	uint64_t printed = 0;
	long lines = 0;

	while (ap_session_step(&t->s, -1)) {
		if (t->live.generation == printed)
			continue;
		printed = t->live.generation;
		ap_top_batch_line(stdout, &t->live, t->json, t->v.budget);
		write_metrics(t, &t->live, false);
		if (t->iterations && ++lines >= t->iterations) {
			ap_session_stop(&t->s, AP_END_DURATION);
			return budget_exit(t, &t->live, AP_EXIT_OK);
		}
	}
	if (stop_signal)
		return AP_EXIT_OK;
	ap_session_stop(&t->s, 0);
	if (t->s.end_reason == AP_END_TARGET_EXIT) {
		char how[96];

		ap_session_exit_text(&t->s, how, sizeof(how));
		printf("# pid %d exited (%s)\n", t->s.pid, how);
		fflush(stdout);
		ap_cli_say("top", "process %d exited (%s)", t->s.pid, how);
		return budget_exit(t, &t->live, AP_EXIT_OK);
	}
	ap_cli_say("top", "the session stopped: %s",
		t->s.failed ? t->trace.err : t->live.note);
	return AP_EXIT_RUNTIME;
}

/* The session's trace: -o, else a ring of unlinked files in a private directory. */
static int open_trace(struct top *t, char *err)
{
	const char *tmp = getenv("TMPDIR");

	if (t->out) {
		if (ap_trace_sink_open(&t->trace, &t->s, t->out, err))
			return -1;
	} else {
		snprintf(t->tmp_dir, sizeof(t->tmp_dir), "%s/arenaprof-top-XXXXXX",
			 tmp && tmp[0] ? tmp : "/tmp");
		if (!mkdtemp(t->tmp_dir)) {
			ap_seterr(err, "cannot create a directory in %s for the session's trace: "
				  "%s", tmp && tmp[0] ? tmp : "/tmp", strerror(errno));
			t->tmp_dir[0] = '\0';
			return -1;
		}
		if (ap_trace_sink_open_ring(&t->trace, &t->s, t->tmp_dir, t->trace_ring ?
					    t->trace_ring : DEFAULT_TRACE_RING, err)) {
			rmdir(t->tmp_dir);
			return -1;
		}
		rmdir(t->tmp_dir);
	}
	t->trace.soft = true;	/* a full disk ends the trace, not the live view */
	t->have_trace = true;
	return 0;
}

/* The command line, besides what goes into struct top. */
struct args {
	struct ap_session_opts so;
	const char *plan_path;		/* the first --plan: the operators' panel's */
	const char *plans[AP_MAX_MODELS];	/* every --plan: several, a row each */
	uint32_t n_plans;		/* given (past AP_MAX_MODELS: refused) */
	const char *btf;	/* --btf FILE */
	bool batch;
	/* --plan a model: what LiteRT's default path (XNNPACK) holds, by class
	 * (xnn_blocks.h), and the TFLite arena it leaves */
	bool have_xnn;
	uint64_t xnn_planned[AP_XNN_N_CLASSES];
	uint64_t xnn_arena;
};

/*
 * --plan a model: its plan on LiteRT's default path, as report's XNNPACK section plans it
 * (the delegate on this CPU), for the XNNPACK panel's planned figures. A plan file, or a
 * model the delegate takes nothing of: none (the panel shows what it measures).
 */
static void plan_xnn(struct args *a)
{
	struct ap_plan_req rq = { .path = a->plan_path, .src = AP_PLAN_MODEL,
				  .strat = AP_STRAT_TFLITE, .delegate = AP_DELEGATE_XNNPACK };
	struct ap_plan_set s = { 0 };
	char ignored[AP_ERR_LEN];

	if (!ap_plan_build(&rq, &s, ignored) && s.have_xnn && s.xnn.delegated_ops) {
		a->have_xnn = true;
		a->xnn_planned[AP_XNN_PACKED] = s.xnn.packed_weights_bytes;
		a->xnn_planned[AP_XNN_WORKSPACE] = s.xnn.workspace_bytes;
		a->xnn_planned[AP_XNN_SCRATCH] = s.xnn.scratch_bytes;
		a->xnn_planned[AP_XNN_OTHER] = s.xnn.other_bytes;
		a->xnn_arena = s.have_xnn_arena ? s.xnn_arena.arena_bytes : 0;
	}
	ap_plan_set_free(&s);
}

#define GO_ON AP_CMD_GO_ON	/* parse_args: go on; else the exit code */

/* One of top's own options into t and a: 0, 1 for a bad value, -1 for an unknown one. */
static int set_option(struct top *t, struct args *a, int c, const char *arg)
{
	int64_t v;

	switch (c) {
	case 'P':
		if (a->n_plans < AP_MAX_MODELS)
			a->plans[a->n_plans] = arg;
		a->plan_path = a->plans[0];
		a->n_plans++;
		break;
	case 'o': t->out = arg; break;
	case 'i':
	case 'I':
		if (ap_parse_i64(arg, 10, 600000, &v))
			return 1;
		if (c == 'i')
			a->so.interval_ms = (uint32_t)v;
		else
			a->so.smaps_interval_ms = (uint32_t)v;
		break;
	case 'A': {
		double pct;

		if (ap_parse_f64(arg, 0, 100, &pct))
			return 1;
		t->v.psi_alarm = (uint64_t)(pct * 100 + 0.5);
		break;
	}
	case 'b': a->batch = true; break;
	case 'j': a->batch = t->json = true; break;
	case 'X': t->om_path = arg; break;
	case 'n':
		if (ap_parse_i64(arg, 1, INT_MAX, &v))
			return 1;
		t->iterations = (int)v;
		break;
	case 'D': t->snap_dir = arg; break;
	case 'B': a->btf = arg; break;
	case 'G':
		if (ap_parse_size(arg, &t->v.budget) || !t->v.budget)
			return 1;
		break;
	case 'L': {
		int w = ap_cli_word(arg, "on", "off", NULL);

		if (w < 0)
			return 1;
		a->so.arena_mode = w == 0 ? AP_ARENA_AUTO : AP_ARENA_OFF;
		break;
	}
	case 'T': {
		uint64_t sz;

		if (ap_parse_size(arg, &sz) || sz < MIN_TRACE_RING || sz > MAX_TRACE_RING)
			return 1;
		t->trace_ring = sz;
		break;
	}
	default: return -1;
	}
	return 0;
}

/* The command line into t and a (from top's defaults): GO_ON, or the exit code. */
static int parse_args(struct top *t, struct args *a, int argc, char **argv)
{
	int c;
	struct ap_opts op;

	*a = (struct args){ .so = { .method = AP_METHOD_NONE, .interval_ms = DEFAULT_INTERVAL_MS,
				    .smaps_interval_ms = DEFAULT_SMAPS_MS, .full_acct = true,
				    .stop = &stop_signal, .arena_mode = AP_ARENA_AUTO,
				    .dmabuf = true } };
	ap_opts_init(&op, "+p|pid: P=plan: o|output: i|interval: I=smaps-interval: A=psi-alarm: "
		     "b|batch n|iterations: m=probe: R=run-probe: O=op-probe: s=ring-size: "
		     "D=snapshot-dir: T=trace-ring: j=json X=openmetrics: L=alloc-probe: v|verbose "
		     "h|help B=btf: G=budget:");
	/* top TRACE: the trace wherever it is among the options */
	while ((c = ap_opts_next(&op, argc, argv)) != -1 ||
	       (optind < argc && !t->replay && argv[optind][0] != '-' &&
		(t->replay = argv[optind++]) && (c = ap_opts_next(&op, argc, argv)) != -1)) {
		int r = ap_session_parse_opt(&a->so, c, optarg);

		if (r > 0)
			continue;
		if (!r && c == 'h') {
			usage(stdout);
			return AP_EXIT_OK;
		}
		if (!r) {
			r = set_option(t, a, c, optarg);
			if (r < 0) {
				return ap_cli_bad_option("top", argv);
			}
			if (!r)
				continue;
		}
		ap_cli_say("top", "bad value '%s' for %s", optarg,
			ap_opt_name(argv, optind, optarg));
		return AP_EXIT_USAGE;
	}
	if (t->replay && a->so.pid <= 0 && optind == argc) {
		if (t->out || t->trace_ring) {
			ap_cli_say("top", "%s: a replay writes no trace", t->out ? "-o" :
				   "--trace-ring");
			return AP_EXIT_USAGE;
		}
	} else if (a->so.pid <= 0 || optind < argc || t->replay) {
		ap_cli_say("top", "needs -p PID or a TRACE%s (see 'arenaprof top --help')",
			optind < argc || t->replay ? ", not both nor more" : "");
		return AP_EXIT_USAGE;
	}
	if (a->n_plans > AP_MAX_MODELS) {
		ap_cli_say("top", "at most %d models (--plan)", AP_MAX_MODELS);
		return AP_EXIT_USAGE;
	}
	if (t->out && t->trace_ring) {
		ap_cli_say("top", "--trace-ring bounds the hidden trace; -o keeps the whole "
			"session: give one of them");
		return AP_EXIT_USAGE;
	}
	if (!isatty(STDOUT_FILENO) || !isatty(STDIN_FILENO))
		a->batch = true;
	/* a terminal that cannot address the cursor gets the batch lines, not garbage */
	if (!a->batch && (!getenv("TERM") || !strcmp(getenv("TERM"), "dumb"))) {
		ap_cli_say("top", "TERM is %s: batch lines instead of the live view",
			   getenv("TERM") ? "dumb" : "not set");
		a->batch = true;
	}
	return GO_ON;
}

/* A struct top with the defaults of what the options set, or NULL (said). */
static struct top *top_new(void)
{
	struct top *t = calloc(1, sizeof(*t));

	if (!t) {
		ap_cli_say("top", "out of memory");
		return NULL;
	}
	t->snap_dir = ".";
	t->v.psi_alarm = 100;
	t->v.sort = AP_SORT_INDEX;
	return t;
}

int cmd_top_parse(int argc, char **argv)
{
	struct top *t = top_new();
	struct args a;
	int rc;

	if (!t)
		return AP_EXIT_RUNTIME;
	rc = parse_args(t, &a, argc, argv);
	free(t);
	return rc;
}

/* The session, its trace and the live model; then the TUI or the batch lines. */
static int run_session(struct top *t, const struct args *a, const struct ap_tplan *plan)
{
	struct ap_session_opts so = a->so;
	struct sigaction sa = { .sa_handler = on_signal };
	char err[AP_ERR_LEN];
	int rc = ap_session_start(&t->s, &so, err);

	/* without the privilege to load BPF: what /proc gives, as htop shows it */
	if (rc == -EPERM && geteuid() && !so.run_spec && !so.op_spec) {
		so.procfs_only = true;
		rc = ap_session_start(&t->s, &so, err);
		if (!rc && a->batch && !t->json)
			printf("# no root: /proc, cgroup and PSI figures only; %s\n",
			       AP_LIVE_NEEDS_ROOT);
		if (!rc)
			ap_cli_say("top", "no permission to load BPF: /proc figures only; %s",
				   AP_LIVE_NEEDS_ROOT);
	}
	if (rc) {
		ap_cli_say("top", "%s", err);
		return ap_cli_exit(rc);
	}
	rc = AP_EXIT_RUNTIME;
	if (open_trace(t, err)) {
		ap_cli_say("top", "%s", err);
		rc = t->out ? AP_EXIT_USAGE : AP_EXIT_RUNTIME;
		goto out_session;
	}
	if (ap_live_init(&t->live, &t->s, plan, a->plan_path, err)) {
		ap_cli_say("top", "%s", err);
		goto out_trace;
	}
	if (a->n_plans > 1 && ap_live_models_init(&t->live, a->plans, a->n_plans, err)) {
		ap_cli_say("top", "%s", err);
		ap_live_free(&t->live);
		rc = AP_EXIT_USAGE;
		goto out_trace;
	}
	if (a->have_xnn)
		ap_live_xnn_plan(&t->live, a->xnn_planned, a->xnn_arena);
	t->live.sink.next = &t->trace.sink;

	/* ours before the terminal is taken: curses then leaves them alone */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ap_session_release(&t->s, &t->live.sink);
	rc = a->batch ? run_batch(t) : run_tui(t);
	ap_session_stop(&t->s, AP_END_SIGNAL);
	ap_live_free(&t->live);
out_trace:
	if (ap_trace_sink_close(&t->trace, &t->s) && t->out) {
		ap_cli_say("top", "writing %s failed: %s", t->out, t->trace.err);
		rc = AP_EXIT_RUNTIME;
	} else if (t->out && rc != AP_EXIT_RUNTIME) {
		ap_cli_say("top", "the session of pid %d is in %s", t->s.pid,
			t->out);
	}
out_session:
	ap_session_free(&t->s);
	return rc;
}

/* ---- top TRACE: a recorded session in the same screens ---- */

#define MAX_PACE 64.0
#define MAX_WAIT_NS (5ULL * 1000000000ULL)	/* a long gap in the trace waits this at most */

static int replay_batch(struct top *t, struct ap_live_replay *rp)
{
	char err[AP_ERR_LEN];
	long lines = 0;
	int rc;

	while ((rc = ap_live_replay_step(rp, err)) == 1 && !stop_signal) {
		ap_top_batch_line(stdout, &rp->live, t->json, t->v.budget);
		write_metrics(t, &rp->live, false);
		if (t->iterations && ++lines >= t->iterations)
			return budget_exit(t, &rp->live, AP_EXIT_OK);
	}
	if (rc < 0) {
		ap_cli_say("top", "%s: %s", t->replay, err);
		return AP_EXIT_USAGE;
	}
	/* the runs and faults after the last sample, to the trace's end */
	ap_top_batch_line(stdout, &rp->live, t->json, t->v.budget);
	if (!t->json)
		printf("# end of the trace: %s\n", ap_trace_end_reason(rp->live.end_reason));
	return budget_exit(t, &rp->live, AP_EXIT_OK);
}

/* A key of the replay's: the pace, a step; the rest as live. */
static void replay_key(struct top *t, int k, bool *quit, bool *redraw, bool *step)
{
	bool footer_only = false;

	if (t->v.help && k != AP_KEY_RESIZE) {
		t->v.help = false;
		*redraw = true;
		return;
	}
	switch (k) {
	case 'n':
		t->v.paused = *step = *redraw = true;
		return;
	case '+':
	case '-':
		t->v.speed = k == '+' ? t->v.speed * 2 : t->v.speed / 2;
		t->v.speed = t->v.speed > MAX_PACE ? MAX_PACE : t->v.speed < 1 / MAX_PACE ?
			     1 / MAX_PACE : t->v.speed;
		*redraw = true;
		return;
	case 'r':
	case 'w':
		status(t, 1, "a replay: %s", k == 'r' ? "the recorded peaks stay as they were" :
		       "the trace is already written");
		*redraw = true;
		return;
	}
	on_key(t, k, quit, redraw, &footer_only);
	*redraw |= footer_only;
}

static int replay_tui(struct top *t, struct ap_live_replay *rp)
{
	uint64_t due = 0, drawn = UINT64_MAX;
	char err[AP_ERR_LEN];
	bool quit = false;

	if (ap_tui_open(err)) {
		ap_cli_say("top", "%s; use --batch", err);
		return AP_EXIT_RUNTIME;
	}
	t->v.replay = true;
	t->v.speed = 1;
	/* it opens on its first sample, paused, as a player does */
	t->v.paused = true;
	status(t, 0, "a replay, at its first sample: space plays, n steps, +/- pace");
	for (bool step = true; !quit && !stop_signal; step = false) {
		uint64_t now = ap_clock_ns(CLOCK_MONOTONIC);
		bool redraw = false;
		struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
		int k;

		while ((k = ap_tui_key()) >= 0)
			replay_key(t, k, &quit, &redraw, &step);
		if (!rp->live.ended && (step || (!t->v.paused && now >= due))) {
			uint64_t prev = rp->live.t_last_ns, gap;
			int rc = ap_live_replay_step(rp, err);

			if (rc < 0)
				status(t, 2, "%s: %s", t->replay, err);
			else if (!rc)
				status(t, 0, "the end of the trace (%s); q quits",
				       ap_trace_end_reason(rp->live.end_reason));
			/* the recorded gap between two samples, at the chosen pace */
			gap = (uint64_t)((double)(rp->live.t_last_ns - prev) / t->v.speed);
			due = now + (gap < MAX_WAIT_NS ? gap : MAX_WAIT_NS);
		}
		if (rp->live.generation != drawn || redraw) {
			ap_tui_draw(&rp->live, &t->v);
			drawn = rp->live.generation;
		}
		now = ap_clock_ns(CLOCK_MONOTONIC);
		poll(&pfd, 1, t->v.paused || rp->live.ended || due <= now ? KEY_WAIT_MS :
		     (int)((due - now) / 1000000ULL < KEY_WAIT_MS ? (due - now) / 1000000ULL :
			   KEY_WAIT_MS));
	}
	ap_tui_close();
	return AP_EXIT_OK;
}

static int run_replay(struct top *t, const struct args *a, const struct ap_tplan *plan)
{
	struct ap_live_replay *rp = calloc(1, sizeof(*rp));
	struct sigaction sa = { .sa_handler = on_signal };
	char err[AP_ERR_LEN];
	int rc;

	if (!rp) {
		ap_cli_say("top", "out of memory");
		return AP_EXIT_RUNTIME;
	}
	rc = ap_live_replay_open(rp, t->replay, plan, a->plan_path, err);
	if (rc) {
		ap_cli_say("top", "%s", err);
		free(rp);
		return rc == -ENOMEM ? AP_EXIT_RUNTIME : AP_EXIT_USAGE;
	}
	if (a->have_xnn)
		ap_live_xnn_plan(&rp->live, a->xnn_planned, a->xnn_arena);
	if (a->n_plans > 1 && ap_live_models_init(&rp->live, a->plans, a->n_plans, err)) {
		ap_cli_say("top", "%s", err);
		ap_live_replay_close(rp);
		free(rp);
		return AP_EXIT_USAGE;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rc = a->batch ? replay_batch(t, rp) : replay_tui(t, rp);
	ap_live_replay_close(rp);
	free(rp);
	return rc;
}

int cmd_top(int argc, char **argv)
{
	struct args a;
	struct ap_tplan plan = { 0 };
	char err[AP_ERR_LEN];
	struct top *t;
	int rc;

	t = top_new();
	if (!t)
		return AP_EXIT_RUNTIME;
	rc = parse_args(t, &a, argc, argv);
	if (rc != GO_ON) {
		free(t);
		return rc;
	}
	if (ap_btf_choose(a.btf, err)) {
		ap_cli_say("top", "%s", err);
		free(t);
		return AP_EXIT_USAGE;
	}
	if (a.plan_path && ap_plan_load(a.plan_path, &plan, err)) {
		ap_cli_say("top", "%s", err);
		free(t);
		return AP_EXIT_USAGE;
	}
	if (a.plan_path)
		plan_xnn(&a);
	if (t->replay)
		rc = run_replay(t, &a, a.plan_path ? &plan : NULL);
	else
		rc = run_session(t, &a, a.plan_path ? &plan : NULL);
	if (a.plan_path)
		ap_tplan_free(&plan);
	free(t);
	return rc;
}
