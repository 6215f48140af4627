// SPDX-License-Identifier: Apache-2.0
/* plan_report: what `arenaprof plan` prints. No figure is computed here twice. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/escape.h"
#include "arenaprof/util/json.h"
#include "arenaprof/render/plan_report.h"
#include "arenaprof/util/units.h"
#include "plan_report_priv.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)

const char *ap_pr_op_name(const struct ap_tplan *p, int32_t i)
{
	return i >= 0 && (uint32_t)i < p->n_ops && p->ops[i].opname[0] ?
	       p->ops[i].opname : "?";
}

const char *ap_pr_out_name(const struct ap_tplan *p, int32_t i)
{
	return i >= 0 && (uint32_t)i < p->n_ops ? p->ops[i].out_name : "";
}

/* A tensor name for a terminal (plan_report_priv.h). */
const char *ap_pr_short_name(const char *name, char *buf)
{
	size_t n = strcspn(name, ";"), k;

	for (k = 0; k < n && k < 63; k++)
		buf[k] = (unsigned char)name[k] < 0x20 || name[k] == 0x7f ? '?' : name[k];
	buf[k] = '\0';
	if (n > 63)
		memcpy(buf + 60, "...", 4);
	return buf;
}

#define SHORT(name) ap_pr_short_name((name), (char[64]){ 0 })
/* a model's and a path's text, safe for a terminal (util/escape.h) */
#define TS(s) ap_text_safe((s), (char[256]){ 0 }, 256)

static void print_last(FILE *f, int32_t last)
{
	if (last == AP_LAST_END)
		fputs("end", f);
	else
		fprintf(f, "%d", last);
}

/* The process's non-reclaimable need: the model's, and with --baseline the runtime's. */
static uint64_t need_anon(const struct ap_plan_set *s)
{
	return ap_plan_set_anon_bytes(s) + (s->have_baseline ? s->baseline.runtime_anon : 0);
}

/* The shown subgraph's arenas, and those of every other subgraph LiteRT plans: theirs
 * are heap blocks of their own, allocated with it (at most: CALL_ONCE releases its init
 * subgraph's normal arena after its first run). With --baseline, the runtime's too. */
bool ap_plan_fits(const struct ap_plan_set *s)
{
	return !s->have_budget || need_anon(s) <= s->budget;
}

/* The budget's two halves for one model. */
static void judge(const struct ap_plan_set *s, struct ap_budget_verdict *v)
{
	ap_budget_judge(s->budget, ap_plan_set_anon_bytes(s), ap_plan_set_file_bytes(s), v);
	v->weights_copy = s->weights_copy;
}

/* The process: the model's halves and the runtime's measured cost (--baseline); memory.min
 * protects all it is known to need: both, and the file pages the runtime read. */
static void judge_process(const struct ap_plan_set *s, struct ap_budget_verdict *v)
{
	const struct ap_budget_baseline *b = &s->baseline;

	ap_budget_judge(s->budget, need_anon(s), ap_plan_set_file_bytes(s) + b->runtime_file,
			v);
	ap_budget_protect(v, v->total);
	v->weights_copy = s->weights_copy;
}

void ap_pr_text_verdict(FILE *f, const struct ap_budget_verdict *v, const char *whose,
			const char *sum, const char *alone)
{
	fprintf(f, "\nbudget %s, %s:\n", B(v->budget), whose);
	if (v->fits)
		fprintf(f, "  fits: %s = %s, %s to spare\n", sum, B(v->total),
			B(v->budget - v->total));
	else if (v->anon_fits)
		fprintf(f, "  fits only by paging weights out: needs %s with weights resident, "
			"%s over; %s (%s) fits, so reclaim will re-read "
			"weights from the file on every run (thrashing)\n",
			B(v->total), B(v->total - v->budget), alone, B(v->anon));
	else
		fprintf(f, "  does not fit: %s needs %s, %s over the budget "
			"(with weights %s)\n", alone, B(v->anon), B(v->anon - v->budget),
			B(v->total));
}

void ap_pr_text_cgroup(FILE *f, const struct ap_budget_verdict *v, const char *scope)
{
	fprintf(f, "  cgroup v2 settings %s:\n", scope);
	fprintf(f, "    memory.max  = %" PRIu64 "   (%s: the hard limit, OOM kill above)\n",
		v->budget, B(v->budget));
	fprintf(f, "    memory.high = %" PRIu64 "   (%s, %s: a tripwire that throttles "
		"and reclaims before the OOM killer)\n", v->high, B(v->high),
		v->high_raised ? "the non-reclaimable need, above 95%" : "95%");
	fprintf(f, "    memory.min  = %" PRIu64 "   (%s: %s%s, kept from reclaim)\n", v->min,
		B(v->min), v->min_clamped ? "as much as memory.high allows of " : "",
		v->min_need ? "the process's known need, non-reclaimable and file pages" :
		v->weights_copy ? "no mapped weights: the copy is anonymous, protecting nothing "
		"memory.max does not already hold" : "the mapped weights");
}

void ap_pr_text_would_fit(FILE *f, const struct ap_budget_verdict *v)
{
	fprintf(f, "  would fit: a budget of at least %s (%s with its file-backed pages "
		"resident); no cgroup settings for this one, any limit under that is an OOM "
		"kill\n", B(v->needed), B(v->total));
}

/* The layer to shrink: on the default path the operator XNNPACK holds the most for, with
 * the builtin kernels the widest operator (the arena's floor). */
void ap_pr_text_shrink(FILE *f, const char *indent, const struct ap_plan_set *s)
{
	const struct ap_tplan *p = &s->plan;
	int32_t w = -1;
	uint64_t most = 0;

	for (uint32_t k = 0; s->have_xnn && k < s->xnn.n_ops; k++) {
		const struct ap_xnn_op *o = &s->xnn.ops[k];

		if (o->delegated && o->packed_bytes + o->private_bytes > most) {
			most = o->packed_bytes + o->private_bytes;
			w = (int32_t)k;
		}
	}
	if (w >= 0) {
		fprintf(f, "%sor shrink #%d %s \"%s\": XNNPACK holds the most for it, %s "
			"(packed weights %s)\n", indent, w, TS(ap_pr_op_name(p, w)),
			SHORT(ap_pr_out_name(p, w)), B(most), B(s->xnn.ops[w].packed_bytes));
		return;
	}
	w = s->prof.widest_op;
	if (w >= 0)
		fprintf(f, "%sor shrink #%d %s \"%s\": the widest layer, %s live (the arena's "
			"floor)\n", indent, w, TS(ap_pr_op_name(p, w)),
			SHORT(ap_pr_out_name(p, w)), B(s->prof.lower_bound));
}

/* --baseline: the process, the model's halves and the runtime measured in a trace. */
static void print_process(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_budget_baseline *b = &s->baseline;
	struct ap_budget_verdict v;

	judge_process(s, &v);
	fprintf(f, "\nruntime    measured in %s: the process's non-reclaimable %s (%s), peak "
		"%s (%s); beyond this model's planned halves the runtime's own %s "
		"non-reclaimable (heap, stacks, its buffers) and %s reclaimable (code, "
		"files)\n", TS(b->trace), B(b->measured_nonreclaimable), b->nonrecl_text,
		B(b->measured_peak), b->peak_text, B(b->runtime_anon), B(b->runtime_file));
	if (b->other_model)
		fprintf(f, "           (the trace ran %s, not this model: its runtime cost is "
			"taken as the same)\n", TS(b->other_model));
	ap_pr_text_verdict(f, &v, "the process: this model and the runtime measured",
			   "non-reclaimable + file-backed (weights, code)",
			   "the non-reclaimable memory (the model's and the runtime's)");
	if (!v.anon_fits) {
		ap_pr_text_would_fit(f, &v);
		ap_pr_text_shrink(f, "  ", s);
		return;
	}
	ap_pr_text_cgroup(f, &v, "for the process (never below its known non-reclaimable "
			  "need)");
}

static void print_budget(FILE *f, const struct ap_plan_set *s)
{
	struct ap_budget_verdict v;

	judge(s, &v);
	/* the builtin path's words, or the default path's two halves */
	ap_pr_text_verdict(f, &v, "the model's memory alone (its runtime's code, heap and "
			   "stacks are not in it)", s->have_xnn ?
			   "non-reclaimable + file-backed weights" :
			   "arena + persistent + weights", s->have_xnn ?
			   "the non-reclaimable memory alone" : "the arena alone");
	if (!v.anon_fits) {
		ap_pr_text_would_fit(f, &v);
		ap_pr_text_shrink(f, "  ", s);
	} else if (!s->have_baseline) {
		fprintf(f, "  the process needs more: its runtime's code, heap and stacks "
			"(--baseline TRACE measures them)\n");
		ap_pr_text_cgroup(f, &v, "for the model alone, not yet for the process");
	}
	if (s->have_baseline)
		print_process(f, s);
}

static void print_live(FILE *f, const struct ap_tplan *p, int32_t op)
{
	int32_t *live;
	int n = ap_profile_live(p, op, &live);

	for (int k = 0; k < n; k++) {
		const struct ap_ptensor *t = &p->t[live[k]];

		fprintf(f, "    %5d %-8s %12s  [%d, ", t->index, ap_kind_name(t->kind),
			B(t->bytes), t->first);
		print_last(f, t->last);
		fprintf(f, "]  %s\n", SHORT(t->name));
	}
	free(live);
}

/* Every subgraph: who runs it, when LiteRT plans it, and its arenas. */
static void print_subgraphs(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_model *m = s->model;

	fprintf(f, "            each subgraph has arenas of its own (heap blocks apart):\n");
	for (uint32_t i = 0; i < m->n_subgraphs; i++) {
		const struct ap_sg_plan *sp = &s->sgs[i];
		char caller[48] = "";

		if (i && sp->info.role != AP_SG_UNCALLED)
			snprintf(caller, sizeof(caller), " of #%u in subgraph %u", sp->info.node,
				 sp->info.caller);
		fprintf(f, "            %c%-3u %-14s %s%s, %s%s", i == s->subgraph ? '*' : ' ',
			i, SHORT(m->subgraphs[i].name ? m->subgraphs[i].name : ""),
			ap_sg_role_name(sp->info.role), caller,
			sp->planned ? "planned at " : "not planned",
			sp->planned ? ap_sg_planned_at(&sp->info) : "");
		if (sp->planned)
			fprintf(f, ": arena %s, persistent %s%s\n", B(sp->arena_bytes),
				B(sp->persistent_bytes), sp->n_gaps ? ", not all modelled" : "");
		else
			fprintf(f, "%s%s\n", ap_sg_not_modelled(sp->info.role) ? ": " : "",
				ap_sg_not_modelled(sp->info.role) ?
				ap_sg_not_modelled(sp->info.role) : "");
	}
}

static const char *dims_text(const int32_t *d, uint32_t rank, char *buf, size_t n)
{
	size_t at = 0;

	buf[at++] = '[';
	for (uint32_t k = 0; k < rank && at + 14 < n; k++)
		at += (size_t)snprintf(buf + at, n - at, "%s%d", k ? "," : "", d[k]);
	snprintf(buf + at, n - at, "]");
	return buf;
}

/* Shapes the file leaves open (signature -1): what inference gave them (shapes.h). */
static void print_shapes(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_shapes_report *r = &s->shapes;
	const struct ap_model_subgraph *sg = &s->model->subgraphs[0];
	char a[128], b[128];

	if (!s->have_shapes || (!r->open && r->refused_op < 0))
		return;
	fprintf(f, "            shapes: %u tensor%s of subgraph 0 %s an unknown dimension in the "
		"file;\n            %u inferred from the input shapes and shape-giving values, %u "
		"unlike the file's\n", r->open, r->open == 1 ? "" : "s",
		r->open == 1 ? "has" : "have", r->resolved, r->changed);
	for (uint32_t k = 0; k < sg->n_inputs; k++) {
		const struct ap_model_tensor *t;

		if (sg->inputs[k] < 0 || (uint32_t)sg->inputs[k] >= sg->n_tensors)
			continue;
		t = &sg->tensors[sg->inputs[k]];
		if (ap_model_tensor_open(t))
			fprintf(f, "            input %u \"%s\" planned at %s (signature %s; "
				"--input-shape %u=D,D,... sets it)\n", k, TS(t->name),
				dims_text(t->shape, t->rank, a, sizeof(a)),
				dims_text(t->shape_signature, t->sig_rank, b, sizeof(b)), k);
	}
	if (r->refused_op >= 0)
		fprintf(f, "            refused: LiteRT's Prepare of #%d %s fails on these shapes: "
			"allocate_tensors, or the invoke that reaches it, stops there\n",
			r->refused_op, TS(ap_pr_op_name(&s->plan, r->refused_op)));
	if (r->first_unresolved >= 0)
		fprintf(f, "            not inferred: \"%s\"%s%s keeps the file's shape, and the "
			"shapes after it too\n", TS(sg->tensors[r->first_unresolved].name),
			r->first_unresolved_op >= 0 ? ", written by " : "",
			r->first_unresolved_op >= 0 ?
			TS(ap_pr_op_name(&s->plan, r->first_unresolved_op)) : "");
}

/* The steps LiteRT plans the graph in when dynamic outputs split it. */
static void print_split(FILE *f, const struct ap_plan_set *s)
{
	if (!s->n_split)
		return;
	fprintf(f, "            planned by LiteRT in %u steps: nodes 0-%d by allocate_tensors, the "
		"rest\n            by the first invoke, a step after each dynamic output or output "
		"shape not known:",
		s->n_split + 1, s->split_after[0]);
	for (uint32_t i = 0; i < s->n_split; i++)
		fprintf(f, " #%d %s", s->split_after[i],
			TS(ap_pr_op_name(&s->plan, s->split_after[i])));
	fputc('\n', f);
}

/* The operators whose LiteRT kernel the plan does not model, one line per operator. */
static void print_gaps(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_caller_gap *c = &s->caller_gap;

	if (c->why)
		fprintf(f, "\nnot modelled: this subgraph runs under #%u %s in subgraph %u, which "
			"LiteRT runs otherwise:\n  %s;\n  its plan here is from the model's "
			"shapes, LiteRT's may differ\n", c->node, TS(c->opcode ? c->opcode : ""),
			c->subgraph, c->why);
	if (!s->n_gaps)
		return;
	fprintf(f, "\nnot modelled: %u operator%s whose LiteRT kernel changes the plan in a way "
		"arenaprof leaves out;\n  the plan around them may not be LiteRT's:\n",
		s->n_gaps, s->n_gaps == 1 ? "" : "s");
	for (uint32_t i = 0; i < s->n_gaps; i++)
		fprintf(f, "  #%-4u %-22s %s\n", s->gaps[i].node,
			TS(ap_pr_op_name(&s->plan, (int32_t)s->gaps[i].node)), s->gaps[i].why);
}

void ap_plan_print_text(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_tplan *p = &s->plan;
	const struct ap_profile *pr = &s->prof;
	const struct ap_model *m = s->model;
	uint64_t lb = pr->lower_bound;

	fprintf(f, "model       %s\n", TS(p->model));
	if (m) {
		fprintf(f, "            %s, schema version %u, %u subgraph%s\n",
			B(m->file_size), m->version, m->n_subgraphs,
			m->n_subgraphs == 1 ? "" : "s");
		if (s->sgs && m->n_subgraphs > 1)
			print_subgraphs(f, s);
		if (m->offline_offsets)
			fprintf(f, "            carries an offline plan (OfflineMemoryAllocation, "
				"%u offsets): TFLM honours it, LiteRT does not\n",
				m->n_offline_offsets);
	}
	if (m && s->have_tflm)
		fprintf(f, "            planned for %s\n            every subgraph in one "
			"arena: %u buffers, %u of them scratch (%s)\n", s->runtime->what,
			s->tflm.n_buffers, s->tflm.n_scratch, B(s->tflm.scratch_bytes));
	else if (m && m->n_subgraphs > 1)
		fprintf(f, "            shown: subgraph %u\n", s->subgraph);
	if (m && !s->have_tflm)
		fprintf(f, "            planned for LiteRT on %s%s%s\n", ap_arch_name(s->arch),
			s->runtime ? ", as " : "", s->runtime ? s->runtime->what : "");
	fprintf(f, "            %u operators, %u tensors%s\n", p->n_ops, p->n,
		s->as_float32 ? ", planned as if every activation were float32" : "");
	ap_pr_text_xnn_head(f, s);
	print_split(f, s);
	if (m)
		print_shapes(f, s);
	print_gaps(f, s);
	ap_pr_text_xnn(f, s);
	if (s->weights_copy)
		fprintf(f, "\nweights     %12s  copied into memory of the runtime's (--weights "
			"copy): anonymous, never reclaimable without swap; memory.min has no file "
			"pages of them to protect\n", B(p->weights_bytes));
	else
		fprintf(f, "\nweights     %12s  read-only, file-backed (mmap): reclaimable\n",
			B(p->weights_bytes));
	fprintf(f, "arena       %12s  %s plan: anonymous, never reclaimable without swap\n",
		B(p->arena_bytes), p->strategy);
	if (s->have_tflm)	/* docs/runtimes.md, "Not modelled for TFLite Micro" */
		fprintf(f, "persistent  not planned: TFLite Micro's tail (its objects, eval "
			"tensors, kernels' OpData, variables)\n");
	else
		fprintf(f, "persistent  %12s  variables and kernel state: anonymous, never "
			"reclaimable\n", B(p->persistent_bytes));

	fprintf(f, "\n%-16s %14s %12s  %s\n", "strategy", "arena bytes", "", "lower bound / arena");
	if (s->have_strategies) {
		for (int i = 0; i < AP_STRAT_COUNT; i++) {
			uint64_t b = s->strat_bytes[i];

			uint64_t own = s->strat_lb[i];

			fprintf(f, "%-16s %14" PRIu64 " %12s  %.1f%%%s\n", ap_strategy_name(i),
				b, B(b), b ? 100.0 * (double)own / (double)b : 100.0,
				!strcmp(ap_strategy_name(i), p->strategy) ? "  (shown)" : "");
		}
	} else {
		fprintf(f, "%-16s %14" PRIu64 " %12s  %.1f%%\n", p->strategy, p->arena_bytes,
			B(p->arena_bytes), p->arena_bytes ?
			100.0 * (double)lb / (double)p->arena_bytes : 100.0);
	}
	fprintf(f, "%-16s %14" PRIu64 " %12s  (largest operator breadth)\n", "lower bound",
		lb, B(lb));
	if (s->have_strategies && s->strat_lb[AP_STRAT_MICRO] != s->strat_lb[AP_STRAT_TFLITE])
		fprintf(f, "%-16s %14" PRIu64 " %12s  (TFLM lifetimes free inputs early)\n",
			"  (micro)", s->strat_lb[AP_STRAT_MICRO],
			B(s->strat_lb[AP_STRAT_MICRO]));

	if (pr->widest_op >= 0) {
		uint32_t *rank = ap_profile_rank(pr);
		unsigned top = s->top < pr->n_ops ? s->top : pr->n_ops;

		fprintf(f, "\nwidest operator: #%d %s -> \"%s\": this layer requires %s minimum\n",
			pr->widest_op, TS(ap_pr_op_name(p, pr->widest_op)),
			SHORT(ap_pr_out_name(p, pr->widest_op)), B(lb));
		fprintf(f, "  live tensors at #%d (index, kind, bytes, [first, last], name):\n",
			pr->widest_op);
		print_live(f, p, pr->widest_op);
		if (rank && top) {
			fprintf(f, "\ntop %u widest operators:\n", top);
			for (unsigned k = 0; k < top; k++)
				fprintf(f, "  #%-4u %-22s %12s  %s\n", rank[k],
					TS(ap_pr_op_name(p, (int32_t)rank[k])),
					B(pr->breadth[rank[k]]),
					SHORT(ap_pr_out_name(p, (int32_t)rank[k])));
		}
		free(rank);
	}
	if (s->have_budget)
		print_budget(f, s);
}

/* JSON keys use underscores: greedy_size. buf holds 32 bytes. */
static const char *strategy_key(int i, char *buf)
{
	snprintf(buf, 32, "%s", ap_strategy_name((enum ap_strategy)i));
	for (char *c = buf; *c; c++)
		if (*c == '-')
			*c = '_';
	return buf;
}

/* the widest operator: its breadth and the tensors live while it runs */
static void json_widest(struct ap_json *j, const struct ap_tplan *p, const struct ap_profile *pr)
{
	int32_t *live;
	int n;

	if (pr->widest_op < 0) {
		ap_json_null(j, "widest_op");
		return;
	}
	n = ap_profile_live(p, pr->widest_op, &live);
	ap_json_obj(j, "widest_op");
	ap_json_i64(j, "index", pr->widest_op);
	ap_json_str(j, "opcode", ap_pr_op_name(p, pr->widest_op));
	ap_json_str(j, "output", ap_pr_out_name(p, pr->widest_op));
	ap_json_u64(j, "breadth_bytes", pr->lower_bound);
	ap_json_arr(j, "live_tensors");
	for (int k = 0; k < n; k++)
		ap_json_i64(j, NULL, p->t[live[k]].index);
	ap_json_end_arr(j);
	ap_json_end_obj(j);
	free(live);
}

void ap_pr_json_verdict(struct ap_json *j, const struct ap_budget_verdict *v)
{
	ap_json_u64(j, "budget_bytes", v->budget);
	ap_json_bool(j, "fits", v->fits);
	ap_json_bool(j, "arena_fits", v->anon_fits);	/* the anonymous half */
	ap_json_i64(j, "margin_bytes", v->margin);
	ap_json_u64(j, "needed_bytes", v->needed);
	ap_json_u64(j, "memory_max", v->budget);
	ap_json_u64(j, "memory_high", v->high);
	ap_json_u64(j, "memory_min", v->min);
}

/* --baseline: the runtime measured and the process's verdict, in "budget". */
static void json_baseline(struct ap_json *j, const struct ap_plan_set *s)
{
	const struct ap_budget_baseline *b = &s->baseline;
	struct ap_budget_verdict v;

	if (!s->have_baseline) {
		ap_json_null(j, "process");
		return;
	}
	judge_process(s, &v);
	ap_json_obj(j, "process");
	ap_json_str(j, "baseline", b->trace);
	ap_json_u64(j, "measured_peak_bytes", b->measured_peak);
	ap_json_str(j, "peak_source", b->peak_key);
	ap_json_u64(j, "measured_nonreclaimable_bytes", b->measured_nonreclaimable);
	ap_json_str(j, "nonreclaimable_source", b->nonrecl_key);
	ap_json_u64(j, "runtime_nonreclaimable_bytes", b->runtime_anon);
	ap_json_u64(j, "runtime_reclaimable_bytes", b->runtime_file);
	if (b->other_model)
		ap_json_str(j, "other_model", b->other_model);
	else
		ap_json_null(j, "other_model");
	ap_json_u64(j, "nonreclaimable_bytes", v.anon);
	ap_json_u64(j, "reclaimable_bytes", v.file);
	ap_pr_json_verdict(j, &v);
	ap_json_end_obj(j);
}

/* every strategy's arena and lower bound, and the budget's verdict when one was given */
static void json_strategies(struct ap_json *j, const struct ap_plan_set *s)
{
	const struct ap_tplan *p = &s->plan;

	ap_json_obj(j, "strategies");
	if (s->have_strategies) {
		for (int i = 0; i < AP_STRAT_COUNT; i++)
			ap_json_u64(j, strategy_key(i, (char[32]){ 0 }), s->strat_bytes[i]);
	} else {
		ap_json_u64(j, p->strategy, p->arena_bytes);
	}
	ap_json_end_obj(j);
	if (s->have_strategies) {
		ap_json_obj(j, "strategy_lower_bounds");
		for (int i = 0; i < AP_STRAT_COUNT; i++)
			ap_json_u64(j, strategy_key(i, (char[32]){ 0 }), s->strat_lb[i]);
		ap_json_end_obj(j);
	}
	if (s->have_budget) {
		struct ap_budget_verdict v;

		judge(s, &v);
		ap_json_obj(j, "budget");
		ap_json_str(j, "scope", "model");
		ap_pr_json_verdict(j, &v);
		json_baseline(j, s);
		ap_json_end_obj(j);
	}
}

static void json_tensors(struct ap_json *j, const struct ap_tplan *p)
{
	ap_json_arr(j, "tensor_plan");
	for (uint32_t i = 0; i < p->n; i++) {
		const struct ap_ptensor *t = &p->t[i];

		ap_json_obj(j, NULL);
		ap_json_i64(j, "index", t->index);
		ap_json_str(j, "name", t->name);
		ap_json_u64(j, "bytes", t->bytes);
		ap_json_i64(j, "first_node", t->first);
		if (t->last == AP_LAST_END)
			ap_json_str(j, "last_node", "end");
		else
			ap_json_i64(j, "last_node", t->last);
		ap_json_i64(j, "offset", t->offset);
		ap_json_str(j, "kind", ap_kind_name(t->kind));
		if (t->share_root >= 0)
			ap_json_i64(j, "shares", t->share_root);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
}

/* what the plan leaves out: its operators not modelled, and its caller's */
static void json_gaps(struct ap_json *j, const struct ap_plan_set *s)
{
	const struct ap_tplan *p = &s->plan;

	ap_json_arr(j, "not_modelled");
	for (uint32_t i = 0; i < s->n_gaps; i++) {
		ap_json_obj(j, NULL);
		ap_json_u64(j, "index", s->gaps[i].node);
		ap_json_str(j, "opcode", ap_pr_op_name(p, (int32_t)s->gaps[i].node));
		ap_json_str(j, "reason", s->gaps[i].why);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	if (s->caller_gap.why) {
		ap_json_obj(j, "caller_not_modelled");
		ap_json_u64(j, "subgraph", s->caller_gap.subgraph);
		ap_json_u64(j, "index", s->caller_gap.node);
		ap_json_str(j, "opcode", s->caller_gap.opcode ? s->caller_gap.opcode : "");
		ap_json_str(j, "reason", s->caller_gap.why);
		ap_json_end_obj(j);
	}
}

static void json_index_or_null(struct ap_json *j, const char *key, int64_t v)
{
	if (v >= 0)
		ap_json_i64(j, key, v);
	else
		ap_json_null(j, key);
}

static void json_shapes(struct ap_json *j, const struct ap_plan_set *s)
{
	const struct ap_shapes_report *r = &s->shapes;

	ap_json_obj(j, "shapes");
	ap_json_u64(j, "open", r->open);
	ap_json_u64(j, "inferred", r->resolved);
	ap_json_u64(j, "changed", r->changed);
	ap_json_u64(j, "input_shapes_given", s->n_input_shapes);
	json_index_or_null(j, "unresolved_tensor", r->first_unresolved);
	json_index_or_null(j, "unresolved_node", r->first_unresolved_op);
	json_index_or_null(j, "refused_node", r->refused_op);
	ap_json_end_obj(j);
}

static void json_subgraphs(struct ap_json *j, const struct ap_plan_set *s)
{
	ap_json_arr(j, "subgraph_plans");
	for (uint32_t i = 0; i < s->model->n_subgraphs; i++) {
		const struct ap_sg_plan *sp = &s->sgs[i];
		const char *why = ap_sg_not_modelled(sp->info.role);

		ap_json_obj(j, NULL);
		ap_json_u64(j, "index", i);
		ap_json_str(j, "name", s->model->subgraphs[i].name ?
			    s->model->subgraphs[i].name : "");
		ap_json_str(j, "role", ap_sg_role_name(sp->info.role));
		if (i && sp->info.role != AP_SG_UNCALLED) {
			ap_json_u64(j, "caller_subgraph", sp->info.caller);
			ap_json_u64(j, "caller_node", sp->info.node);
		}
		ap_json_str(j, "planned_at", ap_sg_planned_at(&sp->info));
		if (sp->planned) {
			ap_json_u64(j, "arena_bytes", sp->arena_bytes);
			ap_json_u64(j, "persistent_bytes", sp->persistent_bytes);
			ap_json_u64(j, "not_modelled", sp->n_gaps);
		}
		if (why)
			ap_json_str(j, "reason", why);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
}

static void json_ops(struct ap_json *j, const struct ap_plan_set *s)
{
	const struct ap_tplan *p = &s->plan;
	const struct ap_profile *pr = &s->prof;

	ap_json_arr(j, "ops");
	for (uint32_t i = 0; i < pr->n_ops; i++) {
		ap_json_obj(j, NULL);
		ap_json_u64(j, "index", i);
		ap_json_str(j, "opcode", ap_pr_op_name(p, (int32_t)i));
		ap_json_str(j, "output", ap_pr_out_name(p, (int32_t)i));
		ap_json_u64(j, "breadth_bytes", pr->breadth[i]);
		ap_pr_json_op_xnn(j, s, i);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
}

/* The figures before the lists: what was planned, for which CPU, and its sizes. */
static void json_summary(struct ap_json *j, const struct ap_plan_set *s)
{
	const struct ap_tplan *p = &s->plan;

	ap_json_u64(j, "schema_version", AP_PLAN_SCHEMA);
	ap_json_str(j, "model", p->model);
	ap_json_str(j, "strategy", p->strategy);
	if (s->model) {
		ap_json_u64(j, "subgraphs", s->model->n_subgraphs);
		ap_json_u64(j, "subgraph", s->subgraph);
		ap_json_str(j, "arch", ap_arch_name(s->arch));
		ap_json_str(j, "runtime", s->runtime ? s->runtime->name : "litert");
	}
	ap_json_u64(j, "operators", p->n_ops);
	ap_json_u64(j, "tensors", p->n);
	ap_json_bool(j, "as_float32", s->as_float32);
	ap_json_u64(j, "weights_bytes", p->weights_bytes);
	ap_json_str(j, "weights_held", s->weights_copy ? "copy" : "mmap");
	ap_json_u64(j, "naive_bytes", s->naive_bytes);
	ap_json_u64(j, "arena_bytes", p->arena_bytes);
	ap_json_u64(j, "persistent_bytes", p->persistent_bytes);
	if (s->runtime) {	/* the buffers the runtime allocates for the two arenas */
		ap_json_u64(j, "arena_buffer_bytes",
			    p->arena_bytes + s->runtime->arena_buffer_padding);
		ap_json_u64(j, "persistent_buffer_bytes",
			    p->persistent_bytes + s->runtime->arena_buffer_padding);
	}
	ap_json_u64(j, "lower_bound_bytes", s->prof.lower_bound);
	if (s->have_tflm) {	/* TFLite Micro's one arena: arena_bytes is its head */
		ap_json_obj(j, "tflm");
		ap_json_u64(j, "head_bytes", s->tflm.head_bytes);
		ap_json_u64(j, "buffers", s->tflm.n_buffers);
		ap_json_u64(j, "scratch_buffers", s->tflm.n_scratch);
		ap_json_u64(j, "scratch_bytes", s->tflm.scratch_bytes);
		ap_json_end_obj(j);
	}
}

static void json_split(struct ap_json *j, const struct ap_plan_set *s)
{
	ap_json_arr(j, "split_after");
	for (uint32_t i = 0; i < s->n_split; i++)
		ap_json_i64(j, NULL, s->split_after[i]);
	ap_json_end_arr(j);
}

void ap_pr_json_plan(struct ap_json *j, const struct ap_plan_set *s)
{
	ap_json_obj(j, NULL);
	json_summary(j, s);
	ap_pr_json_xnn(j, s);
	json_widest(j, &s->plan, &s->prof);
	json_strategies(j, s);
	json_tensors(j, &s->plan);
	if (s->model)
		json_gaps(j, s);
	if (s->have_shapes)
		json_shapes(j, s);
	if (s->model)
		json_split(j, s);
	if (s->sgs)
		json_subgraphs(j, s);
	json_ops(j, s);
	ap_json_end_obj(j);
}

void ap_plan_print_json(FILE *f, const struct ap_plan_set *s)
{
	struct ap_json j;

	ap_json_init(&j, f);
	ap_pr_json_plan(&j, s);
	ap_json_finish(&j);
}

/* RFC 4180: quote a field holding a comma, quote or newline. */
static void csv_field(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

void ap_pr_csv_rows(FILE *f, const struct ap_tplan *p, const char *model)
{
	for (uint32_t i = 0; i < p->n; i++) {
		const struct ap_ptensor *t = &p->t[i];

		if (model) {
			csv_field(f, model);
			fputc(',', f);
		}
		fprintf(f, "%d,", t->index);
		csv_field(f, t->name);
		fprintf(f, ",%" PRId64 ",%" PRIu64 ",%d,", t->offset, t->bytes, t->first);
		print_last(f, t->last);
		fprintf(f, ",%s,", ap_kind_name(t->kind));
		if (t->share_root >= 0)
			fprintf(f, "%d", t->share_root);
		fputc('\n', f);
	}
}

void ap_plan_print_csv(FILE *f, const struct ap_tplan *p)
{
	fputs(AP_PR_CSV_HEADER "\n", f);
	ap_pr_csv_rows(f, p, NULL);
}
