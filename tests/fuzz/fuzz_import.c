// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for the plan importer (src/plan/import/plan_import.c and the parsers it picks:
 * import_csv.c, import_litert.c, import_tflm.c): the bytes as a plan file -> the plan ->
 * what `arenaprof plan --import` does with it (profile, the overlap check, the text, JSON
 * and CSV reports) and what report's correlation reads of it (live tensors per operator,
 * the writers). run-fuzz builds it three times, as import_csv, import_litert and
 * import_tflm, each seeded with its format (tests/fuzz/corpus/import_*): detection picks
 * the parser from the content, so each corpus holds its parser's paths. Never a crash, a
 * leak or a hang; a failure is one line and an empty plan; a plan keeps its promises.
 */
#include <stdint.h>
#include <string.h>

#include "arenaprof/analyze/correlate.h"
#include "arenaprof/plan/plan_import.h"
#include "arenaprof/plan/profile.h"
#include "arenaprof/render/plan_report.h"
#include "arenaprof/util/err.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static bool empty(const struct ap_tplan *p)
{
	return !p->model && !p->strategy && !p->t && !p->n && !p->ops && !p->n_ops;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ap_plan_set s = { .top = 5 };
	char err[AP_ERR_LEN];
	FILE *f = fuzz_null();
	uint32_t i;

	err[0] = 0;
	if (ap_plan_import(fuzz_file(data, size), &s.plan, err)) {
		if (!fuzz_one_line(err) || !empty(&s.plan))
			__builtin_trap();
		return 0;
	}
	/* plan_import.h: every plan holds a tensor and names its format */
	if (!s.plan.n || !s.plan.t || !s.plan.strategy || strncmp(s.plan.strategy, "import:", 7))
		__builtin_trap();
	for (i = 0; i < s.plan.n; i++) {
		if (!s.plan.t[i].name)
			__builtin_trap();
		ap_corr_writer(&s.plan, &s.plan.t[i]);
	}
	if (ap_profile_compute(&s.plan, &s.prof))
		goto out;
	ap_tplan_check(&s.plan, err);
	for (i = 0; i < s.plan.n_ops && i < 64; i++) {
		int32_t *live = NULL;

		ap_profile_live(&s.plan, (int32_t)i, &live);
		free(live);
	}
	ap_plan_print_text(f, &s);
	ap_plan_print_json(f, &s);
	ap_plan_print_csv(f, &s.plan);
out:
	ap_profile_free(&s.prof);
	ap_tplan_free(&s.plan);
	return 0;
}
