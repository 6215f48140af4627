// SPDX-License-Identifier: Apache-2.0
/*
 * Robustness of the TFLite model reader (src/plan/model/model.c): every bundled model and
 * the synthetic one (model_fixture.h) truncated and bit-flipped many times. Each variant
 * must parse into a model whose every index is in range, or fail with a one-line message,
 * never crash (run it under ASan/UBSan too); prefixes that cut tensor data must be
 * rejected.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/model.h"
#include "model_fixture.h"

/* The whole file in memory, in a malloc block of exactly its size (so ASan sees overreads). */
static uint8_t *slurp(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf;
	long n;

	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 || fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return NULL;
	}
	buf = malloc((size_t)n);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*size = (size_t)n;
	return buf;
}

/* ---- robustness: truncations and flips of every bundled model ---- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t xorshift(void)
{
	uint64_t x = rng_state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return rng_state = x;
}

struct tally {
	unsigned int parsed, rejected, bad, parsed_short;
	char first_bad[400];
};

/* What a successful parse promises: every index the planner follows is in range. */
static bool model_consistent(const struct ap_model *m)
{
	uint32_t s, i, k;

	if (!m->n_subgraphs || !m->subgraphs)
		return false;
	for (s = 0; s < m->n_subgraphs; s++) {
		const struct ap_model_subgraph *sg = &m->subgraphs[s];

		if (!sg->name)
			return false;
		for (i = 0; i < sg->n_tensors; i++) {
			if (!sg->tensors[i].name || (m->n_buffers &&
			    sg->tensors[i].buffer >= m->n_buffers))
				return false;
		}
		for (i = 0; i < sg->n_ops; i++) {
			const struct ap_model_op *op = &sg->ops[i];

			if (op->opcode_index >= m->n_opcodes || !ap_model_op_name(m, op))
				return false;
			for (k = 0; k < op->n_inputs; k++) {
				if (op->inputs[k] < -1 || op->inputs[k] >= (int32_t)sg->n_tensors)
					return false;
			}
			for (k = 0; k < op->n_outputs; k++) {
				if (op->outputs[k] < -1 ||
				    op->outputs[k] >= (int32_t)sg->n_tensors)
					return false;
			}
		}
	}
	for (i = 0; i < m->n_buffers; i++) {
		if (m->buffers[i].data_len > m->file_size ||
		    m->buffers[i].data_off > m->file_size - m->buffers[i].data_len)
			return false;
	}
	return true;
}

static void try_parse(const uint8_t *b, size_t n, struct tally *t, const char *what)
{
	char err[AP_ERR_LEN];
	struct ap_model m;
	size_t i;

	memset(err, 0, sizeof(err));
	if (!ap_model_parse(b, n, &m, err)) {
		t->parsed++;
		if (!model_consistent(&m) && !t->bad++)
			snprintf(t->first_bad, sizeof(t->first_bad), "%s: inconsistent model",
				 what);
		ap_model_free(&m);
		return;
	}
	t->rejected++;
	for (i = 0; err[i] && (unsigned char)err[i] >= 0x20 && err[i] != 0x7f; i++)
		;
	if ((!err[0] || err[i] || i >= AP_ERR_LEN - 1) && !t->bad++)
		snprintf(t->first_bad, sizeof(t->first_bad), "%s: message \"%s\"", what, err);
}

static void fuzz_truncations(const char *file, const uint8_t *data, size_t size)
{
	struct tally t = { 0 };
	size_t lens[256 + 64], n = 0, i, extent = 0;
	char what[64], err[AP_ERR_LEN];
	struct ap_model m;

	/* Where the last tensor data ends: some files carry more after it (a zip of labels). */
	if (!ap_model_parse(data, size, &m, err)) {
		for (i = 0; i < m.n_buffers; i++) {
			if (m.buffers[i].data_off + m.buffers[i].data_len > extent)
				extent = m.buffers[i].data_off + m.buffers[i].data_len;
		}
		ap_model_free(&m);
	}
	if (!extent)		/* no tensor data: then no strict prefix may parse */
		extent = size;

	lens[n++] = 0;
	lens[n++] = 1;
	lens[n++] = 7;
	lens[n++] = 8;
	lens[n++] = 16;
	for (i = 97; i < 4096 && i < size; i += 97)
		lens[n++] = i;
	for (i = 0; i <= 200; i++)
		lens[n++] = size * i / 200;
	lens[n++] = size - 1;
	for (i = 0; i < n; i++) {
		size_t len = lens[i] < size ? lens[i] : size;
		uint8_t *b = malloc(len ? len : 1);

		memcpy(b, data, len);
		snprintf(what, sizeof(what), "prefix %zu", len);
		try_parse(len ? b : NULL, len, &t, what);
		if (t.parsed && len < extent)
			t.parsed_short++;
		t.parsed = 0;
		free(b);
	}
	CHECK(nm("%s: %zu truncations parse or fail cleanly", file, n), !t.bad, "%s",
	      t.first_bad);
	CHECK(nm("%s: prefixes that cut tensor data (before %zu) are rejected", file, extent),
	      !t.parsed_short && extent, "%u parsed", t.parsed_short);
}

static void fuzz_flips(const char *file, uint8_t *data, size_t size, unsigned int count)
{
	static const uint8_t special[] = { 0x00, 0xff, 0x7f, 0x80, 0x01, 0xfe };
	struct tally t = { 0 };
	uint32_t *structure = NULL, n_structure = 0, i;
	struct ap_model m;
	char err[AP_ERR_LEN], what[64];
	uint8_t *is_data;

	/* The bytes that are not tensor data: where flips hit the flatbuffer structure. */
	if (ap_model_parse(data, size, &m, err))
		return;
	is_data = calloc(1, size);
	for (i = 0; i < m.n_buffers; i++)
		memset(is_data + m.buffers[i].data_off, 1, m.buffers[i].data_len);
	ap_model_free(&m);
	structure = malloc(size * sizeof(*structure));
	for (i = 0; i < size; i++) {
		if (!is_data[i])
			structure[n_structure++] = i;
	}
	free(is_data);

	for (i = 0; i < count; i++) {
		uint64_t r = xorshift();
		size_t at;
		uint8_t old;

		switch (i % 3) {
		case 0:
			at = (size_t)(r >> 16) % size;
			break;
		case 1:
			at = (size_t)(r >> 16) % (size < 65536 ? size : 65536);
			break;
		default:
			at = structure[(r >> 16) % n_structure];
			break;
		}
		old = data[at];
		if (r & 1)
			data[at] ^= (uint8_t)(1u << ((r >> 1) & 7));
		else if (r & 2)
			data[at] = special[(r >> 2) % sizeof(special)];
		else
			data[at] = (uint8_t)(r >> 8);
		snprintf(what, sizeof(what), "byte %zu: 0x%02x -> 0x%02x", at, old, data[at]);
		try_parse(data, size, &t, what);
		data[at] = old;
	}
	free(structure);
	CHECK(nm("%s: %u flips parse or fail cleanly (%u parsed, %u rejected)", file, count,
		 t.parsed, t.rejected), !t.bad, "%s", t.first_bad);
	CHECK(nm("%s: some flips are rejected", file), t.rejected > 0, "none of %u", count);
}

static void test_robustness(void)
{
	static const char *const files[] = {
		"deeplabv3_mnv2_dm05_pascal_quant.tflite",
		"face_detection_short_range.tflite",
		"keras_lstm_mnist_ptq.tflite",
		"mobilenet_v1_0.25_128_quant.tflite",
		"mobilenet_v2_1.0_224_quant.tflite",
		"model_invoking_error.tflite",
		"posenet_mobilenet_v1_075_353_481_16_quant_decoder.tflite",
		"selfie_segmentation.tflite",
		"split_concat.tflite",
	};
	char path[256];
	size_t i, size;

	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		uint8_t *data;

		snprintf(path, sizeof(path), TEST_MODELS "/%s", files[i]);
		data = slurp(path, &size);
		if (!data) {
			CHECK(nm("read %s", path), 0, "cannot read it");
			continue;
		}
		fuzz_truncations(files[i], data, size);
		fuzz_flips(files[i], data, size, 2400);
		free(data);
	}
	{
		struct synth s = { 0 };
		uint8_t *data = synth_build(&s, &size);

		fuzz_truncations("synthetic", data, size);
		fuzz_flips("synthetic", data, size, 3000);
		free(data);
	}
}

int main(void)
{
	/* A hang is a failure too: SIGALRM ends the run with a non-zero status. */
	alarm(120);
	test_robustness();
	TEST_EXIT();
}
