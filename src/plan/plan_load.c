// SPDX-License-Identifier: Apache-2.0
#include <stdio.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"
#include "arenaprof/plan/shapes.h"
#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/plan_import.h"
#include "arenaprof/plan/plan_load.h"
#include "arenaprof/plan/planner.h"

static int is_tflite(const char *path)
{
	char id[8], err[AP_ERR_LEN];
	FILE *f = ap_infile_fopen(path, err);
	int yes;

	if (!f)
		return 0;	/* the importer reports the open error */
	yes = fread(id, 1, 8, f) == 8 && !memcmp(id + 4, "TFL3", 4);
	fclose(f);
	return yes;
}

int ap_plan_load(const char *path, struct ap_tplan *p, char *err)
{
	struct ap_model m;
	struct ap_shapes_report shapes;
	struct ap_graph g;
	char e[AP_ERR_LEN];
	int rc;

	if (!is_tflite(path))
		return ap_plan_import(path, p, err);
	if (ap_model_load(path, &m, err))
		return -1;
	if (ap_shapes_infer(&m, NULL, 0, &shapes, e) || ap_graph_build(&m, 0, NULL, &g, e)) {
		ap_seterr(err, "%s: %s", path, e);
		ap_model_free(&m);
		return -1;
	}
	rc = ap_plan_graph(&g, AP_STRAT_TFLITE, p, err);
	ap_graph_free(&g);
	ap_model_free(&m);
	return rc;
}
