#!/usr/bin/env bash
# arenaprof's tflite plan against the real runtime, twice: LiteRT 2.3.0 (ai-edge-litert)
# and the current nightly (ai-edge-litert-nightly), each from PyPI in its own venv, no
# default delegates. Each plans every bundled model; every arena tensor's offset and size,
# the arena extent and the persistent arena's size must equal arenaprof's. Models that
# plain LiteRT cannot plan (custom operators) must be refused by LiteRT too, and are
# listed with the reason; plan must name what it does not model in them. Prints "N of M
# models exact" per runtime over every model it loads (at one thread); a model is exact
# when every subgraph LiteRT plans (each has arenas of its own: WHILE's cond and body, IF's
# branches, CALL_ONCE's init subgraph) is; a model that is not exact must have its gaps
# named. LITERT_MODELS=DIR runs the same comparison on the
# models in DIR instead (make check-litert-models): models the project has not seen.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh
MODELS=${LITERT_MODELS:-$MODELS}

PY=${ARENAPROF_VENV:-/opt/arenaprof-venv}/bin/python
NPY=${ARENAPROF_NIGHTLY_VENV:-/opt/arenaprof-nightly-venv}/bin/python
runtimes=()
for py in "$PY" "$NPY"; do
	if ! "$py" -c 'import ai_edge_litert' 2>/dev/null; then
		fail "LiteRT available" "$py cannot import ai_edge_litert: run scripts/install-deps"
		continue
	fi
	runtimes+=("$py")
done
[ "${#runtimes[@]}" -gt 0 ] || exit 1

# the not_modelled operators plan --json names for subgraph $2, "#index opcode" each, and
# the caller up its chain that LiteRT runs otherwise, "#index opcode in subgraph S"
not_modelled() {
	"$ARENAPROF" plan --delegate none "$1" "${SHAPE_ARGS[@]}" --subgraph "$2" --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
c = d.get("caller_not_modelled")
print(" ".join(["#%d %s" % (g["index"], g["opcode"]) for g in d["not_modelled"]] +
               (["#%d %s in subgraph %d" % (c["index"], c["opcode"], c["subgraph"])] if c else [])))'
}

# the subgraphs plan plans as LiteRT does (at allocate_tensors or the first invoke; not
# those it never plans, nor those run otherwise, whose caller is named), one line
planned_subgraphs() {
	"$ARENAPROF" plan --delegate none "$1" "${SHAPE_ARGS[@]}" --json | python3 -c 'import json, sys
print(" ".join(str(s["index"]) for s in json.load(sys.stdin)["subgraph_plans"]
               if s["planned_at"] in ("allocate_tensors", "first invoke")))'
}

SHAPE_ARGS=()	# --input-shape K=D,D,... for both tools: a compare with inputs resized
loaded=0 exact=0
compare() {	# compare MODEL THREADS: every subgraph LiteRT plans, all exact or not
	local m=$1 threads=$2 k all=0
	for k in $(planned_subgraphs "$m"); do
		compare_sg "$m" "$threads" "$k" || all=1
	done
	[ "$threads" = 1 ] && [ "$all" = 0 ] && [ "$sg_loaded" = 1 ] && exact=$((exact + 1))
	[ "$threads" = 1 ] && [ "$sg_loaded" = 1 ] && loaded=$((loaded + 1))
	return 0
}

sg_loaded=0
# compare_sg MODEL THREADS K, with the runtime in $RT_PY, named $RT: 0 when exact
compare_sg() {
	local m=$1 threads=$2 k=$3 name rc gaps exact_sg=1 invoke
	name="$RT: $(basename "$m" .tflite) threads=$threads${SHAPE_ARGS[*]:+ ${SHAPE_ARGS[*]}}"
	[ "$k" = 0 ] || name="$name subgraph $k"
	[ "$k" = 0 ] && sg_loaded=0
	# a plan split by dynamic outputs is whole only after the first invoke, and a
	# subgraph run after a dynamic output is planned in it
	invoke=$("$ARENAPROF" plan --delegate none "$m" "${SHAPE_ARGS[@]}" --subgraph "$k" --json | python3 -c 'import json, sys
d = json.load(sys.stdin)
late = d["subgraph_plans"][int(sys.argv[1])]["planned_at"] == "first invoke"
print("--invoke" if d["split_after"] or late else "")' "$k")
	# shellcheck disable=SC2086
	"$RT_PY" tests/litert/litert_plan.py --lifetimes --threads "$threads" $invoke \
		"${SHAPE_ARGS[@]}" --subgraph "$k" "$m" >"$TMP/lr.csv" 2>"$TMP/lr.err"
	rc=$?
	gaps=$(not_modelled "$m" "$k")
	if [ "$rc" -eq 3 ]; then
		# not comparable: LiteRT itself cannot plan it (checked, not assumed)
		pass "$name: not comparable in plain LiteRT: $(head -1 "$TMP/lr.err" |
			sed 's/^not comparable: //')"
		MSG="plan --json not_modelled is empty" \
			check "$name: plan names what it does not model ($gaps)" test -n "$gaps"
		return 1
	fi
	if [ "$rc" -ne 0 ]; then
		fail "$name: LiteRT plan" "litert_plan.py exit $rc: $(head -3 "$TMP/lr.err")"
		return 1
	fi
	[ "$k" = 0 ] && sg_loaded=1
	"$ARENAPROF" plan --delegate none "$m" "${SHAPE_ARGS[@]}" --threads "$threads" --subgraph "$k" --csv \
		>"$TMP/ap.csv"
	python3 tests/litert/compare_plan.py "$TMP/lr.csv" "$TMP/ap.csv" >"$TMP/cmp" 2>&1
	rc=$?
	echo "match: $(head -1 "$TMP/cmp")"
	if [ "$rc" -eq 0 ]; then
		pass "$name: every arena tensor at LiteRT's offset"
		exact_sg=0
	else
		fail "$name: every arena tensor at LiteRT's offset" "$(head -8 "$TMP/cmp")"
		MSG="a plan that differs from LiteRT's names no operator it does not model" \
			check "$name: plan names why it is not LiteRT's ($gaps)" test -n "$gaps"
	fi
	# the persistent arena (dequantized and densified weights, hwcn_weights, row_sums,
	# variables, resource handles): LiteRT's high-water mark against arenaprof's
	want=$(sed -n 's/.*persistent arena: high_water_mark=\([0-9]*\).*/\1/p' "$TMP/lr.csv")
	got=$("$ARENAPROF" plan --delegate none "$m" "${SHAPE_ARGS[@]}" --threads "$threads" --subgraph "$k" --json |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["persistent_bytes"])')
	MSG="LiteRT '$want', arenaprof $got" \
		check "$name: persistent arena of LiteRT's size ($got bytes)" test "$got" = "$want"
	# LiteRT's own measurement, read back through plan --import, gives its arena size
	grep -v '^#' "$TMP/lr.csv" | sed 's/,2147483647$/,end/' >"$TMP/lr-import.csv"
	want=$(sed -n 's/^# arena_bytes=//p' "$TMP/lr.csv")
	if [ "$(wc -l <"$TMP/lr-import.csv")" = 1 ]; then	# the header alone: nothing to import
		MSG="no arena tensor, yet arena_bytes=$want" \
			check "$name: an empty normal arena (nothing to import)" test "$want" = 0
		return $exact_sg
	fi
	got=$("$ARENAPROF" plan --import "$TMP/lr-import.csv" --json 2>/dev/null |
		python3 -c 'import json,sys; print(json.load(sys.stdin)["arena_bytes"])')
	MSG="import says $got, LiteRT $want" \
		check "$name: LiteRT's measured plan imports with its arena size" \
		test "$got" = "$want"
	return $exact_sg
}

# the generated models are what tests/litert/gen_models.py writes (same plans; the
# weights' bytes may follow numpy's and flatbuffers' versions)
mkdir "$TMP/gen"
if [ -n "$LITERT_MODELS" ]; then
	:	# not the bundled models
elif "$PY" tests/litert/gen_models.py "$TMP/gen" 2>"$TMP/gen.err"; then
	for g in "$TMP"/gen/*.tflite; do
		m=$MODELS/$(basename "$g")
		"$ARENAPROF" plan --delegate none "$g" --csv >"$TMP/gen.csv" 2>&1
		"$ARENAPROF" plan --delegate none "$m" --csv >"$TMP/kept.csv" 2>&1
		MSG="$m plans differently from what gen_models.py writes: regenerate it" \
			check "$(basename "$g"): gen_models.py still writes its plan" \
			cmp -s "$TMP/gen.csv" "$TMP/kept.csv"
	done
else
	fail "gen_models.py writes the generated models" "$(head -3 "$TMP/gen.err")"
fi

for RT_PY in "${runtimes[@]}"; do
	RT=$("$RT_PY" -c 'import importlib.metadata as m
for d in ("ai-edge-litert", "ai-edge-litert-nightly"):
    try:
        print("LiteRT %s (%s)" % (m.version(d), d)); break
    except m.PackageNotFoundError:
        pass')
	loaded=0 exact=0
	for m in "$MODELS"/*.tflite; do
		compare "$m" 1
	done
	echo "$exact of $loaded models exact, $RT"
	MSG="$exact of $loaded" check "$RT: every model it loads is exact ($exact of $loaded)" \
		test "$exact" = "$loaded" -a "$loaded" -gt 0
	[ -z "$LITERT_MODELS" ] || continue
	# float CONV_2D with more than one thread: hwcn_weights in the persistent arena
	compare "$MODELS/face_detection_short_range.tflite" 4
	# sparse weights with more than one thread: densified filters are not arena tensors
	compare "$MODELS/face_detection_full_range_sparse.tflite" 4
	# float16 weights: the dequantized filter is persistent, so CONV_2D takes hwcn_weights
	compare "$MODELS/gen_float16_weights.tflite" 4
	# hybrid CONV_2D is never multithreaded: the same temporaries at 4 threads
	compare "$MODELS/gen_hybrid_conv.tflite" 4
	# ADD_N's scratch grows with the threads
	compare "$MODELS/gen_add_n.tflite" 4
	# an input resized past the file's placeholder: every open shape inferred from it
	SHAPE_ARGS=(--input-shape 0=1,20,8)
	compare "$MODELS/gen_open_shapes.tflite" 1
	SHAPE_ARGS=()
	# what plan says is planned at the first invoke, LiteRT has not placed after
	# allocate_tensors (a subgraph run after a dynamic output)
	for pair in gen_while_late:2 gen_if_late:1 gen_composite_late:1 gen_case_late:2; do
		m=$MODELS/${pair%%:*}.tflite k=${pair#*:}
		at=$("$ARENAPROF" plan --delegate none "$m" --json | python3 -c 'import json, sys
print(json.load(sys.stdin)["subgraph_plans"][int(sys.argv[1])]["planned_at"])' "$k")
		"$RT_PY" tests/litert/litert_plan.py --subgraph "$k" "$m" >"$TMP/lr.csv" 2>&1
		unplaced=$(grep -c 'not placed by allocate_tensors' "$TMP/lr.csv")
		MSG="plan: '$at'; LiteRT's notes of tensors not placed: $unplaced" \
			check "$RT: ${pair%%:*} subgraph $k planned at the first invoke" \
			test "$at" = "first invoke" -a "$unplaced" = 1
	done
done
[ -z "$LITERT_MODELS" ] || exit 0
skip "LiteRT PrintInterpreterState through --import" \
	"the ai-edge-litert wheel does not export PrintInterpreterState (no symbol in its .so files); the parser is tested on fixtures in test_plan_import"
