#!/usr/bin/env bash
# The arm64 VM suite: scripts/vmtest --arch arm64 boots Debian's arm64 kernels (bookworm's
# 6.1 and bookworm-backports' 6.12) under qemu-system-aarch64 (TCG, -M virt) from an
# initramfs carrying the cross-built arenaprof, mininfer and cg_check with their arm64
# shared libraries, and runs the x86 suite's guest tests there: record of mininfer with run
# and op markers against its truth with every fault source the kernel has (fentry where it
# has BPF trampolines, perf everywhere; tp must be refused: it is x86's), the method auto
# picks, arenaprof run with memory.peak held across its reset, an OOM kill, PSI. One
# PASS:/FAIL: line per check per kernel ("[arm64 6.12] ..."). A missing cross build, qemu,
# busybox or kernel is a FAIL, never a skip (make check builds $ARM64_BUILD first;
# scripts/install-deps installs the rest). VMTEST_KERNELS="6.12" limits the kernels.
cd "$(dirname "$0")/../.." || exit 1
: "${BUILD:=build}"
export BUILD ARM64_BUILD
# shellcheck disable=SC2086
scripts/vmtest --arch arm64 ${VMTEST_KERNELS:-}
