// SPDX-License-Identifier: Apache-2.0
#include <stdarg.h>
#include <stdio.h>

#include "arenaprof/util/err.h"

/*
 * A message may quote bytes from the input (a tensor name, a path): controls become '?'
 * here, once, so every message is one printable line whoever formats it.
 */
static void one_line(char *err)
{
	for (; *err; err++) {
		if ((unsigned char)*err < 0x20 || *err == 0x7f)
			*err = '?';
	}
}

void ap_seterr(char *err, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return;
	va_start(ap, fmt);
	vsnprintf(err, AP_ERR_LEN, fmt, ap);
	va_end(ap);
	one_line(err);
}

int ap_fail(char *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (err) {
		va_start(ap, fmt);
		vsnprintf(err, AP_ERR_LEN, fmt, ap);
		va_end(ap);
		one_line(err);
	}
	return code;
}
