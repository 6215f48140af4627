/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cli: how every command speaks on stderr: one line "arenaprof CMD: message", and under a
 * line that announces a list, items "  - item". Messages carry paths, names and notes from
 * models, traces and targets: their control characters come out as '?' (util/escape.h),
 * so a line is always one line on the terminal.
 */
#ifndef ARENAPROF_CLI_H
#define ARENAPROF_CLI_H

#include <stdarg.h>
#include <stdint.h>

/* cmd: "record", "plan", ...; NULL for arenaprof itself. No trailing newline in fmt. */
void ap_cli_say(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same with a va_list, for a command's own message helpers. */
void ap_cli_vsay(const char *cmd, const char *fmt, va_list ap);
/*
 * The exit code for a library error (-errno): 0 for 0; 1 (a runtime failure) for
 * -ENOMEM, -EIO, -ENOSPC, -EPIPE, -EAGAIN and -EPERM (the kernel or the machine said no)
 * and -ENOTRECOVERABLE (an internal check failed: a bug here); 2 (bad usage or bad input)
 * for every other.
 */
int ap_cli_exit(int err);
/*
 * "bad option or missing value: 'ARG' (see 'arenaprof CMD --help')" for the option getopt
 * just refused (argv[optind - 1]); returns 2, the exit code for it. When argv[0] is not
 * CMD (main handed top its own argv: 'arenaprof -p PID'), no command is named in it.
 */
int ap_cli_bad_option(const char *cmd, char **argv);
/*
 * A count option's value (decimal, lo..hi) into *v: 0, or 2 with "--OPT 'ARG' is not a
 * count" said.
 */
int ap_cli_count(const char *cmd, const char *opt, const char *arg, uint64_t lo, uint64_t hi,
		 uint64_t *v);
/*
 * Which of the words (a NULL-ended list) arg is: its index, or -1. For options that take
 * one of a few keywords (--by op|run).
 */
int ap_cli_word(const char *arg, ...) __attribute__((sentinel));
/* "  - item" under the previous line. */
void ap_cli_item(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
