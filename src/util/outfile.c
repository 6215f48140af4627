// SPDX-License-Identifier: Apache-2.0
/* outfile: safe output files (include/arenaprof/util/outfile.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arenaprof/util/err.h"
#include "arenaprof/util/infile.h"
#include "arenaprof/util/outfile.h"

/* The directory holding path's last component: sticky and writable by anyone? */
static int in_shared_sticky_dir(const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;

	if (!slash) {
		snprintf(dir, sizeof(dir), ".");
	} else if (slash == path) {
		snprintf(dir, sizeof(dir), "/");
	} else {
		if ((size_t)(slash - path) >= sizeof(dir))
			return 1;	/* cannot tell: treat it as shared */
		memcpy(dir, path, (size_t)(slash - path));
		dir[slash - path] = '\0';
	}
	if (stat(dir, &st))
		return 1;
	return (st.st_mode & S_ISVTX) && (st.st_mode & S_IWOTH);
}

/* -e with the message for the call that failed with e on path. */
static int refused(const char *path, int e, char *err)
{
	if (e == ELOOP)
		return ap_fail(err, -ELOOP, "%s: a symbolic link: refusing to follow it "
			       "(write to the real path)", path);
	if (e == ENXIO)
		return ap_fail(err, -ENXIO, "%s: a FIFO with no reader: not an output", path);
	return ap_fail(err, -e, "%s: %s", path, strerror(e));
}

/* An existing file: only a regular file of ours, or of its owner outside a shared dir. */
static int reuse(const char *path, mode_t mode, char *err)
{
	struct stat st;
	int fd, e;

	/* O_NONBLOCK: a FIFO without a reader fails at once instead of blocking */
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return refused(path, errno, err);
	if (fstat(fd, &st)) {
		e = errno;
		close(fd);
		return refused(path, e, err);
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return ap_fail(err, -EINVAL, "%s: not a regular file: refusing to write to it",
			       path);
	}
	if (st.st_uid != geteuid() && in_shared_sticky_dir(path)) {
		close(fd);
		return ap_fail(err, -EPERM, "%s: owned by another user in a shared sticky "
			       "directory: refusing to write through it", path);
	}
	if (fcntl(fd, F_SETFL, 0) || ftruncate(fd, 0) ||
	    (st.st_uid == geteuid() && fchmod(fd, mode))) {
		e = errno;
		close(fd);
		return refused(path, e, err);
	}
	return fd;
}

int ap_outfile_open(const char *path, mode_t mode, char *err)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
	int e = errno;

	if (fd >= 0) {
		/* the umask may have taken bits away, never added: mode is the most */
		return fd;
	}
	if (e == EEXIST)
		return reuse(path, mode, err);
	return ap_fail(err, -e, "%s: %s", path, strerror(e));
}

FILE *ap_outfile_fopen(const char *path, mode_t mode, char *err)
{
	int fd = ap_outfile_open(path, mode, err);

	if (fd < 0) {
		errno = -fd;	/* a stream's failure speaks errno, as fopen's does */
		return NULL;
	}
	return ap_file_fdopen(fd, "w", path, err);
}
