/* SPDX-License-Identifier: Apache-2.0 */
/*
 * procmem: what a measured process held, from the trace's samples of /proc and its
 * cgroup (docs/design.md, "The question and the two halves of memory"): its peak and the
 * non-reclaimable part of it, the numbers `report --budget` and `plan --baseline` judge.
 */
#ifndef ARENAPROF_PROCMEM_H
#define ARENAPROF_PROCMEM_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/correlate.h"

/* Where the peak came from: the largest of them. */
enum ap_pm_peak {
	AP_PM_PEAK_VMHWM,	/* /proc/PID/status VmHWM, its largest sample */
	AP_PM_PEAK_CGROUP,	/* cgroup v2 memory.peak, its largest sample */
	AP_PM_PEAK_TOUCHES,	/* no sample saw more: every page the trace saw resident */
};

/* Where the non-reclaimable part came from. */
enum ap_pm_nonrecl {
	AP_PM_NR_PSS,		/* smaps_rollup: Pss_Anon max + Pss_Shmem max */
	AP_PM_NR_RSS,		/* status (no smaps_rollup sample): RssAnon max + RssShmem max */
	AP_PM_NR_TOUCHES,	/* no sample saw more: the anonymous pages the trace saw
				 * resident */
};

struct ap_procmem {
	uint32_t n_samples;
	uint64_t vmhwm_max;		/* 0: no sample */
	bool have_cg_peak;		/* the trace has cgroup v2 memory.peak samples */
	uint64_t cg_peak_max;		/* with have_cg_peak */
	uint64_t touched_bytes;		/* every page the trace saw resident */
	uint64_t touched_anon_bytes;	/* of them, the anonymous ones */
	uint64_t pss_anon_max, pss_shmem_max;	/* 0: no smaps_rollup sample */
	uint64_t rss_anon_max, rss_shmem_max;	/* 0: no status sample */
	uint64_t peak;
	enum ap_pm_peak peak_src;
	uint64_t nonreclaimable;
	enum ap_pm_nonrecl nonrecl_src;
};

/*
 * m from x's samples and groups. The maxima of two fields are summed, each its own
 * largest sample (an upper bound of their sum at any one time: a budget errs on the safe
 * side). A cgroup v1 peak (memory.max_usage_in_bytes of a hierarchy the process shares)
 * is not the process's: only v2's memory.peak counts.
 */
void ap_procmem_of(const struct ap_corr_all *x, struct ap_procmem *m);
/* The peak and the non-reclaimable part from m's maxima and touches (as ap_procmem_of
 * sets them): for a view that keeps the maxima itself (the live model, live.h). */
void ap_procmem_settle(struct ap_procmem *m);

/* "vmhwm", "memory.peak", "first_touches"; "pss", "rss", "first_touches". */
const char *ap_pm_peak_key(enum ap_pm_peak s);
const char *ap_pm_nonrecl_key(enum ap_pm_nonrecl s);
/* For text: "VmHWM", "memory.peak", "every page the trace saw resident"; "Pss_Anon +
 * Pss_Shmem maxima", ... */
const char *ap_pm_peak_text(enum ap_pm_peak s);
const char *ap_pm_nonrecl_text(enum ap_pm_nonrecl s);

#endif
