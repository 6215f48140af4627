// SPDX-License-Identifier: Apache-2.0
/* plan_build: from a path to a plan set (include/arenaprof/plan/plan_build.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/plan_build.h"
#include "arenaprof/plan/plan_import.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/util/infile.h"

static bool is_tflite(const char *path)
{
	char id[8], err[AP_ERR_LEN];
	FILE *f = ap_infile_fopen(path, err);
	bool yes;

	if (!f)
		return false;	/* the importer reports the open error */
	yes = fread(id, 1, 8, f) == 8 && !memcmp(id + 4, "TFL3", 4);
	fclose(f);
	return yes;
}

/* The shown subgraph: built once, for its own sizes and for every strategy. */
struct shown {
	const struct ap_plan_req *rq;
	struct ap_plan_set *s;
	struct ap_graph g;
	bool built, planned;	/* the graph and its gaps; s->plan, with rq->strat */
};

/* The graph and the operators not modelled: 0, or ap_graph_build's negative errno. */
static int shown_build(struct shown *c, char *err)
{
	int n = ap_graph_build(c->s->model, c->rq->subgraph, &c->rq->gopts, &c->g, err);

	if (n)
		return n;
	c->built = true;
	n = ap_kernel_gaps(&c->g, &c->s->gaps);
	if (n < 0)
		return ap_fail(err, n, "out of memory");
	c->s->n_gaps = (uint32_t)n;
	return 0;
}

/* ap_sg_hook: what plan_subgraphs.c would do for the shown subgraph, kept. */
static int shown_hook(void *ctx, struct ap_sg_plan *sp, char *err)
{
	struct shown *c = ctx;
	int rc = shown_build(c, err);

	if (!rc)
		rc = ap_plan_graph(&c->g, c->rq->strat, &c->s->plan, err);
	if (rc)
		return rc;
	c->planned = true;
	sp->n_gaps = c->s->n_gaps + !!sp->caller_gap.why;	/* a caller counts as one */
	sp->arena_bytes = c->s->plan.arena_bytes;
	sp->persistent_bytes = c->s->plan.persistent_bytes;
	return 0;
}

/* Every strategy's plan of the shown subgraph: its sizes, and the chosen one kept. */
static int plan_strategies(struct shown *c, char *err)
{
	const char *path = c->rq->path;
	struct ap_plan_set *s = c->s;
	struct ap_tplan other = { 0 };	/* the other strategies, one after the other */
	bool have_other = false;
	char e[AP_ERR_LEN];

	for (int i = 0; i < AP_STRAT_COUNT; i++) {
		struct ap_profile pr;
		struct ap_tplan *p = i == (int)c->rq->strat ? &s->plan : &other;
		int rc = 0;

		if (p == &s->plan && !c->planned)
			rc = ap_plan_graph(&c->g, i, p, e);
		else if (p == &other)
			rc = (have_other ? ap_plan_graph_again : ap_plan_graph)(&c->g, i, p, e);
		if (rc) {	/* the graph's sizes passed with the shown plan: memory */
			ap_seterr(err, "%s: %s", path, e);
			return -ENOMEM;
		}
		if (p == &s->plan)
			c->planned = true;
		else
			have_other = true;
		s->strat_bytes[i] = p->arena_bytes;
		if (ap_profile_compute(p, &pr) == 0)
			s->strat_lb[i] = pr.lower_bound;
		ap_profile_free(&pr);
		/* A computed plan that overlaps is a bug here, not bad input. */
		if (ap_tplan_check(p, e)) {
			ap_seterr(err, "internal error: %s plan of %s is inconsistent: %s",
				  ap_strategy_name(i), path, e);
			ap_tplan_free(&other);
			return -ENOTRECOVERABLE;
		}
	}
	ap_tplan_free(&other);
	s->naive_bytes = s->strat_bytes[AP_STRAT_NAIVE];
	return 0;
}

/* For the report: every subgraph's sizes, the shown one's split points and strategies. */
static int plan_report(struct shown *c, char *err)
{
	const struct ap_plan_req *rq = c->rq;
	struct ap_plan_set *s = c->s;
	char e[AP_ERR_LEN];
	struct ap_sg_hook hook = { .subgraph = rq->subgraph, .plan = shown_hook, .ctx = c };
	int rc = ap_plan_subgraphs(s->model, &rq->gopts, rq->strat, &hook, &s->sgs, e);

	if (!rc && !c->built)	/* a subgraph LiteRT never plans */
		rc = shown_build(c, e);
	if (rc)
		return ap_fail(err, rc, "%s: %s", rq->path, e);
	s->have_strategies = true;
	s->arch = ap_arch_resolve(rq->gopts.arch);
	s->runtime = ap_runtime_get(rq->gopts.runtime);
	s->caller_gap = s->sgs[rq->subgraph].caller_gap;
	s->split_after = malloc((c->g.n_ops + 1) * sizeof(*s->split_after));
	if (!s->split_after) {
		ap_seterr(err, "out of memory");
		return -ENOMEM;
	}
	for (uint32_t i = 0; i + 1 < c->g.n_ops; i++)
		if (ap_graph_ends_prepare(&c->g, i))
			s->split_after[s->n_split++] = (int32_t)i;
	return plan_strategies(c, err);
}

/*
 * Of the graph's weights, those the runtime keeps reading on the XNNPACK path: every
 * constant but those only delegated operators read (XNNPACK packed them once, then leaves
 * their file pages alone). A constant nobody reads stays, as plan.weights_bytes counts it.
 */
static int by_off(const void *a, const void *b)
{
	const struct ap_plan_wrange *x = a, *y = b;

	return (x->off > y->off) - (x->off < y->off);
}

/* The weights' file ranges, sorted, overlapping ones merged (kept wins: a buffer kept
 * operators read is read at every run, whoever else packs it). */
static int weight_ranges(const struct ap_model *m, const struct ap_graph *g, uint32_t sg,
			 const uint8_t *use, struct ap_plan_set *s)
{
	const struct ap_model_subgraph *msg = &m->subgraphs[sg];
	uint32_t n = 0;

	s->wranges = calloc(msg->n_tensors + 1, sizeof(*s->wranges));
	if (!s->wranges)
		return -ENOMEM;
	for (uint32_t t = 0; t < msg->n_tensors && t < g->n_tensors; t++) {
		uint32_t b = msg->tensors[t].buffer;
		uint64_t off, len;

		if (g->t[t].alloc != AP_ALLOC_WEIGHTS || !use[t] || b >= m->n_buffers ||
		    !ap_model_buffer_range(&m->buffers[b], &off, &len) || !len)
			continue;
		s->wranges[n++] = (struct ap_plan_wrange){ off, len, use[t] == 1 };
	}
	qsort(s->wranges, n, sizeof(*s->wranges), by_off);
	s->n_wranges = 0;
	for (uint32_t i = 0; i < n; i++) {
		struct ap_plan_wrange *last = s->n_wranges ? &s->wranges[s->n_wranges - 1] : NULL;

		if (last && s->wranges[i].off < last->off + last->len) {
			uint64_t end = s->wranges[i].off + s->wranges[i].len;

			if (end > last->off + last->len)
				last->len = end - last->off;
			last->packed_only &= s->wranges[i].packed_only;
			continue;
		}
		s->wranges[s->n_wranges++] = s->wranges[i];
	}
	return 0;
}

static int kept_weights(const struct ap_graph *g, const struct ap_xnn_plan *x, uint64_t *b,
			struct ap_plan_set *s)
{
	uint8_t *use = calloc(g->n_tensors ? g->n_tensors : 1, 1);	/* 1 delegated, 2 kept */

	if (!use)
		return -ENOMEM;
	for (uint32_t i = 0; i < g->n_ops; i++)
		for (uint32_t k = 0; k < g->ops[i].n_in; k++) {
			int32_t t = g->ops[i].in[k];

			if (t >= 0 && (uint32_t)t < g->n_tensors)
				use[t] |= i < x->n_ops && x->ops[i].delegated ? 1 : 2;
		}
	*b = 0;
	for (uint32_t t = 0; t < g->n_tensors; t++)
		if (g->t[t].alloc == AP_ALLOC_WEIGHTS && use[t] != 1)
			*b += g->t[t].bytes;
	if (weight_ranges(s->model, g, s->subgraph, use, s)) {
		free(use);
		return -ENOMEM;
	}
	free(use);
	return 0;
}

/*
 * CompiledModel on CPU: before the first run it binds every input and output of the
 * signature to a TensorBuffer of its own (LiteRtCompiledModelT::RegisterBuffer: the host
 * memory is locked and given to SetCustomAllocationForTensor), but a constant output
 * (kTfLiteMmapRo, kTfLitePersistentRo), which TFLite refuses to rebind. The arena is then
 * planned without them (measured with uprobes on Subgraph::SetCustomAllocationForTensor
 * and the arena's ResizableAlignedBuffer::Resize, docs/litert.md). Subgraph 0's inputs
 * and outputs are its default signature's.
 */
static void bind_io(struct ap_graph *dg)
{
	for (uint32_t k = 0; k < dg->n_inputs + dg->n_outputs; k++) {
		int32_t t = k < dg->n_inputs ? dg->inputs[k] : dg->outputs[k - dg->n_inputs];

		if (t >= 0 && (uint32_t)t < dg->n_tensors &&
		    (dg->t[t].alloc == AP_ALLOC_ARENA || dg->t[t].alloc == AP_ALLOC_PERSISTENT))
			dg->t[t].alloc = AP_ALLOC_CUSTOM;
	}
}

/*
 * The TFLite arena that remains on the delegated graph: LiteRT plans the graph the
 * delegate left (each partition one delegate node, its edges its inputs and outputs, and
 * the operators it refused with their kernels' temporaries) as it plans any graph, by the
 * shown strategy. The other subgraphs' arenas stay their builtin plans, said so when one
 * of them holds delegated operators.
 */
static int plan_delegated_arena(struct shown *c, char *err)
{
	struct ap_plan_set *s = c->s;
	struct ap_graph dg;
	char e[AP_ERR_LEN];
	int rc = ap_xnn_delegated_graph(&c->g, &s->xnn, &dg, e);

	if (!rc && c->rq->io_bound)
		bind_io(&dg);
	if (!rc)
		rc = ap_plan_graph(&dg, c->rq->strat, &s->xnn_arena, e);
	ap_xnn_delegated_graph_free(&dg);
	if (rc)
		return ap_fail(err, rc, "%s: the delegated graph: %s", c->rq->path, e);
	s->have_xnn_arena = true;
	for (uint32_t i = 0; i < s->xnn.n_sgs; i++) {
		if (i == s->subgraph || !s->xnn.sgs[i].delegated_ops || !s->sgs ||
		    !s->sgs[i].planned)
			continue;
		snprintf(s->arena_not_modelled, sizeof(s->arena_not_modelled), "the TFLite "
			 "arenas of subgraphs other than %u are their builtin plans", s->subgraph);
		break;
	}
	return 0;
}

/* The XNNPACK side of the shown graph (rq->delegate xnnpack) on rq->cpu (NULL: this
 * machine), and the arena left. */
/*
 * XNNPACK's weight cache: every packed buffer the model's operators make goes through
 * xnn_get_pointer_to_write_weights, which a weights cache redirects to the cache (every
 * operator kind and datatype that packs: convolutions, depthwise, transposed, fully
 * connected, batch matmul with static weights). The builder reserves one buffer of the
 * largest request plus its 128-byte alignment slack and keeps it.
 */
#define AP_WCACHE_ALIGN 128

static void weight_cache(const struct ap_xnn_plan *x, struct ap_plan_wcache *w)
{
	w->movable_bytes = x->packed_weights_bytes;
	w->applies = w->movable_bytes > 0;
	w->build_buffer_bytes = w->applies ? x->largest_packed_bytes + AP_WCACHE_ALIGN : 0;
}

static int plan_xnn(struct shown *c, char *err)
{
	struct ap_plan_set *s = c->s;
	struct ap_xnn_cpu cpu;
	char e[AP_ERR_LEN];
	int rc = ap_xnn_cpu_parse(c->rq->cpu ? c->rq->cpu : "host", &cpu, e);

	if (rc)
		return ap_fail(err, rc, "%s", e);
	s->have_xnn = true;
	rc = ap_xnn_plan_build(s->model, &c->g, &cpu, &s->xnn, e);
	if (rc)
		return ap_fail(err, rc, "%s: %s", c->rq->path, e);
	if (kept_weights(&c->g, &s->xnn, &s->kept_weights_bytes, s))
		return ap_fail(err, -ENOMEM, "out of memory");
	weight_cache(&s->xnn, &s->wcache);
	s->have_xnn_ws = true;
	rc = ap_xnn_workspace_plan(s->model, &c->g, &s->xnn, &s->plan, &s->xnn_ws, e);
	if (rc)
		return ap_fail(err, rc, "%s: %s", c->rq->path, e);
	return plan_delegated_arena(c, err);
}

/* TFLite Micro: one arena for the whole model, on the file's shapes (it resizes none). */
static int plan_tflm(const struct ap_plan_req *rq, struct ap_plan_set *s, char *err)
{
	char e[AP_ERR_LEN];
	int rc = ap_tflm_plan(s->model, rq->path, &s->plan, &s->tflm, e);

	if (rc)
		return ap_fail(err, rc, "%s: --runtime tflm: %s", rq->path, e);
	if (ap_tplan_check(&s->plan, e))	/* a computed plan that overlaps: a bug here */
		return ap_fail(err, -ENOTRECOVERABLE, "internal error: the tflm plan of %s is "
			       "inconsistent: %s", rq->path, e);
	s->have_tflm = true;
	s->runtime = ap_runtime_get(rq->gopts.runtime);
	s->arch = ap_arch_resolve(rq->gopts.arch);
	s->have_delegate = true;
	s->delegate = AP_DELEGATE_NONE;
	return 0;
}

static int plan_model(const struct ap_plan_req *rq, struct ap_plan_set *s, char *err)
{
	struct ap_model *m = &s->loaded;
	struct shown c = { .rq = rq, .s = s };
	char e[AP_ERR_LEN];
	int rc;

	rc = ap_model_load(rq->path, m, err);
	if (rc)
		return rc;
	s->model = m;
	if (!m->n_subgraphs) {
		ap_seterr(err, "%s: model has no subgraph", rq->path);
		return -EINVAL;
	}
	if (ap_runtime_get(rq->gopts.runtime)->one_arena)
		return plan_tflm(rq, s, err);
	rc = ap_shapes_infer(m, rq->ov, rq->n_ov, &s->shapes, e);
	if (rc)
		return ap_fail(err, rc, "%s: %s", rq->path, e);
	s->have_shapes = true;
	if (rq->subgraph >= m->n_subgraphs) {
		ap_seterr(err, "%s: --subgraph %u: the model has %u subgraph%s", rq->path,
			  rq->subgraph, m->n_subgraphs, m->n_subgraphs == 1 ? "" : "s");
		return -EINVAL;
	}
	s->subgraph = rq->subgraph;
	if (rq->report) {
		rc = plan_report(&c, err);
	} else {
		rc = shown_build(&c, e);
		if (rc)
			ap_seterr(err, "%s: %s", rq->path, e);
		else
			rc = ap_plan_graph(&c.g, rq->strat, &s->plan, err);
	}
	s->have_delegate = true;
	s->delegate = rq->delegate;
	if (!rc && rq->delegate == AP_DELEGATE_XNNPACK)
		rc = plan_xnn(&c, err);
	if (c.built)
		ap_graph_free(&c.g);
	return rc;
}

int ap_plan_build(const struct ap_plan_req *rq, struct ap_plan_set *s, char *err)
{
	bool import = rq->src == AP_PLAN_IMPORT || (rq->src == AP_PLAN_ANY &&
						    !is_tflite(rq->path));
	int rc;

	s->as_float32 = rq->gopts.as_float32;
	s->weights_copy = rq->weights_copy;
	s->n_input_shapes = rq->n_ov;
	rc = import ? ap_plan_import(rq->path, &s->plan, err) : plan_model(rq, s, err);
	if (rc)
		return rc;
	if (!rq->report)
		return 0;
	if (ap_profile_compute(&s->plan, &s->prof)) {
		ap_seterr(err, "out of memory");
		return -ENOMEM;
	}
	/* a runtime's plan that overlaps is its own: said, not refused */
	if (import && !ap_tplan_check(&s->plan, s->overlap))
		s->overlap[0] = 0;
	return 0;
}

uint64_t ap_plan_set_tflite_bytes(const struct ap_plan_set *s)
{
	const struct ap_tplan *p = s->have_xnn_arena ? &s->xnn_arena : &s->plan;
	uint64_t b = p->arena_bytes + p->persistent_bytes;

	for (uint32_t i = 0; s->sgs && i < s->model->n_subgraphs; i++)
		if (i != s->subgraph && s->sgs[i].planned)
			b += s->sgs[i].arena_bytes + s->sgs[i].persistent_bytes;
	return b;
}

/* The weights read in place, file-backed when mapped (the rest are read once, packed). */
static uint64_t in_place_weights(const struct ap_plan_set *s)
{
	return s->have_xnn ? s->kept_weights_bytes : s->plan.weights_bytes;
}

uint64_t ap_plan_set_anon_bytes(const struct ap_plan_set *s)
{
	/* a copy is held whole, the weights XNNPACK packed away included */
	return ap_plan_set_tflite_bytes(s) + (s->have_xnn ? s->xnn.total_bytes : 0) +
	       (s->weights_copy ? s->plan.weights_bytes : 0);
}

uint64_t ap_plan_set_file_bytes(const struct ap_plan_set *s)
{
	return s->weights_copy ? 0 : in_place_weights(s);
}

uint64_t ap_plan_set_cache_anon_bytes(const struct ap_plan_set *s, bool building)
{
	const struct ap_plan_wcache *c = &s->wcache;

	return ap_plan_set_anon_bytes(s) - c->movable_bytes +
	       (building ? c->build_buffer_bytes : 0);
}

void ap_plan_set_free(struct ap_plan_set *s)
{
	ap_profile_free(&s->prof);
	ap_tplan_free(&s->plan);
	free(s->gaps);
	free(s->sgs);
	free(s->split_after);
	if (s->have_xnn)
		ap_xnn_plan_free(&s->xnn);
	if (s->have_xnn_arena)
		ap_tplan_free(&s->xnn_arena);
	if (s->have_xnn_ws)
		ap_tplan_free(&s->xnn_ws);
	free(s->wranges);
	ap_model_free(&s->loaded);
	s->model = NULL;
}
