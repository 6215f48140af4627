/* SPDX-License-Identifier: Apache-2.0 */
/*
 * peak_parts: the process's peak (procmem.h) as parts that sum to it, each named by its
 * reclaimability. The split is the status sample that held the most (VmRSS = RssAnon +
 * RssFile + RssShmem, the kernel's own counters, so fault-around and page-cache pages the
 * process mapped are in it although no fault of theirs was traced); the arena and the
 * weights are the trace's first touches inside it. What the sample did not hold is named
 * apart: VmHWM above it (reached between two samples) and memory.peak above VmHWM (the
 * cgroup's other charges: unmapped page cache, kernel memory, other processes). Without a
 * status sample, or when the trace's touches are the peak (the samples came too early),
 * the parts are the trace's own touches per group.
 */
#ifndef ARENAPROF_PEAK_PARTS_H
#define ARENAPROF_PEAK_PARTS_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/analyze/procmem.h"

struct ap_peak_parts {
	uint64_t peak;			/* procmem's peak: the parts sum to it */
	bool sampled;			/* the split is a status sample's, else touches' */
	uint64_t at_ns;			/* sampled: that sample's time since the start */
	uint64_t arena, anon_other;	/* anonymous: non-reclaimable without swap */
	uint64_t shmem;			/* shared memory: non-reclaimable too */
	uint64_t weights, file_other;	/* file pages: reclaimable (read again later) */
	uint64_t between;		/* the peak above the sample (VmHWM between samples,
					 * or the trace's touches beyond it) */
	uint64_t cgroup_other;		/* memory.peak above the process's own peak */
};

void ap_peak_parts_of(const struct ap_corr_all *x, const struct ap_procmem *m,
		      struct ap_peak_parts *p);

#endif
