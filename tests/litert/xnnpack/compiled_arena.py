#!/usr/bin/env python3
"""The oracle of CompiledModel's TFLite arena (docs/litert.md, "Which plan"): which tensors
LiteRT's CompiledModel binds to its own TensorBuffers on CPU, and the arena TFLite plans
for what is left beside XNNPACK, read in the running runtime with uprobes
(compiled_arena.bt): tflite::Subgraph::SetCustomAllocationForTensor (the tensor index and
the bytes bound), LiteRtTensorBufferT::CreateManagedOnHostMemory (the buffers made) and
tflite::ResizableAlignedBuffer::Resize after ArenaPlanner::ExecuteAllocations (each
planner's arena, committed first, then its persistent arena).

For every model one process runs scripts/litert_run.py (--api compiled: CompiledModel on
CPU, create_input_buffers / create_output_buffers, run_by_index) under its own bpftrace
session (-c). --api interpreter runs the Interpreter with --print-arena instead: the
oracle's arena then must be the one the runtime's ArenaPlanner reports (a check of the
oracle itself).

Output (JSON, --out or stdout), per model file name:
  buffers      [bytes, ...]: CreateManagedOnHostMemory's buffer sizes, in call order
  binds        [{"subgraph", "tensor", "bytes"}]: the tensors bound, once each
  binds_before_plan  every bind of the first run came before the first ExecuteAllocations
  io           {"inputs": [...], "outputs": [...]}: subgraph 0's, from the Interpreter
  planners     [{"arena_bytes", "persistent_bytes", "resizes"}], one per ArenaPlanner
  arena_bytes  the one planner's last arena commit (null with several: "why" says)
  print_arena  (--api interpreter) the bytes litert-run --print-arena printed
  error        when the run failed (then no figures)

usage (root): PY compiled_arena.py [--api compiled|interpreter] [--runs 2] [--lib SO]
              [--out FILE] MODEL.tflite ...
"""
import argparse, json, os, re, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
BT = os.path.join(HERE, "compiled_arena.bt")


def find_lib(py):
    out = subprocess.run([py, "-c", "import ai_edge_litert, os; "
                          "print(os.path.dirname(ai_edge_litert.__file__))"],
                         capture_output=True, text=True, check=True).stdout.strip()
    return os.path.join(out, "libpywrap_litert_common.so")


def model_io(py, model):
    code = ("import json, sys\n"
            "from ai_edge_litert.interpreter import Interpreter\n"
            "i = Interpreter(model_path=sys.argv[1])\n"
            "print(json.dumps({'inputs': [d['index'] for d in i.get_input_details()],"
            " 'outputs': [d['index'] for d in i.get_output_details()]}))\n")
    r = subprocess.run([py, "-E", "-s", "-c", code, model], capture_output=True, text=True)
    if r.returncode:
        return None
    return json.loads(r.stdout.strip().splitlines()[-1])


def parse(lines):
    buffers, binds, seen, planners, order = [], [], set(), {}, []
    last_planner, first_exec, binds_late = {}, None, False
    print_arena = None
    for n, line in enumerate(lines):
        f = line.split()
        if not f:
            continue
        if f[0] == "buffer" and len(f) == 3:
            buffers.append(int(f[1]))
        elif f[0] == "bind" and len(f) == 4:
            key = (f[1], int(f[2]))
            if key not in seen:
                seen.add(key)
                binds.append({"subgraph": f[1], "tensor": int(f[2]), "bytes": int(f[3])})
                if first_exec is not None:
                    binds_late = True
        elif f[0] == "execute" and len(f) == 3:
            last_planner[f[1]] = f[2]
            if f[2] not in planners:
                planners[f[2]] = {"buffers": [], "sizes": {}, "resizes": []}
                order.append(f[2])
            if first_exec is None:
                first_exec = n
        elif f[0] == "resize" and len(f) == 4:
            p = planners.get(last_planner.get(f[1]))
            if p is None:
                continue
            if f[2] not in p["sizes"]:
                p["buffers"].append(f[2])
            p["sizes"][f[2]] = int(f[3])
            p["resizes"].append(int(f[3]))
        elif f[0] == "arena" and len(f) >= 4 and f[2] == "bytes":
            print_arena = int(f[3])
    out = []
    for k in order:
        p = planners[k]
        b = p["buffers"]
        out.append({"arena_bytes": p["sizes"][b[0]] if b else None,
                    "persistent_bytes": p["sizes"][b[1]] if len(b) > 1 else None,
                    "resizes": p["resizes"]})
    return {"buffers": buffers, "binds": binds, "binds_before_plan": not binds_late,
            "planners": out, "print_arena": print_arena}


def measure(a, model):
    cmd = [a.python, "-E", "-s", os.path.join(REPO, "scripts", "litert_run.py"), model,
           "--runs", str(a.runs), "--delegate", "xnnpack", "--api", a.api]
    if a.api == "interpreter":
        cmd.append("--print-arena")
    env = dict(os.environ, LITERT_RUN_TOOLS=os.path.join(REPO, "tests", "litert"))
    r = subprocess.run(["bpftrace", BT, a.lib, "-c", " ".join(cmd)], capture_output=True,
                       text=True, env=env, timeout=600)
    lines = r.stdout.splitlines()
    if not any(re.match(r"done runs \d+", l) for l in lines):
        err = [l for l in (r.stderr + r.stdout).splitlines() if l.strip()]
        return {"error": "the run did not finish (bpftrace exit %d): %s" %
                (r.returncode, err[-1] if err else "")}
    res = parse(lines)
    res["io"] = model_io(a.python, model)
    if len(res["planners"]) == 1:
        res["arena_bytes"] = res["planners"][0]["arena_bytes"]
    else:
        res["arena_bytes"] = None
        res["why"] = ("%d ArenaPlanners committed: the oracle cannot tell which subgraph's "
                      "each is" % len(res["planners"]))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--api", choices=("compiled", "interpreter"), default="compiled")
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--lib", default=os.environ.get("XNN_LITERT_LIB"))
    ap.add_argument("--out")
    ap.add_argument("models", nargs="+")
    a = ap.parse_args()
    a.lib = a.lib or find_lib(a.python)
    res = {"lib": a.lib, "api": a.api, "models": {}}
    for m in a.models:
        try:
            res["models"][os.path.basename(m)] = measure(a, os.path.abspath(m))
        except (subprocess.SubprocessError, OSError, ValueError) as e:
            res["models"][os.path.basename(m)] = {"error": str(e)}
    text = json.dumps(res, indent=1, sort_keys=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text + "\n")
    else:
        print(text)


if __name__ == "__main__":
    main()
