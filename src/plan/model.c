// SPDX-License-Identifier: Apache-2.0
/*
 * The TFLite model reader: a hand-written, bounds-checked walk of the TFL3 flatbuffer.
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
 * There is no recursion: the schema has a fixed depth and each level is a plain loop over a
 * vector whose length has been checked, so a file cannot make the reader loop without end.
 * Nothing in the result points into the file: names, index lists and builtin options are
 * copied.
 *
 * Field ids are those of LiteRT's schema.fbs (docs/design.md, "The model file"); the vtable
 * slot of field k is 4 + 2 * k.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/model.h"

enum { MODEL_VERSION = 0, MODEL_OPERATOR_CODES = 1, MODEL_SUBGRAPHS = 2,
	MODEL_DESCRIPTION = 3, MODEL_BUFFERS = 4, MODEL_METADATA = 6 };
enum { SG_TENSORS = 0, SG_INPUTS = 1, SG_OUTPUTS = 2, SG_OPERATORS = 3, SG_NAME = 4 };
enum { TENSOR_SHAPE = 0, TENSOR_TYPE = 1, TENSOR_BUFFER = 2, TENSOR_NAME = 3,
	TENSOR_IS_VARIABLE = 5, TENSOR_SHAPE_SIGNATURE = 7 };
enum { OP_OPCODE_INDEX = 0, OP_INPUTS = 1, OP_OUTPUTS = 2, OP_OPTIONS_TYPE = 3, OP_OPTIONS = 4,
	OP_INTERMEDIATES = 8 };
enum { OPCODE_DEPRECATED_BUILTIN = 0, OPCODE_CUSTOM_CODE = 1, OPCODE_VERSION = 2,
	OPCODE_BUILTIN = 3 };
enum { BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2 };
enum { METADATA_NAME = 0, METADATA_BUFFER = 1 };

#define BUILTIN_CUSTOM		32
#define OFFLINE_PLAN_NAME	"OfflineMemoryAllocation"
#define OFFLINE_PLAN_HEADER	12	/* int32 version, n_subgraphs, n */

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

static uint16_t ld16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t ld32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t ld64(const uint8_t *p)
{
	return (uint64_t)ld32(p) | (uint64_t)ld32(p + 4) << 32;
}

/* "tensor 5 name string", "subgraph 1 operator 3 inputs vector", "model buffers vector". */
static const char *where(const struct rd *r, const char *what, char *buf, size_t len)
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

static int truncated(struct rd *r, const char *what, uint64_t off)
{
	char w[128];

	ap_seterr(r->err, "truncated: %s runs past end of file (offset %" PRIu64 ", file %"
		  PRIu64 " bytes)", where(r, what, w, sizeof(w)), off, r->size);
	return -1;
}

/*
 * Allocates n elements of elem bytes (n may be 0: one element is allocated so that NULL
 * always means failure), charged to the file's budget.
 */
static void *ralloc(struct rd *r, uint64_t n, uint64_t elem, const char *what)
{
	uint64_t bytes = (n ? n : 1) * elem;	/* n < 2^32 and elem is small: no overflow */
	char w[128];
	void *p;

	if (bytes + ALLOC_OVERHEAD > r->limit - r->used || bytes > SIZE_MAX) {
		ap_seterr(r->err, "implausible: %s would need %" PRIu64 " more bytes of memory, "
			  "beyond the limit of %" PRIu64 " for a %" PRIu64 "-byte file",
			  where(r, what, w, sizeof(w)), bytes, r->limit, r->size);
		return NULL;
	}
	p = calloc(1, (size_t)bytes);
	if (!p) {
		ap_seterr(r->err, "out of memory reading %s (%" PRIu64 " bytes)",
			  where(r, what, w, sizeof(w)), bytes);
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
		return truncated(r, what, ref);
	off = ld32(r->p + ref);
	if (off == 0) {
		ap_seterr(r->err, "corrupt: %s has a zero offset (at offset %" PRIu64 ")",
			  where(r, what, w, sizeof(w)), ref);
		return -1;
	}
	*target = ref + off;
	if (*target > r->size || r->size - *target < 4)
		return truncated(r, what, *target);
	return 0;
}

static int table_at(struct rd *r, uint64_t ref, struct tbl *t, const char *what)
{
	int64_t vt;
	char w[128];

	if (deref(r, ref, &t->pos, what))
		return -1;
	vt = (int64_t)t->pos - (int64_t)(int32_t)ld32(r->p + t->pos);
	if (vt < 0 || (uint64_t)vt > r->size || r->size - (uint64_t)vt < 4) {
		ap_seterr(r->err, "corrupt: %s vtable at offset %" PRId64 " lies outside the file "
			  "(table at offset %" PRIu64 ", file %" PRIu64 " bytes)",
			  where(r, what, w, sizeof(w)), vt, t->pos, r->size);
		return -1;
	}
	t->vt = (uint64_t)vt;
	t->vt_len = ld16(r->p + t->vt);
	t->obj_len = ld16(r->p + t->vt + 2);
	if (t->vt_len < 4 || (t->vt_len & 1) || t->vt_len > r->size - t->vt) {
		ap_seterr(r->err, "corrupt: %s vtable at offset %" PRIu64 " has a bad size (%u "
			  "bytes, file %" PRIu64 " bytes)", where(r, what, w, sizeof(w)), t->vt,
			  t->vt_len, r->size);
		return -1;
	}
	if (t->obj_len < 4) {
		ap_seterr(r->err, "corrupt: %s at offset %" PRIu64 " has a bad size (%u bytes)",
			  where(r, what, w, sizeof(w)), t->pos, t->obj_len);
		return -1;
	}
	if (t->obj_len > r->size - t->pos)
		return truncated(r, what, t->pos);
	return 0;
}

/* Finds field id of sz bytes: 1 with *at set, 0 when absent, -1 on error. */
static int field(struct rd *r, const struct tbl *t, unsigned int id, unsigned int sz,
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
			  where(r, what, w, sizeof(w)), fo, sz, t->pos, t->obj_len);
		return -1;
	}
	*at = t->pos + fo;
	return 1;
}

/* A little-endian scalar of sz bytes (1, 4 or 8), def when the field is absent. */
static int scalar(struct rd *r, const struct tbl *t, unsigned int id, unsigned int sz,
		  uint64_t def, const char *what, uint64_t *v)
{
	uint64_t at;
	int rc = field(r, t, id, sz, what, &at);

	if (rc < 0)
		return -1;
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
		return -1;
	v->n = ld32(r->p + pos);
	v->pos = pos + 4;
	if ((uint64_t)v->n * elem > r->size - v->pos)
		return truncated(r, what, pos);
	return 0;
}

/* A vector field: 1 when present, 0 when absent (v->n = 0), -1 on error. */
static int vec_field(struct rd *r, const struct tbl *t, unsigned int id, unsigned int elem,
		     const char *what, struct vec *v)
{
	uint64_t at;
	int rc = field(r, t, id, 4, what, &at);

	v->pos = 0;
	v->n = 0;
	if (rc <= 0)
		return rc;
	return vec_at(r, at, elem, what, v) ? -1 : 1;
}

/* A string field, copied; *out stays NULL when the field is absent. */
static int str_field(struct rd *r, const struct tbl *t, unsigned int id, const char *what,
		     char **out)
{
	struct vec v;
	char w[128];
	int rc = vec_field(r, t, id, 1, what, &v);

	*out = NULL;
	if (rc <= 0)
		return rc;
	if (v.n >= r->size - v.pos)	/* the NUL must be in the file too */
		return truncated(r, what, v.pos - 4);
	if (r->p[v.pos + v.n]) {
		ap_seterr(r->err, "corrupt: %s is not NUL-terminated (offset %" PRIu64 ")",
			  where(r, what, w, sizeof(w)), v.pos - 4);
		return -1;
	}
	*out = ralloc(r, (uint64_t)v.n + 1, 1, what);
	if (!*out)
		return -1;
	memcpy(*out, r->p + v.pos, v.n);
	return 0;
}

/* Like str_field, but an absent string becomes "". */
static int str_field_nonnull(struct rd *r, const struct tbl *t, unsigned int id,
			     const char *what, char **out)
{
	if (str_field(r, t, id, what, out))
		return -1;
	if (!*out) {
		*out = ralloc(r, 1, 1, what);
		if (!*out)
			return -1;
	}
	return 0;
}

/* An [int] field, copied; *out stays NULL when absent or empty. */
static int ints_field(struct rd *r, const struct tbl *t, unsigned int id, const char *what,
		      int32_t **out, uint32_t *n)
{
	struct vec v;
	int rc = vec_field(r, t, id, 4, what, &v);
	uint32_t i;

	*out = NULL;
	*n = 0;
	if (rc <= 0)
		return rc;
	if (!v.n)
		return 0;
	*out = ralloc(r, v.n, sizeof(int32_t), what);
	if (!*out)
		return -1;
	for (i = 0; i < v.n; i++)
		(*out)[i] = (int32_t)ld32(r->p + v.pos + 4 * (uint64_t)i);
	*n = v.n;
	return 0;
}

static int read_opcode(struct rd *r, uint64_t ref, struct ap_model_opcode *oc)
{
	uint64_t dep, ver, code;
	struct tbl t;

	if (table_at(r, ref, &t, "table") ||
	    scalar(r, &t, OPCODE_DEPRECATED_BUILTIN, 1, 0, "deprecated_builtin_code", &dep) ||
	    scalar(r, &t, OPCODE_VERSION, 4, 1, "version", &ver) ||
	    scalar(r, &t, OPCODE_BUILTIN, 4, 0, "builtin_code", &code))
		return -1;
	oc->builtin = (int32_t)(uint32_t)code;
	if ((int8_t)dep > oc->builtin)
		oc->builtin = (int8_t)dep;
	oc->version = (int32_t)(uint32_t)ver;
	if (oc->builtin == BUILTIN_CUSTOM)
		return str_field(r, &t, OPCODE_CUSTOM_CODE, "custom_code string",
				 &oc->custom_name);
	return 0;
}

static int read_buffer(struct rd *r, uint64_t ref, struct ap_model_buffer *b)
{
	struct vec v;
	struct tbl t;
	char w[128];
	int rc;

	if (table_at(r, ref, &t, "table"))
		return -1;
	rc = vec_field(r, &t, BUFFER_DATA, 1, "data vector", &v);
	if (rc < 0)
		return -1;
	if (rc) {
		b->data_off = v.pos;
		b->data_len = v.n;
	}
	if (scalar(r, &t, BUFFER_OFFSET, 8, 0, "offset", &b->offset) ||
	    scalar(r, &t, BUFFER_SIZE, 8, 0, "size", &b->size))
		return -1;
	if (b->offset > 1 && (b->offset > r->size || b->size > r->size - b->offset)) {
		ap_seterr(r->err, "truncated: %s runs past end of file (offset %" PRIu64
			  ", size %" PRIu64 ", file %" PRIu64 " bytes)",
			  where(r, "external data", w, sizeof(w)), b->offset, b->size, r->size);
		return -1;
	}
	return 0;
}

static int read_metadata(struct rd *r, uint64_t ref, struct ap_model_metadata *md)
{
	uint64_t buf;
	struct tbl t;

	if (table_at(r, ref, &t, "table") ||
	    str_field_nonnull(r, &t, METADATA_NAME, "name string", &md->name) ||
	    scalar(r, &t, METADATA_BUFFER, 4, 0, "buffer", &buf))
		return -1;
	md->buffer = (uint32_t)buf;
	return 0;
}

static int read_tensor(struct rd *r, uint64_t ref, struct ap_model_tensor *tn)
{
	uint64_t type, buf, var;
	struct tbl t;

	if (table_at(r, ref, &t, "table") ||
	    ints_field(r, &t, TENSOR_SHAPE, "shape vector", &tn->shape, &tn->rank) ||
	    scalar(r, &t, TENSOR_TYPE, 1, 0, "type", &type) ||
	    scalar(r, &t, TENSOR_BUFFER, 4, 0, "buffer", &buf) ||
	    str_field_nonnull(r, &t, TENSOR_NAME, "name string", &tn->name) ||
	    scalar(r, &t, TENSOR_IS_VARIABLE, 1, 0, "is_variable", &var) ||
	    ints_field(r, &t, TENSOR_SHAPE_SIGNATURE, "shape_signature vector",
		       &tn->shape_signature, &tn->sig_rank))
		return -1;
	tn->type = (uint8_t)type;
	tn->buffer = (uint32_t)buf;
	tn->is_variable = var != 0;
	return 0;
}

/*
 * The builtin_options table, copied so that the model does not point into the file:
 * u16 n_fields, u16 table_len, n_fields u16 field offsets (0 = absent), then the table's
 * bytes. ap_model_op_option reads it back; a field is checked against table_len there,
 * since its size is known only then.
 */
static int read_options(struct rd *r, const struct tbl *t, struct ap_model_op *op)
{
	uint64_t at, n, i;
	struct tbl o;
	uint8_t *b;
	int rc = field(r, t, OP_OPTIONS, 4, "builtin_options", &at);

	if (rc <= 0)
		return rc;
	if (table_at(r, at, &o, "builtin_options table"))
		return -1;
	n = (o.vt_len - 4u) / 2;
	op->options_len = (uint32_t)(4 + 2 * n + o.obj_len);
	b = ralloc(r, op->options_len, 1, "builtin_options table");
	if (!b)
		return -1;
	op->options = b;
	b[0] = (uint8_t)n;
	b[1] = (uint8_t)(n >> 8);
	b[2] = (uint8_t)o.obj_len;
	b[3] = (uint8_t)(o.obj_len >> 8);
	for (i = 0; i < n; i++) {
		b[4 + 2 * i] = r->p[o.vt + 4 + 2 * i];
		b[5 + 2 * i] = r->p[o.vt + 5 + 2 * i];
	}
	memcpy(b + 4 + 2 * n, r->p + o.pos, o.obj_len);
	return 0;
}

int64_t ap_model_op_option(const struct ap_model *m, const struct ap_model_op *op,
			   unsigned int field, unsigned int size, int64_t def)
{
	const uint8_t *b, *p;
	uint32_t n, len, off;

	(void)m;
	if (!op || !op->options || op->options_len < 4 ||
	    (size != 1 && size != 2 && size != 4 && size != 8))
		return def;
	b = op->options;
	n = ld16(b);
	len = ld16(b + 2);
	if (field >= n || 4 + 2 * n + len > op->options_len)
		return def;
	off = ld16(b + 4 + 2 * field);
	if (!off || off + size > len)
		return def;
	p = b + 4 + 2 * n + off;
	switch (size) {
	case 1:
		return (int8_t)p[0];
	case 2:
		return (int16_t)ld16(p);
	case 4:
		return (int32_t)ld32(p);
	case 8:
		return (int64_t)ld64(p);
	default:
		return def;
	}
}

static int read_op(struct rd *r, uint64_t ref, struct ap_model_op *op)
{
	uint64_t idx, otype;
	struct tbl t;

	if (table_at(r, ref, &t, "table") ||
	    scalar(r, &t, OP_OPCODE_INDEX, 4, 0, "opcode_index", &idx) ||
	    scalar(r, &t, OP_OPTIONS_TYPE, 1, 0, "builtin_options_type", &otype) ||
	    ints_field(r, &t, OP_INPUTS, "inputs vector", &op->inputs, &op->n_inputs) ||
	    ints_field(r, &t, OP_OUTPUTS, "outputs vector", &op->outputs, &op->n_outputs) ||
	    ints_field(r, &t, OP_INTERMEDIATES, "intermediates vector", &op->intermediates,
		       &op->n_intermediates))
		return -1;
	op->opcode_index = (uint32_t)idx;
	op->options_type = (uint8_t)otype;
	return otype ? read_options(r, &t, op) : 0;
}

static int read_subgraph(struct rd *r, uint64_t ref, struct ap_model_subgraph *sg,
			 uint32_t si)
{
	struct vec tv, ov;
	struct tbl t;
	uint32_t i;

	r->obj = "subgraph";
	r->idx = si;
	r->sg = -1;
	if (table_at(r, ref, &t, "table") ||
	    vec_field(r, &t, SG_TENSORS, 4, "tensors vector", &tv) < 0 ||
	    vec_field(r, &t, SG_OPERATORS, 4, "operators vector", &ov) < 0 ||
	    ints_field(r, &t, SG_INPUTS, "inputs vector", &sg->inputs, &sg->n_inputs) ||
	    ints_field(r, &t, SG_OUTPUTS, "outputs vector", &sg->outputs, &sg->n_outputs) ||
	    str_field_nonnull(r, &t, SG_NAME, "name string", &sg->name))
		return -1;

	if (tv.n) {
		sg->tensors = ralloc(r, tv.n, sizeof(*sg->tensors), "tensors");
		if (!sg->tensors)
			return -1;
		sg->n_tensors = tv.n;
	}
	if (ov.n) {
		sg->ops = ralloc(r, ov.n, sizeof(*sg->ops), "operators");
		if (!sg->ops)
			return -1;
		sg->n_ops = ov.n;
	}
	r->sg = si;
	r->obj = "tensor";
	for (i = 0; i < tv.n; i++) {
		r->idx = i;
		if (read_tensor(r, tv.pos + 4 * (uint64_t)i, &sg->tensors[i]))
			return -1;
	}
	r->obj = "operator";
	for (i = 0; i < ov.n; i++) {
		r->idx = i;
		if (read_op(r, ov.pos + 4 * (uint64_t)i, &sg->ops[i]))
			return -1;
	}
	return 0;
}

/* "subgraph 1 " for subgraphs after the first, "" for the first. */
static const char *sg_prefix(uint32_t si, char *buf, size_t len)
{
	if (si)
		snprintf(buf, len, "subgraph %" PRIu32 " ", si);
	else
		buf[0] = 0;
	return buf;
}

static int check_tensor_list(const struct ap_model_subgraph *sg, uint32_t si,
			     const char *owner, uint32_t owner_idx, const char *kind,
			     const int32_t *list, uint32_t n, char *err)
{
	char pfx[32];
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (list[i] == -1 || (list[i] >= 0 && (uint32_t)list[i] < sg->n_tensors))
			continue;
		ap_seterr(err, "%s%s %" PRIu32 " %s %" PRIu32 ": tensor index %" PRId32
			  " out of range (subgraph %" PRIu32 " has %" PRIu32 " tensors)",
			  sg_prefix(si, pfx, sizeof(pfx)), owner, owner_idx, kind, i, list[i],
			  si, sg->n_tensors);
		return -1;
	}
	return 0;
}

/*
 * A name from the file, made fit for a one-line message: control characters become \xNN
 * and long names are cut with "...".
 */
static const char *printable(const char *s, char *buf, size_t len)
{
	size_t o = 0;

	for (; *s && o + 8 < len; s++) {
		unsigned char c = (unsigned char)*s;

		if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", c);
		else
			buf[o++] = (char)c;
	}
	if (*s)
		memcpy(buf + o, "...", 4);
	else
		buf[o] = 0;
	return buf;
}

/* The indices the planner follows: tensors, buffers and operator codes must exist. */
static int check_indices(const struct ap_model *m, char *err)
{
	char pfx[32];
	uint32_t si, i;

	for (si = 0; si < m->n_subgraphs; si++) {
		const struct ap_model_subgraph *sg = &m->subgraphs[si];

		if (check_tensor_list(sg, si, "subgraph", si, "input", sg->inputs,
				      sg->n_inputs, err) ||
		    check_tensor_list(sg, si, "subgraph", si, "output", sg->outputs,
				      sg->n_outputs, err))
			return -1;
		for (i = 0; i < sg->n_tensors; i++) {
			uint32_t b = sg->tensors[i].buffer;

			if (!m->n_buffers || b < m->n_buffers)
				continue;
			ap_seterr(err, "%stensor %" PRIu32 ": buffer index %" PRIu32 " out of "
				  "range (model has %" PRIu32 " buffers)",
				  sg_prefix(si, pfx, sizeof(pfx)), i, b, m->n_buffers);
			return -1;
		}
		for (i = 0; i < sg->n_ops; i++) {
			const struct ap_model_op *op = &sg->ops[i];

			if (op->opcode_index >= m->n_opcodes) {
				ap_seterr(err, "%soperator %" PRIu32 ": opcode index %" PRIu32
					  " out of range (model has %" PRIu32 " operator codes)",
					  sg_prefix(si, pfx, sizeof(pfx)), i, op->opcode_index,
					  m->n_opcodes);
				return -1;
			}
			if (check_tensor_list(sg, si, "operator", i, "input", op->inputs,
					      op->n_inputs, err) ||
			    check_tensor_list(sg, si, "operator", i, "output", op->outputs,
					      op->n_outputs, err) ||
			    check_tensor_list(sg, si, "operator", i, "intermediate",
					      op->intermediates, op->n_intermediates, err))
				return -1;
		}
	}
	for (i = 0; i < m->n_metadata; i++) {
		char name[64];

		if (m->metadata[i].buffer < m->n_buffers)
			continue;
		ap_seterr(err, "metadata %" PRIu32 " (%s): buffer index %" PRIu32 " out of "
			  "range (model has %" PRIu32 " buffers)", i,
			  printable(m->metadata[i].name, name, sizeof(name)),
			  m->metadata[i].buffer, m->n_buffers);
		return -1;
	}
	return 0;
}

/*
 * The TFLM offline plan: metadata "OfflineMemoryAllocation" names a buffer holding
 * little-endian int32 [version, n_subgraphs, n, offset...]. n must equal the number of
 * tensors of all subgraphs (TFLM rejects the model otherwise), so that a consumer can index
 * the offsets by tensor; each offset is -1 (plan online) or a non-negative byte offset.
 */
static int read_offline_plan(struct rd *r, struct ap_model *m)
{
	const struct ap_model_buffer *b = NULL;
	uint64_t off, len, total = 0;
	uint32_t i, mi;
	int32_t n;

	for (mi = 0; mi < m->n_metadata; mi++) {
		if (!strcmp(m->metadata[mi].name, OFFLINE_PLAN_NAME)) {
			b = &m->buffers[m->metadata[mi].buffer];
			break;
		}
	}
	if (!b)
		return 0;
	if (b->data_len) {
		off = b->data_off;
		len = b->data_len;
	} else if (b->offset > 1) {
		off = b->offset;
		len = b->size;
	} else {
		off = len = 0;
	}
	if (len < OFFLINE_PLAN_HEADER) {
		ap_seterr(r->err, "metadata %" PRIu32 " (" OFFLINE_PLAN_NAME "): buffer %" PRIu32
			  " holds %" PRIu64 " bytes, too few for the %d-byte header", mi,
			  m->metadata[mi].buffer, len, OFFLINE_PLAN_HEADER);
		return -1;
	}
	n = (int32_t)ld32(r->p + off + 8);
	if (n < 0 || (uint64_t)n > (len - OFFLINE_PLAN_HEADER) / 4) {
		ap_seterr(r->err, "metadata %" PRIu32 " (" OFFLINE_PLAN_NAME "): claims %" PRId32
			  " offsets, but buffer %" PRIu32 " holds room for %" PRIu64, mi, n,
			  m->metadata[mi].buffer, (len - OFFLINE_PLAN_HEADER) / 4);
		return -1;
	}
	for (i = 0; i < m->n_subgraphs; i++)
		total += m->subgraphs[i].n_tensors;
	if ((uint64_t)n != total) {
		ap_seterr(r->err, "metadata %" PRIu32 " (" OFFLINE_PLAN_NAME "): has %" PRId32
			  " offsets, but the model has %" PRIu64 " tensors", mi, n, total);
		return -1;
	}
	if (!n)
		return 0;
	r->obj = NULL;
	m->offline_offsets = ralloc(r, (uint64_t)n, sizeof(int32_t), "offline plan");
	if (!m->offline_offsets)
		return -1;
	m->n_offline_offsets = (uint32_t)n;
	for (i = 0; i < (uint32_t)n; i++) {
		int32_t v = (int32_t)ld32(r->p + off + OFFLINE_PLAN_HEADER + 4 * (uint64_t)i);

		if (v < -1) {
			ap_seterr(r->err, "metadata %" PRIu32 " (" OFFLINE_PLAN_NAME "): offset "
				  "of tensor %" PRIu32 " is %" PRId32 " (want -1 or >= 0)", mi, i,
				  v);
			return -1;
		}
		m->offline_offsets[i] = v;
	}
	return 0;
}

/* Prints the 4-byte file identifier with anything unprintable escaped. */
static void show_ident(const uint8_t *id, char *buf, size_t len)
{
	size_t o = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < 4 && o < len; i++) {
		if (id[i] >= 0x20 && id[i] < 0x7f && id[i] != '\'' && id[i] != '\\')
			o += (size_t)snprintf(buf + o, len - o, "%c", id[i]);
		else
			o += (size_t)snprintf(buf + o, len - o, "\\x%02x", id[i]);
	}
}

static int parse(struct rd *r, struct ap_model *m)
{
	struct vec cv, sv, bv, mv;
	uint64_t ver;
	struct tbl t;
	uint32_t i;

	r->obj = NULL;
	r->sg = -1;
	if (table_at(r, 0, &t, "root table") ||
	    scalar(r, &t, MODEL_VERSION, 4, 0, "version", &ver) ||
	    vec_field(r, &t, MODEL_OPERATOR_CODES, 4, "operator_codes vector", &cv) < 0 ||
	    vec_field(r, &t, MODEL_SUBGRAPHS, 4, "subgraphs vector", &sv) < 0 ||
	    vec_field(r, &t, MODEL_BUFFERS, 4, "buffers vector", &bv) < 0 ||
	    vec_field(r, &t, MODEL_METADATA, 4, "metadata vector", &mv) < 0 ||
	    str_field(r, &t, MODEL_DESCRIPTION, "description string", &m->description))
		return -1;
	m->version = (uint32_t)ver;
	if (!sv.n) {
		ap_seterr(r->err, "model has no subgraphs");
		return -1;
	}

	if (cv.n) {
		m->opcodes = ralloc(r, cv.n, sizeof(*m->opcodes), "operator codes");
		if (!m->opcodes)
			return -1;
		m->n_opcodes = cv.n;
	}
	r->obj = "operator code";
	for (i = 0; i < cv.n; i++) {
		r->idx = i;
		if (read_opcode(r, cv.pos + 4 * (uint64_t)i, &m->opcodes[i]))
			return -1;
	}

	r->obj = NULL;
	if (bv.n) {
		m->buffers = ralloc(r, bv.n, sizeof(*m->buffers), "buffers");
		if (!m->buffers)
			return -1;
		m->n_buffers = bv.n;
	}
	r->obj = "buffer";
	for (i = 0; i < bv.n; i++) {
		r->idx = i;
		if (read_buffer(r, bv.pos + 4 * (uint64_t)i, &m->buffers[i]))
			return -1;
	}

	r->obj = NULL;
	if (mv.n) {
		m->metadata = ralloc(r, mv.n, sizeof(*m->metadata), "metadata");
		if (!m->metadata)
			return -1;
		m->n_metadata = mv.n;
	}
	r->obj = "metadata";
	for (i = 0; i < mv.n; i++) {
		r->idx = i;
		if (read_metadata(r, mv.pos + 4 * (uint64_t)i, &m->metadata[i]))
			return -1;
	}

	r->obj = NULL;
	m->subgraphs = ralloc(r, sv.n, sizeof(*m->subgraphs), "subgraphs");
	if (!m->subgraphs)
		return -1;
	m->n_subgraphs = sv.n;
	for (i = 0; i < sv.n; i++) {
		if (read_subgraph(r, sv.pos + 4 * (uint64_t)i, &m->subgraphs[i], i))
			return -1;
	}

	if (check_indices(m, r->err))
		return -1;
	return read_offline_plan(r, m);
}

int ap_model_parse(const uint8_t *data, size_t size, struct ap_model *m, char *err)
{
	struct rd r = { .p = data, .size = size, .err = err, .sg = -1 };
	char id[32];

	memset(m, 0, sizeof(*m));
	if (!size) {
		ap_seterr(err, "empty file");
		return -1;
	}
	if (!data) {
		ap_seterr(err, "no data");
		return -1;
	}
	if (size < 8) {
		ap_seterr(err, "too small to be a TFLite model: %zu bytes, the header alone is 8",
			  size);
		return -1;
	}
	if (memcmp(data + 4, "TFL3", 4)) {
		show_ident(data + 4, id, sizeof(id));
		ap_seterr(err, "not a TFLite model: file identifier is '%s', expected 'TFL3'",
			  id);
		return -1;
	}
	r.limit = (uint64_t)size * ALLOC_PER_BYTE + ALLOC_SLACK;
	m->file_size = size;
	if (parse(&r, m)) {
		ap_model_free(m);
		return -1;
	}
	return 0;
}

/* Reads a regular file whole: mmap when it can, else a read() loop. */
int ap_model_load(const char *path, struct ap_model *m, char *err)
{
	char e[AP_ERR_LEN];
	uint8_t *buf = NULL;
	void *map = MAP_FAILED;
	const uint8_t *data;
	struct stat st;
	size_t size, got = 0;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	/* O_NONBLOCK: opening a FIFO must not hang before fstat can reject it. */
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd < 0) {
		ap_seterr(err, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st)) {
		ap_seterr(err, "%s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		ap_seterr(err, "%s: not a regular file%s", path,
			  S_ISDIR(st.st_mode) ? " (a directory)" : "");
		close(fd);
		return -1;
	}
	if (st.st_size == 0) {
		ap_seterr(err, "%s: empty file", path);
		close(fd);
		return -1;
	}
	if ((uint64_t)st.st_size > SIZE_MAX) {
		ap_seterr(err, "%s: too large to read (%jd bytes)", path, (intmax_t)st.st_size);
		close(fd);
		return -1;
	}
	size = (size_t)st.st_size;
	/*
	 * A file truncated by someone else while it is mapped would raise SIGBUS; model files
	 * are not rewritten in place in practice, and mmap keeps multi-gigabyte models cheap.
	 */
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED) {
		data = map;
	} else {
		buf = malloc(size);
		if (!buf) {
			ap_seterr(err, "%s: out of memory for %zu bytes", path, size);
			close(fd);
			return -1;
		}
		while (got < size) {
			ssize_t n = pread(fd, buf + got, size - got, (off_t)got);

			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				ap_seterr(err, "%s: %s", path, n ? strerror(errno) :
					  "file shrank while being read");
				free(buf);
				close(fd);
				return -1;
			}
			got += (size_t)n;
		}
		data = buf;
	}
	close(fd);

	rc = ap_model_parse(data, size, m, e);
	if (map != MAP_FAILED)
		munmap(map, size);
	free(buf);
	if (rc) {
		ap_seterr(err, "%s: %s", path, e);
		return -1;
	}
	m->path = strdup(path);
	if (!m->path) {
		ap_model_free(m);
		ap_seterr(err, "%s: out of memory", path);
		return -1;
	}
	return 0;
}

void ap_model_free(struct ap_model *m)
{
	uint32_t i, j;

	if (!m)
		return;
	free(m->path);
	free(m->description);
	if (m->opcodes) {
		for (i = 0; i < m->n_opcodes; i++)
			free(m->opcodes[i].custom_name);
	}
	free(m->opcodes);
	if (m->subgraphs) {
		for (i = 0; i < m->n_subgraphs; i++) {
			struct ap_model_subgraph *sg = &m->subgraphs[i];

			if (sg->tensors) {
				for (j = 0; j < sg->n_tensors; j++) {
					free(sg->tensors[j].name);
					free(sg->tensors[j].shape);
					free(sg->tensors[j].shape_signature);
				}
			}
			if (sg->ops) {
				for (j = 0; j < sg->n_ops; j++) {
					free(sg->ops[j].inputs);
					free(sg->ops[j].outputs);
					free(sg->ops[j].intermediates);
					free(sg->ops[j].options);
				}
			}
			free(sg->name);
			free(sg->tensors);
			free(sg->ops);
			free(sg->inputs);
			free(sg->outputs);
		}
	}
	free(m->subgraphs);
	free(m->buffers);
	if (m->metadata) {
		for (i = 0; i < m->n_metadata; i++)
			free(m->metadata[i].name);
	}
	free(m->metadata);
	free(m->offline_offsets);
	memset(m, 0, sizeof(*m));
}

bool ap_model_buffer_is_constant(const struct ap_model *m, uint32_t buffer)
{
	const struct ap_model_buffer *b;

	if (!m || buffer == 0 || buffer >= m->n_buffers || !m->buffers)
		return false;
	b = &m->buffers[buffer];
	return b->data_len > 0 || b->offset > 1;
}
