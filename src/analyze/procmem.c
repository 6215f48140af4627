// SPDX-License-Identifier: Apache-2.0
/* procmem: a measured process's peak and its non-reclaimable part (procmem.h). */
#include <string.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/analyze/procmem.h"

#define SMAX(a, field) AP_SAMPLE_MAX(a, field)

/* record's note when the memory controller it read is cgroup v1 (cgroup_session.c) */
static const char v1_note[] = "cgroup v1 memory controller (";

static bool cgroup_v1(const struct ap_analysis *a)
{
	for (uint32_t i = 0; i < a->n_notes; i++)
		if (!strncmp(a->notes[i], v1_note, sizeof(v1_note) - 1))
			return true;
	return false;
}

static bool anon_group(int g)
{
	return g == AP_GROUP_ARENA || g == AP_GROUP_HEAP || g == AP_GROUP_STACK ||
	       g == AP_GROUP_ANON;
}

void ap_procmem_of(const struct ap_corr_all *x, struct ap_procmem *m)
{
	const struct ap_analysis *a = &x->a;

	memset(m, 0, sizeof(*m));
	m->n_samples = a->n_samples;
	for (int g = 0; g < AP_GROUP_COUNT; g++) {
		m->touched_bytes += x->c.groups[g].resident_bytes;
		if (anon_group(g))
			m->touched_anon_bytes += x->c.groups[g].resident_bytes;
	}
	m->vmhwm_max = SMAX(a, vm_hwm);
	m->cg_peak_max = SMAX(a, cg_peak);
	m->have_cg_peak = m->cg_peak_max && !cgroup_v1(a);
	if (!m->have_cg_peak)
		m->cg_peak_max = 0;
	m->pss_anon_max = SMAX(a, pss_anon);
	m->pss_shmem_max = SMAX(a, pss_shmem);
	m->rss_anon_max = SMAX(a, rss_anon);
	m->rss_shmem_max = SMAX(a, rss_shmem);
	ap_procmem_settle(m);
}

void ap_procmem_settle(struct ap_procmem *m)
{
	m->peak = m->vmhwm_max;
	m->peak_src = AP_PM_PEAK_VMHWM;
	if (m->have_cg_peak && m->cg_peak_max > m->peak) {
		m->peak = m->cg_peak_max;
		m->peak_src = AP_PM_PEAK_CGROUP;
	}
	if (m->touched_bytes > m->peak) {
		m->peak = m->touched_bytes;
		m->peak_src = AP_PM_PEAK_TOUCHES;
	}

	if (m->pss_anon_max) {
		m->nonreclaimable = m->pss_anon_max + m->pss_shmem_max;
		m->nonrecl_src = AP_PM_NR_PSS;
	} else if (m->rss_anon_max) {
		m->nonreclaimable = m->rss_anon_max + m->rss_shmem_max;
		m->nonrecl_src = AP_PM_NR_RSS;
	}
	/* samples that came too early (a short process) saw less than the trace */
	if (m->touched_anon_bytes > m->nonreclaimable) {
		m->nonreclaimable = m->touched_anon_bytes;
		m->nonrecl_src = AP_PM_NR_TOUCHES;
	}
}

const char *ap_pm_peak_key(enum ap_pm_peak s)
{
	return s == AP_PM_PEAK_VMHWM ? "vmhwm" : s == AP_PM_PEAK_CGROUP ? "memory.peak" :
	       "first_touches";
}

const char *ap_pm_nonrecl_key(enum ap_pm_nonrecl s)
{
	return s == AP_PM_NR_PSS ? "pss" : s == AP_PM_NR_RSS ? "rss" : "first_touches";
}

const char *ap_pm_peak_text(enum ap_pm_peak s)
{
	return s == AP_PM_PEAK_VMHWM ? "VmHWM" : s == AP_PM_PEAK_CGROUP ?
	       "the cgroup's memory.peak" : "every page the trace saw resident";
}

const char *ap_pm_nonrecl_text(enum ap_pm_nonrecl s)
{
	return s == AP_PM_NR_PSS ? "Pss_Anon + Pss_Shmem maxima" : s == AP_PM_NR_RSS ?
	       "RssAnon + RssShmem maxima" : "anonymous pages the trace saw resident";
}
