#!/usr/bin/env bash
# plan --runtime tflm against TFLite Micro itself: tflite-micro's Python interpreter (its
# own venv, scripts/install-deps) allocates each bundled model, tests/models/*.tflite and
# TFLM's own in tests/models/tflm/, and its RecordingMicroAllocator says the arena head
# it used (tests/tflm/tflm_arena.py). For every model TFLM loads, the head of
# `plan --runtime tflm --json` (arena_bytes) must be TFLM's to the byte, unless the model
# is listed in KNOWN below, whose reason is printed as a counted SKIP. Prints how many
# are exact, and how many `--strategy micro` (TFLM's order on LiteRT's graph, a subgraph
# at a time) gets right, to show what the runtime adds. docs/runtimes.md names the rules.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

PY=${ARENAPROF_TFLM_VENV:-/opt/tflm-venv}/bin/python
if ! "$PY" -c 'import tflite_micro' 2>/dev/null; then
	fail "tflite-micro available" "$PY has no tflite_micro: run scripts/install-deps"
	exit 1
fi

# models whose head arenaprof does not reproduce, with the reason: none at present
declare -A KNOWN=()

loaded=0 exact=0 micro=0 refused=0
for m in "$MODELS"/*.tflite "$MODELS"/tflm/*.tflite; do
	b=${m#"$MODELS"/}
	if ! truth=$("$PY" tests/tflm/tflm_arena.py "$m" 2>"$TMP/err"); then
		refused=$((refused + 1))	# not a model of this runtime
		continue
	fi
	loaded=$((loaded + 1))
	want=$(sed -n 's/^head=\([0-9]*\) .*/\1/p' <<<"$truth")
	got=$("$ARENAPROF" plan --runtime tflm "$m" --json 2>"$TMP/aerr" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["arena_bytes"])' \
		2>/dev/null)
	old=$("$ARENAPROF" plan --delegate none --strategy micro "$m" --json 2>/dev/null |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["arena_bytes"])' \
		2>/dev/null)
	[ "$old" = "$want" ] && micro=$((micro + 1))
	if [ -n "${KNOWN[$b]:-}" ]; then
		skip "$b: TFLM's head $want bytes, arenaprof's ${got:-none}" "${KNOWN[$b]}"
		continue
	fi
	[ "$got" = "$want" ] && exact=$((exact + 1))
	MSG="TFLM $want bytes, arenaprof '${got:-$(head -1 "$TMP/aerr")}'" \
		check "$b: the head is TFLM's ($want bytes)" test "$got" = "$want"
done
echo "plan --runtime tflm: $exact of $loaded models TFLM loads exact in the head" \
	"(--strategy micro: $micro; $refused models TFLM refuses, not compared)"
# the comparison is of something: TFLM loads most of the bundled models' kinds
MSG="only $loaded models loaded" check "TFLM loads at least 25 of the models" \
	test "$loaded" -ge 25

# what the plan says of itself
j=$("$ARENAPROF" plan --runtime tflm "$MODELS/tflm/dtln_noise_suppression.tflite" --json)
got=$(python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(d["runtime"], d["strategy"], sum(t["kind"] == "temporary" for t in d["tensor_plan"]))' "$j")
MSG="'$got'" check "the plan names the runtime, and dtln's 8 LSTM gate buffers" \
	test "$got" = "tflm tflm 8"

M=$MODELS/gen_add_n.tflite
expect_refusal "--runtime tflm refuses the XNNPACK delegate" 2 "no XNNPACK" \
	"$ARENAPROF" plan --runtime tflm --delegate xnnpack "$M"
expect_refusal "--runtime tflm refuses --strategy" 2 "GreedyMemoryPlanner" \
	"$ARENAPROF" plan --runtime tflm --strategy micro "$M"
expect_refusal "--runtime tflm refuses --subgraph" 2 "one arena" \
	"$ARENAPROF" plan --runtime tflm --subgraph 0 "$M"
expect_refusal "--runtime tflm refuses --input-shape" 2 "file's shapes" \
	"$ARENAPROF" plan --runtime tflm --input-shape 1,2 "$M"
expect_refusal "--runtime tflm refuses LiteRT's --threads" 2 "LiteRT's" \
	"$ARENAPROF" plan --runtime tflm --threads 2 "$M"
