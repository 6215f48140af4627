#!/usr/bin/env bash
# CompiledModel's TFLite arena against the running runtime (docs/litert.md, "Which plan"):
# each model run by LiteRT 2.3.0's CompiledModel on CPU (scripts/litert-run --api compiled)
# under `arenaprof record`, then `report --json --plan M`. Ground truth: the uprobe oracle
# tests/litert/xnnpack/compiled_arena.py (compiled_arena.bt), in its own process: the
# tensors SetCustomAllocationForTensor bound, the TensorBuffers CreateManagedOnHostMemory
# made, and the arena's last ResizableAlignedBuffer::Resize. Checked per model:
#  - the rule: CompiledModel bound exactly subgraph 0's inputs and outputs, before the
#    arena was planned, one TensorBuffer each;
#  - the report took CompiledModel's plan and it matches (summary.plan_matches);
#  - an arena: planned bytes = the runtime's, and the block found is the runtime's arena
#    call (ResizableAlignedBuffer::Resize's aligned_alloc of those bytes); no arena (the
#    runtime committed 0 bytes): the plan says so (correlation.plan.no_arena), no arena is
#    named and the verdict says CompiledModel leaves none;
#  - the plan's bound tensors (correlation.plan.bound_tensors) are the runtime's, and the
#    trace's CreateManagedOnHostMemory blocks of a page or more (correlation.tensor_buffers)
#    are the oracle's buffers (bytes + 16), each a bound tensor's (unbound 0).
# A model the oracle cannot measure (the run failed, several ArenaPlanners) is a counted
# SKIP with the reason. Once: the oracle's own arena reading is the Interpreter's
# ArenaPlanner's (litert-run --print-arena), so it reads the arena, not the persistent one.
. tests/lib.sh
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
PY=$venv/bin/python
. tests/litert/xnnpack/oracle_ready.sh
oracle_ready "compiled arena" || exit 0

# shellcheck disable=SC2206
models=(${CM_ARENA_MODELS:-mobilenet_v2_1.0_224_quant mobilenet_v1_0.25_128_quant
	selfie_segmentation face_detection_short_range pose_detection
	deeplabv3_mnv2_dm05_pascal_quant})

oracle() {	# oracle API OUT MODEL...
	local api=$1 out=$2
	shift 2
	"$PY" tests/litert/xnnpack/compiled_arena.py --api "$api" --out "$out" "$@" \
		2>"$TMP/oracle.err" ||
		echo '{"models": {}, "error": "the oracle failed"}' >"$out"
}

# the oracle reads the arena: the Interpreter's, as its ArenaPlanner says
oracle interpreter "$TMP/interp.json" "$MODELS/mobilenet_v2_1.0_224_quant.tflite"
python3 - "$TMP/interp.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["models"].get("mobilenet_v2_1.0_224_quant.tflite", {})
got, want = r.get("arena_bytes"), r.get("print_arena")
if r.get("error") or want is None:
    print("FAIL: compiled arena: the oracle's self-check ran: %s" % r.get("error", "no arena printed"))
elif got == want:
    print("PASS: compiled arena: the oracle's arena is the Interpreter's ArenaPlanner's (%d bytes)" % got)
else:
    print("FAIL: compiled arena: the oracle's arena is the ArenaPlanner's: oracle %s, "
          "--print-arena %d" % (got, want))
PY

paths=()
for name in "${models[@]}"; do
	paths+=("$MODELS/$name.tflite")
done
oracle compiled "$TMP/truth.json" "${paths[@]}"

for name in "${models[@]}"; do
	m=$MODELS/$name.tflite
	if ! "$ARENAPROF" record -o "$TMP/$name.trace" -- scripts/litert-run "$m" --runs 3 \
		--delegate xnnpack --api compiled >"$TMP/rec.out" 2>&1; then
		fail "$name: record" "$(tail -2 "$TMP/rec.out" | tr '\n' ' ')"
		continue
	fi
	if ! "$ARENAPROF" report --json --plan "$m" "$TMP/$name.trace" >"$TMP/$name.json" \
		2>"$TMP/rep.err" ||
		! "$ARENAPROF" report --plan "$m" "$TMP/$name.trace" >"$TMP/$name.txt" \
		2>>"$TMP/rep.err"; then
		fail "$name: report" "$(head -1 "$TMP/rep.err")"
		continue
	fi
	python3 - "$name" "$TMP/$name.json" "$TMP/$name.txt" "$TMP/truth.json" <<'PY'
import json, sys
name, rep, txt, truth = sys.argv[1:5]
d = json.load(open(rep))
text = open(txt).read()
t = json.load(open(truth))["models"].get(name + ".tflite")
EXTRA = 16   # XNN_EXTRA_BYTES: CreateManagedOnHostMemory's posix_memalign(64, bytes + 16)
PAGE = d.get("page_size") or 4096


def out(ok, what, why=""):
    print("%s: %s: %s%s" % ("PASS" if ok else "FAIL", name, what, "" if ok else ": " + why))


if not t or t.get("error"):
    print("SKIP: %s: the oracle could not measure it: %s" %
          (name, (t or {}).get("error", "not in the oracle's output")))
    sys.exit(0)
if t.get("arena_bytes") is None:
    print("SKIP: %s: the oracle could not measure it: %s" % (name, t.get("why", "no arena "
          "commit seen")))
    sys.exit(0)
arena = t["arena_bytes"]
io = t.get("io") or {}
want = sorted(set(io.get("inputs", []) + io.get("outputs", [])))
bound = sorted(b["tensor"] for b in t["binds"])
out(io and bound == want and t["binds_before_plan"] and
    len({b["subgraph"] for b in t["binds"]}) == 1,
    "CompiledModel bound exactly its inputs and outputs %s before the arena was planned" % want,
    "bound %s (before the plan: %s), inputs and outputs %s" % (bound, t["binds_before_plan"],
                                                               want))
out(sorted(t["buffers"]) == sorted(b["bytes"] for b in t["binds"]),
    "one TensorBuffer per bound tensor, of its bytes",
    "buffers %s, bound %s" % (t["buffers"], [b["bytes"] for b in t["binds"]]))

s, c = d["summary"], d.get("correlation") or {}
p = c.get("plan") or {}
out(p.get("compiled_model") is True and p.get("delegate") == "xnnpack",
    "--delegate auto took CompiledModel's plan",
    "delegate %s, compiled_model %s" % (p.get("delegate"), p.get("compiled_model")))
out(s.get("plan_matches") is True, "plan_matches",
    "%s: %s" % (s.get("plan_matches"), "; ".join(c.get("mismatch_reasons", []))))
out(s.get("arena_planned_bytes") == arena,
    "planned arena %d bytes, the runtime's" % arena,
    "planned %s, the runtime committed %d" % (s.get("arena_planned_bytes"), arena))
a = d.get("arena_id") or {}
if arena:
    blk = a.get("block") or {}
    rounded = (arena + 63 + 63) // 64 * 64   # aligned_alloc(64, roundup(bytes + 63, 64))
    out(p.get("no_arena") is False and a.get("rule") == "allocation" and
        a.get("bytes") == arena and blk.get("size") == rounded and
        "ResizableAlignedBuffer::Resize" in blk.get("caller", ""),
        "the arena found is the runtime's: aligned_alloc(64, %d) from "
        "ResizableAlignedBuffer::Resize" % rounded,
        "rule %s, %s bytes, block %s" % (a.get("rule"), a.get("bytes"), blk))
else:
    out(p.get("no_arena") is True and a.get("rule") == "none" and d.get("arena") is None and
        "CompiledModel leaves no TFLite arena beside XNNPACK, as planned" in
        "\n".join(text.splitlines()[:4]),
        "no TFLite arena, as the runtime (Resize(0)), and the verdict says so",
        "no_arena %s, rule %s, verdict %r" % (p.get("no_arena"), a.get("rule"),
                                              " / ".join(text.splitlines()[:4])[:400]))
plan_bound = sorted((x["index"], x["bytes"]) for x in p.get("bound_tensors", []))
rt_bound = sorted((b["tensor"], b["bytes"]) for b in t["binds"])
out(plan_bound == rt_bound, "the plan binds the tensors the runtime bound %s" % rt_bound,
    "the plan %s" % plan_bound)
tb = c.get("tensor_buffers") or {}
big = [b + EXTRA for b in t["buffers"] if b + EXTRA >= PAGE]
out(tb.get("blocks") == len(big) and tb.get("bytes") == sum(big) and tb.get("unbound") == 0,
    "every CreateManagedOnHostMemory block in the trace is a bound tensor's (%d of a page "
    "or more, %d bytes)" % (len(big), sum(big)),
    "the trace has %s; the oracle's buffers %s" % (tb, big))
PY
done
