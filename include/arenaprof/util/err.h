/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The one error dialect of library code. A function that can fail returns 0 (or a count,
 * an index: never negative) when it succeeds and a negative errno when it fails, with a
 * one-line message in err when it takes one:
 *   -EINVAL  bad input: a corrupt or truncated file, a value out of range, garbage in /proc
 *   -ENOMEM  out of memory
 *   -EIO     a read or write that failed, and the system's own errors as the failed call
 *            gave them (-ENOENT, -EACCES, -EPERM, -ESRCH: a process gone, ...)
 * cli/'s ap_cli_exit is the one map from them to exit codes (docs/design.md, "Exit codes").
 */
#ifndef ARENAPROF_ERR_H
#define ARENAPROF_ERR_H

#include <stddef.h>

#define AP_ERR_LEN 256

/* Exit codes of every arenaprof command (docs/design.md, "Exit codes"). */
enum ap_exit {
	AP_EXIT_OK = 0,
	AP_EXIT_RUNTIME = 1,
	AP_EXIT_USAGE = 2,	/* bad usage or bad input */
	AP_EXIT_OVER = 3,	/* a gate failed: over a budget, or grown past a threshold */
};

/* err is a buffer of AP_ERR_LEN bytes; the message is one line, control bytes shown as '?'. */
void ap_seterr(char *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ap_seterr, then returns code (a negative errno): `return ap_fail(err, -EINVAL, ...)`. */
int ap_fail(char *err, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
