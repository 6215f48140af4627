#!/usr/bin/env bash
# plan's default path against the running runtime (issue 24): for every bundled model,
# what XNNPACK's allocator holds after the first invoke in LiteRT 2.3.0 (the oracle,
# tests/litert/xnnpack/xnnpack_truth.py: bpftrace uprobes on XNNPACK's default allocator
# in the wheel's libpywrap_litert_common.so) against `arenaprof plan --json M`'s
# "xnnpack"."total_bytes". PASS within the issue's floor: 2 %, 16 KiB at least. A model
# whose plan says not_modelled (non-empty) is a counted SKIP that prints both numbers, and
# so is a model LiteRT itself refuses (with its error); a measurement that fails, or a
# missing bpftrace, LiteRT or root, is a FAIL with the reason (CI installs them:
# scripts/install-deps). The oracle runs the models in batches, one bpftrace session for
# XNN_BATCH (default 12) of them, the Interpreter's and CompiledModel's (XNN_MODES,
# default interpreter,compiled); XNN_MODELS="A.tflite B.tflite" only those.
. tests/lib.sh
venv=${ARENAPROF_VENV:-/opt/arenaprof-venv}
PY=$venv/bin/python
ORACLE=tests/litert/xnnpack/xnnpack_truth.py
MODES=${XNN_MODES:-interpreter,compiled}

. tests/litert/xnnpack/oracle_ready.sh
oracle_ready "xnnpack plan" || exit 0

# shellcheck disable=SC2206
models=(${XNN_MODELS:-$MODELS/*.tflite})
for m in "${models[@]}"; do
	name=$(basename "$m" .tflite)
	"$ARENAPROF" plan --json "$m" >"$TMP/$name.plan.json" 2>"$TMP/$name.plan.err" ||
		fail "$name: plan --json" "exit $?: $(head -1 "$TMP/$name.plan.err")"
done
oracle_preload "xnnpack plan" || exit 0
t0=$(date +%s)
if ! "$PY" "$ORACLE" --modes "$MODES" --batch "${XNN_BATCH:-12}" --out "$TMP/truth.json" \
	--preload "$TMP/xnn_preload.so" \
	"${models[@]}" >"$TMP/oracle.log" 2>&1; then
	fail "xnnpack plan: the oracle ran" "$(tail -3 "$TMP/oracle.log" | tr '\n' ' ')"
	exit 0
fi
echo "INFO: the oracle measured ${#models[@]} models ($MODES) in $(($(date +%s) - t0)) s"

python3 - "$TMP" "$TMP/truth.json" "$MODES" "${models[@]}" <<'PY'
import json, os, sys
sys.path.insert(0, "tests/litert/xnnpack")
import oracles
tmp, truth, modes, models = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3], sys.argv[4:]
n = {"pass": 0, "fail": 0, "skip": 0, "exact": 0, "agree": 0, "one_oracle": 0}
for path in models:
    name = os.path.basename(path)[:-len(".tflite")]
    try:
        plan = json.load(open(os.path.join(tmp, name + ".plan.json")))
    except (OSError, ValueError):
        continue        # plan failed: said above
    x = plan.get("xnnpack")
    for mode in modes.split(","):
        label = "%s (%s)" % (name, mode)
        if x is None:
            print("FAIL: %s: plan --json has no \"xnnpack\" object" % label)
            n["fail"] += 1
            continue
        r = truth["models"].get(name + ".tflite", {}).get(mode, {})
        got, why = x["total_bytes"], x.get("not_modelled", "")
        if r.get("error"):
            print("SKIP: %s: LiteRT fails on it (%s, at %s); plan says %d bytes" %
                  (label, r["error"][:120], r.get("error_phase"), got))
            n["skip"] += 1
            continue
        live, line = oracles.invoke1(label, r)
        if line:
            print(line)
        if live is None:
            n["fail"] += 1
            continue
        n["agree" if not line else "one_oracle"] += 1
        if why:
            print("SKIP: %s: not modelled (%s): XNNPACK holds %d bytes, plan says %d" %
                  (label, why, live, got))
            n["skip"] += 1
        else:
            tol = max(live * 0.02, 16384)
            ok = abs(got - live) <= tol
            print("%s: %s: total_bytes %d, XNNPACK's allocator %d (%+.2f %%, floor %d)%s" %
                  ("PASS" if ok else "FAIL", label, got, live,
                   100.0 * (got - live) / live if live else 0.0, tol,
                   ": exact" if got == live else "" if ok else ": beyond the floor"))
            n["pass" if ok else "fail"] += 1
            n["exact"] += got == live
print("INFO: %d within the floor (%d of them exact), %d failed, %d skipped (not modelled, "
      "or LiteRT fails on the model)" % (n["pass"], n["exact"], n["fail"], n["skip"]))
print("INFO: the two oracles (uprobes, in the process) measured the same bytes on %d runs; "
      "%d runs were measured by one of them only" % (n["agree"], n["one_oracle"]))
PY
