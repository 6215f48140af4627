// SPDX-License-Identifier: Apache-2.0
/*
 * probe: loads bpf/arenaprof.bpf.c for one method, attaches it, attaches markers, and
 * polls the ring buffer. See include/arenaprof/record/probe.h.
 *
 * Every attempt at a method is a full open -> load -> attach of the skeleton with only
 * that method's fault programs autoloaded (plus the marker programs), so a tracepoint
 * missing on arm64 or an fentry the kernel refuses cannot break the others. On any
 * failure the attempt is torn down completely before the next method is tried.
 *
 * The object is loaded by its generated loader program (bpf_load.h), so this process
 * never parses the kernel's BTF, and attached by fd (bpf_attach.h).
 *
 * RLIMIT_MEMLOCK: libbpf >= 1.0 raises it by itself, and only on kernels that do not
 * charge BPF memory to the memory cgroup (before 5.11); 6.x kernels need nothing. With
 * an older libbpf it is raised here.
 */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <bpf/libbpf_version.h>

#include "arenaprof/util/err.h"
#include "arenaprof/event.h"
#include "arenaprof/record/bpf_attach.h"
#include "arenaprof/record/bpf_load.h"
#include "arenaprof/record/btf_custom.h"
#include "arenaprof/record/method.h"
#include "arenaprof/record/probe.h"
#include "arenaprof/record/ring_event.h"
#include "arenaprof/record/ring_sizing.h"
#include "arenaprof/record/symbols.h"
#include "arenaprof.skel.h"

struct ap_probe {
	struct arenaprof_bpf *skel;
	struct ap_bpf_loaded ld;	/* its fds */
	enum ap_method method;
	int pid;
	uint32_t ring_bytes;		/* the ring buffer's size */
	double rate;			/* the measured fault rate it was sized from, or 0 */
	struct ap_bpf_link *links;	/* the method's links, then the markers' */
	size_t n_links, cap_links;
	struct ring_buffer *rb;
	struct ap_ring_decoder dec;	/* the ring's records into events */
	/* the poll in progress */
	int (*cb)(void *ctx, const struct ap_event *ev);
	void *cb_ctx;
	int seen;
	bool stopped;
	/* the allocation probe's malloc, calloc, realloc, free links (ap_probe_quiet_alloc) */
	struct ap_bpf_link hot[32];
	size_t n_hot;
	/* detaching a uprobe waits for the probes in flight (~130 ms each, measured here):
	 * a thread of its own does it, so the ring buffer is not left unread meanwhile */
	struct ap_bpf_link quiet[32];
	size_t n_quiet;
	pthread_t quiet_thread;
	bool quiet_running;
	/* auto mode: why the methods before the chosen one were passed over ("" if none) */
	char auto_skipped[2 * AP_ERR_LEN];
};

static bool verbose;

static int print_fn(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (!verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

static void setup_libbpf(void)
{
	libbpf_set_print(print_fn);
#if LIBBPF_MAJOR_VERSION < 1
	{
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };

		setrlimit(RLIMIT_MEMLOCK, &rl);
	}
#endif
}

/* What the method's programs are called in messages. */
static const char *method_what(enum ap_method m)
{
	switch (m) {
	case AP_METHOD_TP:
		return "page_fault_user tp_btf";
	case AP_METHOD_FENTRY:
		return "handle_mm_fault fexit";
	case AP_METHOD_PERF:
		return "page-fault perf_event programs";
	case AP_METHOD_NONE:
		break;
	}
	return "?";
}

static int push_link(struct ap_probe *p, const struct ap_bpf_link *l)
{
	if (p->n_links == p->cap_links) {
		size_t cap = p->cap_links ? p->cap_links * 2 : 16;
		struct ap_bpf_link *n = realloc(p->links, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		p->links = n;
		p->cap_links = cap;
	}
	p->links[p->n_links++] = *l;
	return 0;
}

static void teardown(struct ap_probe *p)
{
	/* the markers first (attached last), then the quiet thread's wait: a target that
	 * runs on (record --runs N) stops trapping on every operator as soon as it can */
	while (p->n_links)
		ap_bpf_link_close(&p->links[--p->n_links]);
	while (p->n_hot)
		ap_bpf_link_close(&p->hot[--p->n_hot]);
	if (p->quiet_running) {
		pthread_join(p->quiet_thread, NULL);
		p->quiet_running = false;
	}
	free(p->links);
	p->links = NULL;
	p->cap_links = 0;
	ring_buffer__free(p->rb);
	p->rb = NULL;
	ap_bpf_unload(&p->ld);
	arenaprof_bpf__destroy(p->skel);
	p->skel = NULL;
}

/* 2^k - 1 for the largest 2^k records within an eighth of the ring (ev_submit_wake). */
static uint64_t wakeup_mask(uint32_t ring)
{
	uint64_t n = ring / 8 / (sizeof(struct ap_ring_event) + 8), k = 1;

	while (k * 2 <= n)
		k *= 2;
	return n ? k - 1 : 0;
}

static uint32_t ring_size(uint32_t want)
{
	long page = sysconf(_SC_PAGESIZE);
	uint64_t n = page > 0 ? (uint64_t)page : 4096;

	while (n < want && n < (1ull << 31))
		n <<= 1;
	return (uint32_t)n;
}

/* /sys/devices/system/cpu/online: "0-3,6,8-9". Returns the count, or -1. */
static int online_cpus(int *cpus, int max)
{
	FILE *f = fopen("/sys/devices/system/cpu/online", "re");
	int n = 0, a, b;
	char sep;

	if (!f)
		return -EIO;
	while (fscanf(f, "%d", &a) == 1) {
		b = a;
		sep = (char)fgetc(f);
		if (sep == '-') {
			if (fscanf(f, "%d", &b) != 1)
				break;
			sep = (char)fgetc(f);
		}
		for (; a <= b && n < max; a++)
			cpus[n++] = a;
		if (sep != ',')
			break;
	}
	fclose(f);
	return n > 0 ? n : -1;
}

/* A failed load: an attach target missing from the kernel's BTF (ENOENT) said plainly. */
static void load_error(enum ap_method m, int err, char *why)
{
	char eb[96];

	if (err == AP_BPF_ECORE) {
		char said[AP_ERR_LEN];

		snprintf(said, sizeof(said), "%s", why);
		ap_seterr(why, "%s: %s", ap_method_name(m), said);
	} else if (err == -ENOENT && m == AP_METHOD_TP)
		ap_seterr(why, "tp: this kernel has no page_fault_user tracepoint (x86 only)");
	else if (err == -ENOENT && m == AP_METHOD_FENTRY)
		ap_seterr(why, "fentry: handle_mm_fault is not in the kernel BTF");
	else
		ap_seterr(why, "%s: loading %s failed: %s", ap_method_name(m), method_what(m),
			  ap_probe_errstr(err, eb, sizeof(eb)));
}

static int attach_perf(struct ap_probe *p, char *why)
{
	static const struct {
		uint64_t config;
		const char *name;
	} evs[] = {
		{ PERF_COUNT_SW_PAGE_FAULTS_MIN, "minor-faults" },
		{ PERF_COUNT_SW_PAGE_FAULTS_MAJ, "major-faults" },
	};
	int progs[] = {
		ap_bpf_prog_fd(&p->ld, p->skel->progs.perf_minor),
		ap_bpf_prog_fd(&p->ld, p->skel->progs.perf_major),
	};
	int cpus[4096], ncpu, i, j;
	char eb[96];

	ncpu = online_cpus(cpus, (int)(sizeof(cpus) / sizeof(cpus[0])));
	if (ncpu < 0) {
		ap_seterr(why, "perf: cannot read /sys/devices/system/cpu/online");
		return -EIO;
	}
	for (i = 0; i < ncpu; i++) {
		for (j = 0; j < 2; j++) {
			struct perf_event_attr attr = {
				.type = PERF_TYPE_SOFTWARE,
				.size = sizeof(attr),
				.config = evs[j].config,
				.sample_period = 1,
				.sample_type = PERF_SAMPLE_ADDR,
				.exclude_kernel = 1,
				.exclude_hv = 1,
			};
			struct ap_bpf_link l;
			int fd, e;

			fd = (int)syscall(__NR_perf_event_open, &attr, -1, cpus[i], -1,
					  PERF_FLAG_FD_CLOEXEC);
			if (fd < 0) {
				int en = errno;

				ap_seterr(why, "perf: opening %s on CPU %d failed: %s", evs[j].name,
					  cpus[i], ap_probe_errstr(en, eb, sizeof(eb)));
				return -en;
			}
			/* the link owns fd from here on */
			e = ap_bpf_attach_perf_event(progs[j], fd, 0, &l);
			if (e) {
				ap_seterr(why, "perf: attaching to %s on CPU %d failed: %s",
					  evs[j].name, cpus[i], ap_probe_errstr(e, eb, sizeof(eb)));
				return e;
			}
			if (push_link(p, &l)) {
				ap_bpf_link_close(&l);
				ap_seterr(why, "perf: out of memory");
				return -ENOMEM;
			}
		}
	}
	return 0;
}

/*
 * One complete attempt: open, configure, load, attach. On failure everything is torn
 * down and why says which step failed and why.
 */
static int try_method(struct ap_probe *p, enum ap_method m, uint32_t target, uint32_t ring,
		      char *why)
{
	const char *name = ap_method_name(m);
	struct ap_bpf_link l;
	LIBBPF_OPTS(bpf_object_open_opts, oo, .btf_custom_path = ap_btf_path());
	char eb[96];
	int err;

	err = ap_btf_method_ok(m, why);
	if (err)
		return err;
	p->skel = arenaprof_bpf__open_opts(&oo);
	if (!p->skel) {
		err = -errno;
		ap_seterr(why, "%s: opening the BPF object failed: %s", name,
			  ap_probe_errstr(err, eb, sizeof(eb)));
		return err;
	}
	bpf_program__set_autoload(p->skel->progs.fault_tp, m == AP_METHOD_TP);
	bpf_program__set_autoload(p->skel->progs.flush_batch, m == AP_METHOD_TP);
	bpf_program__set_autoload(p->skel->progs.fault_exit, m == AP_METHOD_FENTRY);
	bpf_program__set_autoload(p->skel->progs.perf_minor, m == AP_METHOD_PERF);
	bpf_program__set_autoload(p->skel->progs.perf_major, m == AP_METHOD_PERF);
	p->skel->rodata->target_tgid = target;
	/* wake the reader at every eighth of the ring or less, a power of 2 of records */
	p->skel->rodata->wakeup_mask = wakeup_mask(ring);
	err = bpf_map__set_max_entries(p->skel->maps.events, ring);
	if (err) {
		ap_seterr(why, "%s: ring buffer of %u bytes: %s", name, ring,
			  ap_probe_errstr(err, eb, sizeof(eb)));
		goto fail;
	}
	err = ap_bpf_load(p->skel->obj, &p->ld, verbose, why);
	if (err) {
		load_error(m, err, why);
		goto fail;
	}
	switch (m) {
	case AP_METHOD_TP:
	case AP_METHOD_FENTRY:
		err = ap_bpf_attach_tracing(ap_bpf_prog_fd(&p->ld, m == AP_METHOD_TP ?
							   p->skel->progs.fault_tp :
							   p->skel->progs.fault_exit), &l);
		if (err) {
			ap_seterr(why, "%s: attaching %s failed: %s", name, method_what(m),
				  ap_probe_errstr(err, eb, sizeof(eb)));
			goto fail;
		}
		if (push_link(p, &l)) {
			ap_bpf_link_close(&l);
			ap_seterr(why, "%s: out of memory", name);
			err = -ENOMEM;
			goto fail;
		}
		break;
	case AP_METHOD_PERF:
		err = attach_perf(p, why);
		if (err)
			goto fail;
		break;
	case AP_METHOD_NONE:
		ap_seterr(why, "no method given");
		err = -EINVAL;
		goto fail;
	}
	p->method = m;
	return 0;
fail:
	teardown(p);
	return err < 0 ? err : -EIO;
}

void ap_probe_set_verbose(bool on)
{
	verbose = on;
}

int ap_probe_try(enum ap_method m, char *why)
{
	struct ap_probe p = { 0 };
	int err;

	setup_libbpf();
	if (m == AP_METHOD_NONE)
		return ap_fail(why, -EINVAL, "auto is not a method");
	err = ap_btf_ready(why);
	if (err)
		return err;
	/* 0xffffffff: no such tgid, the programs run but match nothing */
	err = try_method(&p, m, 0xffffffffu, ring_size(1), why);
	if (err)
		return err;
	teardown(&p);
	return 0;
}

bool ap_probe_supported(enum ap_method m, char *why)
{
	return !ap_probe_try(m, why);
}

static int rb_handler(void *ctx, void *data, size_t size)
{
	struct ap_probe *p = ctx;
	struct ap_event ev;
	int n = ap_ring_batch_len(data, size);

	for (int i = 0; i < (n ? n : 1); i++) {
		if (n > 0)
			ap_ring_decode_batch(data, i, &ev);
		else if (n < 0 || ap_ring_decode(&p->dec, data, size, &ev))
			return 0;
		p->seen++;
		if (p->cb(p->cb_ctx, &ev)) {
			p->stopped = true;
			return -ECANCELED;
		}
	}
	return 0;
}

/*
 * Auto order: the x86 tracepoint, then fentry, then perf. The tracepoint exists only on
 * x86, so other arches start at fentry (a forced --probe tp still says why it fails).
 */
static const enum ap_method auto_order[] = {
#if defined(__x86_64__) || defined(__i386__)
	AP_METHOD_TP,
#endif
	AP_METHOD_FENTRY, AP_METHOD_PERF,
};

int ap_probe_open(struct ap_probe **pp, const struct ap_probe_opts *o, char *err)
{
	char why[AP_ERR_LEN], all[3 * AP_ERR_LEN] = "";
	struct ap_probe *p;
	uint32_t ring;
	double rate = 0;
	char eb[96];
	size_t i;
	int ret = -1, ncpu;

	*pp = NULL;
	verbose = o->verbose;
	setup_libbpf();
	if (o->pid <= 0) {
		ap_seterr(err, "no target pid");
		return -EINVAL;
	}
	ret = ap_btf_ready(err);	/* one reason, not one per method */
	if (ret)
		return ret;
	ret = -1;
	p = calloc(1, sizeof(*p));
	if (!p) {
		ap_seterr(err, "out of memory");
		return -ENOMEM;
	}
	p->pid = o->pid;
	if (!o->ring_bytes) {
		int rc = ap_ring_measure_fault_rate(&rate, err);

		if (rc) {
			free(p);
			return rc;
		}
		ring = ring_size(ap_ring_bytes_for_rate(rate));
	} else {
		ring = ring_size(o->ring_bytes);
	}
	p->ring_bytes = ring;
	p->rate = rate;
	if (o->method != AP_METHOD_NONE) {
		ret = try_method(p, o->method, (uint32_t)o->pid, ring, err);
	} else {
		for (i = 0; i < sizeof(auto_order) / sizeof(auto_order[0]) && ret; i++) {
			ret = try_method(p, auto_order[i], (uint32_t)o->pid, ring, why);
			if (ret) {
				size_t n = strlen(all);

				snprintf(all + n, sizeof(all) - n, "%s%s", n ? "; " : "", why);
			}
		}
		if (ret)
			ap_seterr(err, "no fault source works here: %s", all);
		else
			snprintf(p->auto_skipped, sizeof(p->auto_skipped), "%s", all);
	}
	if (ret) {
		free(p);
		return ret;
	}
	ncpu = libbpf_num_possible_cpus();
	if (ap_ring_decoder_init(&p->dec, ncpu > 0 ? (unsigned int)ncpu : 0)) {
		ap_seterr(err, "out of memory");
		ap_probe_close(p);
		return -ENOMEM;
	}
	p->rb = ring_buffer__new(ap_bpf_map_fd(&p->ld, p->skel->maps.events), rb_handler, p,
				 NULL);
	if (!p->rb) {
		ret = -errno;
		ap_seterr(err, "ring buffer: %s", ap_probe_errstr(ret, eb, sizeof(eb)));
		ap_probe_close(p);
		return ret;
	}
	*pp = p;
	return 0;
}

enum ap_method ap_probe_method(const struct ap_probe *p)
{
	return p->method;
}

uint32_t ap_probe_ring_bytes(const struct ap_probe *p)
{
	return p->ring_bytes;
}

double ap_probe_sized_for_rate(const struct ap_probe *p)
{
	return p->rate;
}

const char *ap_probe_auto_skipped(const struct ap_probe *p)
{
	return p->auto_skipped;
}

static int attach_marker(struct ap_probe *p, const char *binary, const char *symbol,
			 struct bpf_program *enter, struct bpf_program *exit, uint64_t cookie,
			 char *err)
{
	struct ap_bpf_link l1, l2;
	char path[PATH_MAX], eb[96];
	uint64_t off;
	int e;

	if (!realpath(binary, path)) {
		e = errno;
		return ap_fail(err, -e, "%s: %s", binary, strerror(e));
	}
	e = ap_symbols_lookup(path, symbol, &off, err);
	if (e)
		return e;
	/* the return first: a call entered between the two attaches (-p of a busy process)
	 * then has an end without a beginning, which the BPF side ignores, not a beginning
	 * without an end, which would leave its thread's depth above 0 for good */
	e = ap_bpf_attach_uprobe(ap_bpf_prog_fd(&p->ld, exit), p->pid, path, off, true, cookie,
				 &l2);
	if (e) {
		ap_seterr(err, "uretprobe %s:%s: %s", binary, symbol,
			  ap_probe_errstr(e, eb, sizeof(eb)));
		return e;
	}
	e = ap_bpf_attach_uprobe(ap_bpf_prog_fd(&p->ld, enter), p->pid, path, off, false,
				 cookie, &l1);
	if (e) {
		ap_bpf_link_close(&l2);
		ap_seterr(err, "uprobe %s:%s: %s", binary, symbol,
			  ap_probe_errstr(e, eb, sizeof(eb)));
		return e;
	}
	/* closed in reverse (teardown): the entry before the return, for the same reason */
	if (push_link(p, &l2) || push_link(p, &l1)) {
		/* push_link(l2) may have worked: take it back so nothing is closed twice */
		if (p->n_links && p->links[p->n_links - 1].fd == l2.fd)
			p->n_links--;
		ap_bpf_link_close(&l2);
		ap_bpf_link_close(&l1);
		ap_seterr(err, "out of memory");
		return -ENOMEM;
	}
	return 0;
}

int ap_probe_attach_run(struct ap_probe *p, const char *binary, const char *symbol,
			bool obj_arg, char *err)
{
	return attach_marker(p, binary, symbol, p->skel->progs.run_enter,
			     p->skel->progs.run_exit, obj_arg, err);
}

int ap_probe_attach_op(struct ap_probe *p, const char *binary, const char *symbol, int arg,
		       char *err)
{
#if defined(__x86_64__) || defined(__aarch64__)
	const int max_arg = AP_PROBE_MAX_ARG;
#else
	const int max_arg = 4;
#endif
	if (arg < 0 || arg > max_arg) {
		ap_seterr(err, "op marker %s: argument %d: only 0..%d can be read", symbol, arg,
			  max_arg);
		return -EINVAL;
	}
	/* before the uprobes: a fault after op_enter must look its operator up */
	__atomic_store_n(&p->skel->bss->op_probes, true, __ATOMIC_RELAXED);
	return attach_marker(p, binary, symbol, p->skel->progs.op_enter, p->skel->progs.op_exit,
			     (uint64_t)arg, err);
}

static const struct {
	const char *name;
	enum ap_alloc_fn fn;
} alloc_funcs[] = {
	{ "malloc", AP_ALLOC_MALLOC },
	{ "calloc", AP_ALLOC_CALLOC },
	{ "realloc", AP_ALLOC_REALLOC },
	{ "aligned_alloc", AP_ALLOC_ALIGNED_ALLOC },
	{ "memalign", AP_ALLOC_MEMALIGN },
	{ "posix_memalign", AP_ALLOC_POSIX_MEMALIGN },
	{ "free", AP_ALLOC_FREE },
};
#define N_ALLOC_FUNCS (sizeof(alloc_funcs) / sizeof(alloc_funcs[0]))

/* Calls a program makes all the time: detached by ap_probe_quiet_alloc. */
static bool hot_fn(uint64_t fn)
{
	return fn == AP_ALLOC_MALLOC || fn == AP_ALLOC_CALLOC || fn == AP_ALLOC_REALLOC ||
	       fn == AP_ALLOC_FREE;
}

static int attach_one(struct ap_probe *p, struct bpf_program *prog, const char *path,
		      uint64_t off, uint64_t cookie, bool ret)
{
	struct ap_bpf_link l;
	int e;

	e = ap_bpf_attach_uprobe(ap_bpf_prog_fd(&p->ld, prog), p->pid, path, off, ret, cookie,
				 &l);
	if (e)
		return e;
	if (hot_fn(cookie) && p->n_hot < sizeof(p->hot) / sizeof(p->hot[0])) {
		p->hot[p->n_hot++] = l;
		return 0;
	}
	if (push_link(p, &l)) {
		ap_bpf_link_close(&l);
		return -ENOMEM;
	}
	return 0;
}

int ap_probe_attach_alloc(struct ap_probe *p, const char *libc_path, char *what, size_t len,
			  char *err)
{
	uint64_t offs[N_ALLOC_FUNCS];
	bool found[N_ALLOC_FUNCS] = { 0 };
	char path[PATH_MAX], eb[96], e[AP_ERR_LEN];
	size_t first_link = p->n_links, first_hot = p->n_hot, n = 0, i, k;
	int rc;

	if (what && len)
		what[0] = '\0';
	if (!realpath(libc_path, path)) {
		rc = errno;
		return ap_fail(err, -rc, "%s: %s", libc_path, strerror(rc));
	}
	for (i = 0; i < N_ALLOC_FUNCS; i++)
		found[i] = !ap_symbols_lookup(path, alloc_funcs[i].name, &offs[i], e);
	if (!found[0] || !found[N_ALLOC_FUNCS - 1]) {
		ap_seterr(err, "%s has no malloc and free: not a C library", path);
		return -ENOENT;
	}
	for (i = 0; i < N_ALLOC_FUNCS; i++) {
		const char *alias = NULL;
		bool is_free = alloc_funcs[i].fn == AP_ALLOC_FREE;

		if (!found[i])
			continue;
		for (k = 0; k < i && !alias; k++)
			if (found[k] && offs[k] == offs[i])
				alias = alloc_funcs[k].name;
		if (alias) {	/* one function under two names: already attached */
			if (what && len) {
				size_t m = strlen(what);

				snprintf(what + m, len - m, " %s(=%s)", alloc_funcs[i].name, alias);
			}
			continue;
		}
		rc = attach_one(p, is_free ? p->skel->progs.free_enter : p->skel->progs.alloc_enter,
				path, offs[i], alloc_funcs[i].fn, false);
		if (!rc && !is_free)
			rc = attach_one(p, p->skel->progs.alloc_exit, path, offs[i],
					alloc_funcs[i].fn, true);
		if (rc) {
			ap_seterr(err, "uprobe %s:%s: %s", path, alloc_funcs[i].name,
				  ap_probe_errstr(rc, eb, sizeof(eb)));
			while (p->n_links > first_link)
				ap_bpf_link_close(&p->links[--p->n_links]);
			while (p->n_hot > first_hot)
				ap_bpf_link_close(&p->hot[--p->n_hot]);
			return rc < 0 ? rc : -rc;
		}
		n++;
		if (what && len) {
			size_t m = strlen(what);

			snprintf(what + m, len - m, "%s%s", m ? " " : "", alloc_funcs[i].name);
		}
	}
	return n ? 0 : -1;
}

/* symbols.h's enum ap_xnn_alloc_sym order */
static const struct {
	const char *name;
	enum ap_alloc_fn fn;
} xnn_funcs[AP_XNN_N_SYMS] = {
	{ "xnn_allocate", AP_ALLOC_XNN_ALLOCATE },
	{ "xnn_reallocate", AP_ALLOC_XNN_REALLOCATE },
	{ "xnn_aligned_allocate", AP_ALLOC_XNN_ALIGNED },
	{ "xnn_deallocate", AP_ALLOC_XNN_FREE },
	{ "xnn_aligned_deallocate", AP_ALLOC_XNN_ALIGNED_FREE },
};

int ap_probe_attach_xnn(struct ap_probe *p, const char *path, const uint64_t *off, char *err)
{
	size_t first_link = p->n_links;
	char eb[96];
	int rc = 0;

	for (size_t i = 0; i < AP_XNN_N_SYMS && !rc; i++) {
		bool is_free = xnn_funcs[i].fn == AP_ALLOC_XNN_FREE ||
			       xnn_funcs[i].fn == AP_ALLOC_XNN_ALIGNED_FREE;

		rc = attach_one(p, is_free ? p->skel->progs.free_enter : p->skel->progs.alloc_enter,
				path, off[i], xnn_funcs[i].fn, false);
		if (!rc && !is_free)
			rc = attach_one(p, p->skel->progs.alloc_exit, path, off[i],
					xnn_funcs[i].fn, true);
		if (rc)
			ap_seterr(err, "uprobe %s:%s: %s", path, xnn_funcs[i].name,
				  ap_probe_errstr(rc, eb, sizeof(eb)));
	}
	if (rc)
		while (p->n_links > first_link)
			ap_bpf_link_close(&p->links[--p->n_links]);
	return rc < 0 ? rc : -rc;
}

void ap_probe_set_alloc_window(struct ap_probe *p, uint64_t min, uint64_t max)
{
	__atomic_store_n(&p->skel->bss->alloc_min, min, __ATOMIC_RELAXED);
	__atomic_store_n(&p->skel->bss->alloc_max, max, __ATOMIC_RELAXED);
}

static void *quiet_worker(void *arg)
{
	struct ap_probe *p = arg;

	while (p->n_quiet)
		ap_bpf_link_close(&p->quiet[--p->n_quiet]);
	return NULL;
}

size_t ap_probe_quiet_alloc(struct ap_probe *p)
{
	size_t n = p->n_hot;

	if (!n || p->quiet_running)
		return 0;
	memcpy(p->quiet, p->hot, n * sizeof(p->hot[0]));
	p->n_quiet = n;
	p->n_hot = 0;
	if (pthread_create(&p->quiet_thread, NULL, quiet_worker, p))
		quiet_worker(p);	/* no thread: here, slowly */
	else
		p->quiet_running = true;
	return n;
}

void ap_probe_set_wake_runs(struct ap_probe *p, uint32_t runs)
{
	__atomic_store_n(&p->skel->bss->wake_runs, runs, __ATOMIC_RELAXED);
}

/*
 * A counter struct of the BPF program's .bss (all __u64) copied while the program may be
 * counting: each word read whole.
 */
static void load_words(void *dst, const void *src, size_t bytes)
{
	const uint64_t *s = src;
	uint64_t *d = dst;

	for (size_t i = 0; i < bytes / sizeof(*d); i++)
		d[i] = __atomic_load_n(&s[i], __ATOMIC_RELAXED);
}

void ap_probe_alloc_counters(const struct ap_probe *p, struct ap_alloc_counters *c)
{
	load_words(c, &p->skel->bss->alloc_counters, sizeof(*c));
}

int ap_probe_poll(struct ap_probe *p, int timeout_ms,
		  int (*cb)(void *ctx, const struct ap_event *ev), void *ctx, char *err)
{
	char eb[96];
	int r;

	p->cb = cb;
	p->cb_ctx = ctx;
	p->seen = 0;
	p->stopped = false;
	r = ring_buffer__poll(p->rb, timeout_ms);
	/*
	 * The kernel wakes the poller only when the consumer had caught up; consume
	 * whatever else is there so a quiet ring is emptied too.
	 */
	if (!p->stopped && (r >= 0 || r == -EINTR))
		r = ring_buffer__consume(p->rb);
	if (r < 0 && r != -EINTR && !p->stopped) {
		ap_seterr(err, "ring buffer poll: %s", ap_probe_errstr(r, eb, sizeof(eb)));
		return r;
	}
	return p->seen;
}

/*
 * flush_batch run on each online CPU: on another CPU in its interrupt handler (the tp
 * program it must not interleave with runs with interrupts off), on this one directly.
 */
void ap_probe_flush(struct ap_probe *p)
{
	int fd = ap_bpf_prog_fd(&p->ld, p->skel->progs.flush_batch), cpus[4096], n;

	if (p->method != AP_METHOD_TP || fd < 0)
		return;
	n = online_cpus(cpus, (int)(sizeof(cpus) / sizeof(cpus[0])));
	for (int i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_test_run_opts, o, .flags = BPF_F_TEST_RUN_ON_CPU,
			    .cpu = (__u32)cpus[i]);

		/* fails only for a CPU gone offline since: its batch waits for it to return */
		bpf_prog_test_run_opts(fd, &o);
	}
}

void ap_probe_counters(const struct ap_probe *p, struct ap_counters *c)
{
	load_words(c, &p->skel->bss->counters, sizeof(*c));
}

void ap_probe_fault_stats(const struct ap_probe *p, uint64_t *run_ns, uint64_t *runs)
{
	struct bpf_program *progs[] = {
		p->skel->progs.fault_tp, p->skel->progs.fault_exit, p->skel->progs.perf_minor,
		p->skel->progs.perf_major,
	};

	*run_ns = *runs = 0;
	for (size_t i = 0; i < sizeof(progs) / sizeof(progs[0]); i++) {
		struct bpf_prog_info info;
		__u32 len = sizeof(info);
		int fd = ap_bpf_prog_fd(&p->ld, progs[i]);

		memset(&info, 0, sizeof(info));
		if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
			continue;
		*run_ns += info.run_time_ns;
		*runs += info.run_cnt;
	}
}

void ap_probe_close(struct ap_probe *p)
{
	if (!p)
		return;
	teardown(p);
	ap_ring_decoder_free(&p->dec);
	free(p);
}
