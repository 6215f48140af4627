// SPDX-License-Identifier: Apache-2.0
/* diff_report: two plans or traces side by side, and the gates (diff_report.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/render/diff_report.h"
#include "arenaprof/render/summary.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/json.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)
#define MAX_OP_ROWS 10	/* text: the paired operators whose breadth changed most */

static bool is_latency(enum ap_diff_row r)
{
	return r >= AP_DIFF_LAT_FIRST && r <= AP_DIFF_LAT_P99;
}

/* Row r grown past pct: only where both sides give the same quantity. */
static bool over(const struct ap_diff *d, enum ap_diff_row r, double pct)
{
	return d->row[r].ok && ap_diff_pct(d->row[r].o, d->row[r].n) > pct;
}

/* A trace side against the budget: the process it measured, as report --budget judges. */
static void judge_fit(const struct ap_diff_side *s, uint64_t budget, struct ap_diff_fit *f)
{
	if (s->is_trace)
		ap_summary_budget_of(&s->x, budget, &f->m, &f->v);
}

void ap_diff_judge(const struct ap_diff *d, struct ap_diff_gate *g)
{
	const struct ap_diff_cmp *r = d->row;

	g->cannot[0] = 0;
	if (g->budget) {
		judge_fit(&d->o, g->budget, &g->fit[0]);
		judge_fit(&d->n, g->budget, &g->fit[1]);
		g->budget_over = d->n.is_trace && !g->fit[1].v.fits;
	}
	if (g->on) {
		g->arena_over = over(d, AP_DIFF_ARENA, g->pct);
		g->peak_over = over(d, AP_DIFF_PEAK, g->pct);
		if (!r[AP_DIFF_ARENA].ok && !r[AP_DIFF_PEAK].ok)
			snprintf(g->cannot, sizeof(g->cannot), "--fail-above cannot judge this "
				 "pair: the arena is n/a (%s), the peak too (%s)",
				 r[AP_DIFF_ARENA].why, r[AP_DIFF_PEAK].why);
	}
	if (g->lat_on) {
		g->median_over = over(d, AP_DIFF_LAT_MEDIAN, g->lat_pct);
		g->p99_over = over(d, AP_DIFF_LAT_P99, g->lat_pct);
		if (!r[AP_DIFF_LAT_MEDIAN].ok && !g->cannot[0])
			snprintf(g->cannot, sizeof(g->cannot), "--fail-above-latency cannot "
				 "judge this pair: %s", r[AP_DIFF_LAT_MEDIAN].why);
	}
	if (g->budget && !d->n.is_trace && !g->cannot[0])
		snprintf(g->cannot, sizeof(g->cannot), "--budget judges a process: NEW is a "
			 "plan (its model's memory alone: 'arenaprof plan %.*s --budget SIZE')",
			 200, d->n.path);
}

bool ap_diff_failed(const struct ap_diff_gate *g)
{
	return g->arena_over || g->peak_over || g->median_over || g->p99_over ||
	       g->budget_over;
}

/* ---- text ---- */

static const char *figure(enum ap_diff_row r, bool have, uint64_t v, char *buf, size_t len)
{
	if (!have)
		snprintf(buf, len, "-");
	else if (is_latency(r))
		snprintf(buf, len, "%.2f ms", (double)v / 1e6);
	else
		ap_fmt_bytes(v, buf, len);
	return buf;
}

/* Whether a side gives row r at all (a plan has no runs; a trace may have none timed). */
static bool gives(const struct ap_diff_side *s, enum ap_diff_row r)
{
	if (!is_latency(r))
		return true;
	return s->is_trace && s->lat.runs && (r != AP_DIFF_LAT_FIRST || s->lat.timed);
}

static void text_row(FILE *f, const struct ap_diff *d, enum ap_diff_row r, const char *label)
{
	const struct ap_diff_cmp *c = &d->row[r];
	char o[32], n[32], p[32];
	double pct = ap_diff_pct(c->o, c->n);

	if (!c->ok)
		snprintf(p, sizeof(p), "n/a");
	else if (isinf(pct))
		snprintf(p, sizeof(p), "new");
	else
		snprintf(p, sizeof(p), "%+.1f %%", pct);
	fprintf(f, "  %-22s %12s %12s %10s", label, figure(r, gives(&d->o, r), c->o, o, 32),
		figure(r, gives(&d->n, r), c->n, n, 32), p);
	if (!c->ok)
		fprintf(f, "  (%s)", TS(c->why));
	fputc('\n', f);
}

/* "trace; model M, from its mappings" / "plan", and the path a trace's plan is for. */
static void text_side(FILE *f, const char *which, const struct ap_diff_side *s)
{
	const char *how = s->model == AP_DIFF_MODEL_GIVEN ? "given by --plan" :
			  "found in its mappings";

	fprintf(f, "%-10s %s (", which, TS(s->path));
	if (!s->is_trace)
		fprintf(f, "plan");
	else if (s->model == AP_DIFF_MODEL_NONE)
		fprintf(f, "trace; %s; the arena by the mapping rule", TS(s->no_model));
	else
		fprintf(f, "trace; model %s, %s", TS(s->x.plan.model), how);
	if (s->is_trace && s->p)
		fprintf(f, "; planned for %s", s->x.compiled ? "CompiledModel" :
			s->x.delegate == AP_DELEGATE_XNNPACK ? "XNNPACK's default path" :
			"the builtin kernels");
	fprintf(f, ")\n");
}

static void text_graphs(FILE *f, const struct ap_diff *d)
{
	const struct ap_diff_ops *m = &d->ops;

	if (!d->have_ops) {
		fprintf(f, "graphs     unknown: a side has no model (operators not compared)\n");
		return;
	}
	if (m->same_graph)
		fprintf(f, "graphs     the same: %u operators, paired by opcode and output name\n",
			m->matched);
	else
		fprintf(f, "graphs     DIFFERENT: %u operators paired by opcode and output name, "
			"%u only in old, %u only in new\n", m->matched, m->old_only, m->new_only);
}

static void op_row(FILE *f, const struct ap_diff *d, const struct ap_diff_pair *q, int64_t delta)
{
	char name[48];

	fprintf(f, "  #%-4u #%-4u %-16s %-24s %12s %12s %+11" PRId64 "\n", q->o, q->n,
		TS(d->n.p->ops[q->n].opname),
		ap_corr_short_name(d->n.p->ops[q->n].out_name, name, sizeof(name)),
		B(d->o.prof.breadth[q->o]), B(d->n.prof.breadth[q->n]), delta);
}

/* The paired operators whose breadth changed most. */
static void text_ops(FILE *f, const struct ap_diff *d)
{
	const struct ap_diff_ops *m = &d->ops;
	const struct ap_profile *po = &d->o.prof, *pn = &d->n.prof;
	bool *done = calloc(m->matched + 1, sizeof(*done));
	uint32_t shown = 0;

	while (done && shown < MAX_OP_ROWS) {
		int64_t best = 0;
		int64_t bi = -1;

		for (uint32_t i = 0; i < m->matched; i++) {
			const struct ap_diff_pair *q = &m->pairs[i];
			int64_t dd = (int64_t)pn->breadth[q->n] - (int64_t)po->breadth[q->o];

			if (!done[i] && dd && llabs(dd) > llabs(best)) {
				best = dd;
				bi = i;
			}
		}
		if (bi < 0)
			break;
		done[bi] = true;
		if (!shown++)
			fprintf(f, "breadth (arena bytes live while it runs) of the paired "
				"operators, the largest changes:\n");
		op_row(f, d, &m->pairs[bi], best);
	}
	if (done && !shown)
		fprintf(f, "breadth: no paired operator's changed\n");
	free(done);
}

/* One side's verdict on the budget, the number that decided it and its source. */
static void text_fit(FILE *f, const char *label, const struct ap_diff_side *s,
		     const struct ap_diff_fit *t)
{
	const struct ap_budget_process *v = &t->v;
	char what[160];

	if (!s->is_trace) {
		fprintf(f, "  %s n/a: a plan, not a process (plan --budget judges a model's "
			"memory)\n", label);
		return;
	}
	snprintf(what, sizeof(what), "peak %s (%s), non-reclaimable %s", B(v->peak),
		 ap_pm_peak_text(t->m.peak_src), B(v->nonreclaimable));
	if (v->unknown)
		fprintf(f, "  %s NO VERDICT: the target ended before run 0 completed; %s\n",
			label, what);
	else if (v->fits)
		fprintf(f, "  %s fits, %s left: %s\n", label, B((uint64_t)v->margin), what);
	else
		fprintf(f, "  %s DOES NOT FIT: the %s is %s over: %s\n", label,
			v->decided_by == AP_BUDGET_BY_NONRECLAIMABLE ? "non-reclaimable part" :
			"peak", B((uint64_t)-v->margin), what);
}

static void text_budget(FILE *f, const struct ap_diff *d, const struct ap_diff_gate *g)
{
	if (!g->budget)
		return;
	fprintf(f, "budget     %s\n", B(g->budget));
	text_fit(f, "old", &d->o, &g->fit[0]);
	text_fit(f, "new", &d->n, &g->fit[1]);
}

static void text_gate(FILE *f, const struct ap_diff *d, const struct ap_diff_gate *g,
		      const char *peak)
{
	if (g->budget)
		fprintf(f, "gate       --budget %s: %s\n", B(g->budget), !d->n.is_trace ?
			"NOT JUDGED (NEW is a plan)" : !g->budget_over ?
			"passed (NEW fits)" : g->fit[1].v.unknown ? "FAILED (NEW has no "
			"verdict: no run measured)" : "FAILED (NEW does not fit)");
	if (g->on)
		fprintf(f, "gate       --fail-above %.1f %%: %s\n", g->pct,
			g->arena_over || g->peak_over ? "FAILED" : "passed");
	if (g->arena_over)
		fprintf(f, "  - the arena grew past it\n");
	if (g->peak_over)
		fprintf(f, "  - the %s grew past it\n", peak);
	if (g->lat_on)
		fprintf(f, "gate       --fail-above-latency %.1f %%: %s\n", g->lat_pct,
			!d->row[AP_DIFF_LAT_MEDIAN].ok ? "NOT JUDGED" :
			g->median_over || g->p99_over ? "FAILED" : "passed");
	if (g->median_over)
		fprintf(f, "  - the median run grew past it\n");
	if (g->p99_over)
		fprintf(f, "  - the p99 run grew past it\n");
}

void ap_diff_text(FILE *f, const struct ap_diff *d, const struct ap_diff_gate *g)
{
	const struct ap_diff_side *o = &d->o, *n = &d->n;

	text_side(f, "old", o);
	text_side(f, "new", n);
	text_graphs(f, d);
	fprintf(f, "  %-22s %12s %12s %10s\n", "", "old", "new", "change");
	text_row(f, d, AP_DIFF_ARENA, o->is_trace || n->is_trace ? "arena (found | planned)" :
		 "arena");
	text_row(f, d, AP_DIFF_PEAK, !o->is_trace && !n->is_trace ? "model memory" :
		 o->is_trace && n->is_trace ? "peak (VmHWM)" : "model memory | peak");
	text_row(f, d, AP_DIFF_WEIGHTS, "weights");
	if (o->is_trace || n->is_trace) {	/* two plans have no runs to compare */
		text_row(f, d, AP_DIFF_LAT_FIRST, "run 0");
		text_row(f, d, AP_DIFF_LAT_MEDIAN, "median run");
		text_row(f, d, AP_DIFF_LAT_P99, "p99 run");
	}
	/* device memory: only for traces, and only when a target had dma-bufs */
	if (o->is_trace && n->is_trace && (o->has_device || n->has_device))
		text_row(f, d, AP_DIFF_DEVICE, "device (dma-bufs)");
	if (o->is_trace && n->is_trace) {
		for (int k = 0; k < AP_GROUP_COUNT; k++)
			if (k != AP_GROUP_ARENA && k != AP_GROUP_WEIGHTS)
				fprintf(f, "  %-22s %12s %12s\n", ap_group_name((enum ap_group)k),
					B(o->kind[k]), B(n->kind[k]));
	}
	if (d->have_ops && d->ops.matched)
		text_ops(f, d);
	text_budget(f, d, g);
	text_gate(f, d, g, o->is_trace || n->is_trace ? "peak" : "model memory");
}

/* ---- JSON ---- */

static void json_lat(struct ap_json *j, const struct ap_diff_side *s)
{
	if (!s->is_trace || !s->lat.runs) {
		ap_json_null(j, "latency");
		return;
	}
	ap_json_obj(j, "latency");
	ap_json_u64(j, "runs", s->lat.runs);
	if (s->lat.timed)
		ap_json_u64(j, "first_ns", s->lat.first_ns);
	else
		ap_json_null(j, "first_ns");
	ap_json_u64(j, "median_ns", s->lat.median_ns);
	ap_json_u64(j, "p99_ns", s->lat.p99_ns);
	ap_json_end_obj(j);
}

static void json_model(struct ap_json *j, const struct ap_diff_side *s)
{
	static const char *const src[] = { [AP_DIFF_MODEL_NONE] = "none",
					   [AP_DIFF_MODEL_GIVEN] = "plan_option",
					   [AP_DIFF_MODEL_MAPPED] = "mappings" };

	if (s->is_trace && s->p)
		ap_json_str(j, "model", s->x.plan.model);
	else if (s->is_trace)
		ap_json_null(j, "model");
	ap_json_str(j, "model_source", s->is_trace ? src[s->model] : "plan");
	if (s->model == AP_DIFF_MODEL_NONE && s->is_trace)
		ap_json_str(j, "no_model", s->no_model);
}

static void json_side(struct ap_json *j, const char *key, const struct ap_diff_side *s)
{
	ap_json_obj(j, key);
	ap_json_str(j, "path", s->path);
	ap_json_str(j, "kind", s->is_trace ? "trace" : "plan");
	json_model(j, s);
	ap_json_u64(j, "arena_bytes", s->arena);
	if (s->is_trace && s->p)
		ap_json_u64(j, "planned_arena_bytes", s->p->arena_bytes);
	ap_json_u64(j, "peak_bytes", s->peak);
	ap_json_str(j, "peak_of", s->is_trace ? "process" : "model");
	ap_json_u64(j, "weights_bytes", s->weights);
	if (s->is_trace)
		ap_json_u64(j, "dmabuf_peak_bytes", s->device);
	else
		ap_json_null(j, "dmabuf_peak_bytes");
	json_lat(j, s);
	if (s->is_trace) {
		ap_json_obj(j, "kinds");
		for (int k = 0; k < AP_GROUP_COUNT; k++)
			ap_json_u64(j, ap_group_name((enum ap_group)k), s->kind[k]);
		ap_json_end_obj(j);
	}
	if (s->p) {
		ap_json_u64(j, "operators", s->p->n_ops);
		ap_json_arr(j, "breadth_bytes");
		for (uint32_t i = 0; i < s->prof.n_ops; i++)
			ap_json_u64(j, NULL, s->prof.breadth[i]);
		ap_json_end_arr(j);
	}
	ap_json_end_obj(j);
}

static void json_ops(struct ap_json *j, const struct ap_diff *d)
{
	if (!d->have_ops) {
		ap_json_null(j, "operators");
		return;
	}
	ap_json_obj(j, "operators");
	ap_json_str(j, "paired_by", "opcode and output name");
	ap_json_bool(j, "same_graph", d->ops.same_graph);
	ap_json_u64(j, "matched", d->ops.matched);
	ap_json_u64(j, "old_only", d->ops.old_only);
	ap_json_u64(j, "new_only", d->ops.new_only);
	ap_json_arr(j, "pairs");
	for (uint32_t i = 0; i < d->ops.matched; i++) {
		ap_json_arr(j, NULL);
		ap_json_u64(j, NULL, d->ops.pairs[i].o);
		ap_json_u64(j, NULL, d->ops.pairs[i].n);
		ap_json_end_arr(j);
	}
	ap_json_end_arr(j);
	ap_json_end_obj(j);
}

static void json_fit(struct ap_json *j, const char *key, const struct ap_diff_side *s,
		     const struct ap_diff_fit *t)
{
	const struct ap_budget_process *v = &t->v;

	if (!s->is_trace) {
		ap_json_null(j, key);	/* a plan is not a process */
		return;
	}
	ap_json_obj(j, key);
	ap_json_str(j, "of", "process");
	if (v->unknown)
		ap_json_null(j, "fits");
	else
		ap_json_bool(j, "fits", v->fits);
	ap_json_u64(j, "peak_bytes", v->peak);
	ap_json_str(j, "peak_source", ap_pm_peak_key(t->m.peak_src));
	ap_json_u64(j, "nonreclaimable_bytes", v->nonreclaimable);
	ap_json_str(j, "nonreclaimable_source", ap_pm_nonrecl_key(t->m.nonrecl_src));
	ap_json_str(j, "decided_by", ap_budget_decider_key(v->decided_by));
	ap_json_i64(j, "margin_bytes", v->margin);
	ap_json_end_obj(j);
}

static void json_budget(struct ap_json *j, const struct ap_diff *d,
			const struct ap_diff_gate *g)
{
	if (!g->budget) {
		ap_json_null(j, "budget");
		return;
	}
	ap_json_obj(j, "budget");
	ap_json_u64(j, "budget_bytes", g->budget);
	json_fit(j, "old", &d->o, &g->fit[0]);
	json_fit(j, "new", &d->n, &g->fit[1]);
	ap_json_end_obj(j);
}

static void json_gate(struct ap_json *j, const struct ap_diff_gate *g)
{
	if (!g->on && !g->lat_on && !g->budget) {
		ap_json_null(j, "gate");
		return;
	}
	ap_json_obj(j, "gate");
	if (g->on)
		ap_json_f64(j, "fail_above_pct", g->pct);
	else
		ap_json_null(j, "fail_above_pct");
	if (g->lat_on)
		ap_json_f64(j, "fail_above_latency_pct", g->lat_pct);
	else
		ap_json_null(j, "fail_above_latency_pct");
	ap_json_bool(j, "arena_over", g->arena_over);
	ap_json_bool(j, "peak_over", g->peak_over);
	ap_json_bool(j, "median_over", g->median_over);
	ap_json_bool(j, "p99_over", g->p99_over);
	if (g->budget)
		ap_json_u64(j, "budget_bytes", g->budget);
	else
		ap_json_null(j, "budget_bytes");
	ap_json_bool(j, "budget_over", g->budget_over);
	ap_json_bool(j, "failed", ap_diff_failed(g));
	if (g->cannot[0])
		ap_json_str(j, "not_judged", g->cannot);
	else
		ap_json_null(j, "not_judged");
	ap_json_end_obj(j);
}

void ap_diff_json(FILE *f, const struct ap_diff *d, const struct ap_diff_gate *g)
{
	struct ap_json j;

	ap_json_init(&j, f);
	ap_json_obj(&j, NULL);
	ap_json_u64(&j, "schema_version", AP_DIFF_SCHEMA);
	json_side(&j, "old", &d->o);
	json_side(&j, "new", &d->n);
	json_ops(&j, d);
	ap_json_obj(&j, "change_pct");
	for (int r = 0; r < AP_DIFF_ROWS; r++) {
		const struct ap_diff_cmp *c = &d->row[r];

		ap_json_f64(&j, ap_diff_row_key(r), c->ok ? ap_diff_pct(c->o, c->n) : NAN);
	}
	ap_json_end_obj(&j);
	ap_json_obj(&j, "not_comparable");
	for (int r = 0; r < AP_DIFF_ROWS; r++)
		if (!d->row[r].ok)
			ap_json_str(&j, ap_diff_row_key(r), d->row[r].why);
	ap_json_end_obj(&j);
	json_budget(&j, d, g);
	json_gate(&j, g);
	ap_json_end_obj(&j);
	ap_json_finish(&j);
}
