// SPDX-License-Identifier: Apache-2.0
/*
 * The flatbuffer primitives under the TFLite model reader (model.c): a hand-written,
 * bounds-checked walk of a flatbuffer.
 *
 * Why by hand and not with generated code: Debian 12 packages no flatbuffers library for C
 * (flatcc is not in bookworm, and libflatbuffers-dev is C++ only), and the reader has to be
 * hardened against hostile files anyway, which generated accessors are not (they trust the
 * buffer unless a separate verifier runs first). Here every read goes through one of a few
 * checked helpers:
 *
 *  - offsets are computed in 64 bits and must land inside the file;
 *  - a table's vtable must lie inside the file, and a field must lie inside its table;
 *  - a vector's length times its element size must fit in the bytes after it;
 *  - a string must be NUL-terminated inside the file;
 *  - every allocation is charged to a budget of a small multiple of the file size, so a
 *    file whose vectors all point at one shared table cannot make us allocate gigabytes.
 *
 * The vtable slot of field k is 4 + 2 * k; a union field takes two ids (type, value).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "flatbuf.h"

const char *fb_where(const struct rd *r, const char *what, char *buf, size_t len)
{
	if (!r->obj)
		snprintf(buf, len, "model %s", what);
	else if (r->sg > 0)
		snprintf(buf, len, "subgraph %" PRId64 " %s %" PRIu64 " %s", r->sg, r->obj,
			 r->idx, what);
	else
		snprintf(buf, len, "%s %" PRIu64 " %s", r->obj, r->idx, what);
	return buf;
}

int fb_truncated(struct rd *r, const char *what, uint64_t off)
{
	char w[128];

	ap_seterr(r->err, "truncated: %s runs past end of file (offset %" PRIu64 ", file %"
		  PRIu64 " bytes)", fb_where(r, what, w, sizeof(w)), off, r->size);
	return r->rc;
}

/*
 * Allocates n elements of elem bytes (n may be 0: one element is allocated so that NULL
 * always means failure), charged to the file's budget.
 */
void *fb_ralloc(struct rd *r, uint64_t n, uint64_t elem, const char *what)
{
	uint64_t bytes = (n ? n : 1) * elem;	/* n < 2^32 and elem is small: no overflow */
	char w[128];
	void *p;

	if (bytes + ALLOC_OVERHEAD > r->limit - r->used || bytes > SIZE_MAX) {
		ap_seterr(r->err, "implausible: %s would need %" PRIu64 " more bytes of memory, "
			  "beyond the limit of %" PRIu64 " for a %" PRIu64 "-byte file",
			  fb_where(r, what, w, sizeof(w)), bytes, r->limit, r->size);
		return NULL;
	}
	p = calloc(1, (size_t)bytes);
	if (!p) {
		r->rc = -ENOMEM;
		ap_seterr(r->err, "out of memory reading %s (%" PRIu64 " bytes)",
			  fb_where(r, what, w, sizeof(w)), bytes);
		return NULL;
	}
	r->used += bytes + ALLOC_OVERHEAD;
	return p;
}

/* Follows the uoffset stored at ref; the target must have at least 4 bytes in the file. */
static int deref(struct rd *r, uint64_t ref, uint64_t *target, const char *what)
{
	uint32_t off;
	char w[128];

	if (ref > r->size || r->size - ref < 4)
		return fb_truncated(r, what, ref);
	off = ld32(r->p + ref);
	if (off == 0) {
		ap_seterr(r->err, "corrupt: %s has a zero offset (at offset %" PRIu64 ")",
			  fb_where(r, what, w, sizeof(w)), ref);
		return r->rc;
	}
	*target = ref + off;
	if (*target > r->size || r->size - *target < 4)
		return fb_truncated(r, what, *target);
	return 0;
}

int fb_table_at(struct rd *r, uint64_t ref, struct tbl *t, const char *what)
{
	int64_t vt;
	char w[128];

	if (deref(r, ref, &t->pos, what))
		return r->rc;
	vt = (int64_t)t->pos - (int64_t)(int32_t)ld32(r->p + t->pos);
	if (vt < 0 || (uint64_t)vt > r->size || r->size - (uint64_t)vt < 4) {
		ap_seterr(r->err, "corrupt: %s vtable at offset %" PRId64 " lies outside the file "
			  "(table at offset %" PRIu64 ", file %" PRIu64 " bytes)",
			  fb_where(r, what, w, sizeof(w)), vt, t->pos, r->size);
		return r->rc;
	}
	t->vt = (uint64_t)vt;
	t->vt_len = ld16(r->p + t->vt);
	t->obj_len = ld16(r->p + t->vt + 2);
	if (t->vt_len < 4 || (t->vt_len & 1) || t->vt_len > r->size - t->vt) {
		ap_seterr(r->err, "corrupt: %s vtable at offset %" PRIu64 " has a bad size (%u "
			  "bytes, file %" PRIu64 " bytes)", fb_where(r, what, w, sizeof(w)), t->vt,
			  t->vt_len, r->size);
		return r->rc;
	}
	if (t->obj_len < 4) {
		ap_seterr(r->err, "corrupt: %s at offset %" PRIu64 " has a bad size (%u bytes)",
			  fb_where(r, what, w, sizeof(w)), t->pos, t->obj_len);
		return r->rc;
	}
	if (t->obj_len > r->size - t->pos)
		return fb_truncated(r, what, t->pos);
	return 0;
}

/* Finds field id of sz bytes: 1 with *at set, 0 when absent, r->rc on error. */
int fb_field(struct rd *r, const struct tbl *t, unsigned int id, unsigned int sz,
	     const char *what, uint64_t *at)
{
	unsigned int slot = 4 + 2 * id;
	uint16_t fo;
	char w[128];

	if (slot + 2 > t->vt_len)
		return 0;
	fo = ld16(r->p + t->vt + slot);
	if (!fo)
		return 0;
	if ((unsigned int)fo + sz > t->obj_len) {
		ap_seterr(r->err, "corrupt: %s field lies outside its table (field at +%u, %u "
			  "bytes, table at offset %" PRIu64 " is %u bytes)",
			  fb_where(r, what, w, sizeof(w)), fo, sz, t->pos, t->obj_len);
		return r->rc;
	}
	*at = t->pos + fo;
	return 1;
}

/* A little-endian scalar of sz bytes (1, 4 or 8), def when the field is absent. */
int fb_scalar(struct rd *r, const struct tbl *t, unsigned int id, unsigned int sz,
	      uint64_t def, const char *what, uint64_t *v)
{
	uint64_t at = 0;
	int rc = fb_field(r, t, id, sz, what, &at);

	if (rc < 0)
		return r->rc;
	if (!rc)
		*v = def;
	else if (sz == 1)
		*v = r->p[at];
	else if (sz == 4)
		*v = ld32(r->p + at);
	else
		*v = ld64(r->p + at);
	return 0;
}

/* The vector that the uoffset at ref points to, elements of elem bytes. */
static int vec_at(struct rd *r, uint64_t ref, unsigned int elem, const char *what,
		  struct vec *v)
{
	uint64_t pos;

	if (deref(r, ref, &pos, what))
		return r->rc;
	v->n = ld32(r->p + pos);
	v->pos = pos + 4;
	if ((uint64_t)v->n * elem > r->size - v->pos)
		return fb_truncated(r, what, pos);
	return 0;
}

/* A vector field: 1 when present, 0 when absent (v->n = 0), r->rc on error. */
int fb_vec_field(struct rd *r, const struct tbl *t, unsigned int id, unsigned int elem,
		 const char *what, struct vec *v)
{
	uint64_t at = 0;
	int rc = fb_field(r, t, id, 4, what, &at);

	v->pos = 0;
	v->n = 0;
	if (rc <= 0)
		return rc;
	rc = vec_at(r, at, elem, what, v);
	return rc ? rc : 1;
}

/* A string field, copied and cleaned (ap_name_clean); *out stays NULL when the field is
 * absent. */
int fb_str_field(struct rd *r, const struct tbl *t, unsigned int id, const char *what,
		 char **out)
{
	struct vec v;
	char w[128];
	int rc = fb_vec_field(r, t, id, 1, what, &v);

	*out = NULL;
	if (rc <= 0)
		return rc;
	if (v.n >= r->size - v.pos)	/* the NUL must be in the file too */
		return fb_truncated(r, what, v.pos - 4);
	if (r->p[v.pos + v.n]) {
		ap_seterr(r->err, "corrupt: %s is not NUL-terminated (offset %" PRIu64 ")",
			  fb_where(r, what, w, sizeof(w)), v.pos - 4);
		return r->rc;
	}
	*out = fb_ralloc(r, (uint64_t)v.n + 1, 1, what);
	if (!*out)
		return r->rc;
	memcpy(*out, r->p + v.pos, v.n);
	ap_name_clean(*out);	/* a model's names are printed as they are (escape.h) */
	return 0;
}

/* Like str_field, but an absent string becomes "". */
int fb_str_field_nonnull(struct rd *r, const struct tbl *t, unsigned int id,
			 const char *what, char **out)
{
	if (fb_str_field(r, t, id, what, out))
		return r->rc;
	if (!*out) {
		*out = fb_ralloc(r, 1, 1, what);
		if (!*out)
			return r->rc;
	}
	return 0;
}

/* An [int] field, copied; *out stays NULL when absent or empty. */
int fb_ints_field(struct rd *r, const struct tbl *t, unsigned int id, const char *what,
		  int32_t **out, uint32_t *n)
{
	struct vec v;
	int rc = fb_vec_field(r, t, id, 4, what, &v);
	uint32_t i;

	*out = NULL;
	*n = 0;
	if (rc <= 0)
		return rc;
	if (!v.n)
		return 0;
	*out = fb_ralloc(r, v.n, sizeof(int32_t), what);
	if (!*out)
		return r->rc;
	for (i = 0; i < v.n; i++)
		(*out)[i] = (int32_t)ld32(r->p + v.pos + 4 * (uint64_t)i);
	*n = v.n;
	return 0;
}
