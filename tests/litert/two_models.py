#!/usr/bin/env python3
"""Several LiteRT interpreters in one process, each invoked once a frame, as a pipeline
runs a detector then a landmark model (tests/integration/test_models.sh).

Usage: two_models.py [--runs N] [--delegate none|xnnpack] [--load path|content] M1 M2 ...

--load content loads each model from bytes (Interpreter(model_content=...)): the runtime
then holds the weights in anonymous memory. Before the frames it prints, for each model,
LiteRT's own arena (its ArenaPlanner's, read by litert_plan.Runtime):
    model K arena 0x<base> bytes <hwm> interp 0x<native handle>
and at the end `frames N`. Exit 3 when LiteRT cannot load a model.
"""
import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402
from ai_edge_litert import interpreter as I  # noqa: E402

import litert_plan as LP  # noqa: E402

ap = argparse.ArgumentParser(prog="two_models.py")
ap.add_argument("models", nargs="+")
ap.add_argument("--runs", type=int, default=1)
ap.add_argument("--delegate", choices=("none", "xnnpack"), default="none")
ap.add_argument("--load", choices=("path", "content"), default="path")
a = ap.parse_args()


def make(path):
    kw = {"num_threads": 1}
    if a.load == "content":
        with open(path, "rb") as f:
            kw["model_content"] = f.read()
    else:
        kw["model_path"] = path
    if a.delegate == "none":
        kw["experimental_op_resolver_type"] = \
            I.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    it = I.Interpreter(**kw)
    it.allocate_tensors()
    return it


def feeds(it):
    out = []
    for d in it.get_input_details():
        dt = np.dtype(d["dtype"])
        n = int(np.prod(d["shape"]))
        v = (np.arange(n) % 200).astype(dt) if dt.kind in "iu" else \
            (np.arange(n) % 200 / 100.0 - 1.0).astype(dt)
        out.append((d["index"], v.reshape(d["shape"])))
    return out


try:
    its = [make(p) for p in a.models]
except Exception as e:  # noqa: BLE001
    print("two_models.py: %s" % str(e).strip().splitlines()[0], file=sys.stderr)
    sys.exit(3)
for k, (p, it) in enumerate(zip(a.models, its)):
    try:
        pl = LP.Runtime(it, LP.parse_model(p)).planner
        ar = pl["arena"] if pl else None
        print("model %d arena 0x%x bytes %d interp 0x%x" %
              (k, ar["base"], ar["hwm"], it._native_handle()) if ar else
              "model %d arena unknown" % k, flush=True)
    except Exception as e:  # noqa: BLE001
        print("model %d arena unknown (%s)" % (k, e), flush=True)
fs = [feeds(it) for it in its]
for r in range(a.runs):
    for it, f in zip(its, fs):
        for idx, v in f:
            it.set_tensor(idx, v)
        it.invoke()
print("frames %d" % a.runs, flush=True)
