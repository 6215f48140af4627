#!/usr/bin/env bash
# A real runtime on arm64: scripts/vmtest --arch arm64 --litert boots Debian's arm64 6.1
# and 6.12 kernels with Debian's arm64 python3.11 and the aarch64 wheels of ai-edge-litert
# 2.3.0 and numpy in the initramfs (scripts/vm/fetch-arm64-guest), and traces
# scripts/litert_run.py (MobileNet v2 int8, delegate none, VMTEST_LITERT_RUNS runs,
# default 20) with the cross-built arenaprof and no marker of ours: the run probe found in
# the wheel, the arena found by the allocation probe at LiteRT's own base, consistency
# 1.0, 0 drops, the fault source each kernel allows (perf on 6.1, fentry on 6.12); then
# the wheel's plan at 4 threads of two float CONV_2D models against the arm64 build's
# (CONV_2D's aarch64 kernel type: im2col, no hwcn_weights), offset by offset. About 110 s
# for the three kernels on a 2-vCPU host. A missing piece is a FAIL, never a skip.
cd "$(dirname "$0")/../.." || exit 1
: "${BUILD:=build}"
export BUILD ARM64_BUILD
# shellcheck disable=SC2086
scripts/vmtest --arch arm64 --litert ${VMTEST_KERNELS:-}
