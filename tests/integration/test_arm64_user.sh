#!/usr/bin/env bash
# The cross-built arm64 binaries beside the host's, run under qemu-user (the arm64 loader
# and libraries from the :arm64 packages): everything that needs no arm64 kernel.
#  - every unit test, built for arm64 (char is unsigned there, long double differs, ...);
#  - plan --json of every bundled model at 4 threads, byte-equal to the host build's told
#    --arch arm64 (the arm64 build's default: CONV_2D's aarch64 kernel type);
#  - report --json and heatmap CSV of a trace recorded here, byte-equal to the host's
#    (the trace format is arch-neutral: one reader for traces from either arch).
# The kernel side (fault sources on arm64 kernels) is the arm64 VM suite's
# (test_vm_arm64.sh). Missing cross binaries or qemu-user are a FAIL, never a skip.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

A64=${ARM64_BUILD:-$BUILD/arm64}
if [ "$(uname -m)" = aarch64 ]; then
	run64() { "$@"; }	# the host is arm64: its own build is the arm64 one
else
	run64() { AP_TEST_QEMU_USER=1 qemu-aarch64-static /lib/ld-linux-aarch64.so.1 "$@"; }
	if ! command -v qemu-aarch64-static >/dev/null || [ ! -e /lib/ld-linux-aarch64.so.1 ]; then
		fail "arm64 user" "qemu-aarch64-static or the arm64 loader is missing (scripts/install-deps)"
		exit 0
	fi
fi
if [ ! -x "$A64/arenaprof" ] || [ ! -d "$A64/tests" ]; then
	fail "arm64 user" "$A64/arenaprof or $A64/tests is missing (make arm64)"
	exit 0
fi
MSG="$(LC_ALL=C readelf -h "$A64/arenaprof" | grep Machine)"
check "arm64: $A64/arenaprof is an AArch64 binary" \
	sh -c "LC_ALL=C readelf -h '$A64/arenaprof' | grep -q 'Machine: *AArch64'"

# unit tests: their PASS/FAIL lines, relabelled
for t in "$A64"/tests/test_*; do
	[ -x "$t" ] || continue
	name=$(basename "$t")
	out=$(run64 "$t" 2>&1)
	rc=$?
	printf '%s\n' "$out" | grep -aE '^(PASS|FAIL|SKIP): ' | sed -E "s/^(PASS|FAIL|SKIP): /\\1: arm64 $name: /"
	MSG="exit $rc: $(printf '%s\n' "$out" | tail -2)"
	check "arm64 $name: exits 0 with at least one PASS" \
		sh -c "[ $rc = 0 ] && printf '%s\n' \"\$1\" | grep -aq '^PASS: '" _ "$out"
done

# the planner: the same plan on both arches, byte for byte, for the arm64 build's default
# --arch (at 4 threads, where CONV_2D's kernel type shows)
for m in "$MODELS"/*.tflite; do
	"$ARENAPROF" plan --delegate none "$m" --threads 4 --arch arm64 --json >"$TMP/x86.json" 2>"$TMP/x86.err"
	rx=$?
	run64 "$A64/arenaprof" plan --delegate none "$m" --threads 4 --json >"$TMP/a64.json" 2>"$TMP/a64.err"
	ra=$?
	MSG="exit x86 $rx arm64 $ra; $(cmp "$TMP/x86.json" "$TMP/a64.json" 2>&1 | head -1) $(head -c 200 "$TMP/a64.err")"
	check "plan --json $(basename "$m"): arm64 output equals x86 (exit $rx)" \
		sh -c "[ $rx = $ra ] && cmp -s '$TMP/x86.json' '$TMP/a64.json' && cmp -s '$TMP/x86.err' '$TMP/a64.err'"
done

# a trace recorded by the host, read by both builds
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
if [ "$(id -u)" = 0 ] && "$ARENAPROF" record -o "$TMP/t.trace" \
	--run-probe "$BUILD/mininfer:mininfer_invoke" --op-probe "$BUILD/mininfer:mininfer_op:0" \
	-- "$BUILD/mininfer" "$MV2" --runs 3 >/dev/null 2>"$TMP/rec.err"; then
	for args in "report --json --pages" "report" "heatmap --faults all --format csv -o -"; do
		# shellcheck disable=SC2086
		"$ARENAPROF" $args "$TMP/t.trace" --plan "$MV2" >"$TMP/x86.out" 2>&1
		rx=$?
		# shellcheck disable=SC2086
		run64 "$A64/arenaprof" $args "$TMP/t.trace" --plan "$MV2" >"$TMP/a64.out" 2>&1
		ra=$?
		MSG="exit x86 $rx arm64 $ra; $(diff "$TMP/x86.out" "$TMP/a64.out" | head -4 | tr '\n' '|')"
		check "arenaprof $args of an x86 trace: arm64 output equals x86 ($(wc -l < "$TMP/x86.out") lines)" \
			sh -c "[ $rx = 0 ] && [ $ra = 0 ] && cmp -s '$TMP/x86.out' '$TMP/a64.out'"
	done
elif [ "$(id -u)" = 0 ]; then
	fail "arm64 user: a host trace to read" "record failed: $(tail -2 "$TMP/rec.err")"
else
	skip "arm64 user: reading a host trace" "needs root to record one (BPF)"
fi
