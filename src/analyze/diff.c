// SPDX-License-Identifier: Apache-2.0
/* diff: two plans or traces as comparable figures (diff.h). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/analyze/diff.h"
#include "arenaprof/analyze/trace_model.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/trace/trace.h"
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

/* The trace's model: --plan's, else the one its mappings name (or why there is none). */
static int trace_model(struct ap_diff_side *s, const char *plan, const char **use, char *err)
{
	char why[AP_ERR_LEN];
	int rc;

	*use = plan;
	if (plan) {
		s->model = AP_DIFF_MODEL_GIVEN;
		return 0;
	}
	rc = ap_trace_model(s->path, s->model_path, sizeof(s->model_path), why, sizeof(why),
			    err);
	if (rc < 0)
		return rc;
	if (rc) {
		s->model = AP_DIFF_MODEL_MAPPED;
		*use = s->model_path;
	} else {
		snprintf(s->no_model, sizeof(s->no_model), "no model: %s", why);
	}
	return 0;
}

static int open_trace(struct ap_diff_side *s, const char *plan, char *err)
{
	struct ap_corr_in in = { .trace = s->path };
	int rc = trace_model(s, plan, &in.plan_path, err);
	struct ap_dmabuf_peak dev;

	if (!rc)
		rc = ap_corr_load(&in, &s->x, err);
	/* a model the trace mapped that does not plan here: said, and the trace read alone */
	if (rc == -EINVAL && s->model == AP_DIFF_MODEL_MAPPED) {
		snprintf(s->no_model, sizeof(s->no_model), "no model: it mapped %.*s, which "
			 "does not plan here (%s)", 100, s->model_path, err);
		s->model = AP_DIFF_MODEL_NONE;
		ap_corr_all_free(&s->x);
		in.plan_path = NULL;
		rc = ap_corr_load(&in, &s->x, err);
	}
	if (!rc)
		rc = ap_run_lat(&s->x.a, &s->lat, err);
	if (rc)
		return rc;
	for (int g = 0; g < AP_GROUP_COUNT; g++)
		s->kind[g] = s->x.c.groups[g].resident_bytes;
	s->arena = s->kind[AP_GROUP_ARENA];
	s->weights = s->kind[AP_GROUP_WEIGHTS];
	s->peak = ap_corr_peak(&s->x, NULL);
	s->p = s->x.have_plan ? &s->x.plan : NULL;
	ap_dmabuf_seen_device(&s->x.a.dmabuf, s->x.a.hdr.flags & AP_HDR_STARTED, &dev);
	s->device = dev.bytes;
	s->has_device = ap_dmabuf_seen_any(&s->x.a.dmabuf);
	return 0;
}

/* A plan, for the path the trace beside it ran when there is one (else the builtin's). */
static int open_plan(struct ap_diff_side *s, const struct ap_diff_side *other, char *err)
{
	const struct ap_corr_all *t = other->is_trace && other->p ? &other->x : NULL;
	int rc = !t ? ap_plan_load(s->path, &s->plan, err) :
		 t->compiled ? ap_plan_load_compiled(s->path, t->rt.id, &s->plan, err) :
		 ap_plan_load_for(s->path, t->delegate, t->rt.id, &s->plan, err);

	if (rc)
		return rc;
	s->arena = s->plan.arena_bytes;
	s->weights = s->plan.weights_bytes;
	s->peak = s->plan.arena_bytes + s->plan.persistent_bytes + s->plan.weights_bytes;
	s->p = &s->plan;
	return 0;
}

/* "OLD" or "NEW" for the reasons. */
static const char *side_name(const struct ap_diff *d, const struct ap_diff_side *s)
{
	return s == &d->o ? "OLD" : "NEW";
}

/* The first reason one of the two sides gives (why(side) returns NULL when it has none). */
static void na(struct ap_diff *d, struct ap_diff_cmp *c,
	       const char *(*why)(const struct ap_diff_side *))
{
	const struct ap_diff_side *s = why(&d->o) ? &d->o : why(&d->n) ? &d->n : NULL;

	c->ok = !s;
	if (s)
		snprintf(c->why, sizeof(c->why), "%s: %s", side_name(d, s), why(s));
}

static const char *no_arena(const struct ap_diff_side *s)
{
	if (!s->is_trace)
		return NULL;
	if (s->x.a.id.map < 0)
		return "no arena found in the trace";
	/* without a plan's size the mapping rule can only take the largest mapping */
	return s->x.a.id.rule == AP_AR_LARGEST ? "the arena is not identified (without a "
	       "model, only the largest anonymous mapping, a guess)" : NULL;
}

static const char *no_weights(const struct ap_diff_side *s)
{
	if (!s->is_trace || s->x.c.groups[AP_GROUP_WEIGHTS].mappings)
		return NULL;
	return s->model == AP_DIFF_MODEL_NONE ? s->no_model :
	       "the trace has no mapping of the model file";
}

static const char *no_runs(const struct ap_diff_side *s)
{
	if (!s->is_trace)
		return "a plan has no runs";
	return s->lat.runs ? NULL : "no completed run timed (no run probe fired: record "
	       "--run-probe BIN:SYM)";
}

static const char *no_run0(const struct ap_diff_side *s)
{
	return no_runs(s) ? no_runs(s) : s->lat.timed ? NULL : "run 0 was not timed";
}

static const char *no_device(const struct ap_diff_side *s)
{
	return s->is_trace ? NULL : "a plan has no dma-bufs (device memory is a process's)";
}

static struct ap_diff_cmp cmp(uint64_t o, uint64_t n)
{
	return (struct ap_diff_cmp){ .o = o, .n = n, .ok = true };
}

/* Each row's figures and whether both sides give the same quantity. */
static void rows(struct ap_diff *d)
{
	const struct ap_diff_side *o = &d->o, *n = &d->n;
	struct ap_diff_cmp *r = d->row;

	r[AP_DIFF_ARENA] = cmp(o->arena, n->arena);
	r[AP_DIFF_PEAK] = cmp(o->peak, n->peak);
	r[AP_DIFF_WEIGHTS] = cmp(o->weights, n->weights);
	r[AP_DIFF_LAT_FIRST] = cmp(o->lat.first_ns, n->lat.first_ns);
	r[AP_DIFF_LAT_MEDIAN] = cmp(o->lat.median_ns, n->lat.median_ns);
	r[AP_DIFF_LAT_P99] = cmp(o->lat.p99_ns, n->lat.p99_ns);
	r[AP_DIFF_DEVICE] = cmp(o->device, n->device);
	na(d, &r[AP_DIFF_ARENA], no_arena);
	na(d, &r[AP_DIFF_DEVICE], no_device);
	na(d, &r[AP_DIFF_WEIGHTS], no_weights);
	na(d, &r[AP_DIFF_LAT_FIRST], no_run0);
	na(d, &r[AP_DIFF_LAT_MEDIAN], no_runs);
	na(d, &r[AP_DIFF_LAT_P99], no_runs);
	if (o->is_trace != n->is_trace) {
		r[AP_DIFF_PEAK].ok = false;
		snprintf(r[AP_DIFF_PEAK].why, sizeof(r[AP_DIFF_PEAK].why), "a plan's model "
			 "memory (arena, persistent arena, weights) is not a process's peak "
			 "(VmHWM): compare two traces for that");
	}
}

/* Both sides' plans: their breadth and their operators paired. 0, or -ENOMEM. */
static int ops(struct ap_diff *d, char *err)
{
	struct ap_diff_side *s[2] = { &d->o, &d->n };

	for (int i = 0; i < 2; i++)
		if (s[i]->p && ap_profile_compute(s[i]->p, &s[i]->prof))
			return ap_fail(err, -ENOMEM, "out of memory profiling %s", s[i]->path);
	if (!d->o.p || !d->n.p)
		return 0;
	if (ap_diff_ops_match(d->o.p, d->n.p, &d->ops))
		return ap_fail(err, -ENOMEM, "out of memory pairing the operators");
	d->have_ops = true;
	return 0;
}

int ap_diff_open(const char *old, const char *new, const char *plan, struct ap_diff *d,
		 char *err)
{
	struct ap_diff_side *s[2] = { &d->o, &d->n };
	int rc = 0;

	memset(d, 0, sizeof(*d));
	d->o.path = old;
	d->n.path = new;
	for (int i = 0; i < 2 && !rc; i++)
		rc = is_trace(s[i]->path, &s[i]->is_trace, err);
	/* the traces first: a plan beside one is planned for the path it ran */
	for (int i = 0; i < 2 && !rc; i++)
		if (s[i]->is_trace)
			rc = open_trace(s[i], plan, err);
	for (int i = 0; i < 2 && !rc; i++)
		if (!s[i]->is_trace)
			rc = open_plan(s[i], s[!i], err);
	if (!rc)
		rc = ops(d, err);
	if (!rc)
		rows(d);
	return rc;
}

static void side_close(struct ap_diff_side *s)
{
	ap_profile_free(&s->prof);
	ap_run_lat_free(&s->lat);
	if (s->is_trace)
		ap_corr_all_free(&s->x);
	else
		ap_tplan_free(&s->plan);
}

void ap_diff_close(struct ap_diff *d)
{
	side_close(&d->o);
	side_close(&d->n);
	ap_diff_ops_free(&d->ops);
	memset(d, 0, sizeof(*d));
}

const char *ap_diff_row_key(enum ap_diff_row r)
{
	static const char *const key[AP_DIFF_ROWS] = {
		[AP_DIFF_ARENA] = "arena", [AP_DIFF_PEAK] = "peak",
		[AP_DIFF_WEIGHTS] = "weights", [AP_DIFF_LAT_FIRST] = "latency_first",
		[AP_DIFF_LAT_MEDIAN] = "latency_median", [AP_DIFF_LAT_P99] = "latency_p99",
		[AP_DIFF_DEVICE] = "device",
	};

	return r < AP_DIFF_ROWS ? key[r] : "?";
}

double ap_diff_pct(uint64_t old, uint64_t new)
{
	if (!old)
		return new ? INFINITY : 0;
	return 100.0 * ((double)new - (double)old) / (double)old;
}
