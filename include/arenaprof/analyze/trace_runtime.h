/* SPDX-License-Identifier: Apache-2.0 */
/*
 * trace_runtime: the runtime a trace's process ran, from record's runtime notes
 * (record/runtime_id.h), and the plan rules (plan/runtime.h) its models are planned with
 * when --runtime does not say: tflite-runtime 2.14's for a tflite-runtime 2.14.x process,
 * LiteRT's (the default) for any other, for several that differ, or for none named.
 */
#ifndef ARENAPROF_TRACE_RUNTIME_H
#define ARENAPROF_TRACE_RUNTIME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "arenaprof/plan/runtime.h"
#include "arenaprof/record/runtime_id.h"

struct ap_trace_runtime {
	enum ap_runtime_id id;		/* the plan rules */
	bool given;			/* by --runtime; else chosen from the trace */
	struct ap_runtime_seen seen;	/* the first runtime the trace names ("" none) */
	uint32_t n_seen;		/* the distinct ones (name and version) it names */
	char other[140];		/* the second's "NAME VERSION", when n_seen > 1 */
	uint32_t n_unknown;		/* libraries it names in no Python distribution */
	/* the rules' XNNPACK delegate is not modelled, and the plan is its default path's:
	 * LiteRT's delegate over these rules' kernels (plan/runtime.h, xnnpack_modelled) */
	bool xnn_unmodelled;
};

/* One note of the trace: counted when it is a runtime note. */
void ap_trace_runtime_add(struct ap_trace_runtime *rt, const char *note);
/* Unless given, the rules from what the trace names. */
void ap_trace_runtime_pick(struct ap_trace_runtime *rt);
/*
 * The runtime notes of a trace, read up to its first run (record writes them as it finds
 * the run entry points, before the runs they count), then the pick. 0, or the reader's
 * negative errno with err.
 */
int ap_trace_runtime_scan(const char *trace, bool salvage, struct ap_trace_runtime *rt,
			  char *err);
/* "NAME VERSION" of the runtime seen, "" when none. */
const char *ap_trace_runtime_seen(const struct ap_trace_runtime *rt, char *buf, size_t len);
/* Why these rules, one clause: "the trace ran tflite-runtime 2.14.0", "--runtime litert". */
const char *ap_trace_runtime_why(const struct ap_trace_runtime *rt, char *buf, size_t len);

#endif
