#!/usr/bin/env bash
# XNNPACK's workspace pages named by operator (issue 25, item 2): a model run by LiteRT
# 2.3.0 on its default path (scripts/litert-run, the Interpreter) under `arenaprof record`,
# then `report --json --plan M` and `heatmap --region workspace`. Checked per model:
#  - the workspace block the trace holds has the plan's size (plan --json's
#    xnnpack.workspace_bytes), and its pages are those [base, base + size) spans;
#  - every one of them was first touched, before run 0: XNNPACK zeroes the block when it
#    reshapes (a block whose pages were touched later, or not at all, is not the workspace),
#    but for an edge page it shares with a neighbouring block touched before it;
#  - the pages by operator equal a second computation here, from plan --json's
#    xnnpack.workspace_values (the offsets tests/integration/test_xnnpack_workspace.sh
#    checks against XNNPACK's own memory plan): a page is the operator's whose value lies
#    there first (the smallest first_op of the values covering any byte of it);
#  - heatmap --region workspace draws the same pages per row, and refuses --attr marker;
#  - a resized input (face detection, batch 2 before run 5): the workspace's new block is
#    followed, as an arena re-plan is.
. tests/lib.sh
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import ai_edge_litert' 2>/dev/null
then
	fail "xnnpack workspace pages" "no ai-edge-litert in $venv (scripts/install-deps)"
	exit 0
fi

# shellcheck disable=SC2206
models=(${XNN_WS_MODELS:-mobilenet_v2_1.0_224_quant mobilenet_v1_0.25_128_quant
	face_detection_short_range})

judge() {	# judge LABEL REPORT.json PLAN.json HEATMAP.csv PAGE_SIZE
	python3 - "$@" <<'PY'
import csv, json, sys
label, rep, plan, hm, ps = sys.argv[1], json.load(open(sys.argv[2])), \
    json.load(open(sys.argv[3])), sys.argv[4], int(sys.argv[5])
def out(ok, what, why=""):
    print(("PASS: %s: %s" if ok else "FAIL: %s: %s: %s") % ((label, what) + (() if ok else (why,))))
w = (rep.get("xnnpack") or {}).get("workspace_pages")
if not w:
    out(False, "workspace pages in the report", "none")
    sys.exit(0)
px = plan["xnnpack"]
out(w["block_bytes"] == px["workspace_bytes"] == w["planned_bytes"],
    "the block holds the plan's workspace, %d bytes" % w["block_bytes"],
    "block %d, plan %d" % (w["block_bytes"], px["workspace_bytes"]))
base, size = w["base"], w["block_bytes"]
span = (base + size + ps - 1) // ps - base // ps
out(w["pages"] == span, "%d pages spanned" % span, "report says %d" % w["pages"])
# an edge page the block shares with a neighbouring block may have been touched before
edges = (base % ps != 0) + ((base + size) % ps != 0)
out(span - edges <= w["first_touched_pages"] <= span and
    w["before_run0_pages"] == w["first_touched_pages"],
    "every page first touched before run 0 (zeroed at reshape), %d of %d" %
    (w["first_touched_pages"], span),
    "%d first touched, %d before run 0" % (w["first_touched_pages"], w["before_run0_pages"]))
vals = px.get("workspace_values")
if vals is None:
    out(False, "plan --json xnnpack.workspace_values", "missing")
    sys.exit(0)
owner = {}
for v in vals:
    if not v["bytes"]:
        continue
    lo, hi = base + v["offset"], base + v["offset"] + v["bytes"] - 1
    for pg in range(lo // ps, hi // ps + 1):
        if pg not in owner or v["first_op"] < owner[pg]:
            owner[pg] = v["first_op"]
want = {}
for pg in range(base // ps, (base + size + ps - 1) // ps):
    if pg in owner:
        want[owner[pg]] = want.get(owner[pg], 0) + 1
got = {o["index"]: o["pages"] for o in w["ops"]}
# the edge pages not first touched here (touched before with their neighbour) are the
# report's to leave out: only theirs may be missing
missing = span - w["first_touched_pages"]
lo_pg, hi_pg = base // ps, (base + size - 1) // ps
edge_owners = [owner.get(lo_pg), owner.get(hi_pg)] if missing else []
for e in edge_owners:
    if missing and e is not None and want.get(e, 0) > got.get(e, 0):
        want[e] -= 1
        missing -= 1
        if not want[e]:
            del want[e]
out(got == want, "pages by operator as the values' plan puts them (%d operators, %d pages)"
    % (len(want), sum(want.values())),
    "report %s, here %s" % (sorted(got.items())[:8], sorted(want.items())[:8]))
out(w["attributed_pages"] + w["unplanned_pages"] + w["beyond_pages"] == w["first_touched_pages"],
    "attributed + unplanned + past the end = first touched",
    "%d + %d + %d" % (w["attributed_pages"], w["unplanned_pages"], w["beyond_pages"]))
rows = {}
with open(hm) as f:
    for r in csv.reader(f):
        if r[0] == "op":
            continue
        n = sum(int(c) for c in r[2:])
        if n:
            rows[int(r[0])] = n
out(rows == got, "heatmap --region workspace: the same pages per row",
    "heatmap %s" % sorted(rows.items())[:8])
PY
}

ps=$(getconf PAGESIZE)
for name in "${models[@]}"; do
	m=$MODELS/$name.tflite
	label="$name workspace"
	if ! "$ARENAPROF" record -o "$TMP/$name.trace" -- scripts/litert-run "$m" --runs 20 \
		--delegate xnnpack >"$TMP/rec.out" 2>&1; then
		fail "$label: record" "$(tail -2 "$TMP/rec.out" | tr '\n' ' ')"
		continue
	fi
	if ! "$ARENAPROF" report --json --plan "$m" "$TMP/$name.trace" >"$TMP/$name.json" \
		2>"$TMP/rep.err" || ! "$ARENAPROF" plan --json "$m" >"$TMP/$name.plan.json" \
		2>>"$TMP/rep.err"; then
		fail "$label: report and plan" "$(head -1 "$TMP/rep.err")"
		continue
	fi
	if ! "$ARENAPROF" heatmap "$TMP/$name.trace" --plan "$m" --region workspace \
		-o "$TMP/$name.csv" 2>"$TMP/hm.err"; then
		fail "$label: heatmap --region workspace" "$(head -1 "$TMP/hm.err")"
		continue
	fi
	judge "$label" "$TMP/$name.json" "$TMP/$name.plan.json" "$TMP/$name.csv" "$ps"
done

# a resized input: XNNPACK grows the workspace into a new block at the reshape, followed
# like an arena re-plan (its pages counted, no longer named by the model's plan)
m=$MODELS/face_detection_short_range.tflite
if "$ARENAPROF" record -o "$TMP/resize.trace" -- scripts/litert-run "$m" --runs 10 \
	--delegate xnnpack --resize-at 5 >"$TMP/rec.out" 2>&1 &&
	"$ARENAPROF" report --json --plan "$m" "$TMP/resize.trace" >"$TMP/resize.json" 2>"$TMP/rep.err"
then
	python3 - "$TMP/resize.json" "$ps" <<'PY'
import json, sys
w = json.load(open(sys.argv[1]))["xnnpack"]["workspace_pages"]
ps = int(sys.argv[2])
def out(ok, what, why=""):
    print(("PASS: resize: %s" % what) if ok else ("FAIL: resize: %s: %s" % (what, why)))
mv = w["moves"] if w else []
out(len(mv) == 1, "the workspace moved once, at the resize", "moves %s" % mv)
if len(mv) == 1:
    m = mv[0]
    span = (m["base"] + m["block_bytes"] + ps - 1) // ps - m["base"] // ps
    out(m["run"] == 4 and m["old_freed"], "in run 4 (before run 5), the old block freed",
        "run %d, old freed %s" % (m["run"], m["old_freed"]))
    out(m["block_bytes"] > w["block_bytes"], "to a larger block (%d > %d bytes)" %
        (m["block_bytes"], w["block_bytes"]), "not larger")
    out(m["first_touched_pages"] == span, "every page of the new block first touched (%d)" % span,
        "%d of %d" % (m["first_touched_pages"], span))
PY
else
	fail "resize: record and report" "$(tail -2 "$TMP/rec.out" "$TMP/rep.err" | tr '\n' ' ')"
fi

# litert-benchmark (CompiledModel; 2000 runs and its 5 warm-ups): it binds its inputs and
# outputs after the Interpreter's arena is planned whole, so that plan describes the arena
# (their bytes unused); XNNPACK's half as planned, the workspace named
m=$MODELS/mobilenet_v2_1.0_224_quant.tflite
if "$ARENAPROF" record -o "$TMP/bench.trace" -- "$venv/bin/litert-benchmark" --model "$m" \
	--num_runs 2000 --warmup_runs 5 >"$TMP/rec.out" 2>&1 &&
	"$ARENAPROF" report --json --plan "$m" "$TMP/bench.trace" >"$TMP/bench.json" 2>"$TMP/rep.err"
then
	python3 - "$TMP/bench.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
def out(ok, what, why=""):
    print(("PASS: litert-benchmark: %s" % what) if ok else
          ("FAIL: litert-benchmark: %s: %s" % (what, why)))
out(r["runs"] == 2005, "2005 runs counted", "%s" % r["runs"])
out(r["summary"]["plan_matches"], "the plan matches the trace",
    "; ".join(r["correlation"].get("mismatch_reasons", [])) if "correlation" in r else "")
x = r["xnnpack"]
out(x and x.get("as_planned"), "XNNPACK's half as planned", "%s" % (x and x.get("naming")))
w = x and x.get("workspace_pages")
out(w and w["attributed_pages"] == w["first_touched_pages"] > 0,
    "every workspace page named by operator", "%s" % w)
PY
else
	fail "litert-benchmark: record and report" "$(tail -2 "$TMP/rec.out" "$TMP/rep.err" | tr '\n' ' ')"
fi

# what it cannot draw is refused with a reason, not drawn wrong
refused() {	# refused LABEL ARGS...: exit 2 and one line saying why
	local label=$1 rc=0
	shift
	"$ARENAPROF" heatmap "$@" -o - >/dev/null 2>"$TMP/refused.err" || rc=$?
	if [ "$rc" = 2 ] && [ -s "$TMP/refused.err" ]; then
		pass "$label refused: $(head -1 "$TMP/refused.err")"
	else
		fail "$label refused" "exit $rc: $(head -1 "$TMP/refused.err")"
	fi
}
m=$MODELS/mobilenet_v2_1.0_224_quant.tflite
t=$TMP/mobilenet_v2_1.0_224_quant.trace
if [ -f "$t" ]; then
	refused "--region workspace --attr marker" "$t" --plan "$m" --region workspace \
		--attr marker
	refused "--region workspace --faults all" "$t" --plan "$m" --region workspace \
		--faults all
	refused "--region workspace --delegate none" "$t" --plan "$m" --delegate none \
		--force --region workspace
else
	fail "heatmap refusals" "no trace of mobilenet_v2 recorded above"
fi
