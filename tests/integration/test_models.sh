#!/usr/bin/env bash
# Several models in one process (report --plan A --plan B): a LiteRT script that runs a
# detector then a second model every frame (tests/litert/two_models.py), on the builtin
# kernels and on LiteRT's default path (XNNPACK), loaded from files and from bytes
# (model_content=). Ground truth: each interpreter's arena as LiteRT's own ArenaPlanner
# holds it (its base and size, read from the process by litert_plan.py), and the frames
# the script ran (each model invoked once a frame).
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

AP=$ARENAPROF
FD=$MODELS/face_detection_short_range.tflite
MB=$MODELS/mobilenet_v1_0.25_128_quant.tflite
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
FRAMES=${MODELS_FRAMES:-2000}

if [ "$(id -u)" != 0 ]; then
	skip "models" "needs root (BPF)"
	exit 0
fi
if ! "$venv/bin/python" -c 'import numpy, ai_edge_litert' 2>/dev/null; then
	fail "models" "no LiteRT in $venv (run scripts/install-deps)"
	exit 0
fi

# j FILE EXPR: a value of a JSON file (python expression over d)
j() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# run_case NAME FRAMES MATCH ARGS...: record the script, report both models, check them
# against the arenas LiteRT printed; MATCH: per model, 1 when its plan must match (0: the
# page count check cannot tell, see the content case)
run_case() {
	local name=$1 frames=$2 match=$3 t=$TMP/$1.trace rc k base bytes want
	shift 3
	"$AP" record -q -o "$t" --runs $((2 * frames)) -- "$venv/bin/python" \
		tests/litert/two_models.py --runs "$frames" "$@" "$FD" "$MB" \
		>"$TMP/$name.out" 2>"$TMP/$name.err"
	rc=$?
	MSG="exit $rc: $(tail -3 "$TMP/$name.err")"
	check "$name: record of $frames frames of two models exits 0" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || return
	MSG=$(cat "$TMP/$name.out")
	check "$name: the script ran $frames frames and LiteRT showed both arenas" \
		sh -c 'grep -qx "frames $1" "$2" && [ $(grep -c "^model [01] arena 0x" "$2") = 2 ]' \
		_ "$frames" "$TMP/$name.out"
	"$AP" report "$t" --plan "$FD" --plan "$MB" --json >"$TMP/$name.json" 2>"$TMP/$name.rerr"
	rc=$?
	MSG="exit $rc: $(head -3 "$TMP/$name.rerr")"
	check "$name: report --plan A --plan B --json exits 0" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || return
	MSG=$(j "$TMP/$name.json" "len(d['models'])")
	check "$name: two models in models[]" [ "$MSG" = 2 ]
	for k in 0 1; do
		read -r base bytes < <(sed -n "s/^model $k arena \(0x[0-9a-f]*\) bytes \([0-9]*\).*/\1 \2/p" \
			"$TMP/$name.out")
		MSG=$(j "$TMP/$name.json" "'%x %d' % (d['models'][$k]['arena_base'] or 0,
			d['models'][$k]['arena_bytes'])")
		check "$name: model $((k + 1))'s arena is LiteRT's ($base, $bytes bytes)" \
			[ "$MSG" = "${base#0x} $bytes" ]
		if [ "${match:$k:1}" = 1 ]; then
			MSG=$(j "$TMP/$name.json" "d['models'][$k]['plan_matches']")
			check "$name: model $((k + 1))'s plan matches" [ "$MSG" = True ]
		fi
		MSG=$(j "$TMP/$name.json" "d['models'][$k]['runs'], d['models'][$k]['runs_rule']")
		check "$name: model $((k + 1)) ran $frames runs, told apart by its interpreter" \
			sh -c '[ "$1" = "$2 first_touches" ] || [ "$1" = "$2 order" ]' _ "$MSG" "$frames"
		MSG=$(j "$TMP/$name.json" "d['models'][$k]['first_touch_pages'],
			d['models'][$k]['attributed_pages'], d['models'][$k]['median_ms']")
		check "$name: model $((k + 1))'s first-touched arena pages all named, a median run" \
			sh -c 'set -- $1; [ "$1" -gt 0 ] && [ "$1" = "$2" ] && [ "$3" != None ]' _ "$MSG"
	done
	MSG=$(j "$TMP/$name.json" "d['models'][0]['interpreter'] != d['models'][1]['interpreter']")
	check "$name: two interpreters" [ "$MSG" = True ]
	"$AP" report "$t" --plan "$FD" --plan "$MB" >"$TMP/$name.txt" 2>&1
	MSG=$(grep -E "^model [12] " "$TMP/$name.txt")
	check "$name: the verdict has a line per model with its runs" \
		sh -c '[ $(printf "%s\n" "$1" | grep -c "^model [12] .*: $2 runs (first") = 2 ]' \
		_ "$MSG" "$frames"
}

run_case builtin "$FRAMES" 11 --delegate none
# one model given: its own runs, not the process's, when its runs first touched its arena
"$AP" report "$TMP/builtin.trace" --plan "$FD" --json >"$TMP/one.json" 2>/dev/null
MSG=$(j "$TMP/one.json" "d['models'][0]['runs'], d['models'][0]['runs_rule'], d['runs']")
check "one --plan of two interpreters: that model's $FRAMES runs, of the process's $((2 * FRAMES))" \
	[ "$MSG" = "$FRAMES first_touches $((2 * FRAMES))" ]
# --budget: the models' share is both plans' (plan A B's sum)
"$AP" report "$TMP/builtin.trace" --plan "$FD" --plan "$MB" --budget 1G --json \
	>"$TMP/budget.json" 2>/dev/null
"$AP" plan "$FD" "$MB" --delegate none --json >"$TMP/plan2.json" 2>/dev/null
MSG="report $(j "$TMP/budget.json" "d['budget']['model_bytes']") plan $(j "$TMP/plan2.json" \
	"d['total_bytes']")"
check "--budget with two models: their share is the sum of both plans" \
	sh -c 'set -- $1; [ "$2" = "$4" ] && [ "$2" -gt 0 ]' _ "$MSG"
# weights: each model's file mapped and faulted
MSG=$(j "$TMP/builtin.json" "[m['weights_pages'] for m in d['models']]")
check "builtin: each model's own file pages (weights) counted" \
	python3 -c 'import sys; w = eval(sys.argv[1]); sys.exit(not all(x > 0 for x in w))' "$MSG"

run_case xnnpack "$FRAMES" 11 --delegate xnnpack
# from bytes: the second arena lands in [heap] pages the kernel made resident (read(2)
# fills them without a user fault), so too few of its pages fault to judge its plan
run_case content 200 10 --delegate none --load content
MSG=$(j "$TMP/content.json" "[m['weights_pages'] for m in d['models']]")
check "content: models loaded from bytes map no file: 0 weights pages each" [ "$MSG" = "[0, 0]" ]
# the copy found: a block of each file's size (stat's), its header at most a page more
for k in 0 1; do
	m=$([ $k = 0 ] && echo "$FD" || echo "$MB")
	MSG="$(j "$TMP/content.json" "d['models'][$k]['weights_held'], d['models'][$k]['weights_copy_bytes']") file $(stat -c %s "$m")"
	check "content: model $((k + 1))'s weights a copy in anonymous memory of its file's size" \
		sh -c 'set -- $1; [ "$1" = copy ] && [ "$2" -ge "$4" ] && [ "$2" -le $(($4 + 4096)) ]' _ "$MSG"
done
MSG=$(j "$TMP/builtin.json" "[m['weights_held'] for m in d['models']]")
check "builtin: models loaded from files: their weights file-backed" [ "$MSG" = "['file', 'file']" ]
# plan --weights copy: the weights counted anonymous, none reclaimable
"$AP" plan "$MB" --weights copy --json >"$TMP/wc.json" 2>/dev/null
"$AP" plan "$MB" --json >"$TMP/wm.json" 2>/dev/null
MSG="$(j "$TMP/wc.json" "d['weights_held'], d['anonymous_bytes'] - d['weights_bytes']") $(j "$TMP/wm.json" "d['weights_held'], d['anonymous_bytes']")"
check "plan --weights copy: the weights join the anonymous bytes" \
	sh -c 'set -- $1; [ "$1" = copy ] && [ "$3" = mmap ] && [ "$2" = "$4" ]' _ "$MSG"

# refusals: too many models, and a command that takes one
args=()
for k in 1 2 3 4 5 6 7 8 9; do args+=(--plan "$MB"); done
expect_refusal "report: at most 8 models" 2 "at most 8 models" \
	"$AP" report "$TMP/builtin.trace" "${args[@]}"
expect_refusal "export: --plan given twice is refused" 2 "takes one model" \
	"$AP" export "$TMP/builtin.trace" --plan "$FD" --plan "$MB" -o "$TMP/e.json"

# heatmap with both plans: one matrix, each model's rows under its name. Checked against
# the models' own numbers (report's models[]) and LiteRT's arenas (the script's lines).
cat >"$TMP/hm_sums.py" <<'PY'
import csv, json, os, re, sys
csvf, rep, out = sys.argv[1:4]
rows = list(csv.reader(open(csvf)))
d = json.load(open(rep))
arena = {int(m.group(1)): int(m.group(2)) for m in
	 re.finditer(r"^model (\d) arena 0x[0-9a-f]+ bytes (\d+)", open(out).read(), re.M)}
offs = [int(o) for o in rows[0][3:]]
bad = []
for k, m in enumerate(d["models"]):
	name = os.path.basename(m["model"])
	mine = [r for r in rows[1:] if r[0] == name]
	total = sum(int(v) for r in mine for v in r[3:])
	named = sum(int(v) for r in mine if r[1] != "none" for v in r[3:])
	last = max([offs[i] for r in mine for i, v in enumerate(r[3:]) if int(v)] or [-1])
	tag = name[:7]
	if total != m["first_touch_pages"] or named != m["attributed_pages"]:
		bad.append(f"{name}: rows {total} (named {named}), report {m['first_touch_pages']}"
			   f" ({m['attributed_pages']})")
	if not mine or any(not r[2].startswith(tag) or ":" not in r[2] for r in mine):
		bad.append(f"{name}: {len(mine)} rows, not all labelled {tag}...:op")
	# a page past its LiteRT arena's end (and the page its base is in) is another's
	if last < 0 or last >= arena[k] + 4096:
		bad.append(f"{name}: last page at {last}, LiteRT's arena {arena[k]} bytes")
# columns are each model's own offsets: the first's (the larger) reach past the second's
first = os.path.basename(d["models"][0]["model"])
if arena[0] > arena[1] + 4096 and not any(int(v) for r in rows[1:] if r[0] == first
					  for o, v in zip(offs, r[3:]) if o >= arena[1] + 4096):
	bad.append("the first model's pages do not reach past the second's arena")
print("; ".join(bad) or "ok")
PY
hm_case() {
	local name=$1 t=$TMP/$1.trace rc
	"$AP" heatmap "$t" --plan "$FD" --plan "$MB" --attr plan -o "$TMP/$name.hm.csv" \
		>/dev/null 2>"$TMP/$name.hm.err"
	rc=$?
	MSG="exit $rc: $(cat "$TMP/$name.hm.err")"
	check "$name: heatmap --plan A --plan B exits 0" [ "$rc" = 0 ]
	[ "$rc" = 0 ] || return
	MSG=$(python3 "$TMP/hm_sums.py" "$TMP/$name.hm.csv" "$TMP/$name.json" "$TMP/$name.out")
	check "$name: heatmap: each model's rows sum to its first-touched and named arena pages, within LiteRT's arena" \
		[ "$MSG" = ok ]
	"$AP" heatmap "$t" --plan "$FD" --plan "$MB" --faults all -o "$TMP/$name.all.csv" \
		>/dev/null 2>&1
	MSG=$(python3 -c '
import csv, sys
a = list(csv.reader(open(sys.argv[1])))[1:]
f = list(csv.reader(open(sys.argv[2])))[1:]
s = lambda rows, m: sum(int(v) for r in rows if r[0] == m for v in r[3:])
print(*[s(f, m) >= s(a, m) > 0 for m in sorted({r[0] for r in a})])' \
		"$TMP/$name.hm.csv" "$TMP/$name.all.csv" 2>&1)
	check "$name: heatmap --faults all: each model's faults at least its first touches" \
		[ "$MSG" = "True True" ]
	"$AP" heatmap "$t" --plan "$FD" --plan "$MB" -o "$TMP/$name.png" >/dev/null 2>&1
	rc=$?
	MSG="exit $rc: $(file "$TMP/$name.png" 2>&1)"
	check "$name: heatmap of two models as a PNG" \
		sh -c '[ "$1" = 0 ] && head -c 8 "$2" | od -An -tx1 | grep -q "89 50 4e 47"' \
		_ "$rc" "$TMP/$name.png"
}
hm_case builtin
hm_case xnnpack
expect_refusal "heatmap --region workspace with two plans is refused" 2 "one --plan" \
	"$AP" heatmap "$TMP/xnnpack.trace" --plan "$FD" --plan "$MB" --region workspace \
	-o "$TMP/ws.csv"

# top TRACE --plan A --plan B: the models panel, a row each, at 80x24 and 200x50. Checked
# against LiteRT (each arena's base and size, the frames the script ran).
tui_case() {
	local name=$1 sock=ap-models-$$ scr k base bytes row wide
	T() { tmux -L "$sock" "$@"; }
	T new-session -d -s main -x 80 -y 24 "$AP top $TMP/$name.trace --plan $FD --plan $MB; \
		sleep 60"
	sleep 0.5
	T send-keys -t main + + + + + + ' '	# 64 times the pace, then play
	for _ in $(seq 100); do
		scr=$(T capture-pane -p -t main)
		grep -q "end of the trace" <<<"$scr" && break
		sleep 0.2
	done
	MSG=$scr check "$name: top TRACE at 80x24: a models row each, no line over 80 columns" \
		sh -c 'printf "%s\n" "$1" | grep -q "^models    1 face_" &&
			printf "%s\n" "$1" | grep -q "^          2 mobilenet" &&
			printf "%s\n" "$1" | python3 -c "import sys
sys.exit(any(len(r) > 80 for r in sys.stdin.read().split(\"\\n\")))"' _ "$scr"
	T resize-window -t main -x 200 -y 50
	sleep 1
	wide=$(T capture-pane -p -t main)
	T kill-server 2>/dev/null
	for k in 0 1; do
		read -r base bytes < <(sed -n "s/^model $k arena \(0x[0-9a-f]*\) bytes \([0-9]*\).*/\1 \2/p" \
			"$TMP/$name.out")
		row=$(grep -E "^(models)? +$((k + 1)) " <<<"$wide" | cut -c1-100)
		MSG="$row (LiteRT: $base, $bytes bytes, $FRAMES frames)"
		check "$name: top's model $((k + 1)): its $FRAMES runs, LiteRT's arena, its pages all named and within it" \
			python3 -c '
import re, sys
row, base, size, frames = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3]), sys.argv[4]
m = re.search(r"runs (\d+) +arena \S+ +named (\d+)/(\d+)pg +at 0x([0-9a-f]+)", row)
span = ((base + size + 4095) // 4096) - base // 4096
sys.exit(not (m and m.group(1) == frames and int(m.group(4), 16) == base and
	      0 < int(m.group(3)) <= span and m.group(2) == m.group(3)))' "$row" "$base" "$bytes" \
			"$FRAMES"
	done
}
if command -v tmux >/dev/null; then
	tui_case builtin
	tui_case xnnpack
else
	skip "models: top TRACE" "tmux is not installed (scripts/install-deps installs it)"
fi
