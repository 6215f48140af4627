// SPDX-License-Identifier: Apache-2.0
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arenaprof/util/units.h"

const char *ap_fmt_bytes(uint64_t v, char *buf, size_t len)
{
	static const char *const unit[] = { "KiB", "MiB", "GiB", "TiB" };
	double d = (double)v;
	int u = -1;

	if (v < 1024) {
		snprintf(buf, len, "%llu B", (unsigned long long)v);
		return buf;
	}
	while (d >= 1024 && u < 3) {
		d /= 1024;
		u++;
	}
	snprintf(buf, len, "%.2f %s", d, unit[u]);
	return buf;
}

int ap_parse_size(const char *s, uint64_t *out)
{
	char *end;
	double v;
	int shift = 0;

	if (!s || !*s || isspace((unsigned char)*s) || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v) || v < 0)
		return -EINVAL;
	switch (toupper((unsigned char)*end)) {
	case 'K': shift = 10; end++; break;
	case 'M': shift = 20; end++; break;
	case 'G': shift = 30; end++; break;
	case 'T': shift = 40; end++; break;
	default: break;
	}
	if (shift && (!strcasecmp(end, "iB") || !strcasecmp(end, "B")))
		end += strlen(end);
	else if (!shift && !strcasecmp(end, "B"))
		end++;
	if (*end)
		return -EINVAL;
	v = ldexp(v, shift);
	if (v >= 18446744073709551615.0)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}
