/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers of the libFuzzer targets that drive APIs taking a path (tests/fuzz/run-fuzz):
 * the input as a file, an output that goes nowhere, and the one-line error check.
 */
#ifndef ARENAPROF_FUZZ_UTIL_H
#define ARENAPROF_FUZZ_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

/*
 * The input as a regular file: a memfd, rewritten for every input, named
 * /proc/self/fd/N (every open of it reads from the start). Traps when it cannot be made.
 */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;

	if (fd < 0) {
		fd = memfd_create("fuzz-input", MFD_CLOEXEC);
		if (fd < 0)
			__builtin_trap();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
		__builtin_trap();
	return path;
}

/* /dev/null for the renderers, opened once. */
static inline FILE *fuzz_null(void)
{
	static FILE *f;

	if (!f)
		f = fopen("/dev/null", "w");
	if (!f)
		__builtin_trap();
	return f;
}

/* An error message is one printable line: not empty, no control character. */
static inline bool fuzz_one_line(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++) {
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	}
	return true;
}

#endif
