#!/usr/bin/env bash
# The answer a board engineer acts on, for the whole process: a real LiteRT process
# (scripts/litert-run, MobileNet v2 int8, its default path: the XNNPACK delegate) recorded,
# then `report --budget` judges what it measured and `plan --baseline` takes the runtime's
# cost from the same trace. Ground truth: the /proc samples the trace stored (report
# --json "samples": the maxima of VmHWM, Pss_Anon, Pss_Shmem), Pss_Anon read a second way
# through the Chrome export's counters, and the run times of report --json "run_times".
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

AP=$ARENAPROF
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
MIB=1048576

if [ "$(id -u)" != 0 ]; then
	skip "budget" "needs root (BPF)"
	exit 0
fi
if ! "$venv/bin/python" -c 'import numpy, ai_edge_litert' 2>/dev/null; then
	skip "budget" "no LiteRT in $venv (run scripts/install-deps)"
	exit 0
fi

# j FILE EXPR: a value of a JSON file (python expression over d)
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

T=$TMP/mv2.trace
"$AP" record -o "$T" -- scripts/litert-run "$MV2" --runs 50 --delegate xnnpack \
	>"$TMP/rec.out" 2>"$TMP/rec.err"
rc=$?
MSG="exit $rc: $(tail -3 "$TMP/rec.err")"
check "record of litert-run --runs 50 --delegate xnnpack exits 0" [ "$rc" = 0 ]
[ "$rc" = 0 ] || exit 0

# --- the ground truth: the samples' maxima, Pss_Anon also from the export's counters
"$AP" report "$T" --json >"$TMP/plain.json" 2>"$TMP/err"
read -r n hwm anon shmem cgpeak < <(j "$TMP/plain.json" "d['samples']['count'],
	d['samples']['vmhwm_max_bytes'], d['samples']['pss_anon_max_bytes'],
	d['samples']['pss_shmem_max_bytes'], d['samples']['memory_peak_max_bytes']" | tr -d '(),')
MSG="count $n VmHWM $hwm Pss_Anon $anon" \
	check "the trace holds /proc samples of the process" \
	sh -c '[ "$1" -ge 3 ] && [ "$2" -gt 0 ] && [ "$3" -gt 0 ]' _ "$n" "$hwm" "$anon"
"$AP" export "$T" --format chrome -o "$TMP/chrome.json" 2>>"$TMP/err"
exp_anon=$(j "$TMP/chrome.json" "max(e['args']['bytes'] for e in
	(d['traceEvents'] if isinstance(d, dict) else d)
	if e.get('ph') == 'C' and e.get('name') == 'Pss_Anon')")
MSG="report $anon, export $exp_anon" \
	check "Pss_Anon max: report --json's samples equal the export's counters" \
	test "$anon" = "$exp_anon"
nonrecl=$((anon + shmem))
peak=$hwm
if [ "$cgpeak" != None ] && [ "$cgpeak" -gt "$hwm" ]; then
	peak=$cgpeak
fi
[ "$nonrecl" -gt "$peak" ] && peak=$nonrecl	# never: a sample's Pss_Anon <= its VmHWM
MSG="non-reclaimable $nonrecl, peak $peak" \
	check "the LiteRT process: non-reclaimable part below its peak, over 8 MiB" \
	sh -c '[ "$1" -lt "$2" ] && [ "$1" -gt $((8 * 1048576)) ]' _ "$nonrecl" "$peak"

# budget_json NAME BUDGET WANT_RC PY-EXPR: report --budget --json, its exit and a check of
# its "budget" object (b) against the truth
budget_json() {
	local name=$1 budget=$2 want=$3 expr=$4 rc r
	"$AP" report "$T" --plan "$MV2" --budget "$budget" --json >"$TMP/b.json" \
		2>"$TMP/b.err"
	rc=$?
	MSG="exit $rc (want $want): $(head -2 "$TMP/b.err")"
	check "$name: exit $want" [ "$rc" = "$want" ]
	r=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); b = d["budget"]
ok = eval("(" + sys.argv[2] + ")")
print("ok" if ok else json.dumps(b))' "$TMP/b.json" "$expr" 2>&1)
	MSG="$r" check "$name: JSON budget" test "$r" = ok
}

# the fields are the samples' maxima, whatever the budget
same="b['peak_bytes'] == $peak and b['nonreclaimable_bytes'] == $nonrecl and
	b['reclaimable_bytes'] == $peak - $nonrecl and b['budget_bytes'] == BUDGET and
	b['peak_source'] == ('vmhwm' if $peak == $hwm else 'memory.peak') and
	b['nonreclaimable_source'] == 'pss'"
below=$((nonrecl - MIB))
budget_json "budget 1 MiB below the non-reclaimable" "$below" 3 \
	"${same//BUDGET/$below} and b['fits'] is False and b['decided_by'] == 'nonreclaimable'
	 and b['margin_bytes'] == $below - $nonrecl"
between=$(((nonrecl + peak) / 2))
budget_json "budget between the non-reclaimable and the peak" "$between" 3 \
	"${same//BUDGET/$between} and b['fits'] is False and b['decided_by'] == 'peak'
	 and b['margin_bytes'] == $between - $peak"
above=$((peak + MIB))
budget_json "budget 1 MiB above the peak" "$above" 0 \
	"${same//BUDGET/$above} and b['fits'] is True and b['decided_by'] == 'peak' and
	 b['margin_bytes'] == $above - $peak"

# --format openmetrics with --budget: the budget, fits, the margin and the non-reclaimable
# part, as the strict OpenMetrics parser reads them (tests/py/check_openmetrics.py), equal
# to the samples' truth; the exit status is the text's and JSON's
PY=$venv/bin/python	# prometheus-client (scripts/install-deps)
VERSION=$("$AP" --version | sed 's/^arenaprof //')
om_budget() {	# om_budget NAME BUDGET WANT_RC EXPECT-JSON
	local rc
	"$AP" report "$T" --plan "$MV2" --budget "$2" --format openmetrics >"$TMP/om.txt" \
		2>"$TMP/om.err"
	rc=$?
	MSG="exit $rc: $(head -2 "$TMP/om.err")" check "openmetrics, $1: exit $3" [ "$rc" = "$3" ]
	"$PY" tests/py/check_openmetrics.py "$TMP/om.txt" "$VERSION" "openmetrics, $1: " \
		--model "$(basename "$MV2")" --expect "$4"
}
om_budget "budget below the non-reclaimable" "$below" 3 "{\"arenaprof_budget_bytes\": $below,
	\"arenaprof_budget_fits\": 0, \"arenaprof_budget_margin_bytes\": $((below - nonrecl)),
	\"arenaprof_nonreclaimable_bytes\": $nonrecl}"
om_budget "budget above the peak" "$above" 0 "{\"arenaprof_budget_bytes\": $above,
	\"arenaprof_budget_fits\": 1, \"arenaprof_budget_margin_bytes\": $((above - peak))}"
"$AP" report "$T" --plan "$MV2" --format openmetrics >"$TMP/om-none.txt" 2>/dev/null
MSG="$(grep -c budget "$TMP/om-none.txt") budget lines"
check "openmetrics without --budget: no budget metric" \
	sh -c '! grep -q "arenaprof_budget" "$1"' _ "$TMP/om-none.txt"

# the model's share: the plan's two halves (plan --json), null without --plan
"$AP" plan "$MV2" --json >"$TMP/plan.json"
model=$(j "$TMP/plan.json" "d['anonymous_bytes'] + d['reclaimable_bytes']")
got=$(j "$TMP/b.json" "d['budget']['model_bytes']")
MSG="report $got, plan $model" check "model_bytes: the plan's two halves" test "$got" = "$model"
"$AP" report "$T" --budget "$above" --json >"$TMP/nomodel.json" 2>/dev/null
got=$(j "$TMP/nomodel.json" "d['budget']['model_bytes']")
MSG="$got" check "model_bytes: null without --plan" test "$got" = None
got=$(j "$TMP/plain.json" "'budget' in d")
MSG="$got" check "no budget object without --budget" test "$got" = False

# --- the text: the verdict first, the latency within the first 4 lines
"$AP" report "$T" --plan "$MV2" --budget "$below" >"$TMP/below.txt" 2>/dev/null
"$AP" report "$T" --plan "$MV2" --budget "$between" >"$TMP/between.txt" 2>/dev/null
"$AP" report "$T" --plan "$MV2" --budget "$above" >"$TMP/above.txt" 2>/dev/null
MSG="$(head -1 "$TMP/below.txt")"
check "text, below: the first line says DOES NOT FIT, decided by the non-reclaimable part" \
	grep -q "^verdict    DOES NOT FIT .*: the non-reclaimable memory alone, " \
	<(head -1 "$TMP/below.txt")
MSG="$(head -1 "$TMP/between.txt")"
check "text, between: DOES NOT FIT by the peak, the reclaimable part said" \
	grep -q "^verdict    DOES NOT FIT .*: the peak, .* over; .* the reclaimable " \
	<(head -1 "$TMP/between.txt")
MSG="$(head -1 "$TMP/above.txt")"
check "text, above: the first line says fits" grep -q "^verdict    fits " \
	<(head -1 "$TMP/above.txt")
want=$(j "$TMP/b.json" "'run 0 %.2f ms, median %.2f ms, p99 %.2f ms' % tuple(
	d['run_times'][k] / 1e6 for k in ('first_ns', 'median_ns', 'p99_ns'))")
MSG="want '$want' in: $(head -4 "$TMP/above.txt")"
check "text: the latency line within the first 4 lines, run 0, median, p99 as run_times" \
	grep -q "^latency    $want (50 runs timed" <(head -4 "$TMP/above.txt")
n=$(grep -c "p99" "$TMP/above.txt")
MSG="$n lines: $(grep p99 "$TMP/above.txt")" \
	check "text: the latency once (moved up, not duplicated)" test "$n" = 1
MSG="$(sed -n 3p "$TMP/above.txt")"
check "text: the layer that decides on line 3, named by operator, and the plan as planned" \
	grep -Eq "^layer      #[0-9]+ [A-Z_0-9]+ holds the most of XNNPACK's blocks, .*is as planned" \
	<(sed -n 3p "$TMP/above.txt")

# --- plan --baseline: the runtime's cost from the trace, settings never below the need
"$AP" plan "$MV2" --budget "$above" --baseline "$T" --json >"$TMP/pb.json" 2>"$TMP/pb.err"
rc=$?
MSG="exit $rc: $(head -2 "$TMP/pb.err")"
check "plan --budget above the peak --baseline: exit 0" [ "$rc" = 0 ]
r=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); b = d["budget"]; p = b["process"]
need = int(sys.argv[2]); model = d["anonymous_bytes"]
ok = (b["scope"] == "model" and p["measured_nonreclaimable_bytes"] == need and
      p["runtime_nonreclaimable_bytes"] == need - model and
      p["nonreclaimable_bytes"] == need and p["fits"] and
      p["memory_max"] >= need and p["memory_high"] >= need and p["memory_min"] >= need and
      p["memory_min"] <= p["memory_high"] <= p["memory_max"])
print("ok" if ok else json.dumps(p))' "$TMP/pb.json" "$nonrecl" 2>&1)
MSG="$r" check "plan --baseline: memory.max, memory.high, memory.min >= the measured non-reclaimable" \
	test "$r" = ok
"$AP" plan "$MV2" --budget "$above" --baseline "$T" >"$TMP/pb.txt" 2>&1
read -r mx hi mn < <(awk '/^    memory\.(max|high|min) / { printf "%s ", $3 }' "$TMP/pb.txt")
MSG="max $mx high $hi min $mn need $nonrecl"
check "plan --baseline, text: the three settings printed >= the measured non-reclaimable" \
	sh -c '[ -n "$3" ] && [ "$1" -ge "$4" ] && [ "$2" -ge "$4" ] && [ "$3" -ge "$4" ]' _ \
	"$mx" "$hi" "$mn" "$nonrecl"
# the model alone fits 16 MiB; the process measured does not: exit 3, no settings
"$AP" plan "$MV2" --budget 16M >"$TMP/p16.txt" 2>&1
rc=$?
MSG="exit $rc: $(grep -A2 '^budget' "$TMP/p16.txt")"
check "plan --budget 16M, no baseline: the model's memory alone fits (exit 0), said so" \
	sh -c '[ "$1" = 0 ] && grep -q "^budget 16.00 MiB, the model.s memory alone" "$2" &&
		grep -q "not yet for the process" "$2"' _ "$rc" "$TMP/p16.txt"
if [ "$nonrecl" -gt $((16 * MIB)) ]; then
	"$AP" plan "$MV2" --budget 16M --baseline "$T" >"$TMP/pb16.txt" 2>&1
	rc=$?
	MSG="exit $rc: $(sed -n '/^runtime/,$p' "$TMP/pb16.txt")"
	check "plan --budget 16M --baseline: the process does not fit, exit 3" [ "$rc" = 3 ]
	need=$(sed -n 's/^  would fit: a budget of at least \([0-9.]*\) MiB.*/\1/p' "$TMP/pb16.txt")
	MSG="would fit at '$need' MiB; measured $nonrecl bytes"
	check "plan --baseline over it: no settings, would fit at the measured need, a layer" \
		sh -c '! grep -q "^    memory\." "$1" && [ -n "$2" ] &&
			python3 -c "import sys; sys.exit(not float(sys.argv[1]) * 1048576 >= int(sys.argv[2]) - 5243)" "$2" "$3" &&
			grep -q "^  or shrink #[0-9]* " "$1"' _ "$TMP/pb16.txt" "$need" "$nonrecl"
else
	skip "plan --budget 16M --baseline" "the process measured $nonrecl bytes non-reclaimable, under 16 MiB"
fi
expect_refusal "plan --baseline without --budget: refused" 2 "needs --budget" \
	"$AP" plan "$MV2" --baseline "$T"
expect_refusal "report --budget 0: refused" 2 "is not a size" \
	"$AP" report "$T" --budget 0

# --- a target that dies before run 0 (LiteRT refuses the model): no verdict to pass
printf 'not a model' >"$TMP/bad.tflite"
"$AP" record -o "$TMP/dead.trace" -- scripts/litert-run "$TMP/bad.tflite" --runs 5 \
	>/dev/null 2>"$TMP/dead.err"
rc=$?
MSG="exit $rc: $(tail -2 "$TMP/dead.err")"
check "a model LiteRT refuses: record says the command failed (exit 4), the trace complete" \
	sh -c '[ "$1" = 4 ] && grep -q "0 runs" "$2"' _ "$rc" "$TMP/dead.err"
"$AP" report "$TMP/dead.trace" --budget 1G --json >"$TMP/dead.json" 2>/dev/null
rc=$?
r=$(j "$TMP/dead.json" "(d['budget']['fits'], d['budget']['decided_by'], d['runs'])")
MSG="exit $rc: $r" check "died before run 0, a budget above all it held: exit 3, fits null, no_run" \
	sh -c '[ "$1" = 3 ] && [ "$2" = "(None, '"'no_run'"', 0)" ]' _ "$rc" "$r"
"$AP" report "$TMP/dead.trace" --budget 1G >"$TMP/dead.txt" 2>/dev/null
MSG="$(head -3 "$TMP/dead.txt")"
check "died before run 0: the first line says NO VERDICT, the layer line why, before all" \
	sh -c 'head -1 "$1" | grep -q "^verdict    NO VERDICT on 1.00 GiB (exit 3): the target exited with status [0-9]* before run 0" &&
		sed -n 3p "$1" | grep -q "^layer      none: the target exited with status [0-9]* before run 0"' \
	_ "$TMP/dead.txt"

# --- diff --budget: each side judged as report --budget judges it; the gate is NEW's
# diff_budget NAME WANT_RC PY-EXPR OLD NEW BUDGET: its exit and its JSON "budget" (b)
diff_budget() {
	local name=$1 want=$2 expr=$3 rc r
	"$AP" diff "$4" "$5" --budget "$6" --json >"$TMP/d.json" 2>"$TMP/d.err"
	rc=$?
	r=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); b = d["budget"]; g = d["gate"]
ok = eval("(" + sys.argv[2] + ")")
print("ok" if ok else json.dumps([b, g]))' "$TMP/d.json" "$expr" 2>&1)
	MSG="exit $rc (want $want): $r $(head -2 "$TMP/d.err")" \
		check "diff --budget, $name" sh -c '[ "$1" = "$2" ] && [ "$3" = ok ]' _ \
		"$rc" "$want" "$r"
}
side="b['new']['of'] == 'process' and b['new']['peak_bytes'] == $peak and
	b['new']['nonreclaimable_bytes'] == $nonrecl"
diff_budget "above the peak: NEW fits, exit 0, its figures the samples' maxima" 0 \
	"$side and b['new']['fits'] is True and b['budget_bytes'] == $above and
	 b['new']['margin_bytes'] == $above - $peak and g['budget_over'] is False" \
	"$T" "$T" "$above"
diff_budget "below the non-reclaimable part: exit 3, decided by it" 3 \
	"$side and b['new']['fits'] is False and b['new']['decided_by'] == 'nonreclaimable'
	 and g['budget_over'] is True and g['failed'] is True" "$T" "$T" "$below"
diff_budget "OLD died before run 0, NEW fits: exit 0, OLD has no verdict" 0 \
	"$side and b['old']['fits'] is None and b['old']['decided_by'] == 'no_run'" \
	"$TMP/dead.trace" "$T" "$above"
diff_budget "NEW died before run 0: exit 3 however large the budget" 3 \
	"b['new']['fits'] is None and g['budget_over'] is True" "$T" "$TMP/dead.trace" 1G
diff_budget "a plan as OLD: not judged (not a process), NEW is: exit 0" 0 \
	"b['old'] is None and $side and b['new']['fits'] is True" "$MV2" "$T" "$above"
diff_budget "a plan as NEW: the gate cannot judge it, exit 2, said why" 2 \
	"b['new'] is None and 'NEW is a plan' in g['not_judged'] and g['failed'] is False" \
	"$T" "$MV2" "$above"
"$AP" diff "$T" "$T" --budget "$below" >"$TMP/d.txt" 2>/dev/null
MSG="$(grep -A3 '^budget' "$TMP/d.txt")"
check "diff --budget, text: NEW DOES NOT FIT by the non-reclaimable part, the gate FAILED" \
	sh -c 'grep -q "^  new DOES NOT FIT: the non-reclaimable part is 1.00 MiB over" "$1" &&
		grep -q "^gate       --budget .*: FAILED (NEW does not fit)" "$1"' _ "$TMP/d.txt"
expect_refusal "diff --budget 0: refused" 2 "is not a size" "$AP" diff "$T" "$T" --budget 0

# --- the peak's parts sum to the peak: the largest status sample's RssAnon + RssFile +
# RssShmem (VmRSS: the export's counter read as the truth), the rest VmHWM above it
"$AP" report "$T" --plan "$MV2" --json >"$TMP/parts.json" 2>/dev/null
rss_max=$(j "$TMP/chrome.json" "max(e['args']['bytes'] for e in
	(d['traceEvents'] if isinstance(d, dict) else d)
	if e.get('ph') == 'C' and e.get('name') == 'VmRSS')")
r=$(python3 -c 'import json, sys
p = json.load(open(sys.argv[1]))["summary"]["peak_parts"]
peak, hwm, rss = (int(v) for v in sys.argv[2:5])
held = sum(p["nonreclaimable"].values()) + sum(p["reclaimable"].values())
ok = (p["peak_bytes"] == peak and held + p["between_samples_bytes"] + p["cgroup_other_bytes"]
      == peak and p["split_by"] == "largest_status_sample" and held == rss and
      p["between_samples_bytes"] == hwm - rss and p["nonreclaimable"]["arena_bytes"] > 0)
print("ok" if ok else json.dumps(p))' "$TMP/parts.json" "$peak" "$hwm" "$rss_max")
MSG="$r (peak $peak VmHWM $hwm VmRSS max $rss_max)" \
	check "peak_parts: sum to the peak; the sampled parts are the largest VmRSS, the rest VmHWM above it" \
	test "$r" = ok
"$AP" report "$T" --plan "$MV2" >"$TMP/parts.txt" 2>/dev/null
MSG="$(grep '^peak ' "$TMP/parts.txt")"
check "text: the peak line names both halves by reclaimability and what was between samples" \
	sh -c 'grep "^peak  " "$1" | grep " = non-reclaimable .* (anonymous: arena .*; shmem .*) + reclaimable .* (file pages: weights .*, code, libraries and page cache .*, fault-around included)" |
		if [ "$2" -gt "$3" ]; then grep -q "above the largest sample"; else
		! grep -q "above the largest sample"; fi' _ "$TMP/parts.txt" "$hwm" "$rss_max"
