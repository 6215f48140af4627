#!/usr/bin/env bash
# Builds the fuzzers (tests/fuzz/run-fuzz: model reader, trace reader) and runs each for
# 10 seconds. PASS when
# it builds and finds nothing; FAIL when clang or its fuzzer runtime is missing, the build
# fails, or the fuzzer finds a crash, a hang or a leak (its last lines are shown).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

name=fuzz_smoke
have_clang=
for c in clang clang-14 clang-15 clang-16 clang-17 clang-18 clang-19; do
	command -v "$c" >/dev/null 2>&1 && have_clang=$c && break
done
if [ -z "$have_clang" ]; then
	fail "$name" "no clang to build the fuzzer: install clang-14 and libclang-rt-14-dev"
	exit 1
fi

log=$TMP/run-fuzz.log
BUILD=$BUILD FUZZ_SECONDS=10 CLANG=$have_clang tests/fuzz/run-fuzz >"$log" 2>&1
rc=$?
if [ "$rc" -eq 0 ]; then
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | awk '{ s += $1 } END { print s }')
	pass "$name: model and trace readers fuzzed for 10 s each, ${runs:-?} inputs, no crash"
else
	fail "$name" "run-fuzz exited $rc: $(tail -n 5 "$log" | tr '\n' ' ')"
	exit 1
fi
