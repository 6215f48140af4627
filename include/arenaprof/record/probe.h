/* SPDX-License-Identifier: Apache-2.0 */
/*
 * probe: picks and attaches the fault source (bpf/arenaprof.bpf.c) for one target
 * process, attaches run/op marker uprobes, and hands out the ring buffer's records.
 *
 * Methods, in auto order (docs/fault-sources.md):
 *   tp      tp_btf/page_fault_user (x86 only; auto skips it elsewhere): read/write/exec/
 *           protection known, major not.
 *   fentry  fexit on handle_mm_fault: major/minor and errors known, retries reported once.
 *   perf    software minor-faults + major-faults events, one of each per online CPU:
 *           major/minor known, read/write not; faults ending in an error are not seen.
 * Only the chosen method's programs are loaded. A method is never left half-attached:
 * a failure detaches everything it attached before the next method is tried.
 */
#ifndef ARENAPROF_PROBE_H
#define ARENAPROF_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/event.h"
#include "arenaprof/record/method.h"

struct ap_probe_opts {
	int pid;			/* target tgid */
	enum ap_method method;		/* AP_METHOD_NONE = auto: tp, fentry, then perf */
	uint32_t ring_bytes;		/* ring buffer size; rounded up to a power of 2 >= page;
					 * 0: from the fault rate measured here
					 * (ring_sizing.h) */
	bool verbose;			/* libbpf debug output to stderr */
};

#define AP_PROBE_MAX_ARG 5		/* op index argument: 0..5 (x86, arm64), else 0..4 */

struct ap_probe;

/* 0, or a negative errno with err ("tp: ...; fentry: ...; perf: ..." in auto mode). */
int ap_probe_open(struct ap_probe **p, const struct ap_probe_opts *o, char *err);
enum ap_method ap_probe_method(const struct ap_probe *p);
/* The ring's size, and the fault rate it was sized from (0 when ring_bytes was given). */
uint32_t ap_probe_ring_bytes(const struct ap_probe *p);
double ap_probe_sized_for_rate(const struct ap_probe *p);
/* Auto mode: why the methods tried before the chosen one failed, e.g. "fentry: loading
 * handle_mm_fault fexit failed: not supported by this kernel (ENOTSUPP)"; "" when the
 * first one worked or the method was forced. */
const char *ap_probe_auto_skipped(const struct ap_probe *p);

/*
 * Feature probe: can this method load and attach here? It really loads the method's
 * programs and attaches them (matching no process), then detaches. why (AP_ERR_LEN)
 * gets a one-line reason if not, e.g.
 *   "fentry: loading handle_mm_fault fexit failed: Operation not permitted (EPERM)".
 */
bool ap_probe_supported(enum ap_method m, char *why);
/* The same, 0 or the failed step's negative errno (-EPERM: the kernel refused it). */
int ap_probe_try(enum ap_method m, char *why);

/* libbpf's messages to stderr for ap_probe_supported too (ap_probe_open sets it from
 * its opts). */
void ap_probe_set_verbose(bool on);

/*
 * Markers, attachable at any time (also before the target execs: uprobes are per inode
 * with a pid filter). arg is the 0-based argument holding the op index.
 */
/* obj_arg: the function's first argument is the object run (an interpreter, a compiled
 * model), recorded with each run that changes it (trace.h's AP_REC_RUN_OBJ); true for
 * the entry points symbols.c finds, false for a --run-probe of unknown signature. */
int ap_probe_attach_run(struct ap_probe *p, const char *binary, const char *symbol,
			bool obj_arg, char *err);
int ap_probe_attach_op(struct ap_probe *p, const char *binary, const char *symbol, int arg,
		       char *err);

/*
 * The allocation probe (bpf/arenaprof.bpf.c): uprobes on malloc, calloc, realloc,
 * aligned_alloc, memalign, posix_memalign and free of the C library at libc_path, for
 * the target only (attachable before it execs, like the markers). Functions that share an
 * address (glibc's aligned_alloc and memalign) are attached once. Allocations whose size
 * lies in the window (ap_probe_set_alloc_window) come as AP_EV_ALLOC events with the
 * pointer returned, and so does the later free of each. 0, or a negative errno with err
 * (-ENOENT: no such functions, not a C library; nothing is left attached then). what
 * (may be NULL, len bytes) gets the functions attached, e.g. "malloc calloc realloc
 * aligned_alloc memalign(=aligned_alloc) posix_memalign free".
 */
int ap_probe_attach_alloc(struct ap_probe *p, const char *libc_path, char *what, size_t len,
			  char *err);
/*
 * XNNPACK's default allocator in the ELF file at path, its five functions at the file
 * offsets off (symbols.h's order): every block XNNPACK takes, whatever its size, comes as
 * an AP_EV_ALLOC event with XNNPACK's function, the caller and the caller's caller, and so
 * does its free. These are never detached (XNNPACK allocates at create and reshape, not
 * per run). 0, or a negative errno with err (nothing is left attached then).
 */
int ap_probe_attach_xnn(struct ap_probe *p, const char *path, const uint64_t *off, char *err);
/* Report allocations of min..max bytes (inclusive); 0, 0: none. Takes effect at once. */
void ap_probe_set_alloc_window(struct ap_probe *p, uint64_t min, uint64_t max);
void ap_probe_alloc_counters(const struct ap_probe *p, struct ap_alloc_counters *c);

/*
 * Detaches the allocation probe's malloc, calloc, realloc and free uprobes, the calls a
 * program makes all the time (each costs a trap, and the allocations a return probe),
 * and keeps aligned_alloc, memalign and posix_memalign: after the first inference, what
 * is left to follow is the arena's re-plans. Detaching waits for the probes in flight (a
 * tenth of a second per link): a thread of the probe's does it, joined at close. Returns
 * the links being detached.
 */
size_t ap_probe_quiet_alloc(struct ap_probe *p);

/* record --runs N: the run probe's return for the N-th run (and later) wakes the reader
 * at once instead of waiting for a batch. 0: never. */
void ap_probe_set_wake_runs(struct ap_probe *p, uint32_t runs);

/*
 * Waits up to timeout_ms and calls cb for every event; returns the count, or a negative
 * errno with err.
 * cb returning non-zero stops the poll early (returns what was consumed, that event
 * included).
 */
int ap_probe_poll(struct ap_probe *p, int timeout_ms,
		  int (*cb)(void *ctx, const struct ap_event *ev), void *ctx, char *err);

/*
 * The tp source keeps each CPU's faults in a batch until it is full (event.h): sends every
 * CPU's batch to the ring now, for the next poll to read. The session calls it at every
 * sample and before its last drain. Other sources send every fault at once: a no-op.
 */
void ap_probe_flush(struct ap_probe *p);

/* A snapshot of the BPF side's counters (events, drops, vma misses, retries). */
void ap_probe_counters(const struct ap_probe *p, struct ap_counters *c);
/*
 * The fault programs' time in the kernel so far and their runs (bpf_prog_info run_time_ns
 * and run_cnt): both 0 unless sysctl kernel.bpf_stats_enabled is 1.
 */
void ap_probe_fault_stats(const struct ap_probe *p, uint64_t *run_ns, uint64_t *runs);
void ap_probe_close(struct ap_probe *p);

#endif
