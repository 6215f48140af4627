/* SPDX-License-Identifier: Apache-2.0 */
/* One-line error messages carried from where a failure is seen to where it is printed. */
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

/* ap_seterr, then errno = e: for readers whose callers branch on errno (ESRCH...). -1. */
int ap_fail_errno(char *err, int e, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
