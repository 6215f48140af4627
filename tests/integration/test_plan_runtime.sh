#!/usr/bin/env bash
# plan --runtime tflite-runtime-2.14 against tflite-runtime 2.14.0 itself (PyPI, its own
# venv, builtin kernels without default delegates, as tests/litert/litert_plan.py loads
# it): on the bundled models whose plan differs between 2.14 and LiteRT 2.3, every arena
# tensor's offset and size (kernel temporaries and their numbering included) and the arena
# extent must be 2.14's. Prints "N of M offsets equal" per model, for --runtime
# tflite-runtime-2.14 and, to show the model tells the runtimes apart, for the default
# (litert) plan, which must differ from 2.14's somewhere. docs/runtimes.md names the rules.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

PY=${ARENAPROF_TFLRT214_VENV:-/opt/tflrt214-venv}/bin/python
LITERT_PY=${ARENAPROF_VENV:-/opt/arenaprof-venv}/bin/python
# tflite-runtime ships no schema module: litert_plan.py reads ai-edge-litert's
ARENAPROF_SCHEMA_PY=$("$LITERT_PY" -c 'import ai_edge_litert.schema_py_generated as s
print(s.__file__)' 2>/dev/null)
export ARENAPROF_SCHEMA_PY
if ! "$PY" -c 'import flatbuffers, tflite_runtime' 2>/dev/null ||
   [ "$("$PY" -c 'import tflite_runtime; print(tflite_runtime.__version__)')" != 2.14.0 ]; then
	fail "tflite-runtime 2.14.0 available" "$PY has no tflite_runtime 2.14.0 with" \
		"flatbuffers: run scripts/install-deps"
	exit 1
fi
if [ -z "$ARENAPROF_SCHEMA_PY" ]; then
	fail "the flatbuffer schema" "$LITERT_PY has no ai_edge_litert: run scripts/install-deps"
	exit 1
fi

# equal MODEL.lr MODEL.ap: "N of M" offsets equal, and compare_plan.py's verdict (0 exact)
equal() {
	python3 tests/litert/compare_plan.py "$1" "$2" >"$TMP/cmp" 2>&1
	local rc=$?
	sed -n '1s/.*: \([0-9]*\)\/\([0-9]*\) tensors match.*/\1 of \2/p' "$TMP/cmp"
	return $rc
}

# compare MODEL [--threads N]: 2.14's live plan against both of arenaprof's
compare() {
	local m=$1 b name inv lr ap same diff rc want got
	shift
	b=$(basename "$m" .tflite)
	name="$b${1:+ $*}"
	# a plan split by a dynamic output is whole after the first invoke
	inv=$("$ARENAPROF" plan --delegate none --runtime tflite-runtime-2.14 "$m" "$@" --json |
		python3 -c 'import json, sys
d = json.load(sys.stdin)
print("--invoke" if d["split_after"] or
      d["subgraph_plans"][0]["planned_at"] == "first invoke" else "")')
	lr=$TMP/$b.lr ap=$TMP/$b.ap
	# shellcheck disable=SC2086
	if ! "$PY" tests/litert/litert_plan.py $inv "$@" "$m" >"$lr" 2>"$TMP/err"; then
		fail "$name: tflite-runtime 2.14 plans it" "$(head -2 "$TMP/err")"
		return
	fi
	"$ARENAPROF" plan --delegate none --runtime tflite-runtime-2.14 "$m" "$@" --csv >"$ap"
	same=$(equal "$lr" "$ap")
	rc=$?
	MSG="$same; $(sed -n '2,7p' "$TMP/cmp")" \
		check "$name: every offset tflite-runtime 2.14's ($same, arena $(sed -n \
		's/^# arena_bytes=//p' "$lr") bytes)" test "$rc" = 0
	# the two buffers 2.14 allocates (its SimpleMemoryArena pads the high-water mark)
	want=$(grep '^# planner arena:' "$lr" | grep -o 'buffer_size=[0-9]*' | cut -d= -f2 |
		paste -sd ' ')
	got=$("$ARENAPROF" plan --delegate none --runtime tflite-runtime-2.14 "$m" "$@" --json |
		python3 -c 'import json, sys
d = json.load(sys.stdin)
print(d["arena_buffer_bytes"], d["persistent_buffer_bytes"])')
	MSG="2.14 '$want', arenaprof '$got'" \
		check "$name: 2.14's arena buffers, normal and persistent ($got bytes)" \
		test "$got" = "$want"
	"$ARENAPROF" plan --delegate none "$m" "$@" --csv >"$ap"
	diff=$(equal "$lr" "$ap")
	rc=$?
	MSG="the litert plan is 2.14's ($diff): the model does not tell the runtimes apart" \
		check "$name: the default (litert) plan differs from 2.14's ($diff)" test "$rc" != 0
}

# at 2.14's default num_threads (-1): a float CONV_2D keeps hwcn_weights, no im2col
compare "$MODELS/face_detection_short_range.tflite"
compare "$MODELS/basic_pitch_nmp.tflite"
# at 1 thread: reduce kernels' Init tensors renumber every im2col after them
compare "$MODELS/basic_pitch_nmp.tflite" --threads 1
compare "$MODELS/gen_hybrid_conv.tflite"
compare "$MODELS/gen_dynamic_reshape.tflite"
compare "$MODELS/gen_conv3d.tflite"
compare "$MODELS/gen_rfft2d.tflite"
compare "$MODELS/gen_fc_int4.tflite"
# its CONV_2D divides by zero in 2.14's multithreaded kernel: one thread
compare "$MODELS/gen_open_shapes.tflite" --threads 1

# the plan says which runtime it planned for
got=$("$ARENAPROF" plan --delegate none --runtime tflite-runtime-2.14 "$MODELS/split_concat.tflite" \
	--json | python3 -c 'import json, sys; print(json.load(sys.stdin)["runtime"])')
MSG="runtime '$got'" check "plan --json names the runtime" test "$got" = tflite-runtime-2.14
got=$("$ARENAPROF" plan --delegate none "$MODELS/split_concat.tflite" --json |
	python3 -c 'import json, sys; print(json.load(sys.stdin)["runtime"])')
MSG="runtime '$got'" check "the default runtime is litert" test "$got" = litert
expect_refusal "an unknown --runtime is refused" 2 "tflite-runtime-2.14" \
	"$ARENAPROF" plan --delegate none --runtime tflite-runtime-2.13 "$MODELS/split_concat.tflite"
expect_refusal "tflite-runtime-2.14 on the XNNPACK path is refused" 2 "delegate none" \
	"$ARENAPROF" plan --runtime tflite-runtime-2.14 "$MODELS/split_concat.tflite"
expect_refusal "--runtime with --import is refused" 2 "needs a MODEL" \
	"$ARENAPROF" plan --import "$MODELS/README.md" --runtime litert
