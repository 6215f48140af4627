// SPDX-License-Identifier: Apache-2.0
/*
 * plan_build: the report and the --plan option plan the same thing, and bad input comes
 * back as -EINVAL with one line naming the file.
 */
#include <errno.h>

#include "arenaprof/plan/plan_build.h"
#include "arenaprof/plan/plan_load.h"
#include "test.h"

#define MV2 TEST_MODELS "/mobilenet_v2_1.0_224_quant.tflite"
#define WHILE TEST_MODELS "/gen_while_loop.tflite"
#define CSV "tests/fixtures/import/plan.csv"

static int build(const char *path, enum ap_plan_src src, uint32_t sg, bool report,
		 struct ap_plan_set *s, char *err)
{
	struct ap_plan_req rq = { .path = path, .src = src, .strat = AP_STRAT_TFLITE,
				  .subgraph = sg, .report = report };

	*s = (struct ap_plan_set){ 0 };
	err[0] = 0;
	return ap_plan_build(&rq, s, err);
}

static void test_report_and_load_agree(void)
{
	struct ap_plan_set s;
	struct ap_tplan p;
	char err[AP_ERR_LEN];
	int rc = build(MV2, AP_PLAN_MODEL, 0, true, &s, err);

	CHECK("report of a model", rc == 0, "%d: %s", rc, err);
	CHECK("report: every subgraph and strategy", s.model && s.sgs && s.have_strategies &&
	      s.strat_bytes[AP_STRAT_TFLITE] == s.plan.arena_bytes, "model %p sgs %p",
	      (const void *)s.model, (void *)s.sgs);
	rc = ap_plan_load(MV2, &p, err);
	CHECK("--plan of the model", rc == 0, "%d: %s", rc, err);
	if (!rc) {
		CHECK_U64("--plan: the report's arena", p.arena_bytes, s.plan.arena_bytes);
		ap_tplan_free(&p);
	}
	ap_plan_set_free(&s);
}

static void test_import(void)
{
	struct ap_plan_set s;
	char err[AP_ERR_LEN];
	int rc = build(CSV, AP_PLAN_ANY, 0, true, &s, err);

	CHECK("a CSV plan, told from a model", rc == 0 && !s.model && !s.sgs &&
	      !strncmp(s.plan.strategy, "import:", 7), "%d: %s", rc, err);
	ap_plan_set_free(&s);
	rc = build(MV2, AP_PLAN_IMPORT, 0, false, &s, err);
	CHECK("a model read as an import: -EINVAL", rc == -EINVAL, "%d: %s", rc, err);
	ap_plan_set_free(&s);
}

static void test_bad_input(void)
{
	struct ap_plan_set s;
	struct ap_tplan p;
	char err[AP_ERR_LEN];
	int rc = build(WHILE, AP_PLAN_MODEL, 3, true, &s, err);

	CHECK("--subgraph out of range: -EINVAL, said", rc == -EINVAL &&
	      !strcmp(err, WHILE ": --subgraph 3: the model has 3 subgraphs"), "%d: %s", rc,
	      err);
	ap_plan_set_free(&s);
	rc = build(CSV, AP_PLAN_MODEL, 0, true, &s, err);
	CHECK("a CSV read as a model: -EINVAL", rc == -EINVAL && strstr(err, CSV), "%d: %s",
	      rc, err);
	ap_plan_set_free(&s);
	rc = ap_plan_load("tests/fixtures/import/empty.txt", &p, err);
	CHECK("--plan of an empty file: -EINVAL", rc == -EINVAL, "%d: %s", rc, err);
	rc = ap_plan_load("tests/fixtures/import/no_such_file.txt", &p, err);
	CHECK("--plan of a missing file: -ENOENT", rc == -ENOENT, "%d: %s", rc, err);
}

/* The delegate: XNNPACK unless told (LiteRT's default), none is the builtin plan alone,
 * and --plan (ap_plan_load) is the builtin plan whatever the default. */
static void test_delegate(void)
{
	struct ap_plan_req rq = { .path = MV2, .src = AP_PLAN_MODEL, .strat = AP_STRAT_TFLITE,
				  .report = true };
	struct ap_plan_set x = { 0 }, b = { 0 };
	struct ap_tplan p;
	char err[AP_ERR_LEN];
	int rc = ap_plan_build(&rq, &x, err);

	CHECK("the default: the XNNPACK side, of every operator", rc == 0 && x.have_delegate &&
	      x.delegate == AP_DELEGATE_XNNPACK && x.have_xnn && x.xnn.n_ops == x.plan.n_ops &&
	      x.kept_weights_bytes <= x.plan.weights_bytes, "%d: %s", rc, err);
	rq.delegate = AP_DELEGATE_NONE;
	rc = ap_plan_build(&rq, &b, err);
	CHECK("--delegate none: no XNNPACK side", rc == 0 && b.have_delegate &&
	      b.delegate == AP_DELEGATE_NONE && !b.have_xnn, "%d: %s", rc, err);
	rc = ap_plan_load(MV2, &p, err);
	CHECK("--plan: loads", rc == 0, "%d: %s", rc, err);
	if (!rc) {
		CHECK_U64("--plan: the builtin arena", p.arena_bytes, b.plan.arena_bytes);
		ap_tplan_free(&p);
	}
	rq.cpu = "no-such-cpu";
	rq.delegate = AP_DELEGATE_XNNPACK;
	ap_plan_set_free(&x);
	x = (struct ap_plan_set){ 0 };
	rc = ap_plan_build(&rq, &x, err);
	CHECK("an unknown CPU: -EINVAL, one line", rc == -EINVAL && !strchr(err, '\n'),
	      "%d: %s", rc, err);
	ap_plan_set_free(&x);
	ap_plan_set_free(&b);
}

int main(void)
{
	test_report_and_load_agree();
	test_delegate();
	test_import();
	test_bad_input();
	TEST_EXIT();
}
