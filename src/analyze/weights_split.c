// SPDX-License-Identifier: Apache-2.0
/* weights_split: the model file's pages by who reads them (weights_split.h). */
#include <string.h>

#include "arenaprof/analyze/weights_split.h"

const char *ap_wpart_key(enum ap_wpart p)
{
	static const char *const k[AP_WP_N] = { "packed", "kept", "other" };

	return p < AP_WP_N ? k[p] : "?";
}

/* The part of file bytes [lo, hi): kept if any kept range overlaps, else packed if a packed
 * one does, else other (the flatbuffer's own tables, weights nobody reads). */
static enum ap_wpart part_of(const struct ap_plan_wrange *r, uint32_t n, uint64_t lo,
			     uint64_t hi)
{
	uint32_t a = 0, b = n;
	bool packed = false;

	while (a < b) {		/* the first range ending past lo */
		uint32_t mid = a + (b - a) / 2;

		if (r[mid].off + r[mid].len <= lo)
			a = mid + 1;
		else
			b = mid;
	}
	for (uint32_t i = a; i < n && r[i].off < hi; i++) {
		if (!r[i].packed_only)
			return AP_WP_KEPT;
		packed = true;
	}
	return packed ? AP_WP_PACKED : AP_WP_OTHER;
}

void ap_wsplit_measure(const struct ap_analysis *a, const struct ap_plan_wrange *r, uint32_t n,
		       struct ap_wsplit *w)
{
	uint64_t ps = a->hdr.page_size ? a->hdr.page_size : 4096;

	memset(w, 0, sizeof(*w));
	for (uint32_t i = 0; i < n; i++)
		w->planned[r[i].packed_only ? AP_WP_PACKED : AP_WP_KEPT] += r[i].len;
	for (uint32_t i = 0; i < a->as.n_maps; i++)
		w->have |= !strcmp(a->as.maps[i].role, "weights");
	for (uint64_t i = 0; w->have && i < a->as.n_touches; i++) {
		const struct ap_touch *t = &a->as.touches[i];
		const struct ap_amap *m = &a->as.maps[t->map];
		uint64_t lo = m->offset + t->page * ps;
		enum ap_wpart p;

		if (strcmp(m->role, "weights"))
			continue;
		p = part_of(r, n, lo, lo + ps);
		if (t->run < 0)
			w->before[p]++;
		else
			w->runs[p]++;
	}
}
