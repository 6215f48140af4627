/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the /proc tests share (test_procfs.c, test_procfs_live.c): a check's name built from
 * a tag and what it checks, a string compared, and a call's failure: its negative errno
 * and its message.
 */
#ifndef ARENAPROF_PROCFS_CHECK_H
#define ARENAPROF_PROCFS_CHECK_H

#include <stdio.h>
#include <string.h>

#include "arenaprof/kernel/procfs.h"
#include "test.h"

#define NV AP_NO_VALUE
#define N(a) (sizeof(a) / sizeof((a)[0]))

static char name_buf[256];

/* "tag: what", in name_buf: good until the next call. */
static inline const char *nm(const char *tag, const char *what)
{
	snprintf(name_buf, sizeof(name_buf), "%s: %s", tag, what);
	return name_buf;
}

static inline void check_str(const char *name, const char *got, const char *want)
{
	CHECK(name, got && !strcmp(got, want), "got '%s', want '%s'", got ? got : "(null)", want);
}

/* rc == -want_e and err == want (e, the errno after the call, is shown only). */
static inline void check_fail(const char *name, int rc, int e, const char *err,
			      const char *want, int want_e)
{
	CHECK(name, rc == -want_e && !strcmp(err, want),
	      "rc %d (want %d, errno %d), err '%s', want '%s'", rc, -want_e, e, err, want);
}

#endif
