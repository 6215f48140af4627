// SPDX-License-Identifier: Apache-2.0
/*
 * libFuzzer target for everything that reads a trace after the trace reader: the bytes
 * as a trace file -> analysis -> correlation with a plan -> attribution -> report text
 * and JSON, heatmaps (first touches by operator, every fault by run, and every fault
 * read in a second pass) in every format, and export (Chrome JSON, CSV), as `arenaprof
 * report`, `heatmap --force` and `export` call them, output to /dev/null. The plan is the
 * bundled model the trace's command line names (mininfer's seeds name theirs), none when
 * it names none. Never a crash, a leak or a hang; failures are one line; a heatmap's cells
 * add up to its total (heatmap.h). Built and run by tests/fuzz/run-fuzz.
 */
#include <stdint.h>
#include <string.h>

#include "arenaprof/analyze/attrib.h"
#include "arenaprof/analyze/correlate.h"
#include "arenaprof/analyze/heatmap.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/render/attrib_report.h"
#include "arenaprof/render/export.h"
#include "arenaprof/render/openmetrics.h"
#include "arenaprof/render/report.h"
#include "arenaprof/util/err.h"
#include "fuzz_util.h"

#ifndef FUZZ_MODELS
#define FUZZ_MODELS "tests/models"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const models[] = {
	"split_concat", "keras_lstm_mnist_ptq", "mobilenet_v1_0.25_128_quant",
	"model_invoking_error",
};

/* The plan of the first bundled model the input names, as --plan takes it, or NULL. */
static const char *plan_named(const uint8_t *data, size_t size)
{
	static char path[4096];

	for (size_t i = 0; i < sizeof(models) / sizeof(models[0]); i++) {
		if (memmem(data, size, models[i], strlen(models[i]))) {
			snprintf(path, sizeof(path), "%s/%s.tflite", FUZZ_MODELS, models[i]);
			return path;
		}
	}
	return NULL;
}

/* heatmap.h: "the sum of all cells is h->total" */
static void check_heatmap(const struct ap_heatmap *h)
{
	uint64_t sum = 0;

	for (uint64_t i = 0; i < (uint64_t)h->rows * h->cols; i++)
		sum += h->cell[i];
	if (sum != h->total)
		__builtin_trap();
}

static void heatmaps(const struct ap_corr_all *x, const char *trace, struct ap_hm_pre *pre,
		     const struct ap_hm_opts *all)
{
	static const struct ap_hm_opts second = {
		.by = AP_HM_BY_OP, .all_faults = true, .cols = 3, .attr = AP_HM_ATTR_PLAN,
		.have_runs = true, .run_lo = -1, .run_hi = 1,
	};
	struct ap_hm_opts first = { 0 };
	struct ap_heatmap h;
	char err[AP_ERR_LEN];
	uint32_t w, ht;
	FILE *f = fuzz_null();

	if (!ap_heatmap_build(x, trace, &first, NULL, &h, err)) {
		check_heatmap(&h);
		ap_heatmap_svg(&h, f, err);
		ap_heatmap_png(&h, f, &w, &ht, err);
		ap_heatmap_csv(&h, f, err);
		ap_heatmap_ansi(&h, f, 100, err);
	} else if (!fuzz_one_line(err)) {
		__builtin_trap();
	}
	ap_heatmap_free(&h);
	if (!ap_heatmap_build(x, trace, all, pre, &h, err)) {
		check_heatmap(&h);
		ap_heatmap_png(&h, f, &w, &ht, err);
		ap_heatmap_ansi(&h, f, 40, err);
	}
	ap_heatmap_free(&h);
	if (!ap_heatmap_build(x, trace, &second, NULL, &h, err)) {
		check_heatmap(&h);
		ap_heatmap_svg(&h, f, err);
		ap_heatmap_csv(&h, f, err);
	}
	ap_heatmap_free(&h);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct ap_hm_opts all = {
		.by = AP_HM_BY_RUN, .all_faults = true, .log_rows = true,
	};
	struct ap_corr_in in = { .trace = fuzz_file(data, size) };
	struct ap_export_opts few = { .max_instants = 8 }, dflt = { 0 };
	struct ap_report r = { .path = "fuzz", .pages = true };
	struct ap_hm_pre *pre = NULL;
	struct ap_tplan plan = { 0 };
	struct ap_corr_all x;
	struct ap_attrib at;
	char err[AP_ERR_LEN];
	FILE *f = fuzz_null();

	in.plan_path = plan_named(data, size);
	/* heatmap --faults all counts in the analysis pass: it needs the plan first */
	if (in.plan_path && !ap_plan_load(in.plan_path, &plan, err)) {
		pre = ap_hm_pre_new(&all, &plan, 0);
		in.on_fault = ap_hm_pre_fault;
		in.ctx = pre;
	}
	err[0] = 0;
	if (ap_corr_load(&in, &x, err)) {
		if (!fuzz_one_line(err))
			__builtin_trap();
		goto out;
	}
	if (ap_attrib_build(&x, &at, err))
		goto out;
	r.x = &x;
	r.attrib = &at;
	ap_report_text(f, &r);
	ap_attrib_text(f, &x, &at);
	r.all_mappings = true;
	ap_report_text(f, &r);
	ap_report_json(f, &r);
	ap_openmetrics_report(f, &r, "fuzz");
	ap_attrib_free(&at);
	if (x.have_plan)
		heatmaps(&x, in.trace, pre, &all);
	ap_export_chrome(&x, in.trace, f, &dflt, err);
	ap_export_chrome(&x, in.trace, f, &few, err);
	ap_export_csv(&x, in.trace, f, err);
out:
	ap_corr_all_free(&x);
	ap_hm_pre_free(pre);
	ap_tplan_free(&plan);
	return 0;
}
