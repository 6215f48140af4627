// SPDX-License-Identifier: Apache-2.0
/*
 * tflm_flex: integers of a flexbuffer (a custom operator's options), read with every offset
 * checked against the buffer. Only what the Inits of the kernels tflm_scratch.c models
 * read: a value of a root map by key (TFLite_Detection_PostProcess's
 * m["max_detections"].AsInt32(): int, uint or bool, inline or indirect; absent or of
 * another type, flexbuffers' 0), and element i of the root vector, or of a root map's
 * values, read raw (the signal library's FlexbufferWrapper::ElementAsInt32).
 */
#include <string.h>

#include "tflm_priv.h"

enum { FX_INT = 1, FX_UINT = 2, FX_IND_INT = 6, FX_IND_UINT = 7, FX_MAP = 9, FX_VECTOR = 10,
	FX_BOOL = 26 };

struct fx {
	const uint8_t *b;
	uint64_t n;
};

/* the unsigned (or, sign, signed) integer of w bytes at pos; false when out of bounds */
static bool rd(const struct fx *f, uint64_t pos, unsigned w, bool sign, int64_t *v)
{
	uint64_t u = 0;

	if ((w != 1 && w != 2 && w != 4 && w != 8) || pos > f->n || w > f->n - pos)
		return false;
	for (unsigned k = 0; k < w; k++)
		u |= (uint64_t)f->b[pos + k] << (8 * k);
	if (sign && w < 8 && (u >> (8 * w - 1)) & 1)
		u |= ~UINT64_C(0) << (8 * w);
	*v = (int64_t)u;
	return true;
}

/* pos less the offset stored there (w bytes): where a flexbuffer reference points */
static bool back(const struct fx *f, uint64_t pos, unsigned w, uint64_t *to)
{
	int64_t off;

	if (!rd(f, pos, w, false, &off) || (uint64_t)off > pos)
		return false;
	*to = pos - (uint64_t)off;
	return true;
}

/* the value of packed type t at pos, in a vector of width w */
static bool value(const struct fx *f, uint64_t pos, unsigned w, uint8_t t, int64_t *v)
{
	unsigned type = t >> 2, cw = 1u << (t & 3);
	uint64_t at;

	switch (type) {
	case FX_INT:
		return rd(f, pos, w, true, v);
	case FX_UINT:
	case FX_BOOL:
		return rd(f, pos, w, false, v);
	case FX_IND_INT:
	case FX_IND_UINT:
		return back(f, pos, w, &at) && rd(f, at, cw, type == FX_IND_INT, v);
	default:
		return false;
	}
}

/* the key string at pos equals key (NUL-terminated inside the buffer) */
static bool key_is(const struct fx *f, uint64_t pos, const char *key)
{
	size_t len = strlen(key);

	return pos <= f->n && len < f->n - pos && !memcmp(f->b + pos, key, len) &&
	       !f->b[pos + len];
}

/* The root's vector (a map's values): its position, width, length and kind. */
static bool root_vec(const struct fx *f, uint64_t *vec, unsigned *w, int64_t *size,
		     unsigned *type)
{
	uint64_t n = f->n;
	unsigned rw;
	uint8_t t;

	if (!f->b || n < 3 || f->b[n - 1] > 8)
		return false;
	rw = f->b[n - 1];		/* the root's width, its packed type before it */
	t = f->b[n - 2];
	*type = t >> 2;
	*w = 1u << (t & 3);		/* the vector's width */
	return (*type == FX_MAP || *type == FX_VECTOR) && n - 2 >= rw &&
	       back(f, n - 2 - rw, rw, vec) && *vec >= *w &&
	       rd(f, *vec - *w, *w, false, size) && (uint64_t)*size <= n;
}

int64_t tflm_flex_int(const uint8_t *b, uint32_t n, const char *key)
{
	struct fx f = { b, n };
	uint64_t map, keys, pos;
	int64_t size, kw, ks, v;
	unsigned w, type;

	if (!root_vec(&f, &map, &w, &size, &type) || type != FX_MAP ||
	    map < 3 * (uint64_t)w || !rd(&f, map - 2 * w, w, false, &kw) ||
	    !back(&f, map - 3 * w, w, &keys) || kw > 8 || keys < (uint64_t)kw ||
	    !rd(&f, keys - kw, (unsigned)kw, false, &ks) || ks != size)
		return 0;
	for (int64_t i = 0; i < size; i++) {
		uint64_t vt = map + (uint64_t)size * w + (uint64_t)i;

		if (!back(&f, keys + (uint64_t)i * (uint64_t)kw, (unsigned)kw, &pos))
			return 0;
		if (!key_is(&f, pos, key))
			continue;
		if (vt >= n || !value(&f, map + (uint64_t)i * w, w, b[vt], &v))
			return 0;
		return v;
	}
	return 0;
}

int64_t tflm_flex_elem(const uint8_t *b, uint32_t n, uint32_t i)
{
	struct fx f = { b, n };
	uint64_t vec;
	int64_t size, v;
	unsigned w, type;

	if (!root_vec(&f, &vec, &w, &size, &type) || i >= size ||
	    !rd(&f, vec + (uint64_t)i * w, w, true, &v))
		return 0;
	return v;
}
