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

/* What a command's option parser returns when the command goes on: not an exit code. */
#define AP_CMD_GO_ON (-1)

#endif
