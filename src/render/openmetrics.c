// SPDX-License-Identifier: Apache-2.0
/* openmetrics: report's figures as OpenMetrics text (openmetrics.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/analyze/attrib.h"
#include "arenaprof/analyze/live.h"
#include "arenaprof/render/openmetrics.h"

/* A label value: backslash, quote and newline escaped, as the format wants. */
static void label(FILE *f, const char *v)
{
	for (; *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n')
			fputs("\\n", f);
		else
			fputc(*v, f);
	}
}

struct om {
	FILE *f;
	const char *model, *host;
};

static void head(const struct om *o, const char *name, const char *type, const char *unit,
		 const char *help)
{
	fprintf(o->f, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(o->f, "# UNIT %s %s\n", name, unit);
	fprintf(o->f, "# HELP %s %s\n", name, help);
}

static void sample(const struct om *o, const char *name, const char *extra, double v)
{
	fprintf(o->f, "%s{model=\"", name);
	label(o->f, o->model);
	fputs("\",host=\"", o->f);
	label(o->f, o->host);
	fprintf(o->f, "\"%s} %.17g\n", extra ? extra : "", v);
}

/* A gauge with one sample (unit: NULL, or the name's suffix, e.g. "bytes"). */
static void gauge(const struct om *o, const char *name, const char *unit, const char *help,
		  double v)
{
	head(o, name, "gauge", unit, help);
	sample(o, name, NULL, v);
}

/* The model's file name for the label, "" without a plan. */
static const char *model_of(const struct ap_tplan *p)
{
	const char *slash = p ? strrchr(p->model, '/') : NULL;

	return !p ? "" : slash ? slash + 1 : p->model;
}

void ap_openmetrics_live(FILE *f, const struct ap_live *l)
{
	char host[256] = "";
	struct om o = { .f = f, .host = host, .model = model_of(l->plan) };
	uint64_t hwm = l->last.rec.vm_hwm, p50, p99;
	uint32_t n;

	gethostname(host, sizeof(host) - 1);
	if (l->plan)
		gauge(&o, "arenaprof_arena_planned_bytes", "bytes", "The plan's tensor arena.",
		      (double)l->plan->arena_bytes);
	if (l->id.map >= 0)
		gauge(&o, "arenaprof_arena_found_bytes", "bytes", "The arena's first-touched "
		      "and attach-resident bytes.", (double)(l->arena_held * l->page_size));
	if (hwm != AP_NO_VALUE)
		gauge(&o, "arenaprof_peak_bytes", "bytes", "VmHWM, the latest sample.",
		      (double)hwm);
	gauge(&o, "arenaprof_arena_first_touch_pages", NULL, "Arena pages first touched while "
	      "traced.", (double)l->arena_ft);
	gauge(&o, "arenaprof_dropped_events", NULL, "Events the ring buffer dropped.",
	      (double)l->drops.ringbuf_drops);
	gauge(&o, "arenaprof_runs", NULL, "Inference runs completed.", (double)l->runs_completed);
	if (ap_live_latency(l, &p50, &p99, &n)) {
		head(&o, "arenaprof_run_latency_seconds", "gauge", "seconds",
		     "One inference run, by the run probe's markers (the last 256 runs).");
		sample(&o, "arenaprof_run_latency_seconds", ",stat=\"median\"", (double)p50 / 1e9);
		sample(&o, "arenaprof_run_latency_seconds", ",stat=\"p99\"", (double)p99 / 1e9);
	}
	fputs("# EOF\n", f);
}

void ap_openmetrics_report(FILE *f, const struct ap_report *r)
{
	const struct ap_corr_all *x = r->x;
	const struct ap_analysis *a = &x->a;
	const struct ap_attrib *at = r->attrib;
	char host[256] = "";
	struct om o = { .f = f, .host = host, .model = model_of(x->have_plan ? &x->plan : NULL) };

	gethostname(host, sizeof(host) - 1);
	if (x->have_plan)
		gauge(&o, "arenaprof_arena_planned_bytes", "bytes", "The plan's tensor arena.",
		      (double)x->plan.arena_bytes);
	if (a->id.map >= 0)
		gauge(&o, "arenaprof_arena_found_bytes", "bytes", "The arena's first-touched "
		      "and attach-resident bytes.",
		      (double)x->c.groups[AP_GROUP_ARENA].resident_bytes);
	gauge(&o, "arenaprof_peak_bytes", "bytes", "VmHWM's maximum over the trace's samples.",
	      (double)AP_SAMPLE_MAX(a, vm_hwm));
	gauge(&o, "arenaprof_arena_first_touch_pages", NULL, "Arena pages first touched while "
	      "traced.", a->id.map >= 0 ? (double)a->as.maps[a->id.map].first_touch_pages : 0);
	gauge(&o, "arenaprof_dropped_events", NULL, "Events the ring buffer dropped.",
	      (double)a->drops.ringbuf_drops);
	gauge(&o, "arenaprof_runs", NULL, "Inference runs completed.", (double)a->runs_completed);
	if (at && at->run_median_ns) {
		head(&o, "arenaprof_run_latency_seconds", "gauge", "seconds",
		     "One inference run, by the run probe's markers.");
		sample(&o, "arenaprof_run_latency_seconds", ",stat=\"median\"",
		       (double)at->run_median_ns / 1e9);
		sample(&o, "arenaprof_run_latency_seconds", ",stat=\"p99\"",
		       (double)at->run_p99_ns / 1e9);
		sample(&o, "arenaprof_run_latency_seconds", ",stat=\"first\"",
		       (double)at->run_first_ns / 1e9);
	}
	if (x->have_plan && a->id.map >= 0)
		gauge(&o, "arenaprof_plan_matches", NULL, "1 when the plan describes the trace.",
		      x->c.mismatch ? 0 : 1);
	fputs("# EOF\n", f);
}
