/* SPDX-License-Identifier: Apache-2.0 */
/*
 * spawn: a command forked and held before its exec until the caller is ready for it (the
 * recorder attached to it, `run` moved it into its cgroup), so that nothing it does is
 * missed. Its signals are back to their defaults, and a failed exec reports its errno.
 */
#ifndef ARENAPROF_SPAWN_H
#define ARENAPROF_SPAWN_H

#include <stdbool.h>
#include <sys/types.h>

struct ap_spawn {
	pid_t pid;
	int release_fd;		/* written to: the child execs; closed: it exits 127 */
	int exec_err_fd;	/* the exec's errno, or EOF when the exec worked */
};

/* Forks argv, held. out_to_err: its stdout goes to our stderr. 0, or -1 with errno. */
int ap_spawn_held(struct ap_spawn *sp, char **argv, bool out_to_err);
/* Lets it exec and waits for the outcome: 0 ran, else the errno of the exec (or write) */
int ap_spawn_release(struct ap_spawn *sp);
/* Gives it up before the exec: it exits 127 without running argv; reaped. */
void ap_spawn_abandon(struct ap_spawn *sp);

#endif
