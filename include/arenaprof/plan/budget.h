/* SPDX-License-Identifier: Apache-2.0 */
/*
 * budget: a budget's verdict on the two halves of memory (docs/design.md, "The question
 * and the two halves of memory"), a model's or a process's, and the cgroup v2 settings
 * `plan --budget` suggests; the verdict of `report --budget` on a measured process; the
 * runtime's own cost that `plan --baseline` takes from a trace. Arithmetic only: the
 * reports print it.
 */
#ifndef ARENAPROF_PLAN_BUDGET_H
#define ARENAPROF_PLAN_BUDGET_H

#include <stdbool.h>
#include <stdint.h>

struct ap_budget_verdict {
	uint64_t budget;
	uint64_t anon;		/* non-reclaimable: resident once written, never reclaimed */
	uint64_t file;		/* reclaimable: file-backed weights the runtime keeps reading */
	uint64_t total;		/* anon + file: both halves resident */
	bool fits;		/* total <= budget */
	bool anon_fits;		/* anon <= budget: the gate (exit 3 when false); the weights
				 * can be paged out and read again, the anonymous half cannot */
	int64_t margin;		/* budget - total, negative over it */
	uint64_t high;		/* memory.high: 95 % of the budget, a tripwire below max; never
				 * below anon when anon fits (a tripwire under the need would
				 * throttle every run) */
	bool high_raised;	/* high is anon, above 95 % of the budget */
	uint64_t min;		/* memory.min: the mapped weights, page-rounded, <= high */
	bool min_clamped;	/* min is below what it protects: memory.high allows no more */
	bool min_need;		/* min protects a need (ap_budget_protect), not the weights */
	bool weights_copy;	/* the weights are a copy in anonymous memory (the caller's):
				 * no file pages for min to protect */
	uint64_t needed;	/* the smallest budget the gate passes: anon, page-rounded */
};

/* v from the two halves against budget; anon + file must not overflow (each is bounded
 * by the plans' AP_PLAN_MAX_BYTES, or checked by the caller). */
void ap_budget_judge(uint64_t budget, uint64_t anon, uint64_t file,
		     struct ap_budget_verdict *v);

/* memory.min raised to protect need (page-rounded), never above memory.high: the
 * settings are then never below what the process is known to need. */
void ap_budget_protect(struct ap_budget_verdict *v, uint64_t need);

/* What decided a measured process's verdict (ap_budget_judge_process). */
enum ap_budget_decider {
	AP_BUDGET_BY_NONRECLAIMABLE,	/* its non-reclaimable part alone is over */
	AP_BUDGET_BY_PEAK,		/* its peak: over (the reclaimable part with it), or
					 * under and so it fits */
	AP_BUDGET_BY_NO_RUN,		/* under it, but the process ended before its first
					 * run: what a run holds was never measured */
};

/* A measured process against a budget: `report --budget`. */
struct ap_budget_process {
	uint64_t budget;
	uint64_t peak;			/* the process's peak (VmHWM, memory.peak) */
	uint64_t nonreclaimable;	/* anonymous and shmem: never reclaimed without swap;
					 * with device memory, it too (set by the caller) */
	uint64_t device;		/* of peak and nonreclaimable: the dma-bufs' peak */
	uint64_t reclaimable;		/* peak - nonreclaimable (0 when that is larger) */
	bool fits;			/* nonreclaimable <= budget and peak <= budget */
	bool unknown;			/* not fits, yet nothing measured was over: NO_RUN */
	enum ap_budget_decider decided_by;
	int64_t margin;			/* budget less the deciding number */
};

void ap_budget_judge_process(uint64_t budget, uint64_t peak, uint64_t nonreclaimable,
			     struct ap_budget_process *v);
/* No run was measured (the process ended before): a verdict that fits becomes unknown, one
 * already over stays. */
void ap_budget_no_run(struct ap_budget_process *v);
/* "nonreclaimable", "peak", "no_run": the JSON's decided_by. */
const char *ap_budget_decider_key(enum ap_budget_decider d);

/*
 * The runtime's own cost, from a measured process that ran a model (plan --baseline):
 * what the process held beyond the model's planned halves. Its non-reclaimable part (code
 * pages aside: heap, stacks, the interpreter's and libraries' own buffers) is the measured
 * non-reclaimable memory less the model's planned one; its reclaimable part (code, the
 * libraries' files) the measured peak's reclaimable part less the model's weights. Each
 * is 0 when the plan holds more than was measured. Sets b's numbers, not its strings.
 */
struct ap_budget_baseline {
	uint64_t measured_peak, measured_nonreclaimable;
	uint64_t runtime_anon, runtime_file;
	/* the caller's: the trace, and how its figures were measured (text and JSON key:
	 * "VmHWM" and "vmhwm", "Pss_Anon + Pss_Shmem maxima" and "pss", ...) */
	const char *trace;
	const char *peak_text, *peak_key, *nonrecl_text, *nonrecl_key;
	const char *other_model;	/* a .tflite the trace mapped that is not the model
					 * planned, or NULL */
};

void ap_budget_baseline(uint64_t peak, uint64_t nonreclaimable, uint64_t model_anon,
			uint64_t model_file, struct ap_budget_baseline *b);

#endif
