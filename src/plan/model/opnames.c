// SPDX-License-Identifier: Apache-2.0
/*
 * Names for humans: the BuiltinOperator (builtin_ops.h, the one table) and TensorType
 * enums of TFLite's schema.fbs (tflite/converter/schema/schema.fbs in LiteRT, formerly
 * tensorflow/lite/schema), as tables indexed by value. New values are only ever appended
 * to those enums, so a model from a newer converter shows its unknown operators as
 * "OP_<n>".
 */
#include <stdio.h>

#include "arenaprof/plan/builtin_ops.h"
#include "arenaprof/plan/model.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static const char *const builtin_names[] = {
#define NAME_OF(name, code) [code] = #name,
	AP_BUILTIN_OPS(NAME_OF)
#undef NAME_OF
};

static const char *const type_names[] = {
	[AP_TT_FLOAT32] = "FLOAT32", [AP_TT_FLOAT16] = "FLOAT16", [AP_TT_INT32] = "INT32",
	[AP_TT_UINT8] = "UINT8", [AP_TT_INT64] = "INT64", [AP_TT_STRING] = "STRING",
	[AP_TT_BOOL] = "BOOL", [AP_TT_INT16] = "INT16", [AP_TT_COMPLEX64] = "COMPLEX64",
	[AP_TT_INT8] = "INT8", [AP_TT_FLOAT64] = "FLOAT64",
	[AP_TT_COMPLEX128] = "COMPLEX128", [AP_TT_UINT64] = "UINT64",
	[AP_TT_RESOURCE] = "RESOURCE", [AP_TT_VARIANT] = "VARIANT",
	[AP_TT_UINT32] = "UINT32", [AP_TT_UINT16] = "UINT16", [AP_TT_INT4] = "INT4",
	[AP_TT_BFLOAT16] = "BFLOAT16", [AP_TT_INT2] = "INT2", [AP_TT_UINT4] = "UINT4",
	[AP_TT_FLOAT8_E4M3FN] = "FLOAT8_E4M3FN", [AP_TT_FLOAT8_E5M2] = "FLOAT8_E5M2",
};

const char *ap_builtin_name(int32_t code)
{
	if (code < 0 || (size_t)code >= ARRAY_SIZE(builtin_names))
		return NULL;
	return builtin_names[code];
}

const char *ap_tensor_type_name(uint8_t type)
{
	if (type >= ARRAY_SIZE(type_names) || !type_names[type])
		return "UNKNOWN";
	return type_names[type];
}

/*
 * The builtin name, the custom name for CUSTOM ("CUSTOM" when it has none), or "OP_<n>"
 * for a code newer than the table above. The "OP_<n>" text lives in a thread-local slot
 * chosen by n, so that callers may keep the pointer (the graph builder does): it stays
 * valid and unchanged for the life of the calling thread, unless another unknown code equal
 * to n modulo OP_SLOTS is named later in the same thread. Codes 210 to 465, the next 256
 * the schema may add, never share a slot.
 */
#define OP_SLOTS 256

const char *ap_model_op_name(const struct ap_model *m, const struct ap_model_op *op)
{
	static _Thread_local char slots[OP_SLOTS][16];
	const struct ap_model_opcode *oc;
	const char *name;
	char *buf;

	if (!m || !op || !m->opcodes || op->opcode_index >= m->n_opcodes)
		return "INVALID_OPCODE";
	oc = &m->opcodes[op->opcode_index];
	if (oc->builtin == OP_CUSTOM && oc->custom_name)
		return oc->custom_name;
	name = ap_builtin_name(oc->builtin);
	if (name)
		return name;
	buf = slots[(uint32_t)oc->builtin % OP_SLOTS];
	snprintf(buf, sizeof(slots[0]), "OP_%d", (int)oc->builtin);
	return buf;
}
