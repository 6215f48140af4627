/* SPDX-License-Identifier: Apache-2.0 */
/*
 * bpf_load: loads an opened libbpf object by the loader program libbpf generates for it
 * (bpf_object__gen_loader, the way of bpftool's light skeletons), run once in the
 * kernel. The kernel then resolves the object's CO-RE relocations and attach targets
 * against its own BTF, so this process never parses /sys/kernel/btf/vmlinux: libbpf's
 * parse of it (a 5-6 MB file, copied twice) took the recorder's peak RSS from 2 to 14
 * MiB. Needs BPF_PROG_TYPE_SYSCALL (5.14) and CO-RE in the kernel (5.17).
 *
 * libbpf's own fds, links and attach calls do not work on an object loaded this way:
 * the fds are here, and bpf_attach.h attaches by fd. The object's global data maps
 * (.bss, .rodata) are mapped over libbpf's copies, so a skeleton's bss and rodata
 * pointers read and write the kernel's maps as after a normal load.
 *
 * With a BTF file (--btf, ARENAPROF_BTF: btf_custom.h) libbpf loads the object itself,
 * relocating against the file here (the loader would relocate against the kernel's own
 * BTF); the fds are then libbpf's, and the same calls work.
 */
#ifndef ARENAPROF_RECORD_BPF_LOAD_H
#define ARENAPROF_RECORD_BPF_LOAD_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

struct bpf_object;
struct bpf_map;
struct bpf_program;

struct ap_bpf_loaded {
	struct bpf_object *obj;
	int *map_fd;		/* in the object's map order */
	int *prog_fd;		/* in the object's program order; -1: not loaded */
	size_t n_maps, n_progs;
	bool borrowed;		/* the fds are libbpf's (a BTF file): it closes them */
};

/* ap_bpf_load's error when a CO-RE relocation found no match in the BTF file. */
#define AP_BPF_ECORE (-EBADE)

/*
 * Generates the loader for obj (its programs' autoload flags and maps' sizes as set),
 * runs it, and maps the global data. 0, or a negative errno with err (AP_ERR_LEN): the
 * kernel's answer, e.g. -ENOENT for an attach target its BTF does not have. verbose:
 * the verifier's log of a failed load to stderr.
 */
int ap_bpf_load(struct bpf_object *obj, struct ap_bpf_loaded *l, bool verbose, char *err);
int ap_bpf_map_fd(const struct ap_bpf_loaded *l, const struct bpf_map *map);
int ap_bpf_prog_fd(const struct ap_bpf_loaded *l, const struct bpf_program *prog);
/* Closes every fd (the global data stay mapped until the object is closed). */
void ap_bpf_unload(struct ap_bpf_loaded *l);

#endif
