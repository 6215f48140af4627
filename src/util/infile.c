// SPDX-License-Identifier: Apache-2.0
/* infile: regular files only (include/arenaprof/util/infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"

int ap_infile_open(const char *path, uint64_t *size, char *err)
{
	/* O_NONBLOCK: opening a FIFO without a writer must not block before the check */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC), e = errno;
	struct stat st;

	if (fd < 0)
		return ap_fail(err, -e, "%s: %s", path, strerror(e));
	if (fstat(fd, &st) || fcntl(fd, F_SETFL, 0)) {
		e = errno;
		close(fd);
		return ap_fail(err, -e, "%s: %s", path, strerror(e));
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ap_fail(err, -EINVAL, "%s: not a regular file%s", path,
			       S_ISDIR(st.st_mode) ? " (a directory)" : "");
	}
	if (size)
		*size = (uint64_t)st.st_size;
	return fd;
}

FILE *ap_infile_fopen(const char *path, char *err)
{
	int fd = ap_infile_open(path, NULL, err);

	if (fd < 0) {
		errno = -fd;	/* a stream's failure speaks errno, as fopen's does */
		return NULL;
	}
	return ap_file_fdopen(fd, "rb", path, err);
}

FILE *ap_file_fdopen(int fd, const char *mode, const char *path, char *err)
{
	FILE *f = fdopen(fd, mode);
	int e = errno;

	if (!f) {
		close(fd);
		ap_seterr(err, "%s: %s", path, strerror(e));
		errno = e;
	}
	return f;
}
