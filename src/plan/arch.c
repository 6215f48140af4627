// SPDX-License-Identifier: Apache-2.0
/*
 * arch: the CPU LiteRT is planned for (include/arenaprof/plan/graph.h), apart from
 * prepare.c so that the kernels, which prepare.c calls, can ask it without calling back.
 */
#include <errno.h>
#include <string.h>

#include "arenaprof/plan/graph.h"

enum ap_arch ap_arch_resolve(enum ap_arch a)
{
	if (a != AP_ARCH_HOST)
		return a;
#if defined(__aarch64__)
	return AP_ARCH_ARM64;
#else
	return AP_ARCH_X86_64;
#endif
}

const char *ap_arch_name(enum ap_arch a)
{
	return ap_arch_resolve(a) == AP_ARCH_ARM64 ? "arm64" : "x86-64";
}

int ap_arch_parse(const char *s, enum ap_arch *a)
{
	if (!strcmp(s, "x86-64") || !strcmp(s, "x86_64"))
		*a = AP_ARCH_X86_64;
	else if (!strcmp(s, "arm64") || !strcmp(s, "aarch64"))
		*a = AP_ARCH_ARM64;
	else
		return -EINVAL;
	return 0;
}
