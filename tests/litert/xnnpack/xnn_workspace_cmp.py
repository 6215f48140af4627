#!/usr/bin/env python3
"""Compares `plan --json`'s xnnpack.workspace_values with XNNPACK's own plan
(xnn_workspace_truth.py) for tests/integration/test_xnnpack_workspace.sh.

usage: xnn_workspace_cmp.py TMP TRUTH.json MODEL.tflite ...  (TMP holds NAME.plan.json)
Prints a PASS or FAIL line a value, a SKIP a model not measured or not modelled, and INFO
lines of the agreement."""
import json, os, sys

n = {"pass": 0, "fail": 0, "skip": 0, "values": 0, "exact": 0, "models": 0}


def out(kind, msg):
    print("%s: %s" % (kind, msg))
    if kind in ("PASS", "FAIL", "SKIP"):
        n[kind.lower()] += 1


def roots(part):
    """XNNPACK's records that hold bytes of their own (not an in-place reuse)."""
    return [v for v in part["values"] if v["reuse"] is None]


def compare_part(label, k, plan_vals, part, report):
    """(values compared, exact) of partition k; each a line through report."""
    got = roots(part)
    by_tensor = {v["tensor"]: v for v in part["values"] if v["tensor"] is not None}
    done, exact, seen = 0, 0, set()
    for p in (v for v in plan_vals if v["tensor"] is not None):
        m = by_tensor.get(p["tensor"])
        what = "%s: partition %d value %s (tensor %d)" % (label, k, p["name"], p["tensor"])
        done += 1
        if m is None:
            report(False, "%s: planned at %d, XNNPACK plans no record of it" %
                   (what, p["offset"]))
            continue
        seen.add(m["id"])
        ok = m["offset"] == p["offset"] and m["reuse"] is None
        exact += ok
        report(ok, "%s: offset planned %d, measured %d (XNNPACK value %d, %d bytes%s)" %
               (what, p["offset"], m["offset"], m["id"], m["size"],
                "" if m["reuse"] is None else ", in place of value %d" % m["reuse"]))
    for m in got:
        if m["tensor"] is not None and m["id"] not in seen:
            done += 1
            report(False, "%s: partition %d tensor %d: XNNPACK places it at %d (value %d, "
                   "%d bytes), the plan has no value for it" %
                   (label, k, m["tensor"], m["offset"], m["id"], m["size"]))
    # the values without a tensor: in id order on both sides, an operator's own after
    for kind, mine in (("created", lambda v: "operator's own" not in v["name"]),
                       ("operator", lambda v: "operator's own" in v["name"])):
        pv = [v for v in plan_vals if v["tensor"] is None and mine(v)]
        mv = [v for v in got if v["kind"] == kind]
        for i in range(max(len(pv), len(mv))):
            done += 1
            p = pv[i] if i < len(pv) else None
            m = mv[i] if i < len(mv) else None
            if p is None:
                report(False, "%s: partition %d: XNNPACK places its value %d (%s, %d bytes) "
                       "at %d, the plan has no such value" %
                       (label, k, m["id"], kind, m["size"], m["offset"]))
            elif m is None:
                report(False, "%s: partition %d value %s: planned at %d, XNNPACK has no "
                       "such record" % (label, k, p["name"], p["offset"]))
            else:
                ok = p["offset"] == m["offset"]
                exact += ok
                report(ok, "%s: partition %d value %s: offset planned %d, measured %d "
                       "(XNNPACK value %d, %d bytes; planned %d bytes)" %
                       (label, k, p["name"], p["offset"], m["offset"], m["id"], m["size"],
                        p["bytes"]))
    return done, exact


def compare(name, plan, r):
    x = plan.get("xnnpack")
    if x is None or "workspace_values" not in x:
        out("FAIL", "%s: plan --json has no xnnpack.workspace_values" % name)
        return
    if r is None:
        out("FAIL", "%s: the oracle has no result" % name)
        return
    if r.get("error"):
        out("SKIP", "%s: LiteRT fails on it (%s, at %s)" % (name, r["error"][:100],
                                                           r.get("error_phase")))
        return
    if not r.get("complete"):
        out("SKIP", "%s: the oracle could not read XNNPACK's plan whole: %s" %
            (name, r.get("problem")))
        return
    why = x.get("not_modelled", "")
    parts = r["subgraphs"][0]["partitions"] if r["subgraphs"] else []
    # The oracle numbers TFLite subgraphs as the delegate first meets them: subgraph 0
    # first when it has a partition (LiteRT delegates subgraph 0 first). With none planned
    # there, the runtimes it saw may all be other subgraphs' (a WHILE body's).
    if not x["partitions"] and parts and plan.get("subgraphs", 1) > 1:
        out("SKIP", "%s: no partition planned in subgraph 0; XNNPACK's %d runtimes may "
            "all be other subgraphs' (the oracle does not tell a runtime's TFLite "
            "subgraph, and workspace_values lists subgraph 0's)" %
            (name, sum(len(g["partitions"]) for g in r["subgraphs"])))
        return
    lines = []
    report = lambda ok, msg: lines.append(("PASS" if ok else "FAIL", msg))
    if len(parts) != x["partitions"]:
        report(False, "%s: %d partitions planned, XNNPACK made %d" %
               (name, x["partitions"], len(parts)))
    done = exact = 0
    for k, part in enumerate(parts[:x["partitions"]]):
        if part.get("error"):
            report(False, "%s: partition %d: %s" % (name, k, part["error"]))
            continue
        pv = [v for v in x["workspace_values"] if v["partition"] == k]
        d, e = compare_part(name, k, pv, part, report)
        done, exact = done + d, exact + e
    if why:
        out("SKIP", "%s: not modelled (%s): %d of %d workspace values at XNNPACK's offset" %
            (name, why[:120], exact, done))
        return
    for kind, msg in lines:
        out(kind, msg)
    n["values"] += done
    n["exact"] += exact
    n["models"] += 1


def main():
    tmp, truth, models = sys.argv[1], json.load(open(sys.argv[2])), sys.argv[3:]
    for path in models:
        name = os.path.basename(path)[:-len(".tflite")]
        try:
            plan = json.load(open(os.path.join(tmp, name + ".plan.json")))
        except (OSError, ValueError):
            continue        # plan failed: the caller said so
        compare(name, plan, truth["models"].get(name + ".tflite"))
    print("INFO: %d of %d workspace values at XNNPACK's offset over %d models (%d passed, "
          "%d failed, %d models skipped)" % (n["exact"], n["values"], n["models"], n["pass"],
                                             n["fail"], n["skip"]))


if __name__ == "__main__":
    main()
