// SPDX-License-Identifier: Apache-2.0
/* weights_report: the model file's weights on the default path (weights_report.h). */
#include <inttypes.h>

#include "arenaprof/render/weights_report.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)

void ap_weights_text(FILE *f, const struct ap_corr_all *x)
{
	const struct ap_wsplit *w = &x->wsplit;
	uint64_t packed = x->xm.bytes[AP_XNN_PACKED];

	if (!x->have_xnn_weights || !w->have)
		return;
	if (w->planned[AP_WP_PACKED])
		fprintf(f, "  packed     %s of the file's weights are read once, to pack them: %"
			PRIu64 " pages faulted on before run 0 (a fault maps up to 16 pages), %"
			PRIu64 " in runs; XNNPACK keeps the copy (packed weights %s, anonymous), "
			"so these file pages are reclaimable at no cost\n",
			B(w->planned[AP_WP_PACKED]), w->before[AP_WP_PACKED],
			w->runs[AP_WP_PACKED], B(packed));
	if (w->planned[AP_WP_KEPT])
		fprintf(f, "  kept       %s read by the operators LiteRT kept, at every run: %"
			PRIu64 " pages first touched before run 0, %" PRIu64 " in runs (evicted, "
			"they are read again)\n", B(w->planned[AP_WP_KEPT]),
			w->before[AP_WP_KEPT], w->runs[AP_WP_KEPT]);
	if (w->before[AP_WP_OTHER] + w->runs[AP_WP_OTHER])
		fprintf(f, "  other      %" PRIu64 " pages of the model's own tables (the graph, "
			"shapes) first touched\n", w->before[AP_WP_OTHER] + w->runs[AP_WP_OTHER]);
	if (!x->wcache.applies)
		return;
	fprintf(f, "  cache      with XNNPACK's weight cache file (CompiledModel's CpuOptions("
		"xnnpack_weight_cache_path=FILE), benchmark_model's --xnnpack_weight_cache_file_"
		"path) the packed copy, %s planned, moves to that file's mapping: file-backed and "
		"reclaimable, non-reclaimable memory %s less; the run that builds the file keeps "
		"a %s buffer\n", B(x->wcache.movable_bytes),
		B(x->wcache.movable_bytes), B(x->wcache.build_buffer_bytes));
}

void ap_weights_json(struct ap_json *j, const struct ap_corr_all *x)
{
	const struct ap_wsplit *w = &x->wsplit;

	if (!x->have_xnn_weights || !w->have) {
		ap_json_null(j, "default_path");
		return;
	}
	ap_json_obj(j, "default_path");
	for (int p = 0; p < AP_WP_N; p++) {
		ap_json_obj(j, ap_wpart_key(p));
		if (p != AP_WP_OTHER)
			ap_json_u64(j, "planned_bytes", w->planned[p]);
		ap_json_u64(j, "first_touch_pages_before_run0", w->before[p]);
		ap_json_u64(j, "first_touch_pages_in_runs", w->runs[p]);
		ap_json_end_obj(j);
	}
	ap_json_obj(j, "weight_cache");
	ap_json_bool(j, "applies", x->wcache.applies);
	ap_json_u64(j, "movable_bytes", x->wcache.movable_bytes);
	ap_json_u64(j, "build_buffer_bytes", x->wcache.build_buffer_bytes);
	ap_json_end_obj(j);
	ap_json_end_obj(j);
}
