// SPDX-License-Identifier: Apache-2.0
/*
 * summary: the verdict on the process (against --budget), the latency, the layer that
 * decides, the peak and its parts, drops (summary.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/analyze/attrib.h"
#include "arenaprof/analyze/peak_parts.h"
#include "arenaprof/analyze/procmem.h"
#include "arenaprof/render/dmabuf_report.h"
#include "arenaprof/render/models_report.h"
#include "arenaprof/render/summary.h"
#include "arenaprof/render/xnn_report.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

/* The figures the summary states, every one from the report's own analysis. */
struct figures {
	uint64_t peak;		/* VmHWM's maximum, else every page the trace saw resident */
	bool peak_hwm;
	uint64_t kind[AP_GROUP_COUNT];
	uint64_t arena_planned;	/* 0: no plan */
	uint64_t arena_touched;	/* the arena's first touches: its block's pages when it
				 * is a block in a larger mapping, else its mapping's */
	const char *top_call;	/* the largest allocating call outside the arena, or NULL */
	int64_t first_run_ns;	/* run 0 less the median run; -1 unknown */
};

static void gather(const struct ap_report *r, struct figures *g)
{
	const struct ap_corr_all *x = r->x;
	const struct ap_attrib *at = r->attrib;

	memset(g, 0, sizeof(*g));
	for (int k = 0; k < AP_GROUP_COUNT; k++)
		g->kind[k] = x->c.groups[k].resident_bytes;
	g->peak = ap_corr_peak(x, &g->peak_hwm);
	g->arena_planned = x->have_plan ? x->plan.arena_bytes : 0;
	g->arena_touched = g->kind[AP_GROUP_ARENA];
	if (x->have_plan && x->c.page_lo < x->c.page_hi && x->c.page_hi != UINT64_MAX)
		g->arena_touched = x->c.ft_pages * x->c.page_size;
	g->first_run_ns = -1;
	if (at && at->n_callers)
		g->top_call = at->callers[0].name;
	if (at && at->run_first_ns && at->run_median_ns)
		g->first_run_ns = (int64_t)at->run_first_ns - (int64_t)at->run_median_ns;
}

static double share(uint64_t part, uint64_t whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0;
}

/* The API of a "run probe: FILE:SYM (run entry point found automatically: API)" note. */
static bool note_api(const char *note, const char **api, size_t *len)
{
	static const char tag[] = "found automatically: ";
	const char *p = strstr(note, tag), *end;

	if (!p)
		return false;
	*api = p + sizeof(tag) - 1;
	end = strrchr(*api, ')');
	*len = end ? (size_t)(end - *api) : strlen(*api);
	return true;
}

/*
 * The run probe: --run-probe's, else the entry point found automatically; where record
 * attached several (one per API in the files mapped), how many and their APIs, once each.
 */
const char *ap_summary_run_probe(const struct ap_analysis *a, char *buf, size_t len)
{
	static const char found[] = "run probe: ";
	uint32_t n = 0, first = 0, named = 0;
	size_t at;
	bool dup;

	snprintf(buf, len, "%s", a->strings[AP_HS_RUN_PROBE]);
	if (buf[0])
		return buf;
	for (uint32_t i = 0; i < a->n_notes; i++)
		if (!strncmp(a->notes[i], found, sizeof(found) - 1) && !n++)
			first = i;
	if (n == 1)
		snprintf(buf, len, "%s", a->notes[first] + sizeof(found) - 1);
	if (n <= 1)
		return buf;
	at = (size_t)snprintf(buf, len, "%u run entry points found automatically (a run is "
			      "the outermost call): ", n);
	for (uint32_t i = first; i < a->n_notes && at < len; i++) {
		const char *api;
		size_t alen;

		if (strncmp(a->notes[i], found, sizeof(found) - 1) ||
		    !note_api(a->notes[i], &api, &alen))
			continue;
		/* each API once: skip one named by an earlier note */
		dup = false;
		for (uint32_t k = first; k < i && !dup; k++) {
			const char *b;
			size_t blen;

			dup = !strncmp(a->notes[k], found, sizeof(found) - 1) &&
			      note_api(a->notes[k], &b, &blen) && blen == alen &&
			      !strncmp(api, b, alen);
		}
		if (!dup)
			at += (size_t)snprintf(buf + at, len - at, "%s%.*s",
					       named++ ? ", " : "", (int)alen, api);
	}
	return buf;
}

/* The target ended before run 0 completed, with a run probe to see it: why, else NULL. */
static const char *died_before_run0(const struct ap_analysis *a, char *buf, size_t len)
{
	char probe[1024];

	if (a->runs_completed || !a->saw_end || a->end.reason != AP_END_TARGET_EXIT ||
	    !ap_summary_run_probe(a, probe, sizeof(probe))[0])
		return NULL;
	if (a->end.term_signal)
		snprintf(buf, len, "killed by signal %d", a->end.term_signal);
	else if (a->end.exit_status >= 0)
		snprintf(buf, len, "exited with status %d", a->end.exit_status);
	else
		snprintf(buf, len, "exited");
	return buf;
}

/* On the default path, the operator XNNPACK's measured blocks hold the most for, or -1. */
static int32_t xnn_heaviest(const struct ap_xnn_measured *m, uint64_t *bytes)
{
	int32_t w = -1;

	*bytes = 0;
	for (uint32_t k = 0; m->attributed && m->op_packed && m->op_scratch && k < m->n_ops;
	     k++)
		if (m->op_packed[k] + m->op_scratch[k] > *bytes) {
			*bytes = m->op_packed[k] + m->op_scratch[k];
			w = (int32_t)k;
		}
	return w;
}

/*
 * The layer that decides, of a matching plan: on the default path the operator whose
 * XNNPACK blocks (packed weights, buffers) are the largest measured, else the widest
 * operator of the arena. "" when neither.
 */
static const char *widest(const struct ap_corr_all *x, char *buf, size_t len)
{
	const struct ap_corr *c = &x->c;
	const struct ap_tplan *p = &x->plan;
	const struct ap_xnn_measured *m = &x->xm;
	int32_t w = c->widest_op;
	uint64_t held;
	int32_t h = xnn_heaviest(m, &held);

	buf[0] = 0;
	if (h >= 0)
		snprintf(buf, len, "#%d %s holds the most of XNNPACK's blocks, %s (packed "
			 "weights %s, buffers %s); ", h, m->op_names && m->op_names[h] ?
			 TS(m->op_names[h]) : "?", B(held), B(m->op_packed[h]),
			 B(m->op_scratch[h]));
	else if (w >= 0 && (uint32_t)w < p->n_ops)
		snprintf(buf, len, "#%d %s \"%s\" decides the arena, %s live (its floor); ", w,
			 TS(p->ops[w].opname), ap_corr_short_name(p->ops[w].out_name,
								  (char[64]){ 0 }, 64),
			 B(c->widest_bytes));
	return buf;
}

/* Which layer decides, or why none can be named; then does the plan describe the trace? */
static void verdict(FILE *f, const struct ap_report *r, const struct figures *g)
{
	const struct ap_corr_all *x = r->x;
	const struct ap_arena_id *id = &x->a.id;
	const char *died = died_before_run0(&x->a, (char[64]){ 0 }, 64);

	if (died)
		fprintf(f, "layer      none: the target %s before run 0 completed, no run to "
			"judge%s\n", died, x->have_plan ? " the plan by" : "");
	else if (!x->have_plan)
		fprintf(f, "layer      none named: no plan given (--plan MODEL); the arena by %s "
			"is %s\n", ap_arena_rule_key(id->rule), B(g->kind[AP_GROUP_ARENA]));
	else if (id->map < 0 && !x->no_arena)
		fprintf(f, "layer      none named: no arena found: %s\n", TS(id->why));
	else if (x->c.mismatch)
		fprintf(f, "layer      none: the plan does NOT describe this trace: %s\n",
			x->c.n_reasons ? x->c.reasons[0] : "");
	else if (x->no_arena)
		fprintf(f, "layer      %sCompiledModel leaves no TFLite arena beside XNNPACK, as "
			"planned: every tensor outside XNNPACK's partitions is a model input or "
			"output, in CompiledModel's own TensorBuffers\n",
			widest(x, (char[256]){ 0 }, 256));
	else
		fprintf(f, "layer      %sthe %sis as planned: %s planned, %s first touched "
			"(found by %s%s)\n", widest(x, (char[256]){ 0 }, 256),
			x->delegate == AP_DELEGATE_XNNPACK ?
			(x->io_late ? "TFLite arena left beside XNNPACK by CompiledModel "
			 "(planned whole, its inputs and outputs bound to its own buffers "
			 "after: their bytes unused) " : x->compiled ? "TFLite arena left "
			 "beside XNNPACK by CompiledModel (its inputs and outputs in its own "
			 "buffers) " : "TFLite arena left beside XNNPACK (LiteRT's default path) ")
			: "arena ",
			B(g->arena_planned), B(g->arena_touched),
			ap_arena_rule_key(id->rule), x->c.pretouched ? "; written whole outside "
			"its runs (a copy or a clear by the runtime): checked by its size, not its "
			"order" : "");
	ap_models_summary_text(f, x);
	ap_xnn_verdict_text(f, &x->xm);
	if (x->have_plan && x->delegate_auto && x->delegate == AP_DELEGATE_XNNPACK)
		fprintf(f, "           (the plan of --delegate xnnpack, chosen by the trace: "
			"XNNPACK's allocator ran, or the arena block has its size; --delegate "
			"none gives the builtin kernels' plan)\n");
}

void ap_summary_budget_of(const struct ap_corr_all *x, uint64_t budget,
			  struct ap_procmem *m, struct ap_budget_process *v)
{
	struct ap_dmabuf_peak dp;
	/* dma-bufs are in no /proc figure of the process and never reclaimed: DRAM too */
	uint64_t dev = ap_dmabuf_device(&x->a, &dp) ? dp.bytes : 0;

	ap_procmem_of(x, m);
	ap_budget_judge_process(budget, m->peak + dev, m->nonreclaimable + dev, v);
	v->device = dev;
	if (died_before_run0(&x->a, (char[64]){ 0 }, 64))
		ap_budget_no_run(v);
}

void ap_summary_budget(const struct ap_report *r, struct ap_procmem *m,
		       struct ap_budget_process *v)
{
	ap_summary_budget_of(r->x, r->budget, m, v);
}

/* "; the model's share as planned ..." with --plan and --budget, else "". */
static const char *model_share(const struct ap_report *r, char *buf, size_t len)
{
	buf[0] = 0;
	if (r->have_model)
		snprintf(buf, len, "; the %s share as planned %s (non-reclaimable %s, "
			 "weights %s)", r->x->n_models > 1 ? "models'" : "model's",
			 B(r->model_anon + r->model_file), B(r->model_anon), B(r->model_file));
	return buf;
}

/* The first line: the process against --budget, and the number that decided. */
static void budget_line(FILE *f, const struct ap_report *r)
{
	struct ap_budget_process v;
	struct ap_procmem m;
	char peak[96], nr[128];
	const char *died = died_before_run0(&r->x->a, (char[64]){ 0 }, 64);

	ap_summary_budget(r, &m, &v);
	if (v.device) {		/* the device memory counted in both (dma-bufs) */
		snprintf(peak, sizeof(peak), "%s (%s, and dma-bufs %s)", B(v.peak),
			 ap_pm_peak_text(m.peak_src), B(v.device));
		snprintf(nr, sizeof(nr), "%s (%s, and the dma-bufs)", B(v.nonreclaimable),
			 ap_pm_nonrecl_text(m.nonrecl_src));
	} else {
		snprintf(peak, sizeof(peak), "%s (%s)", B(m.peak), ap_pm_peak_text(m.peak_src));
		snprintf(nr, sizeof(nr), "%s (%s)", B(m.nonreclaimable),
			 ap_pm_nonrecl_text(m.nonrecl_src));
	}
	if (died && v.unknown)
		fprintf(f, "verdict    NO VERDICT on %s (exit 3): the target %s before run 0 "
			"completed, what a run holds was never measured; before that it held peak "
			"%s, non-reclaimable %s%s\n", B(r->budget), died, peak, nr,
			model_share(r, (char[160]){ 0 }, 160));
	else if (died && !r->budget)
		fprintf(f, "verdict    no run to judge: the target %s before run 0 completed; "
			"before that it held peak %s, non-reclaimable %s%s\n", died, peak, nr,
			model_share(r, (char[160]){ 0 }, 160));
	else if (!r->budget)
		fprintf(f, "verdict    no budget given (--budget SIZE): peak %s, non-reclaimable "
			"%s%s\n", peak, nr, model_share(r, (char[160]){ 0 }, 160));
	else if (v.decided_by == AP_BUDGET_BY_NONRECLAIMABLE)
		fprintf(f, "verdict    DOES NOT FIT %s: the non-reclaimable memory alone, %s, is "
			"%s over (no swap to put it in: an OOM kill); peak %s%s\n", B(r->budget),
			nr, B((uint64_t)-v.margin), peak, model_share(r, (char[160]){ 0 }, 160));
	else if (!v.fits)
		fprintf(f, "verdict    DOES NOT FIT %s: the peak, %s, is %s over; its "
			"non-reclaimable %s fits, the reclaimable %s (file pages: code, weights) "
			"would be read again and again (thrashing)%s\n", B(r->budget), peak,
			B((uint64_t)-v.margin), nr, B(v.reclaimable),
			model_share(r, (char[160]){ 0 }, 160));
	else
		fprintf(f, "verdict    fits %s: the peak, %s, leaves %s; non-reclaimable %s%s\n",
			B(r->budget), peak, B((uint64_t)v.margin), nr,
			model_share(r, (char[160]){ 0 }, 160));
}

/* Run 0, the median and p99 run (the run probe's markers), or why there are none. */
static void latency(FILE *f, const struct ap_report *r, const struct figures *g)
{
	const struct ap_attrib *at = r->attrib;
	char probe[1024];

	if (at && at->run_first_ns) {
		fprintf(f, "latency    run 0 %.2f ms, median %.2f ms, p99 %.2f ms (%" PRIu64
			" run%s timed", (double)at->run_first_ns / 1e6,
			(double)at->run_median_ns / 1e6, (double)at->run_p99_ns / 1e6,
			at->runs_completed, at->runs_completed == 1 ? "" : "s");
		if (g->first_run_ns > 0)
			fprintf(f, "; run 0 %.2f ms more than the median: its first touches, "
				"cold caches, lazy set-up", (double)g->first_run_ns / 1e6);
		fprintf(f, ")\n");
	} else if (ap_summary_run_probe(&r->x->a, probe, sizeof(probe))[0]) {
		fprintf(f, "latency    no run completed\n");
	} else {
		fprintf(f, "latency    not timed: no run probe (record --run-probe BIN:SYM)\n");
	}
}

/* The peak as parts that sum to it, each named by its reclaimability (peak_parts.h). */
static void peak_line(FILE *f, const struct ap_report *r)
{
	struct ap_peak_parts p;
	struct ap_procmem m;
	char rest[160] = "";

	ap_procmem_of(r->x, &m);
	ap_peak_parts_of(r->x, &m, &p);
	if (p.between)
		snprintf(rest, sizeof(rest), "; + %s %s", B(p.between), p.sampled ?
			 "above the largest sample (reached between samples)" :
			 "not placed in a group");
	if (p.cgroup_other)
		snprintf(rest + strlen(rest), sizeof(rest) - strlen(rest), "; + %s the "
			 "cgroup's other charges", B(p.cgroup_other));
	fprintf(f, "peak       %s (%s) = non-reclaimable %s (anonymous: arena %s (%.0f %%), "
		"other %s; shmem %s) + reclaimable %s (file pages: weights %s, code, "
		"libraries and page cache %s%s)%s\n", B(p.peak), ap_pm_peak_text(m.peak_src),
		B(p.arena + p.anon_other + p.shmem), B(p.arena), share(p.arena, p.peak),
		B(p.anon_other), B(p.shmem), B(p.weights + p.file_other), B(p.weights),
		B(p.file_other), p.sampled ? ", fault-around included" : " first touched",
		rest);
}

void ap_summary_text(FILE *f, const struct ap_report *r)
{
	const struct ap_analysis *a = &r->x->a;
	struct figures g;

	gather(r, &g);
	budget_line(f, r);
	latency(f, r, &g);
	verdict(f, r, &g);
	peak_line(f, r);
	if (g.top_call)
		fprintf(f, "           the largest allocating call outside the arena: %s\n",
			TS(g.top_call));
	ap_dmabuf_summary_text(f, a);
	fprintf(f, "drops      %s\n", a->drops.ringbuf_drops ? "EVENTS WERE DROPPED: the figures "
		"miss them (record again with a larger --ring-size)" : "none");
	fputc('\n', f);
}

/* "peak_parts": the parts that sum to its peak_bytes (the budget's peak). */
static void peak_parts_json(struct ap_json *j, const struct ap_report *r)
{
	struct ap_peak_parts p;
	struct ap_procmem m;

	ap_procmem_of(r->x, &m);
	ap_peak_parts_of(r->x, &m, &p);
	ap_json_obj(j, "peak_parts");
	ap_json_u64(j, "peak_bytes", p.peak);
	ap_json_str(j, "peak_source", ap_pm_peak_key(m.peak_src));
	ap_json_str(j, "split_by", p.sampled ? "largest_status_sample" : "first_touches");
	if (p.sampled)
		ap_json_u64(j, "sample_at_ns", p.at_ns);
	else
		ap_json_null(j, "sample_at_ns");
	ap_json_obj(j, "nonreclaimable");
	ap_json_u64(j, "arena_bytes", p.arena);
	ap_json_u64(j, "other_anonymous_bytes", p.anon_other);
	ap_json_u64(j, "shmem_bytes", p.shmem);
	ap_json_end_obj(j);
	ap_json_obj(j, "reclaimable");
	ap_json_u64(j, "weights_bytes", p.weights);
	ap_json_u64(j, "code_libraries_page_cache_bytes", p.file_other);
	ap_json_end_obj(j);
	ap_json_u64(j, "between_samples_bytes", p.between);
	ap_json_u64(j, "cgroup_other_bytes", p.cgroup_other);
	ap_json_end_obj(j);
}

void ap_summary_json(struct ap_json *j, const struct ap_report *r)
{
	const struct ap_corr_all *x = r->x;
	struct ap_dmabuf_peak dp;
	struct figures g;

	gather(r, &g);
	ap_json_obj(j, "summary");
	if (x->have_plan && (x->a.id.map >= 0 || x->no_arena))
		ap_json_bool(j, "plan_matches", !x->c.mismatch);
	else
		ap_json_null(j, "plan_matches");
	ap_json_u64(j, "peak_bytes", g.peak);
	ap_json_str(j, "peak_source", g.peak_hwm ? "VmHWM" : "first touches");
	ap_json_u64(j, "arena_bytes", g.kind[AP_GROUP_ARENA]);
	if (g.arena_planned || x->no_arena)
		ap_json_u64(j, "arena_planned_bytes", g.arena_planned);
	else
		ap_json_null(j, "arena_planned_bytes");
	ap_json_u64(j, "weights_bytes", g.kind[AP_GROUP_WEIGHTS]);
	ap_json_u64(j, "other_anonymous_bytes", g.kind[AP_GROUP_HEAP] + g.kind[AP_GROUP_STACK] +
		    g.kind[AP_GROUP_ANON]);
	ap_json_u64(j, "code_and_files_bytes", g.kind[AP_GROUP_FILES]);
	if (g.top_call)
		ap_json_str(j, "top_allocating_call", g.top_call);
	else
		ap_json_null(j, "top_allocating_call");
	if (g.first_run_ns >= 0)
		ap_json_i64(j, "first_run_extra_ns", g.first_run_ns);
	else
		ap_json_null(j, "first_run_extra_ns");
	if (ap_dmabuf_device(&x->a, &dp))	/* device memory: only when the target had any */
		ap_json_u64(j, "dmabuf_peak_bytes", dp.bytes);
	peak_parts_json(j, r);
	ap_json_u64(j, "dropped_events", x->a.drops.ringbuf_drops);
	ap_json_end_obj(j);
}

void ap_summary_budget_json(struct ap_json *j, const struct ap_report *r)
{
	struct ap_budget_process v;
	struct ap_procmem m;

	if (!r->budget)
		return;
	ap_summary_budget(r, &m, &v);
	ap_json_obj(j, "budget");
	ap_json_u64(j, "budget_bytes", v.budget);
	if (v.unknown)
		ap_json_null(j, "fits");
	else
		ap_json_bool(j, "fits", v.fits);
	ap_json_u64(j, "peak_bytes", v.peak);
	ap_json_str(j, "peak_source", ap_pm_peak_key(m.peak_src));
	ap_json_u64(j, "nonreclaimable_bytes", v.nonreclaimable);
	ap_json_str(j, "nonreclaimable_source", ap_pm_nonrecl_key(m.nonrecl_src));
	ap_json_u64(j, "device_bytes", v.device);
	ap_json_u64(j, "reclaimable_bytes", v.reclaimable);
	if (r->have_model)
		ap_json_u64(j, "model_bytes", r->model_anon + r->model_file);
	else
		ap_json_null(j, "model_bytes");
	ap_json_str(j, "decided_by", ap_budget_decider_key(v.decided_by));
	ap_json_i64(j, "margin_bytes", v.margin);
	ap_json_end_obj(j);
}
