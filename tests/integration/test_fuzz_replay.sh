#!/usr/bin/env bash
# Every committed fuzz input once through its libFuzzer target, under ASan and UBSan: the
# corpora tests/fuzz/corpus/TARGET/ and the inputs a fuzzer once failed on,
# tests/fuzz/regress/TARGET-*, for every target of tests/fuzz/run-fuzz (which builds them,
# FUZZ_BUILD_ONLY=1, into $BUILD/fuzz). No mutation: the same inputs every time. PASS per
# target with the count of inputs replayed; FAIL when clang or its fuzzer runtime is
# missing, the build fails, a target has no corpus, or an input makes a sanitizer report,
# a trap (a promise of the code broken), a timeout or a leak: the input is named, with the
# first lines of the report (the whole log is kept in $BUILD/fuzz/replay-TARGET.log).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

name=fuzz_replay
targets=(model trace report import_csv import_litert import_tflm plan procfs cli)
if ! have_clang=$(find_clang); then
	fail "$name" "no clang to build the fuzzers: install clang-14 and libclang-rt-14-dev"
	exit 1
fi

# a UBSan report with the stack it came from
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
start=$(date +%s)
if ! BUILD=$BUILD CLANG=$have_clang FUZZ_BUILD_ONLY=1 FUZZ_TARGETS="${targets[*]}" \
	tests/fuzz/run-fuzz >"$TMP/build.log" 2>&1; then
	fail "$name: build" "$(grep -m3 -i 'error\|run-fuzz:' "$TMP/build.log" | tr '\n' ' ')"
	exit 1
fi
built=$(date +%s)

# replay TARGET: its inputs, each once, in one process; the log names the input that failed
replay() {
	local t=$1 log=$BUILD/fuzz/replay-$1.log inputs=() f n_corpus n_regress rc ran bad report
	for f in tests/fuzz/corpus/"$t"/*; do
		[ -f "$f" ] && inputs+=("$f")
	done
	n_corpus=${#inputs[@]}
	for f in tests/fuzz/regress/"$t"-*; do
		[ -f "$f" ] && inputs+=("$f")
	done
	n_regress=$((${#inputs[@]} - n_corpus))
	if [ "$n_corpus" = 0 ]; then
		fail "$name: $t" "no corpus in tests/fuzz/corpus/$t/"
		return
	fi
	"$BUILD/fuzz/fuzz_$t" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 \
		"${inputs[@]}" >"$log" 2>&1
	rc=$?
	ran=$(grep -c '^Executed ' "$log")
	if [ "$rc" = 0 ] && [ "$ran" = "${#inputs[@]}" ] &&
		! grep -q 'Sanitizer\|runtime error\|ERROR: libFuzzer' "$log"; then
		pass "$name: $t: $ran inputs replayed ($n_corpus corpus, $n_regress regress)"
		return
	fi
	bad=$(sed -n 's/^Running: //p' "$log" | tail -n 1)
	# the report's first line, and where in src/ or the harness it was
	report="$(grep -m1 'ERROR\|runtime error' "$log") $(grep -m2 ' in .* [^ ]*\(src\|tests/fuzz\)/' \
		"$log" | sed 's/^ *//; s/ (BuildId.*//')"
	report=$(echo "$report" | tr '\n' ' ' | cut -c1-600)
	fail "$name: $t" \
		"exit $rc after $ran of ${#inputs[@]} inputs; input ${bad:-?}: $report (log: $log)"
}

for t in "${targets[@]}"; do
	replay "$t"
done
echo "INFO: $name: build $((built - start)) s, replay $(($(date +%s) - built)) s"
