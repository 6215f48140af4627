// SPDX-License-Identifier: Apache-2.0
/* arenaprof: dispatches to one subcommand. */
#include <stdio.h>
#include <string.h>

#include "arenaprof/cli/cli.h"
#include "arenaprof/cli/cmd.h"
#include "arenaprof/util/err.h"

static const struct {
	const char *name;
	int (*run)(int argc, char **argv);
	const char *help;
} commands[] = {
	{ "plan", cmd_plan, "the arena plan of a .tflite model: will it fit, which layer decides" },
	{ "record", cmd_record, "trace a process's page faults (BPF) into a trace file" },
	{ "report", cmd_report, "what a trace says: mappings, arena, runs, operators" },
	{ "top", cmd_top, "live view of a process (also 'arenaprof -p PID'): memory, arena, ops" },
	{ "heatmap", cmd_heatmap,
	  "arena faults by operator or run and offset: SVG, PNG, CSV, terminal" },
	{ "export", cmd_export, "a trace as Chrome trace-event JSON (Perfetto), CSV or JSON" },
	{ "run", cmd_run, "run a command in fresh cgroups with memory limits: what it cost" },
	{ "diff", cmd_diff, "two plans or traces side by side; exit 3 past --fail-above (CI)" },
	{ "check", cmd_check, "what each face needs of this kernel, probed: what is missing" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: arenaprof COMMAND [OPTIONS]\n\n"
		"arenaprof: memory profiler for edge-AI inference processes.\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fprintf(f, "\n'arenaprof help COMMAND' (or COMMAND --help) for a command's options; man\n"
		"arenaprof(1).\n"
		"Exit codes: 0 ok, 1 runtime failure, 2 bad usage or bad input, 3 a gate failed\n"
		"(plan --budget, diff --fail-above).\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return AP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") ||
	    (!strcmp(argv[1], "help") && argc == 2)) {
		usage(stdout);
		return AP_EXIT_OK;
	}
	/* arenaprof help CMD: CMD --help */
	if (!strcmp(argv[1], "help")) {
		char opt[] = "--help", *av[] = { argv[2], opt, NULL };

		for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
			if (!strcmp(argv[2], commands[i].name))
				return commands[i].run(2, av);
		ap_cli_say(NULL, "no help for '%s': not a command (try 'arenaprof --help')",
			   argv[2]);
		return AP_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("arenaprof %s\n", AP_VERSION);
		return AP_EXIT_OK;
	}
	/* arenaprof -p PID [--plan M ...]: the live view */
	if (argv[1][0] == '-' && argv[1][1])
		return cmd_top(argc, argv);
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	ap_cli_say(NULL, "unknown command '%s' (try 'arenaprof --help')", argv[1]);
	return AP_EXIT_USAGE;
}
