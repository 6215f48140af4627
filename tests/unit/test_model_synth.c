// SPDX-License-Identifier: Apache-2.0
/*
 * Tests of the TFLite model reader (src/plan/model/model.c) on synthetic models, made by
 * the flatbuffer builder of model_fixture.h, for what no bundled model has: an offline
 * memory plan, the >2 GB buffer form, shape signatures, opcodes in every form, two
 * subgraphs; every out-of-range index refused; tables shared by many vector elements
 * (amplification); one byte range corrupted at a time; and ap_model_load's refusals (a
 * directory, a missing file, /dev/null, a FIFO, an empty, foreign, tiny or truncated file).
 *
 * Built with -DTEST_MODEL_WRITE_SEEDS (tests/fuzz/run-fuzz), it is instead the writer of
 * the fuzzer's synthetic seeds.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/model.h"
#include "model_fixture.h"

/* Parses a synthetic model; returns the parse result, with the message in err. */
static int synth_parse(const struct synth *s, struct ap_model *m, char *err)
{
	size_t size;
	uint8_t *b = synth_build(s, &size);
	int rc;

	err[0] = 0;
	rc = ap_model_parse(b, size, m, err);
	/* Scribble over the file before freeing it: the model must not point into it. */
	memset(b, 0xa5, size);
	free(b);
	return rc;
}

static void test_synthetic(void)
{
	const struct ap_model_subgraph *sg;
	const struct ap_model_tensor *t;
	char err[AP_ERR_LEN];
	struct synth s = { 0 };
	struct ap_model m;

	if (synth_parse(&s, &m, err)) {
		CHECK("synthetic parses", 0, "%s", err);
		return;
	}
	CHECK("synthetic parses", 1, "%s", "");
	CHECK("synthetic path is NULL", !m.path, "got %s", m.path);
	CHECK_STR("synthetic description", m.description, "synthetic");
	CHECK_EQ_I64("synthetic opcodes", m.n_opcodes, 4);
	CHECK_EQ_I64("synthetic CUSTOM via deprecated code", m.opcodes[0].builtin, 32);
	CHECK_STR("synthetic custom name", m.opcodes[0].custom_name, "MyOp");
	CHECK_EQ_I64("synthetic deprecated code only", m.opcodes[1].builtin, 3);
	CHECK_EQ_I64("synthetic opcode version", m.opcodes[1].version, 2);
	CHECK_EQ_I64("synthetic builtin_code over 127", m.opcodes[2].builtin, 150);
	CHECK_EQ_I64("synthetic opcode version default", m.opcodes[2].version, 1);
	CHECK_EQ_I64("synthetic builtin_code 300", m.opcodes[3].builtin, 300);
	CHECK_EQ_I64("synthetic buffers", m.n_buffers, 5);
	CHECK_EQ_I64("synthetic buffer 1 data", m.buffers[1].data_len, 8);
	CHECK_EQ_I64("synthetic buffer 2 offset", m.buffers[2].offset, 8);
	CHECK_EQ_I64("synthetic buffer 2 size", m.buffers[2].size, 4);
	CHECK("synthetic buffer 0 not constant", !ap_model_buffer_is_constant(&m, 0), "is");
	CHECK("synthetic buffer 1 constant", ap_model_buffer_is_constant(&m, 1), "is not");
	CHECK("synthetic buffer 2 (>2 GB form) constant", ap_model_buffer_is_constant(&m, 2),
	      "is not");
	/* InterpreterBuilder: a present data vector, even empty, makes the tensor MmapRo */
	CHECK("synthetic buffer 4 (empty data vector) constant",
	      ap_model_buffer_is_constant(&m, 4), "is not");
	CHECK("synthetic buffer 5 (out of range) not constant",
	      !ap_model_buffer_is_constant(&m, 5), "is");
	CHECK_EQ_I64("synthetic metadata", m.n_metadata, 2);
	CHECK_STR("synthetic metadata 1 name", m.metadata[1].name, "OfflineMemoryAllocation");
	CHECK_INTS("synthetic offline plan", m.offline_offsets, m.n_offline_offsets,
		   0, -1, 128, 192);
	sg = &m.subgraphs[0];
	CHECK_STR("synthetic subgraph name", sg->name, "sg0");
	CHECK_EQ_I64("synthetic tensors", sg->n_tensors, 4);
	t = &sg->tensors[2];
	CHECK_STR("synthetic tensor 2 name", t->name, "out");
	CHECK("synthetic tensor 2 variable", t->is_variable, "not variable");
	CHECK_INTS("synthetic tensor 2 signature", t->shape_signature, t->sig_rank, -1, 4);
	CHECK_STR("synthetic tensor 2 type", ap_tensor_type_name(t->type), "FLOAT32");
	CHECK_STR("synthetic tensor 3 has an empty name", sg->tensors[3].name, "");
	CHECK_EQ_I64("synthetic tensor 3 rank", sg->tensors[3].rank, 0);
	CHECK("synthetic tensor 3 (>2 GB form) constant",
	      ap_model_buffer_is_constant(&m, sg->tensors[3].buffer), "is not");
	CHECK_EQ_I64("synthetic ops", sg->n_ops, 4);
	CHECK_INTS("synthetic op 0 inputs", sg->ops[0].inputs, sg->ops[0].n_inputs, 0, 1, -1);
	CHECK_INTS("synthetic op 0 intermediates", sg->ops[0].intermediates,
		   sg->ops[0].n_intermediates, 3);
	CHECK_STR("synthetic op 0 name", ap_model_op_name(&m, &sg->ops[0]), "CONV_2D");
	CHECK_EQ_I64("synthetic op 0 options type", sg->ops[0].options_type, 1);
	CHECK_EQ_I64("synthetic op 0 padding (absent)", ap_model_op_option(&m, &sg->ops[0], 0, 1,
		     -7), -7);
	CHECK_EQ_I64("synthetic op 0 stride_w", ap_model_op_option(&m, &sg->ops[0], 1, 4, 0), 2);
	CHECK_EQ_I64("synthetic op 0 stride_h", ap_model_op_option(&m, &sg->ops[0], 2, 4, 0), -3);
	CHECK_EQ_I64("synthetic op 0 fused", ap_model_op_option(&m, &sg->ops[0], 3, 1, 0), 3);
	CHECK_EQ_I64("synthetic op 0 field past the vtable",
		     ap_model_op_option(&m, &sg->ops[0], 9, 4, 42), 42);
	CHECK_EQ_I64("synthetic op 0 field past the table",
		     ap_model_op_option(&m, &sg->ops[0], 3, 8, 42), 42);
	CHECK_EQ_I64("synthetic op 1 has no options", sg->ops[1].options_type, 0);
	CHECK_EQ_I64("synthetic op 1 option default",
		     ap_model_op_option(&m, &sg->ops[1], 0, 4, 5), 5);
	CHECK_STR("synthetic op 1 name", ap_model_op_name(&m, &sg->ops[1]), "MyOp");
	CHECK_STR("synthetic op 2 name", ap_model_op_name(&m, &sg->ops[2]), "GELU");
	CHECK("synthetic op 2 has no inputs", !sg->ops[2].inputs && !sg->ops[2].n_inputs, "has");
	CHECK_STR("synthetic op 3 name", ap_model_op_name(&m, &sg->ops[3]), "OP_300");
	ap_model_free(&m);
	ap_model_free(&m);	/* twice is fine: the first one zeroes */

	s.n_subgraphs = 2;
	if (synth_parse(&s, &m, err)) {
		CHECK("synthetic two subgraphs parse", 0, "%s", err);
	} else {
		CHECK_EQ_I64("synthetic two subgraphs", m.n_subgraphs, 2);
		CHECK_EQ_I64("synthetic two subgraphs offline", m.n_offline_offsets, 8);
		ap_model_free(&m);
	}
}

/* Expects the synthetic model with knob k set to v to fail with exactly want. */
static void expect_err(const char *name, struct synth s, const char *want)
{
	char err[AP_ERR_LEN];
	struct ap_model m;

	if (!synth_parse(&s, &m, err)) {
		CHECK(name, 0, "parsed, want \"%s\"", want);
		ap_model_free(&m);
		return;
	}
	CHECK_STR(name, err, want);
	CHECK(nm("%s leaves the model empty", name), !m.subgraphs && !m.n_subgraphs &&
	      !m.opcodes && !m.buffers && !m.metadata && !m.description, "not empty");
}

static void test_bad_indices(void)
{
	struct synth s;

#define SET(field, idx, v) (memset(&s, 0, sizeof(s)), s.field = (v), s.set[idx] = true, s)
	expect_err("bad operator input", SET(op0_input2, S_OP0_INPUT2, 900),
		   "operator 0 input 2: tensor index 900 out of range (subgraph 0 has 4 "
		   "tensors)");
	expect_err("operator input -2", SET(op0_input2, S_OP0_INPUT2, -2),
		   "operator 0 input 2: tensor index -2 out of range (subgraph 0 has 4 "
		   "tensors)");
	expect_err("bad subgraph output", SET(sg_output, S_SG_OUTPUT, 4),
		   "subgraph 0 output 0: tensor index 4 out of range (subgraph 0 has 4 "
		   "tensors)");
	expect_err("bad tensor buffer", SET(t1_buffer, S_T1_BUFFER, 99),
		   "tensor 1: buffer index 99 out of range (model has 5 buffers)");
	expect_err("bad opcode index", SET(op1_opcode, S_OP1_OPCODE, 7),
		   "operator 1: opcode index 7 out of range (model has 4 operator codes)");
	expect_err("bad metadata buffer", SET(meta_buffer, S_META_BUFFER, 5),
		   "metadata 1 (OfflineMemoryAllocation): buffer index 5 out of range (model "
		   "has 5 buffers)");
	expect_err("offline plan too short", SET(meta_buffer, S_META_BUFFER, 1),
		   "metadata 1 (OfflineMemoryAllocation): buffer 1 holds 8 bytes, too few for "
		   "the 12-byte header");
	expect_err("offline plan count", SET(offline_n, S_OFFLINE_N, 2),
		   "metadata 1 (OfflineMemoryAllocation): has 2 offsets, but the model has 4 "
		   "tensors");
	expect_err("offline plan overlong", SET(offline_n, S_OFFLINE_N, 13),
		   "metadata 1 (OfflineMemoryAllocation): claims 13 offsets, but buffer 3 "
		   "holds room for 12");
	expect_err("offline plan bad offset", SET(offline_1, S_OFFLINE_1, -5),
		   "metadata 1 (OfflineMemoryAllocation): offset of tensor 1 is -5 (want -1 "
		   "or >= 0)");
	(void)SET(ext_offset, S_EXT_OFFSET, 1ull << 40);
	{
		char want[200];
		size_t size;

		free(synth_build(&s, &size));
		snprintf(want, sizeof(want), "truncated: buffer 2 external data runs past end "
			 "of file (offset 1099511627776, size 4, file %zu bytes)", size);
		expect_err("buffer external data out of file", s, want);
	}
	memset(&s, 0, sizeof(s));
	s.n_subgraphs = 2;
	s.set[S_OP0_INPUT2] = true;
	s.op0_input2 = 4;
	/* The first subgraph fails first: both share one table. */
	expect_err("bad input, two subgraphs", s,
		   "operator 0 input 2: tensor index 4 out of range (subgraph 0 has 4 tensors)");
	memset(&s, 0, sizeof(s));
	s.no_subgraphs = true;
	expect_err("no subgraphs", s, "model has no subgraphs");
	{
		/* Found by the fuzzer: a name with a newline made a two-line message. */
		char err[AP_ERR_LEN];
		struct ap_model m;
		uint8_t *b, *p;
		size_t size;

		(void)SET(meta_buffer, S_META_BUFFER, 5);
		b = synth_build(&s, &size);
		p = memmem(b, size, "OfflineMemoryAllocation", 23);
		if (p)
			p[7] = '\n';
		err[0] = 0;
		CHECK("file names in messages are printable (cleaned where read: '?')",
		      p && ap_model_parse(b, size, &m, err) &&
		      !strcmp(err, "metadata 1 (Offline?emoryAllocation): buffer index 5 out "
			      "of range (model has 5 buffers)"), "got \"%s\"", err);
		free(b);
	}
#undef SET
}

static void test_amplification(void)
{
	char err[AP_ERR_LEN];
	struct synth s = { 0 };
	struct ap_model m;
	size_t size;

	/* 20000 tensors x 4000 bytes of shape = 80 MB from a ~90 KB file: refused. */
	s.amplify = 20000;
	s.no_plan = true;
	free(synth_build(&s, &size));
	CHECK("amplified file is small", size < 100000, "%zu bytes", size);
	if (!synth_parse(&s, &m, err)) {
		CHECK("shared-table amplification refused", 0, "parsed");
		ap_model_free(&m);
		return;
	}
	CHECK("shared-table amplification refused", !strncmp(err, "implausible: ", 13),
	      "got \"%s\"", err);
	/* 50 of them is honest enough. */
	s.amplify = 50;
	if (synth_parse(&s, &m, err)) {
		CHECK("small shared-table model parses", 0, "%s", err);
		return;
	}
	CHECK_EQ_I64("small shared-table model parses", m.subgraphs[0].n_tensors, 50);
	CHECK_EQ_I64("small shared-table model rank", m.subgraphs[0].tensors[49].rank, 1000);
	CHECK("no plan, no offsets", !m.offline_offsets, "has some");
	ap_model_free(&m);
}

/* Corrupts one byte range of the synthetic model and expects the message to start so. */
static void expect_corrupt(const char *name, uint32_t at, const void *bytes, uint32_t n,
			   size_t cut, const char *want_prefix)
{
	struct synth s = { 0 };
	char err[AP_ERR_LEN];
	struct ap_model m;
	size_t size;
	uint8_t *b = synth_build(&s, &size);
	int rc;

	if (n)
		memcpy(b + at, bytes, n);
	err[0] = 0;
	rc = ap_model_parse(b, cut ? cut : size, &m, err);
	free(b);
	if (!rc) {
		CHECK(name, 0, "parsed");
		ap_model_free(&m);
		return;
	}
	CHECK(name, !strncmp(err, want_prefix, strlen(want_prefix)), "got \"%s\", want \"%s...\"",
	      err, want_prefix);
}

static void test_corruption(void)
{
	struct synth s = { 0 };
	char err[AP_ERR_LEN];
	struct ap_model m;
	uint32_t root, vt, desc;
	uint8_t *b;
	size_t size;

	b = synth_build(&s, &size);
	root = b[0] | b[1] << 8;
	vt = root - (b[root] | b[root + 1] << 8);
	/* The description string is right after the root table: find "synthetic". */
	for (desc = 8; desc + 9 < size && memcmp(b + desc, "synthetic", 9); desc++)
		;
	free(b);
	expect_corrupt("vtable outside the file", root, "\x00\x00\x00\x80", 4, 0,
		       "corrupt: model root table vtable at offset ");
	expect_corrupt("vtable runs past the end", vt, "\xf0\xff", 2, 0,
		       "corrupt: model root table vtable at offset ");
	expect_corrupt("vtable size odd", vt, "\x07\x00", 2, 0,
		       "corrupt: model root table vtable at offset ");
	expect_corrupt("table size past the end", vt + 2, "\xf0\xff", 2, 0,
		       "truncated: model root table runs past end of file");
	expect_corrupt("field outside its table", vt + 2, "\x08\x00", 2, 0,
		       "corrupt: model ");
	expect_corrupt("root offset past the end", 0, "\xff\xff\x00\x00", 4, 0,
		       "truncated: model root table runs past end of file (offset 65535");
	expect_corrupt("zero root offset", 0, "\0\0\0\0", 4, 0,
		       "corrupt: model root table has a zero offset");
	expect_corrupt("string without NUL", desc + 9, "!", 1, 0,
		       "corrupt: model description string is not NUL-terminated");
	expect_corrupt("string length past the end", desc - 4, "\xff\xff\xff\x0f", 4, 0,
		       "truncated: model description string runs past end of file");
	expect_corrupt("truncated model", 0, NULL, 0, 200, "truncated: ");

	err[0] = 0;
	CHECK("empty buffer", ap_model_parse((const uint8_t *)"", 0, &m, err) == -EINVAL &&
	      !strcmp(err, "empty file"), "got \"%s\"", err);
	CHECK("7 bytes", ap_model_parse((const uint8_t *)"\x08\0\0\0TFL", 7, &m, err) &&
	      !strncmp(err, "too small", 9), "got \"%s\"", err);
	CHECK("bad identifier", ap_model_parse((const uint8_t *)"\x08\0\0\0TFL2\0\0\0\0", 12,
					       &m, err) &&
	      !strcmp(err, "not a TFLite model: file identifier is 'TFL2', expected 'TFL3'"),
	      "got \"%s\"", err);
	CHECK("binary identifier", ap_model_parse((const uint8_t *)"\x7f" "ELF\x02\x01\x01\0",
						  8, &m, err) &&
	      !strcmp(err, "not a TFLite model: file identifier is '\\x02\\x01\\x01\\x00', "
		      "expected 'TFL3'"), "got \"%s\"", err);
}

static bool write_file(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	bool ok;

	if (!f)
		return false;
	ok = fwrite(data, 1, n, f) == n;
	return !fclose(f) && ok;
}

static void test_load_errors(void)
{
	char dir[] = "/tmp/test_model.XXXXXX", path[128], err[AP_ERR_LEN], want[300];
	struct synth s = { 0 };
	struct ap_model m;
	uint8_t *b;
	size_t size;

	if (!mkdtemp(dir)) {
		CHECK("mkdtemp", 0, "%s", strerror(errno));
		return;
	}
	CHECK("load directory", ap_model_load(TEST_MODELS, &m, err) == -EINVAL &&
	      !strcmp(err, TEST_MODELS ": not a regular file (a directory)"), "got \"%s\"", err);
	CHECK("load missing file", ap_model_load(TEST_MODELS "/nope.tflite", &m, err) == -ENOENT &&
	      !strcmp(err, TEST_MODELS "/nope.tflite: No such file or directory"),
	      "got \"%s\"", err);
	CHECK("load /dev/null", ap_model_load("/dev/null", &m, err) &&
	      !strcmp(err, "/dev/null: not a regular file"), "got \"%s\"", err);

	snprintf(path, sizeof(path), "%s/fifo", dir);
	if (!mkfifo(path, 0600)) {
		snprintf(want, sizeof(want), "%s: not a regular file", path);
		CHECK("load FIFO (does not hang)", ap_model_load(path, &m, err) &&
		      !strcmp(err, want), "got \"%s\"", err);
		unlink(path);
	}

	snprintf(path, sizeof(path), "%s/empty.tflite", dir);
	write_file(path, "", 0);
	snprintf(want, sizeof(want), "%s: empty file", path);
	CHECK("load empty file", ap_model_load(path, &m, err) && !strcmp(err, want),
	      "got \"%s\"", err);

	write_file(path, "\x0c\0\0\0PK\x03\x04zipzipzip", 16);
	snprintf(want, sizeof(want), "%s: not a TFLite model: file identifier is "
		 "'PK\\x03\\x04', expected 'TFL3'", path);
	CHECK("load non-TFL3 file", ap_model_load(path, &m, err) && !strcmp(err, want),
	      "got \"%s\"", err);

	write_file(path, "TFL3", 4);
	snprintf(want, sizeof(want), "%s: too small", path);
	CHECK("load 4-byte file", ap_model_load(path, &m, err) &&
	      !strncmp(err, want, strlen(want)), "got \"%s\"", err);

	b = synth_build(&s, &size);
	write_file(path, b, 100);
	snprintf(want, sizeof(want), "%s: truncated: ", path);
	CHECK("load truncated file", ap_model_load(path, &m, err) &&
	      !strncmp(err, want, strlen(want)) && !strchr(err, '\n'), "got \"%s\"", err);
	write_file(path, b, size);
	free(b);
	err[0] = 0;
	if (ap_model_load(path, &m, err)) {
		CHECK("load synthetic file", 0, "%s", err);
	} else {
		CHECK_STR("load synthetic file", m.path, path);
		CHECK_EQ_I64("load synthetic file size", m.file_size, size);
		unlink(path);
		/* The file is gone and its mapping released: the model stands alone. */
		CHECK_STR("model outlives its file", m.subgraphs[0].tensors[2].name, "out");
		ap_model_free(&m);
	}
	unlink(path);
	rmdir(dir);
}

#ifdef TEST_MODEL_WRITE_SEEDS
/*
 * tests/fuzz/run-fuzz builds this file with TEST_MODEL_WRITE_SEEDS to write the synthetic
 * models into its corpus: they reach what the bundled models do not (an offline plan, two
 * subgraphs, tables shared by many vector elements).
 */
int main(int argc, char **argv)
{
	static const struct {
		const char *name;
		struct synth s;
	} seeds[] = {
		{ "synthetic.tflite", { .n_subgraphs = 1 } },
		{ "synthetic_2sg.tflite", { .n_subgraphs = 2 } },
		{ "synthetic_shared.tflite", { .amplify = 50, .no_plan = true } },
	};
	char path[4096];
	size_t i, size;

	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	for (i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++) {
		uint8_t *b = synth_build(&seeds[i].s, &size);

		snprintf(path, sizeof(path), "%s/%s", argv[1], seeds[i].name);
		if (!write_file(path, b, size)) {
			fprintf(stderr, "%s: %s\n", path, strerror(errno));
			return 1;
		}
		free(b);
	}
	return 0;
}
#else
int main(void)
{
	/* A hang is a failure too: SIGALRM ends the run with a non-zero status. */
	alarm(120);
	test_synthetic();
	test_bad_indices();
	test_amplification();
	test_corruption();
	test_load_errors();
	TEST_EXIT();
}
#endif
