#!/usr/bin/env bash
# A real runtime end to end: LiteRT (ai-edge-litert from PyPI, driven from Python by
# scripts/litert-run) on MobileNet v2 (int8) and face detection (float), with delegate none
# and xnnpack, recorded with `record --runs N` (no markers but the run probe arenaprof finds
# in the wheel) and read back with `report --plan` and `heatmap`. Ground truth comes from
# LiteRT itself: litert-run --print-arena reads the arena base and size out of LiteRT's
# ArenaPlanner. Then the arena inside [heap] (glibc's mmap threshold raised), a re-plan
# that moves the arena, runs counted from the first, a static binary and an --arena that
# points nowhere.
#
# LITERT_RUNS (default 2000) sets the runs of the four main recordings.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

RUNS=${LITERT_RUNS:-2000}
AP=$ARENAPROF
LR=scripts/litert-run
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
FACE=$MODELS/face_detection_short_range.tflite
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}

if [ "$(id -u)" != 0 ]; then
	skip "litert e2e" "needs root (BPF)"
	exit 0
fi
if ! "$venv/bin/python" -c 'import numpy, ai_edge_litert' 2>/dev/null; then
	skip "litert e2e" "no LiteRT in $venv (run scripts/install-deps)"
	exit 0
fi
if [ ! -x "$AP" ] || [ ! -x "$BUILD/mininfer" ]; then
	fail "litert e2e: built" "$AP or $BUILD/mininfer missing"
	exit 0
fi

# j FILE EXPR: a value of a JSON file (python expression over d)
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }
# the arena line of litert-run --print-arena: "arena 0x<base> bytes <n> <why>"
truth_base() { awk -v w="$2" '$1 == "arena" && $5 == w { print $2; exit }' "$1"; }
truth_bytes() { awk -v w="$2" '$1 == "arena" && $5 == w { print $4; exit }' "$1"; }

# main NAME MODEL DELEGATE: record --runs $RUNS of litert-run and report it
main() {
	local name=$1 model=$2 del=$3 t=$TMP/$1
	local out rc

	# the workload runs 50 more: record stops recording after exactly $RUNS, the
	# workload finishes untraced
	"$AP" record -o "$t.trace" --runs "$RUNS" -- "$LR" "$model" --runs $((RUNS + 50)) \
		--delegate "$del" --print-arena >"$t.out" 2>"$t.err"
	rc=$?
	MSG="exit $rc: $(tail -3 "$t.err")"
	check "$name: record exits 0" [ "$rc" = 0 ]
	"$AP" report "$t.trace" --plan "$model" --json >"$t.json" 2>"$t.rerr" &&
		"$AP" report "$t.trace" --plan "$model" >"$t.txt" 2>>"$t.rerr"
	rc=$?
	MSG="exit $rc: $(head -3 "$t.rerr")"
	check "$name: report --plan exits 0" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || return 1
	MSG="record said: $(grep 'run probe' "$t.err" | head -4)"
	check "$name: run probe found in the wheel (the Python Interpreter's invoke)" \
		grep -q "run probe: .*libpywrap_litert_common.so:_ZN6tflite19interpreter_wrapper18InterpreterWrapper6InvokeEi (run entry point found automatically" "$t.err"
	out="runs $(j "$t.json" "d['runs']"), end '$(j "$t.json" "d['end']['reason']")'"
	MSG=$out
	check "$name: record stopped after $RUNS runs" \
		[ "$out" = "runs $RUNS, end 'the requested runs completed'" ]
	MSG="the workload printed: $(grep '^done' "$t.out")"
	check "$name: the workload ran on to its own end, $((RUNS + 50)) runs" \
		grep -q "^done runs $((RUNS + 50))$" "$t.out"
	MSG="dropped $(j "$t.json" "d['dropped_events']")"
	check "$name: 0 dropped events" [ "$(j "$t.json" "d['dropped_events']")" = 0 ]
}

# none NAME MODEL: the arena found by the allocation probe, against LiteRT's own
none_checks() {
	local name=$1 t=$TMP/$1
	local base bytes

	base=$(truth_base "$t.out" allocate)
	bytes=$(truth_bytes "$t.out" allocate)
	python3 - "$t.json" "$base" "$bytes" "$name" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
base, nbytes, name = int(sys.argv[2], 16), int(sys.argv[3]), sys.argv[4]
a, c = d['arena_id'], d['consistency']
def check(what, ok, why=''):
    print(('PASS: %s: %s' if ok else 'FAIL: %s: %s: ' + why) % (name, what))
check('arena found by the allocation probe (rule %s)' % a['rule'], a['rule'] == 'allocation',
      a['rule_text'])
check('base is LiteRT\'s own arena base 0x%x' % base, a['base'] == base, hex(a['base']))
check('plan arena == LiteRT\'s arena (%d bytes)' % nbytes, a['plan_bytes'] == nbytes,
      str(a['plan_bytes']))
slack = a['block']['size'] - a['plan_bytes']
check('block = plan + alignment slack (%d bytes: aligned_alloc(64, roundup(n + 63, 64)))'
      % slack, 63 <= slack <= 126 and a['block']['function'] == 'aligned_alloc',
      '%s(%d)' % (a['block']['function'], a['block']['size']))
ft = a['first_touch_pages']
check('every first-touched arena page attributed (%d of %d)' % (a['attributed_pages'], ft),
      ft > 0 and a['attributed_pages'] == ft and a['unplanned_pages'] == 0,
      '%d unplanned' % a['unplanned_pages'])
v = c['value'] or 0
check('consistency %.4f >= 0.99 (%d of %d run-0 first touches in plan order)'
      % (v, c['in_order'], c['run0_touches']), v >= 0.99, str(c['back'][:3]))
later = a['first_touch_later']
check('first touches in run 0, or before it for the inputs (%d before, %d in run 0, %d later)'
      % (a['first_touch_before_run0'], a['first_touch_run0'], later),
      later <= ft // 100 and a['first_touch_before_run0'] == a['first_touch_before_run0_inputs'],
      '%d before run 0 are not inputs' % (a['first_touch_before_run0'] -
                                          a['first_touch_before_run0_inputs']))
check('the correlator agrees: plan matches, base from the allocation',
      d['correlation']['plan_matches'] and d['correlation']['arena_base'] == base,
      str(d['correlation']['mismatch_reasons']))
w = d['weights']
check('weights: the model mapping, file-backed (%d faults, %d major)' % (w['faults'],
      w['major_faults']), w['mappings'] >= 1 and w['faults'] > 0, str(w))
PY
}

# xnnpack_checks NAME MODEL: on the default path report's --delegate auto takes the plan
# of the TFLite arena left beside XNNPACK, which must be LiteRT's own (litert-run
# --print-arena reads its ArenaPlanner); --delegate none, the builtin plan, must say it
# does not describe the trace and name what took the arena's place
xnnpack_checks() {
	local name=$1 model=$2 t=$TMP/$1
	local base nbytes

	base=$(truth_base "$t.out" allocate)
	nbytes=$(truth_bytes "$t.out" allocate)
	"$AP" report "$t.trace" --plan "$model" --delegate none --json >"$t.none.json" \
		2>"$t.none.err"
	MSG="exit $?: $(head -2 "$t.none.err")"
	check "$name: report --delegate none exits 0" [ -s "$t.none.json" ]
	python3 - "$t.json" "$t.none.json" "$base" "$nbytes" "$name" <<'PY'
import json, sys
d, n = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
base = int(sys.argv[3], 16) if sys.argv[3] else 0
nbytes, name = int(sys.argv[4] or 0), sys.argv[5]
def check(what, ok, why=''):
    print(('PASS: %s: %s' if ok else 'FAIL: %s: %s: ' + why) % (name, what))
a, p = d['arena_id'], d['correlation']['plan']
check('--delegate auto took XNNPACK\'s plan', (p['delegate'], p['delegate_chosen']) ==
      ('xnnpack', 'auto'), str(p))
check('its arena == LiteRT\'s own on the default path (%d bytes)' % nbytes,
      a['plan_bytes'] == nbytes, str(a['plan_bytes']))
check('found by the allocation probe (rule %s), at LiteRT\'s base' % a['rule'],
      a['rule'] == 'allocation' and a['base'] == base, '%s 0x%x vs 0x%x' % (
          a['rule_text'], a['base'], base))
ft = a['first_touch_pages']
check('every first-touched arena page attributed (%d of %d)' % (a['attributed_pages'], ft),
      ft > 0 and a['attributed_pages'] == ft and a['unplanned_pages'] == 0)
check('the plan matches (summary.plan_matches)', d['correlation']['plan_matches'] and
      d['summary']['plan_matches'] is True, str(d['correlation']['mismatch_reasons']))
a = n['arena_id']
check('--delegate none: the runtime\'s own arena found (rule %s)' % a['rule'],
      a['rule'] == 'runtime_block' and a['base'] == base, a['rule_text'])
check('--delegate none: arena much smaller than the plan (%d of %d bytes)' % (
      a['bytes'], a['plan_bytes']), a['bytes'] * 2 < a['plan_bytes'])
xnn = [c for c in n['not_planned']['callers'] if c['caller'].startswith('xnn_')]
big = sum(c['bytes'] for c in xnn)
check('--delegate none: names the memory in its place: %s, %d bytes' % (
      ', '.join(sorted({c['caller'].split(' ')[0] for c in xnn})), big),
      big > a['plan_bytes'] - a['bytes'], str(n['not_planned']['callers'][:3]))
check('--delegate none: the plan is said not to match',
      not n['correlation']['plan_matches'])
PY
	MSG="$(head -2 "$t.txt")"
	check "$name: the text verdict names the default path's arena" \
		grep -q "^layer      .*the TFLite arena left beside XNNPACK (LiteRT's default path) is as planned" "$t.txt"
}

main litert-mv2-none "$MV2" none && none_checks litert-mv2-none
# trace size (issue 13, docs/trace-cost.md): at most 16 bytes a fault over 2000 runs (the
# mapping snapshots of the start weigh more in fewer), and the second decoder
# (tests/hostile/unpack_trace.py, from man arenaprof-trace(5)) reads every record the same
t=$TMP/litert-mv2-none
if [ -f "$t.json" ]; then
	f=$(j "$t.json" "d['faults_total']")
	b=$(stat -c %s "$t.trace")
	MSG="$b bytes, $f faults: $(awk -v b="$b" -v f="$f" 'BEGIN { printf "%.2f", b / f }') bytes a fault"
	if [ "$RUNS" -ge 2000 ]; then
		check "litert-mv2-none: at most 16 trace bytes a fault ($MSG)" \
			awk -v b="$b" -v f="$f" 'BEGIN { exit !(f > 0 && b <= 16 * f) }'
	else
		skip "litert-mv2-none: 16 trace bytes a fault" "LITERT_RUNS=$RUNS < 2000 ($MSG)"
	fi
	python3 tests/hostile/unpack_trace.py "$t.trace" "$t.plain"
	"$AP" export "$t.trace" --format csv -o "$t.csv"
	"$AP" export "$t.plain" --format csv -o "$t.plain.csv"
	"$AP" report "$t.plain" --plan "$MV2" --json >"$t.plain.json"
	MSG="$(wc -l <"$t.csv") and $(wc -l <"$t.plain.csv") CSV lines"
	check "litert-mv2-none: the trace unpacked by the second decoder: the same faults and report" \
		python3 -c 'import json, sys
a, b = (json.load(open(f)) for f in sys.argv[1:3])
for d in a, b:
    del d["trace"]
sys.exit(not (a == b and open(sys.argv[3]).read() == open(sys.argv[4]).read()))' \
		"$t.json" "$t.plain.json" "$t.csv" "$t.plain.csv"
fi
main litert-face-none "$FACE" none && none_checks litert-face-none
main litert-mv2-xnnpack "$MV2" xnnpack && xnnpack_checks litert-mv2-xnnpack "$MV2"
main litert-face-xnnpack "$FACE" xnnpack && xnnpack_checks litert-face-xnnpack "$FACE"

# The heatmap of a none run against mininfer's for the same model (op markers there):
# the same operators light up the same offsets.
heat() {	# NAME MODEL
	local name=$1 model=$2 t=$TMP/$1
	"$AP" record -o "$t.mi.trace" --run-probe "$BUILD/mininfer:mininfer_invoke" \
		--op-probe "$BUILD/mininfer:mininfer_op:0" -- "$BUILD/mininfer" "$model" \
		--runs 20 >/dev/null 2>&1
	if ! "$AP" heatmap "$t.trace" --plan "$model" -o "$t.lr.csv" 2>"$t.herr" ||
	   ! "$AP" heatmap "$t.mi.trace" --plan "$model" -o "$t.mi.csv" 2>>"$t.herr"; then
		fail "$name: heatmaps" "$(head -2 "$t.herr")"
		return
	fi
	python3 - "$t.lr.csv" "$t.mi.csv" "$name" <<'PY'
import csv, sys
def load(p):
    rows = list(csv.reader(open(p)))
    return {r[0]: [int(x) for x in r[2:]] for r in rows[1:]}, len(rows[0]) - 2
lr, nl = load(sys.argv[1])
mi, nm = load(sys.argv[2])
name = sys.argv[3]
cols = max(nl, nm)
cells = eq = lit = lit_eq = 0
for k in set(lr) | set(mi):
    a = lr.get(k, []) + [0] * cols
    b = mi.get(k, []) + [0] * cols
    for i in range(cols):
        x, y = a[i] > 0, b[i] > 0
        cells += 1
        eq += x == y
        if x or y:
            lit += 1
            lit_eq += x and y
f, g = eq / cells, lit_eq / lit if lit else 0
print('%s: %s: heatmap vs mininfer: %d of %d cells equal (%.4f); lit in either: %d of %d '
      'lit in both (%.4f)' % ('PASS' if f >= 0.99 and g >= 0.9 else 'FAIL', name, eq, cells,
                             f, lit_eq, lit, g))
PY
}
heat litert-mv2-none "$MV2"
heat litert-face-none "$FACE"

# The arena inside [heap]: glibc's mmap threshold raised, the block is a heap chunk.
t=$TMP/heap
GLIBC_TUNABLES=glibc.malloc.mmap_threshold=33554432 "$AP" record -o "$t.trace" --runs 20 \
	-- "$LR" "$MV2" --runs 30 --print-arena >"$t.out" 2>"$t.err"
"$AP" report "$t.trace" --plan "$MV2" --json >"$t.json" 2>&1
python3 - "$t.json" "$(truth_base "$t.out" allocate)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, base = d['arena_id'], int(sys.argv[2], 16)
ok = a['rule'] == 'allocation' and a['base'] == base and a['in_larger_mapping'] and \
    a['attributed_pages'] == a['first_touch_pages'] > 0 and d['consistency']['value'] >= 0.99
print('%s: litert heap arena: base 0x%x inside a larger mapping found by the allocation probe, '
      '%d pages attributed, consistency %s%s' % ('PASS' if ok else 'FAIL', base,
      a['attributed_pages'], d['consistency']['value'], '' if ok else ': ' + str(a)))
PY

# A re-plan (batch 2 before run 10) moves the arena: followed to LiteRT's new buffer.
t=$TMP/replan
"$AP" record -o "$t.trace" -- "$LR" "$FACE" --runs 20 --resize-at 10 --print-arena \
	>"$t.out" 2>"$t.err"
"$AP" report "$t.trace" --plan "$FACE" --json >"$t.json" 2>&1
python3 - "$t.json" "$(truth_base "$t.out" resize)" "$(truth_bytes "$t.out" resize)" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
a, base, nbytes = d['arena_id'], int(sys.argv[2], 16), int(sys.argv[3])
m = a['moves']
ok = len(m) == 1 and m[0]['base'] == base and m[0]['bytes'] >= nbytes and \
    a['moved_first_touch_pages'] > 0 and len(d['arena_moves']) == 1
print('%s: litert re-plan followed: arena moved to 0x%x (%d bytes, LiteRT: %d), %d pages '
      'first touched there%s' % ('PASS' if ok else 'FAIL', m[0]['base'] if m else 0,
      m[0]['bytes'] if m else 0, nbytes, a['moved_first_touch_pages'], '' if ok else
      ': ' + str(m) + ' ' + str(d['arena_moves'])))
PY

# No run is missed: the run probe is attached before the first invoke.
t=$TMP/count
"$AP" record -o "$t.trace" -- "$LR" "$FACE" --runs 7 --delegate xnnpack >/dev/null 2>"$t.err"
"$AP" report "$t.trace" --json >"$t.json" 2>&1
MSG="$(j "$t.json" "d['runs']") runs counted"
check "litert: every run counted from the first (7 of 7)" [ "$(j "$t.json" "d['runs']")" = 7 ]

# Not catchable: a static binary (no C library to probe) and an --arena that points nowhere.
t=$TMP/static
if cc -std=gnu11 -D_GNU_SOURCE -Iinclude -I"$BUILD" -O1 -fno-inline-functions -static \
	tests/fixtures/mininfer.c "$BUILD/libarenaprof.a" -lm -o "$t.bin" 2>"$t.cc"; then
	# 2000 runs (about 0.1 s): 5 took 4 ms, and a third of the time the target had exited
	# before the recorder's first look at its mappings, which tell it there is no C library
	"$AP" record -o "$t.trace" --run-probe "$t.bin:mininfer_invoke" -- "$t.bin" "$MV2" \
		--runs 2000 >/dev/null 2>"$t.err"
	MSG="$(cat "$t.err")"
	check "static binary: record says its allocations cannot be caught" \
		grep -q "no C library in the target.s mappings, and no allocation call was seen" "$t.err"
	# one run: gone in about a millisecond, often before its mappings are read; record
	# must say "static binary?" either way, not stay silent
	"$AP" record -o "$t-1.trace" --run-probe "$t.bin:mininfer_invoke" -- "$t.bin" "$MV2" \
		--runs 1 >/dev/null 2>"$t-1.err"
	MSG="$(cat "$t-1.err")"
	check "static binary gone at once: record still asks whether it is static" \
		grep -q "(a static binary?)" "$t-1.err"
	"$AP" report "$t-1.trace" --plan "$MV2" --json >"$t-1.json" 2>&1
	MSG="$(j "$t-1.json" "d['arena_id']['rule_text']")"
	check "static binary gone at once: report says why it has no allocations" \
		[ "$(j "$t-1.json" "'static binary' in d['arena_id']['rule_text']")" = True ]
	"$AP" report "$t.trace" --plan "$MV2" --json >"$t.json" 2>&1
	MSG="$(j "$t.json" "d['arena_id']")"
	check "static binary: report names the fallback rule and attributes by the mapping" \
		[ "$(j "$t.json" "d['arena_id']['rule'] == 'mapping' and 'static binary' in \
d['arena_id']['rule_text'] and d['arena_id']['attributed_pages'] == 405")" = True ]
else
	skip "static binary" "cannot link statically: $(head -1 "$t.cc")"
fi
t=$TMP/nowhere
expect_refusal "report --arena pointing nowhere: refused with one line" 2 \
	"--arena 0x10 is in no mapping of the trace" \
	"$AP" report "$TMP/litert-mv2-none.trace" --plan "$MV2" --arena 0x10
"$AP" record -o "$t.trace" --arena 0x10 --run-probe "$BUILD/mininfer:mininfer_invoke" -- \
	"$BUILD/mininfer" "$MV2" --runs 3 >/dev/null 2>"$t.err"
MSG="$(cat "$t.err")"
check "record --arena pointing nowhere: a warning" grep -q "points nowhere" "$t.err"
"$AP" report "$t.trace" --plan "$MV2" --json >"$t.json" 2>&1
MSG="$(j "$t.json" "d['arena_id']")"
check "record --arena pointing nowhere: report attributes nothing" \
	[ "$(j "$t.json" "d['arena_id']['rule'] == 'none' and d['arena_id']['attributed_pages'] == 0")" = True ]
