// SPDX-License-Identifier: Apache-2.0
/*
 * arenaprof record: traces the page faults of a process (started here, stopped until the
 * tracer is attached, or attached with -p) into a trace file, with run/op markers and
 * /proc samples, until the target exits, N runs complete, the duration ends or a signal
 * arrives. Every stop finalises the trace. The collecting is the session's (session.h);
 * this file is the options, the trace sink and the messages.
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
#include "arenaprof/record/session.h"
#include "arenaprof/util/units.h"
#include "arenaprof/util/clock.h"


static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static bool status_shown;	/* the status line is on the terminal, to be cleared */

static void status_clear(void)
{
	if (status_shown)
		fputs("\r\033[K", stderr);
	status_shown = false;
}

/* Every note of the session, as one line on stderr (the trace sink keeps it too). */
static int print_note(void *ctx, uint32_t level, uint64_t ts_ns, const char *text)
{
	(void)ctx;
	(void)ts_ns;
	status_clear();
	ap_cli_say("record", "%s%s", level >= 2 ? "error: " : level ? "warning: " : "", text);
	return 0;
}

/* --json: the recording's outcome as one JSON object, the last line on stdout. */
static void print_json(const struct ap_session *s, const char *out, uint64_t bytes, int rc)
{
	uint64_t run_ns, runs;
	struct rusage ru;
	struct ap_json j;

	ap_json_init(&j, stdout);
	ap_json_obj(&j, NULL);
	ap_json_str(&j, "trace", out);
	ap_json_u64(&j, "trace_bytes", bytes);
	ap_json_i64(&j, "pid", s->pid);
	ap_json_str(&j, "method", ap_method_name(ap_probe_method(s->probe)));
	ap_json_u64(&j, "faults", s->faults);
	ap_json_u64(&j, "runs", s->runs);
	ap_json_u64(&j, "dropped_events", s->counters.ringbuf_drops);
	ap_json_u64(&j, "ring_bytes", ap_probe_ring_bytes(s->probe));
	ap_json_u64(&j, "ring_sized_for_faults_per_s",
		    (uint64_t)ap_probe_sized_for_rate(s->probe));
	/* for make bench: the recorder's own cost (bpf stats only when enabled) */
	ap_probe_fault_stats(s->probe, &run_ns, &runs);
	ap_json_u64(&j, "bpf_fault_run_ns", run_ns);
	ap_json_u64(&j, "bpf_fault_runs", runs);
	if (!getrusage(RUSAGE_SELF, &ru))
		ap_json_u64(&j, "recorder_peak_rss_bytes", (uint64_t)ru.ru_maxrss * 1024);
	ap_json_obj(&j, "end");
	ap_json_str(&j, "reason", ap_trace_end_reason(s->end_reason));
	if (s->exit_status >= 0 && !s->term_signal)
		ap_json_i64(&j, "exit_status", s->exit_status);
	else
		ap_json_null(&j, "exit_status");
	if (s->term_signal > 0)
		ap_json_i64(&j, "signal", s->term_signal);
	else
		ap_json_null(&j, "signal");
	ap_json_end_obj(&j);
	ap_json_i64(&j, "exit_code", rc);
	ap_json_end_obj(&j);
	ap_json_finish(&j);
}

/* The ring's size, and what it was sized from. */
static void ring_say(const struct ap_probe *p)
{
	char b[32];

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
		"                        [--ring-size SIZE] [--arena auto|off|ADDR] [--keep]\n"
		"                        [--user USER] [--btf FILE] [--json] [-v]\n\n"
		"Traces every page fault of a process into TRACE (see arenaprof-trace(5)).\n"
		"  -- CMD ARGS      start CMD, attach before it runs: no first touch is missed\n"
		"  -p PID           attach to a running process; pages already resident are "
		"recorded\n"
		"  --runs N         stop after N completed runs (needs a run probe)\n"
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
		"  --keep           with -- CMD and --runs: leave the command running at the end\n"
		"                   (and if the recorder dies; without it, the command gets\n"
		"                   SIGKILL when the recorder dies)\n"
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
		"  -v               libbpf diagnostics\n"
		"On a terminal a status line (time, runs, faults, bytes written, drops) is\n"
		"rewritten once a second.\n"
		"Exit: 0; with -- CMD, CMD's own exit status when it ends by itself with one\n"
		"(128 + the signal when a signal killed it), as strace does; 1 when recording\n"
		"failed, 2 for bad usage. The trace is complete in every case but 1.\n");
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
					.interval_ms = AP_SESSION_INTERVAL_MS,
					.stop = &stop_signal, .arena_mode = AP_ARENA_AUTO };
	*out = NULL;
	*json = false;
	btf_opt = NULL;
	ap_opts_init(&op, "+p|pid: o|output: n|runs: d|duration: m|probe: R|run-probe: O|op-probe: "
		     "i|interval: s|ring-size: k|keep u|user: A|arena: j=json v|verbose h|help "
		     "B=btf:");
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

/*
 * The command's own end as record's exit code, as strace gives it: its exit status, or
 * 128 + the signal that killed it (the trace is complete either way).
 */
static int target_status(const struct ap_session *s)
{
	if (s->term_signal > 0)
		return 128 + (s->term_signal & 127);
	return s->exit_status > 0 ? s->exit_status & 255 : AP_EXIT_OK;
}

int cmd_record(int argc, char **argv)
{
	struct ap_session_opts so;
	struct ap_session_sink messages = { .note = print_note };
	struct sigaction sa = { .sa_handler = on_signal };
	struct ap_session s;
	struct ap_trace_sink t;
	char *out, err[AP_ERR_LEN];
	bool tty = isatty(STDERR_FILENO), json;
	uint64_t t0, next;
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
	rc = AP_EXIT_OK;
	t0 = next = ap_clock_ns(CLOCK_MONOTONIC) + 1000000000ULL;
	t0 -= 1000000000ULL;
	while (ap_session_step(&s, -1))
		if (tty)
			status_line(&s, &t, t0, &next);
	status_clear();
	ap_session_stop(&s, 0);
	if (ap_trace_sink_close(&t, &s)) {
		if (t.close_failed)
			ap_cli_say("record", "%s", t.err);
		else
			ap_cli_say("record", "writing %s failed: %s; the trace holds every "
				"whole record before the failure", out, t.err);
		rc = AP_EXIT_RUNTIME;
		goto out;
	}
	if (s.end_reason == AP_END_TARGET_EXIT)
		ap_cli_say("record", "%s %d exited (%s)%s", s.started ? "the command, pid" :
			"process", s.pid, ap_session_exit_text(&s, err, sizeof(err)),
			!s.faults && !s.runs ? " before any fault or run was seen" : "");
	ap_cli_say("record", "%" PRIu64 " faults, %" PRIu64 " runs, %llu "
		"dropped events; trace %s", s.faults, s.runs,
		(unsigned long long)s.counters.ringbuf_drops, out);
	if (s.counters.ringbuf_drops)
		ap_cli_say("record", "warning: %llu events were dropped: the ring "
			"buffer (%s) overflowed; record again with a larger --ring-size",
			(unsigned long long)s.counters.ringbuf_drops,
			ap_fmt_bytes(ap_probe_ring_bytes(s.probe), (char[32]){ 0 }, 32));
	rc = s.end_reason == AP_END_ERROR ? AP_EXIT_RUNTIME : AP_EXIT_OK;
	if (!s.started && s.end_reason == AP_END_TARGET_EXIT && !s.faults && !s.runs)
		rc = AP_EXIT_RUNTIME;	/* the process was gone before anything was seen */
	if (!rc && s.started && s.end_reason == AP_END_TARGET_EXIT)
		rc = target_status(&s);
	if (json)
		print_json(&s, out, t.w.bytes, rc);
out:
	ap_session_free(&s);
	return rc;
}
