// SPDX-License-Identifier: Apache-2.0
/*
 * plan_process and budget: the sums of several models' halves and a budget's verdict on
 * two halves, against figures worked out by hand.
 */
#include <errno.h>

#include "arenaprof/plan/budget.h"
#include "arenaprof/plan/plan_process.h"
#include "test.h"

/* A builtin plan: arena and persistent anonymous, weights file-backed. */
static struct ap_plan_set builtin(uint64_t arena, uint64_t persistent, uint64_t weights)
{
	struct ap_plan_set s = { 0 };

	s.plan.arena_bytes = arena;
	s.plan.persistent_bytes = persistent;
	s.plan.weights_bytes = weights;
	return s;
}

/* An XNNPACK plan: the delegated graph's arena, XNNPACK's total, the weights kept. */
static struct ap_plan_set xnn(uint64_t arena, uint64_t xnn_total, uint64_t kept)
{
	struct ap_plan_set s = builtin(999, 999, 5000);	/* the builtin side: not counted */

	s.have_xnn = true;
	s.xnn.total_bytes = xnn_total;
	s.kept_weights_bytes = kept;
	s.have_xnn_arena = true;
	s.xnn_arena.arena_bytes = arena;
	return s;
}

static void sums(void)
{
	struct ap_plan_set s[3] = { builtin(1000, 24, 300), xnn(64, 4000, 7), builtin(0, 0, 0) };
	struct ap_plan_process p;
	char err[AP_ERR_LEN];
	int rc = ap_plan_process_sum(s, 3, &p, err);

	CHECK_EQ_I64("sum: ok", rc, 0);
	CHECK_U64("sum: models", p.n, 3);
	CHECK_U64("sum: anonymous = 1024 + (64 + 4000) + 0", p.anon_bytes, 5088);
	CHECK_U64("sum: reclaimable = 300 + 7 + 0", p.file_bytes, 307);
	CHECK_U64("sum: total", p.total_bytes, 5395);
	CHECK_U64("sum: largest is the XNNPACK model", p.largest, 1);
	CHECK_U64("sum: the others without it", p.others_anon_bytes, 1024);

	rc = ap_plan_process_sum(s, 1, &p, err);
	CHECK("sum: one model is its own figures", !rc && p.anon_bytes == 1024 &&
	      p.file_bytes == 300 && p.largest == 0 && p.others_anon_bytes == 0,
	      "rc %d anon %" PRIu64, rc, p.anon_bytes);

	s[1] = s[0];	/* a tie: the first keeps it */
	rc = ap_plan_process_sum(s, 2, &p, err);
	CHECK("sum: the same model twice doubles, the first is the largest", !rc &&
	      p.anon_bytes == 2048 && p.file_bytes == 600 && p.largest == 0 &&
	      p.others_anon_bytes == 1024, "anon %" PRIu64 " largest %u", p.anon_bytes,
	      p.largest);
}

static void overflow(void)
{
	struct ap_plan_set s[2] = { builtin(UINT64_MAX - 10, 0, 0), builtin(11, 0, 0) };
	struct ap_plan_process p;
	char err[AP_ERR_LEN] = "";
	int rc = ap_plan_process_sum(s, 2, &p, err);

	CHECK("sum: anonymous past 2^64 refused", rc == -EOVERFLOW && err[0], "rc %d", rc);
	s[0] = builtin(UINT64_MAX - 10, 0, 0);
	s[1] = builtin(10, 0, 0);
	rc = ap_plan_process_sum(s, 2, &p, err);
	CHECK("sum: anonymous at 2^64 - 1 is fine", !rc && p.anon_bytes == UINT64_MAX,
	      "rc %d", rc);
	s[1] = builtin(9, 0, 2);	/* halves that fit, a total that does not */
	rc = ap_plan_process_sum(s, 2, &p, err);
	CHECK("sum: total past 2^64 refused", rc == -EOVERFLOW, "rc %d", rc);
}

static void verdicts(void)
{
	struct ap_budget_verdict v;

	ap_budget_judge(1 << 20, 600000, 400000, &v);
	CHECK("judge: both halves fit", v.fits && v.anon_fits && v.total == 1000000 &&
	      v.margin == 48576, "fits %d margin %" PRId64, v.fits, v.margin);
	CHECK_U64("judge: memory.high 95 %", v.high, 996147);	/* 1048576 * 95 / 100 */
	CHECK("judge: memory.min the weights, page-rounded", v.min == 401408 &&
	      !v.min_clamped, "min %" PRIu64, v.min);

	ap_budget_judge(1 << 20, 600000, 900000, &v);
	CHECK("judge: fits only by paging weights out", !v.fits && v.anon_fits &&
	      v.margin == 1048576 - 1500000, "margin %" PRId64, v.margin);
	CHECK("judge: memory.min the weights, below memory.high", !v.min_clamped &&
	      v.min == 901120, "min %" PRIu64, v.min);
	ap_budget_judge(1 << 20, 1000, 1000000, &v);
	CHECK("judge: memory.min clamped to memory.high's page", v.fits && v.min_clamped &&
	      v.min == 995328 && v.min <= v.high, "min %" PRIu64, v.min);

	ap_budget_judge(1000, 1001, 0, &v);
	CHECK("judge: one byte over: the gate fails", !v.fits && !v.anon_fits &&
	      v.margin == -1, "margin %" PRId64, v.margin);
	ap_budget_judge(1000, 1000, 0, &v);
	CHECK("judge: exactly the budget fits", v.fits && v.anon_fits && v.margin == 0 &&
	      v.min == 0, "margin %" PRId64, v.margin);
	ap_budget_judge(UINT64_MAX, 1, 0, &v);
	CHECK_U64("judge: memory.high of a huge budget, no overflow", v.high,
		  UINT64_MAX / 100 * 95);
	ap_budget_judge(1 << 20, 1020000, 0, &v);
	CHECK("judge: memory.high never below a need that fits", v.anon_fits &&
	      v.high_raised && v.high == 1020000 && v.needed == 1024000,
	      "high %" PRIu64 " needed %" PRIu64, v.high, v.needed);
	ap_budget_judge(1 << 20, 400000, 500000, &v);
	ap_budget_protect(&v, v.total);
	CHECK("protect: memory.min the whole need, page-rounded, below memory.high",
	      v.min == 901120 && v.min_need && !v.min_clamped && v.min <= v.high,
	      "min %" PRIu64, v.min);
	ap_budget_protect(&v, 2000000);
	CHECK("protect: a need past memory.high is clamped to it", v.min == 995328 &&
	      v.min_clamped, "min %" PRIu64, v.min);
}

static void process(void)
{
	struct ap_budget_process v;
	struct ap_budget_baseline b = { 0 };

	ap_budget_judge_process(1000, 3000, 1500, &v);
	CHECK("process: non-reclaimable over decides", !v.fits &&
	      v.decided_by == AP_BUDGET_BY_NONRECLAIMABLE && v.margin == -500 &&
	      v.reclaimable == 1500, "margin %" PRId64, v.margin);
	ap_budget_judge_process(2000, 3000, 1500, &v);
	CHECK("process: the peak over decides, the reclaimable part said", !v.fits &&
	      v.decided_by == AP_BUDGET_BY_PEAK && v.margin == -1000, "margin %" PRId64,
	      v.margin);
	ap_budget_judge_process(3000, 3000, 1500, &v);
	CHECK("process: a peak of exactly the budget fits", v.fits && v.margin == 0 &&
	      v.decided_by == AP_BUDGET_BY_PEAK, "fits %d", v.fits);
	CHECK("process: decided_by keys", !strcmp(ap_budget_decider_key(
	      AP_BUDGET_BY_NONRECLAIMABLE), "nonreclaimable") &&
	      !strcmp(ap_budget_decider_key(AP_BUDGET_BY_PEAK), "peak"), "keys");
	ap_budget_baseline(5000, 3000, 1000, 500, &b);
	CHECK("baseline: the runtime's halves beyond the model's", b.runtime_anon == 2000 &&
	      b.runtime_file == 1500 && b.measured_peak == 5000, "anon %" PRIu64 " file %"
	      PRIu64, b.runtime_anon, b.runtime_file);
	ap_budget_baseline(5000, 3000, 4000, 9000, &b);
	CHECK("baseline: a plan larger than measured leaves 0, never a wrap",
	      !b.runtime_anon && !b.runtime_file, "anon %" PRIu64, b.runtime_anon);
}

int main(void)
{
	sums();
	process();
	overflow();
	verdicts();
	TEST_EXIT();
}
