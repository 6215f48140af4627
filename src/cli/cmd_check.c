// SPDX-License-Identifier: Apache-2.0
/* arenaprof check: what each face needs of the running kernel, probed (docs/check.md). */
#include <stdio.h>
#include <string.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/cli/opts.h"
#include "arenaprof/kernel/features.h"
#include "arenaprof/record/btf_custom.h"
#include "arenaprof/record/features_bpf.h"
#include "arenaprof/record/probe.h"
#include "arenaprof/render/check_report.h"
#include "arenaprof/util/err.h"

static void usage(FILE *f)
{
	fprintf(f,
		"usage: arenaprof check [--json] [--btf FILE] [--verbose]\n\n"
		"Probes every kernel feature arenaprof's faces need on the running kernel, for\n"
		"real (BPF programs loaded and attached, then detached; files read): its status\n"
		"(ok, missing, refused), what falls back or cannot run without it, and the kernel\n"
		"option that brings it; then the state of each face (record, top, run, plan).\n"
		"  --json             one JSON object\n"
		"  --btf FILE         check with this BTF, as record --btf uses it (default\n"
		"                     $ARENAPROF_BTF, else /sys/kernel/btf/vmlinux)\n"
		"  --verbose          libbpf's messages on stderr\n"
		"Exit 0: every face has what it needs; 1: a face is degraded (a fallback in use);\n"
		"2: a face cannot run at all (e.g. no permission to load BPF), or bad usage.\n");
}

struct args {
	bool json, verbose;
	const char *btf;
};

#define GO_ON AP_CMD_GO_ON

static int parse_args(struct args *a, int argc, char **argv)
{
	struct ap_opts op;
	int c;

	*a = (struct args){ 0 };
	ap_opts_init(&op, "j|json v|verbose h|help B=btf:");
	while ((c = ap_opts_next(&op, argc, argv)) != -1) {
		switch (c) {
		case 'j': a->json = true; break;
		case 'v': a->verbose = true; break;
		case 'B': a->btf = optarg; break;
		case 'h': usage(stdout); return AP_EXIT_OK;
		default: return ap_cli_bad_option("check", argv);
		}
	}
	if (optind != argc) {
		ap_cli_say("check", "no arguments expected: '%s' (see 'arenaprof check --help')",
			   argv[optind]);
		return AP_EXIT_USAGE;
	}
	return GO_ON;
}

int cmd_check_parse(int argc, char **argv)
{
	struct args a;

	return parse_args(&a, argc, argv);
}

/* The first feature, not ok, that leaves face k unable to run (NULL: the fault methods). */
static const struct ap_feature *cause(const struct ap_features *fs, int k)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->f[i].status != AP_FEAT_OK && fs->f[i].cost[k] == AP_FACE_UNAVAILABLE)
			return &fs->f[i];
	return NULL;
}

/* One line on stderr: which faces cannot run, and the first reason for each. */
static void say_unavailable(const struct ap_features *fs)
{
	char line[2048] = "";
	size_t n = 0;

	for (int k = 0; k < AP_FACE_N; k++) {
		const struct ap_feature *c;
		bool both;

		if (fs->face[k] != AP_FACE_UNAVAILABLE)
			continue;
		c = cause(fs, k);
		both = fs->face[AP_FACE_TOP] == AP_FACE_UNAVAILABLE &&
		       c == cause(fs, AP_FACE_TOP);
		if (k == AP_FACE_TOP && fs->face[AP_FACE_RECORD] == AP_FACE_UNAVAILABLE &&
		    c == cause(fs, AP_FACE_RECORD))
			continue;	/* said with record */
		n += (size_t)snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
				      "%s%s cannot run: ", n ? "; " : "",
				      k == AP_FACE_RECORD && both ? "record and top" :
				      ap_face_name(k));
		if (!c)
			n += (size_t)snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
					      "no fault method attached (tp, fentry, perf)");
		else
			n += (size_t)snprintf(line + n, n < sizeof(line) ? sizeof(line) - n : 0,
					      "%s %s (%s)", c->name, ap_feat_status_name(c->status),
					      c->detail);
	}
	ap_cli_say("check", "%s", line);
}

int cmd_check(int argc, char **argv)
{
	static struct ap_features fs;
	char err[AP_ERR_LEN];
	struct args a;
	int rc = parse_args(&a, argc, argv);

	if (rc != GO_ON)
		return rc;
	if (ap_btf_choose(a.btf, err)) {
		ap_cli_say("check", "%s", err);
		return AP_EXIT_USAGE;
	}
	ap_probe_set_verbose(a.verbose);
	ap_features_init(&fs);
	ap_features_probe_files(&fs);
	ap_features_probe_bpf(&fs);
	ap_features_sort(&fs);
	rc = ap_features_judge(&fs);
	if (a.json)
		ap_check_json(stdout, &fs);
	else
		ap_check_text(stdout, &fs);
	if (fflush(stdout))
		return AP_EXIT_RUNTIME;
	if (rc == 2)
		say_unavailable(&fs);
	return rc;
}
