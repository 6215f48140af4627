// SPDX-License-Identifier: Apache-2.0
/* diff: one side of `arenaprof diff`, a plan or a trace, as comparable figures (diff.h). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "arenaprof/analyze/diff.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/trace/trace.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"

/* A trace by its first eight bytes; anything else is for the plan loader to judge. */
static int is_trace(const char *path, bool *yes, char *err)
{
	char magic[8] = { 0 };
	FILE *f = ap_infile_fopen(path, err);

	if (!f)
		return -EINVAL;
	*yes = fread(magic, 1, sizeof(magic), f) == sizeof(magic) &&
	       !memcmp(magic, AP_TRACE_MAGIC, sizeof(magic));
	fclose(f);
	return 0;
}

static int open_trace(struct ap_diff_side *s, const char *plan, char *err)
{
	struct ap_corr_in in = { .trace = s->path, .plan_path = plan };
	int rc = ap_corr_load(&in, &s->x, err);

	if (rc)
		return rc;
	for (int g = 0; g < AP_GROUP_COUNT; g++)
		s->kind[g] = s->x.c.groups[g].resident_bytes;
	s->arena = s->kind[AP_GROUP_ARENA];
	s->weights = s->kind[AP_GROUP_WEIGHTS];
	s->peak = ap_corr_peak(&s->x, NULL);
	return 0;
}

static int open_plan(struct ap_diff_side *s, char *err)
{
	int rc = ap_plan_load(s->path, &s->plan, err);

	if (rc)
		return rc;
	if (ap_profile_compute(&s->plan, &s->prof)) {
		ap_seterr(err, "out of memory profiling %s", s->path);
		return -ENOMEM;
	}
	s->arena = s->plan.arena_bytes;
	s->weights = s->plan.weights_bytes;
	s->peak = s->plan.arena_bytes + s->plan.persistent_bytes + s->plan.weights_bytes;
	return 0;
}

int ap_diff_open(const char *path, const char *plan, struct ap_diff_side *s, char *err)
{
	int rc;

	memset(s, 0, sizeof(*s));
	s->path = path;
	rc = is_trace(path, &s->is_trace, err);
	if (rc)
		return rc;
	return s->is_trace ? open_trace(s, plan, err) : open_plan(s, err);
}

void ap_diff_close(struct ap_diff_side *s)
{
	if (s->is_trace) {
		ap_corr_all_free(&s->x);
	} else {
		ap_profile_free(&s->prof);
		ap_tplan_free(&s->plan);
	}
	memset(s, 0, sizeof(*s));
}

double ap_diff_pct(uint64_t old, uint64_t new)
{
	if (!old)
		return new ? INFINITY : 0;
	return 100.0 * ((double)new - (double)old) / (double)old;
}
