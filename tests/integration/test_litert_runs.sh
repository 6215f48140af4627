#!/usr/bin/env bash
# Every run counted on LiteRT's default CPU path (issue 25, item 1), with no --run-probe:
# record finds the run entry points by itself. Ground truth is each workload's own count:
# scripts/litert-run prints 'done runs N', litert-benchmark writes num_runs and
# num_warmup_runs to its --result_json, the XNNPACK program prints 'done runs N'.
#   - the Python Interpreter with the default resolver (XNNPACK), and CompiledModel's
#     run_by_index (litert-run --api compiled): every run, and --runs stops the recording
#     (the workload finishes), --kill-at-runs the workload;
#   - litert-benchmark (CompiledModel's run_by_name): its warm-ups and its runs, and under
#     --runs it still writes its results;
#   - both APIs in one process: CompiledModel's Run calls Interpreter::Invoke, and a run
#     is counted once (the outermost call on a thread);
#   - a program that drives XNNPACK itself (Debian's libXNNPACK): xnn_invoke_runtime.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

AP=$ARENAPROF
LR=scripts/litert-run
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
MV1=$MODELS/mobilenet_v1_0.25_128_quant.tflite
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
RUNS=${LITERT_RUNS:-2000}

if [ "$(id -u)" != 0 ]; then
	fail "litert runs" "needs root (BPF)"
	exit 0
fi
if ! "$venv/bin/python" -c 'import numpy, ai_edge_litert' 2>/dev/null; then
	fail "litert runs" "no LiteRT in $venv (run scripts/install-deps)"
	exit 0
fi

j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# counted NAME TRACE WANT: the trace's runs (report --json) are WANT
counted() {
	"$AP" report "$2" --json >"$2.json" 2>"$2.rerr"
	MSG="report: $(head -2 "$2.rerr") runs $(j "$2.json" "d['runs']" 2>&1), begun \
$(j "$2.json" "d['runs_begun']" 2>&1)"
	check "$1" [ "$(j "$2.json" "(d['runs'], d['runs_begun'])" 2>&1)" = "($3, $3)" ]
}

# runs_of NAME API: litert-run's N runs counted, then --runs stopping the recording of a
# longer one, which finishes, and --kill-at-runs stopping it
runs_of() {
	local name=$1 api=$2 t=$TMP/$1 n
	"$AP" record -o "$t.trace" -- "$LR" "$MV1" --delegate xnnpack --api "$api" \
		--runs 300 >"$t.out" 2>"$t.err"
	n=$(sed -n 's/^done runs //p' "$t.out")
	MSG="the workload printed '$n'; record: $(tail -2 "$t.err")"
	check "$name: the workload ran 300" [ "$n" = 300 ]
	counted "$name: record counted its 300 runs" "$t.trace" 300
	"$AP" record -o "$t-stop.trace" --runs "$RUNS" -- "$LR" "$MV1" --delegate xnnpack \
		--api "$api" --runs $((RUNS + 100)) >"$t-stop.out" 2>"$t-stop.err"
	rc=$?
	counted "$name: record --runs $RUNS stopped recording after $RUNS" "$t-stop.trace" "$RUNS"
	MSG="exit $rc; the workload printed: $(cat "$t-stop.out")"
	check "$name: ... the workload ran to its own end, $((RUNS + 100)) runs, and record exits 0" \
		[ "$rc:$(sed -n 's/^done runs //p' "$t-stop.out")" = "0:$((RUNS + 100))" ]
	MSG="$(j "$t-stop.trace.json" "d['end']['reason']")"
	check "$name: ... and says why it ended" \
		[ "$MSG" = "the requested runs completed" ]
	"$AP" record -o "$t-kill.trace" --runs 50 --kill-at-runs -- "$LR" "$MV1" --delegate \
		xnnpack --api "$api" --runs 100000 >"$t-kill.out" 2>"$t-kill.err"
	rc=$?
	counted "$name: record --runs 50 --kill-at-runs stopped it after 50" "$t-kill.trace" 50
	MSG="exit $rc; the workload printed: $(cat "$t-kill.out")"
	check "$name: ... before the workload's own end, and record exits 0" \
		[ "$rc:$(grep -c '^done runs' "$t-kill.out")" = "0:0" ]
}
runs_of "Interpreter, default resolver" interpreter
runs_of "CompiledModel run_by_index" compiled
MSG="$(grep 'run probe' "$TMP/CompiledModel run_by_index.err")"
check "CompiledModel: record names the entry point it found" \
	grep -q "run probe: .*libpywrap_litert_common.so:_ZN20LiteRtCompiledModelT3Run.*(run entry point found automatically: CompiledModel" \
	"$TMP/CompiledModel run_by_index.err"

# litert-benchmark: 5 warm-ups are runs too
t=$TMP/bench
"$AP" record -o "$t.trace" -- "$venv/bin/litert-benchmark" --model "$MV2" --num_runs "$RUNS" \
	--warmup_runs 5 --result_json "$t.res.json" >"$t.out" 2>"$t.err"
want=$(j "$t.res.json" "d['latency']['num_runs'] + d['latency']['num_warmup_runs']" 2>&1)
MSG="litert-benchmark's result: $want"
check "litert-benchmark: it ran $RUNS runs and 5 warm-ups" [ "$want" = $((RUNS + 5)) ]
counted "litert-benchmark: record counted all $((RUNS + 5))" "$t.trace" $((RUNS + 5))
MSG="$(grep '^runs' <("$AP" report "$t.trace"))"
check "litert-benchmark: report names the APIs found" \
	grep -q "run entry points found automatically (a run is the outermost call): .*CompiledModel" <<<"$MSG"
# --runs 100 of a benchmark of 300: the recording stops at 100, the benchmark goes on and
# writes its results (what record killed before)
"$AP" record -o "$t-stop.trace" --runs 100 -- "$venv/bin/litert-benchmark" --model "$MV2" \
	--num_runs 300 --warmup_runs 5 --result_json "$t-stop.res.json" >"$t-stop.out" \
	2>"$t-stop.err"
rc=$?
counted "litert-benchmark: record --runs 100 stopped recording after 100" "$t-stop.trace" 100
want=$(j "$t-stop.res.json" "d['latency']['num_runs']" 2>&1)
MSG="exit $rc; litert-benchmark's result: $want; $(tail -2 "$t-stop.err")"
check "litert-benchmark: ... it ran its 300 runs and wrote its results, record exits 0" \
	[ "$rc:$want" = "0:300" ]

# both APIs in one process: 3 invoke()s and 4 run_by_index, 7 runs, none twice
t=$TMP/both
cat >"$t.py" <<'PY'
import sys
import numpy as np
from ai_edge_litert.interpreter import Interpreter
from ai_edge_litert.compiled_model import CompiledModel
it = Interpreter(model_path=sys.argv[1])
it.allocate_tensors()
for _ in range(3):
    it.invoke()
cm = CompiledModel.from_file(sys.argv[1])
ins, outs = cm.create_input_buffers(0), cm.create_output_buffers(0)
for _ in range(4):
    cm.run_by_index(0, ins, outs)
print("done runs 7")
PY
"$AP" record -o "$t.trace" -- "$venv/bin/python" "$t.py" "$MV1" >"$t.out" 2>"$t.err"
MSG="$(cat "$t.out") $(tail -2 "$t.err")"
check "Interpreter and CompiledModel in one process: the script ran" grep -q "done runs 7" "$t.out"
counted "Interpreter and CompiledModel in one process: 7 runs, none counted twice" "$t.trace" 7

# a program on XNNPACK itself, no LiteRT
t=$TMP/xnn
if cc -std=gnu11 -Wall -Wextra -Werror -O1 tests/litert/xnnpack/xnn_direct.c -lXNNPACK \
	-o "$t.bin" 2>"$t.cc"; then
	# 500 ms before its first run, as a program loading its model: the probe is attached
	# when the recorder sees libXNNPACK mapped, at most an --interval (100 ms) in
	"$AP" record -o "$t.trace" -- "$t.bin" 777 500 >"$t.out" 2>"$t.err"
	MSG="$(cat "$t.out") $(grep 'run probe' "$t.err")"
	check "XNNPACK alone: the run probe is xnn_invoke_runtime" \
		grep -q "run probe: .*libXNNPACK.so.*:xnn_invoke_runtime" "$t.err"
	counted "XNNPACK alone: its 777 runs counted" "$t.trace" 777
else
	fail "XNNPACK alone: the fixture built" "$(head -1 "$t.cc") (scripts/install-deps \
installs libxnnpack-dev)"
fi
