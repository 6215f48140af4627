// SPDX-License-Identifier: Apache-2.0
/* method: fault method names and errno text (include/arenaprof/record/method.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "arenaprof/record/method.h"

/* The kernel's ENOTSUPP (include/linux/errno.h): not in userspace's errno.h. */
#define AP_ENOTSUPP 524

/* "Operation not permitted (EPERM)" */
const char *ap_probe_errstr(int e, char *buf, size_t len)
{
	const char *name = NULL;

	if (e < 0)
		e = -e;
	/* strerror says "Unknown error 524"; what the kernel means is this */
	if (e == AP_ENOTSUPP) {
		snprintf(buf, len, "not supported by this kernel (ENOTSUPP)");
		return buf;
	}
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
	name = strerrorname_np(e);
#endif
	if (name)
		snprintf(buf, len, "%s (%s)", strerror(e), name);
	else
		snprintf(buf, len, "%s (errno %d)", strerror(e), e);
	return buf;
}

const char *ap_method_name(enum ap_method m)
{
	switch (m) {
	case AP_METHOD_TP:
		return "tp";
	case AP_METHOD_FENTRY:
		return "fentry";
	case AP_METHOD_PERF:
		return "perf";
	case AP_METHOD_NONE:
		break;
	}
	return "auto";
}

int ap_method_parse(const char *s, enum ap_method *m)
{
	static const enum ap_method all[] = {
		AP_METHOD_NONE, AP_METHOD_TP, AP_METHOD_FENTRY, AP_METHOD_PERF,
	};
	size_t i;

	for (i = 0; i < sizeof(all) / sizeof(all[0]); i++) {
		if (!strcmp(s, ap_method_name(all[i]))) {
			*m = all[i];
			return 0;
		}
	}
	return -EINVAL;
}
