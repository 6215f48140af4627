#!/usr/bin/env python3
"""A tflite-runtime (TensorFlow Lite 2.14) inference process for `arenaprof record`, as a
board runs one: tflite_runtime's Interpreter at its defaults (num_threads left unset, -1),
the builtin kernels without default delegates (what `plan --runtime tflite-runtime-2.14`
plans). tests/integration/test_report_runtime.sh records it.

usage: tflrt_arena_run.py MODEL.tflite RUNS [--xnnpack]

After the first invoke (a plan split by a dynamic output is whole only then) it prints the
runtime's own arena, read out of its ArenaPlanner by litert_plan.py (beside this file):
    arena 0x<base> bytes <high-water mark> buffer <bytes allocated>
then invokes RUNS - 1 more times and prints "done runs RUNS". --xnnpack loads it with the
default resolver instead (XNNPACK takes the graph; nothing is printed for the arena).
Run it with /opt/tflrt214-venv/bin/python and ARENAPROF_SCHEMA_PY set (see
litert_plan.py)."""
import os
import sys

import numpy as np
from tflite_runtime import interpreter as I

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import litert_plan as LP  # noqa: E402

if len(sys.argv) not in (3, 4) or not sys.argv[2].isdigit() or int(sys.argv[2]) < 1 or \
        sys.argv[3:] not in ([], ["--xnnpack"]):
    sys.exit("usage: tflrt_arena_run.py MODEL.tflite RUNS [--xnnpack]")
model, runs, xnnpack = sys.argv[1], int(sys.argv[2]), len(sys.argv) == 4
kw = {} if xnnpack else \
    {"experimental_op_resolver_type": I.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES}
interp = I.Interpreter(model_path=model, **kw)
interp.allocate_tensors()
for r in range(runs):
    for d in interp.get_input_details():
        interp.set_tensor(d["index"], np.zeros(d["shape"], d["dtype"]))
    interp.invoke()
    if r == 0 and not xnnpack:
        pl = LP.Runtime(interp, LP.parse_model(model)).planner
        if not pl:
            sys.exit("tflrt_arena_run.py: the ArenaPlanner was not found")
        print("arena 0x%x bytes %d buffer %d" % (pl["arena"]["base"], pl["arena"]["hwm"],
                                                 pl["arena"]["buffer_size"]), flush=True)
print("done runs %d" % runs, flush=True)
