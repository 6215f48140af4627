#!/usr/bin/env bash
# Correlation and heatmaps on mininfer traces (root, BPF): plan and marker attribution
# agree on every first-touch page of MobileNet v2 over 2000 runs and each operator's row
# equals mininfer --truth; --branch-op puts the late pages in the predicted run rows;
# SVG, PNG, CSV and terminal renderings of one matrix; --faults all on a refault trace;
# a plan of another model is refused; a browser renders the SVG.
cd "$(dirname "$0")/../.." || exit 1
. tests/lib.sh

MI=$BUILD/mininfer
MV2=$MODELS/mobilenet_v2_1.0_224_quant.tflite
OTHER=$MODELS/mobilenet_v1_0.25_128_quant.tflite
RUNS=${RECORD_RUNS:-2000}
PY=python3
[ -x /opt/arenaprof-venv/bin/python ] && PY=/opt/arenaprof-venv/bin/python
ART=$(realpath -m "$BUILD/artifacts")
mkdir -p "$ART"
if [ "$(id -u)" != 0 ]; then
	fail "heatmap tests need root" "run make check as root (BPF)"
	exit 1
fi
markers=(--run-probe "$MI:mininfer_invoke" --op-probe "$MI:mininfer_op:0")

record() {	# record LABEL MININFER-ARGS...
	local label=$1; shift
	if ! "$ARENAPROF" record -o "$TMP/$label.trace" "${markers[@]}" -- "$MI" "$MV2" "$@" \
		>/dev/null 2>"$TMP/$label.rec.err"; then
		fail "$label: record" "$(tail -3 "$TMP/$label.rec.err")"
		return 1
	fi
	"$MI" --truth "$MV2" "$@" >"$TMP/$label.truth.json"
}

# csv_rows FILE: "row sum" per line; csv_total FILE: the sum of every cell
csv_rows() { $PY -c "
import csv, sys
r = list(csv.reader(open(sys.argv[1])))
for row in r[1:]: print(row[0], sum(int(v) for v in row[2:]))" "$1"; }
csv_total() { csv_rows "$1" | awk '{ s += $2 } END { print s + 0 }'; }

# ---- MobileNet v2, 2000 runs, op markers
if record mv2 --runs "$RUNS"; then
	t=$TMP/mv2.trace
	"$ARENAPROF" report "$t" --plan "$MV2" --json >"$TMP/mv2.json"
	r=$($PY - "$TMP/mv2.json" "$TMP/mv2.truth.json" <<'PY'
import json, sys
rep, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
c = rep['correlation']
want = {o['index']: o['first_touch_pages'] for o in truth['ops']}
plan = {o['index']: o['plan_pages'] for o in c['ops'] if o['plan_pages']}
marker = {o['index']: o['marker_pages'] for o in c['ops'] if o['marker_pages']}
print(c['plan_matches'], c['agreement'], c['arena_base_delta'], len(c['disagreements']),
      plan == want, marker == want, c['first_touch_pages'] == truth['touched_pages'])
PY
)
	MSG="plan_matches, agreement, base delta, disagreements, plan==truth, marker==truth, pages: $r" \
		check "mv2: plan and marker attribution agree on 100 % of first-touch pages, both equal the truth per operator, base = mapping start" \
		test "$r" = "True 1 0 0 True True True"
	g=$($PY -c "import json; d=json.load(open('$TMP/mv2.json')); print({x['name']: x['faults'] for x in d['groups']}['weights'] > 0, d['correlation']['widest']['index'], abs(d['correlation']['widest']['share_of_arena'] - 1) < 1e-9)")
	MSG="weights faults > 0, widest, share: $g" check "mv2: weights grouped apart; widest operator #4 is 100 % of the arena" \
		test "$g" = "True 4 True"
	"$ARENAPROF" report "$t" --plan "$MV2" >"$TMP/mv2.txt"
	check "mv2: text report shows the agreement and the per-operator table" \
		grep -q "agree on 405 of 405 first-touch arena pages (100.0 %)" "$TMP/mv2.txt"

	# by op: each operator's row equals the truth, for both attributions
	for attr in marker plan; do
		"$ARENAPROF" heatmap "$t" --plan "$MV2" --attr $attr -o "$TMP/op-$attr.csv" 2>/dev/null
		csv_rows "$TMP/op-$attr.csv" >"$TMP/op-$attr.rows"
		r=$($PY - "$TMP/op-$attr.rows" "$TMP/mv2.truth.json" <<'PY'
import json, sys
got = {}
for l in open(sys.argv[1]):
    k, v = l.split()
    if int(v): got[int(k)] = int(v)
want = {o['index']: o['first_touch_pages'] for o in json.load(open(sys.argv[2]))['ops']}
print('ok' if got == want else f'got {got} want {want}')
PY
)
		MSG="$r" check "mv2 --attr $attr: each operator's cells add up to its first-touch pages in mininfer --truth" \
			test "$r" = ok
	done
	n=$(csv_total "$TMP/op-marker.csv")
	MSG="sum $n" check "mv2: the cells add up to the 405 first-touch arena pages" test "$n" = 405
	rows=$(($(wc -l <"$TMP/op-marker.csv") - 1))
	MSG="$rows rows" check "mv2: 67 rows (inputs + 66 operators in execution order)" test "$rows" = 67
	check "mv2: rows are labelled 'index opcode output'" \
		grep -q '^4,"4 DEPTHWISE_CONV_2D MobilenetV2/expanded_conv_1/depthwise/Relu6"' "$TMP/op-marker.csv"

	# --faults all: every arena fault (here each page faults once)
	"$ARENAPROF" heatmap "$t" --plan "$MV2" --faults all -o "$TMP/all.csv" 2>/dev/null
	n=$(csv_total "$TMP/all.csv")
	want=$($PY -c "import json; print([m['faults'] for m in json.load(open('$TMP/mv2.json'))['mappings'] if m['role'] == 'arena'][0])")
	MSG="sum $n, arena faults $want" check "mv2 --faults all: the cells add up to the arena's faults" test "$n" = "$want"

	# by run, linear and log rows, run ranges
	"$ARENAPROF" heatmap "$t" --plan "$MV2" --by run -o "$TMP/run.csv" 2>/dev/null
	csv_rows "$TMP/run.csv" >"$TMP/run.rows"
	r=$(head -2 "$TMP/run.rows" | tr '\n' ' ')
	MSG="$r" check "mv2 --by run: 100 rows of 20 runs, all 405 first touches in runs 0-19" \
		test "$r" = "0-19 405 20-39 0 "
	"$ARENAPROF" heatmap "$t" --plan "$MV2" --by run --log -o "$TMP/log.csv" 2>/dev/null
	r=$(csv_rows "$TMP/log.csv" | awk '{ printf "%s:%s ", $1, $2 }')
	MSG="$r" check "mv2 --by run --log: rows 0, 1, 2-3, ... 1024-1999" \
		test "$r" = "0-0:405 1-1:0 2-3:0 4-7:0 8-15:0 16-31:0 32-63:0 64-127:0 128-255:0 256-511:0 512-1023:0 1024-1999:0 "
	"$ARENAPROF" heatmap "$t" --plan "$MV2" --runs 1-1999 -o "$TMP/late.csv" 2>/dev/null
	MSG="sum $(csv_total "$TMP/late.csv")" check "mv2 --runs 1-1999: no first touch after run 0" \
		test "$(csv_total "$TMP/late.csv")" = 0
	"$ARENAPROF" heatmap "$t" --plan "$MV2" --cols 50 -o "$TMP/c50.csv" 2>/dev/null
	r=$($PY -c "import csv; r=list(csv.reader(open('$TMP/c50.csv'))); print(len(r[0]) - 2, r[0][3])")
	MSG="$r" check "mv2 --cols 50: 45 buckets of 9 pages (36864 bytes)" test "$r" = "45 36864"
	MSG="sum $(csv_total "$TMP/c50.csv")" check "mv2 --cols 50: still 405 in all" \
		test "$(csv_total "$TMP/c50.csv")" = 405

	# SVG
	"$ARENAPROF" heatmap "$t" --plan "$MV2" -o "$TMP/mv2.svg" 2>"$TMP/svg.err"
	check "svg: xmllint --noout" xmllint --noout "$TMP/mv2.svg"
	cells=$(grep -c '^<rect x=.*fill="#[0-9a-f]*"><title>' "$TMP/mv2.svg")
	nz=$($PY -c "import csv; r=list(csv.reader(open('$TMP/op-marker.csv'))); print(sum(1 for row in r[1:] for v in row[2:] if int(v)))")
	MSG="$cells cells with tooltips, $nz non-zero CSV cells" \
		check "svg: one cell with a <title> tooltip per non-zero cell of the matrix" test "$cells" = "$nz"
	for want in 'widest #4: live tensors' '1.50 MiB' 'colour scale' 'arena offset' '4 DEPTHWISE_CONV_2D'; do
		check "svg: has '$want' (band, axis, legend, labels)" grep -q "$want" "$TMP/mv2.svg"
	done
	cp "$TMP/mv2.svg" "$ART/heatmap-mobilenet_v2.svg"

	# PNG: a real decoder, the announced size; read back cell by cell against the CSV
	"$ARENAPROF" heatmap "$t" --plan "$MV2" -o "$TMP/mv2.png" 2>"$TMP/png.err"
	size=$(sed -n 's/.*, \([0-9]*x[0-9]*\) pixels.*/\1/p' "$TMP/png.err")
	if $PY -c 'import PIL' 2>/dev/null; then
		r=$($PY -c "
from PIL import Image
im = Image.open('$TMP/mv2.png'); im.load()
print('%dx%d' % im.size, im.mode, im.info.get('Software'))")
		MSG="$r (announced $size)" check "png: PIL decodes it, RGB, the size announced" \
			test "$r" = "$size RGB arenaprof"
		r=$($PY tests/py/png_heatmap_check.py "$TMP/mv2.png" "$TMP/op-marker.csv" 2>&1)
		MSG="$r" check "png by op: every cell's colour agrees with the CSV, every row labelled, axis labelled" \
			test "${r%% *}" = ok
		"$ARENAPROF" heatmap "$t" --plan "$MV2" --by run -o "$TMP/run.png" 2>/dev/null
		"$ARENAPROF" heatmap "$t" --plan "$MV2" --by run -o "$TMP/run.csv" 2>/dev/null
		r=$($PY tests/py/png_heatmap_check.py "$TMP/run.png" "$TMP/run.csv" 2>&1)
		MSG="$r" check "png by run: every cell's colour agrees with the CSV, labels and axis" \
			test "${r%% *}" = ok
		cp "$TMP/mv2.png" "$ART/heatmap-mobilenet_v2.png"
	else
		fail "png decoded by PIL" "Pillow not installed in $PY (scripts/install-deps installs it)"
	fi
	if command -v pngcheck >/dev/null; then
		check "png: pngcheck" pngcheck -q "$TMP/mv2.png"
	fi

	# terminal (script(1) gives it one): colour cells; into a file or under NO_COLOR none
	script -qec "$ARENAPROF heatmap $t --plan $MV2 -o - --width 100" /dev/null \
		| tr -d '\r' >"$TMP/ansi.txt"
	w=$(sed 's/\x1b\[[0-9;]*m//g' "$TMP/ansi.txt" | awk '{ if (length($0) > m) m = length($0) } END { print m }')
	MSG="widest line $w" check "terminal: fits 100 columns" test "$w" -le 100
	check "terminal: 256-colour cells" grep -q $'\x1b\\[48;5;' "$TMP/ansi.txt"
	n=$(grep -c '^4 DEPTHWISE' "$TMP/ansi.txt")
	MSG="$n" check "terminal: a line per operator" test "$n" = 1
	"$ARENAPROF" heatmap "$t" --plan "$MV2" -o - --width 100 >"$TMP/ansi-file.txt"
	NO_COLOR=1 script -qec "$ARENAPROF heatmap $t --plan $MV2 -o - --width 100" /dev/null \
		>"$TMP/ansi-nocolor.txt"
	for f in file nocolor; do
		MSG="$(grep -c $'\x1b' "$TMP/ansi-$f.txt") lines with escapes"
		check "terminal drawing $([ $f = file ] && echo 'into a file' || echo 'under NO_COLOR'): shades, no escape" \
			sh -c '! grep -q "$(printf "\033")" "$1" && grep -q "^4 DEPTHWISE.*[@%#*]" "$1"' _ "$TMP/ansi-$f.txt"
	done

	# --skip-empty: only the rows something was counted in, the same total; every label on
	# the terminal keeps its index and opcode, and no two read alike
	"$ARENAPROF" heatmap "$t" --plan "$MV2" --skip-empty -o "$TMP/skip.csv" 2>/dev/null
	rows=$(($(wc -l <"$TMP/skip.csv") - 1))
	want=$($PY -c "import csv; print(sum(1 for r in list(csv.reader(open('$TMP/op-marker.csv')))[1:] if sum(int(v) for v in r[2:])))")
	MSG="$rows rows, $want non-empty; sums $(csv_total "$TMP/skip.csv") vs $(csv_total "$TMP/op-marker.csv")"
	check "--skip-empty: only the non-empty rows, the same total" \
		[ "$rows" = "$want" -a "$(csv_total "$TMP/skip.csv")" = "$(csv_total "$TMP/op-marker.csv")" ]
	"$ARENAPROF" heatmap "$t" --plan "$MV2" -o - --width 80 >"$TMP/ansi80.txt" 2>/dev/null
	MSG="$(sed -n 3,6p "$TMP/ansi80.txt" | cut -c1-40)"
	check "terminal labels at 80 columns: index and opcode whole, no two alike" $PY -c '
import re, sys
rows = [l[:26] for l in open(sys.argv[1]).read().splitlines()[2:] if re.match(r"-?\d+ ", l)]
ok = len(rows) == 67 and len(set(rows)) == len(rows) and all(
	re.match(r"(-1 input|\d+ [A-Z_0-9]+ )", r) for r in rows[:-1])
sys.exit(not ok)' "$TMP/ansi80.txt"

	# the plan behind the faults: one faint extent per operator row and tensor live while
	# it runs, as many as plan --json's own lifetimes give
	"$ARENAPROF" plan --delegate none "$MV2" --json >"$TMP/plan.json"
	want=$($PY -c '
import json, sys
d = json.load(open(sys.argv[1])); n = 0
for k in range(len(d["ops"])):
	for t in d["tensor_plan"]:
		if t["kind"] in ("arena", "input", "output", "temporary") and "shares" not in t and \
		   t["bytes"] > 0 and t["offset"] >= 0:
			hi = 1 << 31 if t["last_node"] == "end" else t["last_node"]
			n += max(t["first_node"], 0) <= k <= hi
print(n)' "$TMP/plan.json")
	got=$(grep -c 'class="plan"' "$TMP/mv2.svg")
	MSG="$got extents drawn, $want live (operator, tensor) pairs in the plan"
	check "svg by operator: the plan's live tensors behind each operator's row" \
		[ "$got" = "$want" -a "$want" -gt 60 ]

	# a browser renders the SVG: labels, colours
	if command -v chromium >/dev/null; then
		sw=$(grep -o 'svg" width="[0-9]*"' "$TMP/mv2.svg" | tr -dc 0-9)
		sh=$(grep -o ' height="[0-9]*" viewBox' "$TMP/mv2.svg" | tr -dc 0-9)
		timeout 90 chromium --headless --no-sandbox --disable-gpu --disable-background-networking \
			--disable-component-update --no-first-run --disable-sync \
			--user-data-dir="$TMP/chromium" --screenshot="$ART/heatmap-mobilenet_v2-chromium.png" \
			--window-size="$sw,$sh" "file://$ART/heatmap-mobilenet_v2.svg" >/dev/null 2>&1
		if $PY -c 'import PIL' 2>/dev/null && [ -f "$ART/heatmap-mobilenet_v2-chromium.png" ]; then
			r=$($PY -c "
from PIL import Image
im = Image.open('$ART/heatmap-mobilenet_v2-chromium.png').convert('RGB')
px = im.load(); w, h = im.size
dark = sum(1 for x in range(0, w, 2) for y in range(0, h, 2) if sum(px[x, y]) < 120)
blue = sum(1 for x in range(0, w, 2) for y in range(0, h, 2) if px[x, y][2] > 150 and px[x, y][0] < 80)
print(w == $sw and h == $sh, dark > 2000, blue > 50)")
			MSG="size ok, dark cells, blue outlines: $r" \
				check "chromium renders the SVG (${sw}x$sh): cells and outlines drawn ($ART/heatmap-mobilenet_v2-chromium.png)" \
				test "$r" = "True True True"
		else
			fail "chromium screenshot" "no picture or no PIL"
		fi
	else
		skip "chromium renders the SVG" "chromium not installed (scripts/install-deps installs it)"
	fi

	# a plan of another model: detected, not drawn
	"$ARENAPROF" heatmap "$t" --plan "$OTHER" -o "$TMP/other.svg" 2>"$TMP/other.err"
	rc=$?
	MSG="exit $rc: $(head -3 "$TMP/other.err")" \
		check "another model's plan: exit 2, 'does not match', nothing drawn" \
		test "$rc" = 2 -a ! -e "$TMP/other.svg" -a -n "$(grep 'does not match' "$TMP/other.err")"
	"$ARENAPROF" report "$t" --plan "$OTHER" --json >"$TMP/other.json"
	r=$($PY -c "
import json; c = json.load(open('$TMP/other.json'))['correlation']
print(c['plan_matches'], any('arena size mismatch' in x for x in c['mismatch_reasons']), any('agree on only' in x for x in c['mismatch_reasons']), c['agreement'] < 0.5)")
	MSG="$r" check "another model's plan: report says no match: arena size mismatch, agreement collapsed" \
		test "$r" = "False True True True"
	"$ARENAPROF" heatmap "$t" --plan "$OTHER" --force -o "$TMP/forced.svg" 2>/dev/null
	check "--force draws it, marked as not matching" grep -q 'THE PLAN DOES NOT MATCH' "$TMP/forced.svg"
fi

# ---- --branch-op: late first touches in the predicted run rows
if record branch --runs 12 --branch-op 3 --branch-every 5; then
	"$ARENAPROF" heatmap "$TMP/branch.trace" --plan "$MV2" --by run -o "$TMP/branch.csv" 2>/dev/null
	r=$(csv_rows "$TMP/branch.csv" | $PY -c "
import json, sys
got = {int(l.split()[0].split('-')[0]): int(l.split()[1]) for l in sys.stdin if int(l.split()[1])}
want = {r['run']: r['pages'] for r in json.load(open('$TMP/branch.truth.json'))['first_touch_by_run']}
print('ok' if got == want else f'got {got} want {want}')")
	MSG="$r" check "--branch-op 3 --branch-every 5: --by run rows equal the truth (late pages in run 4's row)" test "$r" = ok
	"$ARENAPROF" report "$TMP/branch.trace" --plan "$MV2" --json >"$TMP/branch.json"
	r=$($PY - "$TMP/branch.json" "$TMP/branch.truth.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))['correlation']
truth = json.load(open(sys.argv[2]))
want = {o['index']: o['first_touch_pages'] for o in truth['ops']}
marker = {o['index']: o['marker_pages'] for o in c['ops'] if o['marker_pages']}
late = {p['page'] for p in truth['pages'] if p['run'] == 4}
dis = {d['page'] for d in c['disagreements']}
print(marker == want, c['plan_matches'], len(dis) == c['compared_pages'] - c['agree_pages'],
      all(d['plan_op'] == 3 for d in c['disagreements']), late <= {p['page'] for p in truth['pages'] if p['op'] == 3})
PY
)
	MSG="marker==truth, matches, disagreements listed, all plan op 3, late pages are op 3's: $r" \
		check "--branch-op: marker attribution equals the truth; the pages the plan gives op 3 but others touch first are listed" \
		test "$r" = "True True True True True"
fi

# ---- --faults all on a refault trace (pages reclaimed and faulted again, as under
# memory.high): the synthetic trace of bench/synth_trace.c
cc=${CC:-gcc}
if $cc -std=gnu11 -D_GNU_SOURCE -O2 -Iinclude bench/synth_trace.c "$BUILD/libarenaprof.a" \
	$(pkg-config --libs libbpf libelf libdw zlib libpng 2>/dev/null) -lm -o "$TMP/synth_trace" 2>"$TMP/cc.err"; then
	"$TMP/synth_trace" "$MV2" "$TMP/synth.trace" --faults 300000 --resident 50 >/dev/null
	"$ARENAPROF" report "$TMP/synth.trace" --plan "$MV2" --json >"$TMP/synth.json"
	want=$($PY -c "import json; print([m['faults'] for m in json.load(open('$TMP/synth.json'))['mappings'] if m['role'] == 'arena'][0])")
	for by in op run; do
		"$ARENAPROF" heatmap "$TMP/synth.trace" --plan "$MV2" --faults all --by $by \
			-o "$TMP/synth-$by.csv" 2>"$TMP/synth-$by.err"
		n=$(csv_total "$TMP/synth-$by.csv")
		MSG="sum $n, arena faults $want" check "refaults --faults all --by $by: the cells add up to every arena fault" \
			test "$n" = "$want" -a "$want" -gt 250000
		check "refaults --by $by: one pass over the trace" test -z "$(grep 'twice' "$TMP/synth-$by.err")"
	done
	# the matrix with the arena found equals the one with its base given (--arena ADDR)
	base=$($PY -c "import json; print(hex(json.load(open('$TMP/synth.json'))['correlation']['arena_base']))")
	"$ARENAPROF" heatmap "$TMP/synth.trace" --plan "$MV2" --faults all --cols 1000 \
		--arena "$base" -o "$TMP/synth-2pass.csv" 2>"$TMP/2pass.err"
	"$ARENAPROF" heatmap "$TMP/synth.trace" --plan "$MV2" --faults all --cols 1000 \
		-o "$TMP/synth-1pass.csv" 2>/dev/null
	check "refaults: the one-pass and the two-pass matrices are equal" cmp -s "$TMP/synth-1pass.csv" "$TMP/synth-2pass.csv"
	# per operator (marker): equal to the per-fault CSV export
	"$ARENAPROF" export "$TMP/synth.trace" --plan "$MV2" --format csv -o "$TMP/synth-faults.csv" 2>/dev/null
	r=$($PY - "$TMP/synth-op.csv" "$TMP/synth-faults.csv" <<'PY'
import csv, sys, collections
rows = {r[0]: sum(int(v) for v in r[2:]) for r in list(csv.reader(open(sys.argv[1])))[1:]}
cnt = collections.Counter(r['op_marker'] for r in csv.DictReader(open(sys.argv[2])) if r['group'] == 'arena')
print('ok' if all(rows.get(k, 0) == v for k, v in cnt.items()) and sum(rows.values()) == sum(cnt.values()) else (rows, cnt))
PY
)
	MSG="$r" check "refaults --by op: each operator's row equals the export's per-fault count" test "$r" = ok
	"$ARENAPROF" heatmap "$TMP/synth.trace" --plan "$MV2" --faults all -o "$TMP/synth.svg" 2>/dev/null
	check "refaults svg: xmllint --noout" xmllint --noout "$TMP/synth.svg"
	check "refaults svg: a log colour scale" grep -q 'logarithmic colour scale' "$TMP/synth.svg"
else
	fail "build bench/synth_trace.c" "$(head -3 "$TMP/cc.err")"
fi

# ---- bad input
bad() {	# bad NAME PATTERN ARGS...
	local name=$1 pat=$2; shift 2
	"$ARENAPROF" heatmap "$@" >/dev/null 2>"$TMP/bad.err"
	local rc=$?
	MSG="exit $rc: $(head -c 200 "$TMP/bad.err")" check "$name" \
		test "$rc" = 2 -a -n "$(grep -- "$pat" "$TMP/bad.err")"
}
t=$TMP/mv2.trace
bad "no --plan: exit 2" "needs --plan" "$t" -o "$TMP/x.svg"
bad "no -o: exit 2" "needs -o" "$t" --plan "$MV2"
bad "unknown format: exit 2" "cannot tell the format" "$t" --plan "$MV2" -o "$TMP/x.gif"
bad "--by sideways: exit 2" "bad value" "$t" --plan "$MV2" --by sideways -o "$TMP/x.svg"
bad "--runs 5-2: exit 2" "bad value" "$t" --plan "$MV2" --runs 5-2 -o "$TMP/x.svg"
printf 'not a trace at all' >"$TMP/junk.trace"
bad "not a trace: exit 2" "not an arenaprof trace" "$TMP/junk.trace" --plan "$MV2" -o "$TMP/x.svg"
