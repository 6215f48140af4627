/* SPDX-License-Identifier: Apache-2.0 */
/*
 * numparse: the one way arenaprof reads a number from a command line, a file or /proc.
 * Each parser takes the whole string (no leading space, no sign unless the type has one,
 * nothing after the digits), checks the range before converting, so a value never wraps
 * (a pid of 4294967297 is refused, not read as 1), and refuses nan and infinities.
 * Returns 0, or -ERANGE (out of [min, max]) or -EINVAL (not a number); *out is set only
 * on success.
 */
#ifndef ARENAPROF_NUMPARSE_H
#define ARENAPROF_NUMPARSE_H

#include <stdint.h>

/* Decimal (or 0x hexadecimal when base is 0) unsigned in [min, max]. */
int ap_parse_u64(const char *s, int base, uint64_t min, uint64_t max, uint64_t *out);
/* Decimal signed in [min, max]. */
int ap_parse_i64(const char *s, int64_t min, int64_t max, int64_t *out);
/* A finite decimal in [min, max]. */
int ap_parse_f64(const char *s, double min, double max, double *out);
/* A process id: 1 .. 2^22 (the kernel's PID_MAX_LIMIT). */
int ap_parse_pid(const char *s, int *out);
/* A non-zero hex address, "0x7f12..." or "7f12...". */
int ap_parse_addr(const char *s, uint64_t *out);

#endif
