// SPDX-License-Identifier: Apache-2.0
/* xnn_report: XNNPACK's blocks in the report (include/arenaprof/render/xnn_report.h). */
#include <inttypes.h>
#include <stdlib.h>

#include "arenaprof/render/xnn_report.h"
#include "arenaprof/render/xnn_ws_report.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/util/units.h"

#define B(v) ap_fmt_bytes((v), (char[32]){ 0 }, 32)
#define TS(s) ap_text_safe((s), (char[512]){ 0 }, 512)

#define TOP_OPS 10	/* operators listed, largest first */

bool ap_xnn_as_planned(const struct ap_xnn_measured *m)
{
	if (!m->attributed)
		return false;
	for (int c = 0; c < AP_XNN_N_CLASSES; c++)
		if (m->bytes[c] != m->planned[c])
			return false;
	return true;
}

void ap_xnn_verdict_text(FILE *f, const struct ap_xnn_measured *m)
{
	if (!m->probed)
		return;
	if (!m->attributed) {
		fprintf(f, "           XNNPACK held %s (workspace %s, packed weights %s, "
			"operator buffers %s): %s\n", B(m->blocks_bytes),
			B(m->bytes[AP_XNN_WORKSPACE]), B(m->bytes[AP_XNN_PACKED]),
			B(m->bytes[AP_XNN_SCRATCH]),
			m->several_models ? "several models' together, by operator only with "
			"one --plan" : "--plan MODEL (on its default path, --delegate auto or "
			"xnnpack) names them by operator");
		return;
	}
	fprintf(f, "           XNNPACK %s: workspace %s, packed weights %s, operator buffers "
		"%s, runtime objects %s%s\n", ap_xnn_as_planned(m) ? "as planned" :
		"NOT as planned (measured)", B(m->bytes[AP_XNN_WORKSPACE]),
		B(m->bytes[AP_XNN_PACKED]), B(m->bytes[AP_XNN_SCRATCH]), B(m->bytes[AP_XNN_OTHER]),
		ap_xnn_as_planned(m) ? "" : " (the xnnpack section has the plan's)");
}

static int64_t diff(uint64_t a, uint64_t b)
{
	return (int64_t)a - (int64_t)b;
}

static uint32_t *ops_by_size(const struct ap_xnn_measured *m)
{
	uint32_t *o = calloc(m->n_ops + 1, sizeof(*o));
	uint32_t n = 0;

	if (!o)
		return NULL;
	for (uint32_t k = 0; k < m->n_ops; k++)
		if (m->op_packed[k] + m->op_scratch[k])
			o[n++] = k;
	/* a short insertion sort: operators are hundreds at most here */
	for (uint32_t i = 1; i < n; i++) {
		uint32_t v = o[i], j = i;
		uint64_t s = m->op_packed[v] + m->op_scratch[v];

		while (j && m->op_packed[o[j - 1]] + m->op_scratch[o[j - 1]] < s) {
			o[j] = o[j - 1];
			j--;
		}
		o[j] = v;
	}
	o[n] = UINT32_MAX;
	return o;
}

void ap_xnn_report_text(FILE *f, const struct ap_corr_all *x)
{
	const struct ap_xnn_measured *m = &x->xm;
	uint32_t *o;

	if (!m->probed)
		return;
	fprintf(f, "\nxnnpack    %s in %u blocks of XNNPACK's allocator, live at the end of the "
		"first run\n", B(m->blocks_bytes), m->n);
	fprintf(f, "  %-18s %12s %12s %12s\n", "", "measured", m->attributed ? "planned" : "",
		m->attributed ? "difference" : "");
	for (int c = 0; c < AP_XNN_N_CLASSES; c++) {
		if (m->attributed)
			fprintf(f, "  %-18s %12s %12s %+12" PRId64 "\n", ap_xnn_class_name(c),
				B(m->bytes[c]), B(m->planned[c]), diff(m->bytes[c], m->planned[c]));
		else
			fprintf(f, "  %-18s %12s\n", ap_xnn_class_name(c), B(m->bytes[c]));
	}
	if (!m->attributed) {
		fprintf(f, "  by operator: %s\n", m->several_models ? "several models' blocks "
			"together: one --plan at a time names each block's operator" : "--plan "
			"MODEL (its default-path plan, --delegate auto or xnnpack) names each "
			"block's operator");
		return;
	}
	fprintf(f, "  named      %s of %s: %u of %u delegated operators' blocks exactly as "
		"planned\n", B(m->attributed_bytes), B(m->blocks_bytes), m->ops_exact,
		m->ops_planned);
	if (m->how[0])
		fprintf(f, "  naming     %s\n", TS(m->how));
	o = ops_by_size(m);
	if (!o)
		return;
	fprintf(f, "  %-5s %-24s %12s %12s %12s %12s\n", "op", "", "packed", "planned",
		"buffers", "planned");
	for (uint32_t i = 0; i < TOP_OPS && o[i] != UINT32_MAX; i++) {
		uint32_t k = o[i];

		fprintf(f, "  #%-4u %-24s %12s %12s %12s %12s\n", k,
			m->op_names && m->op_names[k] ? TS(m->op_names[k]) : "",
			B(m->op_packed[k]), B(m->plan_packed[k]), B(m->op_scratch[k]),
			B(m->plan_scratch[k]));
	}
	free(o);
	ap_xnn_ws_text(f, x);
}

void ap_xnn_report_json(struct ap_json *j, const struct ap_corr_all *x)
{
	const struct ap_xnn_measured *m = &x->xm;

	if (!m->probed) {
		ap_json_null(j, "xnnpack");
		return;
	}
	ap_json_obj(j, "xnnpack");
	ap_json_u64(j, "n_blocks", m->n);
	ap_json_u64(j, "blocks_bytes", m->blocks_bytes);
	ap_json_u64(j, "attributed_bytes", m->attributed_bytes);
	for (int c = 0; c < AP_XNN_N_CLASSES; c++)
		ap_json_u64(j, ap_xnn_class_key(c), m->bytes[c]);
	ap_json_bool(j, "named_by_plan", m->attributed);
	ap_json_arr(j, "blocks");	/* in allocation order */
	for (uint32_t k = 0; k < m->n; k++) {
		ap_json_obj(j, NULL);
		ap_json_u64(j, "size", m->b[k].size);
		ap_json_str(j, "class", ap_xnn_class_key(m->b[k].cls));
		if (m->b[k].op >= 0)
			ap_json_i64(j, "op", m->b[k].op);
		else
			ap_json_null(j, "op");
		ap_json_bool(j, "exact", m->b[k].exact);
		ap_json_str(j, "site", m->b[k].site);
		ap_json_end_obj(j);
	}
	ap_json_end_arr(j);
	if (m->attributed) {
		ap_json_bool(j, "as_planned", ap_xnn_as_planned(m));
		ap_json_obj(j, "planned");
		for (int c = 0; c < AP_XNN_N_CLASSES; c++)
			ap_json_u64(j, ap_xnn_class_key(c), m->planned[c]);
		ap_json_end_obj(j);
		ap_json_u64(j, "operators_planned", m->ops_planned);
		ap_json_u64(j, "operators_exact", m->ops_exact);
		ap_json_str(j, "naming", m->how);
		ap_json_arr(j, "ops");
		for (uint32_t k = 0; k < m->n_ops; k++) {
			if (!(m->op_packed[k] + m->op_scratch[k] + m->plan_packed[k] +
			      m->plan_scratch[k]))
				continue;
			ap_json_obj(j, NULL);
			ap_json_u64(j, "index", k);
			ap_json_str(j, "opcode", m->op_names && m->op_names[k] ?
				    m->op_names[k] : "");
			ap_json_u64(j, "packed_bytes", m->op_packed[k]);
			ap_json_u64(j, "planned_packed_bytes", m->plan_packed[k]);
			ap_json_u64(j, "scratch_bytes", m->op_scratch[k]);
			ap_json_u64(j, "planned_scratch_bytes", m->plan_scratch[k]);
			ap_json_end_obj(j);
		}
		ap_json_end_arr(j);
	}
	ap_xnn_ws_json(j, x);
	ap_json_end_obj(j);
}
