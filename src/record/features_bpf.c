// SPDX-License-Identifier: Apache-2.0
/*
 * features_bpf: check's BPF probes (include/arenaprof/record/features_bpf.h). Where a
 * feature needs an attach, it is attached: the fault methods through probe.c's own
 * load-and-attach path, the tracepoint with a program of its own. libbpf's probes of a
 * map type or a helper say "supported" or "not" for a load the kernel refused for want of
 * permission, so they run only once a tracing program has loaded.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "arenaprof/event.h"
#include "arenaprof/kernel/features.h"
#include "arenaprof/record/btf_custom.h"
#include "arenaprof/record/dmabuf_events.h"
#include "arenaprof/record/dmabuf_iter.h"
#include "arenaprof/record/features_bpf.h"
#include "arenaprof/record/probe.h"

#define U AP_FACE_UNAVAILABLE
#define D AP_FACE_DEGRADED

#if defined(__x86_64__) || defined(__i386__)
#define AP_X86 1
#else
#define AP_X86 0
#endif

/* A feature added with its cost to record and top, and its fault method's rank. */
static struct ap_feature *add(struct ap_features *fs, const char *name, const char *affects,
			      const char *option, enum ap_face_state cost, int rank)
{
	struct ap_feature *f = ap_features_add(fs, name, affects, option);

	f->cost[AP_FACE_RECORD] = cost;
	f->cost[AP_FACE_TOP] = cost;
	f->method_rank = rank;
	return f;
}

/* One line of a /proc/sys file, or "?". */
static void sysctl(const char *path, char *buf, size_t len)
{
	FILE *fp = fopen(path, "re");

	snprintf(buf, len, "?");
	if (!fp)
		return;
	if (!fgets(buf, (int)len, fp))
		snprintf(buf, len, "?");
	fclose(fp);
	buf[strcspn(buf, "\n")] = '\0';
}

/* This process's effective capabilities that matter to BPF, e.g. "CAP_BPF CAP_PERFMON". */
static void caps(char *buf, size_t len)
{
	static const struct {
		int bit;
		const char *name;
	} want[] = { { 21, "CAP_SYS_ADMIN" }, { 38, "CAP_PERFMON" }, { 39, "CAP_BPF" } };
	unsigned long long eff = 0;
	char line[256];
	FILE *fp = fopen("/proc/self/status", "re");
	size_t n = 0;

	while (fp && fgets(line, sizeof(line), fp))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	if (fp)
		fclose(fp);
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (eff >> want[i].bit & 1)
			n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", n ? " " : "",
					      want[i].name);
	if (!buf[0])
		snprintf(buf, len, "none of CAP_BPF, CAP_PERFMON, CAP_SYS_ADMIN");
}

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0, .imm = 0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

/* A program of type t that returns 0: its fd, or a negative errno. */
static int load_ret0(enum bpf_prog_type t)
{
	int fd = bpf_prog_load(t, NULL, "GPL", ret0, sizeof(ret0) / sizeof(ret0[0]), NULL);

	return fd < 0 ? -errno : fd;
}

/* The bpf() syscall and the permission: a tracepoint program, as record's are. */
static bool probe_bpf(struct ap_features *fs)
{
	struct ap_feature *f = add(fs, "bpf", "record and top cannot run: every fault source "
				   "and probe is a BPF program",
				   "CONFIG_BPF_SYSCALL=y; root, or CAP_BPF and CAP_PERFMON "
				   "(kernel.unprivileged_bpf_disabled)", U, 0);
	char cap[96], unpriv[16], eb[96];
	int fd = load_ret0(BPF_PROG_TYPE_TRACEPOINT);

	caps(cap, sizeof(cap));
	sysctl("/proc/sys/kernel/unprivileged_bpf_disabled", unpriv, sizeof(unpriv));
	if (fd >= 0) {
		close(fd);
		ap_feature_set(f, AP_FEAT_OK, "a tracing program loaded (uid %d, %s; "
			       "kernel.unprivileged_bpf_disabled=%s)", (int)geteuid(), cap, unpriv);
		return true;
	}
	if (fd == -ENOSYS)
		ap_feature_set(f, AP_FEAT_MISSING, "no bpf() syscall: %s",
			       ap_probe_errstr(fd, eb, sizeof(eb)));
	else
		ap_feature_set(f, AP_FEAT_MISSING, "not permitted to this user: loading a tracing "
			       "program: %s (uid %d, %s; kernel.unprivileged_bpf_disabled=%s)",
			       ap_probe_errstr(fd, eb, sizeof(eb)), (int)geteuid(), cap, unpriv);
	/* as cmd_top.c falls back: EPERM and not root */
	fs->top_procfs = fd == -EPERM && geteuid();
	return false;
}

/* libbpf's answer: 1 yes, 0 no, else an error. */
static void libbpf_answer(struct ap_feature *f, int r, const char *what)
{
	char eb[96];

	if (r == 1)
		ap_feature_set(f, AP_FEAT_OK, "%s", what);
	else if (r == 0)
		ap_feature_set(f, AP_FEAT_MISSING, "%s: not supported by this kernel", what);
	else
		ap_feature_set(f, AP_FEAT_REFUSED, "%s: %s", what,
			       ap_probe_errstr(r, eb, sizeof(eb)));
}

/* exceptions:page_fault_user, attached as a raw tracepoint (no tracefs needed). */
static void probe_tracepoint(struct ap_feature *f)
{
	const char *tfs = "/sys/kernel/tracing/events/exceptions/page_fault_user";
	int pfd, lfd;
	char eb[96];

	if (!AP_X86) {
		ap_feature_set(f, AP_FEAT_MISSING, "x86 only: not on this architecture");
		return;
	}
	pfd = load_ret0(BPF_PROG_TYPE_RAW_TRACEPOINT);
	if (pfd < 0) {
		ap_feature_set(f, AP_FEAT_REFUSED, "loading a raw tracepoint program: %s",
			       ap_probe_errstr(pfd, eb, sizeof(eb)));
		return;
	}
	lfd = bpf_raw_tracepoint_open("page_fault_user", pfd);
	if (lfd < 0) {
		int e = -errno;

		ap_feature_set(f, e == -ENOENT ? AP_FEAT_MISSING : AP_FEAT_REFUSED,
			       "attaching to page_fault_user: %s",
			       ap_probe_errstr(e, eb, sizeof(eb)));
	} else {
		close(lfd);
		ap_feature_set(f, AP_FEAT_OK, "attached as a raw tracepoint%s",
			       access(tfs, F_OK) ? "" : "; in tracefs too");
	}
	close(pfd);
}

/* A fault method as record loads and attaches it; extra follows the detail (always: also
 * after the reason it failed). */
static void probe_method(struct ap_feature *f, enum ap_method m, const char *extra,
			 bool always)
{
	char why[AP_ERR_LEN];
	int e = ap_probe_try(m, why);

	if (!e)
		ap_feature_set(f, AP_FEAT_OK, "%s: loaded and attached%s", ap_method_name(m),
			       extra);
	else
		ap_feature_set(f, e == -EPERM || e == -EACCES ? AP_FEAT_REFUSED : AP_FEAT_MISSING,
			       "%s%s", why, always ? extra : "");
}

/* The BTF: where it comes from, and a file checked against this kernel. kernel: the
 * kernel's own BTF probed (ap_btf_kernel_probe), 1 when not probed. */
static void probe_btf(struct ap_features *fs, struct ap_feature *f, bool may, int kernel)
{
	enum ap_btf_source src = ap_btf_source();
	char why[AP_ERR_LEN];
	struct stat st;
	bool sysfs = !stat(AP_BTF_SYSFS, &st) && !access(AP_BTF_SYSFS, R_OK);
	int e = sysfs ? 0 : errno;

	fs->btf_source = ap_btf_source_name(src);
	fs->btf_file = src == AP_BTF_BUILTIN ? AP_BTF_SYSFS : ap_btf_path();
	if (src == AP_BTF_BUILTIN) {
		ap_feature_set(f, AP_FEAT_OK, "built-in: %s, %lld KiB", AP_BTF_SYSFS,
			       (long long)st.st_size / 1024);
	} else if (src == AP_BTF_MISSING && kernel < 0) {
		ap_feature_set(f, AP_FEAT_MISSING, "no %s (%s), and no BTF inside the kernel "
			       "either (see kernel_btf): no --btf file can help", AP_BTF_SYSFS,
			       strerror(e));
	} else if (src == AP_BTF_MISSING) {
		ap_feature_set(f, AP_FEAT_MISSING, "no %s (%s), no --btf, no "
			       "ARENAPROF_BTF: --btf FILE with this kernel's BTF (uname -r %s) "
			       "fixes it", AP_BTF_SYSFS, strerror(e), fs->kernel);
	} else if (!may) {
		ap_feature_set(f, AP_FEAT_REFUSED, "%s (%s): not checked against this kernel: "
			       "this user may not load BPF (see bpf)", ap_btf_said(),
			       ap_btf_kind());
	} else if (ap_btf_match(why)) {
		ap_feature_set(f, AP_FEAT_MISSING, "%s", why);
	} else {
		ap_feature_set(f, AP_FEAT_OK, "%s (%s%s): task_struct and mm_struct at its "
			       "offsets read this process right", ap_btf_said(), ap_btf_kind(),
			       sysfs ? "; instead of the built-in one" : "; no " AP_BTF_SYSFS);
	}
}

/* BTF inside the kernel, which typed pointers need whatever file relocates: 0 there, or
 * the probe's -errno. */
static int probe_kernel_btf(struct ap_feature *f)
{
	char why[AP_ERR_LEN];
	int e = ap_btf_kernel_probe(why);

	if (!e)
		ap_feature_set(f, AP_FEAT_OK, "a program calling bpf_get_current_task_btf loaded%s",
			       access(AP_BTF_SYSFS, F_OK) ? " (though there is no " AP_BTF_SYSFS
			       ")" : "");
	else
		ap_feature_set(f, e == -EPERM || e == -EACCES ? AP_FEAT_REFUSED : AP_FEAT_MISSING,
			       "%s", why);
	return e == -EPERM || e == -EACCES ? 1 : e;
}

/* The features after bpf, when this user may not load anything: not probed, and why. */
static void not_probed(struct ap_features *fs, size_t from)
{
	for (size_t i = from; i < fs->n; i++)
		if (!fs->f[i].detail[0])
			ap_feature_set(&fs->f[i], AP_FEAT_REFUSED, "not probed: this user may not "
				       "load BPF programs (see bpf)");
}

/* The dma-buf iterator, loaded and attached as record would, then let go. */
static void probe_dmabuf_iter(struct ap_feature *f)
{
	struct ap_dmabuf_iter *it;
	char why[AP_ERR_LEN];
	int e = ap_dmabuf_iter_open(&it, why);

	if (!e) {
		ap_dmabuf_iter_close(it);
		ap_feature_set(f, AP_FEAT_OK, "iter/dmabuf loaded and attached: record reads "
			       "dma-bufs' sizes and exporters from it");
		return;
	}
	ap_feature_set(f, e == -EPERM || e == -EACCES ? AP_FEAT_REFUSED : AP_FEAT_MISSING, "%s",
		       why);
}

/* The dma-buf events' programs, loaded and attached as record would, then let go. */
static void probe_dmabuf_events(struct ap_feature *f)
{
	struct ap_dmabuf_events *ev;
	char why[AP_ERR_LEN];
	int e = ap_dmabuf_events_open(&ev, getpid(), why);

	if (!e) {
		ap_dmabuf_events_close(ev);
		ap_feature_set(f, AP_FEAT_OK, "fexit dma_buf_export, fentry dma_buf_release "
			       "attached: record sees every dma-buf the target makes and frees, "
			       "when it happens");
		return;
	}
	ap_feature_set(f, e == -EPERM || e == -EACCES ? AP_FEAT_REFUSED : AP_FEAT_MISSING, "%s",
		       why);
}

void ap_features_probe_bpf(struct ap_features *fs)
{
	struct ap_feature *bt = add(fs, "btf", "record and top cannot run: the fault programs "
				    "are relocated (CO-RE) against the kernel's BTF",
				    "CONFIG_DEBUG_INFO_BTF=y; or --btf FILE (ARENAPROF_BTF=FILE): "
				    "this kernel's BTF, by pahole -J from its vmlinux with debug "
				    "info, or BTFHub's", U, 0);
	struct ap_feature *rb, *fv, *tp, *tr, *fe, *pe, *kb, *di, *de;
	char paranoid[16], extra[64];
	bool may = probe_bpf(fs);
	size_t from = fs->n;

	kb = add(fs, "kernel_btf", "record and top cannot run: the fault programs take typed "
		 "kernel pointers (bpf_get_current_task_btf, bpf_find_vma), checked against "
		 "the kernel's own BTF; --btf cannot stand in", "CONFIG_DEBUG_INFO_BTF=y", U, 0);
	rb = add(fs, "ringbuf", "record and top cannot run: the fault programs write into a "
		 "BPF ring buffer", "CONFIG_BPF_SYSCALL=y, Linux 5.8+", U, 0);
	fv = add(fs, "bpf_find_vma", "record and top cannot run: every fault program classifies "
		 "the vma with it", "CONFIG_BPF_EVENTS=y, Linux 5.17+", U, 0);
	tp = add(fs, "tp_btf", AP_X86 ? "record and top fall back to fentry, then perf (auto's "
		 "order); --probe tp cannot run" : "nothing: x86 only, auto starts at fentry",
		 "x86; CONFIG_DEBUG_INFO_BTF=y (BTF tracepoints, Linux 5.5+)", 0, AP_X86 ? 1 : 0);
	tr = add(fs, "tracepoint", "the tp method attaches to this tracepoint (see tp_btf)",
		 "x86; CONFIG_TRACEPOINTS=y", 0, 0);
	fe = add(fs, "fentry", AP_X86 ? "--probe fentry cannot run (auto's first fallback "
		 "after tp)" : "record and top fall back to perf; --probe fentry cannot run",
		 "CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS=y (BPF trampolines: x86 5.5+, arm64 "
		 "6.4+); no lockdown or LSM refusing the attach", 0, AP_X86 ? 2 : 1);
	pe = add(fs, "perf_events", "--probe perf cannot run (auto's last fallback)",
		 "CONFIG_PERF_EVENTS=y; root or CAP_PERFMON (kernel.perf_event_paranoid)", 0,
		 AP_X86 ? 3 : 2);
	di = add(fs, "dmabuf_iter", "nothing the target's figures need: record reads its "
		 "dma-bufs' sizes and exporters from /proc/PID/fdinfo instead, without the "
		 "system-wide list", "Linux 6.16+ (iter/dmabuf), CONFIG_DMA_SHARED_BUFFER=y, "
		 "CONFIG_BPF_SYSCALL=y", 0, 0);
	de = add(fs, "dmabuf_events", "record polls the target's dma-bufs at its interval: a "
		 "buffer held for less may be missed, and the peak's time is a sample's",
		 "BPF trampolines (as fentry), CONFIG_DMA_SHARED_BUFFER=y", 0, 0);
	if (!AP_X86) {
		ap_feature_set(tp, AP_FEAT_MISSING, "x86 only: not on this architecture");
		ap_feature_set(tr, AP_FEAT_MISSING, "x86 only: not on this architecture");
	}
	probe_btf(fs, bt, may, may ? probe_kernel_btf(kb) : 1);
	if (!may) {
		not_probed(fs, from);
		return;
	}
	libbpf_answer(rb, libbpf_probe_bpf_map_type(BPF_MAP_TYPE_RINGBUF, NULL),
		      "BPF_MAP_TYPE_RINGBUF created");
	libbpf_answer(fv, libbpf_probe_bpf_helper(BPF_PROG_TYPE_PERF_EVENT, BPF_FUNC_find_vma,
						  NULL), "bpf_find_vma known to the verifier");
	probe_tracepoint(tr);
	probe_dmabuf_iter(di);
	probe_dmabuf_events(de);
	if (bt->status != AP_FEAT_OK) {
		struct ap_feature *const m[] = { tp, fe, pe };

		/* each would fail for the BTF's one reason, said there */
		for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
			if (!m[i]->detail[0])
				ap_feature_set(m[i], AP_FEAT_MISSING, "not probed: no BTF to "
					       "relocate the fault programs against (see btf)");
		return;
	}
	if (AP_X86)
		probe_method(tp, AP_METHOD_TP, " (tp_btf/page_fault_user)", false);
	probe_method(fe, AP_METHOD_FENTRY, " (fexit/handle_mm_fault)", false);
	sysctl("/proc/sys/kernel/perf_event_paranoid", paranoid, sizeof(paranoid));
	snprintf(extra, sizeof(extra), "; kernel.perf_event_paranoid=%s", paranoid);
	probe_method(pe, AP_METHOD_PERF, extra, true);
}
