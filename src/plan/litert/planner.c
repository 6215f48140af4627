// SPDX-License-Identifier: Apache-2.0
/*
 * planner: the placement strategies. Lifetimes come from lifetimes.c (LiteRT's rules)
 * except for `micro`, which uses TFLite Micro's own (AllocationInfoBuilder).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/planner.h"
#include "arenaprof/plan/stl_order.h"
#include "arenaprof/util/order.h"
#include "arenaprof/util/sort.h"

static const char *const strategy_names[AP_STRAT_COUNT] = {
	[AP_STRAT_TFLITE] = "tflite",
	[AP_STRAT_GREEDY_SIZE] = "greedy-size",
	[AP_STRAT_GREEDY_BREADTH] = "greedy-breadth",
	[AP_STRAT_NAIVE] = "naive",
	[AP_STRAT_MICRO] = "micro",
};

const char *ap_strategy_name(enum ap_strategy s)
{
	return s < AP_STRAT_COUNT ? strategy_names[s] : "?";
}

int ap_strategy_parse(const char *s, enum ap_strategy *out)
{
	for (int i = 0; i < AP_STRAT_COUNT; i++) {
		if (!strcmp(s, strategy_names[i])) {
			*out = (enum ap_strategy)i;
			return 0;
		}
	}
	return -EINVAL;
}

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static bool whole_run(const struct ap_rec *r)
{
	return r->first == 0 && r->last == AP_NODE_NONE;
}

/* CreateTensorAllocationVector's comparator: 0 for LiteRT's unordered ties. */
static int cmp_tflite_core(const struct ap_rec *a, const struct ap_rec *b)
{
	bool wa = whole_run(a), wb = whole_run(b);

	if (wa != wb)
		return wa ? -1 : 1;
	if (wa)
		return AP_CMP(a->id, b->id);
	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return AP_CMP(a->first, b->first);
}

/* The same, made total with the id (for callers that want one fixed order). */
static int cmp_tflite(const void *pa, const void *pb)
{
	const struct ap_rec *a = pa, *b = pb;
	int c = cmp_tflite_core(a, b);

	return c ? c : AP_CMP(a->id, b->id);
}

void ap_order_tflite(struct ap_rec *r, size_t n)
{
	ap_qsort(r, n, sizeof(*r), cmp_tflite);
}

static int cmp_micro(const void *pa, const void *pb)
{
	const struct ap_rec *a = pa, *b = pb;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	return AP_CMP(b->id, a->id);
}

void ap_order_micro(struct ap_rec *r, size_t n)
{
	ap_qsort(r, n, sizeof(*r), cmp_micro);
}

/* ---- from a graph ---- */

/* Each tensor's last reader, AP_LAST_END for none (a graph output: the end too). */
static int32_t *last_uses(const struct ap_graph *g)
{
	int32_t *last = malloc((g->n_tensors + 1) * sizeof(*last));

	if (!last)
		return NULL;
	for (uint32_t t = 0; t < g->n_tensors; t++)
		last[t] = -1;
	for (uint32_t i = 0; i < g->n_ops; i++)
		for (uint32_t k = 0; k < g->ops[i].n_in; k++) {
			int32_t t = g->ops[i].in[k];

			if (t >= 0 && (uint32_t)t < g->n_tensors)
				last[t] = (int32_t)i;
		}
	for (uint32_t t = 0; t < g->n_tensors; t++)
		if (last[t] < 0 || (g->t[t].flags & AP_TF_OUTPUT))
			last[t] = AP_LAST_END;
	return last;
}

static int32_t end_or(int32_t v)
{
	return v == AP_NODE_NONE ? AP_LAST_END : v;
}

static enum ap_kind kind_of(const struct ap_tensor *t)
{
	switch (t->alloc) {
	case AP_ALLOC_WEIGHTS:
		return AP_KIND_WEIGHTS;
	case AP_ALLOC_DYNAMIC:
	case AP_ALLOC_RO:	/* heap too, written once at Prepare */
		return AP_KIND_DYNAMIC;
	case AP_ALLOC_PERSISTENT:
		/* variables, or what kernels keep: dequantized constants, hwcn_weights */
		return t->flags & AP_TF_VARIABLE ? AP_KIND_VARIABLE : AP_KIND_PERSISTENT;
	case AP_ALLOC_CUSTOM:
		return AP_KIND_PARENT;
	case AP_ALLOC_ARENA:
		break;
	}
	if (t->flags & AP_TF_DYN_IN_EVAL)
		return AP_KIND_DYNAMIC;	/* its arena slot is reserved, never used */
	if (t->first == AP_NODE_NONE)
		return AP_KIND_UNPLANNED;
	if (t->flags & AP_TF_INPUT)
		return AP_KIND_INPUT;
	if (t->flags & AP_TF_OUTPUT)
		return AP_KIND_OUTPUT;
	/* allocated but produced by no node and not an input: a node's temporary */
	if (t->producer < 0)
		return AP_KIND_TEMPORARY;
	return AP_KIND_ARENA;
}

static const char *or_empty(const char *s)
{
	return s ? s : "";
}

/* The name of the operator's output 0, "" when it has none. */
static const char *out_name(const struct ap_graph *g, const struct ap_op *op)
{
	int32_t o = op->n_out ? op->out[0] : -1;

	return o >= 0 && (uint32_t)o < g->n_tensors ? or_empty(g->t[o].name) : "";
}

/* The plan's tensor, operator and output names, copied into one block (p->names). */
static int copy_names(const struct ap_graph *g, struct ap_tplan *p)
{
	size_t len = 1;
	char *at;

	for (uint32_t i = 0; i < p->n; i++)
		len += strlen(or_empty(g->t[i].name)) + 1;
	for (uint32_t i = 0; i < p->n_ops; i++)
		len += strlen(or_empty(g->ops[i].name)) + strlen(out_name(g, &g->ops[i])) + 2;
	at = p->names = malloc(len);
	if (!at)
		return -ENOMEM;
	for (uint32_t i = 0; i < p->n; i++) {
		p->t[i].name = at;
		at = stpcpy(at, or_empty(g->t[i].name)) + 1;
	}
	for (uint32_t i = 0; i < p->n_ops; i++) {
		p->ops[i].opname = at;
		at = stpcpy(at, or_empty(g->ops[i].name)) + 1;
		p->ops[i].out_name = at;
		at = stpcpy(at, out_name(g, &g->ops[i])) + 1;
	}
	return 0;
}

/* The skeleton of a plan: names, kinds, LiteRT lifetimes; offsets still -1. */
/* The plan's tensors as g has them, offsets -1: what every strategy starts from. */
static int tplan_fill(const struct ap_graph *g, struct ap_tplan *p)
{
	int32_t *last = last_uses(g);

	if (!last)
		return -ENOMEM;
	p->weights_bytes = 0;
	for (uint32_t i = 0; i < p->n; i++) {
		const struct ap_tensor *t = &g->t[i];
		struct ap_ptensor *pt = &p->t[i];

		pt->index = (int32_t)i;
		pt->bytes = t->bytes;
		pt->offset = -1;
		pt->kind = kind_of(t);
		pt->share_root = t->alloc == AP_ALLOC_ARENA ? t->share_root : -1;
		if (t->first == AP_NODE_NONE) {
			pt->first = pt->last = -1;
		} else if (pt->share_root >= 0) {
			pt->first = t->first;
			pt->last = last[i];
		} else {
			pt->first = t->first;
			pt->last = end_or(t->last);
		}
		if (t->alloc == AP_ALLOC_WEIGHTS)
			p->weights_bytes += t->bytes;
	}
	free(last);
	return 0;
}

/* The skeleton of a plan: names, kinds, LiteRT lifetimes; offsets still -1. */
static int tplan_init(const struct ap_graph *g, struct ap_tplan *p, char *err)
{
	memset(p, 0, sizeof(*p));
	p->n = g->n_tensors;
	p->n_ops = g->n_ops;
	p->t = calloc(p->n ? p->n : 1, sizeof(*p->t));
	p->ops = calloc(p->n_ops ? p->n_ops : 1, sizeof(*p->ops));
	p->model = strdup(g->model && g->model->path ? g->model->path : "");
	if (!p->t || !p->ops || !p->model || copy_names(g, p) || tplan_fill(g, p)) {
		ap_tplan_free(p);
		return ap_fail(err, -ENOMEM, "out of memory building the plan");
	}
	return 0;
}

static int less_tflite(int32_t a, int32_t b, const void *ctx)
{
	const struct ap_graph *g = ctx;
	struct ap_rec ra = { .size = g->t[a].bytes, .first = g->t[a].first,
			     .last = g->t[a].last, .id = a };
	struct ap_rec rb = { .size = g->t[b].bytes, .first = g->t[b].first,
			     .last = g->t[b].last, .id = b };

	return cmp_tflite_core(&ra, &rb) < 0;
}

/*
 * The tensors LiteRT's CalculateAllocations places, in its order: GetTensorsToAllocate
 * walks nodes_to_tensors_ (one unordered_set a node: variables and inputs at node 0,
 * then each node's outputs and temporaries), keeps new arena and persistent tensors,
 * and std::sorts them. Equal size and first node are ties that std::sort and the hash
 * sets decide, so both are emulated (stl_order.c). A plan split by dynamic outputs
 * (ap_graph_ends_prepare) is placed one step after the other, each step sorted on its own,
 * as LiteRT's ExecuteAllocations(first, last) calls do. Returns the count, -ENOMEM on OOM.
 */
static long tflite_order(const struct ap_graph *g, int32_t *out)
{
	struct ap_uset set;
	int32_t *list = malloc((g->n_tensors + 1) * sizeof(*list));
	bool *seen = calloc(g->n_tensors + 1, sizeof(*seen));
	long n = 0, step = 0;

	if (!list || !seen)
		goto oom;
	for (uint32_t i = 0; i < (g->n_ops ? g->n_ops : 1); i++) {
		size_t k, m;

		if (i > 0 && ap_graph_ends_prepare(g, i - 1)) {
			ap_std_sort(out + step, (size_t)(n - step), less_tflite, g);
			step = n;
		}
		ap_uset_init(&set);
		if (i == 0) {
			for (uint32_t t = 0; t < g->n_tensors; t++)
				if ((g->t[t].flags & AP_TF_VARIABLE) &&
				    ap_uset_insert(&set, (int32_t)t))
					goto oom_set;
			for (k = 0; k < g->n_inputs; k++)
				if (g->inputs[k] >= 0 && ap_uset_insert(&set, g->inputs[k]))
					goto oom_set;
		}
		if (i < g->n_ops) {
			const struct ap_op *op = &g->ops[i];

			for (k = 0; k < op->n_out; k++)
				if (op->out[k] >= 0 && ap_uset_insert(&set, op->out[k]))
					goto oom_set;
			for (k = 0; k < op->n_tmp; k++)
				if (ap_uset_insert(&set, op->tmp[k]))
					goto oom_set;
		}
		m = ap_uset_iterate(&set, list);
		ap_uset_free(&set);
		for (k = 0; k < m; k++) {
			const struct ap_tensor *t = &g->t[list[k]];

			if (seen[list[k]])
				continue;
			seen[list[k]] = true;
			if ((t->alloc == AP_ALLOC_ARENA && t->bytes > 0 &&
			     t->first != AP_NODE_NONE) || t->alloc == AP_ALLOC_PERSISTENT)
				out[n++] = list[k];
		}
	}
	free(list);
	free(seen);
	ap_std_sort(out + step, (size_t)(n - step), less_tflite, g);
	return n;
oom_set:
	ap_uset_free(&set);
oom:
	free(list);
	free(seen);
	return -ENOMEM;
}

bool ap_graph_ends_prepare(const struct ap_graph *g, uint32_t node)
{
	const struct ap_op *op = &g->ops[node];

	if (op->shape_not_known)
		return true;
	for (uint32_t k = 0; k < op->n_out; k++)
		if (op->out[k] >= 0 && (uint32_t)op->out[k] < g->n_tensors &&
		    g->t[op->out[k]].alloc == AP_ALLOC_DYNAMIC)
			return true;
	return false;
}

/* Places the normal and persistent arenas in LiteRT's order. */
static int plan_tflite(const struct ap_graph *g, struct ap_tplan *p)
{
	int32_t *order = malloc((g->n_tensors + 1) * sizeof(*order));
	struct ap_rec *rn = calloc(g->n_tensors + 1, sizeof(*rn));
	struct ap_rec *rp = calloc(g->n_tensors + 1, sizeof(*rp));
	size_t nn = 0, np = 0;
	long n = order && rn && rp ? tflite_order(g, order) : -ENOMEM;
	int rc = -ENOMEM;

	if (n < 0)
		goto out;
	for (long k = 0; k < n; k++) {
		const struct ap_tensor *t = &g->t[order[k]];

		if (t->alloc == AP_ALLOC_ARENA && t->share_root < 0)
			rn[nn++] = (struct ap_rec){ .size = t->bytes, .first = t->first,
						    .last = t->last, .id = order[k] };
		else if (t->alloc == AP_ALLOC_PERSISTENT)
			rp[np++] = (struct ap_rec){ .size = t->bytes, .first = t->first,
						    .last = AP_NODE_NONE, .id = order[k] };
	}
	p->arena_bytes = ap_place_tflite(rn, nn, AP_TENSOR_ALIGN);
	p->persistent_bytes = ap_place_tflite(rp, np, AP_TENSOR_ALIGN);
	if (p->arena_bytes == UINT64_MAX || p->persistent_bytes == UINT64_MAX)
		goto out;
	for (size_t k = 0; k < nn; k++)
		if (!(g->t[rn[k].id].flags & AP_TF_DYN_IN_EVAL))
			p->t[rn[k].id].offset = (int64_t)rn[k].offset;
	for (size_t k = 0; k < np; k++)
		p->t[rp[k].id].offset = (int64_t)rp[k].offset;
	rc = 0;
out:
	free(order);
	free(rn);
	free(rp);
	return rc;
}

/* Records of the normal-arena tensors with LiteRT lifetimes (in-place sharers left out). */
static size_t arena_records(const struct ap_graph *g, struct ap_rec *r, bool sharing)
{
	size_t n = 0;

	for (uint32_t i = 0; i < g->n_tensors; i++) {
		const struct ap_tensor *t = &g->t[i];

		if (t->alloc != AP_ALLOC_ARENA || t->first == AP_NODE_NONE)
			continue;
		if (sharing && t->share_root >= 0)
			continue;
		r[n++] = (struct ap_rec){ .size = t->bytes, .first = t->first,
					  .last = t->last, .id = (int32_t)i };
	}
	return n;
}

/* A record's operators, clipped to the graph's: [*lo, *hi], empty when *lo > *hi. */
static void op_range(const struct ap_rec *r, uint32_t n_ops, int64_t *lo, int64_t *hi)
{
	*lo = r->first < 0 ? 0 : r->first;
	*hi = r->last == AP_NODE_NONE || r->last >= (int64_t)n_ops ? (int64_t)n_ops - 1 : r->last;
}

static int cmp_breadth(const void *pa, const void *pb, void *ctx)
{
	const uint64_t *breadth = ctx;
	uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;

	if (breadth[a] != breadth[b])
		return breadth[a] > breadth[b] ? -1 : 1;
	return AP_CMP(a, b);
}

/* Each operator's rank in breadth order (widest first, ties in execution order). */
static uint32_t *breadth_ranks(const struct ap_graph *g, const struct ap_rec *r, size_t n)
{
	uint32_t n_ops = g->n_ops;
	uint64_t *breadth = calloc(n_ops + 1, sizeof(*breadth));
	uint32_t *ops = NULL, *rank = NULL;

	if (!breadth)
		return NULL;
	for (size_t k = 0; k < n; k++) {	/* a difference array: O(tensors + operators) */
		int64_t lo, hi;

		op_range(&r[k], n_ops, &lo, &hi);
		if (lo > hi)
			continue;
		breadth[lo] += r[k].size;
		breadth[hi + 1] -= r[k].size;
	}
	for (uint32_t i = 1; i < n_ops; i++)
		breadth[i] += breadth[i - 1];
	ops = ap_order_index(n_ops, cmp_breadth, breadth);
	rank = ops ? malloc((n_ops + 1) * sizeof(*rank)) : NULL;
	for (uint32_t i = 0; rank && i < n_ops; i++)
		rank[ops[i]] = i;
	free(breadth);
	free(ops);
	return rank;
}

/*
 * Operators by breadth (live arena bytes), widest first, then the tensors live at each,
 * largest first; r arrives sorted by size. A tensor goes with the widest operator it is
 * live at: the lowest rank over its lifetime, a range minimum (a segment tree over the
 * operators), so this is O(n log ops) whatever the lifetimes. Those live at no operator
 * (no operators at all) come last. 0, or -ENOMEM when out of memory.
 */
static int order_by_breadth(const struct ap_graph *g, struct ap_rec *r, size_t n)
{
	uint32_t n_ops = g->n_ops, *rank = breadth_ranks(g, r, n), *tree = NULL;
	uint32_t *at = calloc(n_ops + 2, sizeof(*at)), *of = malloc((n + 1) * sizeof(*of));
	struct ap_rec *out = malloc((n + 1) * sizeof(*out));
	int rc = -ENOMEM;

	if (rank)
		tree = malloc((2 * (size_t)n_ops + 1) * sizeof(*tree));
	if (!rank || !tree || !at || !of || !out)
		goto out;
	for (uint32_t i = 0; i < n_ops; i++)
		tree[n_ops + i] = rank[i];
	for (uint32_t i = n_ops - 1; i > 0 && n_ops > 1; i--)
		tree[i] = tree[2 * i] < tree[2 * i + 1] ? tree[2 * i] : tree[2 * i + 1];
	for (size_t k = 0; k < n; k++) {
		int64_t lo, hi;
		uint32_t best = n_ops;	/* live at none: after every operator */

		op_range(&r[k], n_ops, &lo, &hi);
		for (size_t a = (size_t)lo + n_ops, b = (size_t)hi + n_ops + 1; lo <= hi && a < b;
		     a /= 2, b /= 2) {
			if (a & 1 && tree[a] < best)
				best = tree[a];
			if (a & 1)
				a++;
			if (b & 1 && tree[b - 1] < best)
				best = tree[b - 1];
		}
		of[k] = best;
		at[best + 1]++;
	}
	for (uint32_t i = 0; i <= n_ops; i++)	/* a counting sort by rank keeps size order */
		at[i + 1] += at[i];
	for (size_t k = 0; k < n; k++)
		out[at[of[k]]++] = r[k];
	memcpy(r, out, n * sizeof(*r));
	rc = 0;
out:
	free(rank);
	free(tree);
	free(at);
	free(of);
	free(out);
	return rc;
}

static int cmp_size_desc(const void *pa, const void *pb)
{
	const struct ap_rec *a = pa, *b = pb;

	if (a->size != b->size)
		return a->size > b->size ? -1 : 1;
	if (a->first != b->first)
		return a->first < b->first ? -1 : 1;
	return AP_CMP(a->id, b->id);
}

/*
 * TFLM lifetimes (AllocationInfoBuilder::MarkAllocationLifetimes) mapped to execution
 * indices: TFLM time 0 (subgraph inputs) becomes -1, "before operator 0"; op i's time
 * i + 1 becomes i. Unconsumed outputs live only during their own operator.
 */
static size_t micro_records(const struct ap_graph *g, struct ap_rec *r)
{
	int32_t *first = malloc((g->n_tensors + 1) * sizeof(*first));
	int32_t *last = malloc((g->n_tensors + 1) * sizeof(*last));
	size_t n = 0;

	if (!first || !last)
		goto out;
	for (uint32_t i = 0; i < g->n_tensors; i++)
		first[i] = last[i] = INT32_MIN;
	for (uint32_t k = 0; k < g->n_inputs; k++) {
		int32_t t = g->inputs[k];

		if (t >= 0 && (uint32_t)t < g->n_tensors)
			first[t] = last[t] = 0;
	}
	for (uint32_t i = 0; i < g->n_ops; i++) {
		const struct ap_op *op = &g->ops[i];
		int32_t now = (int32_t)i + 1;

		for (uint32_t k = 0; k < op->n_out; k++)
			if (op->out[k] >= 0 && first[op->out[k]] == INT32_MIN)
				first[op->out[k]] = now;
		for (uint32_t k = 0; k < op->n_in; k++)
			if (op->in[k] >= 0)
				last[op->in[k]] = now;
		for (uint32_t k = 0; k < op->n_out; k++)
			if (op->out[k] >= 0)
				last[op->out[k]] = now;
	}
	for (uint32_t k = 0; k < g->n_outputs; k++) {
		int32_t t = g->outputs[k];

		if (t < 0 || (uint32_t)t >= g->n_tensors)
			continue;
		if (first[t] == INT32_MIN)
			first[t] = (int32_t)g->n_ops;
		last[t] = (int32_t)g->n_ops;
	}
	for (uint32_t i = 0; i < g->n_tensors; i++) {
		const struct ap_tensor *t = &g->t[i];

		/* needs_allocating: not constant, not a variable, not empty */
		if (t->alloc != AP_ALLOC_ARENA || !t->bytes || first[i] == INT32_MIN)
			continue;
		if (last[i] < first[i])	/* produced, never read (TFLM leaves -1) */
			last[i] = first[i];
		r[n++] = (struct ap_rec){ .size = align_up(t->bytes, AP_MICRO_ALIGN),
					  .first = first[i] - 1, .last = last[i] - 1,
					  .id = (int32_t)i };
	}
out:
	free(first);
	free(last);
	return n;
}

/* The persistent arena: variables stack up in LiteRT's comparator order (by index). */
static uint64_t plan_persistent(const struct ap_graph *g, struct ap_tplan *p)
{
	uint64_t end = 0;

	for (uint32_t i = 0; i < g->n_tensors; i++) {
		if (g->t[i].alloc != AP_ALLOC_PERSISTENT || !g->t[i].bytes)
			continue;
		p->t[i].offset = (int64_t)align_up(end, AP_TENSOR_ALIGN);
		end = (uint64_t)p->t[i].offset + g->t[i].bytes;
	}
	return end;
}

/* The offsets of strategy s in p, a skeleton of g (tplan_init): -ENOMEM when out of memory. */
static int place_by(const struct ap_graph *g, enum ap_strategy s, struct ap_tplan *p)
{
	struct ap_rec *r = NULL;
	size_t n;
	uint64_t hwm = 0;
	bool sharing = s == AP_STRAT_TFLITE || s == AP_STRAT_GREEDY_SIZE ||
		       s == AP_STRAT_GREEDY_BREADTH;

	free(p->strategy);
	p->strategy = strdup(ap_strategy_name(s));
	if (!p->strategy)
		return -ENOMEM;
	if (s == AP_STRAT_TFLITE) {
		if (plan_tflite(g, p))
			return -ENOMEM;
		goto shared;
	}
	r = calloc(g->n_tensors + 1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	n = s == AP_STRAT_MICRO ? micro_records(g, r) : arena_records(g, r, sharing);
	switch (s) {
	case AP_STRAT_GREEDY_SIZE:
		ap_qsort(r, n, sizeof(*r), cmp_size_desc);
		hwm = ap_place_best_fit(r, n, AP_TENSOR_ALIGN);
		break;
	case AP_STRAT_GREEDY_BREADTH:
		ap_qsort(r, n, sizeof(*r), cmp_size_desc);
		hwm = order_by_breadth(g, r, n) ? UINT64_MAX :
		      ap_place_best_fit(r, n, AP_TENSOR_ALIGN);
		break;
	case AP_STRAT_NAIVE:
		for (size_t k = 0; k < n; k++) {
			r[k].offset = align_up(hwm, AP_TENSOR_ALIGN);
			if (r[k].size)
				hwm = r[k].offset + r[k].size;
		}
		break;
	case AP_STRAT_MICRO:
		ap_order_micro(r, n);
		hwm = ap_place_first_fit(r, n);
		break;
	default:
		hwm = UINT64_MAX;
	}
	if (hwm == UINT64_MAX) {
		free(r);
		return -ENOMEM;
	}
	for (size_t k = 0; k < n; k++) {
		struct ap_ptensor *pt = &p->t[r[k].id];

		pt->offset = (int64_t)r[k].offset;
		if (s == AP_STRAT_MICRO) {
			pt->first = r[k].first;
			pt->last = r[k].last;
		}
	}
	p->arena_bytes = hwm;
	p->persistent_bytes = plan_persistent(g, p);
	free(r);
shared:
	/* in-place sharers resolve to their root's buffer */
	for (uint32_t i = 0; i < p->n; i++) {
		if (!sharing)
			p->t[i].share_root = -1;
		else if (p->t[i].share_root >= 0)
			p->t[i].offset = p->t[p->t[i].share_root].offset;
	}
	return 0;
}

int ap_plan_graph(const struct ap_graph *g, enum ap_strategy s, struct ap_tplan *p,
		  char *err)
{
	/* Bounds every offset and end the strategies compute (docs/design.md, Plans). */
	int rc = ap_graph_check_bytes(g, err);

	if (!rc)
		rc = tplan_init(g, p, err);
	if (rc)
		return rc;
	rc = place_by(g, s, p);
	if (rc) {
		ap_tplan_free(p);
		ap_seterr(err, "out of memory planning");
	}
	return rc;
	return 0;
}

int ap_plan_graph_again(const struct ap_graph *g, enum ap_strategy s, struct ap_tplan *p,
			char *err)
{
	if (p->n != g->n_tensors || p->n_ops != g->n_ops) {
		ap_tplan_free(p);
		return ap_fail(err, -EINVAL, "internal error: replanning a plan of another graph");
	}
	if (tplan_fill(g, p) || place_by(g, s, p)) {
		ap_tplan_free(p);
		return ap_fail(err, -ENOMEM, "out of memory planning");
	}
	return 0;
}
