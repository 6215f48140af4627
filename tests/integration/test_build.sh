#!/usr/bin/env bash
# The build's refusals: an arch without a vmlinux.h, and a cross build whose pkg-config
# finds no libraries for the target, each stop with one line naming the fix (make exits
# 2), instead of building against the wrong kernel types or the build machine's own
# libraries. Nothing is built: make -n parses the Makefile only.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
# a make of its own, not a job of the make check that runs this
unset MAKEFLAGS MFLAGS MAKELEVEL

# refuses NAME PATTERN MAKE-ARGS...: make stops at once, exit 2, the pattern in its one line
refuses() {
	local name=$1 pat=$2 out rc
	shift 2
	out=$(make -n BUILD="$TMP/b" "$@" 2>&1 >/dev/null)
	rc=$?
	MSG="exit $rc: $out"
	check "$name" sh -c "[ $rc = 2 ] && [ \$(printf '%s\n' \"\$1\" | wc -l) = 1 ] &&
		printf '%s\n' \"\$1\" | grep -q -- \"\$2\"" _ "$out" "$pat"
}

refuses "ARCH=mips: no vmlinux.h, one line naming scripts/gen-vmlinux" \
	"no bpf/mips/vmlinux.h: ARCH=mips is not supported (x86, arm64); scripts/gen-vmlinux" \
	ARCH=mips
refuses "a cross build without the :arm64 libraries: one line naming scripts/install-deps" \
	"finds no libbpf libelf libdw zlib libpng ncursesw for ARCH=arm64: install the cross toolchain and the :arm64 libraries with scripts/install-deps" \
	ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- PKG_CONFIG=false
out=$(make -n BUILD="$TMP/b" ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu- 2>&1)
MSG="$(printf '%s\n' "$out" | grep -m1 -- '-target bpf')"
check "ARCH=arm64: the BPF object is built for arm64 from bpf/arm64/vmlinux.h, with -Wall" \
	sh -c "printf '%s\n' \"\$1\" | grep -- '-target bpf' | grep -q -- '-Wall -Werror -target bpf -D__TARGET_ARCH_arm64 -Ibpf/arm64'" _ "$out"
MSG="$(printf '%s\n' "$out" | grep -m1 -- 'gcc')"
check "ARCH=arm64 CROSS_COMPILE=aarch64-linux-gnu-: C is compiled by aarch64-linux-gnu-gcc" \
	sh -c "printf '%s\n' \"\$1\" | grep -q '^aarch64-linux-gnu-gcc '" _ "$out"
