#!/usr/bin/env bash
# mininfer, the tracer's fixture, without BPF: its --truth against independent
# computations (arenaprof plan --json/--csv, first touches recomputed here in Python), and
# against the kernel's view of the real process (/proc/<pid>/pagemap present bit, through
# --self-check after every run and from outside with --wait), branch and grow included.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

MI=${MININFER:-$BUILD/mininfer}
if [ ! -x "$MI" ]; then
	fail "mininfer built" "$MI missing (make $BUILD/mininfer)"
	exit 0
fi
PS=$(getconf PAGESIZE)
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
SC=$MODELS/split_concat.tflite
MV1=$MODELS/mobilenet_v1_0.25_128_quant.tflite
LSTM=$MODELS/keras_lstm_mnist_ptq.tflite
SELFIE=$MODELS/selfie_segmentation.tflite

# Compares a truth JSON with first touches computed from the plan CSV alone: graph inputs
# (writer -1) then, operator by operator, the tensors first allocated there (kind arena,
# output, temporary; sharers at their root's offset); the branch operator K only in runs
# r % E == E - 1. Reads are left out: they must never be the first touch (read_first_pages
# == 0 is checked). Prints "ok" or what differs.
check_truth_py() {	# TRUTH CSV PLAN_JSON RUNS K E
	python3 - "$@" "$PS" <<'PY'
import csv, json, sys
truth = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
plan = json.load(open(sys.argv[3]))
runs, k, e, ps = (int(x) for x in sys.argv[4:8])
errs = []
if truth['page_size'] != ps:
    errs.append('page_size %d' % truth['page_size'])
if truth['arena_bytes'] != plan['arena_bytes']:
    errs.append('arena_bytes %d, plan says %d' % (truth['arena_bytes'], plan['arena_bytes']))
npages = -(-plan['arena_bytes'] // ps)
if truth['arena_pages'] != npages:
    errs.append('arena_pages %d, want %d' % (truth['arena_pages'], npages))
if truth['read_first_pages'] != 0:
    errs.append('%d pages first touched by a read' % truth['read_first_pages'])
writers = {}
for r in rows:
    off, size = int(r['offset']), int(r['size'])
    if off < 0 or size <= 0:
        continue
    if r['kind'] == 'input':
        w = -1
    elif r['kind'] in ('arena', 'output', 'temporary'):
        w = int(r['first_node'])
    else:
        continue
    if off + size > plan['arena_bytes']:
        errs.append('tensor %s beyond the arena' % r['tensor'])
    writers.setdefault(w, []).append((off, size))
first = {}
for run in range(runs):
    for w in sorted(writers):
        if e and w == k and run % e != e - 1:
            continue
        for off, size in writers[w]:
            for p in range(off // ps, (off + size - 1) // ps + 1):
                first.setdefault(p, (w, run))
pages = truth['pages']
if [p['page'] for p in pages] != list(range(npages)):
    errs.append('pages list does not cover 0..%d in order' % (npages - 1))
for p in pages:
    want = first.get(p['page'], (None, None))
    if (p['op'], p['run']) != want:
        errs.append('page %d: truth %s/%s, recomputed %s/%s' % (p['page'], p['op'],
                    p['run'], want[0], want[1]))
        break
untouched = [p for p in range(npages) if p not in first]
if truth['untouched_pages'] != untouched:
    errs.append('untouched %s, recomputed %s' % (truth['untouched_pages'][:5], untouched[:5]))
per_op, per_run = {}, {}
for w, run in first.values():
    per_op[w] = per_op.get(w, 0) + 1
    per_run[run] = per_run.get(run, 0) + 1
if {o['index']: o['first_touch_pages'] for o in truth['ops']} != per_op:
    errs.append('ops %s, recomputed %s' % (truth['ops'], per_op))
if {o['run']: o['pages'] for o in truth['first_touch_by_run']} != per_run:
    errs.append('first_touch_by_run %s, recomputed %s' % (truth['first_touch_by_run'], per_run))
if truth['touched_pages'] != len(first):
    errs.append('touched_pages %d, recomputed %d' % (truth['touched_pages'], len(first)))
print('; '.join(errs) if errs else 'ok')
PY
}

# Compares --self-check output (the kernel's present bits) with the truth: after run r
# ("resident arena A after R count N pages LIST") the resident pages of the current arena
# are exactly those first touched in runs <= r, none before the first run on it
# ("before"), and the pages that became resident after each writer ("touched arena A run
# R op K count N", K = -1 for the graph inputs) are as many as the truth gives that
# operator in that run. Prints "ok" or what differs.
check_resident_py() {	# TRUTH SELFCHECK_OUT RUNS
	python3 - "$@" <<'PY'
import json, sys
truth = json.load(open(sys.argv[1]))
lines = [l.split() for l in open(sys.argv[2]) if l.startswith('resident ')]
runs = int(sys.argv[3])
arenas = [truth] + ([truth['grow']] if truth.get('grow') else [])
errs, seen = [], set()
def parse(lst):
    out = set()
    if lst == '-':
        return out
    for part in lst.split(','):
        a, _, b = part.partition('-')
        out.update(range(int(a), int(b or a) + 1))
    return out
for f in lines:
    a, when, run, count, lst = int(f[2]), f[3], int(f[4]), int(f[6]), f[8]
    got = parse(lst)
    if len(got) != count:
        errs.append('count %d but %d pages listed' % (count, len(got)))
    upto = run if when == 'after' else -1
    want = {p['page'] for p in arenas[a]['pages'] if p['run'] is not None and p['run'] <= upto}
    if got != want:
        errs.append('arena %d %s run %d: resident-only %s, truth-only %s' % (a, when, run,
                    sorted(got - want)[:8], sorted(want - got)[:8]))
    if when == 'after':
        seen.add(run)
        untouched = set(arenas[a]['untouched_pages'])
        if got & untouched:
            errs.append('untouched pages resident: %s' % sorted(got & untouched)[:8])
if seen != set(range(runs)):
    errs.append('resident lines for runs %s, want 0..%d' % (sorted(seen), runs - 1))
got = {}
for l in open(sys.argv[2]):
    f = l.split()
    if f[:1] == ['touched']:
        got[(int(f[2]), int(f[4]), int(f[6]))] = int(f[8])
    elif f[:1] == ['self-check'] and not l.rstrip().endswith(' ok'):
        errs.append(l.strip())
want = {}
for a, ar in enumerate(arenas):
    for p in ar['pages']:
        if p['run'] is not None:
            key = (a, p['run'], p['op'])
            want[key] = want.get(key, 0) + 1
if got != want:
    errs.append('per-operator new residents (arena, run, op): count: only seen %s, only '
                'in the truth %s' % (sorted(set(got.items()) - set(want.items()))[:6],
                                     sorted(set(want.items()) - set(got.items()))[:6]))
print('; '.join(errs) if errs else 'ok')
PY
}

# truth vs plan, recomputed first touches, and the process's resident pages
# model_case NAME MODEL RUNS [K E]
model_case() {
	local name=$1 m=$2 runs=$3 k=${4:--1} e=${5:-0} bopt=() r
	[ "$e" -gt 0 ] && bopt=(--branch-op "$k" --branch-every "$e")
	"$ARENAPROF" plan --delegate none "$m" --json >"$TMP/$name.plan.json" 2>/dev/null &&
		"$ARENAPROF" plan --delegate none "$m" --csv >"$TMP/$name.csv" 2>/dev/null ||
		{ fail "$name plan" "arenaprof plan $m failed"; return; }
	if ! "$MI" --truth "$m" --runs "$runs" "${bopt[@]}" >"$TMP/$name.truth.json" \
		2>"$TMP/err"; then
		fail "$name truth" "$(cat "$TMP/err")"
		return
	fi
	r=$(check_truth_py "$TMP/$name.truth.json" "$TMP/$name.csv" "$TMP/$name.plan.json" \
		"$runs" "$k" "$e")
	MSG=$r check "$name truth = plan arena_bytes and recomputed first touches" test "$r" = ok
	"$MI" "$m" --runs "$runs" "${bopt[@]}" --self-check >"$TMP/$name.sc" 2>"$TMP/err"
	r=$?
	MSG="exit $r: $(grep -m1 differ "$TMP/$name.sc") $(cat "$TMP/err")" \
		check "$name self-check passes" test "$r" = 0
	r=$(check_resident_py "$TMP/$name.truth.json" "$TMP/$name.sc" "$runs")
	MSG=$r check "$name resident pages after each run and operator = truth" test "$r" = ok
}

model_case mobilenet_v2 "$MV2" 3
model_case split_concat "$SC" 2
model_case mobilenet_v1 "$MV1" 2
model_case keras_lstm "$LSTM" 2
model_case selfie "$SELFIE" 2

# split_concat by hand: a 1152-byte arena, one page, first touched by the graph inputs
j=$TMP/split_concat.truth.json
r=$(python3 -c "import json,sys; d=json.load(open(sys.argv[1]))
print(d['arena_bytes'], d['arena_pages'], d['pages'])" "$j")
MSG="got $r" check "split_concat: 1152 bytes, page 0 by the inputs in run 0" \
	test "$r" = "1152 1 [{'page': 0, 'op': -1, 'run': 0}]"

# ---- branch: mobilenet_v2 op 3 (CONV_2D 112x112x96) every 3rd run ----
K=3 E=3
model_case mobilenet_v2_branch "$MV2" 5 $K $E
j=$TMP/mobilenet_v2_branch.truth.json
r=$(python3 - "$j" "$TMP/mobilenet_v2_branch.csv" "$PS" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
ps = int(sys.argv[3])
late = [p['page'] for p in d['pages'] if p['run'] == 2]
bad = [p for p in d['pages'] if p['run'] not in (0, 2)]
# every late page lies in op 3's outputs and was first touched by op 3
k_pages = set()
for r in csv.DictReader(open(sys.argv[2])):
    if r['first_node'] == '3' and r['kind'] in ('arena', 'output', 'temporary'):
        o, s = int(r['offset']), int(r['size'])
        k_pages.update(range(o // ps, (o + s - 1) // ps + 1))
ops = {p['op'] for p in d['pages'] if p['run'] == 2}
print(len(late) > 0 and not bad and set(late) <= k_pages and ops == {3},
      d['branch'], d['first_touch_by_run'])
PY
)
MSG="got $r" check "mobilenet_v2 branch: late pages only in run E-1=2, all op 3's" \
	test "${r%% *}" = True
sc=$TMP/mobilenet_v2_branch.sc
late=$(python3 -c "import json,sys
print(sum(p['run'] == 2 for p in json.load(open(sys.argv[1]))['pages']))" "$j")
c0=$(awk '$1 == "resident" && $4 == "after" && $5 == 0 { print $7 }' "$sc")
c1=$(awk '$1 == "resident" && $4 == "after" && $5 == 1 { print $7 }' "$sc")
c2=$(awk '$1 == "resident" && $4 == "after" && $5 == 2 { print $7 }' "$sc")
pages=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['arena_pages'])" "$j")
MSG="resident after runs 0,1,2: $c0 $c1 $c2; arena $pages, late $late" \
	check "mobilenet_v2 branch: $late pages become resident in run 2, not before" \
	test "$c0" = "$c1" -a "$c2" = "$pages" -a "$((c2 - c1))" = "$late" -a "$late" -gt 0

# ---- grow: mobilenet_v2, runs 0-1 on the first arena, 2-3 on a bigger one ----
"$MI" --truth "$MV2" --runs 4 --grow-at 2 >"$TMP/grow.json" 2>"$TMP/err"
r=$(python3 - "$TMP/grow.json" "$TMP/mobilenet_v2.truth.json" <<'PY'
import json, sys
d, base = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
g = d.get('grow') or {}
ok = (d['grow_at'] == 2 and d['pages'] == base['pages'] and g.get('run') == 2
      and base['arena_bytes'] < g['arena_bytes'] <= 2 * base['arena_bytes'] + 64 * 200
      and len(g['pages']) == g['arena_pages']
      and {p['run'] for p in g['pages'] if p['run'] is not None} == {2}
      and g['read_first_pages'] == 0)
print(ok, d['arena_bytes'], g.get('arena_bytes'), g.get('first_touch_by_run'))
PY
)
MSG="got $r" check "mobilenet_v2 grow truth: bigger second arena, all first touches in run 2" \
	test "${r%% *}" = True
"$MI" "$MV2" --runs 4 --grow-at 2 --self-check >"$TMP/grow.sc" 2>"$TMP/err"
r=$?
MSG="exit $r: $(grep -m1 differ "$TMP/grow.sc") $(cat "$TMP/err")" \
	check "mobilenet_v2 grow self-check passes" test "$r" = 0
r=$(check_resident_py "$TMP/grow.json" "$TMP/grow.sc" 4)
MSG=$r check "mobilenet_v2 grow: resident pages of both arenas, per run and operator = truth" \
	test "$r" = ok
a0=$(awk '$1 == "arena" { print $2 }' "$TMP/grow.sc")
g=$(awk '$1 == "grow" { print $3, $5, $7, $9 }' "$TMP/grow.sc")
want=$(python3 -c "import json,sys; g=json.load(open(sys.argv[1]))['grow']
print(g['run'], g['arena_bytes'], g['arena_pages'])" "$TMP/grow.json")
MSG="grow line '$g', truth '$want', first arena $a0" \
	check "mobilenet_v2 grow line: run, new address, truth's bytes and pages" \
	test "${g%% *} ${g#* * }" = "$want" -a "$(echo "$g" | cut -d' ' -f2)" != "$a0"

# ---- the process from outside: --wait, maps and pagemap before run 0 ----
coproc MIP { exec "$MI" "$MV2" --runs 3 --wait 2>"$TMP/wait.err"; }
pid=$MIP_PID
# bash drops MIP[] once the coprocess is reaped: keep copies of its pipes
exec {mi_out}<&"${MIP[0]}" {mi_in}>&"${MIP[1]}"
IFS= read -r -t 20 line <&"$mi_out"
r=$(python3 - "$pid" "$line" "$PS" "$(realpath "$MV2")" <<'PY'
import re, struct, sys
pid, line, ps, model = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
m = re.fullmatch(r'arena 0x([0-9a-f]+) bytes (\d+) pages (\d+)', line)
if not m:
    print('bad arena line %r' % line); sys.exit()
addr, nbytes, pages = int(m[1], 16), int(m[2]), int(m[3])
errs = []
if pages != -(-nbytes // ps):
    errs.append('pages %d for %d bytes' % (pages, nbytes))
maps = [l.split() for l in open('/proc/%s/maps' % pid)]
arena = [f for f in maps if int(f[0].split('-')[0], 16) == addr]
if not arena:
    errs.append('no mapping starts at the arena address')
else:
    f = arena[0]
    lo, hi = (int(x, 16) for x in f[0].split('-'))
    if hi - lo != pages * ps or f[1] != 'rw-p' or len(f) > 5:
        errs.append('arena mapping %s' % ' '.join(f))
if not any(len(f) > 5 and f[5] == model and f[1] == 'r--p' for f in maps):
    errs.append('model not mapped read-only')
with open('/proc/%s/pagemap' % pid, 'rb') as pm:
    pm.seek(addr // ps * 8)
    ents = struct.unpack('%dQ' % pages, pm.read(8 * pages))
res = sum(e >> 63 for e in ents)
if res:
    errs.append('%d arena pages resident before run 0' % res)
print('; '.join(errs) if errs else 'ok')
PY
)
echo >&"$mi_in"
exec {mi_in}>&-
rest=$(grep -v '^timing ' <&"$mi_out")
exec {mi_out}<&-
wait "$pid"
rc=$?
MSG=$r check "--wait: one anonymous arena mapping of the printed size, model mapped r--p, \
no arena page resident before run 0" test "$r" = ok
MSG="exit $rc, '$rest', stderr: $(cat "$TMP/wait.err")" \
	check "--wait: runs after a line on stdin" test "$rc" = 0 -a "$rest" = "done runs 3"

# without --wait the arena line comes first, then 'done'
out=$("$MI" "$SC" --runs 2 </dev/null)
MSG="got '$out'" check "arena line first, done last" \
	grep -Eq '^arena 0x[0-9a-f]+ bytes 1152 pages 1$' <<<"$(head -1 <<<"$out")"

# uprobe markers are exported
syms=$(nm -D "$MI" 2>/dev/null | awk '$2 == "T" && $3 ~ /^mininfer_/ { print $3 }' |
	sort | tr '\n' ' ')
MSG="got '$syms'" check "mininfer_grow, mininfer_invoke, mininfer_op exported" \
	test "$syms" = "mininfer_grow mininfer_invoke mininfer_op "

# ---- bad input: one line on stderr, exit 2 ----
printf 'TFL3 this is not a model' >"$TMP/corrupt.tflite"
head -c 1000 "$MV2" >"$TMP/truncated.tflite"
bad_case() {	# NAME ARGS...
	local name=$1; shift
	"$MI" "$@" >"$TMP/bad.out" 2>"$TMP/bad.err"
	local rc=$? n
	n=$(wc -l <"$TMP/bad.err")
	MSG="exit $rc, $n stderr lines: $(head -3 "$TMP/bad.err")" \
		check "bad input: $name -> exit 2, one stderr line" test "$rc" = 2 -a "$n" = 1
}
bad_case "missing model" "$TMP/none.tflite"
bad_case "missing model (--truth)" --truth "$TMP/none.tflite"
bad_case "corrupt model" "$TMP/corrupt.tflite"
bad_case "truncated model" --truth "$TMP/truncated.tflite"
bad_case "no model"
bad_case "two models" "$SC" "$SC"
bad_case "--runs 0" "$SC" --runs 0
bad_case "--runs x" "$SC" --runs x
bad_case "--runs without value" "$SC" --runs
bad_case "--branch-op alone" "$SC" --branch-op 1
bad_case "--branch-every 0" "$SC" --branch-op 1 --branch-every 0
bad_case "--branch-op past the operators" "$SC" --branch-op 3 --branch-every 2
bad_case "--grow-at >= runs" "$SC" --runs 3 --grow-at 3
bad_case "--grow-at 0" "$SC" --runs 3 --grow-at 0
bad_case "unknown option" "$SC" --frobnicate
