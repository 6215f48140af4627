/* SPDX-License-Identifier: Apache-2.0 */
/*
 * infile: opening a file arenaprof reads (a trace, a plan), refusing what is not a regular
 * file with one line: a FIFO would block the reader forever and /dev/zero would never
 * end.
 */
#ifndef ARENAPROF_INFILE_H
#define ARENAPROF_INFILE_H

#include <stdio.h>

/* A stream open for reading ("rb", close-on-exec), or NULL with err (AP_ERR_LEN). */
FILE *ap_infile_fopen(const char *path, char *err);

#endif
