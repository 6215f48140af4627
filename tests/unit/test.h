/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A minimal unit-test harness. Each check prints "PASS: name" or "FAIL: name: why";
 * tests/run-tests counts these lines. A test binary exits non-zero when any check failed.
 */
#ifndef ARENAPROF_TEST_H
#define ARENAPROF_TEST_H

#include <inttypes.h>
#include <stdio.h>
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

#define TEST_EXIT() return test_failed ? 1 : 0

/* The repo's tests/models directory, found from the build's working directory. */
#define TEST_MODELS "tests/models"

#endif
