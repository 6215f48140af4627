// SPDX-License-Identifier: Apache-2.0
/*
 * openmetrics: report's figures as OpenMetrics text (openmetrics.h), as Prometheus users
 * expect them: counters as a family whose sample ends in _total, the run latency as a
 * summary (quantiles 0.5, 0.9, 0.99, _sum, _count), a build_info gauge, with report
 * --budget the budget and whether the process fits it, no empty label, "# EOF" last.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/analyze/attrib.h"
#include "arenaprof/analyze/live.h"
#include "arenaprof/analyze/run_lat.h"
#include "arenaprof/render/dmabuf_report.h"
#include "arenaprof/render/openmetrics.h"
#include "arenaprof/render/summary.h"
#include "arenaprof/util/stats.h"

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
	const char *model, *host;	/* NULL or "": the label is left out, never empty */
};

static void head(const struct om *o, const char *name, const char *type, const char *unit,
		 const char *help)
{
	fprintf(o->f, "# TYPE %s %s\n", name, type);
	if (unit)
		fprintf(o->f, "# UNIT %s %s\n", name, unit);
	fprintf(o->f, "# HELP %s %s\n", name, help);
}

/* One label "key=value" after the ones before it (*n of them), if value is not empty. */
static void one_label(const struct om *o, int *n, const char *key, const char *value)
{
	if (!value || !*value)
		return;
	fprintf(o->f, "%s%s=\"", *n ? "," : "{", key);
	label(o->f, value);
	fputc('"', o->f);
	(*n)++;
}

/* A value: an integer as it is, a duration in ns as seconds, exactly ("0.001904591"). */
struct val {
	char s[32];
};

static struct val num(uint64_t v)
{
	struct val r;

	snprintf(r.s, sizeof(r.s), "%" PRIu64, v);
	return r;
}

static struct val secs(uint64_t ns)
{
	struct val r;

	snprintf(r.s, sizeof(r.s), "%" PRIu64 ".%09" PRIu64, ns / UINT64_C(1000000000),
		 ns % UINT64_C(1000000000));
	return r;
}

/* name{model,host[,quantile]} v; suffix: "_total", "_sum", ... or "" */
static void sample(const struct om *o, const char *name, const char *suffix,
		   const char *quantile, struct val v)
{
	int n = 0;

	fprintf(o->f, "%s%s", name, suffix);
	one_label(o, &n, "model", o->model);
	one_label(o, &n, "host", o->host);
	one_label(o, &n, "quantile", quantile);
	fprintf(o->f, "%s %s\n", n ? "}" : "", v.s);
}

/* A gauge with one sample (unit: NULL, or the name's suffix, e.g. "bytes"). */
static void gauge(const struct om *o, const char *name, const char *unit, const char *help,
		  struct val v)
{
	head(o, name, "gauge", unit, help);
	sample(o, name, "", NULL, v);
}

/* A counter: the family is name, its sample name_total. */
static void counter(const struct om *o, const char *name, const char *help, uint64_t v)
{
	head(o, name, "counter", NULL, help);
	sample(o, name, "_total", NULL, num(v));
}

/* arenaprof's version, as Prometheus exporters give theirs (its value is always 1). */
static void build_info(FILE *f, const char *version)
{
	struct om o = { .f = f };
	int n = 0;

	head(&o, "arenaprof_build_info", "gauge", NULL, "arenaprof's version; always 1.");
	fputs("arenaprof_build_info", f);
	one_label(&o, &n, "version", version);
	fprintf(f, "%s 1\n", n ? "}" : "");
}

/*
 * The run latency as a summary: quantiles 0.5 and 0.99 as util/stats.h defines them for
 * report and the live view, 0.9 by the same rule, over v (n > 0, sorted here); count runs
 * and sum_ns their total (over more runs than v for the live view's window).
 */
static void latency(const struct om *o, const char *help, uint64_t *v, size_t n,
		    uint64_t count, uint64_t sum_ns)
{
	const char *name = "arenaprof_run_latency_seconds";
	uint64_t q50, q99;

	ap_median_p99(v, n, &q50, &q99);
	head(o, name, "summary", "seconds", help);
	sample(o, name, "", "0.5", secs(q50));
	sample(o, name, "", "0.9", secs(v[n * 90 / 100]));
	sample(o, name, "", "0.99", secs(q99));
	sample(o, name, "_sum", NULL, secs(sum_ns));
	sample(o, name, "_count", NULL, num(count));
}

/* The model's file name for the label, NULL without a plan. */
static const char *model_of(const struct ap_tplan *p)
{
	const char *slash = p ? strrchr(p->model, '/') : NULL;

	return !p ? NULL : slash ? slash + 1 : p->model;
}

void ap_openmetrics_live(FILE *f, const struct ap_live *l, const char *version)
{
	char host[256] = "";
	struct om o = { .f = f, .host = host, .model = model_of(l->plan) };
	uint64_t hwm = l->last.rec.vm_hwm, v[AP_LIVE_LAT];
	size_t k = l->lat.n < AP_LIVE_LAT ? (size_t)l->lat.n : AP_LIVE_LAT;

	gethostname(host, sizeof(host) - 1);
	build_info(f, version);
	if (l->plan)
		gauge(&o, "arenaprof_arena_planned_bytes", "bytes", "The plan's tensor arena.",
		      num(l->plan->arena_bytes));
	if (l->id.map >= 0)
		gauge(&o, "arenaprof_arena_found_bytes", "bytes", "The arena's first-touched "
		      "and attach-resident bytes.", num(l->arena_held * l->page_size));
	if (hwm != AP_NO_VALUE)
		gauge(&o, "arenaprof_peak_bytes", "bytes", "VmHWM, the latest sample.", num(hwm));
	if (l->dmabuf.seen) {	/* device memory: only once the target had a dma-buf */
		gauge(&o, "arenaprof_dmabuf_bytes", "bytes", "The target's dma-bufs held now "
		      "(the latest poll).", num(l->dmabuf.held));
		gauge(&o, "arenaprof_dmabuf_peak_bytes", "bytes", "The target's dma-bufs at "
		      "their peak (by the export and release events where traced).",
		      num(ap_live_dmabuf_peak(l)));
	}
	counter(&o, "arenaprof_arena_first_touch_pages", "Arena pages first touched while "
		"traced.", l->arena_ft);
	counter(&o, "arenaprof_dropped_events", "Events the ring buffer dropped.",
		l->drops.ringbuf_drops);
	counter(&o, "arenaprof_runs", "Inference runs completed.", l->runs_completed);
	if (k) {
		memcpy(v, l->lat.ns, k * sizeof(*v));
		latency(&o, "One inference run, by the run probe's markers (quantiles of the "
			"last 256 runs; _sum and _count of every run timed).", v, k, l->lat.n,
			l->lat.sum_ns);
	}
	fputs("# EOF\n", f);
}

/* The trace's run latencies: a summary of every timed run, and the first run's own. */
static void report_latency(const struct om *o, const struct ap_analysis *a)
{
	char ignored[AP_ERR_LEN];
	struct ap_run_lat l;

	if (ap_run_lat(a, &l, ignored))
		return;		/* out of memory: the other metrics still say what they can */
	if (l.timed)
		gauge(o, "arenaprof_first_run_latency_seconds", "seconds", "Run 0, the first "
		      "inference, by the run probe's markers.", secs(l.first_ns));
	if (l.runs)
		latency(o, "One inference run, by the run probe's markers.", l.sorted, l.runs,
			l.runs, l.sum_ns);
	ap_run_lat_free(&l);
}

/* The accelerator half: only for a target that held dma-bufs. */
static void report_dmabuf(const struct om *o, const struct ap_analysis *a)
{
	const struct ap_dmabuf_seen *d = &a->dmabuf;
	struct ap_dmabuf_peak p;

	if (!ap_dmabuf_device(a, &p))
		return;
	gauge(o, "arenaprof_dmabuf_peak_bytes", "bytes", "The target's dma-bufs at their peak "
	      "(device memory: DMA heaps, CMA, DRM/GEM, udmabuf; by the export and release "
	      "events where record traced them).", num(p.bytes));
	gauge(o, "arenaprof_dmabuf_peak_buffers", NULL, "The target's dma-bufs at the peak.",
	      num(p.buffers));
	gauge(o, "arenaprof_dmabuf_mapped_rss_bytes", "bytes", "The largest resident size of "
	      "the target's dma-buf mappings.", num(d->max_mapped_rss));
	if (d->cma_total != AP_NO_VALUE)
		gauge(o, "arenaprof_cma_total_bytes", "bytes", "CmaTotal: CMA carved out of DRAM "
		      "at boot.", num(d->cma_total));
	if (d->cma_free_min != AP_NO_VALUE)
		gauge(o, "arenaprof_cma_free_min_bytes", "bytes", "CmaFree's lowest while traced.",
		      num(d->cma_free_min));
}

/* A signed value (a margin under the budget is negative past it). */
static struct val snum(int64_t v)
{
	struct val r;

	snprintf(r.s, sizeof(r.s), "%" PRId64, v);
	return r;
}

/* report --budget: the budget, the verdict as report's exit status gives it, the margin. */
static void report_budget(const struct om *o, const struct ap_report *r)
{
	struct ap_budget_process v;
	struct ap_procmem m;

	if (!r->budget)
		return;
	ap_summary_budget(r, &m, &v);
	gauge(o, "arenaprof_budget_bytes", "bytes", "report --budget: the memory the process "
	      "is given.", num(v.budget));
	gauge(o, "arenaprof_budget_fits", NULL, "1 when the process measured fits the budget "
	      "(its peak and its non-reclaimable part), 0 when not or when no run was measured "
	      "(report's exit status 3).", num(v.fits ? 1 : 0));
	gauge(o, "arenaprof_budget_margin_bytes", "bytes", "The budget less the number that "
	      "decided (the peak, or the non-reclaimable part); negative over it.",
	      snum(v.margin));
	gauge(o, "arenaprof_nonreclaimable_bytes", "bytes", "The process's non-reclaimable "
	      "memory: Pss_Anon plus Pss_Shmem maxima (no swap to put it in).",
	      num(v.nonreclaimable));
}

void ap_openmetrics_report(FILE *f, const struct ap_report *r, const char *version)
{
	const struct ap_corr_all *x = r->x;
	const struct ap_analysis *a = &x->a;
	char host[256] = "";
	struct om o = { .f = f, .host = host, .model = model_of(x->have_plan ? &x->plan : NULL) };

	gethostname(host, sizeof(host) - 1);
	build_info(f, version);
	if (x->have_plan)
		gauge(&o, "arenaprof_arena_planned_bytes", "bytes", "The plan's tensor arena.",
		      num(x->plan.arena_bytes));
	if (a->id.map >= 0)
		gauge(&o, "arenaprof_arena_found_bytes", "bytes", "The arena's first-touched "
		      "and attach-resident bytes.",
		      num(x->c.groups[AP_GROUP_ARENA].resident_bytes));
	gauge(&o, "arenaprof_peak_bytes", "bytes", "VmHWM's maximum over the trace's samples.",
	      num(AP_SAMPLE_MAX(a, vm_hwm)));
	counter(&o, "arenaprof_arena_first_touch_pages", "Arena pages first touched while "
		"traced.", a->id.map >= 0 ? a->as.maps[a->id.map].first_touch_pages : 0);
	counter(&o, "arenaprof_dropped_events", "Events the ring buffer dropped.",
		a->drops.ringbuf_drops);
	counter(&o, "arenaprof_runs", "Inference runs completed.", a->runs_completed);
	report_latency(&o, a);
	report_budget(&o, r);
	report_dmabuf(&o, a);
	if (x->have_plan && a->id.map >= 0)
		gauge(&o, "arenaprof_plan_matches", NULL, "1 when the plan describes the trace.",
		      num(x->c.mismatch ? 0 : 1));
	fputs("# EOF\n", f);
}
