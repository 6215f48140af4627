/* SPDX-License-Identifier: Apache-2.0 */
/*
 * sort: qsort for arrays that may be empty. qsort's array must not be NULL even when it
 * holds no element (C11 7.22.5), and an empty array here is often a NULL pointer (nothing
 * allocated): UBSan stops on it. ap_qsort sorts nothing when there is nothing to sort.
 */
#ifndef ARENAPROF_SORT_H
#define ARENAPROF_SORT_H

#include <stddef.h>
#include <stdlib.h>

static inline void ap_qsort(void *base, size_t n, size_t size,
			    int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
