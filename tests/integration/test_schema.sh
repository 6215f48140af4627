#!/usr/bin/env bash
# schema_version in every JSON arenaprof writes: plan (one model and several), report,
# export (json; chrome in its otherData), diff, check, record --json, top --json; each the
# value its man page gives. run --json creates cgroups: the VM suite runs it (test_vm.sh).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

MI=$BUILD/mininfer
MV1=$MODELS/mobilenet_v1_0.25_128_quant.tflite
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite

# has NAME WANT FILE [PATH]: the JSON in FILE (one object, or its last line: JSON lines,
# or text then JSON) has schema_version WANT first (at PATH, a subscript: "['otherData']")
has() {
	local name=$1 want=$2 file=$3 at=${4:-}
	MSG="$(head -c 200 "$file")"
	check "$name: schema_version $want" python3 -c "import json, sys
lines = [l for l in open(sys.argv[1]) if l.strip()]
try:
    d = json.loads(''.join(lines))
except ValueError:
    d = json.loads(lines[-1])	# JSON lines, or a JSON last line after text
sys.exit(not (d$at['schema_version'] == $2 and list(d$at)[0] == 'schema_version'))" "$file"
}

"$ARENAPROF" plan "$MV1" --json >"$TMP/plan.json" 2>&1
has "plan --json" 2 "$TMP/plan.json"
"$ARENAPROF" plan "$MV1" "$MV2" --json >"$TMP/plans.json" 2>&1
has "plan of two models --json" 2 "$TMP/plans.json"
"$ARENAPROF" diff "$MV1" "$MV2" --json >"$TMP/diff.json" 2>&1
has "diff --json" 1 "$TMP/diff.json"
"$ARENAPROF" check --json >"$TMP/check.json" 2>/dev/null
has "check --json" 1 "$TMP/check.json"

if [ "$(id -u)" != 0 ]; then
	skip "schema_version of record, report, export, top" "needs root (BPF) to record"
	exit 0
fi
"$ARENAPROF" record -o "$TMP/t.trace" --json --run-probe "$MI:mininfer_invoke" -- \
	"$MI" "$MV1" --runs 3 >"$TMP/record.out" 2>"$TMP/record.err" ||
	fail "record" "$(tail -2 "$TMP/record.err")"
has "record --json (its last line)" 1 "$TMP/record.out"
"$ARENAPROF" report "$TMP/t.trace" --plan "$MV1" --json >"$TMP/report.json" 2>&1
has "report --json" 2 "$TMP/report.json"
"$ARENAPROF" export "$TMP/t.trace" --plan "$MV1" --format json -o "$TMP/export.json" 2>&1
has "export --format json" 2 "$TMP/export.json"
"$ARENAPROF" export "$TMP/t.trace" --plan "$MV1" --format chrome -o "$TMP/chrome.json" 2>&1
has "export --format chrome, otherData" 1 "$TMP/chrome.json" "['otherData']"
"$ARENAPROF" diff "$TMP/t.trace" "$TMP/t.trace" --json >"$TMP/difft.json" 2>&1
has "diff of traces --json" 1 "$TMP/difft.json"
sleep 5 &
spid=$!
"$ARENAPROF" top -p "$spid" --json -n 1 --interval 200 >"$TMP/top.jsonl" 2>"$TMP/top.err"
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
has "top --json (a JSON line)" 1 "$TMP/top.jsonl"
