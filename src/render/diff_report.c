// SPDX-License-Identifier: Apache-2.0
/* diff_report: two plans or traces side by side, and the gate (diff_report.h). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>

#include "arenaprof/render/diff_report.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/json.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)
#define MAX_OP_ROWS 10	/* text: the operators whose breadth changed most */

void ap_diff_judge(const struct ap_diff_side *o, const struct ap_diff_side *n,
		   struct ap_diff_gate *g)
{
	g->arena_over = g->on && ap_diff_pct(o->arena, n->arena) > g->pct;
	g->peak_over = g->on && ap_diff_pct(o->peak, n->peak) > g->pct;
}

static const char *pct_text(uint64_t o, uint64_t n, char *buf, size_t len)
{
	double p = ap_diff_pct(o, n);

	if (isinf(p))
		snprintf(buf, len, "new");
	else
		snprintf(buf, len, "%+.1f %%", p);
	return buf;
}

static void row(FILE *f, const char *what, uint64_t o, uint64_t n)
{
	char p[32];

	fprintf(f, "  %-22s %12s %12s %10s\n", what, B(o), B(n), pct_text(o, n, p, sizeof(p)));
}

static const char *kind_of(const struct ap_diff_side *s)
{
	return s->is_trace ? "trace" : "plan";
}

/* Both plans: the operators (same index and opcode) whose breadth changed most. */
static void text_ops(FILE *f, const struct ap_diff_side *o, const struct ap_diff_side *n)
{
	uint32_t ops = o->prof.n_ops < n->prof.n_ops ? o->prof.n_ops : n->prof.n_ops;
	uint32_t shown = 0;
	bool *done = calloc(ops + 1, sizeof(*done));

	fprintf(f, "operators              %12u %12u\n", o->plan.n_ops, n->plan.n_ops);
	while (done && shown < MAX_OP_ROWS) {
		int64_t best = 0;
		int32_t bi = -1;

		for (uint32_t i = 0; i < ops; i++) {
			int64_t d = (int64_t)n->prof.breadth[i] - (int64_t)o->prof.breadth[i];

			if (!done[i] && d && llabs(d) > llabs(best)) {
				best = d;
				bi = (int32_t)i;
			}
		}
		if (bi < 0)
			break;
		done[bi] = true;
		if (!shown++)
			fprintf(f, "breadth (arena bytes live while it runs), the largest "
				"changes:\n");
		fprintf(f, "  #%-4d %-16s %12s %12s %+11" PRId64 "\n", bi,
			TS(n->plan.ops[bi].opname), B(o->prof.breadth[bi]), B(n->prof.breadth[bi]),
			best);
	}
	if (done && !shown)
		fprintf(f, "breadth: no operator of the first %u changed\n", ops);
	free(done);
}

void ap_diff_text(FILE *f, const struct ap_diff_side *o, const struct ap_diff_side *n,
		  const struct ap_diff_gate *g)
{
	fprintf(f, "old        %s (%s)\nnew        %s (%s)\n", TS(o->path), kind_of(o),
		TS(n->path), kind_of(n));
	fprintf(f, "  %-22s %12s %12s %10s\n", "", "old", "new", "change");
	row(f, o->is_trace || n->is_trace ? "arena (found | planned)" : "arena", o->arena,
	    n->arena);
	row(f, "peak", o->peak, n->peak);
	row(f, "weights", o->weights, n->weights);
	if (o->is_trace && n->is_trace) {
		for (int k = 0; k < AP_GROUP_COUNT; k++)
			if (k != AP_GROUP_ARENA && k != AP_GROUP_WEIGHTS)
				row(f, ap_group_name((enum ap_group)k), o->kind[k], n->kind[k]);
	}
	if (!o->is_trace && !n->is_trace)
		text_ops(f, o, n);
	if (!g->on)
		return;
	fprintf(f, "gate       --fail-above %.1f %%: %s\n", g->pct, g->arena_over || g->peak_over ?
		"FAILED" : "passed");
	if (g->arena_over)
		fprintf(f, "  - the arena grew past it\n");
	if (g->peak_over)
		fprintf(f, "  - the peak grew past it\n");
}

static void json_side(struct ap_json *j, const char *key, const struct ap_diff_side *s)
{
	ap_json_obj(j, key);
	ap_json_str(j, "path", s->path);
	ap_json_str(j, "kind", kind_of(s));
	ap_json_u64(j, "arena_bytes", s->arena);
	ap_json_u64(j, "peak_bytes", s->peak);
	ap_json_u64(j, "weights_bytes", s->weights);
	if (s->is_trace) {
		ap_json_obj(j, "kinds");
		for (int k = 0; k < AP_GROUP_COUNT; k++)
			ap_json_u64(j, ap_group_name((enum ap_group)k), s->kind[k]);
		ap_json_end_obj(j);
	} else {
		ap_json_u64(j, "operators", s->plan.n_ops);
		ap_json_arr(j, "breadth_bytes");
		for (uint32_t i = 0; i < s->prof.n_ops; i++)
			ap_json_u64(j, NULL, s->prof.breadth[i]);
		ap_json_end_arr(j);
	}
	ap_json_end_obj(j);
}

void ap_diff_json(FILE *f, const struct ap_diff_side *o, const struct ap_diff_side *n,
		  const struct ap_diff_gate *g)
{
	struct ap_json j;

	ap_json_init(&j, f);
	ap_json_obj(&j, NULL);
	json_side(&j, "old", o);
	json_side(&j, "new", n);
	ap_json_obj(&j, "change_pct");
	ap_json_f64(&j, "arena", ap_diff_pct(o->arena, n->arena));
	ap_json_f64(&j, "peak", ap_diff_pct(o->peak, n->peak));
	ap_json_f64(&j, "weights", ap_diff_pct(o->weights, n->weights));
	ap_json_end_obj(&j);
	if (g->on) {
		ap_json_obj(&j, "gate");
		ap_json_f64(&j, "fail_above_pct", g->pct);
		ap_json_bool(&j, "arena_over", g->arena_over);
		ap_json_bool(&j, "peak_over", g->peak_over);
		ap_json_bool(&j, "failed", g->arena_over || g->peak_over);
		ap_json_end_obj(&j);
	} else {
		ap_json_null(&j, "gate");
	}
	ap_json_end_obj(&j);
	ap_json_finish(&j);
}
