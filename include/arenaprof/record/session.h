/* SPDX-License-Identifier: Apache-2.0 */
/*
 * session: the collector and the samplers of one traced process, shared by `record` and
 * the live TUI (docs/design.md, "The pipeline"). A session starts the
 * target (stopped until released) or attaches to it, opens the fault source and the
 * markers, then, step by step, polls the ring buffer, samples /proc (status every
 * interval, smaps_rollup at its own slower rate), cgroup and PSI, snapshots the mappings
 * when they change, finds LiteRT's invoke entry point when no run probe was given, counts
 * runs and drops, and ends on the first stop condition. Everything it sees goes to a
 * chain of sinks: record's writes a trace, the TUI's updates its live model (and a trace).
 *
 *	ap_session_start()	spawn stopped (or check the pid), probe, markers
 *	ap_session_header()	what a trace header says about it
 *	ap_session_release()	let a started command exec / snapshot an attached one
 *	ap_session_step()...	until it returns 0
 *	ap_session_stop()	drain, end a started command, final counters
 *	ap_session_end()	the AP_REC_END payload
 *	ap_session_detach()	stop tracing; a command left running runs on untraced
 *	ap_session_wait()	wait for that command's end
 *	ap_session_free()
 *
 * Nothing here prints: messages go to the sinks' note callback, errors to err.
 */
#ifndef ARENAPROF_SESSION_H
#define ARENAPROF_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/utsname.h>

#include "arenaprof/util/err.h"
#include "arenaprof/record/alloc_probe.h"
#include "arenaprof/event.h"
#include "arenaprof/kernel/procfs.h"
#include "arenaprof/record/session_dmabuf.h"
#include "arenaprof/record/spawn.h"
#include "arenaprof/trace/trace.h"

#define AP_SESSION_INTERVAL_MS 100	/* record's default sample interval */
#define AP_UNLIMITED (UINT64_MAX - 1)	/* a cgroup limit of "max" (AP_NO_VALUE: unread) */

/* PSI averages are percent x 100 (avg10 1.25 % -> 125); totals in microseconds. */
struct ap_psi_figures {
	uint64_t some_avg[3], full_avg[3];	/* avg10, avg60, avg300 */
	uint64_t some_total, full_total;
};

/*
 * What the cgroup and psi modules read besides the trace sample's fields; every number
 * AP_NO_VALUE until sample_kernel_accounting() (session.c) is given a source.
 */
struct ap_kernel_acct {
	char cg_path[256];		/* the target's cgroup v2 path, "" unknown */
	uint64_t cg_current, cg_peak;	/* memory.current, memory.peak (held fd) */
	uint64_t cg_max, cg_high, cg_min, cg_low;	/* AP_UNLIMITED for "max" */
	/* memory.events.local */
	uint64_t ev_low, ev_high, ev_max, ev_oom, ev_oom_kill;
	struct ap_psi_figures psi_sys;	/* /proc/pressure/memory */
	struct ap_psi_figures psi_cg;	/* the cgroup's memory.pressure */
};

/* One sample: the trace record and the figures it has no room for. */
struct ap_session_sample {
	struct ap_rec_sample rec;	/* AP_NO_VALUE where unread */
	bool smaps_read;		/* rec's smaps_rollup fields were read this time */
	struct ap_kernel_acct acct;
};

/*
 * A sink: callbacks for what the session sees, in the order it sees it. Any callback may
 * be NULL. Sinks chain through next; each gets everything, in chain order. Returning
 * non-zero says the sink failed: the session ends (failed set) at the end of the step,
 * but keeps calling every sink until it is freed (a failed sink ignores what follows).
 */
struct ap_session_sink {
	void *ctx;
	/* faults and run/op markers, as the ring buffer delivers them */
	int (*event)(void *ctx, const struct ap_event *ev);
	/* a new maps snapshot (numbered from 1), sent only when the mappings changed */
	int (*mappings)(void *ctx, const struct ap_maps *maps, uint32_t snapshot,
			uint64_t ts_ns);
	/* -p: pages of one mapping resident at attach; bitmap (bytes long) as in
	 * AP_REC_RESIDENT */
	int (*resident)(void *ctx, const struct ap_rec_resident *rr, const uint8_t *bitmap,
			size_t bytes);
	int (*sample)(void *ctx, const struct ap_session_sample *s);
	/* the BPF side's counters, sent when they changed (and at the end) */
	int (*drops)(void *ctx, const struct ap_rec_drops *d);
	/* level 0 info, 1 warning, 2 error; one line. AP_NOTE_SETUP (the set-up lines) only
	 * to a sink with setup_notes set, as 0 to the others */
	int (*note)(void *ctx, uint32_t level, uint64_t ts_ns, const char *text);
	bool setup_notes;
	/*
	 * the target's dma-bufs, when they changed (session_dmabuf.h): rec, then each of
	 * d->cur's buffers (ap_dmabuf_sampler_buf)
	 */
	int (*dmabuf)(void *ctx, const struct ap_rec_dmabuf *rec,
		      const struct ap_dmabuf_sampler *d);
	/* a dma-buf the target exported, or its release (session_dmabuf.h: events) */
	int (*dmabuf_ev)(void *ctx, const struct ap_rec_dmabuf_ev *e);
	/* once per interval, after the samples: a durability point */
	int (*flush)(void *ctx);
	const struct ap_session_sink *next;
};

struct ap_session_opts {
	int pid;			/* > 0: attach to this process (-p) */
	char **argv;			/* else: start this command (NULL-terminated) */
	enum ap_method method;		/* AP_METHOD_NONE: auto */
	uint32_t ring_bytes;		/* 0: sized from the measured fault rate */
	bool verbose;			/* libbpf diagnostics on stderr */
	const char *run_spec;		/* "BINARY:SYMBOL"; NULL: find LiteRT's invoke */
	const char *op_spec;		/* "BINARY:SYMBOL[:ARG]"; NULL: none */
	uint32_t interval_ms;		/* samples, counters, maps (0: AP_SESSION_INTERVAL_MS) */
	uint32_t smaps_interval_ms;	/* smaps_rollup; 0: with every sample */
	uint64_t runs_limit;		/* stop after N completed runs; 0: none */
	bool kill_at_runs;		/* ... and end a started command there (else it
					 * runs on, untraced once detached) */
	uint64_t duration_ns;		/* stop after this long; 0: none */
	bool keep;			/* leave a started command running at the end (and
					 * when the recorder dies: no parent-death signal) */
	const char *user;		/* run the command as this user; NULL: as we are */
	bool full_acct;			/* every cgroup and PSI figure (the TUI), not only
					 * the trace sample's (record) */
	bool dmabuf;			/* sample the target's dma-bufs (record) */
	volatile sig_atomic_t *stop;	/* non-zero: end (AP_END_SIGNAL) at the next step */
	/* the allocation probe (alloc_probe.h): record --arena auto|ADDR|off */
	uint32_t arena_mode;		/* enum ap_arena_mode; 0: off */
	uint64_t arena_addr;		/* AP_ARENA_GIVEN: the arena's address */
	uint64_t alloc_min;		/* report blocks this large; 0: AP_SESSION_ALLOC_MIN */
	bool procfs_only;		/* no BPF at all: /proc, cgroup and PSI samples only
					 * (top without the privilege to load BPF); no fault,
					 * marker or allocation event, no markers allowed */
};

/*
 * The options every face of a session takes alike, by getopt letter: p (pid), m (probe
 * method), R (run probe), O (op probe), s (ring size), v (verbose). 1: taken; 0: not one
 * of these; -EINVAL: a bad value.
 */
int ap_session_parse_opt(struct ap_session_opts *so, int c, const char *arg);

/* The option a getopt value belongs to, for messages ("--probe" for "--probe bogus"). */
const char *ap_opt_name(char **argv, int optind, const char *optarg);

struct ap_probe;
struct ap_cg_session;
struct ap_trace_ring;

/* Read-only for callers, except through the functions below. */
struct ap_session {
	struct ap_session_opts o;
	const struct ap_session_sink *sink;
	struct ap_probe *probe;
	int pid;
	bool started;			/* a command started by the session */
	char cmdline[1024];
	struct utsname uts;
	uint64_t t_start_ns;		/* CLOCK_MONOTONIC at the header */
	uint64_t t_start_real_ns;
	/* counts */
	uint64_t faults, runs;
	struct ap_counters counters;	/* as last sent to the sinks */
	/* the latest maps snapshot */
	struct ap_maps maps;
	bool have_maps;
	uint32_t snapshot;
	bool run_probe;			/* a run probe is attached (given or found) */
	/* state */
	bool target_gone;
	int exit_status, term_signal;	/* -1 and 0 while unknown (-p: not our child) */
	uint64_t start_time;		/* -p: /proc/PID/stat's, to tell a reused pid */
	uint32_t end_reason;		/* enum ap_end_reason, 0 while running */
	bool ended_by_stop;		/* ap_session_stop sent the command SIGTERM */
	bool failed;			/* a sink failed */
	/* private */
	bool maps_stale;		/* a fault hit a vma the last snapshot lacks */
	bool stopped;			/* ap_session_stop ran */
	uint64_t t_runs_end;		/* --runs N: when the N-th run ended */
	struct ap_cg_session *cg;	/* the target's memory cgroup and PSI; NULL none */
	uint64_t last_snapshot, t_next, t_end, t_next_smaps;
	struct ap_spawn child;		/* the command, held until the tracer is attached */
	struct ap_spawn_user user;	/* --user, looked up; have_user */
	bool have_user;
	char **checked;			/* ELF files searched for a LiteRT entry point */
	size_t n_checked;
	struct ap_alloc_probe alloc;	/* the allocation probe's own state */
	struct ap_dmabuf_sampler *dmabuf;	/* opts.dmabuf: the sampler; NULL none */
};

/*
 * Starts the command stopped (or checks that opts->pid exists), opens the fault source
 * and attaches the markers. Returns 0, or with err set (without a command prefix):
 * -ESRCH for a process that does not exist, -EINVAL for a bad marker spec, -EAGAIN for a
 * command that cannot be started, -EPERM for a fault source that cannot be loaded (the
 * message says when it is a matter of permission). On failure nothing is left: no child,
 * no probe.
 */
int ap_session_start(struct ap_session *s, const struct ap_session_opts *opts, char *err);
/* The trace header and its six strings (pointers into s) for this session. */
void ap_session_header(struct ap_session *s, struct ap_rec_header *h,
		       const char *strings[AP_HS_COUNT]);
/*
 * From here on everything goes to the sink chain. Attached: snapshots the mappings and
 * the pages already resident. Started: lets the command exec and snapshots its mappings;
 * the exec's negative errno when it could not exec (a note says why; end_reason
 * AP_END_ERROR). Sampling begins.
 */
int ap_session_release(struct ap_session *s, const struct ap_session_sink *sink);
/*
 * One turn: samples when due (stopping if the target is gone), checks the stop
 * conditions, then polls the ring buffer up to the next sample or max_wait_ms
 * (< 0: no limit). 1 while the session goes on, 0 when it has ended (end_reason, or
 * failed: a sink failed).
 */
int ap_session_step(struct ap_session *s, int max_wait_ms);
/* The next step samples at once (after a reset, say). */
void ap_session_sample_now(struct ap_session *s);
/*
 * Resets the peaks: VmHWM (clear_refs 5) and the cgroup's memory.peak (its held fd),
 * then samples at the next step. 0 both (or no cgroup is read); 1 VmHWM only, err says
 * why memory.peak was not (a kernel before 6.12, cgroup v1); ap_procfs_reset_hwm's
 * negative errno with err if VmHWM could not be reset.
 */
int ap_session_reset_peaks(struct ap_session *s, char *err);
/* Sends the counters now, changed or not (before a snapshot of the trace). */
void ap_session_send_counters(struct ap_session *s);
/* A note to the sinks, as the session's own. */
void ap_session_note(struct ap_session *s, uint32_t level, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * Ends the session with reason (if none yet; 0: as it is): drains what the kernel
 * queued, ends a started command (SIGTERM, ended_by_stop) unless keep or it exited, and
 * at --runs N only with kill_at_runs (else ap_session_wait), sends the final counters.
 * Only the first call does anything.
 */
void ap_session_stop(struct ap_session *s, uint32_t reason);
/*
 * How the target ended, for a message: "status 3", "killed by signal 9 (Killed)",
 * "status unknown: not our child" (-p: its parent reaped it before we could read it).
 */
const char *ap_session_exit_text(const struct ap_session *s, char *buf, size_t len);
/* The AP_REC_END payload of a stopped session. */
void ap_session_end(const struct ap_session *s, struct ap_rec_end *end);
/* Closes the probe of a stopped session: no program or uprobe stays on the target. */
void ap_session_detach(struct ap_session *s);
/*
 * Waits for a started command that ap_session_stop left running (--runs without
 * kill_at_runs) to end, for exit_status and term_signal; a signal counted in *n_signals
 * past seen is passed on as *pass_on says (ap_spawn_wait). 0 at once when there is none
 * to wait for, else waitpid's -errno.
 */
int ap_session_wait(struct ap_session *s, volatile sig_atomic_t *n_signals,
		    volatile sig_atomic_t *pass_on, sig_atomic_t seen);
/* Closes the probe and frees everything; a started command not yet released exits. */
void ap_session_free(struct ap_session *s);


/* ---- a sink that writes the session into a trace file (record; the TUI's `w`) ---- */

struct ap_trace_sink {
	struct ap_trace_writer w;
	struct ap_session_sink sink;	/* bound to this; set its next to chain more */
	int failed;			/* 0, or the negative errno of the write that
					 * failed: err says why */
	bool close_failed;		/* ap_trace_sink_close: every write went through,
					 * closing failed */
	bool soft;			/* a failed write is not the session's failure (the
					 * TUI goes on without its trace) */
	char err[AP_ERR_LEN];
	struct ap_trace_ring *ring;	/* private: ap_trace_sink_open_ring's; NULL: one file */
	uint64_t run_obj;		/* private: the object of the last RUN_OBJ written */
};

/* Creates path with the session's header (after ap_session_start). 0 or a negative errno
 * with err. */
int ap_trace_sink_open(struct ap_trace_sink *t, struct ap_session *s, const char *path,
		       char *err);
/*
 * The live view's hidden trace, bounded: a ring that keeps about the last cap bytes of the
 * session (record/session_trace.c says how) in two files it creates in dir and unlinks at
 * once. cap >= 1 MiB. What a save holds is a trace of its own: the header record, the
 * mappings, the pages resident at attach and the latest sample and counters, a note of
 * how many records were dropped before it (when any were), then the session's last
 * records. The files stay within cap unless the maps snapshot alone is over cap / 4. 0 or
 * a negative errno with err.
 */
int ap_trace_sink_open_ring(struct ap_trace_sink *t, struct ap_session *s, const char *dir,
			    uint64_t cap, char *err);
/* Bytes the sink's files hold now, its ring's cap (0: no ring) and records dropped so far. */
void ap_trace_sink_usage(const struct ap_trace_sink *t, uint64_t *bytes, uint64_t *cap,
			 uint64_t *dropped);
/* Writes what the sink holds, flushed, as one trace (no end record) into fd. 0 or a
 * negative errno with err. */
int ap_trace_sink_save(struct ap_trace_sink *t, int fd, char *err);
/*
 * Writes the END record of a stopped session and closes. 0, or the negative errno of a
 * write that failed (the file holds every whole record before it) or of the close
 * (t->close_failed); t->err says why.
 */
int ap_trace_sink_close(struct ap_trace_sink *t, const struct ap_session *s);

#endif
