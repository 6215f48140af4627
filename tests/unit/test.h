/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal unit-test harness. Each check prints "PASS: name" or "FAIL: name: why";
 * tests/run-tests counts these lines. A test binary exits non-zero when any check failed.
 */
#ifndef ARENAPROF_TEST_H
#define ARENAPROF_TEST_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int test_failed;

#define CHECK(name, cond, ...) do {						\
	if (cond) {								\
		printf("PASS: %s\n", name);					\
	} else {								\
		test_failed = 1;						\
		printf("FAIL: %s: ", name);					\
		printf(__VA_ARGS__);						\
		printf("\n");							\
	}									\
} while (0)

#define CHECK_EQ_I64(name, got, want) \
	CHECK(name, (int64_t)(got) == (int64_t)(want), "got %" PRId64 ", want %" PRId64, \
	      (int64_t)(got), (int64_t)(want))

#define CHECK_U64(name, got, want) \
	CHECK(name, (uint64_t)(got) == (uint64_t)(want), "got %" PRIu64 ", want %" PRIu64, \
	      (uint64_t)(got), (uint64_t)(want))

#define TEST_EXIT() return test_failed ? 1 : 0

/* xorshift64: a test's reproducible pseudo-random numbers, from a non-zero seed in *s. */
static inline uint64_t test_xorshift64(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* A fixture file, whole and NUL-terminated, or NULL (a FAIL line is printed). */
static inline char *test_fixture(const char *path, size_t *len)
{
	char *buf = NULL;
	long n;
	FILE *f = fopen(path, "rb");

	*len = 0;
	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) ||
	    !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
		CHECK(path, 0, "cannot read the fixture (run from the repository root)");
		free(buf);
		if (f)
			fclose(f);
		return NULL;
	}
	fclose(f);
	buf[n] = '\0';
	*len = (size_t)n;
	return buf;
}

/* The repo's tests/models directory, found from the build's working directory. */
#define TEST_MODELS "tests/models"

#endif
