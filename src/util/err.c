// SPDX-License-Identifier: Apache-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "arenaprof/util/err.h"

void ap_seterr(char *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err, AP_ERR_LEN, fmt, ap);
	va_end(ap);
}

int ap_fail_errno(char *err, int e, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err, AP_ERR_LEN, fmt, ap);
		va_end(ap);
	}
	errno = e;
	return -1;
}
