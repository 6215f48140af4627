/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spawn: a command forked and held before its exec until the caller is ready for it (the
 * recorder attached to it, `run` moved it into its cgroup), so that nothing it does is
 * missed. Its signals are back to their defaults, and a failed exec reports its errno.
 * It may run as another user (--user: the BPF side stays with the privileged parent), and
 * unless it is to outlive us it gets SIGKILL when we die (PR_SET_PDEATHSIG), so that it
 * never runs on unsupervised after a recorder killed with SIGKILL.
 */
#ifndef ARENAPROF_SPAWN_H
#define ARENAPROF_SPAWN_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

/* Who the command runs as, looked up before the fork (the child only switches). */
struct ap_spawn_user {
	uid_t uid;
	gid_t gid;
	gid_t *groups;		/* supplementary groups, as initgroups(3) would set them */
	int n_groups;
	char *name, *home;
};

struct ap_spawn_opts {
	bool out_to_err;			/* its stdout goes to our stderr */
	bool outlive;				/* may outlive us: no parent-death signal */
	const struct ap_spawn_user *user;	/* NULL: ours */
};

struct ap_spawn {
	pid_t pid;
	int release_fd;		/* written to: the child execs; closed: it exits 127 */
	int exec_err_fd;	/* the exec's errno, or EOF when the exec worked */
	const char *failed_at;	/* after a failed release: "exec", "setuid", ... */
};

/*
 * A user by name, or by number when no name matches: 0, or with err -ENOENT ("unknown
 * user") when there is no such user, -EINVAL when its groups cannot be read.
 */
int ap_spawn_user_lookup(const char *user, struct ap_spawn_user *u, char *err);
void ap_spawn_user_free(struct ap_spawn_user *u);

/* Forks argv, held. 0, or pipe2's or fork's -errno. */
int ap_spawn_held(struct ap_spawn *sp, char **argv, const struct ap_spawn_opts *o);
/*
 * Lets it exec and waits for the outcome: 0 ran, else the negative errno of what failed
 * (failed_at names it: the switch to the user, the parent-death signal, or the exec
 * itself).
 */
int ap_spawn_release(struct ap_spawn *sp);
/*
 * Waits for a released command to end, its wait status into *status: 0, or waitpid's
 * -errno. The first signal that raises *n_signals past seen is passed on to it (*sig, the
 * latest one; 0: none, the command has it already); a second one sends SIGKILL, so that
 * a command deaf to the first one still ends.
 */
int ap_spawn_wait(pid_t pid, volatile sig_atomic_t *n_signals, sig_atomic_t seen,
		  volatile sig_atomic_t *sig, int *status);
/* Gives it up before the exec: it exits 127 without running argv; reaped. */
void ap_spawn_abandon(struct ap_spawn *sp);

#endif
