#!/usr/bin/env bash
# report's XNNPACK section against the running runtime (issue 25, item 2): a model run by
# LiteRT 2.3.0 on its default path (scripts/litert-run, the Interpreter and CompiledModel)
# under `arenaprof record`, then `report --json --plan M`. Ground truth: what XNNPACK's
# allocator holds after the first invoke, counted inside the process by
# tests/litert/xnnpack/xnn_preload.c (hooks in XNNPACK's allocator table; no uprobes, so
# independent of the recorder's). Checked per run:
#  - xnnpack.blocks_bytes and n_blocks equal the in-process count (bytes and blocks);
#  - every byte is named (attributed_bytes = blocks_bytes) and every class equals the
#    plan's, every delegated operator's blocks exactly as planned (as_planned);
#  - the operator each packed-weights block is dealt to (by XNNPACK's creation order) is
#    of the kind the runtime's own allocating function says: XNNPACK packs a depthwise
#    convolution in create_dwconv_path, a convolution or fully connected layer as a GEMM
#    (create_igemm, create_fully_connected_nc), so a block dealt to the wrong operator
#    shows as the wrong kind.
# One more run counts 2000 invokes of MobileNet v1 with the blocks still named.
. tests/lib.sh
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
PY=$venv/bin/python
. tests/litert/xnnpack/oracle_ready.sh
oracle_ready "xnnpack blocks" || exit 0
oracle_preload "xnnpack blocks" || exit 0

# shellcheck disable=SC2206
models=(${XNN_BLOCK_MODELS:-mobilenet_v2_1.0_224_quant mobilenet_v1_0.25_128_quant
	face_detection_short_range selfie_segmentation pose_detection
	deeplabv3_mnv2_dm05_pascal_quant})

truth() {	# truth MODE MODEL: {"invoke1": bytes, "invoke1_blocks": n} or {"error": ...}
	"$PY" - "$1" "$2" "$TMP/xnn_preload.so" <<'PY'
import json, sys
sys.path.insert(0, "tests/litert/xnnpack")
import xnnpack_truth as t
t.PY = sys.executable
print(json.dumps(t.run_preload(sys.argv[1], sys.argv[2], sys.argv[3], 1, 180)))
PY
}

judge() {	# judge LABEL REPORT.json TRUTH.json RUNS
	python3 - "$@" <<'PY'
import json, sys
label, rep, tru, runs = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), int(sys.argv[4])
x = rep.get("xnnpack")
def out(ok, what, why=""):
    print(("PASS: %s: %s" if ok else "FAIL: %s: %s: %s") % ((label, what) + (() if ok else (why,))))
if rep.get("runs") != runs:
    out(False, "runs counted", "%s, want %d" % (rep.get("runs"), runs))
else:
    out(True, "%d runs counted" % runs)
if not x:
    out(False, "an xnnpack section", "none (XNNPACK's allocator not probed?)")
    sys.exit(0)
if "invoke1" not in tru:
    out(False, "the in-process oracle", tru.get("error"))
else:
    out(x["blocks_bytes"] == tru["invoke1"], "blocks_bytes %d = in the process %d" %
        (x["blocks_bytes"], tru["invoke1"]), "differ by %+d" % (x["blocks_bytes"] - tru["invoke1"]))
    out(x["n_blocks"] == tru.get("invoke1_blocks"), "%d blocks = in the process" % x["n_blocks"],
        "in the process %s" % tru.get("invoke1_blocks"))
out(x["named_by_plan"], "named by the plan", "not named: %s" % x.get("naming"))
if not x["named_by_plan"]:
    sys.exit(0)
out(x["attributed_bytes"] == x["blocks_bytes"], "every byte named",
    "%d of %d" % (x["attributed_bytes"], x["blocks_bytes"]))
diffs = ["%s %+d" % (k, x[k] - x["planned"][k]) for k in x["planned"] if x[k] != x["planned"][k]]
out(x["as_planned"] and not diffs, "every class as planned", ", ".join(diffs))
out(x["operators_exact"] == x["operators_planned"] and x["operators_planned"] > 0,
    "%d of %d operators exact" % (x["operators_exact"], x["operators_planned"]), x["naming"])
kinds = {"create_dwconv_path": {"DEPTHWISE_CONV_2D"},
         "create_igemm": {"CONV_2D", "FULLY_CONNECTED", "TRANSPOSE_CONV"},
         "create_fully_connected_nc": {"CONV_2D", "FULLY_CONNECTED", "BATCH_MATMUL"}}
ops = {o["index"]: o["opcode"] for o in x["ops"]}
seen = bad = 0
for b in x["blocks"]:
    if b["class"] != "packed_weights_bytes":
        continue
    up = b["site"].split(" < ")[-1]
    if up in kinds:
        seen += 1
        if ops.get(b["op"]) not in kinds[up]:
            bad += 1
            if bad <= 3:
                print("INFO: %s: a %d-byte block packed by %s dealt to #%s %s" %
                      (label, b["size"], up, b["op"], ops.get(b["op"])))
out(seen > 0 and not bad, "%d packed blocks dealt to operators of their packer's kind" % seen,
    "%d of %d not" % (bad, seen))
PY
}

for name in "${models[@]}"; do
	m=$MODELS/$name.tflite
	for api in interpreter compiled; do
		label="$name $api"
		truth "$api" "$m" >"$TMP/$name.$api.truth.json" 2>"$TMP/truth.err" ||
			echo '{"error": "the oracle failed"}' >"$TMP/$name.$api.truth.json"
		if ! "$ARENAPROF" record -o "$TMP/$name.$api.trace" -- scripts/litert-run "$m" \
			--runs 3 --delegate xnnpack --api "$api" >"$TMP/rec.out" 2>&1; then
			fail "$label: record" "$(tail -2 "$TMP/rec.out" | tr '\n' ' ')"
			continue
		fi
		if ! "$ARENAPROF" report --json --plan "$m" "$TMP/$name.$api.trace" \
			>"$TMP/$name.$api.json" 2>"$TMP/rep.err"; then
			fail "$label: report" "$(head -1 "$TMP/rep.err")"
			continue
		fi
		judge "$label" "$TMP/$name.$api.json" "$TMP/$name.$api.truth.json" 3
	done
done

# 2000 runs: every run counted, the blocks still those of the first run
m=$MODELS/mobilenet_v1_0.25_128_quant.tflite
truth interpreter "$m" >"$TMP/long.truth.json" 2>/dev/null
if "$ARENAPROF" record -o "$TMP/long.trace" -- scripts/litert-run "$m" --runs 2000 \
	--delegate xnnpack >"$TMP/rec.out" 2>&1 &&
	"$ARENAPROF" report --json --plan "$m" "$TMP/long.trace" >"$TMP/long.json" 2>"$TMP/rep.err"
then
	judge "mobilenet_v1 2000 runs" "$TMP/long.json" "$TMP/long.truth.json" 2000
else
	fail "mobilenet_v1 2000 runs: record and report" "$(tail -2 "$TMP/rec.out" "$TMP/rep.err" | tr '\n' ' ')"
fi
