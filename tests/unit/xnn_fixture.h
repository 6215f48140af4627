/* SPDX-License-Identifier: Apache-2.0 */
/*
 * xnn_fixture: the XNNPACK plan of a bundled model's first subgraph (shapes inferred) on a
 * CPU, as the test_xnn_* files check it against the runtime's measurements.
 */
#ifndef ARENAPROF_XNN_FIXTURE_H
#define ARENAPROF_XNN_FIXTURE_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/plan/prepare.h"
#include "arenaprof/plan/shapes.h"
#include "arenaprof/plan/xnnpack.h"
#include "arenaprof/util/err.h"
#include "test.h"

struct xnn_fix {
	struct ap_model m;
	struct ap_graph g;
	struct ap_xnn_plan x;
	bool have_m, have_g, have_x;
};

/* tests/models/FILE planned on cpu into f: true; else a FAIL named name, and false.
 * xnn_fix_free frees what was made in either case. */
static inline bool xnn_fix_plan(struct xnn_fix *f, const char *file, const char *name,
				const struct ap_xnn_cpu *cpu)
{
	struct ap_shapes_report sr;
	char path[256], err[AP_ERR_LEN];

	memset(f, 0, sizeof(*f));
	memset(&sr, 0, sizeof(sr));
	snprintf(path, sizeof(path), "%s/%s", TEST_MODELS, file);
	f->have_m = !ap_model_load(path, &f->m, err);
	f->have_g = f->have_m && !ap_shapes_infer(&f->m, NULL, 0, &sr, err) &&
		    !ap_graph_build(&f->m, 0, NULL, &f->g, err);
	f->have_x = f->have_g;	/* ap_xnn_plan_free frees a failed build too */
	if (f->have_g && !ap_xnn_plan_build(&f->m, &f->g, cpu, &f->x, err))
		return true;
	CHECK(name, 0, "%s", err);
	return false;
}

static inline void xnn_fix_free(struct xnn_fix *f)
{
	if (f->have_x)
		ap_xnn_plan_free(&f->x);
	if (f->have_g)
		ap_graph_free(&f->g);
	if (f->have_m)
		ap_model_free(&f->m);
}

#endif
