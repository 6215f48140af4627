// SPDX-License-Identifier: Apache-2.0
/*
 * plan_report_multi: what `arenaprof plan A.tflite B.tflite ...` prints: several models in
 * one process (plan_process.h). A short block per model, its headline figures as one
 * model's report gives them, then the process: the sums and the budget's verdict on them.
 * JSON: each model's whole plan object beside the sums; CSV: one tensor table.
 */
#include <inttypes.h>

#include "arenaprof/util/escape.h"
#include "arenaprof/util/json.h"
#include "arenaprof/util/units.h"
#include "arenaprof/render/plan_report.h"
#include "plan_report_priv.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[256]){ 0 }, 256)
#define SHORT(name) ap_pr_short_name((name), (char[64]){ 0 })

/* The delegate a model was planned with, and on the XNNPACK path what it took. */
static void text_delegate(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_xnn_plan *x = &s->xnn;

	if (!s->have_xnn) {
		fprintf(f, "            delegate none: the builtin kernels\n");
		return;
	}
	fprintf(f, "            delegate xnnpack, CPU %s (%s): %u of %u operators delegated, in "
		"%u partition%s\n", TS(x->cpu.name), ap_arch_name(ap_arch_resolve(x->cpu.arch)),
		x->delegated_ops, x->n_ops, x->n_parts, x->n_parts == 1 ? "" : "s");
}

/* The two halves of one model, with the parts of the non-reclaimable one. */
static void text_halves(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_xnn_plan *x = &s->xnn;

	fprintf(f, "  non-reclaimable %12s  ", B(ap_plan_set_anon_bytes(s)));
	if (s->have_xnn)
		fprintf(f, "TFLite arena %s, XNNPACK workspace %s,\n%32soperator buffers %s, "
			"packed weights %s\n", B(ap_plan_set_tflite_bytes(s)),
			B(x->workspace_bytes), "", B(x->scratch_bytes + x->other_bytes),
			B(x->packed_weights_bytes));
	else
		fprintf(f, "arena + persistent, every subgraph LiteRT plans\n");
	fprintf(f, "  reclaimable     %12s  file-backed weights the runtime keeps reading "
		"(mmap)\n", B(ap_plan_set_file_bytes(s)));
}

/* What of the model the plan leaves out, counted: the model's own report names it. */
static void text_gaps(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_shapes_report *r = &s->shapes;

	if (s->n_gaps || s->caller_gap.why)
		fprintf(f, "  not modelled: %u operator%s (plan %s alone names them)\n",
			s->n_gaps + !!s->caller_gap.why, s->n_gaps + !!s->caller_gap.why == 1 ?
			"" : "s", TS(s->plan.model));
	if (s->have_xnn && s->xnn.not_modelled[0])
		fprintf(f, "  not modelled: %s\n", TS(s->xnn.not_modelled));
	if (s->have_xnn && s->arena_not_modelled[0])
		fprintf(f, "  not modelled: %s\n", TS(s->arena_not_modelled));
	if (s->have_shapes && (r->refused_op >= 0 || r->first_unresolved >= 0))
		fprintf(f, "  shapes: not all inferred (plan %s alone says where)\n",
			TS(s->plan.model));
}

/*
 * The layer that decides the most of the model's plan, as its own report names it: on
 * the XNNPACK path the widest value of the workspace (the builtin plan's widest operator
 * is not what the delegated graph holds), with the builtin kernels the widest operator.
 */
static void text_widest(FILE *f, const char *indent, const struct ap_plan_set *s)
{
	const struct ap_tplan *p = &s->plan;
	int32_t w = s->have_xnn ? ap_pr_widest_part(&s->xnn) : s->prof.widest_op;

	if (w < 0)
		return;
	if (s->have_xnn) {
		const struct ap_xnn_part *x = &s->xnn.parts[w];

		fprintf(f, "%swidest XNNPACK value: %s, written by #%d %s in partition %d\n",
			indent, B(x->widest_value), x->widest_op,
			TS(ap_pr_op_name(p, x->widest_op)), w);
		return;
	}
	fprintf(f, "%swidest operator: #%d %s -> \"%s\": this layer requires %s minimum\n",
		indent, w, TS(ap_pr_op_name(p, w)), SHORT(ap_pr_out_name(p, w)),
		B(s->prof.lower_bound));
}

/* One model's block: what `plan MODEL` heads its report with. */
static void text_model(FILE *f, const struct ap_plan_set *s, uint32_t i)
{
	const struct ap_model *m = s->model;

	fprintf(f, "model %-5u %s\n", i + 1, TS(s->plan.model));
	fprintf(f, "            %s, %u subgraph%s, %u operators, planned for LiteRT on %s\n",
		B(m->file_size), m->n_subgraphs, m->n_subgraphs == 1 ? "" : "s", s->plan.n_ops,
		ap_arch_name(s->arch));
	text_delegate(f, s);
	text_halves(f, s);
	text_widest(f, "  ", s);
	text_gaps(f, s);
}

/* The largest model's share, and whether the others fit without it. */
static void text_decider(FILE *f, const struct ap_plan_set *sets,
			 const struct ap_plan_process *p, const struct ap_budget_verdict *v)
{
	const struct ap_plan_set *s = &sets[p->largest];

	fprintf(f, "  %s model %u, %s: %s of the non-reclaimable %s\n",
		v->anon_fits ? "the largest share:" : "decided most by", p->largest + 1,
		TS(s->plan.model), B(ap_plan_set_anon_bytes(s)), B(p->anon_bytes));
	text_widest(f, "    its ", s);
	if (v->anon_fits)
		return;
	if (p->n == 2)
		fprintf(f, "    without it the other model needs %s: %s\n",
			B(p->others_anon_bytes), p->others_anon_bytes <= v->budget ? "it fits" :
			"it is over the budget too");
	else
		fprintf(f, "    without it the other %u models need %s: %s\n", p->n - 1,
			B(p->others_anon_bytes), p->others_anon_bytes <= v->budget ?
			"they fit" : "they are over the budget too");
}

/* The process: the sums, and the budget's verdict on them. */
static void text_process(FILE *f, const struct ap_plan_set *sets,
			 const struct ap_plan_process *p)
{
	const struct ap_plan_set *big = &sets[p->largest];
	bool xnn = sets[0].have_xnn;
	struct ap_budget_verdict v;

	fprintf(f, "\nprocess     %u models, an interpreter each, allocated side by side: all "
		"held at once\n", p->n);
	fprintf(f, "non-reclaimable %12s  the models' sum: each one's TFLite arenas%s\n",
		B(p->anon_bytes), xnn ? " and its own XNNPACK\n                              "
		"delegate (a workspace each, buffers, packed weights)" : "");
	fprintf(f, "reclaimable     %12s  the models' file-backed weights (mmap)\n",
		B(p->file_bytes));
	fprintf(f, "largest     model %u, %s non-reclaimable: %s\n", p->largest + 1,
		B(ap_plan_set_anon_bytes(big)), TS(big->plan.model));
	if (!sets[0].have_budget)
		return;
	ap_budget_judge(sets[0].budget, p->anon_bytes, p->file_bytes, &v);
	ap_pr_text_verdict(f, &v, "the models' memory alone (the runtime's code, heap and "
			   "stacks are not in it)", xnn ? "non-reclaimable + file-backed weights" :
			   "arenas + persistent + weights", xnn ?
			   "the models' non-reclaimable memory alone" : "the models' arenas alone");
	if (!v.anon_fits)
		ap_pr_text_would_fit(f, &v);
	text_decider(f, sets, p, &v);
	if (v.anon_fits)
		ap_pr_text_cgroup(f, &v, "for the models alone, not yet for the process "
				  "(its runtime's code, heap and stacks come on top)");
}

bool ap_plan_multi_fits(const struct ap_plan_set *sets, const struct ap_plan_process *p)
{
	return !sets[0].have_budget || p->anon_bytes <= sets[0].budget;
}

void ap_plan_print_multi_text(FILE *f, const struct ap_plan_set *sets,
			      const struct ap_plan_process *p)
{
	for (uint32_t i = 0; i < p->n; i++) {
		if (i)
			fputc('\n', f);
		text_model(f, &sets[i], i);
	}
	text_process(f, sets, p);
}

void ap_plan_print_multi_json(FILE *f, const struct ap_plan_set *sets,
			      const struct ap_plan_process *p)
{
	struct ap_json j;

	ap_json_init(&j, f);
	ap_json_obj(&j, NULL);
	ap_json_u64(&j, "schema_version", AP_PLAN_SCHEMA);
	ap_json_arr(&j, "models");
	for (uint32_t i = 0; i < p->n; i++)
		ap_pr_json_plan(&j, &sets[i]);
	ap_json_end_arr(&j);
	ap_json_u64(&j, "anonymous_bytes", p->anon_bytes);
	ap_json_u64(&j, "weights_bytes", p->file_bytes);
	ap_json_u64(&j, "total_bytes", p->total_bytes);
	ap_json_u64(&j, "largest_model", p->largest);
	if (sets[0].have_budget) {
		struct ap_budget_verdict v;

		ap_budget_judge(sets[0].budget, p->anon_bytes, p->file_bytes, &v);
		ap_json_obj(&j, "verdict");
		ap_pr_json_verdict(&j, &v);
		ap_json_u64(&j, "decided_by", p->largest);
		ap_json_end_obj(&j);
	}
	ap_json_end_obj(&j);
	ap_json_finish(&j);
}

void ap_plan_print_multi_csv(FILE *f, const struct ap_plan_set *sets,
			     const struct ap_plan_process *p)
{
	fputs("model," AP_PR_CSV_HEADER "\n", f);
	for (uint32_t i = 0; i < p->n; i++)
		ap_pr_csv_rows(f, &sets[i].plan, sets[i].plan.model);
}
