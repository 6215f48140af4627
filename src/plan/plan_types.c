// SPDX-License-Identifier: Apache-2.0
/*
 * The small helpers of struct ap_tplan (plan.h). ap_tplan_free() frees every string in the
 * plan, so whoever builds a plan must heap-allocate model, strategy, every tensor name and
 * every op name (strdup), never point them at string literals.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/plan/plan.h"

static const char *const kind_names[] = {
	[AP_KIND_ARENA] = "arena", [AP_KIND_INPUT] = "input", [AP_KIND_OUTPUT] = "output",
	[AP_KIND_VARIABLE] = "variable", [AP_KIND_WEIGHTS] = "weights",
	[AP_KIND_DYNAMIC] = "dynamic", [AP_KIND_UNPLANNED] = "unplanned",
	[AP_KIND_TEMPORARY] = "temporary", [AP_KIND_PERSISTENT] = "persistent",
	[AP_KIND_PARENT] = "parent",
};

#define N_KINDS (sizeof(kind_names) / sizeof(kind_names[0]))

void ap_tplan_free(struct ap_tplan *p)
{
	uint32_t i;

	if (!p)
		return;
	if (p->t && !p->names) {
		for (i = 0; i < p->n; i++)
			free(p->t[i].name);
	}
	if (p->ops && !p->names) {
		for (i = 0; i < p->n_ops; i++) {
			free(p->ops[i].opname);
			free(p->ops[i].out_name);
		}
	}
	free(p->t);
	free(p->ops);
	free(p->model);
	free(p->strategy);
	free(p->names);
	memset(p, 0, sizeof(*p));
}

const char *ap_kind_name(enum ap_kind k)
{
	if ((unsigned int)k >= N_KINDS || !kind_names[k])
		return "?";
	return kind_names[k];
}

/* Exact, lower-case names only; returns 0, or -EINVAL (and leaves *k alone) when
 * unknown. */
int ap_kind_parse(const char *s, enum ap_kind *k)
{
	unsigned int i;

	if (!s)
		return -EINVAL;
	for (i = 0; i < N_KINDS; i++) {
		if (kind_names[i] && !strcmp(s, kind_names[i])) {
			*k = (enum ap_kind)i;
			return 0;
		}
	}
	return -EINVAL;
}

int ap_ptensor_in_arena(const struct ap_ptensor *t)
{
	if (t->kind != AP_KIND_ARENA && t->kind != AP_KIND_INPUT &&
	    t->kind != AP_KIND_OUTPUT && t->kind != AP_KIND_TEMPORARY)
		return 0;
	return t->share_root < 0 && t->bytes > 0 && t->offset >= 0;
}
