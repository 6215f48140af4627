#!/usr/bin/env bash
# XNNPACK's weight cache, by measurement (issue 24 item 4; docs/xnnpack.md "Weight cache").
# For a float model (pose_detection) and an int8 one (MobileNet v2), the oracle
# (tests/litert/xnnpack/xnnpack_truth.py) runs CompiledModel on CPU without the cache, with
# CpuOptions(xnnpack_weight_cache_path=FILE) building the file, and loading it. With the
# cache, XNNPACK's allocator must hold plan's total_bytes - weight_cache.movable_bytes and
# the cache file's mappings movable_bytes (their Rss, overlaps counted once), each within the
# issue's floor (2 %, 16 KiB at least); without it, XNNPACK's allocator holds total_bytes.
# Also checked: a directory given as the path writes no file and leaves the packed weights
# in XNNPACK's allocator (LiteRT opens the path as a file). A missing root, bpftrace or
# LiteRT 2.3.0 is a FAIL with the reason. XNN_CACHE_MODELS="A.tflite ..." other models.
. tests/lib.sh
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
PY=$venv/bin/python
ORACLE=tests/litert/xnnpack/xnnpack_truth.py
MODES=compiled,compiled-cache,compiled-cache-load

. tests/litert/xnnpack/oracle_ready.sh
oracle_ready "xnnpack weight cache" || exit 0

# shellcheck disable=SC2206
models=(${XNN_CACHE_MODELS:-$MODELS/pose_detection.tflite $MODELS/mobilenet_v2_1.0_224_quant.tflite})
for m in "${models[@]}"; do
	name=$(basename "$m" .tflite)
	"$ARENAPROF" plan --json "$m" >"$TMP/$name.plan.json" 2>"$TMP/$name.plan.err" ||
		fail "$name: plan --json" "exit $?: $(head -1 "$TMP/$name.plan.err")"
done
mkdir -p "$TMP/cache"
oracle_preload "xnnpack weight cache" || exit 0
if ! "$PY" "$ORACLE" --modes "$MODES" --weight-cache "$TMP/cache" --out "$TMP/truth.json" \
	--preload "$TMP/xnn_preload.so" \
	"${models[@]}" >"$TMP/oracle.log" 2>&1; then
	fail "xnnpack weight cache: the oracle ran" "$(tail -3 "$TMP/oracle.log" | tr '\n' ' ')"
	exit 0
fi

python3 - "$TMP" "$TMP/truth.json" "${models[@]}" <<'PY'
import json, os, sys
sys.path.insert(0, "tests/litert/xnnpack")
import oracles
tmp, truth, models = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3:]

def near(label, got, want):
    tol = max(want * 0.02, 16384)
    ok = got is not None and abs(got - want) <= tol
    print("%s: %s: measured %s, plan %d (floor %d)%s" %
          ("PASS" if ok else "FAIL", label, got, want, tol,
           ": exact" if got == want else "" if ok else ": beyond the floor"))

for path in models:
    name = os.path.basename(path)[:-len(".tflite")]
    try:
        x = json.load(open(os.path.join(tmp, name + ".plan.json")))["xnnpack"]
    except (OSError, ValueError, KeyError) as e:
        print("FAIL: %s: plan --json has no xnnpack object (%s)" % (name, e))
        continue
    c = x.get("weight_cache")
    if not c or not c.get("applies"):
        print("FAIL: %s: plan says the weight cache does not apply: %s" % (name, c))
        continue
    runs = truth["models"].get(name + ".tflite", {})
    for mode in ("compiled", "compiled-cache", "compiled-cache-load"):
        r = runs.get(mode, {})
        ph = r.get("phases", {}).get("invoke1", {})
        label = "%s (%s)" % (name, mode)
        if r.get("error"):
            print("FAIL: %s: LiteRT failed: %s" % (label, r["error"]))
            continue
        live, line = oracles.invoke1(label, r)
        if line:
            print(line)
        if live is None:
            continue
        if mode == "compiled":
            near(label + ": XNNPACK's allocator = total_bytes", live, x["total_bytes"])
            continue
        near(label + ": XNNPACK's allocator = total_bytes - movable_bytes", live,
             x["total_bytes"] - c["movable_bytes"])
        wc = ph.get("weight_cache") or {}
        rss = min(wc.get("rss") or 0, wc.get("span") or 0) if wc.get("mappings") else None
        near(label + ": the cache file's mappings = movable_bytes", rss, c["movable_bytes"])
        print("INFO: %s: cache file %s bytes, %s mapping(s), %s dirty; smaps_rollup "
              "Anonymous %s" % (label, wc.get("file_size"), wc.get("mappings"),
                                wc.get("dirty"), ph.get("smaps_anonymous")))
PY

# A directory is no cache: LiteRT opens the path as a file, fails, and packs as without it.
m=${models[-1]}
name=$(basename "$m" .tflite)
mkdir -p "$TMP/dir"
out=$(cd "$TMP" && "$PY" - "$OLDPWD/$m" "$TMP/dir" 2>&1 <<'PY'
import sys
from ai_edge_litert.compiled_model import CompiledModel
from ai_edge_litert.options import Options
from ai_edge_litert.cpu_options import CpuOptions
from ai_edge_litert.hardware_accelerator import HardwareAccelerator
o = Options(hardware_accelerators=HardwareAccelerator.CPU,
            cpu_options=CpuOptions(num_threads=1, xnnpack_weight_cache_path=sys.argv[2]))
m = CompiledModel.from_file(sys.argv[1], options=o)
m.run_by_index(0, m.create_input_buffers(0), m.create_output_buffers(0))
print("ran")
PY
)
MSG="$(echo "$out" | grep -i "weight cache\|ran\|Error" | head -3)" \
	check "$name: a directory as xnnpack_weight_cache_path: no file, the cache stays off" \
	sh -c '[ -z "$(ls -A "$1")" ] && echo "$2" | grep -q "^ran" &&
	       echo "$2" | grep -q "weight cache could neither be loaded"' _ "$TMP/dir" "$out"
