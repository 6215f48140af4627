/* SPDX-License-Identifier: Apache-2.0 */
/*
 * features: what `arenaprof check` finds on the running kernel (docs/check.md). A list of
 * features, each probed for real (a file read, a write, a syscall, a load and an attach),
 * with its status, a one-line detail, what it costs each face of arenaprof when it is not
 * there, and the kernel option that brings it; and from them the state of each face.
 *
 * This header and src/kernel/features.c hold the list and the probes of what the kernel
 * exposes in files (the uprobe PMU, tracefs, cgroup v2, PSI, smaps_rollup, clear_refs);
 * record/features_bpf.h adds the BTF and the probes that load BPF (the bpf() syscall,
 * the ring buffer, bpf_find_vma, the fault methods), since loading is record/'s.
 */
#ifndef ARENAPROF_KERNEL_FEATURES_H
#define ARENAPROF_KERNEL_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

#include "arenaprof/util/err.h"

enum ap_feat_status {
	AP_FEAT_OK,
	AP_FEAT_MISSING,	/* the kernel lacks it, or this user may not use it */
	AP_FEAT_REFUSED,	/* the kernel has it and refused the attempt (EPERM, ...) */
};

enum ap_face {
	AP_FACE_RECORD,
	AP_FACE_TOP,
	AP_FACE_RUN,
	AP_FACE_PLAN,
	AP_FACE_N,
};

/* Ordered: a face's state is the worst any feature it needs gives it. */
enum ap_face_state {
	AP_FACE_OK,
	AP_FACE_DEGRADED,	/* runs, with a fallback in use */
	AP_FACE_UNAVAILABLE,	/* cannot run at all */
};

struct ap_feature {
	const char *name;		/* stable key: "btf", "bpf", "tp_btf", ... */
	enum ap_feat_status status;
	char detail[AP_ERR_LEN];	/* what was found, or why not (one line) */
	const char *affects;		/* what falls back or cannot run without it */
	const char *kernel_option;	/* what brings it: "CONFIG_PSI=y, no psi=0" */
	/* each face's state when this feature is not ok */
	enum ap_face_state cost[AP_FACE_N];
	/*
	 * A fault method (tp, fentry, perf): its place in record --probe auto's order, 1
	 * first; 0 for other features. The methods count together: the first of the order
	 * ok is the default; a later one is a fallback (degraded); none, no record or top.
	 */
	int method_rank;
};

#define AP_FEAT_MAX 24

struct ap_features {
	char kernel[72];		/* uname -r */
	char arch[72];			/* uname -m */
	/* where the BTF comes from: "built-in", "--btf", "ARENAPROF_BTF" or "missing" */
	const char *btf_source;
	const char *btf_file;		/* its file, or NULL (missing) */
	struct ap_feature f[AP_FEAT_MAX];
	size_t n;
	enum ap_face_state face[AP_FACE_N];	/* ap_features_judge */
	/* BPF refused to a user that is not root: top falls back to /proc alone (its
	 * memory, smaps_rollup, PSI), degraded rather than unavailable */
	bool top_procfs;
};

/* uname's release and machine; no features yet. */
void ap_features_init(struct ap_features *fs);
/*
 * A new feature, status ok and detail empty until ap_feature_set; costs all ok. Never
 * NULL: when the list is full (AP_FEAT_MAX: a bug here) a spare outside it.
 */
struct ap_feature *ap_features_add(struct ap_features *fs, const char *name,
				   const char *affects, const char *kernel_option);
void ap_feature_set(struct ap_feature *f, enum ap_feat_status st, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* The feature named name, or NULL. */
const struct ap_feature *ap_features_find(const struct ap_features *fs, const char *name);

/* The probes of files and syscalls other than bpf(): appends their features. */
void ap_features_probe_files(struct ap_features *fs);

/* Into the table's order: btf, bpf, ..., the fault methods, then cgroups, PSI, /proc. */
void ap_features_sort(struct ap_features *fs);

/*
 * Each face's state from the features' costs and the fault methods' ranks (plan is always
 * ok: it reads a model file only). Returns the exit status check gives: 0 every face ok,
 * 1 some face degraded, 2 some face unavailable.
 */
int ap_features_judge(struct ap_features *fs);

const char *ap_feat_status_name(enum ap_feat_status st);	/* "ok", "missing", "refused" */
const char *ap_face_name(enum ap_face f);			/* "record", ... */
const char *ap_face_state_name(enum ap_face_state s);	/* "ok", "degraded", "unavailable" */

#endif
