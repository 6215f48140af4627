#!/usr/bin/env python3
"""The LiteRT workload behind scripts/litert-run (see there); run it through that
wrapper, which picks the virtualenv's Python."""
import argparse
import os
import sys
import time


def die(msg, code=2):
    print("litert-run: " + msg, file=sys.stderr)
    sys.exit(code)


ap = argparse.ArgumentParser(prog="litert-run")
ap.add_argument("model")
ap.add_argument("--runs", type=int, default=1)
ap.add_argument("--delegate", choices=("none", "xnnpack"), default="none")
ap.add_argument("--api", choices=("interpreter", "compiled"), default="interpreter")
ap.add_argument("--threads", type=int, default=1)
ap.add_argument("--resize-at", type=int, default=0)
ap.add_argument("--print-arena", action="store_true")
ap.add_argument("--wait", action="store_true")
ap.add_argument("--wait-load", action="store_true")
ap.add_argument("--log")
a = ap.parse_args()
if a.runs < 1:
    die("--runs must be >= 1")
if a.threads < 1:
    die("--threads must be >= 1")
if a.resize_at and not 1 <= a.resize_at < a.runs:
    die("--resize-at %d needs 1 <= R < N = %d" % (a.resize_at, a.runs))
if not os.path.isfile(a.model):
    die("%s: no such file" % a.model)
if a.api == "compiled" and (a.delegate != "xnnpack" or a.resize_at or a.print_arena):
    die("--api compiled runs LiteRT's default CPU path: it takes --delegate xnnpack, and "
        "neither --resize-at nor --print-arena")

import numpy as np  # noqa: E402
try:
    from ai_edge_litert import interpreter as I  # noqa: E402
except ImportError:
    from tflite_runtime import interpreter as I  # noqa: E402

if a.wait_load:
    # LiteRT's libraries are mapped, nothing of the model is: a tracer attached now sees
    # every block the runtime and its delegate allocate (arenaprof top -p)
    print("ready to load pid %d" % os.getpid(), flush=True)
    sys.stdin.readline()



class Compiled:
    """CompiledModel on CPU (XNNPACK), behind the few Interpreter calls this script makes."""

    def __init__(self, model, threads):
        from ai_edge_litert.compiled_model import CompiledModel
        from ai_edge_litert.cpu_options import CpuOptions
        from ai_edge_litert.hardware_accelerator import HardwareAccelerator
        from ai_edge_litert.options import Options
        opts = Options(hardware_accelerators=HardwareAccelerator.CPU,
                       cpu_options=CpuOptions(num_threads=threads))
        self.cm = CompiledModel.from_file(model, options=opts)
        self.ins = self.cm.create_input_buffers(0)
        self.outs = self.cm.create_output_buffers(0)
        key = list(self.cm.get_signature_list())[0]
        det = self.cm.get_input_tensor_details(key)
        names = self.cm.get_signature_list()[key]["inputs"]
        self.details = [{"index": k, "shape": det[n]["shape"], "dtype": det[n]["dtype"]}
                        for k, n in enumerate(names)]

    def get_input_details(self):
        return self.details

    def set_tensor(self, k, v):
        self.ins[k].write(v)

    def invoke(self):
        self.cm.run_by_index(0, self.ins, self.outs)


if a.api == "compiled":
    try:
        interp = Compiled(a.model, a.threads)
    except Exception as e:  # noqa: BLE001
        die("LiteRT cannot compile %s: %s" % (a.model, str(e).strip().splitlines()[0]), 3)
else:
    kw = {"model_path": a.model, "num_threads": a.threads}
    if a.delegate == "none":
        kw["experimental_op_resolver_type"] = \
            I.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
    try:
        interp = I.Interpreter(**kw)
        interp.allocate_tensors()
    except Exception as e:  # noqa: BLE001
        die("LiteRT cannot load %s: %s" % (a.model, str(e).strip().splitlines()[0]), 3)


def inputs_for(interp):
    """Deterministic input data: a ramp over the dtype's range, per input."""
    out = []
    for k, d in enumerate(interp.get_input_details()):
        n = int(np.prod(d["shape"]))
        ramp = (np.arange(n, dtype=np.int64) * 7 + 13 * k) % 251
        dt = np.dtype(d["dtype"])
        if dt.kind == "f":
            v = (ramp.astype(np.float64) / 125.0 - 1.0).astype(dt)
        elif dt.kind in "iu":
            info = np.iinfo(dt)
            v = (ramp + max(info.min, -128)).clip(info.min, info.max).astype(dt)
        elif dt.kind == "b":
            v = (ramp & 1).astype(dt)
        else:
            die("input %d: unsupported dtype %s" % (k, dt))
        out.append((d["index"], v.reshape(d["shape"])))
    return out


def print_arena(interp, why):
    if not a.print_arena:
        return
    tools = os.environ.get("LITERT_RUN_TOOLS", "")
    try:
        sys.path.insert(0, tools)
        import litert_plan as LP
        rt = LP.Runtime(interp, LP.parse_model(a.model))
        pl = rt.planner
        if not pl:
            raise RuntimeError("ArenaPlanner not found")
        ar = pl["arena"]
        print("arena 0x%x bytes %d %s" % (ar["base"], ar["hwm"], why), flush=True)
    except Exception as e:  # noqa: BLE001
        print("arena unknown (%s) %s" % (str(e).splitlines()[0] if str(e) else
                                         type(e).__name__, why), flush=True)


feeds = inputs_for(interp)
print_arena(interp, "allocate")
if a.wait:
    print("ready pid %d" % os.getpid(), flush=True)
    sys.stdin.readline()

times, cpu = [], []
log = open(a.log, "w", buffering=1) if a.log else None
clock, tclock = time.perf_counter_ns, time.thread_time_ns
t_all = clock()
for r in range(a.runs):
    if a.resize_at and r == a.resize_at:
        d = interp.get_input_details()[0]
        shape = list(d["shape"])
        shape[0] *= 2
        interp.resize_tensor_input(d["index"], shape)
        interp.allocate_tensors()
        feeds = inputs_for(interp)
        print_arena(interp, "resize")
    for idx, v in feeds:
        interp.set_tensor(idx, v)
    c0, t0, m0 = tclock(), clock(), time.clock_gettime_ns(time.CLOCK_MONOTONIC)
    interp.invoke()
    times.append(clock() - t0)
    cpu.append(tclock() - c0)
    if log:
        log.write("%d %d %d\n" % (m0, times[-1], cpu[-1]))
total = clock() - t_all
print("done runs %d" % a.runs, flush=True)
s = sorted(times)
print("timing total_ns %d first_ns %d median_ns %d p99_ns %d" % (
    total, times[0], s[(len(s) - 1) // 2], s[min(len(s) - 1, (len(s) * 99) // 100)]),
    flush=True)
c = sorted(cpu)
print("cputime first_ns %d median_ns %d p99_ns %d" % (
    cpu[0], c[(len(c) - 1) // 2], c[min(len(c) - 1, (len(c) * 99) // 100)]), flush=True)
