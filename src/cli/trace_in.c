// SPDX-License-Identifier: Apache-2.0
/* trace_in: the trace options of report, export and heatmap, and loading (trace_in.h). */
#include <errno.h>
#include <string.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/trace_in.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"

int ap_trace_in_opt(const char *cmd, int c, const char *arg, struct ap_corr_in *in)
{
	switch (c) {
	case 'p':
		in->plan_path = arg;
		return 1;
	case 'a':
		in->arena_addr = 0;
		if (!strcmp(arg, "auto"))
			return 1;
		if (ap_parse_addr(arg, &in->arena_addr) || !in->arena_addr) {
			ap_cli_say(cmd, "--arena '%s' is not an address (hex) nor 'auto'", arg);
			return -1;
		}
		return 1;
	}
	return 0;
}

int ap_trace_in_load(const char *cmd, const struct ap_corr_in *in, struct ap_corr_all *x)
{
	char err[AP_ERR_LEN];
	int rc = ap_corr_load(in, x, err);

	if (rc) {
		ap_cli_say(cmd, "%s", err);
		return ap_cli_exit(rc);
	}
	if (x->a.truncated)
		ap_cli_say(cmd, "warning: %s was cut short; every whole record up to the cut "
			   "is read", in->trace);
	return 0;
}
