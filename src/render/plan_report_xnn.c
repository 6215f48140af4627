// SPDX-License-Identifier: Apache-2.0
/*
 * plan_report_xnn: the default path's side of `arenaprof plan` (docs/xnnpack.md): what
 * XNNPACK holds beside the TFLite arena, as text and JSON. Printed only for a plan with
 * the XNNPACK delegate; --delegate none prints what it always printed.
 */
#include <inttypes.h>

#include "arenaprof/util/escape.h"
#include "arenaprof/util/units.h"
#include "plan_report_priv.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[256]){ 0 }, 256)

static const char *op_name(const struct ap_tplan *p, int32_t i)
{
	return i >= 0 && (uint32_t)i < p->n_ops && p->ops[i].opname[0] ?
	       p->ops[i].opname : "?";
}

int32_t ap_pr_widest_part(const struct ap_xnn_plan *x)
{
	int32_t w = -1;

	for (uint32_t i = 0; i < x->n_parts; i++)
		if (x->parts[i].widest_value && (w < 0 ||
		    x->parts[i].widest_value > x->parts[w].widest_value))
			w = (int32_t)i;
	return w;
}

void ap_pr_text_xnn_head(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_xnn_plan *x = &s->xnn;

	if (!s->have_xnn)
		return;
	fprintf(f, "            delegate xnnpack, LiteRT's default CPU path (--delegate none: "
		"the builtin kernels)\n");
	fprintf(f, "            CPU %s (%s): %u of %u operators delegated, in %u partition%s\n",
		TS(x->cpu.name), ap_arch_name(ap_arch_resolve(x->cpu.arch)), x->delegated_ops,
		x->n_ops, x->n_parts, x->n_parts == 1 ? "" : "s");
	if (x->not_modelled[0])
		fprintf(f, "            not modelled: %s\n", TS(x->not_modelled));
	if (s->arena_not_modelled[0])
		fprintf(f, "            not modelled: %s\n", TS(s->arena_not_modelled));
}

#define WC_HOW "CompiledModel: CpuOptions(xnnpack_weight_cache_path=FILE), a file, " \
	"not a directory; benchmark_model, benchmark_litert_model: " \
	"--xnnpack_weight_cache_file_path=FILE; C++: " \
	"TfLiteXNNPackDelegateOptions.weight_cache_file_path; the Python Interpreter has no knob"

static void text_cache(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_plan_wcache *c = &s->wcache;

	if (!c->applies)
		return;
	fprintf(f, "weight cache      %12s  packed weights a cache file would hold (off above: "
		"LiteRT's default)\n", B(c->movable_bytes));
	fprintf(f, "  turn it on: CpuOptions(xnnpack_weight_cache_path=FILE), "
		"--xnnpack_weight_cache_file_path=FILE\n");
	fprintf(f, "  with it: non-reclaimable %s (%s while it builds the file), reclaimable %s\n",
		B(ap_plan_set_cache_anon_bytes(s, false)), B(ap_plan_set_cache_anon_bytes(s, true)),
		B(ap_plan_set_file_bytes(s) + c->movable_bytes));
}

void ap_pr_text_xnn(FILE *f, const struct ap_plan_set *s)
{
	const struct ap_xnn_plan *x = &s->xnn;
	uint64_t tfl = ap_plan_set_tflite_bytes(s), other = x->scratch_bytes + x->other_bytes;
	int32_t w = ap_pr_widest_part(x);

	if (!s->have_xnn)
		return;
	fprintf(f, "\nnon-reclaimable   %12s  anonymous, never reclaimable without swap:\n",
		B(ap_plan_set_anon_bytes(s)));
	fprintf(f, "  TFLite arena    %12s  arena + persistent, every subgraph LiteRT plans\n",
		B(tfl));
	fprintf(f, "  XNNPACK workspace %10s  the partitions' values, one workspace shared\n",
		B(x->workspace_bytes));
	fprintf(f, "  operator buffers %11s  indirection buffers, scratch, XNNPACK's objects\n",
		B(other));
	fprintf(f, "  packed weights  %12s  repacked from the file into anonymous memory\n",
		B(x->packed_weights_bytes));
	fprintf(f, "reclaimable       %12s  file-backed weights the runtime keeps reading "
		"(mmap)\n", B(s->kept_weights_bytes));
	text_cache(f, s);
	if (w >= 0)
		fprintf(f, "widest XNNPACK value: %s, written by #%d %s in partition %d\n",
			B(x->parts[w].widest_value), x->parts[w].widest_op,
			TS(op_name(&s->plan, x->parts[w].widest_op)), w);
	fprintf(f, "\nthe TFLite side, in detail (what --delegate none plans):\n");
}

static void json_parts(struct ap_json *j, const struct ap_xnn_plan *x)
{
	ap_json_arr(j, "partition_plans");
	for (uint32_t i = 0; i < x->n_parts; i++) {
		const struct ap_xnn_part *p = &x->parts[i];

		ap_json_obj(j, NULL);
		ap_json_u64(j, "index", i);
		ap_json_u64(j, "operators", p->n_ops);
		ap_json_i64(j, "first_op", p->first_op);
		ap_json_u64(j, "workspace_bytes", p->workspace_bytes);
		ap_json_u64(j, "widest_value_bytes", p->widest_value);
		ap_json_i64(j, "widest_op", p->widest_op);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
}

/* Each value XNNPACK's memory planner places (ap_xnn_workspace_plan), at its offset from the
 * workspace's start: its partition is its writer's, the one of its first operator. */
static void json_ws_values(struct ap_json *j, const struct ap_plan_set *s)
{
	const struct ap_tplan *w = &s->xnn_ws;

	ap_json_arr(j, "workspace_values");
	for (uint32_t i = 0; s->have_xnn_ws && i < w->n; i++) {
		const struct ap_ptensor *t = &w->t[i];
		int32_t op = t->first;

		ap_json_obj(j, NULL);
		if (op >= 0 && (uint32_t)op < s->xnn.n_ops && s->xnn.ops[op].delegated)
			ap_json_u64(j, "partition", s->xnn.ops[op].partition);
		else
			ap_json_null(j, "partition");
		if (t->index >= 0)
			ap_json_i64(j, "tensor", t->index);
		else
			ap_json_null(j, "tensor");
		ap_json_str(j, "name", t->name);
		ap_json_i64(j, "offset", t->offset);
		ap_json_u64(j, "bytes", t->bytes);
		ap_json_i64(j, "first_op", t->first);
		ap_json_i64(j, "last_op", t->last);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
}

static void json_cache(struct ap_json *j, const struct ap_plan_set *s)
{
	const struct ap_plan_wcache *c = &s->wcache;

	ap_json_obj(j, "weight_cache");
	ap_json_bool(j, "applies", c->applies);
	ap_json_u64(j, "movable_bytes", c->movable_bytes);
	ap_json_u64(j, "build_buffer_bytes", c->build_buffer_bytes);
	ap_json_u64(j, "anonymous_bytes", ap_plan_set_cache_anon_bytes(s, false));
	ap_json_u64(j, "anonymous_bytes_building", ap_plan_set_cache_anon_bytes(s, true));
	ap_json_u64(j, "reclaimable_bytes", ap_plan_set_file_bytes(s) + c->movable_bytes);
	ap_json_str(j, "shown", "off: anonymous_bytes and reclaimable_bytes outside are "
		    "LiteRT's default, no cache");
	ap_json_str(j, "how", WC_HOW);
	ap_json_end_obj(j);
}

void ap_pr_json_xnn(struct ap_json *j, const struct ap_plan_set *s)
{
	const struct ap_xnn_plan *x = &s->xnn;
	int32_t w = ap_pr_widest_part(x);

	if (!s->have_delegate) {
		if (!s->model)
			ap_json_null(j, "delegate");	/* an imported plan: the runtime's */
		return;
	}
	ap_json_str(j, "delegate", ap_delegate_name(s->delegate));
	if (!s->have_xnn)
		return;
	ap_json_str(j, "cpu", x->cpu.name);
	ap_json_str(j, "cpu_arch", ap_arch_name(ap_arch_resolve(x->cpu.arch)));
	ap_json_u64(j, "anonymous_bytes", ap_plan_set_anon_bytes(s));
	ap_json_u64(j, "reclaimable_bytes", ap_plan_set_file_bytes(s));
	ap_json_u64(j, "tflite_bytes", ap_plan_set_tflite_bytes(s));
	ap_json_str(j, "tflite_not_modelled", s->arena_not_modelled);
	ap_json_obj(j, "xnnpack");
	ap_json_u64(j, "total_bytes", x->total_bytes);
	ap_json_u64(j, "workspace_bytes", x->workspace_bytes);
	ap_json_u64(j, "packed_weights_bytes", x->packed_weights_bytes);
	ap_json_u64(j, "scratch_bytes", x->scratch_bytes);
	ap_json_u64(j, "other_bytes", x->other_bytes);
	ap_json_u64(j, "delegated_operators", x->delegated_ops);
	ap_json_u64(j, "partitions", x->n_parts);
	ap_json_str(j, "not_modelled", x->not_modelled);
	if (w >= 0) {
		ap_json_obj(j, "widest_value");
		ap_json_u64(j, "bytes", x->parts[w].widest_value);
		ap_json_u64(j, "partition", (uint64_t)w);
		ap_json_i64(j, "op", x->parts[w].widest_op);
		ap_json_end_obj(j);
	} else {
		ap_json_null(j, "widest_value");
	}
	json_parts(j, x);
	json_ws_values(j, s);
	json_cache(j, s);
	ap_json_end_obj(j);
}

void ap_pr_json_op_xnn(struct ap_json *j, const struct ap_plan_set *s, uint32_t op)
{
	const struct ap_xnn_op *o = op < s->xnn.n_ops ? &s->xnn.ops[op] : NULL;

	if (!s->have_xnn)
		return;
	ap_json_bool(j, "delegated", o && o->delegated);
	if (o && o->delegated)
		ap_json_u64(j, "partition", o->partition);
	else
		ap_json_null(j, "partition");
	if (o && !o->delegated && o->why)
		ap_json_str(j, "not_delegated", o->why);
	ap_json_u64(j, "packed_bytes", o ? o->packed_bytes : 0);
	ap_json_u64(j, "private_bytes", o ? o->private_bytes : 0);
}
