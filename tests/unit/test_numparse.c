// SPDX-License-Identifier: Apache-2.0
/* numparse: every parser against values whose outcome is known, edges included. */
#include <errno.h>
#include <math.h>

#include "arenaprof/util/numparse.h"
#include "test.h"

static void u64(const char *s, int base, uint64_t min, uint64_t max, int want_rc,
		uint64_t want)
{
	char name[160];
	uint64_t v = 12345;
	int rc = ap_parse_u64(s, base, min, max, &v);

	snprintf(name, sizeof(name), "u64 '%s' base %d [%" PRIu64 ", %" PRIu64 "]", s, base,
		 min, max);
	CHECK(name, rc == want_rc && (rc || v == want) && (!rc || v == 12345),
	      "rc %d value %" PRIu64 ", want rc %d value %" PRIu64, rc, v, want_rc, want);
}

static void pid(const char *s, int want_rc, int want)
{
	char name[96];
	int v = -7, rc = ap_parse_pid(s, &v);

	snprintf(name, sizeof(name), "pid '%s'", s);
	CHECK(name, rc == want_rc && (rc ? v == -7 : v == want), "rc %d value %d", rc, v);
}

static void f64(const char *s, double min, double max, int want_rc, double want)
{
	char name[96];
	double v = -1;
	int rc = ap_parse_f64(s, min, max, &v);

	snprintf(name, sizeof(name), "f64 '%s'", s);
	CHECK(name, rc == want_rc && (rc || v == want), "rc %d value %g", rc, v);
}

int main(void)
{
	int64_t i;

	u64("0", 10, 0, 10, 0, 0);
	u64("10", 10, 0, 10, 0, 10);
	u64("11", 10, 0, 10, -ERANGE, 0);
	u64("18446744073709551615", 10, 0, UINT64_MAX, 0, UINT64_MAX);
	u64("18446744073709551616", 10, 0, UINT64_MAX, -ERANGE, 0);
	u64("-1", 10, 0, UINT64_MAX, -EINVAL, 0);
	u64("+1", 10, 0, UINT64_MAX, -EINVAL, 0);
	u64(" 1", 10, 0, UINT64_MAX, -EINVAL, 0);
	u64("1 ", 10, 0, UINT64_MAX, -EINVAL, 0);
	u64("", 10, 0, UINT64_MAX, -EINVAL, 0);
	u64("12k", 10, 0, UINT64_MAX, -EINVAL, 0);
	u64("0x10", 0, 0, UINT64_MAX, 0, 16);
	u64("0x10", 10, 0, UINT64_MAX, -EINVAL, 0);

	pid("1", 0, 1);
	pid("4194304", 0, 4194304);
	pid("4194305", -ERANGE, 0);
	pid("4294967297", -ERANGE, 0);		/* (int) of it would be 1: PID 1 */
	pid("0", -ERANGE, 0);
	pid("-5", -EINVAL, 0);
	pid("12abc", -EINVAL, 0);

	f64("1.5", 0, 10, 0, 1.5);
	f64("nan", 0, 10, -EINVAL, 0);
	f64("NaN", -INFINITY, INFINITY, -EINVAL, 0);
	f64("inf", 0, INFINITY, -ERANGE, 0);
	f64("-0.1", 0, 10, -ERANGE, 0);
	f64("1e400", 0, INFINITY, -ERANGE, 0);
	f64("1.5s", 0, 10, -EINVAL, 0);

	CHECK("i64 -5 in [-10, 10]", !ap_parse_i64("-5", -10, 10, &i) && i == -5, "%" PRId64, i);
	CHECK("i64 -11 below [-10, 10]", ap_parse_i64("-11", -10, 10, &i) == -ERANGE, "accepted");
	CHECK("i64 9223372036854775808 overflows",
	      ap_parse_i64("9223372036854775808", INT64_MIN, INT64_MAX, &i) == -ERANGE, "accepted");

	{
		uint64_t a = 0;

		CHECK("addr 0x7f0000001000", !ap_parse_addr("0x7f0000001000", &a) &&
		      a == 0x7f0000001000ull, "0x%" PRIx64, a);
		CHECK("addr 7f0000001000 (no 0x)", !ap_parse_addr("7f0000001000", &a) &&
		      a == 0x7f0000001000ull, "0x%" PRIx64, a);
		CHECK("addr 0 refused", ap_parse_addr("0", &a) == -ERANGE, "accepted");
		CHECK("addr -1 refused", ap_parse_addr("-1", &a) == -EINVAL, "accepted");
		CHECK("addr 0xzz refused", ap_parse_addr("0xzz", &a) == -EINVAL, "accepted");
	}
	TEST_EXIT();
}
