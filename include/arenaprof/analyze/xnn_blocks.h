/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xnn_blocks: what XNNPACK's allocator held in a trace (record probes its five functions
 * where a mapped file has them, every block whatever its size: record/probe.h), each
 * block classified by the XNNPACK function that allocated it and, given the plan of the
 * model on LiteRT's default path, named by the TFLite operator it belongs to.
 *
 * The blocks counted are those live at the end of the first run (the trace's end when
 * it has no run): by then XNNPACK has created every partition's runtime (objects, packed
 * weights) and reshaped it (operator buffers, the workspace), as the plan counts.
 *
 * Operators are named from the order XNNPACK creates them in: LiteRT creates the
 * partitions' runtimes in partition order, a runtime its operators in node order (each its
 * descriptor blocks, then its packed weights), and reshapes them in the same order (the
 * buffers reshape sizes). Each class of block is dealt to the plan's operators in that
 * order, an operator taking blocks until they sum to what the plan gives it; an operator
 * whose blocks do not sum to the plan's figure ends the exact naming, and the rest of that
 * class is named by order only (said in `how`).
 */
#ifndef ARENAPROF_XNN_BLOCKS_H
#define ARENAPROF_XNN_BLOCKS_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/plan/xnnpack.h"

enum ap_xnn_class {
	AP_XNN_PACKED,		/* packed weights */
	AP_XNN_WORKSPACE,	/* the workspace the partitions share */
	AP_XNN_SCRATCH,		/* an operator's own: descriptors, zero and indirection
				 * buffers (plan: scratch_bytes) */
	AP_XNN_OTHER,		/* the runtimes' and the workspace's objects (plan:
				 * other_bytes) */
	AP_XNN_N_CLASSES,
};

/* "packed weights", "workspace", "operator buffers", "runtime objects" */
const char *ap_xnn_class_name(enum ap_xnn_class c);
/* The JSON key: "packed_weights_bytes", "workspace_bytes", "scratch_bytes", "other_bytes" */
const char *ap_xnn_class_key(enum ap_xnn_class c);

/*
 * The class of a block from the names of its allocating function (the symbol at the
 * caller of XNNPACK's allocator, demangled) and of that function's caller, "" unknown.
 * XNNPACK's allocator wrappers (xnn_allocate_zero_memory, ...) are skipped: *first and *up
 * then name the frames the class was read from. The one rule report and top class by.
 */
enum ap_xnn_class ap_xnn_site_class(const char **first, const char **up);

/* A caller address, to be named: the file offset in the mapping that holds it. */
struct ap_xnn_addr {
	uint64_t addr, off;
	int32_t map;
	char *name;		/* the symbol, demangled (the caller frees it); NULL unknown */
};

/*
 * Names every address of an[] (n of them; addr set, the rest zeros) by the symbols of the
 * file mapped there in as, one pass over each file's symbol tables; an[] is left sorted by
 * address. 0, or -ENOMEM (names given so far are the caller's to free).
 */
int ap_xnn_name_addrs(const struct ap_aspace *as, struct ap_xnn_addr *an, size_t n);
/* The name of addr in an[] as ap_xnn_name_addrs left it: "" when unknown. */
const char *ap_xnn_addr_name(const struct ap_xnn_addr *an, size_t n, uint64_t addr);

struct ap_xnn_mblock {
	uint32_t block;		/* in a->allocs->b */
	uint64_t size;		/* bytes asked for */
	enum ap_xnn_class cls;
	int32_t op;		/* the TFLite operator (execution index), -1 none */
	bool exact;		/* op named by sizes that sum as planned, not by order only */
	char site[96];		/* "caller < its caller", XNNPACK's function names */
};

struct ap_xnn_measured {
	bool probed;		/* the trace has blocks of XNNPACK's allocator */
	bool attributed;	/* a plan was given: ops named */
	bool several_models;	/* not named: the blocks are several models' */
	struct ap_xnn_mblock *b;	/* live at the counting time, in allocation order */
	uint32_t n;
	uint64_t blocks_bytes;		/* every live block */
	uint64_t bytes[AP_XNN_N_CLASSES];
	uint64_t attributed_bytes;	/* named: an operator's, the workspace, the objects */
	uint32_t n_ops;			/* with a plan: the plan's operators */
	uint64_t *op_packed, *op_scratch;	/* measured, by operator */
	uint64_t *plan_packed, *plan_scratch;	/* the plan's, by operator */
	char **op_names;			/* "CONV_2D", by operator (NULL: none) */
	uint64_t planned[AP_XNN_N_CLASSES];	/* the plan's totals, by class */
	uint32_t ops_exact;		/* delegated operators whose blocks sum as planned */
	uint32_t ops_planned;		/* delegated operators the plan gives blocks */
	char how[256];			/* how the naming went, "" when exact throughout */
};

/*
 * The XNNPACK blocks of a's trace; x (may be NULL) the plan of the model on the default
 * path to name operators by, names (may be NULL) the model's plan whose ops[] name x's
 * operators. 0 (m->probed false when the trace has none), or -ENOMEM.
 * ap_xnn_measured_free in either case.
 */
int ap_xnn_measure(const struct ap_analysis *a, const struct ap_xnn_plan *x,
		   const struct ap_tplan *names, struct ap_xnn_measured *m);
void ap_xnn_measured_free(struct ap_xnn_measured *m);

#endif
