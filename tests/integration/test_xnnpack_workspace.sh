#!/usr/bin/env bash
# plan's workspace offsets against XNNPACK's own memory plan: for every bundled model, each
# value of `arenaprof plan --json M`'s xnnpack.workspace_values against the record XNNPACK's
# planner made for it in LiteRT 2.3.0 (the oracle, tests/litert/xnnpack/xnn_workspace_truth.py:
# bpftrace uprobes read the planner's usage records and the delegate's tensor -> value ids).
# Values are matched in the shown subgraph's partitions: a TFLite tensor's by its index, the
# others (values a node or rewrite made, an operator's own workspace) in id order within
# their partition. Each is a PASS when its offset is XNNPACK's, else a FAIL naming model,
# value, planned and measured offset. A model LiteRT refuses, one the oracle could not read
# whole, or one whose plan says not_modelled is a counted SKIP with the reason (the last
# still prints how many of its values agree). XNN_MODELS="A.tflite B.tflite": only those.
. tests/lib.sh
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
PY=$venv/bin/python
ORACLE=tests/litert/xnnpack/xnn_workspace_truth.py

. tests/litert/xnnpack/oracle_ready.sh
oracle_ready "xnnpack workspace" || exit 0

# shellcheck disable=SC2206
models=(${XNN_MODELS:-$MODELS/*.tflite})
for m in "${models[@]}"; do
	name=$(basename "$m" .tflite)
	"$ARENAPROF" plan --json "$m" >"$TMP/$name.plan.json" 2>"$TMP/$name.plan.err" ||
		fail "$name: plan --json" "exit $?: $(head -1 "$TMP/$name.plan.err")"
done
t0=$(date +%s)
if ! "$PY" "$ORACLE" --out "$TMP/truth.json" "${models[@]}" >"$TMP/oracle.log" 2>&1; then
	fail "xnnpack workspace: the oracle ran" "$(tail -3 "$TMP/oracle.log" | tr '\n' ' ')"
	exit 0
fi
echo "INFO: the oracle read ${#models[@]} models' plans in $(($(date +%s) - t0)) s"

python3 tests/litert/xnnpack/xnn_workspace_cmp.py "$TMP" "$TMP/truth.json" "${models[@]}"
