/* SPDX-License-Identifier: Apache-2.0 */
/*
 * weights_split: the model file's pages on LiteRT's default path, split by who reads them
 * (plan_build.h's ap_plan_wrange): the weights XNNPACK packs, read once before run 0 and
 * then left (their copy is the anonymous packed weights), and the weights of the operators
 * LiteRT kept, read at every run. The split is over the first-touched pages of the mappings
 * of the model file, by phase (before run 0, in runs): a page the packing read and nothing
 * read again is reclaimable at no cost; a kept page evicted is read again in the next run.
 *
 * A file fault maps up to the kernel's fault-around window of page-cache pages at once
 * (16 pages by default), so first-touched pages are the pages the process faulted on, a
 * lower bound of those it holds.
 */
#ifndef ARENAPROF_WEIGHTS_SPLIT_H
#define ARENAPROF_WEIGHTS_SPLIT_H

#include <stdbool.h>
#include <stdint.h>

#include "arenaprof/analyze/analysis.h"
#include "arenaprof/plan/plan_build.h"

enum ap_wpart { AP_WP_PACKED, AP_WP_KEPT, AP_WP_OTHER, AP_WP_N };

struct ap_wsplit {
	bool have;			/* a default-path plan and a mapping of its file */
	uint64_t planned[AP_WP_N];	/* bytes of the file: packed, kept (other: 0) */
	uint64_t before[AP_WP_N];	/* first-touched pages before run 0 */
	uint64_t runs[AP_WP_N];		/* first-touched pages in runs */
};

/*
 * The split of the first touches of a's mappings of the model file (role "weights") by r,
 * n ranges sorted by offset. w->have false when there is no such mapping.
 */
void ap_wsplit_measure(const struct ap_analysis *a, const struct ap_plan_wrange *r, uint32_t n,
		       struct ap_wsplit *w);

/* "packed" "kept" "other" */
const char *ap_wpart_key(enum ap_wpart p);

#endif
