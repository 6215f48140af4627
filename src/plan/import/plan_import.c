// SPDX-License-Identifier: Apache-2.0
/*
 * plan_import: read a plan that a runtime computed (docs/design.md, "Imported plans").
 *
 * Format detection. Line 1 (after an optional UTF-8 BOM) equal to the CSV header means CSV;
 * a line 1 whose first field is "tensor" but that is not the header is an error. Otherwise
 * the first line that is a LiteRT marker ("Interpreter has ...", "---Subgraph-<i> has ...",
 * after an optional "INFO: " prefix) or a TFLM plan line ("(id=<n>): size=" anywhere in it)
 * decides; every line before it is noise. No marker at all (or an empty file): "not a plan".
 * All formats: lines are read with getline (any length); trailing \r and \n are dropped.
 *
 * The rules of each format are at the top of its parser: import_litert.c (the plan that
 * follows from a dump: import_litert_build.c), import_tflm.c and import_csv.c.
 *
 * Every plan must hold at least one tensor. Errors name the file and line: "PATH:LINE: ...".
 */
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"
#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_import.h"
#include "import_priv.h"

#define NOT_A_PLAN "not a plan: expected a LiteRT PrintInterpreterState dump, a TFLM " \
	"PrintMemoryPlan or a CSV with header tensor,name,offset,size,first_node,last_node"

/* ------------------------------------------------------------------------------------- */

int ap_plan_import(const char *path, struct ap_tplan *p, char *err)
{
	struct reader r = { .path = path, .err = err, .rc = -EINVAL };
	const char *strategy = NULL;
	int ret = -1, k, ncols;

	memset(p, 0, sizeof(*p));
	/* a regular file only: a FIFO would block and /dev/zero would never end */
	r.f = ap_infile_fopen(path, err);
	if (!r.f) {
		int e = errno;	/* the failed open's (EINVAL: not a regular file) */

		return e ? -e : -EIO;
	}
	k = imp_next_line(&r);
	if (k < 0)
		goto out;
	if (k == 0) {
		ap_seterr(err, "%s: %s", path, NOT_A_PLAN);
		goto out;
	}
	ncols = r.has_nul ? 0 : imp_csv_header(r.line);
	if (ncols < 0) {
		fail(&r, "CSV header must be tensor,name,offset,size,first_node,last_node "
		     "with an optional 7th column kind");
		goto out;
	}
	if (ncols > 0) {
		strategy = "import:csv";
		ret = imp_csv_import(&r, p, ncols);
		goto out;
	}
	for (; k > 0; k = imp_next_line(&r)) {
		if (r.has_nul)
			continue;
		if (imp_litert_marker(r.line)) {
			strategy = "import:litert";
			ret = imp_litert_import(&r, p);
			goto out;
		}
		if (imp_tflm_marker(r.line)) {
			strategy = "import:tflm";
			ret = imp_tflm_import(&r, p);
			goto out;
		}
	}
	if (k == 0)
		ap_seterr(err, "%s: %s", path, NOT_A_PLAN);
out:
	if (!ret) {
		p->model = strdup(path);
		p->strategy = strdup(strategy);
		if (!p->model || !p->strategy)
			ret = r.rc = ap_fail(err, -ENOMEM, "%s: out of memory", path);
	}
	if (ret) {
		ap_tplan_free(p);
		ret = r.rc;
	}
	free(r.line);
	fclose(r.f);
	return ret;
}
