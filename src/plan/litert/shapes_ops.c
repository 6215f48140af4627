// SPDX-License-Identifier: Apache-2.0
/*
 * shapes_ops: each operator's output shape as its LiteRT kernel computes it in Prepare (or
 * in Eval, from the values of its shape-giving inputs), and the values of the small int
 * tensors that give shapes. An operator not listed, or one whose inputs are not known,
 * leaves its outputs open (SH_UNKNOWN): shapes.c keeps the file's shape for them.
 */
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/builtin_ops.h"

#include "shapes_priv.h"

/* BuiltinOperator codes (schema.fbs). */
enum { PADDING_SAME = 0, PADDING_VALID = 1 };

#define R AP_SHAPE_MAX_RANK

/* Elements of s, or -1 past 2^40 (no tensor of interest is that large; no overflow). */
static int64_t numel(const struct sv *s)
{
	int64_t n = 1;

	for (uint32_t k = 0; k < s->rank; k++) {
		n *= s->d[k];
		if (n > (1LL << 40))
			return -1;
	}
	return n;
}

/* a's dims as the int64 dims the shape functions compute with. */
static void widen(int64_t *d, const struct sv *a)
{
	for (uint32_t k = 0; k < a->rank; k++)
		d[k] = a->d[k];
}

/* Output 0 takes input j's shape (and its values, which the op leaves alone). */
static int same_as(struct sctx *c, uint32_t j, bool values)
{
	struct sv *a = sh_in(c, j);
	int64_t d[R];
	int rc;

	if (!a)
		return SH_UNKNOWN;
	widen(d, a);
	rc = sh_out(c, 0, d, a->rank);
	if (rc == SH_DONE && values && a->has_val)
		rc = sh_out_val(c, 0, a->v, a->n);
	return rc;
}

/* NumPy broadcasting of a and b into d; false when they do not broadcast. */
static bool broadcast(const struct sv *a, const struct sv *b, int64_t *d, uint32_t *rank)
{
	uint32_t n = a->rank > b->rank ? a->rank : b->rank;

	for (uint32_t k = 0; k < n; k++) {
		int32_t x = k < n - a->rank ? 1 : a->d[k - (n - a->rank)];
		int32_t y = k < n - b->rank ? 1 : b->d[k - (n - b->rank)];

		if (x != y && x != 1 && y != 1)
			return false;
		d[k] = x == 1 ? y : x;
	}
	*rank = n;
	return true;
}

static int64_t floordiv(int64_t a, int64_t b)
{
	int64_t q = a / b;

	return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* One element of int arithmetic; false for a division by 0 or an operator not listed. */
static bool arith1(int32_t op, int64_t x, int64_t y, int64_t *out)
{
	switch (op) {
	case OP_ADD:
		return !__builtin_add_overflow(x, y, out);
	case OP_SUB:
		return !__builtin_sub_overflow(x, y, out);
	case OP_MUL:
		return !__builtin_mul_overflow(x, y, out);
	case OP_MAXIMUM:
		*out = x > y ? x : y;
		return true;
	case OP_MINIMUM:
		*out = x < y ? x : y;
		return true;
	case OP_DIV:	/* div.cc: C division for integers */
		if (y && !(y == -1 && x == INT64_MIN))
			*out = x / y;
		return y && !(y == -1 && x == INT64_MIN);
	case OP_FLOOR_DIV:
		if (y && !(y == -1 && x == INT64_MIN))
			*out = floordiv(x, y);
		return y && !(y == -1 && x == INT64_MIN);
	case OP_FLOOR_MOD:
		if (y && !(y == -1 && x == INT64_MIN))
			*out = x - floordiv(x, y) * y;
		return y && !(y == -1 && x == INT64_MIN);
	default:
		return false;
	}
}

/* Elementwise int arithmetic on values: a scalar or an equal-length operand. */
static bool arith(int32_t op, const struct sv *a, const struct sv *b, int64_t *out, uint32_t *n)
{
	uint32_t m = a->n > b->n ? a->n : b->n;

	if ((a->n != m && a->n != 1) || (b->n != m && b->n != 1))
		return false;
	for (uint32_t i = 0; i < m; i++)
		if (!arith1(op, a->v[a->n == 1 ? 0 : i], b->v[b->n == 1 ? 0 : i], &out[i]))
			return false;
	*n = m;
	return true;
}

static int binary(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *b = sh_in(c, 1);
	int64_t d[R];
	int64_t v[SV_MAX_VALS];
	uint32_t rank, n;
	int rc;

	if (!a || !b)
		return SH_UNKNOWN;
	if (!broadcast(a, b, d, &rank))
		return SH_REFUSED;	/* ProcessBroadcastShapes fails */
	rc = sh_out(c, 0, d, rank);
	if (rc == SH_DONE && a->has_val && b->has_val && arith(c->opcode, a, b, v, &n))
		rc = sh_out_val(c, 0, v, n);
	return rc;
}

static int select_v2(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *b = sh_in(c, 1), *e = sh_in(c, 2), ab = { .rank = 0 };
	int64_t d[R];
	uint32_t rank;

	if (!a || !b || !e || !broadcast(a, b, d, &ab.rank))
		return SH_UNKNOWN;
	for (uint32_t k = 0; k < ab.rank; k++)
		ab.d[k] = (int32_t)d[k];	/* each is one of a's or b's */
	if (!broadcast(&ab, e, d, &rank))
		return SH_UNKNOWN;
	return sh_out(c, 0, d, rank);
}

static int shape_op(struct sctx *c)
{
	struct sv *a = sh_in(c, 0);
	int64_t v[R], d = a ? a->rank : 0;

	if (!a)
		return SH_UNKNOWN;
	for (uint32_t k = 0; k < a->rank; k++)
		v[k] = a->d[k];
	if (sh_out(c, 0, &d, 1) != SH_DONE)
		return SH_UNKNOWN;
	return sh_out_val(c, 0, v, a->rank);
}

/* Shape values to dims; one -1 takes what is left of numel (OP_RESHAPE). */
static bool to_dims(const struct sv *s, int64_t total, int64_t *d, uint32_t *rank)
{
	int64_t known = 1;
	int32_t hole = -1;

	if (s->n > R)
		return false;
	for (uint32_t k = 0; k < s->n; k++) {
		if (s->v[k] == -1 && total >= 0 && hole < 0) {
			hole = (int32_t)k;
			continue;
		}
		if (s->v[k] < 0 || s->v[k] > INT32_MAX)
			return false;
		d[k] = s->v[k];
		known *= d[k];
		if (known > (1LL << 40))
			return false;
	}
	if (hole >= 0) {
		if (!known || total % known)
			return false;
		d[hole] = total / known;
	}
	*rank = s->n;
	return true;
}

static int reshape(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *s = c->op->n_inputs > 1 ? sh_val(c, 1) : NULL, o;
	uint32_t nv = c->op->vecs ? c->op->vecs->n_ints : 0;
	int64_t v[R];
	int64_t d[R];
	uint32_t rank;
	int rc;

	/* reshape.cc GetOutputShape: a 1-D shape tensor, else the new_shape option */
	if (!s && nv <= R && !(c->op->n_inputs > 1 && sh_in(c, 1) && sh_in(c, 1)->rank == 1)) {
		for (uint32_t k = 0; k < nv; k++)
			v[k] = c->op->vecs->ints[k];
		o.v = v;
		o.n = nv;
		if (o.n == 1 && !v[0])
			o.n = 0;	/* legacy models write [0] for a scalar */
		s = &o;
	}
	if (!a || !s || !to_dims(s, numel(a), d, &rank))
		return SH_UNKNOWN;
	{
		int64_t n = 1;

		for (uint32_t k = 0; k < rank; k++)
			n *= d[k];	/* to_dims keeps the product under 2^40 */
		if (n != numel(a))
			return SH_REFUSED;	/* reshape_utils: num_input_elements differ */
	}
	rc = sh_out(c, 0, d, rank);
	if (rc == SH_DONE && a->has_val)
		rc = sh_out_val(c, 0, a->v, a->n);
	return rc;
}

static int expand_dims(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *ax = sh_val(c, 1);
	int64_t d[R];
	int64_t at;
	int rc;

	if (!a || !ax || ax->n != 1 || a->rank >= R)
		return SH_UNKNOWN;
	at = ax->v[0] < 0 ? ax->v[0] + a->rank + 1 : ax->v[0];
	if (at < 0 || at > a->rank)
		return SH_UNKNOWN;
	for (uint32_t k = 0, o = 0; k <= a->rank; k++)
		d[k] = k == at ? 1 : a->d[o++];
	rc = sh_out(c, 0, d, a->rank + 1);
	if (rc == SH_DONE && a->has_val)
		rc = sh_out_val(c, 0, a->v, a->n);
	return rc;
}

static int norm_axis(int64_t ax, uint32_t rank)
{
	ax = ax < 0 ? ax + rank : ax;
	return ax < 0 || ax >= rank ? -1 : (int)ax;
}

/* squeeze.cc: the squeeze_dims option, or every dimension of 1 when it is empty. */
static int squeeze(struct sctx *c)
{
	struct sv *a = sh_in(c, 0);
	bool drop[R] = { false };
	uint32_t nd = c->op->vecs ? c->op->vecs->n_ints : 0;
	int64_t d[R];
	uint32_t n = 0;

	if (!a)
		return SH_UNKNOWN;
	for (uint32_t i = 0; i < nd; i++) {
		int k = norm_axis(c->op->vecs->ints[i], a->rank);

		if (k < 0 || a->d[k] != 1)
			return SH_UNKNOWN;
		drop[k] = true;
	}
	for (uint32_t k = 0; k < a->rank; k++)
		if (!(nd ? drop[k] : a->d[k] == 1))
			d[n++] = a->d[k];
	return sh_out(c, 0, d, n);
}

static int transpose(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *p = sh_val(c, 1);
	int64_t d[R];

	if (!a || !p || p->n != a->rank)
		return SH_UNKNOWN;
	for (uint32_t k = 0; k < a->rank; k++) {
		if (p->v[k] < 0 || p->v[k] >= a->rank)
			return SH_UNKNOWN;
		d[k] = a->d[p->v[k]];
	}
	return sh_out(c, 0, d, a->rank);
}

static int concatenation(struct sctx *c)
{
	struct sv *a = sh_in(c, 0);
	int64_t d[R];
	int64_t v[SV_MAX_VALS];
	uint32_t nv = 0;
	bool vals = true;
	int ax, rc;

	if (!a)
		return SH_UNKNOWN;
	ax = norm_axis(sh_opt(c, 0, 4, 0), a->rank);
	if (ax < 0)
		return SH_UNKNOWN;
	widen(d, a);
	d[ax] = 0;
	for (uint32_t j = 0; j < c->op->n_inputs; j++) {
		struct sv *b = sh_in(c, j);

		if (!b || b->rank != a->rank)
			return SH_UNKNOWN;
		d[ax] += b->d[ax];
		vals = vals && b->has_val && a->rank == 1 && nv + b->n <= SV_MAX_VALS;
		if (vals) {
			memcpy(v + nv, b->v, b->n * sizeof(*v));
			nv += b->n;
		}
	}
	rc = sh_out(c, 0, d, a->rank);
	if (rc == SH_DONE && vals)
		rc = sh_out_val(c, 0, v, nv);
	return rc;
}

static int pack(struct sctx *c)
{
	struct sv *a = sh_in(c, 0);
	int64_t n = c->op->n_inputs, ax = sh_opt(c, 1, 4, 0), v[SV_MAX_VALS];
	int64_t d[R];
	bool vals = a && a->rank == 0 && n <= SV_MAX_VALS;
	int rc;

	if (!a || a->rank >= R)
		return SH_UNKNOWN;
	ax = ax < 0 ? ax + a->rank + 1 : ax;
	if (ax < 0 || ax > a->rank)
		return SH_UNKNOWN;
	for (uint32_t k = 0, o = 0; k <= a->rank; k++)
		d[k] = k == ax ? n : a->d[o++];
	for (uint32_t j = 0; j < n && vals; j++) {
		struct sv *b = sh_val(c, j);

		vals = b && b->n == 1;
		if (vals)
			v[j] = b->v[0];
	}
	rc = sh_out(c, 0, d, a->rank + 1);
	if (rc == SH_DONE && vals)
		rc = sh_out_val(c, 0, v, (uint32_t)n);
	return rc;
}

static int unpack(struct sctx *c)
{
	struct sv *a = sh_in(c, 0);
	int64_t d[R];
	int ax, rc = SH_DONE;

	if (!a)
		return SH_UNKNOWN;
	ax = norm_axis(sh_opt(c, 1, 4, 0), a->rank);
	if (ax < 0)
		return SH_UNKNOWN;
	for (uint32_t k = 0, o = 0; k < a->rank; k++)
		if ((int)k != ax)
			d[o++] = a->d[k];
	for (uint32_t j = 0; j < c->op->n_outputs && rc == SH_DONE; j++) {
		rc = sh_out(c, j, d, a->rank - 1);
		if (rc == SH_DONE && a->has_val && a->rank == 1 && j < a->n)
			rc = sh_out_val(c, j, &a->v[j], 1);
	}
	return rc;
}

/* One dimension of a strided slice: its size, and its first index (for values). */
static bool slice_dim(int64_t dim, int64_t b, int64_t e, int64_t s, bool bmask, bool emask,
		      bool shrink, bool offset, int64_t *size, int64_t *first)
{
	if (!s)
		return false;
	if (shrink) {
		b = b < 0 ? b + dim : b;
		if (b < 0 || b >= dim)
			return false;
		*first = b;
		*size = 1;
		return true;
	}
	if (offset)
		e += b;
	if (bmask)
		b = s > 0 ? 0 : dim - 1;
	else {
		b = b < 0 ? b + dim : b;
		b = s > 0 ? (b < 0 ? 0 : b > dim ? dim : b) :
			    (b < -1 ? -1 : b > dim - 1 ? dim - 1 : b);
	}
	if (emask)
		e = s > 0 ? dim : -1;
	else {
		e = e < 0 ? e + dim : e;
		e = s > 0 ? (e < 0 ? 0 : e > dim ? dim : e) :
			    (e < -1 ? -1 : e > dim - 1 ? dim - 1 : e);
	}
	*size = s > 0 ? (e - b + s - 1) / s : (b - e - s - 1) / -s;
	if (*size < 0)
		*size = 0;
	*first = b;
	return true;
}

static int strided_slice(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *bg = sh_val(c, 1), *en = sh_val(c, 2), *st = sh_val(c, 3);
	int64_t bm = sh_opt(c, 0, 4, 0), em = sh_opt(c, 1, 4, 0), shm = sh_opt(c, 4, 4, 0);
	bool offset = sh_opt(c, 5, 1, 0) != 0;
	int64_t d[R];
	int64_t v[SV_MAX_VALS], first0 = 0, step0 = 1;
	uint32_t n = 0;
	int rc;

	if (!a || !bg || !en || !st || bg->n != en->n || bg->n != st->n || bg->n > a->rank ||
	    sh_opt(c, 2, 4, 0) || sh_opt(c, 3, 4, 0))	/* ellipsis, new axis: left open */
		return SH_UNKNOWN;
	for (uint32_t k = 0; k < a->rank; k++) {
		int64_t size = a->d[k], first = 0;

		if (k < bg->n && !slice_dim(a->d[k], bg->v[k], en->v[k], st->v[k], bm >> k & 1,
					    em >> k & 1, shm >> k & 1, offset, &size, &first))
			return SH_UNKNOWN;
		if (k == 0) {
			first0 = first;
			step0 = k < st->n ? st->v[k] : 1;
		}
		if (!(k < bg->n && (shm >> k & 1)))
			d[n++] = size;
	}
	rc = sh_out(c, 0, d, n);
	if (rc != SH_DONE || !a->has_val || a->rank != 1)
		return rc;
	{
		int64_t m = n ? d[0] : 1;

		if (m > SV_MAX_VALS)
			return rc;
		for (int64_t i = 0; i < m; i++) {
			int64_t at = first0 + i * step0;

			if (at < 0 || at >= a->n)
				return rc;
			v[i] = a->v[at];
		}
		return sh_out_val(c, 0, v, (uint32_t)m);
	}
}

static int slice(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *bg = sh_val(c, 1), *sz = sh_val(c, 2);
	int64_t d[R];

	if (!a || !bg || !sz || bg->n != a->rank || sz->n != a->rank)
		return SH_UNKNOWN;
	for (uint32_t k = 0; k < a->rank; k++) {
		int64_t s = sz->v[k] == -1 ? a->d[k] - bg->v[k] : sz->v[k];

		if (bg->v[k] < 0 || s < 0 || bg->v[k] + s > a->d[k])
			return SH_UNKNOWN;
		d[k] = s;
	}
	return sh_out(c, 0, d, a->rank);
}

static int split_common(struct sctx *c, struct sv *a, int ax, const int64_t *sizes,
			uint32_t n)
{
	int64_t d[R];
	int64_t at = 0;
	int rc = SH_DONE;

	widen(d, a);
	for (uint32_t j = 0; j < n && j < c->op->n_outputs && rc == SH_DONE; j++) {
		d[ax] = sizes[j];
		rc = sh_out(c, j, d, a->rank);
		if (rc == SH_DONE && a->has_val && a->rank == 1 && at + sizes[j] <= a->n)
			rc = sh_out_val(c, j, a->v + at, (uint32_t)sizes[j]);
		at += sizes[j];
	}
	return rc;
}

static int split_v(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *ss = sh_val(c, 1), *axv = sh_val(c, 2);
	int64_t sizes[SV_MAX_VALS], rest;
	int ax, hole = -1;

	if (!a || !ss || !axv || axv->n != 1 || (ax = norm_axis(axv->v[0], a->rank)) < 0)
		return SH_UNKNOWN;
	rest = a->d[ax];
	for (uint32_t j = 0; j < ss->n; j++) {
		sizes[j] = ss->v[j];
		if (sizes[j] == -1 && hole < 0)
			hole = (int)j;
		else if (sizes[j] < 0)
			return SH_UNKNOWN;
		else
			rest -= sizes[j];
	}
	if (hole >= 0)
		sizes[hole] = rest;
	if (rest < 0 || (hole < 0 && rest))
		return SH_UNKNOWN;
	return split_common(c, a, ax, sizes, ss->n);
}

static int split(struct sctx *c)
{
	struct sv *axv = sh_val(c, 0), *a = sh_in(c, 1);
	int64_t n = sh_opt(c, 0, 4, 0), sizes[SV_MAX_VALS];
	int ax;

	if (!a || !axv || axv->n != 1 || n <= 0 || n > SV_MAX_VALS ||
	    (ax = norm_axis(axv->v[0], a->rank)) < 0 || a->d[ax] % n)
		return SH_UNKNOWN;
	for (int64_t j = 0; j < n; j++)
		sizes[j] = a->d[ax] / n;
	return split_common(c, a, ax, sizes, (uint32_t)n);
}

static int gather(struct sctx *c)
{
	struct sv *p = sh_in(c, 0), *ix = sh_in(c, 1);
	int64_t bd = sh_opt(c, 1, 4, 0), v[SV_MAX_VALS];
	int64_t d[R];
	uint32_t n = 0;
	int ax, rc;

	if (!p || !ix || (ax = norm_axis(sh_opt(c, 0, 4, 0), p->rank)) < 0)
		return SH_UNKNOWN;
	bd = bd < 0 ? bd + ix->rank : bd;
	if (bd < 0 || bd > ix->rank || p->rank + ix->rank - bd - 1 > R)
		return SH_UNKNOWN;
	for (int k = 0; k < ax; k++)
		d[n++] = p->d[k];
	for (uint32_t k = (uint32_t)bd; k < ix->rank; k++)
		d[n++] = ix->d[k];
	for (uint32_t k = (uint32_t)ax + 1; k < p->rank; k++)
		d[n++] = p->d[k];
	rc = sh_out(c, 0, d, n);
	if (rc != SH_DONE || !p->has_val || !ix->has_val || p->rank != 1)
		return rc;
	for (uint32_t i = 0; i < ix->n; i++) {
		if (ix->v[i] < 0 || ix->v[i] >= p->n)
			return rc;
		v[i] = p->v[ix->v[i]];
	}
	return sh_out_val(c, 0, v, ix->n);
}

static int range(struct sctx *c)
{
	struct sv *s = sh_val(c, 0), *l = sh_val(c, 1), *dl = sh_val(c, 2);
	int64_t n, v[SV_MAX_VALS];
	int64_t d;
	int rc;

	if (!s || !l || !dl || s->n != 1 || l->n != 1 || dl->n != 1 || !dl->v[0])
		return SH_UNKNOWN;
	n = dl->v[0] > 0 ? (l->v[0] - s->v[0] + dl->v[0] - 1) / dl->v[0] :
			   (s->v[0] - l->v[0] - dl->v[0] - 1) / -dl->v[0];
	if (n < 0 || n > INT32_MAX)
		return SH_UNKNOWN;
	d = n;
	rc = sh_out(c, 0, &d, 1);
	if (rc != SH_DONE || n > SV_MAX_VALS)
		return rc;
	for (int64_t i = 0; i < n; i++)
		v[i] = s->v[0] + i * dl->v[0];
	return sh_out_val(c, 0, v, (uint32_t)n);
}

static int pad(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *p = sh_val(c, 1);
	int64_t d[R];

	if (!a || !p || p->n != 2 * a->rank)
		return SH_UNKNOWN;
	for (uint32_t k = 0; k < a->rank; k++) {
		if (p->v[2 * k] < 0 || p->v[2 * k + 1] < 0)
			return SH_UNKNOWN;
		d[k] = (a->d[k] + p->v[2 * k] + p->v[2 * k + 1]);
	}
	return sh_out(c, 0, d, a->rank);
}

static int64_t window(int64_t in, int64_t k, int64_t s, int64_t dil, int64_t padding)
{
	int64_t eff = (k - 1) * dil + 1;

	if (s <= 0 || k <= 0 || dil <= 0)
		return -1;
	return padding == PADDING_SAME ? (in + s - 1) / s : (in - eff + s) / s;
}

/* OP_CONV_2D, OP_DEPTHWISE_CONV_2D and the pools: NHWC in, NHWC out. */
static int conv_like(struct sctx *c)
{
	struct sv *a = sh_in(c, 0);
	struct sv *f = c->opcode == OP_CONV_2D || c->opcode == OP_DEPTHWISE_CONV_2D ?
		       sh_in(c, 1) : NULL;
	bool dw = c->opcode == OP_DEPTHWISE_CONV_2D, pool = !f;
	int64_t kh, kw, dh = 1, dwl = 1;
	int64_t d[4];

	if (!a || a->rank != 4 || (!pool && (!f || f->rank != 4)))
		return SH_UNKNOWN;
	if (pool) {
		kw = sh_opt(c, 3, 4, 0);
		kh = sh_opt(c, 4, 4, 0);
	} else {
		kh = f->d[1];
		kw = f->d[2];
		dwl = sh_opt(c, dw ? 5 : 4, 4, 1);
		dh = sh_opt(c, dw ? 6 : 5, 4, 1);
	}
	d[0] = a->d[0];
	d[1] = window(a->d[1], kh, sh_opt(c, 2, 4, 1), dh, sh_opt(c, 0, 1, 0));
	d[2] = window(a->d[2], kw, sh_opt(c, 1, 4, 1), dwl, sh_opt(c, 0, 1, 0));
	d[3] = pool ? a->d[3] : dw ? f->d[3] : f->d[0];
	if (d[1] < 0 || d[2] < 0)
		return SH_REFUSED;	/* a VALID window wider than its input */
	return sh_out(c, 0, d, 4);
}

static int reduce(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *ax = sh_val(c, 1);
	bool keep = sh_opt(c, 0, 1, 0) != 0, drop[R] = { false };
	int64_t d[R];
	uint32_t n = 0;
	int rc;

	if (!a || !ax)
		return SH_UNKNOWN;
	for (uint32_t i = 0; i < ax->n; i++) {
		int k = norm_axis(ax->v[i], a->rank);

		if (k < 0)
			return SH_UNKNOWN;
		drop[k] = true;
	}
	for (uint32_t k = 0; k < a->rank; k++)
		if (!drop[k] || keep)
			d[n++] = drop[k] ? 1 : a->d[k];
	rc = sh_out(c, 0, d, n);
	if (rc == SH_DONE && c->opcode == OP_REDUCE_PROD && a->has_val && a->rank == 1 && !n) {
		int64_t p = 1;

		for (uint32_t i = 0; i < a->n; i++)
			if (__builtin_mul_overflow(p, a->v[i], &p))
				return rc;
		rc = sh_out_val(c, 0, &p, 1);
	}
	return rc;
}

static int arg_minmax(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *ax = sh_val(c, 1);
	int64_t d[R];
	uint32_t n = 0;
	int k;

	if (!a || !ax || ax->n != 1 || (k = norm_axis(ax->v[0], a->rank)) < 0)
		return SH_UNKNOWN;
	for (uint32_t i = 0; i < a->rank; i++)
		if ((int)i != k)
			d[n++] = a->d[i];
	return sh_out(c, 0, d, n);
}

static int fully_connected(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *w = sh_in(c, 1);
	int64_t d[R];

	if (!a || !w || w->rank != 2 || !w->d[1] || !a->rank || numel(a) < 0)
		return SH_UNKNOWN;
	if (sh_opt(c, 2, 1, 0)) {	/* keep_num_dims */
		widen(d, a);
		d[a->rank - 1] = w->d[0];
		return sh_out(c, 0, d, a->rank);
	}
	if (numel(a) % w->d[1])
		return SH_UNKNOWN;
	d[0] = (numel(a) / w->d[1]);
	d[1] = w->d[0];
	return sh_out(c, 0, d, 2);
}

static int batch_matmul(struct sctx *c)
{
	struct sv *x = sh_in(c, 0), *y = sh_in(c, 1), bx, by;
	bool ax = sh_opt(c, 0, 1, 0) != 0, ay = sh_opt(c, 1, 1, 0) != 0;
	int64_t d[R];
	uint32_t n;

	if (!x || !y || x->rank < 2 || y->rank < 2)
		return SH_UNKNOWN;
	bx = *x;
	by = *y;
	bx.rank -= 2;
	by.rank -= 2;
	if (!broadcast(&bx, &by, d, &n) || n + 2 > R)
		return SH_UNKNOWN;
	d[n] = ax ? x->d[x->rank - 1] : x->d[x->rank - 2];
	d[n + 1] = ay ? y->d[y->rank - 2] : y->d[y->rank - 1];
	return sh_out(c, 0, d, n + 2);
}

static int rfft2d(struct sctx *c)
{
	struct sv *a = sh_in(c, 0), *fl = sh_val(c, 1);
	int64_t d[R];

	if (!a || !fl || fl->n != 2 || a->rank < 2 || fl->v[0] < 0 || fl->v[1] < 0)
		return SH_UNKNOWN;
	widen(d, a);
	d[a->rank - 2] = fl->v[0];
	d[a->rank - 1] = (fl->v[1] / 2 + 1);
	return sh_out(c, 0, d, a->rank);
}

/* Outputs shaped by a value: OP_TILE (multiples), OP_FILL (dims), OP_BROADCAST_TO, RESIZE_*. */
static int by_value(struct sctx *c)
{
	struct sv *a = sh_in(c, c->opcode == OP_FILL ? 1 : 0);
	struct sv *s = sh_val(c, c->opcode == OP_FILL ? 0 : 1), t;
	int64_t d[R];
	uint32_t n;

	if (!a || !s)
		return SH_UNKNOWN;
	switch (c->opcode) {
	case OP_TILE:
		if (s->n != a->rank)
			return SH_UNKNOWN;
		for (uint32_t k = 0; k < a->rank; k++) {
			if (s->v[k] < 0 || s->v[k] > INT32_MAX)
				return SH_UNKNOWN;
			d[k] = a->d[k] * s->v[k];
		}
		return sh_out(c, 0, d, a->rank);
	case OP_FILL:
		return to_dims(s, -1, d, &n) ? sh_out(c, 0, d, n) : SH_UNKNOWN;
	case OP_BROADCAST_TO:
		if (!to_dims(s, -1, d, &t.rank))
			return SH_UNKNOWN;
		for (uint32_t k = 0; k < t.rank; k++) {
			if (d[k] > INT32_MAX)
				return SH_UNKNOWN;
			t.d[k] = (int32_t)d[k];
		}
		if (!broadcast(a, &t, d, &n))
			return SH_UNKNOWN;
		return sh_out(c, 0, d, n);
	default:	/* OP_RESIZE_BILINEAR, OP_RESIZE_NEAREST_NEIGHBOR */
		if (a->rank != 4 || s->n != 2)
			return SH_UNKNOWN;
		d[0] = a->d[0];
		d[1] = s->v[0];
		d[2] = s->v[1];
		d[3] = a->d[3];
		return sh_out(c, 0, d, 4);
	}
}

static int transpose_conv(struct sctx *c)
{
	struct sv *s = sh_val(c, 0);
	int64_t d[R];
	uint32_t n;

	return s && to_dims(s, -1, d, &n) ? sh_out(c, 0, d, n) : SH_UNKNOWN;
}

static int rank_op(struct sctx *c)
{
	struct sv *a = sh_in(c, 0);
	int64_t v = a ? a->rank : 0;
	int64_t none[1] = { 0 };

	if (!a || sh_out(c, 0, none, 0) != SH_DONE)
		return SH_UNKNOWN;
	return sh_out_val(c, 0, &v, 1);
}

int sh_infer_op(struct sctx *c)
{
	switch (c->opcode) {
	case OP_ADD: case OP_SUB: case OP_MUL: case OP_DIV: case OP_FLOOR_DIV: case OP_FLOOR_MOD:
	case OP_POW:
	case OP_MAXIMUM: case OP_MINIMUM: case OP_LESS: case OP_LESS_EQUAL: case OP_GREATER:
	case OP_GREATER_EQUAL: case OP_EQUAL: case OP_NOT_EQUAL: case OP_LOGICAL_AND:
	case OP_LOGICAL_OR:
	case OP_SQUARED_DIFFERENCE: case OP_PRELU:
		return binary(c);
	case OP_SELECT_V2:
		return select_v2(c);
	case OP_CAST: case OP_QUANTIZE: case OP_DEQUANTIZE:
		return same_as(c, 0, c->opcode == OP_CAST);
	case OP_SELECT:
		return same_as(c, 1, false);
	case OP_FLOOR: case OP_L2_NORMALIZATION: case OP_LOCAL_RESPONSE_NORMALIZATION:
	case OP_LOGISTIC:
	case OP_RELU: case OP_RELU_N1_TO_1: case OP_RELU6: case OP_SOFTMAX: case OP_TANH:
	case OP_EXP:
	case OP_LOG_SOFTMAX: case OP_NEG: case OP_SIN: case OP_LOG: case OP_SQRT: case OP_RSQRT:
	case OP_LOGICAL_NOT:
	case OP_SQUARE: case OP_ZEROS_LIKE: case OP_LEAKY_RELU: case OP_ABS: case OP_CEIL:
	case OP_REVERSE_V2:
	case OP_COS: case OP_ELU: case OP_ROUND: case OP_HARD_SWISH: case OP_CUMSUM: case OP_GELU:
	case OP_SIGN:
	case OP_REAL: case OP_COMPLEX_ABS:
		return same_as(c, 0, false);
	case OP_SHAPE:
		return shape_op(c);
	case OP_RANK:
		return rank_op(c);
	case OP_RESHAPE:
		return reshape(c);
	case OP_EXPAND_DIMS:
		return expand_dims(c);
	case OP_SQUEEZE:
		return squeeze(c);
	case OP_TRANSPOSE:
		return transpose(c);
	case OP_CONCATENATION:
		return concatenation(c);
	case OP_PACK:
		return pack(c);
	case OP_UNPACK:
		return unpack(c);
	case OP_STRIDED_SLICE:
		return strided_slice(c);
	case OP_SLICE:
		return slice(c);
	case OP_SPLIT:
		return split(c);
	case OP_SPLIT_V:
		return split_v(c);
	case OP_GATHER:
		return gather(c);
	case OP_RANGE:
		return range(c);
	case OP_PAD: case OP_PADV2: case OP_MIRROR_PAD:
		return pad(c);
	case OP_CONV_2D: case OP_DEPTHWISE_CONV_2D: case OP_AVERAGE_POOL_2D: case OP_MAX_POOL_2D:
	case OP_L2_POOL_2D:
		return conv_like(c);
	case OP_MEAN: case OP_SUM: case OP_REDUCE_PROD: case OP_REDUCE_MAX: case OP_REDUCE_MIN:
	case OP_REDUCE_ANY: case OP_REDUCE_ALL:
		return reduce(c);
	case OP_ARG_MAX: case OP_ARG_MIN:
		return arg_minmax(c);
	case OP_FULLY_CONNECTED:
		return fully_connected(c);
	case OP_BATCH_MATMUL:
		return batch_matmul(c);
	case OP_RFFT2D:
		return rfft2d(c);
	case OP_TILE: case OP_FILL: case OP_BROADCAST_TO: case OP_RESIZE_BILINEAR:
	case OP_RESIZE_NEAREST_NEIGHBOR:
		return by_value(c);
	case OP_TRANSPOSE_CONV:
		return transpose_conv(c);
	default:
		return SH_UNKNOWN;
	}
}
