// SPDX-License-Identifier: Apache-2.0
/*
 * The TFLite model reader: a walk of the TFL3 flatbuffer through the bounds-checked reads
 * of flatbuf.c (which says why it is written by hand and what each read checks).
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
#include <setjmp.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"
#include "arenaprof/plan/model.h"
#include "model_priv.h"

enum { MODEL_VERSION = 0, MODEL_OPERATOR_CODES = 1, MODEL_SUBGRAPHS = 2,
	MODEL_DESCRIPTION = 3, MODEL_BUFFERS = 4, MODEL_METADATA = 6 };
enum { SG_TENSORS = 0, SG_INPUTS = 1, SG_OUTPUTS = 2, SG_OPERATORS = 3, SG_NAME = 4 };
enum { TENSOR_SHAPE = 0, TENSOR_TYPE = 1, TENSOR_BUFFER = 2, TENSOR_NAME = 3,
	TENSOR_QUANTIZATION = 4, TENSOR_IS_VARIABLE = 5, TENSOR_SPARSITY = 6,
	TENSOR_SHAPE_SIGNATURE = 7 };
enum { QUANT_SCALE = 2 };
enum { OP_OPCODE_INDEX = 0, OP_INPUTS = 1, OP_OUTPUTS = 2, OP_OPTIONS_TYPE = 3, OP_OPTIONS = 4,
	OP_CUSTOM_OPTIONS = 5,
	OP_INTERMEDIATES = 8, OP_OPTIONS_2_TYPE = 11, OP_OPTIONS_2 = 12 };
enum { OPCODE_DEPRECATED_BUILTIN = 0, OPCODE_CUSTOM_CODE = 1, OPCODE_VERSION = 2,
	OPCODE_BUILTIN = 3 };
enum { BUFFER_DATA = 0, BUFFER_OFFSET = 1, BUFFER_SIZE = 2 };
enum { METADATA_NAME = 0, METADATA_BUFFER = 1 };
enum { OPT_RESHAPE = 17, OPT_SQUEEZE = 30 };	/* BuiltinOptions union types */
enum {	/* BuiltinOptions2 */
	OPT2_STABLEHLO_REDUCE_WINDOW = 13, OPT2_STABLEHLO_COMPOSITE = 21, OPT2_STABLEHLO_CASE = 23,
};

#define BUILTIN_CUSTOM		32
#define OFFLINE_PLAN_NAME	"OfflineMemoryAllocation"
#define OFFLINE_PLAN_HEADER	12	/* int32 version, n_subgraphs, n */

static int read_opcode(struct rd *r, uint64_t ref, struct ap_model_opcode *oc)
{
	uint64_t dep, ver, code;
	struct tbl t;

	if (fb_table_at(r, ref, &t, "table") ||
	    fb_scalar(r, &t, OPCODE_DEPRECATED_BUILTIN, 1, 0, "deprecated_builtin_code", &dep) ||
	    fb_scalar(r, &t, OPCODE_VERSION, 4, 1, "version", &ver) ||
	    fb_scalar(r, &t, OPCODE_BUILTIN, 4, 0, "builtin_code", &code))
		return r->rc;
	oc->builtin = (int32_t)(uint32_t)code;
	if ((int8_t)dep > oc->builtin)
		oc->builtin = (int8_t)dep;
	oc->version = (int32_t)(uint32_t)ver;
	if (oc->builtin == BUILTIN_CUSTOM)
		return fb_str_field(r, &t, OPCODE_CUSTOM_CODE, "custom_code string",
				    &oc->custom_name);
	return 0;
}

static int read_buffer(struct rd *r, uint64_t ref, struct ap_model_buffer *b)
{
	struct vec v;
	struct tbl t;
	char w[128];
	int rc;

	if (fb_table_at(r, ref, &t, "table"))
		return r->rc;
	rc = fb_vec_field(r, &t, BUFFER_DATA, 1, "data vector", &v);
	if (rc < 0)
		return r->rc;
	if (rc) {
		b->data_off = v.pos;
		b->data_len = v.n;
		b->has_data = true;
		if (v.n && v.n <= AP_MODEL_SMALL_BUFFER) {
			b->small = fb_ralloc(r, v.n, 1, "small buffer copy");
			if (!b->small)
				return r->rc;
			memcpy(b->small, r->p + v.pos, v.n);
		}
	}
	if (fb_scalar(r, &t, BUFFER_OFFSET, 8, 0, "offset", &b->offset) ||
	    fb_scalar(r, &t, BUFFER_SIZE, 8, 0, "size", &b->size))
		return r->rc;
	if (b->offset > 1 && (b->offset > r->size || b->size > r->size - b->offset)) {
		ap_seterr(r->err, "truncated: %s runs past end of file (offset %" PRIu64
			  ", size %" PRIu64 ", file %" PRIu64 " bytes)",
			  fb_where(r, "external data", w, sizeof(w)), b->offset, b->size, r->size);
		return r->rc;
	}
	return 0;
}

static int read_metadata(struct rd *r, uint64_t ref, struct ap_model_metadata *md)
{
	uint64_t buf;
	struct tbl t;

	if (fb_table_at(r, ref, &t, "table") ||
	    fb_str_field_nonnull(r, &t, METADATA_NAME, "name string", &md->name) ||
	    fb_scalar(r, &t, METADATA_BUFFER, 4, 0, "buffer", &buf))
		return r->rc;
	md->buffer = (uint32_t)buf;
	return 0;
}

/*
 * How many quantization scales a tensor has and whether they differ (conv.cc's test for a
 * per-channel hybrid filter compares them as floats).
 */
static int read_scales(struct rd *r, const struct tbl *t, struct ap_model_tensor *tn)
{
	struct tbl q;
	struct vec v;
	uint64_t at;
	float first = 0, x;
	int rc = fb_field(r, t, TENSOR_QUANTIZATION, 4, "quantization", &at);

	if (rc <= 0)
		return rc;
	if (fb_table_at(r, at, &q, "quantization table") ||
	    fb_vec_field(r, &q, QUANT_SCALE, 4, "scale vector", &v) < 0)
		return r->rc;
	tn->n_scales = v.n;
	for (uint32_t i = 0; i < v.n; i++) {
		uint32_t bits = ld32(r->p + v.pos + 4 * (uint64_t)i);

		memcpy(&x, &bits, sizeof(x));
		if (!i)
			first = x;
		else if (x != first)
			tn->scales_differ = true;
	}
	return 0;
}

static int read_tensor(struct rd *r, uint64_t ref, struct ap_model_tensor *tn)
{
	uint64_t type, buf, var, at;
	struct tbl t;
	int sparse;

	if (fb_table_at(r, ref, &t, "table") ||
	    fb_ints_field(r, &t, TENSOR_SHAPE, "shape vector", &tn->shape, &tn->rank) ||
	    fb_scalar(r, &t, TENSOR_TYPE, 1, 0, "type", &type) ||
	    fb_scalar(r, &t, TENSOR_BUFFER, 4, 0, "buffer", &buf) ||
	    fb_str_field_nonnull(r, &t, TENSOR_NAME, "name string", &tn->name) ||
	    fb_scalar(r, &t, TENSOR_IS_VARIABLE, 1, 0, "is_variable", &var) ||
	    fb_ints_field(r, &t, TENSOR_SHAPE_SIGNATURE, "shape_signature vector",
			  &tn->shape_signature, &tn->sig_rank))
		return r->rc;
	/* only its presence matters: DENSIFY's Prepare asks for it */
	sparse = fb_field(r, &t, TENSOR_SPARSITY, 4, "sparsity", &at);
	if (sparse < 0 || read_scales(r, &t, tn))
		return r->rc;
	tn->sparse = sparse;
	tn->type = (uint8_t)type;
	tn->buffer = (uint32_t)buf;
	tn->is_variable = var != 0;
	return 0;
}

/* The operator's options vectors, allocated on first use. */
static int new_vecs(struct rd *r, struct ap_model_op *op)
{
	if (op->vecs)
		return 0;
	op->vecs = fb_ralloc(r, 1, sizeof(*op->vecs), "options vectors");
	if (!op->vecs)
		return r->rc;
	op->vecs->composite_subgraph = -1;
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
	int rc = fb_field(r, t, OP_OPTIONS, 4, "builtin_options", &at);

	if (rc <= 0)
		return rc;
	if (fb_table_at(r, at, &o, "builtin_options table"))
		return r->rc;
	n = (o.vt_len - 4u) / 2;
	op->options_len = (uint32_t)(4 + 2 * n + o.obj_len);
	b = fb_ralloc(r, op->options_len, 1, "builtin_options table");
	if (!b)
		return r->rc;
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
	/* field 0 of both is the shape vector shapes.c needs */
	if (op->options_type != OPT_RESHAPE && op->options_type != OPT_SQUEEZE)
		return 0;
	if (new_vecs(r, op))
		return r->rc;
	return fb_ints_field(r, &o, 0, "options int vector", &op->vecs->ints,
			     &op->vecs->n_ints) < 0 ? r->rc : 0;
}

/*
 * StablehloReduceWindowOptions' [long] vectors, copied: its Prepare sizes two temporaries
 * from them (kernels_reduce.c); StableHLOCompositeOptions' subgraph and StablehloCaseOptions'
 * branch subgraphs (subgraphs.c). Other BuiltinOptions2 tables are not read.
 */
static int read_options2(struct rd *r, const struct tbl *t, struct ap_model_op *op)
{
	static const char *const what[AP_MODEL_OPT2_LONGS] = {
		"window_dimensions vector", "window_strides vector", "base_dilations vector",
		"window_dilations vector", "padding vector",
	};
	struct tbl o;
	uint64_t at;
	int rc;

	if (op->options2_type != OPT2_STABLEHLO_REDUCE_WINDOW &&
	    op->options2_type != OPT2_STABLEHLO_COMPOSITE &&
	    op->options2_type != OPT2_STABLEHLO_CASE)
		return 0;
	rc = fb_field(r, t, OP_OPTIONS_2, 4, "builtin_options_2", &at);
	if (rc <= 0)
		return rc;
	if (fb_table_at(r, at, &o, "builtin_options_2 table") || new_vecs(r, op))
		return r->rc;
	if (op->options2_type == OPT2_STABLEHLO_COMPOSITE) {
		uint64_t sg;

		/* field 1: decomposition_subgraph_index */
		if (fb_scalar(r, &o, 1, 4, (uint64_t)-1, "decomposition_subgraph_index", &sg))
			return r->rc;
		op->vecs->composite_subgraph = (int32_t)(uint32_t)sg;
		return 0;
	}
	if (op->options2_type == OPT2_STABLEHLO_CASE)	/* field 0: branch_subgraph_indices */
		return fb_ints_field(r, &o, 0, "branch_subgraph_indices", &op->vecs->branches,
				     &op->vecs->n_branches) < 0 ? r->rc : 0;
	for (unsigned int i = 0; i < AP_MODEL_OPT2_LONGS; i++) {
		struct ap_model_longs *l = &op->vecs->longs[i];
		struct vec v;

		rc = fb_vec_field(r, &o, i, 8, what[i], &v);
		if (rc < 0)
			return r->rc;
		if (!rc || !v.n)
			continue;
		l->v = fb_ralloc(r, v.n, sizeof(*l->v), what[i]);
		if (!l->v)
			return r->rc;
		for (uint32_t j = 0; j < v.n; j++)
			l->v[j] = (int64_t)ld64(r->p + v.pos + 8 * (uint64_t)j);
		l->n = v.n;
	}
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

/* custom_options, the flexbuffer a custom operator's Init reads, copied when present. */
static int read_custom(struct rd *r, const struct tbl *t, struct ap_model_op *op)
{
	struct vec v;
	int rc = fb_vec_field(r, t, OP_CUSTOM_OPTIONS, 1, "custom_options vector", &v);

	if (rc <= 0 || !v.n)
		return rc < 0 ? r->rc : 0;
	if (new_vecs(r, op))
		return r->rc;
	op->vecs->custom = fb_ralloc(r, v.n, 1, "custom_options");
	if (!op->vecs->custom)
		return r->rc;
	memcpy(op->vecs->custom, r->p + v.pos, v.n);
	op->vecs->n_custom = v.n;
	return 0;
}

static int read_op(struct rd *r, uint64_t ref, struct ap_model_op *op)
{
	uint64_t idx, otype, otype2;
	struct tbl t;

	if (fb_table_at(r, ref, &t, "table") ||
	    fb_scalar(r, &t, OP_OPCODE_INDEX, 4, 0, "opcode_index", &idx) ||
	    fb_scalar(r, &t, OP_OPTIONS_TYPE, 1, 0, "builtin_options_type", &otype) ||
	    fb_ints_field(r, &t, OP_INPUTS, "inputs vector", &op->inputs, &op->n_inputs) ||
	    fb_ints_field(r, &t, OP_OUTPUTS, "outputs vector", &op->outputs, &op->n_outputs) ||
	    fb_ints_field(r, &t, OP_INTERMEDIATES, "intermediates vector", &op->intermediates,
			  &op->n_intermediates) ||
	    fb_scalar(r, &t, OP_OPTIONS_2_TYPE, 1, 0, "builtin_options_2_type", &otype2))
		return r->rc;
	op->opcode_index = (uint32_t)idx;
	op->options_type = (uint8_t)otype;
	op->options2_type = (uint8_t)otype2;
	if (read_options2(r, &t, op) || read_custom(r, &t, op))
		return r->rc;
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
	if (fb_table_at(r, ref, &t, "table") ||
	    fb_vec_field(r, &t, SG_TENSORS, 4, "tensors vector", &tv) < 0 ||
	    fb_vec_field(r, &t, SG_OPERATORS, 4, "operators vector", &ov) < 0 ||
	    fb_ints_field(r, &t, SG_INPUTS, "inputs vector", &sg->inputs, &sg->n_inputs) ||
	    fb_ints_field(r, &t, SG_OUTPUTS, "outputs vector", &sg->outputs, &sg->n_outputs) ||
	    fb_str_field_nonnull(r, &t, SG_NAME, "name string", &sg->name))
		return r->rc;

	if (tv.n) {
		sg->tensors = fb_ralloc(r, tv.n, sizeof(*sg->tensors), "tensors");
		if (!sg->tensors)
			return r->rc;
		sg->n_tensors = tv.n;
	}
	if (ov.n) {
		sg->ops = fb_ralloc(r, ov.n, sizeof(*sg->ops), "operators");
		if (!sg->ops)
			return r->rc;
		sg->n_ops = ov.n;
	}
	r->sg = si;
	r->obj = "tensor";
	for (i = 0; i < tv.n; i++) {
		r->idx = i;
		if (read_tensor(r, tv.pos + 4 * (uint64_t)i, &sg->tensors[i]))
			return r->rc;
	}
	if (model_read_sparse(r, &tv, sg))
		return r->rc;
	r->obj = "operator";
	for (i = 0; i < ov.n; i++) {
		r->idx = i;
		if (read_op(r, ov.pos + 4 * (uint64_t)i, &sg->ops[i]))
			return r->rc;
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
		return -EINVAL;
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
			return -EINVAL;
		for (i = 0; i < sg->n_tensors; i++) {
			uint32_t b = sg->tensors[i].buffer;

			if (!m->n_buffers || b < m->n_buffers)
				continue;
			ap_seterr(err, "%stensor %" PRIu32 ": buffer index %" PRIu32 " out of "
				  "range (model has %" PRIu32 " buffers)",
				  sg_prefix(si, pfx, sizeof(pfx)), i, b, m->n_buffers);
			return -EINVAL;
		}
		for (i = 0; i < sg->n_ops; i++) {
			const struct ap_model_op *op = &sg->ops[i];

			if (op->opcode_index >= m->n_opcodes) {
				ap_seterr(err, "%soperator %" PRIu32 ": opcode index %" PRIu32
					  " out of range (model has %" PRIu32 " operator codes)",
					  sg_prefix(si, pfx, sizeof(pfx)), i, op->opcode_index,
					  m->n_opcodes);
				return -EINVAL;
			}
			if (check_tensor_list(sg, si, "operator", i, "input", op->inputs,
					      op->n_inputs, err) ||
			    check_tensor_list(sg, si, "operator", i, "output", op->outputs,
					      op->n_outputs, err) ||
			    check_tensor_list(sg, si, "operator", i, "intermediate",
					      op->intermediates, op->n_intermediates, err))
				return -EINVAL;
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
		return -EINVAL;
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
	if (!ap_model_buffer_range(b, &off, &len))
		off = len = 0;
	if (len < OFFLINE_PLAN_HEADER) {
		ap_seterr(r->err, "metadata %" PRIu32 " (" OFFLINE_PLAN_NAME "): buffer %" PRIu32
			  " holds %" PRIu64 " bytes, too few for the %d-byte header", mi,
			  m->metadata[mi].buffer, len, OFFLINE_PLAN_HEADER);
		return r->rc;
	}
	n = (int32_t)ld32(r->p + off + 8);
	if (n < 0 || (uint64_t)n > (len - OFFLINE_PLAN_HEADER) / 4) {
		ap_seterr(r->err, "metadata %" PRIu32 " (" OFFLINE_PLAN_NAME "): claims %" PRId32
			  " offsets, but buffer %" PRIu32 " holds room for %" PRIu64, mi, n,
			  m->metadata[mi].buffer, (len - OFFLINE_PLAN_HEADER) / 4);
		return r->rc;
	}
	for (i = 0; i < m->n_subgraphs; i++)
		total += m->subgraphs[i].n_tensors;
	if ((uint64_t)n != total) {
		ap_seterr(r->err, "metadata %" PRIu32 " (" OFFLINE_PLAN_NAME "): has %" PRId32
			  " offsets, but the model has %" PRIu64 " tensors", mi, n, total);
		return r->rc;
	}
	if (!n)
		return 0;
	r->obj = NULL;
	m->offline_offsets = fb_ralloc(r, (uint64_t)n, sizeof(int32_t), "offline plan");
	if (!m->offline_offsets)
		return r->rc;
	m->n_offline_offsets = (uint32_t)n;
	for (i = 0; i < (uint32_t)n; i++) {
		int32_t v = (int32_t)ld32(r->p + off + OFFLINE_PLAN_HEADER + 4 * (uint64_t)i);

		if (v < -1) {
			ap_seterr(r->err, "metadata %" PRIu32 " (" OFFLINE_PLAN_NAME "): offset "
				  "of tensor %" PRIu32 " is %" PRId32 " (want -1 or >= 0)", mi, i,
				  v);
			return r->rc;
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
	if (fb_table_at(r, 0, &t, "root table") ||
	    fb_scalar(r, &t, MODEL_VERSION, 4, 0, "version", &ver) ||
	    fb_vec_field(r, &t, MODEL_OPERATOR_CODES, 4, "operator_codes vector", &cv) < 0 ||
	    fb_vec_field(r, &t, MODEL_SUBGRAPHS, 4, "subgraphs vector", &sv) < 0 ||
	    fb_vec_field(r, &t, MODEL_BUFFERS, 4, "buffers vector", &bv) < 0 ||
	    fb_vec_field(r, &t, MODEL_METADATA, 4, "metadata vector", &mv) < 0 ||
	    fb_str_field(r, &t, MODEL_DESCRIPTION, "description string", &m->description))
		return r->rc;
	m->version = (uint32_t)ver;
	if (!sv.n) {
		ap_seterr(r->err, "model has no subgraphs");
		return r->rc;
	}

	if (cv.n) {
		m->opcodes = fb_ralloc(r, cv.n, sizeof(*m->opcodes), "operator codes");
		if (!m->opcodes)
			return r->rc;
		m->n_opcodes = cv.n;
	}
	r->obj = "operator code";
	for (i = 0; i < cv.n; i++) {
		r->idx = i;
		if (read_opcode(r, cv.pos + 4 * (uint64_t)i, &m->opcodes[i]))
			return r->rc;
	}

	r->obj = NULL;
	if (bv.n) {
		m->buffers = fb_ralloc(r, bv.n, sizeof(*m->buffers), "buffers");
		if (!m->buffers)
			return r->rc;
		m->n_buffers = bv.n;
	}
	r->obj = "buffer";
	for (i = 0; i < bv.n; i++) {
		r->idx = i;
		if (read_buffer(r, bv.pos + 4 * (uint64_t)i, &m->buffers[i]))
			return r->rc;
	}

	r->obj = NULL;
	if (mv.n) {
		m->metadata = fb_ralloc(r, mv.n, sizeof(*m->metadata), "metadata");
		if (!m->metadata)
			return r->rc;
		m->n_metadata = mv.n;
	}
	r->obj = "metadata";
	for (i = 0; i < mv.n; i++) {
		r->idx = i;
		if (read_metadata(r, mv.pos + 4 * (uint64_t)i, &m->metadata[i]))
			return r->rc;
	}

	r->obj = NULL;
	m->subgraphs = fb_ralloc(r, sv.n, sizeof(*m->subgraphs), "subgraphs");
	if (!m->subgraphs)
		return r->rc;
	m->n_subgraphs = sv.n;
	for (i = 0; i < sv.n; i++) {
		if (read_subgraph(r, sv.pos + 4 * (uint64_t)i, &m->subgraphs[i], i))
			return r->rc;
	}

	if (check_indices(m, r->err))
		return -EINVAL;
	return read_offline_plan(r, m);
}

int ap_model_parse(const uint8_t *data, size_t size, struct ap_model *m, char *err)
{
	struct rd r = { .p = data, .size = size, .err = err, .rc = -EINVAL, .sg = -1 };
	char id[32];
	int rc;

	memset(m, 0, sizeof(*m));
	if (!size) {
		ap_seterr(err, "empty file");
		return -EINVAL;
	}
	if (!data) {
		ap_seterr(err, "no data");
		return -EINVAL;
	}
	if (size < 8) {
		ap_seterr(err, "too small to be a TFLite model: %zu bytes, the header alone is 8",
			  size);
		return -EINVAL;
	}
	if (memcmp(data + 4, "TFL3", 4)) {
		show_ident(data + 4, id, sizeof(id));
		ap_seterr(err, "not a TFLite model: file identifier is '%s', expected 'TFL3'",
			  id);
		return -EINVAL;
	}
	r.limit = (uint64_t)size * ALLOC_PER_BYTE + ALLOC_SLACK;
	m->file_size = size;
	rc = parse(&r, m);
	if (rc)
		ap_model_free(m);
	return rc;
}

/*
 * Opens path, which must be a regular, non-empty file, and says its size: the descriptor,
 * or a negative errno with err.
 */
static int open_model(const char *path, size_t *size, char *err)
{
	uint64_t n;
	int fd = ap_infile_open(path, &n, err);

	if (fd < 0)
		return fd;
	if (n == 0) {
		close(fd);
		return ap_fail(err, -EINVAL, "%s: empty file", path);
	}
	if (n > SIZE_MAX) {
		close(fd);
		return ap_fail(err, -EINVAL, "%s: too large to read (%" PRIu64 " bytes)", path, n);
	}
	*size = (size_t)n;
	return fd;
}

/* The size bytes of fd by a read() loop, for a file that cannot be mapped, into *out. */
static int read_whole(int fd, const char *path, size_t size, uint8_t **out, char *err)
{
	uint8_t *buf = malloc(size);
	size_t got = 0;

	if (!buf)
		return ap_fail(err, -ENOMEM, "%s: out of memory for %zu bytes", path, size);
	while (got < size) {
		ssize_t n = pread(fd, buf + got, size - got, (off_t)got);
		int e = errno;

		if (n < 0 && (e == EINTR || e == EAGAIN))
			continue;
		if (n <= 0) {
			free(buf);
			if (!n)
				return ap_fail(err, -EINVAL, "%s: file shrank while being read",
					       path);
			return ap_fail(err, -e, "%s: %s", path, strerror(e));
		}
		got += (size_t)n;
	}
	*out = buf;
	return 0;
}

/*
 * The parse of a mapped file, with SIGBUS caught: a file truncated while it is mapped (a
 * `cp` over the model) raises it on the first read past the new end. The parse copies
 * what it keeps, so leaving it by siglongjmp loses only its partial result, which is freed.
 */
static sigjmp_buf bus_jmp;

static void on_bus(int sig)
{
	(void)sig;
	siglongjmp(bus_jmp, 1);
}

static int parse_mapped(const uint8_t *data, size_t size, struct ap_model *m, char *e)
{
	struct sigaction sa = { .sa_handler = on_bus }, old;
	volatile int rc = -EINVAL;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGBUS, &sa, &old))
		return ap_model_parse(data, size, m, e);
	if (!sigsetjmp(bus_jmp, 1)) {
		rc = ap_model_parse(data, size, m, e);
	} else {
		ap_model_free(m);
		memset(m, 0, sizeof(*m));
		ap_seterr(e, "the file was truncated while it was being read (was it being "
			  "rewritten?): read it again once it is complete");
		rc = -EINVAL;
	}
	sigaction(SIGBUS, &old, NULL);
	return rc;
}

/* Reads a regular file whole: mmap when it can, else a read() loop. */
int ap_model_load(const char *path, struct ap_model *m, char *err)
{
	char e[AP_ERR_LEN];
	uint8_t *buf = NULL;
	void *map = MAP_FAILED;
	const uint8_t *data;
	size_t size = 0;
	int fd, rc;

	memset(m, 0, sizeof(*m));
	fd = open_model(path, &size, err);
	if (fd < 0)
		return fd;
	/* mmap keeps multi-gigabyte models cheap; parse_mapped catches a truncation */
	map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map != MAP_FAILED) {
		data = map;
	} else {
		rc = read_whole(fd, path, size, &buf, err);
		if (rc) {
			close(fd);
			return rc;
		}
		data = buf;
	}
	close(fd);

	rc = map != MAP_FAILED ? parse_mapped(data, size, m, e) : ap_model_parse(data, size, m, e);
	if (map != MAP_FAILED)
		munmap(map, size);
	free(buf);
	if (rc) {
		ap_seterr(err, "%s: %s", path, e);
		return rc;
	}
	m->path = strdup(path);
	if (!m->path) {
		ap_model_free(m);
		return ap_fail(err, -ENOMEM, "%s: out of memory", path);
	}
	return 0;
}

static void free_vecs(struct ap_model_op_vecs *v)
{
	if (!v)
		return;
	free(v->ints);
	free(v->branches);
	free(v->custom);
	for (unsigned int k = 0; k < AP_MODEL_OPT2_LONGS; k++)
		free(v->longs[k].v);
	free(v);
}

void ap_model_free(struct ap_model *m)
{
	uint32_t i, j;

	if (!m)
		return;
	free(m->path);
	free(m->description);
	free(m->sg_roles);
	free(m->sg_callees);
	free(m->sg_late);
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
					free_vecs(sg->ops[j].vecs);
				}
			}
			free(sg->name);
			for (j = 0; sg->file_shapes && j < sg->n_tensors; j++)
				free(sg->file_shapes[j].d);
			free(sg->file_shapes);
			free(sg->sparse);
			for (j = 0; j < sg->n_values; j++)
				free(sg->values[j].v);
			free(sg->values);
			free(sg->tensors);
			free(sg->ops);
			free(sg->inputs);
			free(sg->outputs);
		}
	}
	free(m->subgraphs);
	for (i = 0; m->buffers && i < m->n_buffers; i++)
		free(m->buffers[i].small);
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
	return b->has_data || b->offset > 1;
}

uint32_t ap_model_tensor_ints(const struct ap_model *m, const struct ap_model_tensor *t,
			      int64_t *v, uint32_t max)
{
	const struct ap_model_buffer *b;
	uint64_t w, n;

	if (!m || !t || (t->type != AP_TT_INT32 && t->type != AP_TT_INT64) || !t->buffer ||
	    t->buffer >= m->n_buffers)
		return 0;
	b = &m->buffers[t->buffer];
	w = t->type == AP_TT_INT32 ? 4 : 8;
	n = b->data_len / w;
	if (!b->small || !n || n > max || b->data_len % w)
		return 0;
	for (uint64_t i = 0; i < n; i++)
		v[i] = w == 4 ? (int64_t)(int32_t)ld32(b->small + 4 * i) :
				(int64_t)ld64(b->small + 8 * i);
	return (uint32_t)n;
}

int32_t ap_model_op_code(const struct ap_model *m, const struct ap_model_op *op)
{
	return op->opcode_index < m->n_opcodes ? m->opcodes[op->opcode_index].builtin : -1;
}

bool ap_model_tensor_open(const struct ap_model_tensor *t)
{
	for (uint32_t k = 0; t && t->shape_signature && k < t->sig_rank; k++)
		if (t->shape_signature[k] < 0)
			return true;
	return false;
}

bool ap_model_buffer_range(const struct ap_model_buffer *b, uint64_t *off, uint64_t *len)
{
	if (b->data_len) {
		*off = b->data_off;
		*len = b->data_len;
	} else if (b->offset > 1) {
		*off = b->offset;
		*len = b->size;
	} else {
		return false;
	}
	return true;
}
