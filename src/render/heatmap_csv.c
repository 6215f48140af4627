// SPDX-License-Identifier: Apache-2.0
/*
 * heatmap_csv: the matrix with a header row. Columns: with several models, model (the
 * row's model's file name); op (the operator index, -1 for the graph inputs, "none") or
 * runs (the run range "A-B"), each headed by its name, label (quoted), then one column per
 * offset bucket, headed by the arena offset of its first byte (several models: from the
 * page each one's base is on).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/escape.h"
#include "arenaprof/analyze/heatmap.h"

int ap_heatmap_csv(const struct ap_heatmap *h, FILE *f, char *err)
{
	/* several models: which one's row first (the label's tag is cut, this is whole) */
	if (h->n_models > 1)
		fputs("model,", f);
	fputs(h->by == AP_HM_BY_RUN ? "runs,label" : "op,label", f);
	for (uint32_t c = 0; c < h->cols; c++)
		fprintf(f, ",%" PRId64, h->col0_offset + (int64_t)(c * h->col_bytes));
	fputc('\n', f);
	for (uint32_t r = 0; r < h->rows; r++) {
		const struct ap_hm_row *row = &h->row[r];

		if (h->n_models > 1) {
			ap_fput_csv(f, h->model_name[row->model]);
			fputc(',', f);
		}
		if (h->by == AP_HM_BY_RUN)
			fprintf(f, "%d-%d,", row->run_lo, row->run_hi);
		else if (row->op == AP_OP_NONE)
			fputs("none,", f);
		else
			fprintf(f, "%d,", row->op);
		ap_fput_csv(f, row->label);
		for (uint32_t c = 0; c < h->cols; c++)
			fprintf(f, ",%" PRIu64, h->cell[(uint64_t)r * h->cols + c]);
		fputc('\n', f);
	}
	if (fflush(f) || ferror(f)) {
		int e = errno ? errno : EIO;

		return ap_fail(err, -e, "writing the CSV: %s", strerror(e));
	}
	return 0;
}
