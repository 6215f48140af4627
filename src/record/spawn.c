// SPDX-License-Identifier: Apache-2.0
/* spawn: a command forked and held before its exec (spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arenaprof/record/spawn.h"

static void close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
}

int ap_spawn_held(struct ap_spawn *sp, char **argv, bool out_to_err)
{
	int go[2], er[2], e;

	sp->pid = -1;
	sp->release_fd = sp->exec_err_fd = -1;
	if (pipe2(go, O_CLOEXEC))
		return -1;
	if (pipe2(er, O_CLOEXEC)) {
		e = errno;
		close_pair(go);
		errno = e;
		return -1;
	}
	sp->pid = fork();
	if (sp->pid < 0) {
		e = errno;
		close_pair(go);
		close_pair(er);
		errno = e;
		return -1;
	}
	if (sp->pid == 0) {
		char c;

		/* ignored signals would stay ignored across the exec */
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGHUP, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);
		close(go[1]);
		close(er[0]);
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* abandoned */
		if (out_to_err && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execvp(argv[0], argv);
		e = errno;
		if (write(er[1], &e, sizeof(e)) < 0)
			_exit(127);
		_exit(127);
	}
	close(go[0]);
	close(er[1]);
	sp->release_fd = go[1];
	sp->exec_err_fd = er[0];
	return 0;
}

int ap_spawn_release(struct ap_spawn *sp)
{
	int e = 0;

	/* the CLOEXEC pipe closes empty when the exec worked */
	if (write(sp->release_fd, "x", 1) != 1)
		e = errno ? errno : EPIPE;
	else if (read(sp->exec_err_fd, &e, sizeof(e)) != (ssize_t)sizeof(e))
		e = 0;
	close(sp->release_fd);
	close(sp->exec_err_fd);
	sp->release_fd = sp->exec_err_fd = -1;
	return e;
}

void ap_spawn_abandon(struct ap_spawn *sp)
{
	if (sp->release_fd < 0)
		return;
	close(sp->release_fd);
	close(sp->exec_err_fd);
	sp->release_fd = sp->exec_err_fd = -1;
	waitpid(sp->pid, NULL, 0);
}
