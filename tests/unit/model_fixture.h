/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the model tests share (test_model.c, test_model_synth.c, test_model_robust.c):
 * check names built with printf, int-list and string checks, and a tiny flatbuffer builder
 * with the synthetic model it makes (struct synth, synth_build) for what no bundled model
 * has: an offline memory plan, the >2 GB buffer form, shape signatures, out-of-range
 * indices. Each test binary is one translation unit, so the buffers here are its own.
 */
#ifndef ARENAPROF_MODEL_FIXTURE_H
#define ARENAPROF_MODEL_FIXTURE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/model.h"
#include "test.h"

/* ---- checks ---- */

/* A check name built with printf (in a buffer that the next call reuses). */
static inline const char *nm(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline const char *nm(const char *fmt, ...)
{
	static char name_buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(name_buf, sizeof(name_buf), fmt, ap);
	va_end(ap);
	return name_buf;
}

static inline bool ints_eq(const int32_t *got, uint32_t n, const int32_t *want, uint32_t wn)
{
	uint32_t i;

	if (n != wn)
		return false;
	for (i = 0; i < n; i++) {
		if (got[i] != want[i])
			return false;
	}
	return true;
}

static inline const char *ints_str(const int32_t *v, uint32_t n)
{
	static char buf[512];
	size_t o = 0;
	uint32_t i;

	buf[0] = 0;
	for (i = 0; i < n && o < sizeof(buf) - 16; i++)
		o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%d", i ? "," : "", v[i]);
	return buf;
}

#define CHECK_INTS(name, got, n, ...) do {						\
	static const int32_t want_[] = { __VA_ARGS__ };					\
	CHECK(name, ints_eq(got, n, want_, sizeof(want_) / sizeof(want_[0])),		\
	      "got [%s]", ints_str(got, n));						\
} while (0)

static inline void check_str(const char *name, const char *got, const char *want)
{
	CHECK(name, got && !strcmp(got, want), "got \"%s\", want \"%s\"",
	      got ? got : "(null)", want);
}

#define CHECK_STR(name, got, want) check_str(name, got, want)

/* ---- a tiny flatbuffer builder for synthetic models ---- */

struct fbb {
	uint8_t *b;
	uint32_t len, cap;
};

static inline void fb_grow(struct fbb *f, uint32_t n)
{
	if (f->len + n <= f->cap)
		return;
	while (f->len + n > f->cap)
		f->cap = f->cap ? f->cap * 2 : 4096;
	f->b = realloc(f->b, f->cap);
	if (!f->b)
		abort();
}

static inline void st32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t fb_put(struct fbb *f, const void *p, uint32_t n)
{
	uint32_t at = f->len;

	fb_grow(f, n);
	memcpy(f->b + at, p, n);
	f->len += n;
	return at;
}

static inline void fb_align(struct fbb *f, uint32_t a)
{
	static const uint8_t zero[8];

	if (f->len % a)
		fb_put(f, zero, a - f->len % a);
}

static inline uint32_t fb_u32(struct fbb *f, uint32_t v)
{
	uint8_t b[4];

	st32(b, v);
	return fb_put(f, b, 4);
}

/* Makes the uoffset at `at` point to `target` (which must come after it). */
static inline void fb_link(struct fbb *f, uint32_t at, uint32_t target)
{
	st32(f->b + at, target - at);
}

enum { F_U8 = 1, F_U32 = 4, F_U64 = 8, F_REF = 0 };

struct fld {
	int id, kind;
	uint64_t val;
	uint32_t *at;	/* F_REF: receives where the uoffset is, for fb_link */
};

static inline uint32_t fb_table(struct fbb *f, const struct fld *fl, int n)
{
	uint32_t vt, pos, vt_len;
	int i, max_id = -1;

	for (i = 0; i < n; i++)
		max_id = fl[i].id > max_id ? fl[i].id : max_id;
	vt_len = 4 + 2 * (uint32_t)(max_id + 1);
	fb_align(f, 4);
	vt = f->len;
	fb_grow(f, vt_len);
	memset(f->b + vt, 0, vt_len);
	f->b[vt] = (uint8_t)vt_len;
	f->b[vt + 1] = (uint8_t)(vt_len >> 8);
	f->len += vt_len;
	fb_align(f, 8);
	pos = fb_u32(f, 0);
	st32(f->b + pos, pos - vt);
	for (i = 0; i < n; i++) {
		uint32_t sz = fl[i].kind == F_REF ? 4 : (uint32_t)fl[i].kind, at;
		uint8_t b[8];
		int k;

		fb_align(f, sz);
		for (k = 0; k < 8; k++)
			b[k] = (uint8_t)(fl[i].val >> (8 * k));
		at = fb_put(f, b, sz);
		if (fl[i].at)
			*fl[i].at = at;
		f->b[vt + 4 + 2 * fl[i].id] = (uint8_t)(at - pos);
		f->b[vt + 5 + 2 * fl[i].id] = (uint8_t)((at - pos) >> 8);
	}
	f->b[vt + 2] = (uint8_t)(f->len - pos);
	f->b[vt + 3] = (uint8_t)((f->len - pos) >> 8);
	return pos;
}

static inline uint32_t fb_ints(struct fbb *f, const int32_t *v, uint32_t n)
{
	uint32_t at, i;

	fb_align(f, 4);
	at = fb_u32(f, n);
	for (i = 0; i < n; i++)
		fb_u32(f, (uint32_t)v[i]);
	return at;
}

static inline uint32_t fb_str(struct fbb *f, const char *s)
{
	uint32_t at, n = (uint32_t)strlen(s);

	fb_align(f, 4);
	at = fb_u32(f, n);
	fb_put(f, s, n + 1);
	return at;
}

/* A vector of n uoffsets to fill in with fb_link(f, slot(at, i), table). */
static inline uint32_t fb_refs(struct fbb *f, uint32_t n)
{
	uint32_t at, i;

	fb_align(f, 4);
	at = fb_u32(f, n);
	for (i = 0; i < n; i++)
		fb_u32(f, 0);
	return at;
}

static inline uint32_t slot(uint32_t vec, uint32_t i)
{
	return vec + 4 + 4 * i;
}

/* Knobs for the synthetic model; all zero gives a valid model. */
struct synth {
	int32_t op0_input2;		/* default -1 */
	int32_t sg_output;		/* default 2 */
	uint32_t t1_buffer;		/* default 1 */
	uint32_t op1_opcode;		/* default 0 */
	uint32_t meta_buffer;		/* default 3 */
	int32_t offline_n;		/* default 4 * n_subgraphs */
	int32_t offline_1;		/* default -1 */
	uint64_t ext_offset;		/* default 8 */
	uint32_t n_subgraphs;		/* default 1; all share one table */
	uint32_t amplify;		/* n tensors sharing one table with a 1000-dim shape */
	bool no_subgraphs;
	bool no_plan;			/* metadata 1 is not an offline plan */
	bool set[8];			/* which of the first fields above are given */
};

enum { S_OP0_INPUT2, S_SG_OUTPUT, S_T1_BUFFER, S_OP1_OPCODE, S_META_BUFFER, S_OFFLINE_N,
	S_OFFLINE_1, S_EXT_OFFSET };

/*
 * Model: opcodes [CUSTOM "MyOp" (via deprecated_builtin_code), CONV_2D (deprecated code
 * only, version 2), GELU (127 + builtin_code 150), code 300 (unknown)]; buffers [empty,
 * 8 data bytes, >2 GB form (offset 8, size 4), offline plan, empty data vector]; metadata
 * [min_runtime_version -> 4, OfflineMemoryAllocation -> 3]; subgraph "sg0": tensors
 * in [1,4] INT8, w [4,4] INT8 (buffer 1), out [1,4] FLOAT32 signature [-1,4] variable,
 * x (buffer 2), inputs [0], outputs [2]; ops: CONV_2D [0,1,-1]->[2] with intermediates [3],
 * MyOp [2]->[2], GELU [] -> [], OP_300.
 */
static inline uint8_t *synth_build(const struct synth *s, size_t *size)
{
	uint32_t root, codes, bufs, metas, sgs, desc, sgv, t_v, o_v, in_v, out_v, name;
	uint32_t a[16], i, nsg = s->n_subgraphs ? s->n_subgraphs : 1;
	int32_t op0_in[3] = { 0, 1, s->set[S_OP0_INPUT2] ? s->op0_input2 : -1 };
	int32_t sg_out = s->set[S_SG_OUTPUT] ? s->sg_output : 2;
	struct fbb f = { 0 };

	fb_u32(&f, 0);
	fb_put(&f, "TFL3", 4);
	root = fb_table(&f, (struct fld[]){
		{ 0, F_U32, 3, NULL }, { 1, F_REF, 0, &codes }, { 2, F_REF, 0, &sgs },
		{ 3, F_REF, 0, &desc }, { 4, F_REF, 0, &bufs }, { 6, F_REF, 0, &metas } }, 6);
	fb_link(&f, 0, root);
	fb_link(&f, desc, fb_str(&f, "synthetic"));

	a[0] = fb_refs(&f, 4);
	fb_link(&f, codes, a[0]);
	fb_link(&f, slot(a[0], 0), fb_table(&f, (struct fld[]){
		{ 0, F_U8, 32, NULL }, { 1, F_REF, 0, &a[1] } }, 2));
	fb_link(&f, a[1], fb_str(&f, "MyOp"));
	fb_link(&f, slot(a[0], 1), fb_table(&f, (struct fld[]){
		{ 0, F_U8, 3, NULL }, { 2, F_U32, 2, NULL } }, 2));
	fb_link(&f, slot(a[0], 2), fb_table(&f, (struct fld[]){
		{ 0, F_U8, 127, NULL }, { 3, F_U32, 150, NULL } }, 2));
	fb_link(&f, slot(a[0], 3), fb_table(&f, (struct fld[]){
		{ 3, F_U32, 300, NULL } }, 1));

	a[0] = fb_refs(&f, 5);
	fb_link(&f, bufs, a[0]);
	fb_link(&f, slot(a[0], 0), fb_table(&f, NULL, 0));
	fb_link(&f, slot(a[0], 1), fb_table(&f, (struct fld[]){ { 0, F_REF, 0, &a[1] } }, 1));
	fb_align(&f, 16);
	fb_link(&f, a[1], fb_put(&f, "\x08\0\0\0" "abcdefgh", 12));
	fb_link(&f, slot(a[0], 2), fb_table(&f, (struct fld[]){
		{ 1, F_U64, s->set[S_EXT_OFFSET] ? s->ext_offset : 8, NULL },
		{ 2, F_U64, 4, NULL } }, 2));
	fb_link(&f, slot(a[0], 3), fb_table(&f, (struct fld[]){ { 0, F_REF, 0, &a[1] } }, 1));
	{
		int32_t plan[3 + 12] = { 1, (int32_t)nsg,
			s->set[S_OFFLINE_N] ? s->offline_n : (int32_t)(4 * nsg) };

		for (i = 0; i < 4 * nsg && i < 12; i++)
			plan[3 + i] = (int32_t)(64 * i);
		plan[4] = s->set[S_OFFLINE_1] ? s->offline_1 : -1;
		a[2] = fb_u32(&f, (uint32_t)sizeof(plan));
		for (i = 0; i < sizeof(plan) / 4; i++)
			fb_u32(&f, (uint32_t)plan[i]);
		fb_link(&f, a[1], a[2]);
	}
	fb_link(&f, slot(a[0], 4), fb_table(&f, (struct fld[]){ { 0, F_REF, 0, &a[1] } }, 1));
	fb_link(&f, a[1], fb_u32(&f, 0));

	a[0] = fb_refs(&f, 2);
	fb_link(&f, metas, a[0]);
	fb_link(&f, slot(a[0], 0), fb_table(&f, (struct fld[]){
		{ 0, F_REF, 0, &a[1] }, { 1, F_U32, 4, NULL } }, 2));
	fb_link(&f, a[1], fb_str(&f, "min_runtime_version"));
	fb_link(&f, slot(a[0], 1), fb_table(&f, (struct fld[]){
		{ 0, F_REF, 0, &a[1] },
		{ 1, F_U32, s->set[S_META_BUFFER] ? s->meta_buffer : 3, NULL } }, 2));
	fb_link(&f, a[1], fb_str(&f, s->no_plan ? "NotAPlan" : "OfflineMemoryAllocation"));

	sgv = fb_refs(&f, s->no_subgraphs ? 0 : nsg);
	fb_link(&f, sgs, sgv);
	a[0] = fb_table(&f, (struct fld[]){
		{ 0, F_REF, 0, &t_v }, { 1, F_REF, 0, &in_v }, { 2, F_REF, 0, &out_v },
		{ 3, F_REF, 0, &o_v }, { 4, F_REF, 0, &name } }, 5);
	for (i = 0; i < nsg && !s->no_subgraphs; i++)
		fb_link(&f, slot(sgv, i), a[0]);
	fb_link(&f, name, fb_str(&f, "sg0"));
	fb_link(&f, in_v, fb_ints(&f, (int32_t[]){ 0 }, 1));
	fb_link(&f, out_v, fb_ints(&f, &sg_out, 1));

	if (s->amplify) {
		/* Every tensor is the same table with a 1000-element shape. */
		int32_t dims[1000];

		for (i = 0; i < 1000; i++)
			dims[i] = 1;
		a[1] = fb_refs(&f, s->amplify);
		fb_link(&f, t_v, a[1]);
		a[2] = fb_table(&f, (struct fld[]){ { 0, F_REF, 0, &a[3] } }, 1);
		fb_link(&f, a[3], fb_ints(&f, dims, 1000));
		for (i = 0; i < s->amplify; i++)
			fb_link(&f, slot(a[1], i), a[2]);
	} else {
		a[1] = fb_refs(&f, 4);
		fb_link(&f, t_v, a[1]);
		fb_link(&f, slot(a[1], 0), fb_table(&f, (struct fld[]){
			{ 0, F_REF, 0, &a[2] }, { 1, F_U8, AP_TT_INT8, NULL },
			{ 3, F_REF, 0, &a[3] } }, 3));
		fb_link(&f, a[2], fb_ints(&f, (int32_t[]){ 1, 4 }, 2));
		fb_link(&f, a[3], fb_str(&f, "in"));
		fb_link(&f, slot(a[1], 1), fb_table(&f, (struct fld[]){
			{ 0, F_REF, 0, &a[2] }, { 1, F_U8, AP_TT_INT8, NULL },
			{ 2, F_U32, s->set[S_T1_BUFFER] ? s->t1_buffer : 1, NULL },
			{ 3, F_REF, 0, &a[3] } }, 4));
		fb_link(&f, a[2], fb_ints(&f, (int32_t[]){ 4, 4 }, 2));
		fb_link(&f, a[3], fb_str(&f, "w"));
		fb_link(&f, slot(a[1], 2), fb_table(&f, (struct fld[]){
			{ 0, F_REF, 0, &a[2] }, { 1, F_U8, AP_TT_FLOAT32, NULL },
			{ 3, F_REF, 0, &a[3] }, { 5, F_U8, 1, NULL }, { 7, F_REF, 0, &a[4] } }, 5));
		fb_link(&f, a[2], fb_ints(&f, (int32_t[]){ 1, 4 }, 2));
		fb_link(&f, a[3], fb_str(&f, "out"));
		fb_link(&f, a[4], fb_ints(&f, (int32_t[]){ -1, 4 }, 2));
		fb_link(&f, slot(a[1], 3), fb_table(&f, (struct fld[]){
			{ 2, F_U32, 2, NULL } }, 1));
	}

	a[1] = fb_refs(&f, 4);
	fb_link(&f, o_v, a[1]);
	fb_link(&f, slot(a[1], 0), fb_table(&f, (struct fld[]){
		{ 0, F_U32, 1, NULL }, { 1, F_REF, 0, &a[2] }, { 2, F_REF, 0, &a[3] },
		{ 3, F_U8, 1, NULL }, { 4, F_REF, 0, &a[5] }, { 8, F_REF, 0, &a[4] } }, 6));
	fb_link(&f, a[2], fb_ints(&f, op0_in, 3));
	fb_link(&f, a[3], fb_ints(&f, (int32_t[]){ 2 }, 1));
	fb_link(&f, a[4], fb_ints(&f, (int32_t[]){ s->amplify ? 0 : 3 }, 1));
	/* Conv2DOptions: stride_w 2, stride_h -3 (to see the sign), fused_activation RELU6. */
	fb_link(&f, a[5], fb_table(&f, (struct fld[]){
		{ 1, F_U32, 2, NULL }, { 2, F_U32, (uint32_t)-3, NULL },
		{ 3, F_U8, 3, NULL } }, 3));
	fb_link(&f, slot(a[1], 1), fb_table(&f, (struct fld[]){
		{ 0, F_U32, s->set[S_OP1_OPCODE] ? s->op1_opcode : 0, NULL },
		{ 1, F_REF, 0, &a[2] }, { 2, F_REF, 0, &a[3] } }, 3));
	fb_link(&f, a[2], fb_ints(&f, (int32_t[]){ 2 }, 1));
	fb_link(&f, a[3], fb_ints(&f, (int32_t[]){ 2 }, 1));
	fb_link(&f, slot(a[1], 2), fb_table(&f, (struct fld[]){ { 0, F_U32, 2, NULL } }, 1));
	fb_link(&f, slot(a[1], 3), fb_table(&f, (struct fld[]){ { 0, F_U32, 3, NULL } }, 1));

	/* An exact-size copy, so that ASan sees any read past the end. */
	*size = f.len;
	{
		uint8_t *out = malloc(f.len);

		memcpy(out, f.b, f.len);
		free(f.b);
		return out;
	}
}

#endif /* ARENAPROF_MODEL_FIXTURE_H */
