// SPDX-License-Identifier: Apache-2.0
/*
 * plan_import: TFLite Micro's PrintMemoryPlan (docs/design.md, "Imported plans").
 *
 * import:tflm, GreedyMemoryPlanner::PrintMemoryPlan(): lines that contain
 * "(id=<id>): size=<n>, offset=<n>, first_used=<n> last_used=<n>", with anything before
 * "(id=" (the ordinal character, a log prefix) and only spaces after. Other lines (bar
 * lines, logs) are ignored. Tensor index = planner buffer id (unique, < 10,000,000; not a
 * model tensor index), name "", kind arena, bytes = size, offset as printed (>= 0); size,
 * offset + size and the sum of all sizes at most 2^56 (AP_PLAN_MAX_BYTES). TFLM
 * time t is op t-1 (inputs at time 0), so first = max(first_used - 1, 0) and
 * last = max(last_used - 1, 0); 0 <= first_used <= last_used is required. n_ops = largest
 * last + 1, op names "", arena_bytes = largest offset + size, persistent_bytes = 0.
 */
#include <ctype.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/plan.h"
#include "arenaprof/plan/plan_import.h"
#include "import_priv.h"

/* "(id=<digits>): size=" somewhere in the line */
bool imp_tflm_marker(const char *s)
{
	const char *p = strstr(s, "(id=");
	int64_t v;

	while (p) {
		const char *q = p + 4;

		if (imp_eat_int(&q, &v) == NUM_OK && starts(q, "): size="))
			return true;
		p = strstr(p + 1, "(id=");
	}
	return false;
}

/* lit, then a number named what */
static int tflm_field(struct reader *r, const char **p, const char *lit, const char *what,
		      int64_t *v)
{
	char qb[QUOTE_LEN];
	const char *q;
	int k;

	if (!eat_lit(p, lit))
		return fail(r, "PrintMemoryPlan line: expected '%s' (truncated line?)", lit);
	q = *p;
	k = imp_eat_int(&q, v);
	if (k == NUM_OK && !isalnum((unsigned char)*q) && *q != '.') {
		*p = q;
		return 0;
	}
	if (k == NUM_OK)
		k = NUM_BAD;
	for (q = *p; *q && *q != ',' && *q != ' ' && *q != ')'; q++)
		;
	return fail(r, "%s '%s' is %s", what, imp_quote(qb, *p, q - *p),
		    k == NUM_RANGE ? "out of range" : "not a number");
}

int imp_tflm_import(struct reader *r, struct ap_tplan *p)
{
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	int64_t max_last = -1, id, size, offset, fu, lu;
	int k = 1;

	for (; k > 0; k = imp_next_line(r)) {
		const char *s = r->line;
		struct ap_ptensor *t;

		if (r->has_nul || !(s = strstr(s, "(id=")))
			continue;
		s += 3;
		if (tflm_field(r, &s, "=", "id", &id) ||
		    tflm_field(r, &s, "): size=", "size", &size) ||
		    tflm_field(r, &s, ", offset=", "offset", &offset) ||
		    tflm_field(r, &s, ", first_used=", "first_used", &fu) ||
		    tflm_field(r, &s, " last_used=", "last_used", &lu))
			goto err;
		skip_spaces(&s);
		if (*s) {
			fail(r, "PrintMemoryPlan line: unexpected text after last_used");
			goto err;
		}
		if (id < 0 || id >= AP_IMPORT_MAX_TENSORS) {
			fail(r, "id %" PRId64 " is out of range (0..%d)", id,
			     AP_IMPORT_MAX_TENSORS - 1);
			goto err;
		}
		if (size < 0 || offset < 0) {
			fail(r, "id %" PRId64 ": bad size %" PRId64 " or offset %" PRId64, id, size,
			     offset);
			goto err;
		}
		if (imp_check_bytes(r, r->lineno, "id", id, offset, (uint64_t)size))
			goto err;
		if (fu < 0 || lu < fu || lu > AP_IMPORT_MAX_NODES) {
			fail(r, "id %" PRId64 ": bad lifetime first_used=%" PRId64 " last_used=%"
			     PRId64, id, fu, lu);
			goto err;
		}
		if (imp_add_row(r, &rows, n, &cap, r->lineno))
			goto err;
		t = &rows[n].t;
		t->name = strdup("");
		if (!t->name) {
			imp_oom(r);
			goto err;
		}
		n++;
		t->index = (int32_t)id;
		t->bytes = (uint64_t)size;
		t->offset = offset;
		t->first = (int32_t)(fu > 0 ? fu - 1 : 0);
		t->last = (int32_t)(lu > 0 ? lu - 1 : 0);
		t->kind = AP_KIND_ARENA;
		t->share_root = -1;
		if (t->last > max_last)
			max_last = t->last;
		if ((uint64_t)(offset + size) > p->arena_bytes)
			p->arena_bytes = (uint64_t)(offset + size);
	}
	if (k < 0)
		goto err;
	if (!n) {
		fail(r, "no PrintMemoryPlan lines");
		goto err;
	}
	if (imp_rows_to_plan(r, rows, n, "id", p))
		return -1;
	return imp_blank_ops(r, p, (uint32_t)(max_last + 1));
err:
	imp_free_rows(rows, n);
	return -1;
}
