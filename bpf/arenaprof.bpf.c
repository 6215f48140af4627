// SPDX-License-Identifier: (GPL-2.0-only OR Apache-2.0)
/*
 * arenaprof.bpf.c: the fault source and the run/op markers, one CO-RE object.
 *
 * Three interchangeable fault sources; userspace autoloads only the chosen one:
 *   tp:     tp_btf/page_fault_user (x86): every user-mode fault at exception entry, with
 *           the error code (present, write, instruction fetch). Major/minor unknown.
 *   fentry: fexit/handle_mm_fault: sees the arguments and the return value, so one
 *           program is enough (see fault_exit below).
 *   perf:   perf_event programs on the software minor-faults and major-faults events,
 *           one event of each per online CPU (see perf_minor below).
 * Markers: uprobe/uretprobe pairs for run and op functions in the target.
 *
 * Every program filters by target_tgid, classifies the vma, fills in the run and op
 * indices from the markers and writes one struct ap_ring_event into the ring buffer, with
 * a struct ap_ring_ext after it when it has a new vma or an allocation's fields to say
 * (event.h); the tp program gathers its faults in a per-CPU batch instead, one record
 * for up to 64 faults (struct ap_ring_batch). Nothing is lost silently: failed reserves
 * and failed vma lookups are counted in .bss.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "arenaprof/event.h"

char LICENSE[] SEC("license") = "GPL";

/* x86 page fault error code bits (arch/x86/include/asm/trap_pf.h) */
#define X86_PF_PROT	(1 << 0)
#define X86_PF_WRITE	(1 << 1)
#define X86_PF_INSTR	(1 << 4)

/* VM_FAULT_ERROR is a macro in linux/mm_types.h, so vmlinux.h lacks it. */
#define AP_VM_FAULT_ERROR (VM_FAULT_OOM | VM_FAULT_SIGBUS | VM_FAULT_SIGSEGV | \
			   VM_FAULT_HWPOISON | VM_FAULT_HWPOISON_LARGE | VM_FAULT_FALLBACK)

/* Set by userspace before load. A tgid that can never exist matches nothing. */
const volatile __u32 target_tgid = 0xffffffff;
/* Wake the reader when events & wakeup_mask is 0: every 2^k records, 2^k set from the ring
 * size by userspace; 0 wakes it at every record. A mask, not a modulo, on the fault path. */
const volatile __u64 wakeup_mask = 0;

/* Userspace sets max_entries (a power of 2, >= page size) before load. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1 << 22);
} events SEC(".maps");

/* tid -> the operator index of the op marker this thread is inside. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __s32);
} cur_op SEC(".maps");

/*
 * tid -> how deep this thread is in run entry points. Several are attached at once (each
 * API LiteRT offers, and one calls another: CompiledModel's Run calls Interpreter::Invoke);
 * only the outermost call on a thread begins and ends a run. LRU: the entries of threads
 * gone make room for new ones.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} run_depth SEC(".maps");

/* .bss: read by userspace through the mmap'd skeleton. */
struct ap_counters counters;
/* Runs begun so far by the target (one target per object, so a plain global). */
__s32 runs_begun;

struct vma_info {
	__u64 start;
	__u64 end;
	__u64 flags;
	__u32 kind;		/* AP_FF_VMA_ANON, _FILE or _UNKNOWN */
};

static __always_inline bool is_target(void)
{
	return (bpf_get_current_pid_tgid() >> 32) == target_tgid;
}

static __always_inline void read_vma(struct vm_area_struct *vma, struct vma_info *vi)
{
	/* vm_flags is const (6.3+): read it with bpf_core_read, not BPF_CORE_READ. */
	bpf_core_read(&vi->flags, sizeof(vi->flags), &vma->vm_flags);
	vi->start = BPF_CORE_READ(vma, vm_start);
	vi->end = BPF_CORE_READ(vma, vm_end);
	vi->kind = BPF_CORE_READ(vma, vm_file) ? AP_FF_VMA_FILE : AP_FF_VMA_ANON;
}

/*
 * The last vma bpf_find_vma returned on this CPU. bpf_find_vma costs some 20 us a fault
 * (mmap trylock and a deferred unlock): a 1 GiB first-touch storm ran 10x slower. The
 * cache is exact, not heuristic: an entry is used only while the address space's
 * mm_lock_seq (a seqcount every mmap write-lock cycle bumps, 6.12+) is even (no writer)
 * and unchanged since the lookup, so no mmap, munmap or mprotect came between. Kernels
 * without it look up every fault.
 */
struct vma_cache {
	__u64 mm;
	__u64 seq;
	struct vma_info vi;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vma_cache);
} vma_cache SEC(".maps");

struct mm_struct___seqcount {
	seqcount_t mm_lock_seq;
} __attribute__((preserve_access_index));

/* mm's write sequence, or false when unusable (older kernel, or a writer is active). */
static __always_inline bool mm_write_seq(struct mm_struct *mm, __u64 *seq)
{
	struct mm_struct___seqcount *m = (void *)mm;
	__u32 v;

	if (!bpf_core_field_exists(m->mm_lock_seq.sequence))
		return false;
	/* a load through the task's own BTF pointer, not a probe-read call: 10 ns a fault */
	v = m->mm_lock_seq.sequence;
	if (v & 1)
		return false;
	*seq = v;
	return true;
}

static long find_vma_cb(struct task_struct *task, struct vm_area_struct *vma, void *data)
{
	read_vma(vma, data);
	return 0;
}

/*
 * bpf_find_vma takes the mmap lock with a trylock: under contention (a writer in another
 * thread), or while this CPU's deferred unlock is still pending, it fails with -EBUSY.
 * The event is kept with AP_FF_VMA_UNKNOWN and the miss is counted. An address of 0
 * (perf could not tell) is a miss too.
 */
static __always_inline void lookup_vma(__u64 addr, struct vma_info *out)
{
	struct task_struct *task = bpf_get_current_task_btf();
	struct mm_struct *mm = task->mm;
	struct vma_info vi = {};
	struct vma_cache *c;
	__u32 zero = 0;
	__u64 seq = 0;
	bool seq_ok = mm && mm_write_seq(mm, &seq);
	long err = -1;

	c = bpf_map_lookup_elem(&vma_cache, &zero);
	if (c && seq_ok && c->mm == (__u64)mm && c->seq == seq && addr >= c->vi.start &&
	    addr < c->vi.end) {
		*out = c->vi;
		return;
	}
	if (addr)
		err = bpf_find_vma(task, addr, find_vma_cb, &vi, 0);
	if (!err && c && seq_ok) {
		c->mm = (__u64)mm;
		c->seq = seq;
		c->vi = vi;
	}
	if (err) {
		__sync_fetch_and_add(&counters.vma_misses, 1);
		out->start = out->end = out->flags = 0;
		out->kind = AP_FF_VMA_UNKNOWN;
		return;
	}
	*out = vi;
}

/* Set by userspace before it attaches an op marker: until then no lookup (7 ns a fault). */
bool op_probes;

static __always_inline __s32 current_op(__u32 tid)
{
	__s32 *op;

	if (!op_probes)
		return -1;
	op = bpf_map_lookup_elem(&cur_op, &tid);

	return op ? *op : -1;
}

/* Fills the fields every record has. */
static __always_inline void ev_fill(struct ap_ring_event *e, __u32 type, __u32 tid)
{
	e->ts_ns = bpf_ktime_get_ns();
	e->addr = 0;
	e->ip = 0;
	e->tid = tid;
	e->run = runs_begun - 1;
	e->op = current_op(tid);
	e->cpu = bpf_get_smp_processor_id();
	e->type = type;
	e->flags = 0;
	e->pad = 0;
}

/* A record without (with) the extension; NULL (counted) when the ring is full. */
static __always_inline struct ap_ring_event *ev_reserve(__u32 type, __u32 tid)
{
	struct ap_ring_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		__sync_fetch_and_add(&counters.ringbuf_drops, 1);
		return NULL;
	}
	ev_fill(e, type, tid);
	return e;
}

static __always_inline struct ap_ring_event_ext *ev_reserve_ext(__u32 type, __u32 tid)
{
	struct ap_ring_event_ext *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		__sync_fetch_and_add(&counters.ringbuf_drops, 1);
		return NULL;
	}
	ev_fill(&e->e, type, tid);
	return e;
}

/*
 * A wakeup per record would cost the traced process a reader context switch per fault
 * (a fault storm ran 7x slower) and per marker (+10 % on a 330 us inference). Records
 * are batched: the reader is woken at every 2^k-th record (about an eighth of the
 * ring), and otherwise polls with a timeout (the sample interval), which also bounds how
 * late `record --runs N` stops. The count is the events counter's own: asking the ring
 * how much it holds (bpf_ringbuf_query) cost 25 ns a fault, a sixth of the program.
 */
static __always_inline void ev_submit_wake(void *e, bool wake)
{
	__u64 n = __sync_fetch_and_add(&counters.events, 1), flags = BPF_RB_NO_WAKEUP;

	if (wake || !(n & wakeup_mask))
		flags = BPF_RB_FORCE_WAKEUP;
	bpf_ringbuf_submit(e, flags);
}

static __always_inline void ev_submit(void *e)
{
	ev_submit_wake(e, false);
}

/*
 * The vma the previous fault on this CPU sent. A fault in another vma sends it, and wakes
 * the reader at once: a new mapping is then named from /proc/PID/maps while it still
 * exists, even in a process that lives for less than one sample interval.
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct vma_info);
} last_vma SEC(".maps");

/*
 * tp's per-CPU state: the batch (event.h: struct ap_ring_batch), and the address space and
 * its write sequence when the batch's vma (b.x) was looked up, the vma cache's rule: a
 * fault inside that vma needs no other lookup.
 */
struct tp_cpu {
	__u64 mm;		/* 0: b.x is no vma to use */
	__u64 seq;
	__u32 kind;
	__u32 pad;
	struct ap_ring_batch b;
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tp_cpu);
} tp_cpu SEC(".maps");

/*
 * The batch's n faults as one record. The reader is woken when the events counter
 * crosses a multiple of wakeup_mask + 1 (as ev_submit_wake does record by record), or
 * at once when wake says so.
 */
static __always_inline void batch_send(struct ap_ring_batch *b, bool wake)
{
	__u32 n = b->h.pad;
	__u64 before = counters.events, flags = BPF_RB_NO_WAKEUP;

	if (!n || n > AP_RING_BATCH) {
		b->h.pad = 0;
		return;
	}
	if (wake || ((before ^ (before + n)) & ~wakeup_mask))
		flags = BPF_RB_FORCE_WAKEUP;
	if (bpf_ringbuf_output(&events, b, sizeof(b->h) + sizeof(b->x) + n * sizeof(b->f[0]),
			       flags))
		__sync_fetch_and_add(&counters.ringbuf_drops, n);
	else
		__sync_fetch_and_add(&counters.events, n);
	b->h.pad = 0;
}

/*
 * A fault into this CPU's batch; the batch is sent first when the fault cannot join it.
 * The batch keeps the vma it last held when sent: a fault in another vma is sent (and
 * the reader woken) at once, so that the new vma is named from /proc/PID/maps while it
 * exists, even in a process that lives for less than one sample interval.
 */
static __always_inline void batch_fault(struct task_struct *task, __u64 addr, __u64 ip,
					__u32 flags)
{
	struct mm_struct *mm = task->mm;
	__u32 zero = 0, n, tid = task->pid;
	__u64 ts = bpf_ktime_get_ns(), seq = 0;
	__s32 run = runs_begun - 1, op = current_op(tid);
	struct tp_cpu *t = bpf_map_lookup_elem(&tp_cpu, &zero);
	bool seq_ok = mm && mm_write_seq(mm, &seq), changed = false, other = false;
	struct ap_ring_batch *b;
	struct vma_info vi;

	if (!t)
		return;
	b = &t->b;
	if (seq_ok && t->mm == (__u64)mm && t->seq == seq && addr >= b->x.a && addr < b->x.b) {
		flags |= t->kind;
	} else {
		lookup_vma(addr, &vi);
		flags |= vi.kind;
		other = b->x.a != vi.start || b->x.b != vi.end || b->x.c != vi.flags;
		changed = other && vi.kind != AP_FF_VMA_UNKNOWN;
		t->mm = seq_ok && vi.kind != AP_FF_VMA_UNKNOWN ? (__u64)mm : 0;
		t->seq = seq;
		t->kind = vi.kind;
	}
	n = b->h.pad;
	if (n && (other || b->h.tid != tid || b->h.run != run || b->h.op != op ||
		  ts - b->h.ts_ns > 0xffffffffULL)) {
		batch_send(b, false);
		n = 0;
	}
	if (n >= AP_RING_BATCH)
		return;
	if (!n) {
		b->h.ts_ns = ts;
		b->h.tid = tid;
		b->h.run = run;
		b->h.op = op;
		b->h.cpu = bpf_get_smp_processor_id();
		b->h.type = AP_EV_FAULT_BATCH;
	}
	if (other) {		/* the batch is empty now: its vma is this fault's */
		b->x.a = vi.start;
		b->x.b = vi.end;
		b->x.c = vi.flags;
	}
	b->f[n].addr = addr;
	b->f[n].ip = ip;
	b->f[n].dt = (__u32)(ts - b->h.ts_ns);
	b->f[n].flags = (__u16)flags;
	b->h.pad = n + 1;
	if (changed || n + 1 == AP_RING_BATCH)
		batch_send(b, changed);
}

/* The reader's flush (BPF_PROG_TEST_RUN on each CPU): the CPU's batch, however full. */
SEC("raw_tp")
int flush_batch(void *ctx)
{
	__u32 zero = 0;
	struct tp_cpu *t = bpf_map_lookup_elem(&tp_cpu, &zero);

	if (t)
		batch_send(&t->b, true);
	return 0;
}

/*
 * One fault record; vma == NULL: look it up with bpf_find_vma. shared: the program runs
 * with preemption off, so it may leave out a vma equal to the CPU's last (event.h).
 */
static __always_inline void emit_fault(__u64 addr, __u64 ip, __u32 flags,
				       struct vm_area_struct *vma, bool shared)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), zero = 0;
	struct ap_ring_event_ext *x;
	struct ap_ring_event *e;
	struct vma_info vi, *l;
	bool changed;

	if (vma)
		read_vma(vma, &vi);
	else
		lookup_vma(addr, &vi);
	flags |= vi.kind;
	l = bpf_map_lookup_elem(&last_vma, &zero);
	changed = l && vi.kind != AP_FF_VMA_UNKNOWN &&
		  (l->start != vi.start || l->end != vi.end || l->flags != vi.flags);
	if (shared && l && !changed) {
		e = ev_reserve(AP_EV_FAULT, tid);
		if (!e)
			return;
		e->addr = addr;
		e->ip = ip;
		e->flags = flags;
		ev_submit_wake(e, false);
		return;
	}
	x = ev_reserve_ext(AP_EV_FAULT, tid);
	if (!x)
		return;
	x->e.addr = addr;
	x->e.ip = ip;
	x->e.flags = flags;
	x->x.a = vi.start;
	x->x.b = vi.end;
	x->x.c = vi.flags;
	if (changed) {
		l->start = vi.start;
		l->end = vi.end;
		l->flags = vi.flags;
	}
	ev_submit_wake(x, changed);
}

/*
 * tp: fires once per user-mode hardware fault, before the kernel handles it (a retried
 * fault is one exception, so one event). The error code tells read/write/exec and
 * whether the page was present; not whether the fault will be major.
 */
SEC("tp_btf/page_fault_user")
int BPF_PROG(fault_tp, unsigned long address, struct pt_regs *regs, unsigned long error_code)
{
	/* the task's own fields, not bpf_get_current_pid_tgid: its mm is read anyway */
	struct task_struct *task = bpf_get_current_task_btf();
	__u32 flags = AP_FF_ACCESS_KNOWN;

	if ((__u32)task->tgid != target_tgid)
		return 0;
	if (error_code & X86_PF_WRITE)
		flags |= AP_FF_WRITE;
	if (error_code & X86_PF_INSTR)
		flags |= AP_FF_EXEC;
	if (error_code & X86_PF_PROT)
		flags |= AP_FF_PROTECTION;
	/* regs is the tracepoint's BTF pointer: a plain load */
	batch_fault(task, address, PT_REGS_IP(regs), flags);
	return 0;
}

/*
 * fentry method: fexit alone. An fexit program gets the arguments as well as the return
 * value, so an fentry twin would add only an earlier timestamp, at the price of a second
 * trampoline on every fault and per-thread state to pair the two.
 *
 * - VM_FAULT_RETRY: the handler dropped the lock and the arch code calls it again with
 *   FAULT_FLAG_TRIED; only that final call is reported, the retry is counted.
 * - major: VM_FAULT_MAJOR or FAULT_FLAG_TRIED, the rule mm_account_fault() uses.
 * - the vma argument is still locked on return unless the handler released it
 *   (VM_FAULT_RETRY, VM_FAULT_COMPLETED): read it directly, no lookup needed; after
 *   VM_FAULT_COMPLETED it may be gone, so look the address up instead.
 * - only FAULT_FLAG_USER: faults taken in user mode, as the tp and perf methods see.
 * - the regs argument exists since 5.9; bpf_find_vma needs 5.17 anyway.
 */
SEC("fexit/handle_mm_fault")
int BPF_PROG(fault_exit, struct vm_area_struct *vma, unsigned long address, unsigned int flags,
	     struct pt_regs *regs, vm_fault_t ret)
{
	__u32 ff = AP_FF_MAJMIN_KNOWN;
	__u64 ip = 0;

	if (!is_target() || !(flags & FAULT_FLAG_USER))
		return 0;
	if (ret & VM_FAULT_RETRY) {
		__sync_fetch_and_add(&counters.retries, 1);
		return 0;
	}
	if ((ret & VM_FAULT_MAJOR) || (flags & FAULT_FLAG_TRIED))
		ff |= AP_FF_MAJOR;
	if (ret & AP_VM_FAULT_ERROR)
		ff |= AP_FF_ERROR;
	if (flags & FAULT_FLAG_WRITE)
		ff |= AP_FF_WRITE;
	if (flags & FAULT_FLAG_INSTRUCTION)
		ff |= AP_FF_EXEC;
	/* FAULT_FLAG_WRITE is exact; a fault without it was a read or an exec. */
	ff |= AP_FF_ACCESS_KNOWN;
	if (regs)
		ip = PT_REGS_IP_CORE(regs);
	/* a trampoline can be preempted: every record carries its vma */
	emit_fault(address, ip, ff, (ret & VM_FAULT_COMPLETED) ? NULL : vma, false);
	return 0;
}

/*
 * perf method: the software minor-faults and major-faults events. Together they fire
 * exactly once for every fault that completes (mm_account_fault(): a retried fault is
 * counted once, at the end), with the faulting address in ctx->addr (PERF_SAMPLE_ADDR)
 * and the user registers, so each program knows major from minor without pairing. The
 * page-faults event would fire at entry, before the outcome is known: telling a major
 * fault would then need a second record or per-thread state. What this costs: faults
 * that end in an error (SIGSEGV, SIGBUS, OOM) are not seen by this method. No
 * read/write bit on this path.
 */
static __always_inline int perf_fault(struct bpf_perf_event_data *ctx, __u32 flags)
{
	if (!is_target())
		return 0;
	emit_fault(ctx->addr, PT_REGS_IP(&ctx->regs), flags, NULL, true);
	return 0;
}

SEC("perf_event")
int perf_minor(struct bpf_perf_event_data *ctx)
{
	return perf_fault(ctx, AP_FF_MAJMIN_KNOWN);
}

SEC("perf_event")
int perf_major(struct bpf_perf_event_data *ctx)
{
	return perf_fault(ctx, AP_FF_MAJMIN_KNOWN | AP_FF_MAJOR);
}

/* Markers. */
/*
 * record --runs N: the end of run N wakes the reader at once (a batched wakeup could leave
 * it queued for a sample interval while the target runs on). Userspace sets it; 0: never.
 */
__u32 wake_runs;

static __always_inline void emit_marker(__u32 type, __u32 tid, __s32 run, __s32 op,
					__u64 obj)
{
	struct ap_ring_event *e;

	e = ev_reserve(type, tid);
	if (!e)
		return;
	e->run = run;
	e->op = op;
	e->addr = obj;
	ev_submit_wake(e, type == AP_EV_RUN_END && wake_runs &&
		       (__u32)runs_begun >= wake_runs);
}

/*
 * The run counter is bumped with an atomic add and read back: exact when runs begin one
 * after the other (two runs begun at the same instant in two threads could read the
 * same index). A fetch-add result needs BPF ISA v3, which this build does not assume.
 */
SEC("uprobe")
int BPF_KPROBE(run_enter)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 one = 1, *depth;

	if (!is_target())
		return 0;
	depth = bpf_map_lookup_elem(&run_depth, &tid);
	if (depth && *depth) {
		(*depth)++;		/* an entry point inside a run: the same run */
		return 0;
	}
	if (depth)
		*depth = 1;
	else
		bpf_map_update_elem(&run_depth, &tid, &one, BPF_ANY);
	__sync_fetch_and_add(&runs_begun, 1);
	/* the entry point's first argument when the cookie says it is the interpreter (or
	 * compiled model, or XNNPACK runtime) whose run this is: runs of several models are
	 * told apart by it */
	emit_marker(AP_EV_RUN_BEGIN, tid, runs_begun - 1, current_op(tid),
		    bpf_get_attach_cookie(ctx) ? (__u64)PT_REGS_PARM1(ctx) : 0);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(run_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u32 *depth;

	if (!is_target())
		return 0;
	depth = bpf_map_lookup_elem(&run_depth, &tid);
	/* no entry seen (the probe attached inside a run): not a run of ours */
	if (!depth || !*depth)
		return 0;
	if (--(*depth))
		return 0;
	emit_marker(AP_EV_RUN_END, tid, runs_begun - 1, current_op(tid), 0);
	return 0;
}

/* The 6th argument register; bpf_tracing.h of libbpf 1.1 stops at PARM5. */
#if defined(__TARGET_ARCH_x86)
#define AP_PARM6_CORE(x) BPF_CORE_READ((struct pt_regs *)(x), r9)
#elif defined(__TARGET_ARCH_arm64)
#define AP_PARM6_CORE(x) BPF_CORE_READ((struct user_pt_regs *)(x), regs[5])
#endif

/*
 * The attach cookie is the 0-based index of the argument that holds the op index. The
 * _CORE (probe-read) accessors: clang folds a switch over plain ctx loads into one load
 * at a computed ctx offset, which the verifier refuses.
 */
static __always_inline __s32 op_arg(struct pt_regs *ctx)
{
	switch (bpf_get_attach_cookie(ctx)) {
	case 0:
		return (__s32)PT_REGS_PARM1_CORE(ctx);
	case 1:
		return (__s32)PT_REGS_PARM2_CORE(ctx);
	case 2:
		return (__s32)PT_REGS_PARM3_CORE(ctx);
	case 3:
		return (__s32)PT_REGS_PARM4_CORE(ctx);
	case 4:
		return (__s32)PT_REGS_PARM5_CORE(ctx);
#ifdef AP_PARM6_CORE
	case 5:
		return (__s32)AP_PARM6_CORE(ctx);
#endif
	default:
		return -1;
	}
}

SEC("uprobe")
int BPF_KPROBE(op_enter)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__s32 op;

	if (!is_target())
		return 0;
	op = op_arg(ctx);
	bpf_map_update_elem(&cur_op, &tid, &op, BPF_ANY);
	emit_marker(AP_EV_OP_BEGIN, tid, runs_begun - 1, op, 0);
	return 0;
}

SEC("uretprobe")
int BPF_KRETPROBE(op_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__s32 op;

	if (!is_target())
		return 0;
	op = current_op(tid);
	bpf_map_delete_elem(&cur_op, &tid);
	emit_marker(AP_EV_OP_END, tid, runs_begun - 1, op, 0);
	return 0;
}

/*
 * The allocation probe: uprobes on the C library's allocation functions (the attach
 * cookie is enum ap_alloc_fn) report the blocks whose size lies in a window userspace
 * sets ([alloc_min, alloc_max], .bss, changeable while attached), with the pointer
 * returned and the caller, and later the free of each block reported. A runtime's tensor
 * arena is one such block (LiteRT: aligned_alloc(64, roundup(size + 63, 64))), and the
 * returned pointer is its exact base, whether glibc served it from its own mapping or
 * from [heap]. Every call costs an entry uprobe and, for the allocation functions, a
 * return probe; only calls in the window touch a map or the ring buffer.
 */
__u64 alloc_min;		/* 0 and 0: nothing is reported */
__u64 alloc_max;
struct ap_alloc_counters alloc_counters;

struct alloc_key {
	__u32 tid;
	__u32 fn;
};

struct alloc_call {
	__u64 size, align, caller;
	__u64 memptr;		/* posix_memalign: where the pointer goes; realloc: old */
	__u64 in_window;	/* realloc of a reported block may fall outside the window */
};

/* Calls in flight: entry to return, per thread and function (realloc(NULL, n) calls
 * malloc's code, so both are in flight at once). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct alloc_key);
	__type(value, struct alloc_call);
} alloc_calls SEC(".maps");

/* Reported blocks still allocated: pointer -> size. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, __u64);
} alloc_blocks SEC(".maps");

/* The caller: the return address, on the stack at entry (x86) or in the link register. */
static __always_inline __u64 caller_of(struct pt_regs *ctx)
{
	__u64 ra = 0;

#if defined(__TARGET_ARCH_x86)
	bpf_probe_read_user(&ra, sizeof(ra), (void *)PT_REGS_SP_CORE(ctx));
#elif defined(__TARGET_ARCH_arm64)
	ra = BPF_CORE_READ((struct user_pt_regs *)ctx, regs[30]);
#endif
	return ra;
}

/*
 * The caller's caller: the return address in the caller's frame record, which the frame
 * pointer still names at the callee's entry (XNNPACK is built with frame pointers in
 * LiteRT's wheels; without them this is a stale address or 0).
 */
static __always_inline __u64 caller_up(struct pt_regs *ctx)
{
	__u64 ra = 0, fp = 0;

#if defined(__TARGET_ARCH_x86)
	fp = PT_REGS_FP_CORE(ctx);
#elif defined(__TARGET_ARCH_arm64)
	fp = BPF_CORE_READ((struct user_pt_regs *)ctx, regs[29]);
#endif
	if (fp)
		bpf_probe_read_user(&ra, sizeof(ra), (void *)(fp + 8));
	return ra;
}

static __always_inline void emit_alloc(__u32 tid, __u64 ptr, __u64 size, __u64 align,
				       __u64 fn, __u64 caller)
{
	struct ap_ring_event_ext *e;

	e = ev_reserve_ext(AP_EV_ALLOC, tid);
	if (!e)
		return;
	e->e.addr = ptr;
	e->e.ip = caller;
	e->x.a = size;
	e->x.b = align;
	e->x.c = fn;
	ev_submit(e);
}

SEC("uprobe")
int BPF_KPROBE(alloc_enter)
{
	struct alloc_call call = {};
	struct alloc_key key;
	__u64 fn = bpf_get_attach_cookie(ctx);
	bool tracked = false, xnn = false;

	if (!is_target())
		return 0;
	__sync_fetch_and_add(&alloc_counters.calls, 1);
	switch (fn) {
	case AP_ALLOC_MALLOC:
		call.size = PT_REGS_PARM1_CORE(ctx);
		break;
	case AP_ALLOC_CALLOC:
		call.size = PT_REGS_PARM1_CORE(ctx) * PT_REGS_PARM2_CORE(ctx);
		break;
	case AP_ALLOC_REALLOC:
		call.memptr = PT_REGS_PARM1_CORE(ctx);
		call.size = PT_REGS_PARM2_CORE(ctx);
		tracked = call.memptr && bpf_map_lookup_elem(&alloc_blocks, &call.memptr);
		break;
	case AP_ALLOC_ALIGNED_ALLOC:
	case AP_ALLOC_MEMALIGN:
		call.align = PT_REGS_PARM1_CORE(ctx);
		call.size = PT_REGS_PARM2_CORE(ctx);
		break;
	case AP_ALLOC_POSIX_MEMALIGN:
		call.memptr = PT_REGS_PARM1_CORE(ctx);
		call.align = PT_REGS_PARM2_CORE(ctx);
		call.size = PT_REGS_PARM3_CORE(ctx);
		break;
	/* XNNPACK's allocator: the context first, every block whatever its size */
	case AP_ALLOC_XNN_ALLOCATE:
		call.size = PT_REGS_PARM2_CORE(ctx);
		xnn = true;
		break;
	case AP_ALLOC_XNN_REALLOCATE:
		call.memptr = PT_REGS_PARM2_CORE(ctx);
		call.size = PT_REGS_PARM3_CORE(ctx);
		xnn = true;
		break;
	case AP_ALLOC_XNN_ALIGNED:
		call.size = PT_REGS_PARM3_CORE(ctx);
		xnn = true;
		break;
	default:
		return 0;
	}
	call.in_window = xnn || (call.size >= alloc_min && call.size <= alloc_max && alloc_max);
	if (!call.in_window && !tracked)
		return 0;
	call.caller = caller_of(ctx);
	if (xnn)	/* its align field: the caller's caller (XNNPACK's align is constant) */
		call.align = caller_up(ctx);
	key.tid = (__u32)bpf_get_current_pid_tgid();
	key.fn = (__u32)fn;
	bpf_map_update_elem(&alloc_calls, &key, &call, BPF_ANY);
	return 0;
}

static __always_inline void forget_block(__u32 tid, __u64 ptr, __u64 caller)
{
	__u64 *sz = bpf_map_lookup_elem(&alloc_blocks, &ptr);
	__u64 size;

	if (!sz)
		return;
	size = *sz;
	bpf_map_delete_elem(&alloc_blocks, &ptr);
	__sync_fetch_and_add(&alloc_counters.frees, 1);
	emit_alloc(tid, ptr, size, 0, AP_ALLOC_FREE, caller);
}

SEC("uretprobe")
int BPF_KRETPROBE(alloc_exit)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct alloc_key key = { .tid = tid, .fn = (__u32)bpf_get_attach_cookie(ctx) };
	struct alloc_call *c, call;
	__u64 ptr = 0;

	if (!is_target())
		return 0;
	c = bpf_map_lookup_elem(&alloc_calls, &key);
	if (!c)
		return 0;
	call = *c;
	bpf_map_delete_elem(&alloc_calls, &key);
	if (key.fn == AP_ALLOC_POSIX_MEMALIGN) {
		if (PT_REGS_RC(ctx) != 0 ||
		    bpf_probe_read_user(&ptr, sizeof(ptr), (void *)call.memptr))
			return 0;
	} else {
		ptr = PT_REGS_RC(ctx);
	}
	if (!ptr)
		return 0;	/* failed (realloc: the old block is still there) */
	/* realloc: the old block is gone, or now of another size */
	if ((key.fn == AP_ALLOC_REALLOC || key.fn == AP_ALLOC_XNN_REALLOCATE) && call.memptr)
		forget_block(tid, call.memptr, call.caller);
	if (!call.in_window)
		return 0;
	__sync_fetch_and_add(&alloc_counters.events, 1);
	emit_alloc(tid, ptr, call.size, call.align, key.fn, call.caller);
	if (bpf_map_update_elem(&alloc_blocks, &ptr, &call.size, BPF_ANY))
		__sync_fetch_and_add(&alloc_counters.untracked, 1);
	return 0;
}

SEC("uprobe")
int BPF_KPROBE(free_enter)
{
	__u64 fn = bpf_get_attach_cookie(ctx);
	/* xnn_deallocate and xnn_aligned_deallocate take the allocator's context first */
	__u64 ptr = fn == AP_ALLOC_FREE ? PT_REGS_PARM1_CORE(ctx) : PT_REGS_PARM2_CORE(ctx);

	if (!ptr || !is_target())
		return 0;
	forget_block((__u32)bpf_get_current_pid_tgid(), ptr, caller_of(ctx));
	return 0;
}
