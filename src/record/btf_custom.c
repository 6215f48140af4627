// SPDX-License-Identifier: Apache-2.0
/*
 * btf_custom: --btf FILE and ARENAPROF_BTF (include/arenaprof/record/btf_custom.h): the
 * file's checks, the layout check against the running kernel, and the probe of the
 * kernel's own BTF. The two probes are raw instructions, not a second skeleton: they
 * must work before, and apart from, the object they vouch for.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include "arenaprof/record/btf_custom.h"
#include "arenaprof/record/method.h"
#include "arenaprof/util/err.h"

/* The fields the layout check reads: a kernel's BTF has them all, at its own offsets. */
enum { F_PID, F_TGID, F_MM, F_START_STACK, F_ARG_START, F_N };

static const struct {
	const char *type, *field;
} fields[F_N] = {
	[F_PID] = { "task_struct", "pid" },
	[F_TGID] = { "task_struct", "tgid" },
	[F_MM] = { "task_struct", "mm" },
	[F_START_STACK] = { "mm_struct", "start_stack" },
	[F_ARG_START] = { "mm_struct", "arg_start" },
};

static struct {
	bool chosen;
	enum ap_btf_source src;
	char path[PATH_MAX];
	char said[PATH_MAX + 16];
	char kind[64];
	long off[F_N];		/* byte offsets in the file's BTF */
	int match;		/* the layout check: 0 not run, 1 matched, else its -errno */
	char match_why[AP_ERR_LEN];
} g;

static const char *release(void)
{
	static struct utsname u;

	if (!u.release[0] && uname(&u))
		snprintf(u.release, sizeof(u.release), "?");
	return u.release;
}

/* The byte offset of member name in type id, inside anonymous members too; -1 if none. */
static long member_off(const struct btf *btf, __u32 id, const char *name, int depth)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const struct btf_member *m;

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_composite(t) || depth > 8)
		return -1;
	m = btf_members(t);
	for (__u16 i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);
		long sub;

		if (n && n[0]) {
			if (!strcmp(n, name))
				return btf_member_bit_offset(t, i) / 8;
			continue;
		}
		sub = member_off(btf, m->type, name, depth + 1);
		if (sub >= 0)
			return btf_member_bit_offset(t, i) / 8 + sub;
	}
	return -1;
}

/* Why a file that is not BTF is not, from its first bytes; NULL: it may be BTF. */
static const char *not_btf(const unsigned char *b, size_t n)
{
	if (n >= 4 && ((b[0] == 0x9f && b[1] == 0xeb) || (b[0] == 0xeb && b[1] == 0x9f)))
		return NULL;
	if (n >= 4 && !memcmp(b, "\177ELF", 4))
		return NULL;
	if (n >= 6 && !memcmp(b, "\xfd" "7zXZ\0", 6))
		return "xz-compressed (BTFHub's KERNEL.btf.tar.xz): unpack it first, "
		       "tar -xJf FILE, and give the .btf file in it";
	if (n >= 2 && b[0] == 0x1f && b[1] == 0x8b)
		return "gzip-compressed: unpack it first and give the BTF file in it";
	if (n >= 4 && !memcmp(b, "\x28\xb5\x2f\xfd", 4))
		return "zstd-compressed: unpack it first and give the BTF file in it";
	if (n >= 262 && !memcmp(b + 257, "ustar", 5))
		return "a tar archive: extract the .btf file in it (tar -xf FILE) and give that";
	return "not BTF: neither raw BTF (magic 0xeb9f) nor an ELF file with a .BTF section";
}

/* g.path checked, its kind and offsets read: 0, or -errno with err. */
static int check_file(char *err)
{
	unsigned char head[512];
	struct stat st;
	libbpf_print_fn_t quiet;
	struct btf *btf;
	const char *why;
	ssize_t n;
	bool elf;
	int fd, e;

	fd = open(g.path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st)) {
		e = errno;
		if (fd >= 0)
			close(fd);
		return ap_fail(err, -e, "%s: %s", g.said, strerror(e));
	}
	if (S_ISDIR(st.st_mode)) {
		close(fd);
		return ap_fail(err, -EINVAL, "%s: a directory, not a BTF file", g.said);
	}
	n = read(fd, head, sizeof(head));
	e = errno;
	close(fd);
	if (n < 0)
		return ap_fail(err, -e, "%s: %s", g.said, strerror(e));
	why = not_btf(head, (size_t)n);
	if (why)
		return ap_fail(err, -EINVAL, "%s: %s", g.said, why);
	elf = !memcmp(head, "\177ELF", 4);
	quiet = libbpf_set_print(NULL);	/* its words are said here, once */
	btf = btf__parse(g.path, NULL);
	libbpf_set_print(quiet);
	e = libbpf_get_error(btf);
	e = e < 0 ? -e : e;
	if (e && elf && e == ENOENT)
		return ap_fail(err, -EINVAL, "%s: an ELF file without a .BTF section: its kernel "
			       "was built without BTF (pahole -J adds one)", g.said);
	if (e)
		return ap_fail(err, -EINVAL, "%s: corrupt BTF%s: libbpf cannot parse it (%s)",
			       g.said, elf ? " in its .BTF section" : "", strerror(e));
	for (int i = 0; i < F_N; i++) {
		__s32 id = btf__find_by_name_kind(btf, fields[i].type, BTF_KIND_STRUCT);

		g.off[i] = id > 0 ? member_off(btf, (__u32)id, fields[i].field, 0) : -1;
		if (g.off[i] < 0) {
			btf__free(btf);
			return ap_fail(err, -EINVAL, "%s: BTF without %s.%s: not a kernel's "
				       "vmlinux BTF", g.said, fields[i].type, fields[i].field);
		}
	}
	snprintf(g.kind, sizeof(g.kind), "%s, %.1f MiB, %u types", elf ? "ELF .BTF" : "raw BTF",
		 (double)st.st_size / (1 << 20), btf__type_cnt(btf) - 1);
	btf__free(btf);
	return 0;
}

int ap_btf_choose(const char *opt, char *err)
{
	const char *env = getenv("ARENAPROF_BTF");

	memset(&g, 0, sizeof(g));
	g.chosen = true;
	if (!opt && (!env || !env[0])) {
		g.src = access(AP_BTF_SYSFS, R_OK) ? AP_BTF_MISSING : AP_BTF_BUILTIN;
		return 0;
	}
	g.src = opt ? AP_BTF_OPTION : AP_BTF_ENV;
	snprintf(g.path, sizeof(g.path), "%s", opt ? opt : env);
	snprintf(g.said, sizeof(g.said), "%s%s", opt ? "--btf " : "ARENAPROF_BTF=", g.path);
	if (!g.path[0])
		return ap_fail(err, -EINVAL, "--btf: an empty file name");
	return check_file(err);
}

static void choose_default(void)
{
	char err[AP_ERR_LEN];

	/* a caller that never chose (a fixture): the environment's, unchecked if bad */
	if (!g.chosen && ap_btf_choose(NULL, err))
		g.src = AP_BTF_MISSING;
}

enum ap_btf_source ap_btf_source(void)
{
	choose_default();
	return g.src;
}

const char *ap_btf_source_name(enum ap_btf_source s)
{
	switch (s) {
	case AP_BTF_BUILTIN:
		return "built-in";
	case AP_BTF_OPTION:
		return "--btf";
	case AP_BTF_ENV:
		return "ARENAPROF_BTF";
	case AP_BTF_MISSING:
		break;
	}
	return "missing";
}

const char *ap_btf_path(void)
{
	choose_default();
	return g.src == AP_BTF_OPTION || g.src == AP_BTF_ENV ? g.path : NULL;
}

const char *ap_btf_kind(void)
{
	return g.kind;
}

const char *ap_btf_said(void)
{
	return g.said;
}

#define INSN(c, d, s, o, i)                                                              \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o),   \
			    .imm = (i) })
#define MOV_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define MOV_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define ADD_IMM(d, i) INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define ST_W(d, o, i) INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define STX_DW(d, s, o) INSN(BPF_STX | BPF_MEM | BPF_DW, d, s, o, 0)
#define LDX_DW(d, s, o) INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define JEQ_IMM(d, i, o) INSN(BPF_JMP | BPF_JEQ | BPF_K, d, 0, o, i)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
/* r(d) = the map of fd (two instructions) */
#define LD_MAP(d, fd) \
	INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), INSN(0, 0, 0, 0, 0)

/* The map value the layout program fills: each read, then bpf_get_current_pid_tgid. */
enum { V_PID, V_TGID, V_MM, V_START_STACK, V_ARG_START, V_PID_TGID, V_N };

/* r1 = &value[slot], r2 = size, r3 = r(base) + off; probe_read_kernel */
#define READ(slot, size, base, off) \
	MOV_REG(1, 7), ADD_IMM(1, (slot) * 8), MOV_IMM(2, size), MOV_REG(3, base), \
	ADD_IMM(3, (int)(off)), CALL(BPF_FUNC_probe_read_kernel)

/* A program's last verifier line and the errno, or the errno's text alone. */
static void load_err(const char *log, int e, char *buf, size_t len)
{
	const char *end = log + strlen(log), *p;

	while (end > log && (end[-1] == '\n' || end[-1] == ' '))
		end--;
	for (p = end; p > log && p[-1] != '\n'; p--)
		;
	if (end > p)
		snprintf(buf, len, "%.*s (%s)", (int)(end - p), p, strerror(-e));
	else
		ap_probe_errstr(e, buf, len);
}

/*
 * A raw tracepoint program loaded: its fd, or -errno with msg. A refusal is loaded again
 * with the verifier's log for its last line (not the first time: a log too small for a
 * program that passes fails the load on older kernels).
 */
static int load_raw_tp(const char *name, const struct bpf_insn *insns, size_t n, char *msg,
		       size_t len)
{
	static char log[1 << 16];
	LIBBPF_OPTS(bpf_prog_load_opts, po, .log_buf = log, .log_size = sizeof(log),
		    .log_level = 1);
	int fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, name, "GPL", insns, n, NULL);
	int e;

	if (fd >= 0)
		return fd;
	e = -errno;
	log[0] = '\0';
	if (e != -EPERM && e != -EACCES) {
		fd = bpf_prog_load(BPF_PROG_TYPE_RAW_TRACEPOINT, name, "GPL", insns, n, &po);
		if (fd >= 0)
			close(fd);
	}
	load_err(log, e, msg, len);
	return e;
}

/* Reads this task's fields at the file's offsets, in the kernel: 0 with v, or -errno. */
static int layout_read(__u64 v[V_N], char *why)
{
	LIBBPF_OPTS(bpf_test_run_opts, ro);
	char eb[AP_ERR_LEN];
	int mfd, pfd, e;
	__u32 key = 0;
	size_t n;

	mfd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "ap_btf_check", 4, V_N * 8, 1, NULL);
	if (mfd < 0) {
		e = -errno;
		return ap_fail(why, e, "the BTF layout check: creating its map: %s",
			       ap_probe_errstr(e, eb, sizeof(eb)));
	}
	{
		/* value = the map's only element; r6 = current task; r8 = its mm */
		struct bpf_insn insns[] = {
			ST_W(10, -4, 0), MOV_REG(2, 10), ADD_IMM(2, -4), LD_MAP(1, mfd),
			CALL(BPF_FUNC_map_lookup_elem), JEQ_IMM(0, 0, 0), MOV_REG(7, 0),
			CALL(BPF_FUNC_get_current_task), MOV_REG(6, 0),
			READ(V_PID, 4, 6, g.off[F_PID]), READ(V_TGID, 4, 6, g.off[F_TGID]),
			READ(V_MM, 8, 6, g.off[F_MM]), LDX_DW(8, 7, V_MM * 8),
			READ(V_START_STACK, 8, 8, g.off[F_START_STACK]),
			READ(V_ARG_START, 8, 8, g.off[F_ARG_START]),
			CALL(BPF_FUNC_get_current_pid_tgid), STX_DW(7, 0, V_PID_TGID * 8),
			MOV_IMM(0, 0), EXIT(),
		};

		n = sizeof(insns) / sizeof(insns[0]);
		insns[6].off = (__s16)(n - 2 - 7);	/* no element: to the final r0 = 0 */
		pfd = load_raw_tp("ap_btf_check", insns, n, eb, sizeof(eb));
	}
	if (pfd < 0) {
		close(mfd);
		return ap_fail(why, pfd, "the BTF layout check: loading its program: %s", eb);
	}
	e = bpf_prog_test_run_opts(pfd, &ro);
	if (!e && bpf_map_lookup_elem(mfd, &key, v))
		e = -errno;
	close(pfd);
	close(mfd);
	if (e)
		return ap_fail(why, e, "the BTF layout check: running its program: %s",
			       ap_probe_errstr(e, eb, sizeof(eb)));
	return 0;
}

/* /proc/self/stat's startstack (28) and arg_start (48), as the kernel's mm has them. */
static int stat_addrs(__u64 *start_stack, __u64 *arg_start)
{
	char buf[2048], *p;
	FILE *f = fopen("/proc/self/stat", "re");
	size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
	int field = 3;

	if (f)
		fclose(f);
	buf[n] = '\0';
	p = strrchr(buf, ')');	/* the command name may hold spaces and ')' */
	if (!p)
		return -EIO;
	*start_stack = *arg_start = 0;
	for (p = strtok(p + 1, " "); p; p = strtok(NULL, " "), field++) {
		if (field == 28)
			*start_stack = strtoull(p, NULL, 10);
		if (field == 48) {
			*arg_start = strtoull(p, NULL, 10);
			return 0;
		}
	}
	return -EIO;
}

/* Each field as the kernel has it; the first that is not, in why. */
static int layout_judge(const __u64 v[V_N], char *why)
{
	__u64 want[F_N] = { v[V_PID_TGID] & 0xffffffffu, v[V_PID_TGID] >> 32, 0 };
	char got[96];

	if (stat_addrs(&want[F_START_STACK], &want[F_ARG_START]))
		return ap_fail(why, -EIO, "the BTF layout check: /proc/self/stat unreadable");
	for (int i = 0; i < F_N; i++) {
		if (i == F_MM ? v[V_MM] != 0 : v[i] == want[i])
			continue;
		if (i == F_MM)
			snprintf(got, sizeof(got), "a null pointer");
		else if (i == F_PID || i == F_TGID)
			snprintf(got, sizeof(got), "%llu, not this %s's %llu",
				 (unsigned long long)v[i], i == F_PID ? "thread" : "process",
				 (unsigned long long)want[i]);
		else
			snprintf(got, sizeof(got), "%#llx, not /proc/self/stat's %#llx",
				 (unsigned long long)v[i], (unsigned long long)want[i]);
		return ap_fail(why, -EINVAL, "%s is not this kernel's BTF (uname -r %s): %s.%s "
			       "(+%ld) reads %s: the BTF is probably for another kernel", g.said,
			       release(), fields[i].type, fields[i].field, g.off[i], got);
	}
	return 0;
}

int ap_btf_match(char *why)
{
	__u64 v[V_N] = { 0 };

	choose_default();
	if (!ap_btf_path())
		return 0;
	if (!g.match) {
		int e = layout_read(v, g.match_why);

		if (!e)
			e = layout_judge(v, g.match_why);
		g.match = e ? e : 1;
	}
	if (g.match == 1)
		return 0;
	ap_seterr(why, "%s", g.match_why);
	return g.match;
}

int ap_btf_kernel_probe(char *why)
{
	const struct bpf_insn insns[] = {
		CALL(BPF_FUNC_get_current_task_btf), MOV_IMM(0, 0), EXIT(),
	};
	char eb[AP_ERR_LEN];
	int fd = load_raw_tp("ap_kernel_btf", insns, sizeof(insns) / sizeof(insns[0]), eb,
			     sizeof(eb));

	if (fd >= 0) {
		close(fd);
		return 0;
	}
	if (fd == -EPERM || fd == -EACCES)
		return ap_fail(why, fd, "a program calling bpf_get_current_task_btf: %s", eb);
	return ap_fail(why, fd, "the kernel has no BTF of its own (CONFIG_DEBUG_INFO_BTF off), "
		       "which the fault programs' bpf_find_vma and typed pointers need; --btf "
		       "cannot stand in: the verifier refused bpf_get_current_task_btf: %s", eb);
}

int ap_btf_ready(char *why)
{
	int e;

	choose_default();
	if (g.src == AP_BTF_MISSING) {
		e = ap_btf_kernel_probe(why);
		/* no BTF in the kernel either: a file would not help, say that instead */
		if (e && e != -EPERM && e != -EACCES)
			return e;
		e = access(AP_BTF_SYSFS, R_OK) ? errno : 0;
		return ap_fail(why, -ENOENT, "no kernel BTF (%s: %s): give --btf FILE or "
			       "ARENAPROF_BTF=FILE, this kernel's BTF (uname -r %s), from "
			       "pahole -J on its vmlinux with debug info or from BTFHub",
			       AP_BTF_SYSFS, e ? strerror(e) : "gone", release());
	}
	if (g.src == AP_BTF_BUILTIN)
		return 0;
	/* first: without BTF in the kernel no file helps, matching or not */
	e = access(AP_BTF_SYSFS, R_OK) ? ap_btf_kernel_probe(why) : 0;
	return e ? e : ap_btf_match(why);
}

int ap_btf_method_ok(enum ap_method m, char *why)
{
	char eb[96];

	if (m == AP_METHOD_PERF || m == AP_METHOD_NONE || !access(AP_BTF_SYSFS, R_OK))
		return 0;
	ap_probe_errstr(-errno, eb, sizeof(eb));
	if (ap_btf_path())
		return ap_fail(why, -ENOENT, "%s: attaches by the kernel's own BTF ids, and there "
			       "is no %s (%s): %s serves CO-RE relocations only",
			       ap_method_name(m), AP_BTF_SYSFS, eb, ap_btf_said());
	return ap_fail(why, -ENOENT, "%s: no kernel BTF (%s): %s", ap_method_name(m),
		       AP_BTF_SYSFS, eb);
}
