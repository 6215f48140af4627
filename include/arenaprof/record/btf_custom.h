/* SPDX-License-Identifier: Apache-2.0 */
/*
 * btf_custom: the BTF the fault programs' CO-RE relocations are resolved against. By
 * default the kernel's own (/sys/kernel/btf/vmlinux, resolved by the kernel itself:
 * bpf_load.h); a kernel without it can be given one with --btf FILE or ARENAPROF_BTF=FILE
 * (the option wins), as libbpf's btf_custom_path: raw BTF (BTFHub's files, unpacked) or
 * an ELF vmlinux with a .BTF section. libbpf then relocates in this process.
 *
 * A file for another kernel relocates without complaint wherever the fields exist, to
 * that kernel's offsets, and the traces would be garbage: so before the first load a
 * two-helper program reads this process's task_struct.pid, .tgid, .mm and the mm's
 * start_stack and arg_start at the file's offsets, and they must be what the kernel says
 * (bpf_get_current_pid_tgid, /proc/self/stat).
 *
 * The file stands in for relocations only. tp_btf and fentry are attached by the
 * kernel's BTF ids, and every fault program takes typed pointers
 * (bpf_get_current_task_btf, bpf_find_vma): both need BTF inside the kernel
 * (CONFIG_DEBUG_INFO_BTF). Without /sys/kernel/btf/vmlinux, tp and fentry are refused
 * here, and ap_btf_kernel_probe says whether the kernel has BTF at all.
 */
#ifndef ARENAPROF_RECORD_BTF_CUSTOM_H
#define ARENAPROF_RECORD_BTF_CUSTOM_H

#include <stdbool.h>

#include "arenaprof/event.h"

#define AP_BTF_SYSFS "/sys/kernel/btf/vmlinux"

enum ap_btf_source {
	AP_BTF_BUILTIN,		/* /sys/kernel/btf/vmlinux */
	AP_BTF_OPTION,		/* --btf FILE */
	AP_BTF_ENV,		/* ARENAPROF_BTF=FILE */
	AP_BTF_MISSING,		/* none of them */
};

/*
 * The BTF to use: opt (--btf, may be NULL), else $ARENAPROF_BTF, else the kernel's. A
 * file is read and checked now: readable, raw BTF or an ELF file with a .BTF section, a
 * kernel's (task_struct and mm_struct in it). 0, or -EINVAL / the open's -errno with err,
 * e.g. "--btf /etc/passwd: not BTF: ...". Called again, it chooses again.
 */
int ap_btf_choose(const char *opt, char *err);
enum ap_btf_source ap_btf_source(void);
/* "built-in", "--btf", "ARENAPROF_BTF", "missing" */
const char *ap_btf_source_name(enum ap_btf_source s);
/* The file libbpf relocates against, or NULL: the kernel's own, by the kernel. */
const char *ap_btf_path(void);
/* What the file is: "raw BTF, 5.9 MiB"; "" for none. */
const char *ap_btf_kind(void);
/* "--btf FILE" or "ARENAPROF_BTF=FILE": how messages name the file the user gave. */
const char *ap_btf_said(void);

/*
 * Before the first load: is there a BTF, and does the file match the running kernel?
 * Without one, the error names --btf and how to make one, unless the kernel has no BTF
 * inside either (ap_btf_kernel_probe), which no file helps. With a file: without
 * /sys/kernel/btf/vmlinux ap_btf_kernel_probe first, then the layout check (once a
 * process). 0, or a negative errno with why (AP_ERR_LEN).
 */
int ap_btf_ready(char *why);
/* The layout check alone: 0 with what matched in detail, or a negative errno with why. */
int ap_btf_match(char *why);
/* Method m with this BTF: tp and fentry need /sys/kernel/btf/vmlinux. 0, or -ENOENT. */
int ap_btf_method_ok(enum ap_method m, char *why);
/*
 * Does the kernel itself have BTF (does the verifier take bpf_get_current_task_btf)? 0,
 * or a negative errno with why: the verifier's own line when it refused (-EINVAL), or
 * the load's error (-EPERM: this user may not load BPF).
 */
int ap_btf_kernel_probe(char *why);

#endif
