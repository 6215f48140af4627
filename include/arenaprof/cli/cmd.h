/* SPDX-License-Identifier: Apache-2.0 */
/* Subcommands: each takes argc/argv from its own name on and returns an exit code. */
#ifndef ARENAPROF_CMD_H
#define ARENAPROF_CMD_H

#define AP_VERSION "0.1.0"

int cmd_plan(int argc, char **argv);
int cmd_record(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_top(int argc, char **argv);
int cmd_heatmap(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* What a command's option parser returns when the command goes on: not an exit code. */
#define AP_CMD_GO_ON (-1)

/*
 * Each command's command line alone, for tests/fuzz/fuzz_cli.c: what cmd_NAME does with
 * argv before it opens a file, loads a model, starts a process or loads BPF, said as it
 * says it (usage on stdout for --help, one line on stderr for a mistake). AP_CMD_GO_ON
 * when cmd_NAME would go on with its work, else the exit code it would return: 0 after
 * --help, 2 for bad usage.
 */
int cmd_plan_parse(int argc, char **argv);
int cmd_record_parse(int argc, char **argv);
int cmd_report_parse(int argc, char **argv);
int cmd_top_parse(int argc, char **argv);
int cmd_heatmap_parse(int argc, char **argv);
int cmd_export_parse(int argc, char **argv);
int cmd_run_parse(int argc, char **argv);
int cmd_diff_parse(int argc, char **argv);
int cmd_check_parse(int argc, char **argv);

#endif
