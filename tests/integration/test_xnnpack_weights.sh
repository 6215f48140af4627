#!/usr/bin/env bash
# The model file's weights on LiteRT's default path (issue 25, item 3): a model run by
# LiteRT 2.3.0 with its default resolver (scripts/litert-run, the Interpreter) under
# `arenaprof record`, then `report --json --plan M`. Checked:
#  - the weights XNNPACK packs are read before run 0 and never in a run: the runtime reads
#    the file's copy once, to pack it (a fault there in a run would mean the plan's split
#    of who reads what is wrong);
#  - MobileNet v2 runs every operator in XNNPACK: no weight is kept for LiteRT's kernels;
#  - what XNNPACK's weight cache would move is the packed copy XNNPACK's allocator was
#    measured to hold (xnnpack.packed_weights_bytes, test_xnnpack_blocks.sh's figure);
#  - without the default path's plan (--delegate none) there is no such split.
. tests/lib.sh
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import ai_edge_litert' 2>/dev/null
then
	fail "xnnpack weights" "no ai-edge-litert in $venv (scripts/install-deps)"
	exit 0
fi

for name in mobilenet_v2_1.0_224_quant deeplabv3_mnv2_dm05_pascal_quant; do
	m=$MODELS/$name.tflite
	if ! "$ARENAPROF" record -o "$TMP/$name.trace" -- scripts/litert-run "$m" --runs 20 \
		--delegate xnnpack >"$TMP/rec.out" 2>&1 ||
		! "$ARENAPROF" report --json --plan "$m" "$TMP/$name.trace" >"$TMP/$name.json" \
		2>"$TMP/rep.err"; then
		fail "$name: record and report" "$(tail -2 "$TMP/rec.out" "$TMP/rep.err" | tr '\n' ' ')"
		continue
	fi
	python3 - "$name" "$TMP/$name.json" <<'PY'
import json, sys
name, rep = sys.argv[1], json.load(open(sys.argv[2]))
def out(ok, what, why=""):
    print(("PASS: %s: %s" % (name, what)) if ok else ("FAIL: %s: %s: %s" % (name, what, why)))
d = rep["weights"].get("default_path")
if not d:
    out(False, "weights.default_path", "missing")
    sys.exit(0)
p, k, c = d["packed"], d["kept"], d["weight_cache"]
out(p["planned_bytes"] > 0 and p["first_touch_pages_before_run0"] > 0,
    "the packed weights (%d bytes) read before run 0 (%d pages faulted on)" %
    (p["planned_bytes"], p["first_touch_pages_before_run0"]), "%s" % p)
out(p["first_touch_pages_in_runs"] == 0, "never read in a run",
    "%d pages first touched in runs" % p["first_touch_pages_in_runs"])
if name.startswith("mobilenet_v2"):
    out(k["planned_bytes"] == 0 and k["first_touch_pages_in_runs"] == 0,
        "no weight kept for LiteRT's kernels", "%s" % k)
packed = rep["xnnpack"]["packed_weights_bytes"]
out(c["applies"] and c["movable_bytes"] == packed,
    "the weight cache would move the %d packed bytes XNNPACK held" % packed,
    "movable %d; XNNPACK's blocks seen: %d (%s)" % (c["movable_bytes"],
    rep["xnnpack"]["n_blocks"], "; ".join(n for n in rep["notes"] if "XNNPACK" in n)))
PY
done

m=$MODELS/mobilenet_v2_1.0_224_quant.tflite
if "$ARENAPROF" report --json --plan "$m" --delegate none "$TMP/mobilenet_v2_1.0_224_quant.trace" \
	>"$TMP/none.json" 2>/dev/null; then
	if python3 -c 'import json,sys; sys.exit(json.load(open(sys.argv[1]))["weights"]["default_path"] is not None)' "$TMP/none.json"; then
		pass "--delegate none: no default-path split"
	else
		fail "--delegate none: no default-path split" "weights.default_path is set"
	fi
else
	fail "--delegate none: report" "failed"
fi
