/* SPDX-License-Identifier: Apache-2.0 */
/*
 * features_bpf: the probes of `arenaprof check` that load BPF (kernel/features.h has the
 * list and the others): the bpf() syscall and this user's permission to load tracing
 * programs, the ring buffer map and bpf_find_vma (libbpf's own feature probes), the
 * exceptions:page_fault_user tracepoint (a two-instruction raw tracepoint program,
 * attached), and each fault method loaded and attached as record loads it
 * (ap_probe_try: the real object, matching no process, then detached).
 */
#ifndef ARENAPROF_RECORD_FEATURES_BPF_H
#define ARENAPROF_RECORD_FEATURES_BPF_H

#include "arenaprof/kernel/features.h"

/* Appends the BPF features to fs. Nothing stays loaded or attached. */
void ap_features_probe_bpf(struct ap_features *fs);

#endif
