/* SPDX-License-Identifier: Apache-2.0 */
/*
 * outfile: opening a file arenaprof writes (a trace, a heatmap, an export), safely when
 * run as root in directories other users can write to:
 *  - a final symbolic link is never followed (a link planted where the output goes);
 *  - an existing file owned by another user in a sticky world-writable directory (/tmp)
 *    is not written through, as the kernel's protected_regular would refuse it;
 *  - only a regular file is written (a FIFO would block, a device is not an output);
 *  - a new file gets mode; an existing file of ours is truncated and set to mode, so a
 *    trace (which holds addresses and command lines) is 0600 whatever was there before.
 */
#ifndef ARENAPROF_OUTFILE_H
#define ARENAPROF_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

/*
 * A file descriptor open for writing, or a negative errno with err (AP_ERR_LEN): the failed
 * call's (-ELOOP a symbolic link, -ENXIO a FIFO with no reader...), -EINVAL for what is not
 * a regular file, -EPERM for another user's file in a shared sticky directory.
 */
int ap_outfile_open(const char *path, mode_t mode, char *err);
/* The same as a stdio stream ("we" semantics), or NULL with err and errno set. */
FILE *ap_outfile_fopen(const char *path, mode_t mode, char *err);

#endif
