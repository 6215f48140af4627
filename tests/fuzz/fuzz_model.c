// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the TFLite model reader: any input must parse or fail with a
 * one-line message, never crash, leak or read outside the input. A model that parses must
 * keep the promises the planner relies on (every index in range), else we trap.
 * Built and run by tests/fuzz/run-fuzz.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/plan/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int in_range(const int32_t *v, uint32_t n, uint32_t n_tensors)
{
	uint32_t i;

	for (i = 0; i < n; i++) {
		if (v[i] < -1 || (v[i] >= 0 && (uint32_t)v[i] >= n_tensors))
			return 0;
	}
	return 1;
}

static int consistent(const struct ap_model *m)
{
	uint32_t s, i;

	for (s = 0; s < m->n_subgraphs; s++) {
		const struct ap_model_subgraph *sg = &m->subgraphs[s];

		if (!sg->name || !in_range(sg->inputs, sg->n_inputs, sg->n_tensors) ||
		    !in_range(sg->outputs, sg->n_outputs, sg->n_tensors))
			return 0;
		for (i = 0; i < sg->n_tensors; i++) {
			const struct ap_model_tensor *t = &sg->tensors[i];

			if (!t->name || (m->n_buffers && t->buffer >= m->n_buffers))
				return 0;
			ap_model_buffer_is_constant(m, t->buffer);
		}
		for (i = 0; i < sg->n_ops; i++) {
			const struct ap_model_op *op = &sg->ops[i];
			unsigned int f;

			if (op->opcode_index >= m->n_opcodes || !ap_model_op_name(m, op) ||
			    !in_range(op->inputs, op->n_inputs, sg->n_tensors) ||
			    !in_range(op->outputs, op->n_outputs, sg->n_tensors) ||
			    !in_range(op->intermediates, op->n_intermediates, sg->n_tensors))
				return 0;
			for (f = 0; f < 20; f++) {
				ap_model_op_option(m, op, f, 1, 0);
				ap_model_op_option(m, op, f, 2, 0);
				ap_model_op_option(m, op, f, 4, 0);
				ap_model_op_option(m, op, f, 8, 0);
			}
		}
	}
	for (i = 0; i < m->n_buffers; i++) {
		const struct ap_model_buffer *b = &m->buffers[i];

		if (b->data_len > m->file_size || b->data_off > m->file_size - b->data_len)
			return 0;
	}
	return m->n_subgraphs > 0;
}

/* A message is one printable line: no newline, tab or other control character. */
static int one_line(const char *s)
{
	if (!*s)
		return 0;
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return 0;
	}
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[AP_ERR_LEN];
	struct ap_model m;

	err[0] = 0;
	if (ap_model_parse(data, size, &m, err)) {
		/* Failure: an empty model and a one-line message. */
		if (!one_line(err) || m.subgraphs || m.n_subgraphs || m.opcodes || m.buffers ||
		    m.metadata || m.description || m.offline_offsets)
			__builtin_trap();
		return 0;
	}
	if (!consistent(&m))
		__builtin_trap();
	ap_model_free(&m);
	return 0;
}
