// SPDX-License-Identifier: Apache-2.0
/* infile: regular files only (include/arenaprof/util/infile.h). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"

FILE *ap_infile_fopen(const char *path, char *err)
{
	/* O_NONBLOCK: opening a FIFO without a writer must not block before the check */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	FILE *f;

	if (fd < 0) {
		ap_fail_errno(err, errno, "%s: %s", path, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st)) {
		int e = errno;

		close(fd);
		ap_fail_errno(err, e, "%s: %s", path, strerror(e));
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		ap_fail_errno(err, EINVAL, "%s: not a regular file", path);
		return NULL;
	}
	if (fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "rb"))) {
		int e = errno;

		close(fd);
		ap_fail_errno(err, e, "%s: %s", path, strerror(e));
		return NULL;
	}
	return f;
}
