/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cgroup_run: the cgroup side of `arenaprof run`'s harness (record/run_harness.h), which
 * needs cgroup v2 with the memory controller: find a parent, create a cgroup in it, set
 * its limits, move the child in, remove the cgroup. Parsers and errors: cgroup.h.
 */
#ifndef ARENAPROF_CGROUP_RUN_H
#define ARENAPROF_CGROUP_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "arenaprof/kernel/cgroup.h"

/* ---- the fresh-cgroup harness (arenaprof run; needs cgroup v2 with memory) ---- */

/*
 * Finds where `run` can create cgroups: the v2 directory of pid's cgroup (the default
 * parent) with the memory controller available in it. -ENOTSUP with one line saying
 * exactly what is missing: no cgroup v2 mounted, the memory controller bound to
 * cgroup v1 (and where), memory not enabled in the parent's parent, ...
 * Reads only.
 */
int ap_cg_v2_parent(int pid, char *dir, size_t len, char *err);
/* Same check for an explicit parent directory (--cgroup-parent), which must exist. */
int ap_cg_v2_check_dir(const char *dir, char *err);

/*
 * mkdir parent/name (mode 0755) after enabling +memory in parent's cgroup.subtree_control
 * when it is not on yet. EBUSY from subtree_control (the parent has processes of its own:
 * the no-internal-processes rule) gets a message that says to pass --cgroup-parent.
 * out gets the new directory.
 */
int ap_cg_create(const char *parent, const char *name, char *out, size_t len, char *err);
/* Writes value ("max" for AP_CG_UNLIMITED) to dir/file, e.g. memory.max. */
int ap_cg_set(const char *dir, const char *file, uint64_t value, char *err);
/* Moves pid into dir (writes it to dir/cgroup.procs). */
int ap_cg_move(const char *dir, int pid, char *err);
/*
 * Removes dir: kills what is left in it (cgroup.kill, 5.14+, else SIGKILL to each pid of
 * cgroup.procs), then rmdir, retried for up to 2 s while the kernel still counts exited
 * tasks. ENOENT (already gone) is success.
 */
int ap_cg_remove(const char *dir, char *err);

#endif
