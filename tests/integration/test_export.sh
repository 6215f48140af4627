#!/usr/bin/env bash
# arenaprof export on a mininfer trace (root, BPF): Chrome trace-event JSON that parses,
# every event with ph/ts/pid/tid/name, run and operator slices from the markers, a fault
# instant per fault or per-operator counts past --max-instants, counters; one CSV row per
# fault with its attribution; --format json is report's JSON.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

MI=$BUILD/mininfer
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
RUNS=${EXPORT_RUNS:-200}
if [ "$(id -u)" != 0 ]; then
	fail "export tests need root" "run make check as root (BPF)"
	exit 1
fi
t=$TMP/mv2.trace
if ! "$ARENAPROF" record -o "$t" --run-probe "$MI:mininfer_invoke" \
	--op-probe "$MI:mininfer_op:0" -- "$MI" "$MV2" --runs "$RUNS" >/dev/null 2>"$TMP/rec.err"; then
	fail "record" "$(tail -3 "$TMP/rec.err")"
	exit 1
fi
"$ARENAPROF" report "$t" --plan "$MV2" --json --pages >"$TMP/report.json"

"$ARENAPROF" export "$t" --plan "$MV2" -o "$TMP/chrome.json"	# .json: chrome
MSG="exit $?" check "chrome: exit 0" test -s "$TMP/chrome.json"
r=$(python3 - "$TMP/chrome.json" "$TMP/report.json" "$RUNS" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
rep = json.load(open(sys.argv[2]))
runs = int(sys.argv[3])
ev = d['traceEvents']
out = []
out.append(all(all(k in e for k in ('ph', 'ts', 'pid', 'tid', 'name')) for e in ev))
# B/E balanced per thread, properly nested
ok = True
stack = collections.defaultdict(list)
for e in ev:
    if e['ph'] == 'B':
        stack[e['tid']].append(e['name'])
    elif e['ph'] == 'E':
        ok = ok and bool(stack[e['tid']]) and stack[e['tid']].pop() == e['name']
out.append(ok and not any(stack.values()))
out.append(sum(1 for e in ev if e['ph'] == 'B' and e.get('cat') == 'run') == runs)
out.append(sum(1 for e in ev if e['ph'] == 'B' and e.get('cat') == 'op') == runs * 66)
out.append(sum(1 for e in ev if e['ph'] == 'i' and e.get('cat') == 'fault') == rep['faults_total'])
names = {e['name'] for e in ev if e['ph'] == 'C'}
out.append({'VmRSS', 'Pss_Anon', 'arena resident'} <= names)
res = [e['args']['bytes'] for e in ev if e['ph'] == 'C' and e['name'] == 'arena resident']
out.append(res[-1] == rep['arena']['first_touch_pages'] * rep['page_size'])
first = [e for e in ev if e['ph'] == 'i' and e['args'].get('first_touch')]
out.append(len(first) == rep['arena']['first_touch_pages'])
out.append(all(e['args']['op_plan'] == e['args']['op_marker'] for e in first))
out.append(any(e['ph'] == 'M' and e['name'] == 'thread_name' for e in ev))
print(' '.join(str(x) for x in out))
PY
)
MSG="fields, nesting, runs, ops, fault instants, counters, final resident, first touches, plan==marker, thread names: $r" \
	check "chrome: parses; every event has ph/ts/pid/tid/name; run and op slices nest per thread; an instant per fault; counters VmRSS, Pss_Anon, arena resident" \
	test "$r" = "True True True True True True True True True True"
# PSI: the synthetic trace of bench/synth_trace.c has PSI in its samples (12.34 %, 5.67 %)
cc=${CC:-gcc}
if $cc -std=gnu11 -D_GNU_SOURCE -O2 -Iinclude bench/synth_trace.c "$BUILD/libarenaprof.a" \
	$(pkg-config --libs libbpf libelf libdw zlib libpng 2>/dev/null) -lm -o "$TMP/synth_trace" 2>"$TMP/cc.err"; then
	"$TMP/synth_trace" "$MV2" "$TMP/synth.trace" --faults 20000 >/dev/null
	"$ARENAPROF" export "$TMP/synth.trace" --plan "$MV2" --format chrome -o "$TMP/synth.json"
	r=$(python3 -c "
import json; ev = json.load(open('$TMP/synth.json'))['traceEvents']
p = [e['args'] for e in ev if e['ph'] == 'C' and e['name'].startswith('PSI')]
print(len(p) > 0 and p[0] == {'some': 12.34, 'full': 5.67})")
	MSG="$r" check "chrome: a PSI counter track (some/full avg10 %) from the samples" test "$r" = True
else
	fail "build bench/synth_trace.c" "$(head -3 "$TMP/cc.err")"
fi

# very many faults: per-operator counts instead of instants
"$ARENAPROF" export "$t" --plan "$MV2" --format chrome --max-instants 10 -o "$TMP/counts.json"
r=$(python3 - "$TMP/counts.json" "$TMP/report.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
rep = json.load(open(sys.argv[2]))
inst = sum(1 for e in ev if e['ph'] == 'i' and e.get('cat') == 'fault')
ends = [e for e in ev if e['ph'] == 'E' and e.get('cat') == 'op']
arena = sum(e['args']['arena_faults'] for e in ends)
# every arena fault but the graph inputs' (written before operator 0) is inside a slice
inputs = [o['marker_pages'] for o in rep['correlation']['ops'] if o['index'] == -1][0]
print(inst, arena == rep['arena']['first_touch_pages'] - inputs,
      any(e['ph'] == 'C' and e['name'] == 'faults per operator' for e in ev))
PY
)
MSG="instants, op-slice arena faults == first touches - inputs, counter: $r" \
	check "chrome --max-instants 10: no fault instants; fault counts on the operator slices and a counter" \
	test "$r" = "0 True True"

# csv: one row per fault
"$ARENAPROF" export "$t" --plan "$MV2" -o "$TMP/faults.csv"	# the format from the name
r=$(python3 - "$TMP/faults.csv" "$TMP/report.json" <<'PY'
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
rep = json.load(open(sys.argv[2]))
arena = [r for r in rows if r['group'] == 'arena']
first = [r for r in arena if r['first_touch'] == '1']
weights = [r for r in rows if r['group'] == 'weights']
print(len(rows) == rep['faults_total'], len(first) == rep['arena']['first_touch_pages'],
      all(r['op_plan'] == r['op_marker'] for r in first), len(weights) > 0,
      all(int(r['arena_offset']) >= 0 for r in arena))
PY
)
MSG="rows, first touches, plan==marker, weights rows, offsets: $r" \
	check "csv: a row per fault; arena first touches with plan attribution equal to the marker" \
	test "$r" = "True True True True True"

# json: report's JSON
"$ARENAPROF" export "$t" --plan "$MV2" --format json -o "$TMP/export.json"
check "json: equals report --json --pages" cmp -s "$TMP/export.json" "$TMP/report.json"

# without a plan: still exports, no attribution
"$ARENAPROF" export "$t" --format chrome -o - >"$TMP/noplan.json" 2>/dev/null
check "chrome without --plan, to stdout: parses" python3 -c "import json; json.load(open('$TMP/noplan.json'))"

# bad input
"$ARENAPROF" export "$t" --format xml -o "$TMP/x" 2>"$TMP/bad.err"
MSG="exit $?" check "bad --format: exit 2" test "$?" = 2 -o -n "$(grep 'needs --format' "$TMP/bad.err")"
"$ARENAPROF" export "$t" --format chrome >/dev/null 2>"$TMP/bad.err"
rc=$?
MSG="exit $rc" check "no -o: exit 2" test "$rc" = 2
printf 'junk' >"$TMP/junk.trace"
"$ARENAPROF" export "$TMP/junk.trace" --format csv -o "$TMP/x.csv" 2>"$TMP/bad.err"
rc=$?
MSG="exit $rc $(cat "$TMP/bad.err")" check "not a trace: exit 2" test "$rc" = 2
