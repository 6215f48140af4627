/* SPDX-License-Identifier: Apache-2.0 */
/*
 * diff: two plans (models or plan files), two traces, or a trace and a plan, as comparable
 * figures, for CI jobs that must fail on a regression (`arenaprof diff`). Each side gives
 * the arena (planned, or found and first touched), the peak (a plan's model memory: arena,
 * persistent arena and weights; a trace's VmHWM), the weights (planned, or the model
 * mapping's resident bytes) and, for a trace, the run latency and its resident memory per
 * kind. A row is compared only where both sides give the same quantity: a plan's model
 * memory is not a process's VmHWM, a plan has no runs; such a row is n/a with its reason.
 * A trace's model is --plan's, else the one its own mappings name (trace_model.h); a plan
 * beside a trace is planned for the path the trace ran (builtin kernels, XNNPACK, or
 * CompiledModel). Operators are paired by opcode and output name (diff_ops.h).
 */
#ifndef ARENAPROF_DIFF_H
#define ARENAPROF_DIFF_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/analyze/diff_ops.h"
#include "arenaprof/analyze/run_lat.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/util/err.h"

/* Where a trace side's model came from. */
enum ap_diff_model { AP_DIFF_MODEL_NONE, AP_DIFF_MODEL_GIVEN, AP_DIFF_MODEL_MAPPED };

struct ap_diff_side {
	const char *path;
	bool is_trace;
	struct ap_tplan plan;		/* a plan side */
	struct ap_corr_all x;		/* a trace side */
	const struct ap_tplan *p;	/* the side's plan (plan, or x.plan), NULL none */
	struct ap_profile prof;		/* p's breadth */
	enum ap_diff_model model;	/* a trace: its plan's source */
	char model_path[4096];		/* AP_DIFF_MODEL_MAPPED: the file */
	char no_model[AP_ERR_LEN + 64];	/* AP_DIFF_MODEL_NONE: why none was found */
	uint64_t arena;			/* planned bytes; or the arena's first-touched bytes */
	uint64_t peak;			/* arena + persistent + weights; or VmHWM, or every
					 * page the trace saw resident when more */
	uint64_t weights;		/* the model's weights; or its mapping's resident bytes */
	uint64_t kind[AP_GROUP_COUNT];	/* a trace: resident bytes per kind of memory */
	struct ap_run_lat lat;		/* a trace: its runs */
	uint64_t device;		/* a trace: its dma-bufs' peak (dmabuf_seen.h) */
	bool has_device;		/* ... its target had a dma-buf */
};

/* The rows both sides give. */
enum ap_diff_row {
	AP_DIFF_ARENA, AP_DIFF_PEAK, AP_DIFF_WEIGHTS,
	AP_DIFF_LAT_FIRST, AP_DIFF_LAT_MEDIAN, AP_DIFF_LAT_P99,
	AP_DIFF_DEVICE,			/* two traces: the dma-bufs' peak (device memory) */
	AP_DIFF_ROWS,
};

struct ap_diff_cmp {
	uint64_t o, n;			/* bytes, or ns for the latency */
	bool ok;			/* the same quantity on both sides */
	char why[AP_ERR_LEN + 128];	/* !ok: why not */
};

struct ap_diff {
	struct ap_diff_side o, n;
	struct ap_diff_cmp row[AP_DIFF_ROWS];
	bool have_ops;			/* both sides have a plan: its operators paired */
	struct ap_diff_ops ops;
};

/*
 * Opens old and new, each a trace (by its magic) or a plan; plan: the model of the traces
 * (NULL: the one each trace mapped). 0, or -errno with err. ap_diff_close in either case.
 */
int ap_diff_open(const char *old, const char *new, const char *plan, struct ap_diff *d,
		 char *err);
void ap_diff_close(struct ap_diff *d);

/* The row's key in JSON and its label: "arena", ... "latency_p99". */
const char *ap_diff_row_key(enum ap_diff_row r);

/* Change of new over old in percent: 0 when both are 0, +inf from 0 to more. */
double ap_diff_pct(uint64_t old, uint64_t new);

#endif
