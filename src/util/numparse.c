// SPDX-License-Identifier: Apache-2.0
/*
 * numparse: strtoull/strtoll/strtod with the checks every caller used to write by hand
 * (whole string, errno, range before narrowing). See include/arenaprof/util/numparse.h.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>

#include "arenaprof/util/numparse.h"

/* What strto* would skip or accept silently: leading space, an empty string. */
static int plain_start(const char *s)
{
	return s && *s && !isspace((unsigned char)*s);
}

/* After strto*: the whole string read (else -EINVAL), in range (else -ERANGE), or 0. */
static int finish(const char *s, const char *end, bool in_range)
{
	if (end == s || *end)
		return -EINVAL;
	return errno == ERANGE || !in_range ? -ERANGE : 0;
}

int ap_parse_u64(const char *s, int base, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;
	int rc;

	/* strtoull negates "-1" into a huge value: a sign is never an unsigned number */
	if (!plain_start(s) || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, base);
	rc = finish(s, end, v >= min && v <= max);
	if (!rc)
		*out = v;
	return rc;
}

int ap_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out)
{
	long long v;
	char *end;
	int rc;

	if (!plain_start(s) || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoll(s, &end, 10);
	rc = finish(s, end, v >= min && v <= max);
	if (!rc)
		*out = v;
	return rc;
}

int ap_parse_f64(const char *s, double min, double max, double *out)
{
	char *end;
	double v;

	if (!plain_start(s))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || *end || isnan(v))
		return -EINVAL;
	if (errno == ERANGE || isinf(v) || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int ap_parse_pid(const char *s, int *out)
{
	uint64_t v;
	int r = ap_parse_u64(s, 10, 1, 1u << 22, &v);

	if (!r)
		*out = (int)v;
	return r;
}

int ap_parse_addr(const char *s, uint64_t *out)
{
	return ap_parse_u64(s, 16, 1, UINT64_MAX, out);
}
