#!/usr/bin/env bash
# arenaprof diff and the CI gates: two plans side by side against plan --json's own
# figures, exit 3 past --fail-above and 0 within it, two traces against report --json's
# figures (root, BPF), and bad usage.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

MI=$BUILD/mininfer
MV1=$MODELS/mobilenet_v1_0.25_128_quant.tflite
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite

# diff_check NAME WANT-EXIT PYTHON-CONDITION ARGS...: runs diff --json, checks exit and
# the condition on d (the JSON) and truth (sys.argv[2], a JSON file of ground truth)
diff_check() {
	local name=$1 want=$2 cond=$3 out rc
	shift 3
	out=$("$ARENAPROF" diff --json "$@" 2>&1)
	rc=$?
	MSG="exit $rc (want $want): $(printf '%s' "$out" | head -c 400)"
	check "$name" python3 -c "
import json, sys
if int(sys.argv[3]) != $want:
    sys.exit(1)
d = json.loads(sys.argv[1]); truth = json.load(open(sys.argv[2]))
sys.exit(0 if ($cond) else 1)" "$out" "$TMP/truth.json" "$rc"
}

# ground truth for plans: plan --json of each model, computed by the planner's own command
"$ARENAPROF" plan --delegate none "$MV1" --json >"$TMP/p1.json"
"$ARENAPROF" plan --delegate none "$MV2" --json >"$TMP/p2.json"
python3 - "$TMP/p1.json" "$TMP/p2.json" >"$TMP/truth.json" <<'PY'
import json, sys
p = [json.load(open(f)) for f in sys.argv[1:3]]
print(json.dumps({'a1': p[0]['arena_bytes'], 'a2': p[1]['arena_bytes'],
                  'w1': p[0]['weights_bytes'], 'w2': p[1]['weights_bytes'],
                  'ops2': len(p[1]['ops'])}))
PY
diff_check "plans: mv1 -> mv2, the arena grew 760 % > 10 %: exit 3, figures equal plan --json's" 3 \
	"d['old']['arena_bytes'] == truth['a1'] and d['new']['arena_bytes'] == truth['a2'] and
 d['new']['weights_bytes'] == truth['w2'] and d['new']['operators'] == truth['ops2'] and
 abs(d['change_pct']['arena'] - 100.0 * (truth['a2'] - truth['a1']) / truth['a1']) < 1e-3 and
 d['gate']['arena_over'] and d['gate']['failed']" "$MV1" "$MV2" --fail-above 10
diff_check "plans: mv2 -> mv1, it shrank: exit 0, gate passed" 0 \
	"d['change_pct']['arena'] < 0 and not d['gate']['failed']" "$MV2" "$MV1" --fail-above 10
diff_check "plans: mv2 against itself with --fail-above 0: no change, exit 0" 0 \
	"d['change_pct']['arena'] == 0 and d['change_pct']['peak'] == 0 and
 not d['gate']['failed']" "$MV2" "$MV2" --fail-above 0
diff_check "plans: no --fail-above: exit 0 however much it grew, gate null" 0 \
	"d['gate'] is None and d['change_pct']['arena'] > 700" "$MV1" "$MV2"
# operators are paired by opcode and output name: the truth is plan --json's own ops,
# paired here by a dict of each key's indexes (the k-th of a key with the k-th)
cat >"$TMP/pairs.py" <<'PY'
import json, sys
def ops(path):
    return [(o['opcode'], o['output']) for o in json.load(open(path))['ops']]
o, n = ops(sys.argv[1]), ops(sys.argv[2])
left = {}
for i, k in enumerate(o):
    left.setdefault(k, []).append(i)
pairs = [[left[k].pop(0), j] for j, k in enumerate(n) if left.get(k)]
print(json.dumps({'pairs': pairs, 'old_only': len(o) - len(pairs),
                  'new_only': len(n) - len(pairs),
                  'same': len(o) == len(n) == len(pairs) and all(a == b for a, b in pairs)}))
PY
python3 "$TMP/pairs.py" "$TMP/p1.json" "$TMP/p2.json" >"$TMP/truth.json"
diff_check "plans: mv1 -> mv2 are different graphs, operators paired as plan --json's ops pair" 0 \
	"d['schema_version'] == 1 and d['operators']['same_graph'] is False and
 d['operators']['pairs'] == truth['pairs'] and d['operators']['old_only'] == truth['old_only'] and
 d['operators']['new_only'] == truth['new_only'] and d['operators']['matched'] == len(truth['pairs'])" \
	"$MV1" "$MV2"
python3 "$TMP/pairs.py" "$TMP/p2.json" "$TMP/p2.json" >"$TMP/truth.json"
diff_check "plans: mv2 and itself are the same graph, all 66 operators paired" 0 \
	"d['operators']['same_graph'] and truth['same'] and len(truth['pairs']) == 66 and
 d['operators']['pairs'] == truth['pairs'] and 'latency_median' in d['not_comparable']" \
	"$MV2" "$MV2"
out=$("$ARENAPROF" diff "$MV1" "$MV2" --fail-above 10 2>&1)
MSG="$out"
check "plans, text: different graphs said, the model memory row, no latency rows" \
	sh -c 'printf "%s\n" "$1" | grep -q "^graphs     DIFFERENT: 0 operators paired" &&
		printf "%s\n" "$1" | grep -q "^  model memory " &&
		! printf "%s\n" "$1" | grep -q "median run"' _ "$out"

# arenaprof help CMD is CMD --help
for cmd in plan record report diff; do
	out=$("$ARENAPROF" help $cmd 2>&1)
	rc=$?; MSG="exit $rc: $(head -1 <<<"$out")"
	check "help $cmd: $cmd's own usage, exit 0" sh -c '[ "$1" = 0 ] &&
		printf "%s\n" "$2" | head -1 | grep -q "^usage: arenaprof $3 "' _ "$rc" "$out" "$cmd"
done
expect_refusal "help of no command: exit 2" 2 "not a command" "$ARENAPROF" help nope

expect_refusal "diff with one file: exit 2" 2 "expected OLD and NEW" "$ARENAPROF" diff "$MV1"
expect_refusal "diff of a file that is neither a trace nor a plan: exit 2" 2 "not a plan" \
	"$ARENAPROF" diff "$MV1" /etc/hostname
expect_refusal "diff --fail-above -1: exit 2" 2 "not a percentage" \
	"$ARENAPROF" diff "$MV1" "$MV2" --fail-above -1
expect_refusal "diff --fail-above-latency x: exit 2" 2 "fail-above-latency 'x' is not a perc" \
	"$ARENAPROF" diff "$MV1" "$MV2" --fail-above-latency x
expect_refusal "diff of two plans with --fail-above-latency: not judged, exit 2" 2 \
	"cannot judge this pair: OLD: a plan has no runs" \
	"$ARENAPROF" diff "$MV1" "$MV2" --fail-above-latency 10

if [ "$(id -u)" != 0 ]; then
	skip "diff of two traces" "needs root (BPF) to record them"
	exit 0
fi
for m in 1 2; do
	eval model=\$MV$m
	"$ARENAPROF" record -o "$TMP/t$m.trace" --run-probe "$MI:mininfer_invoke" -- \
		"$MI" "$model" --runs 3 >/dev/null 2>"$TMP/rec$m.err" ||
		fail "record mv$m" "$(tail -2 "$TMP/rec$m.err")"
	"$ARENAPROF" report "$TMP/t$m.trace" --json --plan "$model" >"$TMP/r$m.json"
	# whether the trace's snapshots caught the model's mapping (a 3-run mininfer can
	# end between two): diff finds the model there only then
	"$ARENAPROF" report "$TMP/t$m.trace" --mappings 2>/dev/null |
		grep -q " $(realpath "$model")\$" && echo 1 >"$TMP/found$m" || echo 0 >"$TMP/found$m"
done
# ground truth for traces: report --json --plan's arena (its first-touched pages), VmHWM,
# the peak (VmHWM or all groups' resident bytes, the larger), and the gate's exit in each
# direction from them: 3 when the arena (compared when both models were found in the
# mappings, else n/a) or the peak grew past 50 % (mv2's arena is 8x mv1's in a plain build;
# under ASan the arena found can be the sanitizer's mapping, so it is computed)
python3 - "$TMP/r1.json" "$TMP/r2.json" "$(cat "$TMP/found1")$(cat "$TMP/found2")" \
	>"$TMP/truth.json" <<'PY'
import json, sys
r = [json.load(open(f)) for f in sys.argv[1:3]]
found = sys.argv[3] == '11'
a = [(x['arena']['first_touch_pages'] + x['arena']['resident_at_attach_pages']) *
     x['page_size'] for x in r]
h = [x['samples']['vmhwm_max_bytes'] for x in r]
p = [max(h[i], sum(g['resident_bytes'] for g in x['groups'])) for i, x in enumerate(r)]
over = lambda o, n: n * 100 > o * 150
print(json.dumps({'a1': a[0], 'a2': a[1], 'h2': h[1], 'found': found,
                  'x12': 3 if (found and over(a[0], a[1])) or over(p[0], p[1]) else 0,
                  'x21': 3 if (found and over(a[1], a[0])) or over(p[1], p[0]) else 0}))
PY
X12=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["x12"])' "$TMP/truth.json")
X21=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["x21"])' "$TMP/truth.json")
case "${CC:-}" in
*-fsanitize*) ;;
*)	if [ "$(cat "$TMP/found1" "$TMP/found2" | tr -d '\n')" = 11 ]; then
		MSG="x12 $X12, x21 $X21"
		check "traces' truth (plain build): mv2's arena past 50 % above mv1's, not back" \
			test "$X12$X21" = 30
	else
		skip "traces' truth (plain build): the arena's growth" "a snapshot missed a 3-run mininfer's model mapping: the arena is n/a (checked next)"
	fi ;;
esac
diff_check "traces: mv1 -> mv2 past 50 %: exit $X12 (3 in a plain build), the arena as report --plan's or n/a" \
	"$X12" "d['old']['kind'] == 'trace' and d['new']['peak_bytes'] >= truth['h2'] and
 ((d['old']['arena_bytes'] == truth['a1'] and d['new']['arena_bytes'] == truth['a2'])
  if truth['found'] else 'arena' in d['not_comparable']) and
 d['gate']['failed'] == (truth['x12'] == 3)" "$TMP/t1.trace" "$TMP/t2.trace" --fail-above 50
diff_check "traces: mv2 -> mv1: exit $X21 (0 in a plain build)" "$X21" \
	"d['gate']['failed'] == (truth['x21'] == 3)" \
	"$TMP/t2.trace" "$TMP/t1.trace" --fail-above 50
diff_check "a trace against its model's plan: the arena found equals the plan's, in pages" 0 \
	"d['old']['kind'] == 'trace' and d['new']['kind'] == 'plan' and
 d['old']['arena_bytes'] == (d['new']['arena_bytes'] + 4095) // 4096 * 4096" \
	"$TMP/t2.trace" "$MV2" --plan "$MV2"

# report, the answer first: at most 8 lines before the first blank one, the verdict on
# the process first, the latency, the layer and the verdict on the plan, the peak and its
# arena part equal to report --json's own figures
"$ARENAPROF" report "$TMP/t2.trace" --plan "$MV2" >"$TMP/r2.txt" 2>&1
"$ARENAPROF" report "$TMP/t2.trace" --plan "$MV2" --json >"$TMP/r2p.json" 2>&1
head_lines=$(awk 'NF == 0 { print NR - 1; exit }' "$TMP/r2.txt")
MSG="$(head -8 "$TMP/r2.txt")"
check "report opens with the summary: $head_lines lines (at most 8), the verdict first" \
	sh -c '[ "$1" -ge 3 ] && [ "$1" -le 8 ] &&
		head -1 "$2" | grep -q "^verdict    no budget given (--budget SIZE): peak " &&
		sed -n 2p "$2" | grep -q "^latency    run 0 [0-9.]* ms, median " &&
		sed -n 3p "$2" | grep -q "^layer      #[0-9]* .* decides the arena, .*; the arena is as planned: 1.58 MiB planned"' _ \
	"$head_lines" "$TMP/r2.txt"
check "summary JSON: schema 2, the plan matches, arena and peak as the report's own" \
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); s = d["summary"]
sys.exit(not (d["schema_version"] == 2 and s["plan_matches"] is True and
	      s["arena_bytes"] == d["arena"]["first_touch_pages"] * d["page_size"] and
	      s["peak_bytes"] == max(d["samples"]["vmhwm_max_bytes"], sum(
		g["resident_bytes"] for g in d["groups"])) and
	      s["dropped_events"] == 0))' \
	"$TMP/r2p.json"
n=$(wc -l <"$TMP/r2.txt")
"$ARENAPROF" report "$TMP/t2.trace" --plan "$MV2" --mappings >"$TMP/r2m.txt" 2>&1
m=$(wc -l <"$TMP/r2m.txt")
MSG="$n lines folded, $m with --mappings"
check "report folds mappings per object; --mappings lists every vma (more lines)" \
	sh -c '[ "$1" -lt "$2" ] && grep -q "^object " "$3" && grep -q "^mapping " "$4"' _ \
	"$n" "$m" "$TMP/r2.txt" "$TMP/r2m.txt"
# folding loses nothing: the objects' faults (the "more files" line included) sum to the
# vmas' faults
r=$(python3 - "$TMP/r2.txt" "$TMP/r2m.txt" <<'PY'
import sys
def table(path, head, col):
	rows, on = [], False
	for line in open(path):
		if line.startswith(head):
			on = True
			continue
		if on and not line.strip():
			break
		if on:
			rows.append(int(line.split()[col]))
	return rows
o = table(sys.argv[1], "object ", 5)
m = table(sys.argv[2], "mapping ", 5)
print(len(o), sum(o), len(m), sum(m))
PY
)
MSG="objects: lines, faults; vmas: lines, faults: $r"
check "the folded objects' faults sum to every vma's" \
	sh -c 'set -- $1; [ "$1" -gt 0 ] && [ "$2" = "$4" ] && [ "$2" -gt 0 ]' _ "$r"

# report --format openmetrics: what the strict OpenMetrics parser accepts, laid out as
# Prometheus users expect it (tests/py/check_openmetrics.py), with report --json's figures
"$ARENAPROF" report "$TMP/t2.trace" --plan "$MV2" --format openmetrics >"$TMP/om.txt" 2>&1
PY=${ARENAPROF_VENV:-/opt/arenaprof-venv}/bin/python	# prometheus-client (install-deps)
PROMTOOL=${PROMTOOL:-/opt/arenaprof-promtool/usr/bin/promtool}
VERSION=$("$ARENAPROF" --version | sed 's/^arenaprof //')
want=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1])); t = d["run_times"]
print(json.dumps({
    "arenaprof_arena_planned_bytes": 1655808,
    "arenaprof_arena_found_bytes": d["arena"]["first_touch_pages"] * d["page_size"],
    "arenaprof_runs_total": 3, "arenaprof_peak_bytes": d["samples"]["vmhwm_max_bytes"],
    "arenaprof_plan_matches": 1, "arenaprof_run_latency_seconds_count": 3,
    "arenaprof_first_run_latency_seconds": t["first_ns"] / 1e9,
    "arenaprof_run_latency_seconds{0.5}": t["median_ns"] / 1e9,
    "arenaprof_run_latency_seconds{0.99}": t["p99_ns"] / 1e9}))' "$TMP/r2p.json")
"$PY" tests/py/check_openmetrics.py "$TMP/om.txt" "$VERSION" "openmetrics: " \
	--model mobilenet_v2_1.0_224_quant.tflite --expect "$want"
# the 3 runs' sum: the median and p99 runs plus the fastest one, no faster than the median
MSG="$(grep latency_seconds "$TMP/om.txt")"
check "openmetrics: the latency's _sum is its 3 runs'" "$PY" -c 'import sys
from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse
m = {s.name + s.labels.get("quantile", ""): s.value for f in parse(open(sys.argv[1]).read())
     for s in f.samples}
n = "arenaprof_run_latency_seconds"
low = m[n + "_sum"] - m[n + "0.5"] - m[n + "0.99"]
sys.exit(not (0 < low <= m[n + "0.5"]))' "$TMP/om.txt"
# without a plan there is no model to name: the label is left out, not empty
"$ARENAPROF" report "$TMP/t2.trace" --format openmetrics >"$TMP/om-noplan.txt" 2>&1
"$PY" tests/py/check_openmetrics.py "$TMP/om-noplan.txt" "$VERSION" "openmetrics, no plan: " \
	--expect '{"arenaprof_runs_total": 3}'
check "openmetrics, no plan: no planned arena, no plan_matches" \
	sh -c '! grep -q "arena_planned_bytes\|plan_matches" "$1"' _ "$TMP/om-noplan.txt"
# promtool reads the Prometheus text format (what node_exporter's textfile collector parses):
# it reads this without an error, and its only finding is the one OpenMetrics counters
# cause there, a _total sample the HELP of its family does not name
if [ -x "$PROMTOOL" ]; then
	"$PROMTOOL" check metrics <"$TMP/om.txt" >"$TMP/promtool.out" 2>&1
	rc=$?
	MSG="exit $rc: $(head -c 300 "$TMP/promtool.out")"
	check "openmetrics: promtool parses it; only 'no help text' for the 3 _total samples" \
		sh -c '[ "$1" = 0 ] || { [ "$1" = 3 ] && [ "$(sort "$2" | tr "\n" " ")" = \
"arenaprof_arena_first_touch_pages_total no help text arenaprof_dropped_events_total no help \
text arenaprof_runs_total no help text " ]; }' _ "$rc" "$TMP/promtool.out"
else
	fail "openmetrics: promtool" "no promtool at $PROMTOOL (scripts/install-deps)"
fi

# ---- diff of real LiteRT processes (scripts/litert-run): the model found in each trace's
# own mappings, the latency rows against the process's own per-invoke times (--log), the
# latency gate, like with like against a plan, operators paired across the two paths
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
if ! "$venv/bin/python" -c 'import numpy, ai_edge_litert' 2>/dev/null; then
	fail "diff of LiteRT traces" "no LiteRT in $venv (run scripts/install-deps)"
	exit 0
fi
# lrec NAME MODEL DELEGATE: a 20-run trace $TMP/NAME.trace, its stdout NAME.out (the
# arena LiteRT printed) and NAME.log (each invoke's wall time, as the process timed it)
# --wait holds the runs until a line comes (1 s on): the recorder finds and attaches the run
# probe in the libraries LiteRT mapped before run 0 even when it is slow (the sanitizer
# build missed 2 of 20 runs once without it)
lrec() {
	(sleep 1; echo) | "$ARENAPROF" record -o "$TMP/$1.trace" --runs 20 -- scripts/litert-run \
		"$2" --runs 20 --delegate "$3" --print-arena --wait --log "$TMP/$1.log" \
		>"$TMP/$1.out" 2>"$TMP/$1.err" || fail "record $1" "$(tail -2 "$TMP/$1.err")"
}
lrec l1 "$MV2" none
lrec l2 "$MV2" none
lrec l3 "$MV1" none
lrec lx "$MV2" xnnpack
# the truth: LiteRT's own arena (ArenaPlanner), the logs' run count, run 0 and median
python3 - "$TMP" "$(realpath "$MV2")" >"$TMP/truth.json" <<'PY'
import json, sys
t = {'mv2': sys.argv[2]}
for n in ('l1', 'l2', 'l3', 'lx'):
    ar = [l.split() for l in open('%s/%s.out' % (sys.argv[1], n)) if l.startswith('arena 0x')]
    ns = [int(l.split()[1]) for l in open('%s/%s.log' % (sys.argv[1], n))]
    s = sorted(ns)
    t[n] = {'arena': int(ar[0][3]), 'runs': len(ns), 'first': ns[0],
            'median': s[(len(s) - 1) // 2], 'max': s[-1]}
print(json.dumps(t))
PY
near="lambda ours, theirs: abs(ours - theirs) <= 0.15 * theirs + 300000"
diff_check "LiteRT mv2 twice, no --plan: the model from the trace's mappings, LiteRT's own arena, one graph" 0 \
	"all(d[s]['model'] == truth['mv2'] and d[s]['model_source'] == 'mappings' for s in ('old', 'new'))
 and d['old']['planned_arena_bytes'] == truth['l1']['arena'] and
 d['old']['arena_bytes'] == (truth['l1']['arena'] + 4095) // 4096 * 4096 and
 d['new']['weights_bytes'] > 0 and d['not_comparable'] == {} and
 d['operators']['same_graph'] and d['operators']['matched'] == 66" "$TMP/l1.trace" "$TMP/l2.trace"
diff_check "LiteRT: 20 runs timed, run 0 and the median within 15 % of the process's own times" 0 \
	"all(d[s]['latency']['runs'] == truth[n]['runs'] == 20 and
     ($near)(d[s]['latency']['first_ns'], truth[n]['first']) and
     ($near)(d[s]['latency']['median_ns'], truth[n]['median']) and
     d[s]['latency']['median_ns'] <= d[s]['latency']['p99_ns'] <= truth[n]['max'] * 1.15
     for s, n in (('old', 'l1'), ('new', 'l2')))" "$TMP/l1.trace" "$TMP/l2.trace"
MSG="l3 (mv1) median $(python3 -c 'import json,sys; t=json.load(open(sys.argv[1])); print(t["l3"]["median"], t["l1"]["median"])' "$TMP/truth.json")"
check "truth: mv1's median invoke is under a third of mv2's (the process's own times)" \
	python3 -c 'import json, sys; t = json.load(open(sys.argv[1]))
sys.exit(not t["l3"]["median"] * 3 < t["l1"]["median"])' "$TMP/truth.json"
diff_check "--fail-above-latency 50, mv1 -> mv2 (slower): exit 3, the median and p99 over" 3 \
	"d['gate']['failed'] and d['gate']['median_over'] and d['gate']['p99_over'] and
 d['change_pct']['latency_median'] > 50 and d['operators']['same_graph'] is False" \
	"$TMP/l3.trace" "$TMP/l1.trace" --fail-above-latency 50
diff_check "--fail-above-latency 50, mv2 -> mv1 (faster): exit 0" 0 \
	"not d['gate']['failed'] and d['gate']['not_judged'] is None and
 d['change_pct']['latency_median'] < 0" "$TMP/l1.trace" "$TMP/l3.trace" --fail-above-latency 50
diff_check "--fail-above-latency 1000, mv2 -> mv2: exit 0" 0 "not d['gate']['failed']" \
	"$TMP/l1.trace" "$TMP/l2.trace" --fail-above-latency 1000
out=$("$ARENAPROF" diff "$TMP/l3.trace" "$TMP/l1.trace" --fail-above-latency 50 2>&1)
MSG="$out"
check "LiteRT, text: the latency rows in ms, the gate FAILED on the median" \
	sh -c 'printf "%s\n" "$1" | grep -Eq "^  median run +[0-9.]+ ms +[0-9.]+ ms +\+[0-9.]+ %" &&
		printf "%s\n" "$1" | grep -q "^gate       --fail-above-latency 50.0 %: FAILED" &&
		printf "%s\n" "$1" | grep -q "the median run grew past it"' _ "$out"

# like with like: a model's plan against a trace of its default path is planned for that
# path (LiteRT's own arena there), the model memory against VmHWM is n/a, never a change
diff_check "plan vs trace: planned for the path the trace ran (LiteRT's arena), the peak n/a" 0 \
	"d['old']['kind'] == 'plan' and d['old']['arena_bytes'] == truth['lx']['arena'] and
 d['change_pct']['peak'] is None and 'VmHWM' in d['not_comparable']['peak'] and
 d['change_pct']['latency_median'] is None and d['change_pct']['arena'] is not None and
 d['operators']['same_graph']" "$MV2" "$TMP/lx.trace"
out=$("$ARENAPROF" diff "$MV2" "$TMP/l1.trace" 2>&1)
MSG="$out"
check "plan vs trace, text: the peak row is n/a with the reason, not a percentage" \
	sh -c 'printf "%s\n" "$1" | grep -Eq "^  model memory \| peak .* n/a  \(a plan.s model memory"' \
	_ "$out"
# the builtin kernels' graph against the default path's: paired by opcode and output name
"$ARENAPROF" plan --delegate none "$MV2" --json >"$TMP/pn.json"
"$ARENAPROF" plan "$MV2" --json >"$TMP/px.json"
# the graph the delegate leaves: each XNNPACK partition one node, the other operators kept
python3 - "$TMP/px.json" >"$TMP/pl.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
part = {p['first_op']: p['operators'] for p in d['xnnpack']['partition_plans']}
ops, i = [], 0
while i < len(d['ops']):
    if i in part:
        ops.append({'opcode': 'DELEGATE', 'output': None})
        i += part[i]
    else:
        ops.append(d['ops'][i])
        i += 1
print(json.dumps({'ops': ops}))
PY
python3 "$TMP/pairs.py" "$TMP/pn.json" "$TMP/pl.json" >"$TMP/truth.json"
diff_check "builtin vs XNNPACK traces: different graphs, the pairs plan --json's ops give" 0 \
	"d['operators']['same_graph'] is False and not truth['same'] and len(truth['pairs']) >= 2 and
 d['operators']['pairs'] == truth['pairs'] and d['operators']['new_only'] == truth['new_only']" \
	"$TMP/l1.trace" "$TMP/lx.trace"

# no model to find: a copy of mv1 deleted after the run; a process that mapped none and
# has no run probe
cp "$MV1" "$TMP/gone.tflite"
lrec lg "$TMP/gone.tflite" none
rm -f "$TMP/gone.tflite"
diff_check "the trace's model deleted: said, its arena and weights n/a, the gate on the peak" 0 \
	"d['old']['model'] is None and 'gone.tflite, not usable here' in d['old']['no_model'] and
 'not identified' in d['not_comparable']['arena'] and 'weights' in d['not_comparable'] and
 d['gate']['arena_over'] is False and d['change_pct']['peak'] is not None" \
	"$TMP/lg.trace" "$TMP/l3.trace" --fail-above 50
# the same path, now a file of the same size whose root offset is past its end: not planned
python3 -c 'import sys
d = bytearray(open(sys.argv[1], "rb").read()); d[0:4] = b"\xff\xff\xff\x7f"
open(sys.argv[2], "wb").write(d)' "$MV1" "$TMP/gone.tflite"
diff_check "the trace's model no longer plans: said, the trace read without it" 0 \
	"d['old']['model'] is None and 'gone.tflite, which does not plan here' in d['old']['no_model']
 and 'arena' in d['not_comparable']" "$TMP/lg.trace" "$TMP/l3.trace"
rm -f "$TMP/gone.tflite"
"$ARENAPROF" record -o "$TMP/sleep.trace" -- sleep 0.2 >/dev/null 2>&1 ||
	fail "record sleep" "exit $?"
diff_check "a trace of sleep: no model mapped, no run timed, latency null" 0 \
	"d['old']['no_model'] == 'no model: it mapped no TFLite model file' and
 d['old']['latency'] is None and 'no run probe' in d['not_comparable']['latency_median']" \
	"$TMP/sleep.trace" "$TMP/sleep.trace"
expect_refusal "--fail-above-latency on traces without timed runs: not judged, exit 2" 2 \
	"cannot judge this pair: OLD: no completed run timed" \
	"$ARENAPROF" diff "$TMP/sleep.trace" "$TMP/sleep.trace" --fail-above-latency 5

# the device row: two traces the VM guests recorded of tests/fixtures/dmabuf_fixture.c
# (scripts/vm/tests.sh, 7), by the polls (6.12) and by the export and release events
# (6.17); their dma-buf peaks against what the fixture printed: phase 1's bytes, and
# phase 1's with the short-lived S1 (a buffer no poll saw)
F=tests/fixtures/trace
python3 - "$F/dmabuf-6.12.fixture.jsonl" "$F/dmabuf-events-6.17.fixture.jsonl" \
	>"$TMP/truth.json" <<'PY'
import json, sys
def peak(path, short):
    rows = [json.loads(x) for x in open(path)]
    p1 = next(r for r in rows if r.get('phase') == 1)
    return p1['bytes'] + sum(r['size'] for r in rows if short and r.get('op') == 'alloc'
                             and r['what'] == 'short-S1')
print(json.dumps({'old': peak(sys.argv[1], False), 'new': peak(sys.argv[2], True)}))
PY
diff_check "device row: the dma-bufs' peaks, the fixture's phase 1 and phase 1 with S1" 0 \
	"d['old']['dmabuf_peak_bytes'] == truth['old'] and
 d['new']['dmabuf_peak_bytes'] == truth['new'] and truth['new'] > truth['old'] and
 abs(d['change_pct']['device'] - 100 * (truth['new'] - truth['old']) / truth['old']) < 0.01" \
	"$F/dmabuf-6.12.aptrace" "$F/dmabuf-events-6.17.aptrace"
"$ARENAPROF" diff "$F/dmabuf-6.12.aptrace" "$F/dmabuf-events-6.17.aptrace" >"$TMP/dev.txt"
MSG=$(grep -E '^  (peak|device)' "$TMP/dev.txt")
check "device row in the text: 1.44 MiB to 3.44 MiB, +139.1 %" \
	grep -Eq '^  device \(dma-bufs\) +1\.44 MiB +3\.44 MiB +\+139\.1 %$' "$TMP/dev.txt"
"$ARENAPROF" diff "$TMP/sleep.trace" "$TMP/sleep.trace" >"$TMP/nodev.txt"
MSG=$(head -12 "$TMP/nodev.txt")
check "no device row for two traces without dma-bufs" \
	sh -c "! grep -q '^  device' '$TMP/nodev.txt'"
diff_check "a plan beside a trace: device not comparable, its dmabuf_peak_bytes null" 0 \
	"d['new']['dmabuf_peak_bytes'] is None and d['old']['dmabuf_peak_bytes'] == 0 and
 'a plan has no dma-bufs' in d['not_comparable']['device']" "$TMP/sleep.trace" "$MV2"
