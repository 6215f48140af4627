// SPDX-License-Identifier: Apache-2.0
/*
 * stub_for_d: a stand-in for helper A's xnnpack.c and delegate.c so that the faces (plan
 * --delegate, the reports, the tests) build before the model does. Delete this file when
 * A's part is merged: it defines the same four functions.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arenaprof/util/err.h"
#include "xnn_priv.h"

int ap_delegate_parse(const char *s, enum ap_delegate *d)
{
	if (!strcmp(s, "xnnpack"))
		*d = AP_DELEGATE_XNNPACK;
	else if (!strcmp(s, "none"))
		*d = AP_DELEGATE_NONE;
	else
		return -EINVAL;
	return 0;
}

const char *ap_delegate_name(enum ap_delegate d)
{
	return d == AP_DELEGATE_XNNPACK ? "xnnpack" : "none";
}

int ap_xnn_plan_build(const struct ap_model *m, const struct ap_graph *g,
		      const struct ap_xnn_cpu *cpu, struct ap_xnn_plan *x, char *err)
{
	(void)m;
	*x = (struct ap_xnn_plan){ .cpu = *cpu, .n_ops = g->n_ops };
	x->ops = calloc(g->n_ops ? g->n_ops : 1, sizeof(*x->ops));
	if (!x->ops)
		return ap_fail(err, -ENOMEM, "out of memory");
	snprintf(x->not_modelled, sizeof(x->not_modelled),
		 "the XNNPACK model is not built in yet");
	return 0;
}

void ap_xnn_plan_free(struct ap_xnn_plan *x)
{
	free(x->ops);
	free(x->parts);
	x->ops = NULL;
	x->parts = NULL;
}
