/* SPDX-License-Identifier: Apache-2.0 */
/*
 * flatbuf: the bounds-checked flatbuffer reads under the TFLite model reader (model.c).
 * Every read of the file goes through these; flatbuf.c says what each one checks. Errors
 * go to r->err, naming where the reader is (r->obj, r->idx, r->sg); a read that fails returns
 * r->rc, a negative errno (-EINVAL, or -ENOMEM). Private to src/plan/.
 */
#ifndef ARENAPROF_PLAN_FLATBUF_H
#define ARENAPROF_PLAN_FLATBUF_H

#include <stddef.h>
#include <stdint.h>

/*
 * What we may allocate for one file: ALLOC_PER_BYTE times its size plus ALLOC_SLACK. The
 * bundled models need at most about 1.1 bytes per file byte (the smallest files; large ones
 * need a few percent). The densest honest file is one of field-less tensors sharing one
 * vtable: 8 file bytes each (offset and table) become about 65 bytes here (struct, empty
 * name, malloc overhead), a ratio near 8; 16 leaves room for that.
 */
#define ALLOC_PER_BYTE		16
#define ALLOC_SLACK		(1u << 20)
#define ALLOC_OVERHEAD		16	/* per allocation, for malloc's bookkeeping */

struct rd {
	const uint8_t *p;
	uint64_t size;
	uint64_t limit;		/* total bytes we may allocate */
	uint64_t used;
	char *err;
	int rc;			/* what a failed read returns: -EINVAL (a bad file), or -ENOMEM
				 * once an allocation failed (fb_ralloc) */
	/* Where the reader is, for messages: "[subgraph S ]OBJ IDX", or "model" when NULL. */
	const char *obj;
	uint64_t idx;
	int64_t sg;		/* subgraph of a tensor or operator, -1 otherwise */
};

struct tbl {
	uint64_t pos;		/* the table's first byte (its soffset to the vtable) */
	uint64_t vt;		/* the vtable's first byte */
	uint16_t vt_len;
	uint16_t obj_len;
};

struct vec {
	uint64_t pos;		/* the first element */
	uint32_t n;
};

static inline uint16_t ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static inline uint64_t ld64(const uint8_t *p)
{
	return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

/* "tensor 5 name string", "subgraph 1 operator 3 inputs vector", "model buffers vector". */
const char *fb_where(const struct rd *r, const char *what, char *buf, size_t len);
/* Says what runs past the end of the file; r->rc (-EINVAL). */
int fb_truncated(struct rd *r, const char *what, uint64_t off);
/* n elements of elem bytes, zeroed, charged to the file's budget; NULL on failure, r->rc
 * -ENOMEM when memory ran out (-EINVAL: past the budget). */
void *fb_ralloc(struct rd *r, uint64_t n, uint64_t elem, const char *what);

/* The table that the uoffset at ref points to. */
int fb_table_at(struct rd *r, uint64_t ref, struct tbl *t, const char *what);
/* Field id of sz bytes: 1 with *at set, 0 when absent, r->rc on error. */
int fb_field(struct rd *r, const struct tbl *t, unsigned int id, unsigned int sz,
	     const char *what, uint64_t *at);
/* A little-endian scalar of sz bytes (1, 4 or 8), def when the field is absent. */
int fb_scalar(struct rd *r, const struct tbl *t, unsigned int id, unsigned int sz,
	      uint64_t def, const char *what, uint64_t *v);
/* A vector field: 1 when present, 0 when absent (v->n = 0), r->rc on error. */
int fb_vec_field(struct rd *r, const struct tbl *t, unsigned int id, unsigned int elem,
		 const char *what, struct vec *v);
/* A string field, copied; *out stays NULL when the field is absent. */
int fb_str_field(struct rd *r, const struct tbl *t, unsigned int id, const char *what,
		 char **out);
/* Like fb_str_field, but an absent string becomes "". */
int fb_str_field_nonnull(struct rd *r, const struct tbl *t, unsigned int id,
			 const char *what, char **out);
/* An [int] field, copied; *out stays NULL when absent or empty. */
int fb_ints_field(struct rd *r, const struct tbl *t, unsigned int id, const char *what,
		  int32_t **out, uint32_t *n);

#endif
