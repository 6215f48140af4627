#!/usr/bin/env bash
# arenaprof's tflite plan against the real runtime: LiteRT (ai-edge-litert from PyPI,
# no default delegates) plans every bundled model; every arena tensor's offset and size
# and the arena extent must equal arenaprof's. Models that plain LiteRT cannot plan
# (custom operators) must be refused by LiteRT too, and are listed with the reason.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

PY=${ARENAPROF_VENV:-/opt/arenaprof-venv}/bin/python
if ! "$PY" -c 'import ai_edge_litert' 2>/dev/null; then
	fail "LiteRT available" "$PY cannot import ai_edge_litert: run scripts/install-deps"
	exit 1
fi

compare() {	# compare MODEL THREADS
	local m=$1 threads=$2 name rc
	name="$(basename "$m" .tflite) threads=$threads"
	"$PY" tests/litert/litert_plan.py --lifetimes --threads "$threads" "$m" >"$TMP/lr.csv" 2>"$TMP/lr.err"
	rc=$?
	if [ "$rc" -eq 3 ]; then
		# not comparable: LiteRT itself cannot plan it (checked, not assumed)
		pass "$name: not comparable in plain LiteRT: $(head -1 "$TMP/lr.err" |
			sed 's/^not comparable: //')"
		return
	fi
	if [ "$rc" -ne 0 ]; then
		fail "$name: LiteRT plan" "litert_plan.py exit $rc: $(head -3 "$TMP/lr.err")"
		return
	fi
	"$ARENAPROF" plan "$m" --threads "$threads" --csv >"$TMP/ap.csv"
	python3 tests/litert/compare_plan.py "$TMP/lr.csv" "$TMP/ap.csv" >"$TMP/cmp" 2>&1
	rc=$?
	echo "match: $(head -1 "$TMP/cmp")"
	if [ "$rc" -eq 0 ]; then
		pass "$name: every arena tensor at LiteRT's offset"
	else
		fail "$name: every arena tensor at LiteRT's offset" "$(head -8 "$TMP/cmp")"
	fi
	# LiteRT's own measurement, read back through plan --import, gives its arena size
	grep -v '^#' "$TMP/lr.csv" | sed 's/,2147483647$/,end/' >"$TMP/lr-import.csv"
	want=$(sed -n 's/^# arena_bytes=//p' "$TMP/lr.csv")
	got=$("$ARENAPROF" plan --import "$TMP/lr-import.csv" --json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["arena_bytes"])')
	MSG="import says $got, LiteRT $want" \
		check "$name: LiteRT's measured plan imports with its arena size" \
		test "$got" = "$want"
}

for m in "$MODELS"/*.tflite; do
	compare "$m" 1
done
# float CONV_2D with more than one thread: hwcn_weights in the persistent arena
compare "$MODELS/face_detection_short_range.tflite" 4
skip "LiteRT PrintInterpreterState through --import" \
	"the ai-edge-litert wheel does not export PrintInterpreterState (no symbol in its .so files); the parser is tested on fixtures in test_plan_import"
