#!/usr/bin/env bash
# Hostile scale, scaled down: traces of each record kind and shape that once cost more
# than their records (bench/scale_trace.c: fault, alloc, note, mapping copies, one big
# snapshot, markers, samples, vmas of their own, faults of unknown vma, many live blocks,
# one address reused, blocks given back, call sites), at N and 8 N records, through every
# consumer (report, report --json, report --plan, heatmap, export chrome and csv, diff).
# Asserts the memory bound that docs/scale.md documents, which is deterministic: peak RSS
# <= 24 MiB + 512 bytes a record read + 1 KiB a distinct mapping, and from N to 8 N no more
# than that per record added (a copied mapping run is one record: 8 times the copies may
# not take more than 4 MiB more). Time is the bench's (make bench: the scale table); a run
# past 120 s fails here as a hang. Then the TUI's live model, fed inputs of each kind by
# bench/scale_live.c, under its own bound.
#
#   SCALE_N       N (default 20000)
#   SCALE_NO_RSS  1: run every command, assert exit 0 and the output alone (the sanitizer
#                 build, whose shadow memory the bound is not about: test_sanitize.sh)
#   SCALE_LIVE    the scale_live binary (default $BUILD/bench/scale_live)
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

N=${SCALE_N:-20000}
BIG=$((N * 8))
GEN=$BUILD/bench/scale_trace
LIVE=${SCALE_LIVE:-$BUILD/bench/scale_live}
MODEL=$MODELS/mobilenet_v1_0.25_128_quant.tflite
BASE_KIB=$((24 * 1024))
PER_REC=512
for tool in "$GEN" "$LIVE"; do
	if [ ! -x "$tool" ]; then
		fail "scale: $tool" "not built (make check builds it: make $tool)"
		exit 1
	fi
done

# rss LABEL CMD...: runs CMD under /usr/bin/time; prints its peak RSS in KiB, or fails
# LABEL (exit status, or a hang past 120 s) and prints nothing
rss() {
	local label=$1 rc
	shift
	timeout 120 /usr/bin/time -f %M -o "$TMP/rss" "$@" >"$TMP/out" 2>"$TMP/err"
	rc=$?
	if [ "$rc" = 124 ]; then
		fail "$label" "still running after 120 s: $*"
		return 1
	elif [ "$rc" != 0 ]; then
		fail "$label" "exit $rc: $(head -c 300 "$TMP/err")"
		return 1
	fi
	tail -1 "$TMP/rss"
}

# the consumers of a trace, one per line: LABEL<TAB>ARGS
consumers() {
	printf '%s\t%s\n' \
		report "report $1" \
		"report --json" "report --json $1" \
		"report --plan" "report --plan $MODEL $1" \
		heatmap "heatmap $1 --force --plan $MODEL -o $TMP/h.csv" \
		"export chrome" "export $1 -o $TMP/x.json" \
		"export csv" "export $1 --format csv -o $TMP/x.csv" \
		diff "diff $TMP/small.trace $1"
}

"$GEN" fault 100 "$TMP/small.trace" || { fail "scale: scale_trace" "cannot write"; exit 1; }
for kind in fault alloc note mapping snapmaps marker sample vmas unknown blocks reuse giveback \
	sites; do
	if ! "$GEN" "$kind" "$N" "$TMP/a.trace" || ! "$GEN" "$kind" "$BIG" "$TMP/b.trace"; then
		fail "scale: $kind" "scale_trace could not write the traces"
		continue
	fi
	while IFS=$'\t' read -r label args; do
		name="scale: $kind, $label"
		# shellcheck disable=SC2086 # args: words without spaces
		a=$(rss "$name ($N records)" "$ARENAPROF" ${args/@T@/$TMP/a.trace}) || continue
		# shellcheck disable=SC2086
		b=$(rss "$name ($BIG records)" "$ARENAPROF" ${args/@T@/$TMP/b.trace}) || continue
		if [ "${SCALE_NO_RSS:-}" = 1 ]; then
			pass "$name: $N and $BIG records read (RSS not checked in this build)"
			continue
		fi
		per=$PER_REC
		# up to a mapping a record: vmas of their own, one snapshot of N mappings
		case $kind in vmas|snapmaps|giveback|sites) per=$((PER_REC + 1024)) ;; esac
		bound=$((BASE_KIB + BIG * per / 1024))
		grow=$(((BIG - N) * per / 1024))
		[ "$kind" = mapping ] && grow=4096
		if [ "$b" -le "$bound" ] && [ $((b - a)) -le "$grow" ]; then
			pass "$name: $a KiB at $N records, $b KiB at $BIG (bound $bound, growth <= $grow)"
		else
			fail "$name" "$a KiB at $N records, $b KiB at $BIG: over the bound $bound KiB or the growth $grow KiB"
		fi
	done < <(consumers @T@)
done

# The TUI's live model (bench/scale_live.c), fed N and 8 N inputs of each kind: what it
# ends with (the inputs' ground truth) and its memory, <= 24 MiB + 320 bytes an input (a
# first-touched page and a mapping of its own each, at most: docs/scale.md).
LIVE_PER=320
# expect KIND N: the figures scale_live must print for N inputs of KIND
expect() {
	local n=$2
	case $1 in
	fault) echo "maps 1 faults $n held $n" ;;
	vmas) echo "maps $n faults $n" ;;
	unknown) echo "maps $((n / 16 + 1)) faults $n" ;;
	mapping) echo "samples $((n / 100 + 1)) maps $((100 + n / 100)) " ;;
	alloc | blocks) echo "callers 0 alloc_bytes 0 " ;;
	sites) echo "callers 0 alloc_bytes 0 " ;;
	marker) echo "runs $((n / 8)) " ;;
	sample) echo "samples $((n + 1)) " ;;
	note) echo "notes $n" ;;
	esac
}
for kind in fault vmas unknown mapping alloc sites blocks marker sample note; do
	for n in "$N" "$BIG"; do
		name="scale: the TUI's live model, $kind ($n inputs)"
		kib=$(rss "$name" "$LIVE" "$kind" "$n" "$MODEL") || continue
		want=$(expect "$kind" "$n")
		if ! grep -q -- "$want" "$TMP/out"; then
			fail "$name" "wanted '$want' in: $(cat "$TMP/out")"
			continue
		fi
		bound=$((BASE_KIB + n * LIVE_PER / 1024))
		if [ "${SCALE_NO_RSS:-}" = 1 ]; then
			pass "$name: '$want' (RSS not checked in this build)"
		elif [ "$kib" -le "$bound" ]; then
			pass "$name: '$want', $kib KiB (bound $bound)"
		else
			fail "$name" "$kib KiB: over the bound $bound KiB"
		fi
	done
done
