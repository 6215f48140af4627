// SPDX-License-Identifier: Apache-2.0
/* trace_in: the trace options of report, export and heatmap, and loading (trace_in.h). */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/trace_in.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"

int ap_trace_in_opt(const char *cmd, int c, const char *arg, struct ap_corr_in *in,
		    char **argv)
{
	switch (c) {
	case 'p':
		if (!in->plan_path) {
			in->plan_path = arg;
			return 0;
		}
		if (!in->many_plans) {
			ap_cli_say(cmd, "--plan given twice: %s takes one model (report and "
				   "heatmap take several)", cmd);
			return AP_EXIT_USAGE;
		}
		if (in->n_more == AP_MAX_MODELS - 1) {
			ap_cli_say(cmd, "at most %d models (--plan)", AP_MAX_MODELS);
			return AP_EXIT_USAGE;
		}
		in->more_plans[in->n_more++] = arg;
		return 0;
	case 'S': in->salvage = true; return 0;
	case 'D':
		if (!strcmp(arg, "auto") || !strcmp(arg, "xnnpack") || !strcmp(arg, "none")) {
			in->delegate = !strcmp(arg, "auto") ? AP_CORR_AUTO :
				       !strcmp(arg, "xnnpack") ? AP_CORR_XNNPACK : AP_CORR_NONE;
			return 0;
		}
		ap_cli_say(cmd, "--delegate '%s' is not auto, xnnpack or none", arg);
		return AP_EXIT_USAGE;
	case 'u':
		in->runtime_given = strcmp(arg, "auto") != 0;
		if (!in->runtime_given || !ap_runtime_parse(arg, &in->runtime))
			return 0;
		ap_cli_say(cmd, "--runtime '%s': auto, %s", arg, ap_runtime_names());
		return AP_EXIT_USAGE;
	case 'a':
		in->arena_addr = 0;
		if (!strcmp(arg, "auto") ||
		    (!ap_parse_addr(arg, &in->arena_addr) && in->arena_addr))
			return 0;
		ap_cli_say(cmd, "--arena '%s' is not an address (hex) nor 'auto'", arg);
		return AP_EXIT_USAGE;
	}
	return ap_cli_bad_option(cmd, argv);
}

int ap_trace_in_arg(const char *cmd, int argc, char **argv, struct ap_corr_in *in)
{
	const struct ap_runtime *rt;

	if (optind != argc - 1) {
		ap_cli_say(cmd, "expected one TRACE (see 'arenaprof %s --help')", cmd);
		return AP_EXIT_USAGE;
	}
	in->trace = argv[optind];
	rt = ap_runtime_get(in->runtime);
	if (in->runtime_given && in->delegate == AP_CORR_XNNPACK && !rt->xnnpack_modelled) {
		ap_cli_say(cmd, "--runtime %s%s: give --delegate none or auto", rt->name,
			   rt->one_arena ? " has no XNNPACK delegate" :
			   " plans the builtin kernels (its XNNPACK delegate is not modelled)");
		return AP_EXIT_USAGE;
	}
	return 0;
}

int ap_trace_in_load(const char *cmd, const struct ap_corr_in *in, struct ap_corr_all *x)
{
	char err[AP_ERR_LEN];
	int rc = ap_corr_load(in, x, err);

	if (rc) {
		ap_cli_say(cmd, "%s%s", err, !in->salvage && strstr(err, "corrupt record") ?
			   " (--salvage skips what fails its check)" : "");
		return ap_cli_exit(rc);
	}
	if (x->a.truncated)
		ap_cli_say(cmd, "warning: %s was cut short; every whole record up to the cut "
			   "is read", in->trace);
	return 0;
}

int ap_trace_in_salvaged(const char *cmd, const struct ap_corr_in *in,
			 const struct ap_corr_all *x, const char *what, int rc)
{
	if (!x->a.salvaged_bytes)
		return rc;
	ap_cli_say(cmd, "%s: salvaged: %" PRIu64 " bytes skipped (about %" PRIu64 " records) "
		   "that failed their check; %s misses them", in->trace, x->a.salvaged_bytes,
		   x->a.salvaged_records, what);
	return rc ? rc : AP_EXIT_RUNTIME;
}
