/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A plan: for every tensor its size, lifetime, kind and offset, and the arena size. Both
 * the planner (from a model) and plan_import (from a runtime's dump) produce one; every
 * summary (breadth profile, lower bound, widest operator, checks) is computed from it.
 */
#ifndef ARENAPROF_PLAN_H
#define ARENAPROF_PLAN_H

#include <stdint.h>
#include <stdio.h>

#define AP_LAST_END INT32_MAX	/* lives to the end of the run */

/*
 * The most bytes a plan may count: one tensor, an offset plus a size, an arena, and the
 * sum of every tensor's size (plus 64 bytes of alignment each, for a computed plan). 2^56
 * bytes (64 PiB) is the largest user address space 64-bit Linux has (5-level paging), and
 * a sum of sizes that stays under it cannot overflow any 64-bit offset, end or breadth
 * computed from them. Models and imported plans beyond it are refused.
 */
#define AP_PLAN_MAX_BYTES (UINT64_C(1) << 56)
#define AP_PLAN_MAX_BYTES_TEXT "2^56 bytes (64 PiB)"

enum ap_kind {
	AP_KIND_ARENA,		/* an intermediate activation in the arena */
	AP_KIND_INPUT,		/* graph input (arena) */
	AP_KIND_OUTPUT,		/* graph output (arena) */
	AP_KIND_VARIABLE,	/* persistent arena */
	AP_KIND_WEIGHTS,	/* read-only, file-backed */
	AP_KIND_DYNAMIC,	/* heap, outside both arenas */
	AP_KIND_UNPLANNED,	/* never allocated (e.g. only in intermediates) */
	AP_KIND_TEMPORARY,	/* kernel scratch (im2col...) in the arena, one node */
	AP_KIND_PERSISTENT,	/* persistent arena, not a variable (e.g. dequantized consts) */
	AP_KIND_PARENT,		/* a subgraph's input that uses its caller's buffer */
};

struct ap_ptensor {
	int32_t index;
	char *name;
	uint64_t bytes;
	int64_t offset;		/* -1 when not in the (normal or persistent) arena */
	int32_t first, last;	/* execution indices; last == AP_LAST_END: to the end */
	enum ap_kind kind;
	int32_t share_root;	/* shares the buffer of that tensor (in-place), or -1 */
};

/* Per-operator facts: the opcode name and the output named in reports. */
struct ap_pop {
	char *opname;
	char *out_name;		/* name of output 0, "" when unknown */
};

struct ap_tplan {
	char *model;		/* model path or import source */
	char *strategy;		/* "tflite", ..., or "import:<format>" */
	struct ap_ptensor *t;
	uint32_t n;
	struct ap_pop *ops;
	uint32_t n_ops;
	uint64_t arena_bytes;	/* normal arena high-water mark */
	uint64_t persistent_bytes;
	uint64_t weights_bytes;	/* constant data mapped from the model file */
	/* When set, every name, opname and out_name above points into this one block (the
	 * planner's plans: a malloc per string was a third of planning 100k operators);
	 * when NULL, each is its own allocation (imported plans). */
	char *names;
};

void ap_tplan_free(struct ap_tplan *p);

/* kind names as the CSV and JSON print them: arena, input, output, variable, ... */
const char *ap_kind_name(enum ap_kind k);
int ap_kind_parse(const char *s, enum ap_kind *k);

/* Does the tensor occupy bytes of the normal arena? (not shared, bytes > 0, offset >= 0) */
int ap_ptensor_in_arena(const struct ap_ptensor *t);

/*
 * The CPU LiteRT runs on: it picks CONV_2D's kernel type (docs/litert-kernels.md, "Where
 * the x86-64 and aarch64 builds differ") and XNNPACK its microkernels (xnnpack.h). HOST is
 * the arch arenaprof was built for; graph.h resolves, names and parses it.
 */
enum ap_arch { AP_ARCH_HOST, AP_ARCH_X86_64, AP_ARCH_ARM64 };

#endif
