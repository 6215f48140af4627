#!/usr/bin/env python3
"""The oracle of `arenaprof plan`'s workspace offsets (xnnpack.workspace_values): XNNPACK's
own memory plan of every runtime LiteRT's XNNPACK delegate creates, read in the running
process.

For each model a child (xnnpack_child.py, mode interpreter: the Python Interpreter with the
default resolver, allocate_tensors, invoke x3) runs while one bpftrace session of
xnn_workspace.bt reads, in LiteRT's libpywrap_litert_common.so:
  - each TFLite tensor's XNNPACK value id, as the delegate's DefineXNNPACKValue returns it
    (its tensor_index argument and *xnnpack_id), grouped by the XNNPACK subgraph it is
    defined in, and that subgraph's TfLiteContext (one a TFLite subgraph);
  - the runtime made of each subgraph (xnn_create_runtime_v4);
  - every plan of a runtime: at the return of xnn_plan_value_allocation_tracker, the
    tracker's usage records (first_node, last_node, tensor_size rounded as XNNPACK rounds
    it, alloc_offset from the workspace's start, reuse_value_id, opdata_id).
A runtime's last plan is its workspace layout after the first run. Partitions are numbered
in the order the delegate creates their subgraphs within one TFLite subgraph (TFLite's
partition order); TFLite subgraphs in the order they are first seen (the primary one
first: LiteRT applies the delegate to subgraph 0 first).

Output (--out), per model file name:
  {"error": null | "...", "complete": bool, "problem": "...", "subgraphs": [
     {"partitions": [{"external_value_ids": N, "num_values": V, "num_ops": K,
        "arena": bytes, "plans": count,
        "values": [{"id", "tensor": TFLite index | null, "kind": "tensor" | "created" |
                    "operator", "from_tensor": the tensor a created value was defined
                    with (a node's reshaped or quantized copy of it) | null, "first", "last", "size", "offset", "reuse": id | null,
                    "opdata": id | null}]}]}]}
tests/integration/test_xnnpack_workspace.sh compares it with `plan --json`'s
xnnpack.workspace_values.

usage (root; the Python that has ai-edge-litert 2.3.0):
  PY xnn_workspace_truth.py [--batch 12] [--out ws.json] [--lib .../libpywrap_litert_common.so]
      [MODEL.tflite ...]
Needs bpftrace and stdbuf.
"""
import argparse, collections, glob, json, os, signal, subprocess, sys, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import xnnpack_truth as xt  # noqa: E402  (find_lib, find_libc, run_child)

INVALID = 0xffffffff
MAX_RECORDS = 4096      # what xnn_workspace.bt reads of a plan


def start_tracer(events):
    src = open(os.path.join(HERE, "xnn_workspace.bt")).read()
    src = src.replace("$LIBC", xt.LIBC).replace("$LIB", xt.LIB)
    bt = events + ".bt"
    with open(bt, "w") as f:
        f.write(src)
    env = dict(os.environ, BPFTRACE_PERF_RB_PAGES="4096")
    out, err = open(events, "w"), open(events + ".stderr", "w")
    proc = subprocess.Popen(["stdbuf", "-oL", "bpftrace", bt], env=env, stdout=out,
                            stderr=err, start_new_session=True)
    t0 = time.time()
    while time.time() - t0 < 90:
        if proc.poll() is not None:
            raise SystemExit("bpftrace exited: " + open(events + ".stderr").read()[-400:])
        with open(events) as f:
            if "READY" in f.read(4096):
                return proc
        time.sleep(0.2)
    raise SystemExit("bpftrace did not start")


def stop_tracer(proc):
    time.sleep(0.5)
    proc.send_signal(signal.SIGINT)  # our own bpftrace, by its pid
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def read_events(path):
    """Lines per pid (split), and bpftrace's notes of lost events."""
    per, lost = collections.defaultdict(list), []
    with open(path, errors="replace") as f:
        for line in f:
            p = line.split()
            if "Lost" in line:
                lost.append(line.strip())
            elif len(p) >= 3 and len(p[0]) == 1 and p[1].isdigit():
                per[int(p[1])].append(p)
    return per, lost


def plans_of(lines):
    """The process's subgraphs, runtimes and plans from its lines."""
    sgs, runtime_sg, plans = {}, {}, {}
    for p in lines:
        k = p[0]
        if k == "G":
            sgs.setdefault(int(p[2]), {"ctx": None, "defs": []})["n_ext"] = int(p[3])
        elif k == "V":
            sg = sgs.setdefault(int(p[2]), {"ctx": None, "defs": []})
            sg["ctx"] = sg["ctx"] or p[3]
            sg["defs"].append((int(p[5]), int(p[4])))        # value id, tensor
        elif k == "C":
            runtime_sg.setdefault(p[3], []).append(int(p[2]))
        elif k == "T":
            plans.setdefault(int(p[2]), {"records": []}).update(
                runtime=p[3], arena=int(p[4]), min=int(p[5]), max=int(p[6]),
                num_values=int(p[7]), num_ops=int(p[8]))
        elif k == "U":
            plans.setdefault(int(p[2]), {"records": []})["records"].append(
                [int(x) for x in p[3:]])
        elif k == "E":
            plans.setdefault(int(p[2]), {"records": []})["ended"] = True
    # The delegate defines a value per tensor first (Subgraph::Create), then its nodes
    # define more, some with the tensor they stand in for (a reshaped input, a quantized
    # copy). Ids only grow, and an edge tensor's is its external id, below the others:
    # a tensor's own value is the lowest id defined with it.
    for sg in sgs.values():
        own = {}
        for vid, t in sg["defs"]:
            own[t] = min(own.get(t, vid), vid)
        sg["tensors"] = {vid: t for t, vid in own.items()}
        sg["derived"] = {vid: t for vid, t in sg["defs"] if sg["tensors"].get(vid) != t}
    return sgs, runtime_sg, plans


def measure(lines):
    """One process's result: subgraphs of partitions of values."""
    sgs, runtime_sg, plans = plans_of(lines)
    problems = []
    last, count = {}, collections.Counter()     # subgraph -> its runtime's last plan
    for seq in sorted(plans):
        pl = plans[seq]
        if "runtime" not in pl or not pl.get("ended"):
            problems.append("plan %d seen in part" % seq)
            continue
        if pl["min"] != INVALID and pl["max"] - pl["min"] + 1 > MAX_RECORDS:
            problems.append("plan %d has %d records (%d read)" %
                            (seq, pl["max"] - pl["min"] + 1, MAX_RECORDS))
        # a runtime's address may be a later runtime's: the plan is the one created last
        # before it
        made = [g for g in runtime_sg.get(pl["runtime"], []) if g < seq]
        if made:
            last[max(made)] = pl
            count[max(made)] += 1
    ctxs, out = [], []
    for seq in sorted(sgs):
        sg = sgs[seq]
        if sg["ctx"] not in ctxs:
            ctxs.append(sg["ctx"])
            out.append({"partitions": []})
        part = {"external_value_ids": sg.get("n_ext"), "plans": count[seq], "values": []}
        out[ctxs.index(sg["ctx"])]["partitions"].append(part)
        if not any(seq in v for v in runtime_sg.values()):
            part["error"] = "no runtime was created of it"
            continue
        pl = last.get(seq)
        if pl is None:
            part["error"] = "its runtime was never planned"
            continue
        part.update(num_values=pl["num_values"], num_ops=pl["num_ops"], arena=pl["arena"])
        for vid, first, lastn, size, off, reuse, opdata in sorted(pl["records"]):
            t = sg["tensors"].get(vid)
            kind = "operator" if vid >= pl["num_values"] else "tensor" if t is not None \
                else "created"
            part["values"].append({"id": vid, "tensor": t, "kind": kind,
                                   "from_tensor": sg["derived"].get(vid), "first": first,
                                   "last": lastn, "size": size, "offset": off,
                                   "reuse": None if reuse == INVALID else reuse,
                                   "opdata": None if opdata == INVALID else opdata})
    return out, problems


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*")
    ap.add_argument("--batch", type=int, default=12, help="models per bpftrace session")
    ap.add_argument("--timeout", type=int, default=120)
    ap.add_argument("--out", default="xnn-workspace-truth.json")
    ap.add_argument("--python", default=sys.executable, help="the child's Python")
    ap.add_argument("--lib", default=os.environ.get("XNN_LITERT_LIB"))
    args = ap.parse_args()
    xt.PY = args.python
    xt.LIB = args.lib or xt.find_lib(args.python)
    xt.LIBC = xt.find_libc()
    os.environ.setdefault("XNN_CHILD_LINGER", "0")   # no stacks to symbolize here
    models = args.models or sorted(glob.glob(os.path.join(xt.REPO, "tests", "models",
                                                          "*.tflite")))
    result = {"library": xt.LIB, "models": {}}
    with tempfile.TemporaryDirectory(prefix="xnn-ws.") as tmp:
        events = os.path.join(tmp, "events.txt")
        for i in range(0, len(models), args.batch):
            tracer = start_tracer(events)
            runs = []
            try:
                for m in models[i:i + args.batch]:
                    t = time.time()
                    runs.append((m, xt.run_child("interpreter", m, 1, args.timeout)))
                    print("%-60s %5.1fs %s" % (os.path.basename(m), time.time() - t,
                          runs[-1][1].get("error") or ""), file=sys.stderr, flush=True)
            finally:
                stop_tracer(tracer)
            per, lost = read_events(events)
            for m, c in runs:
                r = {"error": c.get("error"), "error_phase": c.get("error_phase"),
                     "pid": c.get("pid"), "subgraphs": []}
                if c.get("pid"):
                    r["subgraphs"], problems = measure(per.get(c["pid"], []))
                    problems += lost
                    r["complete"], r["problem"] = not problems, "; ".join(problems)
                result["models"][os.path.basename(m)] = r
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print("wrote %s" % args.out, file=sys.stderr)


if __name__ == "__main__":
    main()
