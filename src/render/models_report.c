// SPDX-License-Identifier: Apache-2.0
/* models_report: each model of a trace, its runs and its arena (models_report.h). */
#include <inttypes.h>
#include <string.h>

#include "arenaprof/render/models_report.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/path.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

/* "N pages of its file (weights)", or the copy that holds them. */
static const char *weights_text(const struct ap_model_weights *w, char *buf, size_t len)
{
	if (w->held == AP_WH_FILE)
		snprintf(buf, len, "%" PRIu64 " pages of its file (weights, file-backed)",
			 w->pages);
	else if (w->held == AP_WH_COPY && w->grown)
		snprintf(buf, len, "weights a copy in anonymous memory, %s (no mapping of its "
			 "file; a buffer grown to hold it, written no further than its %s): "
			 "non-reclaimable", B(w->copy_bytes), B(w->file_bytes));
	else if (w->held == AP_WH_COPY)
		snprintf(buf, len, "weights a copy in anonymous memory, %s (no mapping of its "
			 "file; a block of its size held): non-reclaimable", B(w->copy_bytes));
	else
		snprintf(buf, len, "weights not seen (no mapping of its file, no block of its "
			 "size)");
	return buf;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

/* "200 runs (first 3.1 ms, median 1.2 ms, p99 1.9 ms)", or why there are none. */
static const char *runs_text(const struct ap_model_runs *r, char *buf, size_t len)
{
	if (r->rule == AP_MR_NONE)
		snprintf(buf, len, "no run of its own seen");
	else if (!r->completed)
		snprintf(buf, len, "%" PRIu64 " runs begun, none completed", r->runs);
	else
		snprintf(buf, len, "%" PRIu64 " runs (first %.2f ms, median %.2f ms, p99 %.2f ms)",
			 r->completed, ms(r->first_ns), ms(r->median_ns), ms(r->p99_ns));
	return buf;
}

/* The model's arena in a few words: as planned and who decides, or why not. */
static const char *arena_text(const struct ap_corr_model *m, char *buf, size_t len)
{
	const struct ap_corr *c = m->c;
	const struct ap_tplan *p = m->plan;
	int32_t w = c->widest_op;
	char lab[96];

	if (m->id->map < 0)
		snprintf(buf, len, "no arena found: %s", TS(m->id->why));
	else if (c->mismatch)
		snprintf(buf, len, "the plan does NOT describe it: %s",
			 c->n_reasons ? TS(c->reasons[0]) : "");
	else if (w >= 0 && (uint32_t)w < p->n_ops)
		snprintf(buf, len, "arena as planned, %s, %" PRIu64 " pages first touched; "
			 "%s decides it, %s live", B(p->arena_bytes), c->ft_pages,
			 ap_corr_op_label(p, w, lab, sizeof(lab)), B(c->widest_bytes));
	else
		snprintf(buf, len, "arena as planned, %s, %" PRIu64 " pages first touched",
			 B(p->arena_bytes), c->ft_pages);
	if (m->id->map >= 0 && !c->mismatch && c->pretouched)
		snprintf(buf + strlen(buf), len - strlen(buf), " (written whole outside its "
			 "runs: checked by its size, not its order)");
	return buf;
}

void ap_models_summary_text(FILE *f, const struct ap_corr_all *x)
{
	struct ap_corr_model m;

	if (x->n_models < 2)
		return;
	for (uint32_t i = 0; i < x->n_models; i++) {
		ap_corr_model(x, i, &m);
		fprintf(f, "model %-4u %s: %s; %s%s\n", i + 1, TS(ap_base_name(m.path)),
			runs_text(m.runs, (char[128]){ 0 }, 128),
			arena_text(&m, (char[768]){ 0 }, 768), m.weights->held != AP_WH_COPY ? "" :
			"; its weights a copy in anonymous memory, non-reclaimable");
	}
}

static const char *runs_rule_text(const struct ap_corr_all *x, const struct ap_model_runs *r)
{
	switch (r->rule) {
	case AP_MR_TOUCHES: return "its interpreter's runs first touched its arena";
	case AP_MR_ORDER: return "no first touch told: the interpreters in the order their "
				 "arenas were allocated";
	case AP_MR_NONE: return "every interpreter seen is another model's";
	case AP_MR_PROCESS: break;
	}
	if (x->a.run_objs_over)
		return "the run probe's first argument names no interpreter: the process's runs";
	if (x->a.n_run_objs > 1)
		return "several interpreters ran and no first touch in its arena says which is "
		       "this model's: the process's runs (give each model's --plan)";
	return "the trace names no interpreter per run (recorded by an older arenaprof, or no "
	       "run probe): the process's runs";
}

void ap_models_text(FILE *f, const struct ap_corr_all *x)
{
	struct ap_corr_model m;

	/* one model: only when other interpreters ran beside it */
	if (x->n_models < 2 && (!x->n_models || x->a.n_run_objs < 2))
		return;
	fprintf(f, "\nmodels     %u in one process; runs by interpreter: %u seen\n", x->n_models,
		x->a.n_run_objs);
	for (uint32_t i = 0; i < x->n_models; i++) {
		ap_corr_model(x, i, &m);
		fprintf(f, "  %u %s\n", i + 1, TS(m.path));
		fprintf(f, "    arena  %s\n", TS(m.id->why));
		if (m.runs->obj >= 0)
			fprintf(f, "    runs   %s: interpreter 0x%" PRIx64 " (%s)\n",
				runs_text(m.runs, (char[128]){ 0 }, 128),
				x->a.run_objs[m.runs->obj].obj, runs_rule_text(x, m.runs));
		else
			fprintf(f, "    runs   %s (%s)\n", runs_text(m.runs, (char[128]){ 0 }, 128),
				runs_rule_text(x, m.runs));
		fprintf(f, "    pages  %" PRIu64 " of its arena first touched, %" PRIu64
			" named by its operators; %s\n", m.c->ft_pages,
			ap_corr_attributed(m.c, NULL),
			weights_text(m.weights, (char[160]){ 0 }, 160));
	}
}

static void json_runs(struct ap_json *j, const struct ap_corr_all *x,
		      const struct ap_model_runs *r)
{
	ap_json_u64(j, "runs", r->completed);
	ap_json_u64(j, "runs_begun", r->runs);
	ap_json_str(j, "runs_rule", ap_model_runs_rule_key(r->rule));
	if (r->obj >= 0)
		ap_json_u64(j, "interpreter", x->a.run_objs[r->obj].obj);
	else
		ap_json_null(j, "interpreter");
	if (r->completed) {
		ap_json_f64(j, "first_ms", ms(r->first_ns));
		ap_json_f64(j, "median_ms", ms(r->median_ns));
		ap_json_f64(j, "p99_ms", ms(r->p99_ns));
	} else {
		ap_json_null(j, "first_ms");
		ap_json_null(j, "median_ms");
		ap_json_null(j, "p99_ms");
	}
}

void ap_models_json(struct ap_json *j, const struct ap_corr_all *x)
{
	struct ap_corr_model m;

	if (!x->n_models)
		return;
	ap_json_arr(j, "models");
	for (uint32_t i = 0; i < x->n_models; i++) {
		ap_corr_model(x, i, &m);
		ap_json_obj(j, NULL);
		ap_json_str(j, "model", m.path);
		json_runs(j, x, m.runs);
		if (m.id->map >= 0 || (!i && x->no_arena))
			ap_json_bool(j, "plan_matches", !m.c->mismatch);
		else
			ap_json_null(j, "plan_matches");
		ap_json_u64(j, "arena_bytes", m.plan->arena_bytes);
		if (m.id->map >= 0)
			ap_json_u64(j, "arena_base", m.id->base);
		else
			ap_json_null(j, "arena_base");
		ap_json_str(j, "arena_rule_text", m.id->why);
		ap_json_u64(j, "first_touch_pages", m.c->ft_pages);
		ap_json_u64(j, "attributed_pages", ap_corr_attributed(m.c, NULL));
		ap_json_u64(j, "unplanned_pages", m.c->unplanned_pages);
		ap_json_str(j, "weights_held", ap_weights_held_key(m.weights->held));
		ap_json_u64(j, "weights_pages", m.weights->pages);
		ap_json_u64(j, "weights_copy_bytes", m.weights->copy_bytes);
		if (m.weights->held == AP_WH_COPY)
			ap_json_u64(j, "weights_copy_base", m.weights->copy_base);
		else
			ap_json_null(j, "weights_copy_base");
		ap_json_bool(j, "weights_copy_grown", m.weights->grown);
		ap_json_bool(j, "pretouched", m.c->pretouched);
		if (m.c->widest_op >= 0)
			ap_json_i64(j, "widest_op", m.c->widest_op);
		else
			ap_json_null(j, "widest_op");
		ap_json_u64(j, "widest_bytes", m.c->widest_bytes);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
}
