/* SPDX-License-Identifier: Apache-2.0 */
/*
 * path: the file name of a path, for labels and for matching a mapping to a model file
 * (the model's path as given and the mapping's as the kernel printed it differ but here).
 */
#ifndef ARENAPROF_PATH_H
#define ARENAPROF_PATH_H

#include <string.h>

/* What follows the last '/' of p (p itself without one); points into p. */
static inline const char *ap_base_name(const char *p)
{
	const char *s = strrchr(p, '/');

	return s ? s + 1 : p;
}

#endif
