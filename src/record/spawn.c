// SPDX-License-Identifier: Apache-2.0
/* spawn: a command forked and held before its exec (spawn.h). */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "arenaprof/record/spawn.h"
#include "arenaprof/util/err.h"
#include "arenaprof/util/numparse.h"

/* What the child reports when it cannot go on: a step and its errno. */
enum { AT_EXEC, AT_SETGROUPS, AT_SETGID, AT_SETUID, AT_PDEATHSIG, AT_ENV };
static const char *const step_name[] = {
	[AT_EXEC] = "exec", [AT_SETGROUPS] = "setgroups", [AT_SETGID] = "setgid",
	[AT_SETUID] = "setuid", [AT_PDEATHSIG] = "prctl(PR_SET_PDEATHSIG)",
	[AT_ENV] = "setenv",
};

static void close_pair(int p[2])
{
	close(p[0]);
	close(p[1]);
}

int ap_spawn_user_lookup(const char *user, struct ap_spawn_user *u, char *err)
{
	struct passwd *pw;
	uint64_t id;
	int n = 16;

	memset(u, 0, sizeof(*u));
	errno = 0;
	pw = getpwnam(user);
	if (!pw && !ap_parse_u64(user, 10, 0, UINT32_MAX - 1, &id))
		pw = getpwuid((uid_t)id);
	if (!pw)
		return ap_fail(err, -ENOENT, "unknown user '%s'", user);
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	u->name = strdup(pw->pw_name);
	u->home = strdup(pw->pw_dir ? pw->pw_dir : "/");
	for (;;) {
		gid_t *g = realloc(u->groups, (size_t)n * sizeof(*g));
		int want = n;

		if (!g)
			break;
		u->groups = g;
		if (getgrouplist(u->name ? u->name : user, u->gid, g, &want) >= 0) {
			u->n_groups = want;
			break;
		}
		if (want <= n || want > 65536)
			break;
		n = want;
	}
	if (!u->name || !u->home || !u->groups || !u->n_groups) {
		ap_seterr(err, "user '%s': cannot read its groups", user);
		ap_spawn_user_free(u);
		return -EINVAL;
	}
	return 0;
}

void ap_spawn_user_free(struct ap_spawn_user *u)
{
	free(u->groups);
	free(u->name);
	free(u->home);
	memset(u, 0, sizeof(*u));
}

/* In the child: report the step that failed and its errno, and exit. */
_Noreturn static void child_fail(int fd, int step)
{
	int msg[2] = { step, errno };

	if (write(fd, msg, sizeof(msg)) < 0)
		_exit(127);
	_exit(127);
}

/* In the child, once released: become the user, arm the parent-death signal, exec. */
_Noreturn static void child_run(char **argv, const struct ap_spawn_opts *o, pid_t parent,
				int er)
{
	const struct ap_spawn_user *u = o->user;

	if (u) {
		/* groups first, the uid last: setuid gives up the right to change them */
		if (setgroups((size_t)u->n_groups, u->groups))
			child_fail(er, AT_SETGROUPS);
		if (setgid(u->gid))
			child_fail(er, AT_SETGID);
		if (setuid(u->uid))
			child_fail(er, AT_SETUID);
		if (setenv("HOME", u->home, 1) || setenv("USER", u->name, 1) ||
		    setenv("LOGNAME", u->name, 1))
			child_fail(er, AT_ENV);
	}
	/* after the uid change, which clears it; checked against a parent already gone */
	if (!o->outlive) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL))
			child_fail(er, AT_PDEATHSIG);
		if (getppid() != parent)
			_exit(127);
	}
	execvp(argv[0], argv);
	child_fail(er, AT_EXEC);
}

int ap_spawn_held(struct ap_spawn *sp, char **argv, const struct ap_spawn_opts *o)
{
	static const struct ap_spawn_opts none;
	pid_t parent = getpid();
	int go[2], er[2], e;

	if (!o)
		o = &none;
	sp->pid = -1;
	sp->release_fd = sp->exec_err_fd = -1;
	sp->failed_at = NULL;
	if (pipe2(go, O_CLOEXEC))
		return -errno;
	if (pipe2(er, O_CLOEXEC)) {
		e = errno;
		close_pair(go);
		return -e;
	}
	sp->pid = fork();
	if (sp->pid < 0) {
		e = errno;
		close_pair(go);
		close_pair(er);
		return -e;
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
		/* a parent that dies while we are held closes the pipe: EOF */
		if (read(go[0], &c, 1) != 1)
			_exit(127);	/* abandoned */
		if (o->out_to_err && dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		child_run(argv, o, parent, er[1]);
	}
	close(go[0]);
	close(er[1]);
	sp->release_fd = go[1];
	sp->exec_err_fd = er[0];
	return 0;
}

int ap_spawn_release(struct ap_spawn *sp)
{
	int msg[2] = { AT_EXEC, 0 }, e = 0;

	/* the CLOEXEC pipe closes empty when the exec worked */
	if (write(sp->release_fd, "x", 1) != 1) {
		e = errno ? errno : EPIPE;
		sp->failed_at = "release";
	} else if (read(sp->exec_err_fd, msg, sizeof(msg)) == (ssize_t)sizeof(msg)) {
		e = msg[1] ? msg[1] : EIO;
		sp->failed_at = msg[0] >= 0 && msg[0] <= AT_ENV ? step_name[msg[0]] : "exec";
	}
	close(sp->release_fd);
	close(sp->exec_err_fd);
	sp->release_fd = sp->exec_err_fd = -1;
	return -e;
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

/* A pidfd polls readable when the process ends; -1 where the kernel has none (< 5.3). */
static int pidfd_of(pid_t pid)
{
#ifdef SYS_pidfd_open
	return (int)syscall(SYS_pidfd_open, pid, 0);
#else
	(void)pid;
	return -1;
#endif
}

int ap_spawn_wait(pid_t pid, volatile sig_atomic_t *n_signals, sig_atomic_t seen,
		  volatile sig_atomic_t *sig, int *status)
{
	int forwarded = 0;
	int fd = pidfd_of(pid), e = 0;

	for (;;) {
		pid_t w;

		if (*n_signals != seen) {
			/* the first one is the user's to the command; a second one insists */
			seen = *n_signals;
			if (forwarded++)
				kill(pid, SIGKILL);
			else if (*sig)
				kill(pid, *sig);
		}
		w = waitpid(pid, status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			e = errno;
			break;
		}
		/* a signal cuts the poll short (EINTR); one that comes just before it is
		 * passed on at the timeout */
		if (fd >= 0)
			poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 100);
		else
			poll(NULL, 0, 20);
	}
	if (fd >= 0)
		close(fd);
	return -e;
}
