/* SPDX-License-Identifier: Apache-2.0 */
/* units: byte sizes for humans ("1.50 MiB") and from them ("64M", "1.5GiB", "4096"). */
#ifndef ARENAPROF_UNITS_H
#define ARENAPROF_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* Formats into buf (at least 32 bytes) and returns it. */
const char *ap_fmt_bytes(uint64_t v, char *buf, size_t len);

/*
 * Parses a size with an optional K/M/G/T suffix (powers of 1024, "iB"/"B" allowed): 0, or
 * -EINVAL (not a size) or -ERANGE (2^64 bytes or more); *out is set only on success.
 */
int ap_parse_size(const char *s, uint64_t *out);

#endif
