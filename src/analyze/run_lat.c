// SPDX-License-Identifier: Apache-2.0
/* run_lat: a trace's run latency from the run probe's markers (run_lat.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/analyze/run_lat.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/stats.h"

int ap_run_lat(const struct ap_analysis *a, struct ap_run_lat *l, char *err)
{
	memset(l, 0, sizeof(*l));
	l->sorted = malloc((a->n_run_ns + 1) * sizeof(*l->sorted));
	if (!l->sorted)
		return ap_fail(err, -ENOMEM, "out of memory");
	for (uint32_t i = 0; i < a->n_run_ns; i++)
		if (a->run_ns[i]) {
			l->sorted[l->runs++] = a->run_ns[i];
			l->sum_ns += a->run_ns[i];
		}
	if (!l->runs)
		return 0;
	ap_median_p99(l->sorted, l->runs, &l->median_ns, &l->p99_ns);
	/* run 0 that did not complete (a trace attached late) leaves the rest untimed here,
	 * as report's summary says it */
	l->timed = a->run_ns[0] != 0;
	l->first_ns = a->run_ns[0];
	return 0;
}

void ap_run_lat_free(struct ap_run_lat *l)
{
	free(l->sorted);
	memset(l, 0, sizeof(*l));
}
