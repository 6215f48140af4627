#!/usr/bin/env bash
# Builds the fuzzers (tests/fuzz/run-fuzz) and fuzzes every target for 2 seconds from its
# committed corpus and seeds, into fresh corpora: fuzzing as `make fuzz` runs it works (the
# seed writers, the dictionaries, the flags). Replaying each committed input once, naming
# the one that fails, is test_fuzz_replay.sh's; finding new inputs is `make fuzz`'s. PASS
# when it builds and finds nothing; FAIL when clang or its fuzzer runtime is missing, the
# build fails, or the fuzzer finds a crash, a hang or a leak (its last lines are shown).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

name=fuzz_smoke
if ! have_clang=$(find_clang); then
	fail "$name" "no clang to build the fuzzer: install clang-14 and libclang-rt-14-dev"
	exit 1
fi

# smoke LABEL SECONDS TARGETS...
smoke() {
	local label=$1 secs=$2 log=$TMP/run-fuzz-$1.log rc runs
	shift 2
	# fresh corpora in $TMP: the seeds and committed corpora, not what earlier runs added
	BUILD=$BUILD FUZZ_SECONDS=$secs FUZZ_TARGETS="$*" CLANG=$have_clang \
		FUZZ_CORPORA=$TMP/corpora tests/fuzz/run-fuzz >"$log" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" |
			awk '{ s += $1 } END { print s }')
		pass "$name: $* fuzzed for $secs s each, ${runs:-?} inputs, no crash"
	else
		fail "$name ($*)" "run-fuzz exited $rc: $(tail -n 5 "$log" | tr '\n' ' ')"
	fi
}
smoke all 2 model trace report import_csv import_litert import_tflm plan procfs cli
