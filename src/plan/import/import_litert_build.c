// SPDX-License-Identifier: Apache-2.0
/*
 * plan_import: the plan that follows from a LiteRT PrintInterpreterState dump read by
 * import_litert.c (docs/design.md, "Imported plans").
 *
 * import:litert, continued:
 *  - Lifetimes, in execution indices, as ArenaPlanner computes them: graph inputs and
 *    variables (every ...RwPersistent tensor, also persistent temporaries: the persistent
 *    arena is never reused) [0, end]; otherwise a tensor output by an executed node lives
 *    from its first producer to its last consumer, or to the end when it is a graph output
 *    or nobody consumes it after it was produced; a temporary lives [i, j], the first and
 *    last node listing it (normally i == j); anything else (weights, tensors only inside a
 *    delegate or only in Intermediate lists) gets first = last = -1, and when it is an
 *    ...ArenaRw tensor printed with [-1, -1) its kind becomes unplanned.
 *  - In-place sharing: a tensor (arena/input/output kind, bytes > 0, planned) gets
 *    share_root = the root of the lowest-index such tensor with the identical [start, end)
 *    whose lifetime touches its own (one's last == the other's first). The root's last is
 *    then extended to the last node of every tensor sharing it (ArenaPlanner credits the
 *    consumers of the chain to the root); the sharer keeps its own lifetime.
 *  - arena_bytes: the "Subgraph#0 Arena (Normal) <bytes>" status line when present (it may
 *    be the high-water mark + 128 on old TFLite), else the largest end of an ...ArenaRw
 *    tensor. persistent_bytes: likewise with "Arena (Persistent)" and ...RwPersistent.
 *    Offsets are as printed: relative to the lowest tensor of their arena.
 *  - ops[k] is execution index k: opname = builtin or custom name (the delegate's name for
 *    a delegate node), out_name = name of its first output (not -1), "" if none.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/plan.h"
#include "arenaprof/util/sort.h"
#include "import_priv.h"
#include "import_litert.h"

/* Each id >= 0 in the list l, runs expanded. */
#define FOR_LIST(l, id) \
	for (size_t _k = 0; _k < (l)->n; _k++) \
		for (int64_t id = (l)->r[_k].lo; id <= (l)->r[_k].hi; id++) \
			if (id >= 0)

enum { IS_IN = 1, IS_OUT = 2 };

/* Per tensor, what the node lists say, in execution indices (-1: no such node). */
struct uses {
	int32_t *prod;			/* the first node that outputs it */
	int32_t *cons;			/* the last node that reads it */
	int32_t *tmin, *tmax;		/* the first and last node listing it as temporary */
	int32_t *first0, *last0;	/* its lifetime before roots are stretched */
	uint8_t *flag;			/* IS_IN: a graph input, IS_OUT: a graph output */
};

static int uses_alloc(struct uses *u, size_t nt)
{
	size_t i;

	u->prod = malloc(6 * (nt + 1) * sizeof(int32_t));
	u->flag = calloc(nt + 1, 1);
	if (!u->prod || !u->flag) {
		free(u->prod);
		free(u->flag);
		return -1;
	}
	u->cons = u->prod + (nt + 1);
	u->tmin = u->cons + (nt + 1);
	u->tmax = u->tmin + (nt + 1);
	u->first0 = u->tmax + (nt + 1);
	u->last0 = u->first0 + (nt + 1);
	for (i = 0; i < nt; i++)
		u->prod[i] = u->cons[i] = u->tmin[i] = u->tmax[i] = -1;
	return 0;
}

static void uses_free(struct uses *u)
{
	free(u->prod);
	free(u->flag);
}

/* Without an execution plan line every node runs, in order. */
static int litert_default_exec(struct litert *L)
{
	size_t i;

	if (L->have_exec)
		return 0;
	L->exec = malloc((L->nn + 1) * sizeof(*L->exec));
	if (!L->exec)
		return imp_oom(L->r);
	for (i = 0; i < L->nn; i++)
		L->exec[i] = (int32_t)i;
	L->n_exec = L->nn;
	return 0;
}

static void litert_uses(const struct litert *L, struct uses *u)
{
	size_t k;

	FOR_LIST(&L->inputs, id)
		u->flag[id] |= IS_IN;
	FOR_LIST(&L->outputs, id)
		u->flag[id] |= IS_OUT;
	for (k = 0; k < L->n_exec; k++) {
		const struct lnode *nd = &L->nodes[L->exec[k]];

		FOR_LIST(&nd->out, id) {
			if (u->prod[id] < 0)
				u->prod[id] = (int32_t)k;
		}
		FOR_LIST(&nd->in, id)
			u->cons[id] = (int32_t)k;
		FOR_LIST(&nd->tmp, id) {
			if (u->tmin[id] < 0)
				u->tmin[id] = (int32_t)k;
			u->tmax[id] = (int32_t)k;
		}
	}
}

/* Lifetimes and kinds before sharing (see the top of the file). */
static void litert_lifetimes(struct litert *L, struct uses *u)
{
	size_t i;

	for (i = 0; i < L->nt; i++) {
		struct ap_ptensor *t = &L->t[i];
		uint8_t flag = u->flag[i];

		if (u->prod[i] >= 0) {
			t->first = u->prod[i];
			t->last = (flag & IS_OUT) || u->cons[i] < u->prod[i] ?
				  AP_LAST_END : u->cons[i];
		}
		if (u->tmin[i] >= 0) {
			t->first = u->tmin[i];
			t->last = u->tmax[i];
		}
		if ((flag & IS_IN) || t->kind == AP_KIND_VARIABLE) {
			t->first = 0;
			t->last = AP_LAST_END;
		}
		if (t->kind == AP_KIND_ARENA) {
			if (flag & IS_IN)
				t->kind = AP_KIND_INPUT;
			else if (flag & IS_OUT)
				t->kind = AP_KIND_OUTPUT;
			else if (t->first < 0 && t->offset < 0)
				t->kind = AP_KIND_UNPLANNED;
		}
		u->first0[i] = t->first;
		u->last0[i] = t->last;
	}
}

struct span {
	int64_t off;
	uint64_t bytes;
	size_t i;
};

static int span_cmp(const void *a, const void *b)
{
	const struct span *x = a, *y = b;

	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	if (x->bytes != y->bytes)
		return x->bytes < y->bytes ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* The root's last node becomes the last of every tensor that shares it. */
static void stretch_roots(struct litert *L)
{
	size_t i;

	for (i = 0; i < L->nt; i++) {
		struct ap_ptensor *root;

		if (L->t[i].share_root < 0)
			continue;
		root = &L->t[L->t[i].share_root];
		if (L->t[i].last > root->last)
			root->last = L->t[i].last;
	}
}

/*
 * In-place sharing: identical [start, end) and lifetimes that touch. Candidates are
 * sorted by (offset, bytes, index), so only a group of equal ranges is compared.
 */
static int litert_sharing(struct litert *L, const struct uses *u)
{
	struct span *order;
	size_t i, j, m;

	order = malloc((L->nt + 1) * sizeof(*order));
	if (!order)
		return imp_oom(L->r);
	for (i = 0, m = 0; i < L->nt; i++) {
		const struct ap_ptensor *t = &L->t[i];

		if ((t->kind == AP_KIND_ARENA || t->kind == AP_KIND_INPUT ||
		     t->kind == AP_KIND_OUTPUT) && t->offset >= 0 && t->bytes > 0 && t->first >= 0)
			order[m++] = (struct span){ t->offset, t->bytes, i };
	}
	ap_qsort(order, m, sizeof(*order), span_cmp);
	for (i = 0; i < m; i++) {
		size_t bi = order[i].i;

		for (j = i; j > 0 && order[j - 1].off == order[i].off &&
		     order[j - 1].bytes == order[i].bytes; j--)
			;
		for (; j < i; j++) {
			const struct ap_ptensor *a = &L->t[order[j].i];
			size_t ai = order[j].i;

			if (u->last0[ai] != u->first0[bi] && u->last0[bi] != u->first0[ai])
				continue;
			L->t[bi].share_root = a->share_root >= 0 ? a->share_root : a->index;
			break;
		}
	}
	free(order);
	stretch_roots(L);
	return 0;
}

/* ops, in execution order: the node's name and the name of its first output. */
static int litert_ops(const struct litert *L, struct ap_tplan *p)
{
	size_t k;

	if (L->n_exec) {
		p->ops = calloc(L->n_exec, sizeof(*p->ops));
		if (!p->ops)
			return imp_oom(L->r);
		p->n_ops = (uint32_t)L->n_exec;
	}
	for (k = 0; k < L->n_exec; k++) {
		const struct lnode *nd = &L->nodes[L->exec[k]];
		const char *out = "";
		bool found = false;

		FOR_LIST(&nd->out, id) {
			if (!found)
				out = L->t[id].name;
			found = true;
		}
		p->ops[k].opname = strdup(nd->opname);
		p->ops[k].out_name = strdup(out);
		if (!p->ops[k].opname || !p->ops[k].out_name)
			return imp_oom(L->r);
	}
	return 0;
}

/* The arenas' sizes: the status lines when present, else the highest end in each. */
static void litert_sizes(const struct litert *L, struct ap_tplan *p)
{
	size_t i;

	for (i = 0; i < L->nt; i++) {
		const struct ap_ptensor *t = &L->t[i];
		uint64_t e = (uint64_t)t->offset + t->bytes;

		if (t->offset < 0)
			continue;
		if (t->kind == AP_KIND_VARIABLE) {
			if (!L->have_status_persistent && e > p->persistent_bytes)
				p->persistent_bytes = e;
		} else if (!L->have_status_normal && e > p->arena_bytes) {
			p->arena_bytes = e;
		}
	}
	if (L->have_status_normal)
		p->arena_bytes = L->status_normal;
	if (L->have_status_persistent)
		p->persistent_bytes = L->status_persistent;
}

#undef FOR_LIST

int imp_litert_build(struct litert *L, struct ap_tplan *p)
{
	struct uses u;
	int ret;

	if (litert_default_exec(L))
		return -1;
	if (uses_alloc(&u, L->nt))
		return imp_oom(L->r);
	litert_uses(L, &u);
	litert_lifetimes(L, &u);
	ret = litert_sharing(L, &u);
	uses_free(&u);
	if (ret || litert_ops(L, p))
		return -1;
	litert_sizes(L, p);
	p->t = L->t;
	p->n = (uint32_t)L->nt;
	L->t = NULL;
	L->nt = 0;
	return 0;
}
