/* SPDX-License-Identifier: Apache-2.0 */
/*
 * event: the records the BPF programs write into the ring buffer (struct ap_ring_event,
 * perhaps followed by struct ap_ring_ext) and the event userspace makes of each (struct
 * ap_event), shared by bpf/ and src/. Plain __u32/__u64 fields, no vmlinux.h, so both
 * sides compile it.
 */
#ifndef ARENAPROF_EVENT_H
#define ARENAPROF_EVENT_H

#ifdef __BPF__
/* vmlinux.h provides the __u32 family */
#else
#include <linux/types.h>
#endif

enum ap_ev_type {
	AP_EV_FAULT = 1,
	AP_EV_RUN_BEGIN = 2,	/* run probe entry */
	AP_EV_RUN_END = 3,	/* run probe return */
	AP_EV_OP_BEGIN = 4,	/* op probe entry; op = the marker's argument */
	AP_EV_OP_END = 5,
	AP_EV_ALLOC = 6,	/* a C library allocation in the window, or a free of one */
	AP_EV_FAULT_BATCH = 7,	/* ring only: struct ap_ring_batch, faults of one CPU */
};

/*
 * The functions the allocation probe watches (AP_EV_ALLOC: the fn field; also the uprobe
 * attach cookie): the C library's, and XNNPACK's default allocator (the five functions of
 * its struct xnn_allocator, each with the allocator's context first), which XNNPACK calls
 * for every block it holds, whatever its size. glibc's aligned_alloc and memalign are one
 * function: events then say AP_ALLOC_ALIGNED_ALLOC. An XNNPACK block's align field holds
 * the caller's caller instead (XNNPACK aligns every block to one constant of its build).
 */
enum ap_alloc_fn {
	AP_ALLOC_MALLOC = 1,		/* malloc(size) */
	AP_ALLOC_CALLOC = 2,		/* calloc(n, size): size = n * size */
	AP_ALLOC_REALLOC = 3,		/* realloc(p, size) */
	AP_ALLOC_ALIGNED_ALLOC = 4,	/* aligned_alloc(align, size) */
	AP_ALLOC_MEMALIGN = 5,		/* memalign(align, size) */
	AP_ALLOC_POSIX_MEMALIGN = 6,	/* posix_memalign(&p, align, size) */
	AP_ALLOC_FREE = 7,		/* free(p) of a block an event reported */
	AP_ALLOC_XNN_ALLOCATE = 8,	/* xnn_allocate(context, size) */
	AP_ALLOC_XNN_REALLOCATE = 9,	/* xnn_reallocate(context, p, size) */
	AP_ALLOC_XNN_ALIGNED = 10,	/* xnn_aligned_allocate(context, align, size) */
	AP_ALLOC_XNN_FREE = 11,		/* xnn_deallocate(context, p) (probe only) */
	AP_ALLOC_XNN_ALIGNED_FREE = 12,	/* xnn_aligned_deallocate(context, p) (probe only) */
	AP_ALLOC_FN_MAX = AP_ALLOC_XNN_ALIGNED_FREE,
};

enum ap_fault_flag {
	AP_FF_WRITE = 1 << 0,		/* access known to be a write */
	AP_FF_EXEC = 1 << 1,		/* instruction fetch */
	AP_FF_ACCESS_KNOWN = 1 << 2,	/* the method tells read/write (tp, fentry) */
	AP_FF_PROTECTION = 1 << 3,	/* the page was present: a protection fault */
	AP_FF_MAJOR = 1 << 4,		/* major fault (I/O) */
	AP_FF_MAJMIN_KNOWN = 1 << 5,	/* the method tells major from minor */
	AP_FF_VMA_ANON = 1 << 6,	/* vma has no file */
	AP_FF_VMA_FILE = 1 << 7,	/* vma maps a file */
	AP_FF_VMA_UNKNOWN = 1 << 8,	/* bpf_find_vma failed (e.g. -EBUSY) */
	AP_FF_ERROR = 1 << 9,		/* the fault handler returned an error (fexit) */
};

/* Attach methods, in auto order. */
enum ap_method {
	AP_METHOD_NONE = 0,
	AP_METHOD_TP = 1,	/* tp_btf/page_fault_user (x86) */
	AP_METHOD_FENTRY = 2,	/* fentry/fexit handle_mm_fault */
	AP_METHOD_PERF = 3,	/* perf_event software page-faults, one per CPU */
};

/*
 * The event as userspace sees it, whole. AP_EV_ALLOC reuses the fields: addr is the block
 * (the pointer returned, or freed), ip the caller (the allocation function's return
 * address), and the vma fields are size (bytes requested), align (0 for malloc, calloc,
 * realloc, free) and fn (enum ap_alloc_fn). run and op as for faults.
 */
struct ap_event {
	__u64 ts_ns;		/* bpf_ktime_get_ns(): CLOCK_MONOTONIC */
	__u64 addr;		/* faulting address (0 = unknown) */
	__u64 ip;		/* user instruction pointer */
	union {
		struct {
			__u64 vm_start, vm_end;	/* the vma, when known */
			__u64 vm_flags;
		};
		struct {		/* AP_EV_ALLOC */
			__u64 size, align, fn;
		};
	};
	__u32 tid;
	__u32 type;		/* enum ap_ev_type */
	__u32 flags;		/* enum ap_fault_flag */
	__s32 run;		/* runs begun so far in the target, minus 1 (-1: none yet) */
	__s32 op;		/* this thread's current operator (-1: none) */
	__u32 pad;
};

/*
 * What a BPF program writes: 48 bytes, 72 with the extension. A fault carries its vma in
 * the extension only when it differs from the one the previous fault on the same CPU
 * carried (the perf programs run with preemption off, so a CPU's records are in the
 * ring in the order they were decided); the reader keeps the last one per CPU
 * (record/probe.c). The fentry program, which can be preempted, always sends it. A fault
 * without an extension and with AP_FF_VMA_UNKNOWN has no vma. An allocation always has
 * the extension (size, align, fn); markers never.
 */
struct ap_ring_event {
	__u64 ts_ns;
	__u64 addr;
	__u64 ip;
	__u32 tid;
	__s32 run;
	__s32 op;
	__u32 cpu;		/* the CPU whose vma a fault without an extension shares */
	__u16 type;		/* enum ap_ev_type */
	__u16 flags;		/* enum ap_fault_flag */
	__u32 pad;
};

struct ap_ring_ext {
	__u64 a, b, c;		/* vm_start, vm_end, vm_flags; or size, align, fn */
};

struct ap_ring_event_ext {
	struct ap_ring_event e;
	struct ap_ring_ext x;
};

/*
 * The tp program (which runs with interrupts off, so a CPU's batch is never written by
 * two programs at once) keeps its faults in a per-CPU batch and writes the batch as one
 * record when it is full, when the next fault differs in thread, run, operator or vma,
 * or when the reader flushes it (a program run on each CPU): one ring record for up to
 * AP_RING_BATCH faults. h is a record header (type AP_EV_FAULT_BATCH; ts_ns, tid, run,
 * op and cpu those of every fault in it; pad the count n), x the vma of them all, then n
 * entries, each fault's time as ts_ns + dt.
 */
#define AP_RING_BATCH 64

struct ap_ring_fault {
	__u64 addr;
	__u64 ip;
	__u32 dt;		/* ns after the batch's ts_ns */
	__u16 flags;		/* enum ap_fault_flag */
	__u16 pad;
};

struct ap_ring_batch {
	struct ap_ring_event h;
	struct ap_ring_ext x;
	struct ap_ring_fault f[AP_RING_BATCH];
};

/* Counters the BPF side keeps in .bss; userspace reads and always reports them. */
struct ap_counters {
	__u64 events;		/* records written */
	__u64 ringbuf_drops;	/* bpf_ringbuf_reserve failed: events lost */
	__u64 vma_misses;	/* bpf_find_vma failed (-EBUSY...): vma unknown */
	__u64 retries;		/* VM_FAULT_RETRY seen by fexit (de-duplicated) */
};

/* The allocation probe's counters (.bss, apart from struct ap_counters, whose layout the
 * trace's drop records mirror). */
struct ap_alloc_counters {
	__u64 calls;		/* allocation calls seen (any size) */
	__u64 events;		/* of them in the window: reported */
	__u64 frees;		/* frees of reported blocks: reported */
	__u64 untracked;	/* reported blocks whose free cannot be followed (map full) */
};

#endif
