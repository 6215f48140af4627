// SPDX-License-Identifier: Apache-2.0
/*
 * arenaprof record: traces the page faults of a process (started here, stopped until the
 * tracer is attached, or attached with -p) into a trace file, with run/op markers and
 * /proc samples, until the target exits, N runs complete, the duration ends or a signal
 * arrives. Every stop finalises the trace. At N runs a started command is left to finish
 * untraced, and waited for, unless --kill-at-runs. The collecting is the session's
 * (session.h); this file is the options, the trace sink, the messages and the exit code.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/json.h"
#include "arenaprof/util/numparse.h"
#include "arenaprof/record/btf_custom.h"
#include "arenaprof/record/probe.h"
#include "arenaprof/record/ring_sizing.h"
#include "arenaprof/record/run_harness.h"
#include "arenaprof/record/session.h"
#include "arenaprof/util/units.h"
#include "arenaprof/util/clock.h"


/*
 * record's exit codes past the shared ones (0 ok, 1 the recorder failed, 2 bad usage): an
 * outcome of what was asked, never a status the command chose, so that a CI script can
 * tell them apart (man/arenaprof-record.1, EXIT STATUS). The first that applies wins: 1,
 * then NO_RUN, FEWER_RUNS, COMMAND.
 */
enum {
	REC_EXIT_COMMAND = 4,		/* the command failed: a non-zero status, a signal */
	REC_EXIT_FEWER_RUNS = 5,	/* fewer runs than --runs N */
	REC_EXIT_NO_RUN = 6,		/* --runs N, and not one run seen */
};

static volatile sig_atomic_t stop_signal, n_signals, pass_on;

/*
 * While record waits for the command (--runs N), a signal is passed on to it (spawn.h):
 * one sent to record, not one the terminal sent, which the command's process group got
 * too (a second one either way: SIGKILL).
 */
static void on_signal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	stop_signal = sig;
	pass_on = si && si->si_code == SI_KERNEL ? 0 : sig;
	n_signals++;
}

static bool status_shown;	/* the status line is on the terminal, to be cleared */

static void status_clear(void)
{
	if (status_shown)
		fputs("\r\033[K", stderr);
	status_shown = false;
}

static bool quiet;	/* -q: no set-up lines (the trace keeps its notes all the same) */

/* Every note of the session, as one line on stderr (the trace sink keeps it too); with -q
 * none of the set-up lines. */
static int print_note(void *ctx, uint32_t level, uint64_t ts_ns, const char *text)
{
	(void)ctx;
	(void)ts_ns;
	if (level == AP_NOTE_SETUP && quiet)
		return 0;
	status_clear();
	ap_cli_say("record", "%s%s", level == AP_NOTE_SETUP ? "" : level >= 2 ? "error: " :
		   level ? "warning: " : "", text);
	return 0;
}

/*
 * What --json says of the probe and of the trace's end, kept when the probe is closed and
 * the trace ended (at --runs N, before the command that runs on ends).
 */
struct outcome {
	const char *method;
	uint64_t ring_bytes, bpf_run_ns, bpf_runs, trace_bytes;
	double sized_for_rate;
	struct ap_rec_end end;		/* as the trace holds it */
};

static void outcome_take(struct outcome *o, struct ap_session *s, const struct ap_trace_sink *t)
{
	o->method = ap_method_name(ap_probe_method(s->probe));
	o->ring_bytes = ap_probe_ring_bytes(s->probe);
	o->sized_for_rate = ap_probe_sized_for_rate(s->probe);
	/* for make bench: the recorder's own cost (bpf stats only when enabled) */
	ap_probe_fault_stats(s->probe, &o->bpf_run_ns, &o->bpf_runs);
	o->trace_bytes = t->w.bytes;
	ap_session_end(s, &o->end);
}

static void json_status(struct ap_json *j, int exit_status, int term_signal)
{
	if (exit_status >= 0 && !term_signal)
		ap_json_i64(j, "exit_status", exit_status);
	else
		ap_json_null(j, "exit_status");
	if (term_signal > 0)
		ap_json_i64(j, "signal", term_signal);
	else
		ap_json_null(j, "signal");
}

/* record --json's "schema_version": 1, its first versioned form (man arenaprof-record). */
#define RECORD_SCHEMA 1

/* --json: the recording's outcome as one JSON object, the last line on stdout. */
static void print_json(const struct ap_session *s, const char *out, const struct outcome *o,
		       int rc)
{
	struct rusage ru;
	struct ap_json j;

	ap_json_init(&j, stdout);
	ap_json_obj(&j, NULL);
	ap_json_u64(&j, "schema_version", RECORD_SCHEMA);
	ap_json_str(&j, "trace", out);
	ap_json_u64(&j, "trace_bytes", o->trace_bytes);
	ap_json_i64(&j, "pid", s->pid);
	ap_json_str(&j, "method", o->method);
	ap_json_u64(&j, "faults", s->faults);
	ap_json_u64(&j, "runs", s->runs);
	if (s->o.runs_limit)
		ap_json_u64(&j, "runs_asked", s->o.runs_limit);
	else
		ap_json_null(&j, "runs_asked");
	ap_json_u64(&j, "dropped_events", s->counters.ringbuf_drops);
	ap_json_u64(&j, "ring_bytes", o->ring_bytes);
	ap_json_u64(&j, "ring_sized_for_faults_per_s", (uint64_t)o->sized_for_rate);
	ap_json_u64(&j, "bpf_fault_run_ns", o->bpf_run_ns);
	ap_json_u64(&j, "bpf_fault_runs", o->bpf_runs);
	if (!getrusage(RUSAGE_SELF, &ru))
		ap_json_u64(&j, "recorder_peak_rss_bytes", (uint64_t)ru.ru_maxrss * 1024);
	ap_json_obj(&j, "end");		/* the trace's end record */
	ap_json_str(&j, "reason", ap_trace_end_reason(o->end.reason));
	json_status(&j, o->end.exit_status, o->end.term_signal);
	ap_json_end_obj(&j);
	if (s->started) {		/* its end, waited for past the trace's */
		ap_json_obj(&j, "command");
		json_status(&j, s->exit_status, s->term_signal);
		ap_json_bool(&j, "ended_by_record", s->ended_by_stop);
		ap_json_bool(&j, "left_running", !s->target_gone);
		ap_json_end_obj(&j);
	} else {
		ap_json_null(&j, "command");
	}
	ap_json_i64(&j, "exit_code", rc);
	ap_json_end_obj(&j);
	ap_json_finish(&j);
}

/* The ring's size, and what it was sized from. */
static void ring_say(const struct ap_probe *p)
{
	char b[32];

	if (quiet)
		return;
	if (ap_probe_sized_for_rate(p) > 0)
		ap_cli_say("record", "ring buffer %s: %d ms of %.0f faults/s, the rate measured "
			   "here at start", ap_fmt_bytes(ap_probe_ring_bytes(p), b, sizeof(b)),
			   AP_RING_BUDGET_MS, ap_probe_sized_for_rate(p));
	else
		ap_cli_say("record", "ring buffer %s (--ring-size)",
			   ap_fmt_bytes(ap_probe_ring_bytes(p), b, sizeof(b)));
}

/* On a terminal, once a second: how far the recording is, on one line rewritten. */
static void status_line(const struct ap_session *s, const struct ap_trace_sink *t,
			uint64_t t0, uint64_t *next)
{
	uint64_t now = ap_clock_ns(CLOCK_MONOTONIC);

	if (now < *next)
		return;
	*next = now + 1000000000ULL;
	fprintf(stderr, "\r\033[Karenaprof record: %.0f s, %" PRIu64 " runs, %" PRIu64
		" faults, %s written, %llu dropped", (double)(now - t0) / 1e9, s->runs,
		s->faults, ap_fmt_bytes(t->w.bytes, (char[32]){ 0 }, 32),
		(unsigned long long)s->counters.ringbuf_drops);
	status_shown = true;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof record [-p PID | -- CMD ARGS...] -o TRACE [--runs N] [--duration "
		"S]\n"
		"                        [--probe auto|tp|fentry|perf] [--run-probe "
		"BINARY:SYMBOL]\n"
		"                        [--op-probe BINARY:SYMBOL[:ARG]] [--interval MS]\n"
		"                        [--ring-size SIZE] [--arena auto|off|ADDR]\n"
		"                        [--kill-at-runs | --keep]\n"
		"                        [--user USER] [--btf FILE] [--json] [-v]\n\n"
		"Traces every page fault of a process into TRACE (see arenaprof-trace(5)).\n"
		"  -- CMD ARGS      start CMD, attach before it runs: no first touch is missed\n"
		"  -p PID           attach to a running process; pages already resident are "
		"recorded\n"
		"  --runs N         stop recording after N completed runs (needs a run probe);\n"
		"                   the trace is complete then, and a command started with --\n"
		"                   runs on untraced to its own end, its output whole, and is\n"
		"                   waited for (a signal to record is passed on to it)\n"
		"  --kill-at-runs   with --runs N: end the command at N runs instead (SIGTERM,\n"
		"                   SIGKILL 2 s later)\n"
		"  --duration S     stop after S seconds\n"
		"  --probe M        fault source: auto (tp, then fentry, then perf), tp, fentry, "
		"perf\n"
		"  --run-probe B:S  a function performing one inference (entry = run begins);\n"
		"                   default: LiteRT's Invoke, looked up in the target's ELF files\n"
		"  --op-probe B:S:A a function called per operator, its argument A (0-based) the\n"
		"                   operator index\n"
		"  --interval MS    /proc samples and mapping snapshots (default 100)\n"
		"  --ring-size SIZE BPF ring buffer (default: 10 ms of this machine's fastest\n"
		"                   fault rate, measured at start; 256K-64M); drops are always\n"
		"                   reported\n"
		"  --arena auto     (default) catch the C library's allocations of a page or more\n"
		"                   (malloc, aligned_alloc, ... and their frees): report finds "
		"the\n"
		"                   arena block of the plan's size and its exact base\n"
		"  --arena off      no allocation probe; --arena ADDR: the arena's base (hex)\n"
		"  --keep           leave the command running at the end, not waited for (and if\n"
		"                   the recorder dies; without it, the command gets SIGKILL when\n"
		"                   the recorder dies)\n"
		"  --user USER      run CMD as USER (name or uid; its groups as initgroups sets\n"
		"                   them); the probes stay with the privileged recorder.\n"
		"                   Default: as the recorder, so root under sudo, as 'sudo CMD',\n"
		"                   strace and perf do: a command that opens devices or writes\n"
		"                   where its service does keeps working. Under sudo, --user\n"
		"                   \"$SUDO_USER\" runs it as you\n"
		"  --btf FILE       the kernel's BTF from FILE, for a kernel without\n"
		"                   /sys/kernel/btf/vmlinux: raw BTF (BTFHub's, unpacked) or an\n"
		"                   ELF vmlinux with .BTF; default $ARENAPROF_BTF\n"
		"  --json           at the end, the outcome as one JSON object on stdout (trace,\n"
		"                   faults, runs, drops, how it ended, record's exit code)\n"
		"  -q, --quiet      no set-up lines on stderr (the probes attached, the ring's\n"
		"                   size): warnings, errors and the outcome only\n"
		"  -v               libbpf diagnostics\n"
		"On a terminal a status line (time, runs, faults, bytes written, drops) is\n"
		"rewritten once a second.\n"
		"Exit status (the first that applies; the trace is complete in every case but 1\n"
		"and 2, and holds every run recorded):\n"
		"  1  the recorder failed (BPF, the ring buffer, writing TRACE)\n"
		"  2  bad usage or input; CMD could not be started (no trace is left)\n"
		"  6  --runs N, and no run was seen: no run probe, or it never fired\n"
		"  5  --runs N, and fewer runs were recorded: the target exited first,\n"
		"     --duration ended first, or a signal stopped the recording\n"
		"  4  CMD failed: it ended by itself with a non-zero status or by a signal\n"
		"     (its status is on record's line 'the command, pid P exited (...)' and in\n"
		"     --json's command.exit_status and command.signal)\n"
		"  0  otherwise: recorded as asked, and CMD (if any) exited 0 or was ended by\n"
		"     record (--kill-at-runs, --duration, a signal)\n");
}

#define GO_ON AP_CMD_GO_ON	/* parse_args: record; else the exit code */

static const char *btf_opt;	/* --btf FILE */

/*
 * The command line into so (from record's defaults), *out and *json: GO_ON, or the exit
 * code (--help, a bad option).
 */
static int parse_args(int argc, char **argv, struct ap_session_opts *so, char **out,
		      bool *json)
{
	double duration = 0;
	int c;
	struct ap_opts op;

	*so = (struct ap_session_opts){ .method = AP_METHOD_NONE, .ring_bytes = 0,
					.interval_ms = AP_SESSION_INTERVAL_MS, .dmabuf = true,
					.stop = &stop_signal, .arena_mode = AP_ARENA_AUTO };
	*out = NULL;
	*json = false;
	btf_opt = NULL;
	quiet = false;
	ap_opts_init(&op, "+p|pid: o|output: n|runs: d|duration: m|probe: R|run-probe: O|op-probe: "
		     "i|interval: s|ring-size: k|keep K=kill-at-runs u|user: A|arena: j=json "
		     "v|verbose q|quiet h|help B=btf:");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		int r = ap_session_parse_opt(so, c, optarg);

		if (r < 0)
			goto bad_value;
		if (r)
			continue;
		switch (c) {
		case 'o': *out = optarg; break;
		case 'j': *json = true; break;
		case 'n':
			if (ap_parse_u64(optarg, 10, 1, UINT64_MAX, &so->runs_limit))
				goto bad_value;
			break;
		case 'd':
			/* up to a year; nan and inf are refused, not recorded forever */
			if (ap_parse_f64(optarg, 1e-3, 365 * 86400.0, &duration))
				goto bad_value;
			break;
		case 'i': {
			uint64_t v;

			if (ap_parse_u64(optarg, 10, 1, 60000, &v))
				goto bad_value;
			so->interval_ms = (uint32_t)v;
			break;
		}
		case 'k': so->keep = true; break;
		case 'B': btf_opt = optarg; break;
		case 'q': quiet = true; break;
		case 'K': so->kill_at_runs = true; break;
		case 'u': so->user = optarg; break;
		case 'A': {
			int w = ap_cli_word(optarg, "auto", "off", NULL);

			so->arena_mode = w == 0 ? AP_ARENA_AUTO : w == 1 ? AP_ARENA_OFF :
					 AP_ARENA_GIVEN;
			if (w < 0 && ap_parse_addr(optarg, &so->arena_addr))
				goto bad_value;
			break;
		}
		case 'h': usage(stdout); return AP_EXIT_OK;
		default:
			return ap_cli_bad_option("record", argv);
		}
		continue;
bad_value:
		ap_cli_say("record", "bad value '%s' for %s", optarg,
			ap_opt_name(argv, optind, optarg));
		return AP_EXIT_USAGE;
	}
	if (!*out || (so->pid > 0) == (optind < argc)) {
		ap_cli_say("record", "needs -o TRACE and either -p PID or -- CMD "
			"(see 'arenaprof record --help')");
		return AP_EXIT_USAGE;
	}
	if (so->kill_at_runs && (!so->runs_limit || so->keep || so->pid > 0)) {
		ap_cli_say("record", "--kill-at-runs %s", !so->runs_limit ? "needs --runs N" :
			   so->keep ? "and --keep contradict each other" :
			   "is for a command started with --: -p never ends a process");
		return AP_EXIT_USAGE;
	}
	so->argv = argv + optind;
	if (duration > 0)
		so->duration_ns = (uint64_t)(duration * 1e9);
	return GO_ON;
}

int cmd_record_parse(int argc, char **argv)
{
	struct ap_session_opts so;
	char *out;
	bool json;

	return parse_args(argc, argv, &so, &out, &json);
}

/* What ended a recording of fewer runs than asked, for its error line. */
static const char *cut_short_by(const struct ap_session *s, char *buf, size_t len)
{
	char st[64], sig[32];

	switch (s->end_reason) {
	case AP_END_TARGET_EXIT:
		snprintf(buf, len, "the %s exited (%s)", s->started ? "command" : "process",
			 ap_session_exit_text(s, st, sizeof(st)));
		break;
	case AP_END_DURATION:
		snprintf(buf, len, "--duration ended");
		break;
	case AP_END_SIGNAL:
		snprintf(buf, len, "%s stopped the recording",
			 ap_run_sig_name(stop_signal, sig, sizeof(sig)));
		break;
	default:
		snprintf(buf, len, "the recording ended");
	}
	return buf;
}

/*
 * --runs N with fewer runs recorded: one error line, with the likely cause and what to pass
 * when there was none at all. The exit code, or 0 when the runs asked for were recorded.
 */
static int runs_short(const struct ap_session *s)
{
	uint64_t want = s->o.runs_limit;
	char why[128], cause[512];

	if (!want || s->runs >= want)
		return 0;
	if (s->runs) {
		ap_cli_say("record", "error: %" PRIu64 " of the %" PRIu64 " runs asked for were "
			   "recorded before %s; the trace holds those %" PRIu64, s->runs, want,
			   cut_short_by(s, why, sizeof(why)), s->runs);
		return REC_EXIT_FEWER_RUNS;
	}
	cut_short_by(s, why, sizeof(why));
	if (!s->run_probe)
		snprintf(cause, sizeof(cause), "no run probe was attached (no LiteRT run entry "
			 "point in the ELF files the %s mapped); pass --run-probe BINARY:SYMBOL, "
			 "the function that performs one inference",
			 s->started ? "command" : "process");
	else if (s->o.run_spec)
		snprintf(cause, sizeof(cause), "the run probe %s never fired before %s; pass "
			 "--run-probe with the function that performs one inference",
			 s->o.run_spec, why);
	else
		snprintf(cause, sizeof(cause), "the run entry points found (named above) never "
			 "fired before %s: the model runs through another function; pass "
			 "--run-probe BINARY:SYMBOL", why);
	ap_cli_say("record", "error: --runs %" PRIu64 ", but no run was seen: %s", want, cause);
	return REC_EXIT_NO_RUN;
}

/* Why record ended the command it started, for the line that says so. */
static const char *ended_for(const struct ap_session *s)
{
	switch (s->end_reason) {
	case AP_END_RUNS: return "at --runs (--kill-at-runs)";
	case AP_END_DURATION: return "at the end of --duration";
	case AP_END_SIGNAL: return "as the recording was interrupted";
	default: return "as the recording failed";
	}
}

/*
 * The started command after the trace is complete: waited for when --runs N left it
 * running, then its end said. 0, or AP_EXIT_RUNTIME when it could not be waited for.
 */
static int command_end(struct ap_session *s, sig_atomic_t signals_at_stop)
{
	char st[64];
	int rc;

	if (s->end_reason == AP_END_RUNS && !s->target_gone && !s->o.keep) {
		ap_cli_say("record", "the command, pid %d, runs on untraced to its own end: "
			   "waiting for it (--kill-at-runs ends it at N runs, --keep leaves it)",
			   s->pid);
		rc = ap_session_wait(s, &n_signals, &pass_on, signals_at_stop);
		if (rc) {
			ap_cli_say("record", "waiting for pid %d: %s", s->pid, strerror(-rc));
			return AP_EXIT_RUNTIME;
		}
	}
	if (!s->target_gone && s->o.keep)
		ap_cli_say("record", "the command, pid %d, is left running (--keep)", s->pid);
	else if (!s->target_gone)	/* deaf to SIGTERM: PR_SET_PDEATHSIG (spawn.h) */
		ap_cli_say("record", "the command, pid %d, did not end within 2 s of SIGTERM; "
			   "it gets SIGKILL as record exits", s->pid);
	else if (s->ended_by_stop)
		ap_cli_say("record", "the command, pid %d, was ended by record %s: %s", s->pid,
			   ended_for(s), ap_session_exit_text(s, st, sizeof(st)));
	else if (s->end_reason != AP_END_TARGET_EXIT)	/* ended after the trace */
		ap_cli_say("record", "the command, pid %d exited (%s)", s->pid,
			   ap_session_exit_text(s, st, sizeof(st)));
	return 0;
}

/* The recording's end as record's exit code, by the order of the enum above. */
static int exit_code(const struct ap_session *s, bool trace_failed)
{
	int rc;

	if (trace_failed || s->end_reason == AP_END_ERROR)
		return AP_EXIT_RUNTIME;
	if (!s->started && s->end_reason == AP_END_TARGET_EXIT && !s->faults && !s->runs)
		return AP_EXIT_RUNTIME;	/* the process was gone before anything was seen */
	rc = runs_short(s);
	if (rc)
		return rc;
	if (s->started && s->target_gone && !s->ended_by_stop &&
	    (s->term_signal > 0 || s->exit_status > 0))
		return REC_EXIT_COMMAND;
	return AP_EXIT_OK;
}

/*
 * The trace written, the probe closed, the command's end awaited (a signal since the stop
 * is passed on to it): the messages, the code.
 */
static int finish(struct ap_session *s, struct ap_trace_sink *t, const char *out, bool json,
		  sig_atomic_t signals_at_stop)
{
	struct outcome o;
	char err[AP_ERR_LEN];
	bool failed = ap_trace_sink_close(t, s) != 0;
	int rc;

	outcome_take(&o, s, t);
	if (failed && t->close_failed)
		ap_cli_say("record", "%s", t->err);
	else if (failed)
		ap_cli_say("record", "writing %s failed: %s; the trace holds every whole record "
			   "before the failure", out, t->err);
	if (s->end_reason == AP_END_TARGET_EXIT)
		ap_cli_say("record", "%s %d exited (%s)%s", s->started ? "the command, pid" :
			   "process", s->pid, ap_session_exit_text(s, err, sizeof(err)),
			   !s->faults && !s->runs ? " before any fault or run was seen" : "");
	if (!failed)
		ap_cli_say("record", "%" PRIu64 " faults, %" PRIu64 " runs, %llu dropped "
			   "events; trace %s (complete)", s->faults, s->runs,
			   (unsigned long long)s->counters.ringbuf_drops, out);
	if (s->counters.ringbuf_drops)
		ap_cli_say("record", "warning: %llu events were dropped: the ring buffer (%s) "
			   "overflowed; record again with a larger --ring-size",
			   (unsigned long long)s->counters.ringbuf_drops,
			   ap_fmt_bytes(o.ring_bytes, (char[32]){ 0 }, 32));
	ap_session_detach(s);	/* the command runs on untraced (--runs N) */
	rc = s->started ? command_end(s, signals_at_stop) : 0;
	if (!rc)
		rc = exit_code(s, failed);
	if (json && !failed)
		print_json(s, out, &o, rc);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	struct ap_session_opts so;
	struct ap_session_sink messages = { .note = print_note, .setup_notes = true };
	struct sigaction sa = { .sa_sigaction = on_signal, .sa_flags = SA_SIGINFO };
	struct ap_session s;
	struct ap_trace_sink t;
	char *out, err[AP_ERR_LEN];
	bool tty = isatty(STDERR_FILENO), json;
	uint64_t t0, next;
	sig_atomic_t signals;
	int rc = parse_args(argc, argv, &so, &out, &json);

	if (rc != GO_ON)
		return rc;
	if (ap_btf_choose(btf_opt, err)) {
		ap_cli_say("record", "%s", err);
		return AP_EXIT_USAGE;
	}
	/* a closed stderr pipe must not kill the recorder before the trace is finished,
	 * and the session's first notes may already meet one (the command gets its
	 * default back before exec: record/spawn.c) */
	signal(SIGPIPE, SIG_IGN);
	rc = ap_session_start(&s, &so, err);
	if (rc) {
		ap_cli_say("record", "%s", err);
		return ap_cli_exit(rc);
	}
	if (ap_trace_sink_open(&t, &s, out, err)) {
		ap_cli_say("record", "%s", err);
		ap_session_free(&s);
		return AP_EXIT_USAGE;
	}
	t.sink.next = &messages;
	if (!quiet)
		ap_cli_say("record", "tracing pid %d with %s; writing %s", s.pid,
			   ap_method_name(ap_probe_method(s.probe)), out);
	ring_say(s.probe);

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	if (ap_session_release(&s, &t.sink)) {
		/* the command never ran: nothing was recorded, so no trace is left behind,
		 * and the stop's notes (counts of nothing) are not printed */
		t.sink.next = NULL;
		ap_session_stop(&s, 0);
		ap_trace_sink_close(&t, &s);
		unlink(out);
		ap_session_free(&s);
		return AP_EXIT_USAGE;
	}
	t0 = next = ap_clock_ns(CLOCK_MONOTONIC) + 1000000000ULL;
	t0 -= 1000000000ULL;
	while (ap_session_step(&s, -1))
		if (tty)
			status_line(&s, &t, t0, &next);
	signals = n_signals;
	status_clear();
	ap_session_stop(&s, 0);
	rc = finish(&s, &t, out, json, signals);
	ap_session_free(&s);
	return rc;
}
