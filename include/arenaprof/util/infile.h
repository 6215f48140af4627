/* SPDX-License-Identifier: Apache-2.0 */
/*
 * infile: opening a file arenaprof reads (a trace, a plan), refusing what is not a regular
 * file with one line: a FIFO would block the reader forever and /dev/zero would never
 * end.
 */
#ifndef ARENAPROF_INFILE_H
#define ARENAPROF_INFILE_H

#include <stdint.h>
#include <stdio.h>

/* A descriptor open for reading (blocking, close-on-exec) and the file's size, or a negative
 * errno with err (AP_ERR_LEN): open's or fstat's, -EINVAL for what is not a regular file.
 * size may be NULL. */
int ap_infile_open(const char *path, uint64_t *size, char *err);
/* A stream open for reading ("rb", close-on-exec), or NULL with err (AP_ERR_LEN) and
 * errno set, as fopen's (a stream has no code to return). */
FILE *ap_infile_fopen(const char *path, char *err);
/* fd as a stream of mode; on failure fd is closed, err says why (path named), errno
 * fdopen's. */
FILE *ap_file_fdopen(int fd, const char *mode, const char *path, char *err);

#endif
