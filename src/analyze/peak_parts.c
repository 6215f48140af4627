// SPDX-License-Identifier: Apache-2.0
/* peak_parts: the peak as parts that sum to it (peak_parts.h). */
#include <string.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/analyze/peak_parts.h"

static uint64_t min_u64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static bool whole(const struct ap_rec_sample *s)
{
	return s->vm_rss != AP_NO_VALUE && s->rss_anon != AP_NO_VALUE &&
	       s->rss_file != AP_NO_VALUE && s->rss_shmem != AP_NO_VALUE;
}

/* The status sample that held the most, or NULL. */
static const struct ap_rec_sample *largest(const struct ap_analysis *a)
{
	const struct ap_rec_sample *best = NULL;

	for (uint32_t i = 0; i < a->n_samples; i++)
		if (whole(&a->samples[i]) && (!best || a->samples[i].vm_rss > best->vm_rss))
			best = &a->samples[i];
	return best;
}

/* No status sample to split: the trace's touches per group (they are the peak then). */
static void from_touches(const struct ap_corr_all *x, struct ap_peak_parts *p)
{
	const struct ap_corr_group *g = x->c.groups;
	uint64_t sum;

	p->arena = g[AP_GROUP_ARENA].resident_bytes;
	p->anon_other = g[AP_GROUP_HEAP].resident_bytes + g[AP_GROUP_STACK].resident_bytes +
			g[AP_GROUP_ANON].resident_bytes;
	p->weights = g[AP_GROUP_WEIGHTS].resident_bytes;
	p->file_other = g[AP_GROUP_FILES].resident_bytes;
	sum = p->arena + p->anon_other + p->weights + p->file_other;
	p->between = p->peak > sum ? p->peak - sum : 0;
}

void ap_peak_parts_of(const struct ap_corr_all *x, const struct ap_procmem *m,
		      struct ap_peak_parts *p)
{
	const struct ap_rec_sample *s = largest(&x->a);
	const struct ap_corr_group *g = x->c.groups;
	uint64_t held, own;

	memset(p, 0, sizeof(*p));
	p->peak = m->peak;
	/* status's VmRSS is its three counters' sum; a sample over the peak is no split, and
	 * samples that came too early (the touches are the peak) saw less than the trace */
	held = s ? s->rss_anon + s->rss_file + s->rss_shmem : 0;
	if (!s || held > m->peak || m->peak_src == AP_PM_PEAK_TOUCHES) {
		from_touches(x, p);
		return;
	}
	p->sampled = true;
	p->at_ns = s->ts_ns >= x->a.hdr.clock_base_ns ? s->ts_ns - x->a.hdr.clock_base_ns : 0;
	p->arena = min_u64(g[AP_GROUP_ARENA].resident_bytes, s->rss_anon);
	p->anon_other = s->rss_anon - p->arena;
	p->shmem = s->rss_shmem;
	p->weights = min_u64(g[AP_GROUP_WEIGHTS].resident_bytes, s->rss_file);
	p->file_other = s->rss_file - p->weights;
	/* the process's own peak: VmHWM, or its touches when more, never under the sample */
	own = min_u64(m->vmhwm_max > m->touched_bytes ? m->vmhwm_max : m->touched_bytes,
		      m->peak);
	own = own > held ? own : held;
	p->between = own - held;
	p->cgroup_other = m->peak - own;
}
