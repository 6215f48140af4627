#!/usr/bin/env bash
# The VM suite: scripts/vmtest boots Debian's 6.1 (bookworm) and 6.12 (bookworm-backports)
# kernels under qemu (TCG) and prints a PASS:/FAIL: line per VM test per kernel
# ("[6.12] ..."): memory.peak through a held fd (6.12) or a fresh cgroup (6.1), a removed
# cgroup, OOM kill under memory.max, memory.high paid in reclaim, pressure and PSI
# triggers, run's bad input, and first-touch pages with fentry (and tp, perf, auto) equal
# to the truth and to this host's tp and perf traces. A missing qemu, busybox or kernel
# package is a FAIL, not a skip: scripts/install-deps provides them.
# VMTEST_KERNELS="6.12" limits the kernels (default: both).
cd "$(dirname "$0")/../.." || exit 1
: "${BUILD:=build}"
export BUILD
# shellcheck disable=SC2086
scripts/vmtest ${VMTEST_KERNELS:-}
