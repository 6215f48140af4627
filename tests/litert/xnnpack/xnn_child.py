#!/usr/bin/env python3
"""Runs one model in LiteRT with xnn_preload.so preloaded and marks the phases.

usage: LD_PRELOAD=xnn_preload.so xnn_child.py MODEL.tflite [--mode interpreter|compiled]
           [--threads N] [--invokes N] [--weight-cache PATH]

The preload (tests/litert/xnnpack/xnn_preload.c) counts the live bytes of XNNPACK's
allocator and prints them at each xnn_oracle_mark(k): 0 start (after the import), 1 loaded,
2 allocated, 3.. after each invoke, 99 deleted. The Interpreter is the default resolver
(XNNPACK applied by default, as LiteRT does). --weight-cache PATH (compiled only):
CpuOptions(xnnpack_weight_cache_path=PATH), XNNPACK's weight cache file (built when missing).
"""
import argparse
import ctypes
import gc
import sys

ap = argparse.ArgumentParser()
ap.add_argument('model')
ap.add_argument('--mode', default='interpreter', choices=('interpreter', 'compiled'))
ap.add_argument('--threads', type=int, default=1)
ap.add_argument('--invokes', type=int, default=3)
ap.add_argument('--weight-cache')
a = ap.parse_args()

import numpy as np  # noqa: E402
if a.mode == 'interpreter':
    from ai_edge_litert import interpreter as I  # noqa: E402
else:
    from ai_edge_litert.compiled_model import CompiledModel  # noqa: E402
    from ai_edge_litert.options import Options  # noqa: E402
    from ai_edge_litert.cpu_options import CpuOptions  # noqa: E402
    from ai_edge_litert.hardware_accelerator import HardwareAccelerator  # noqa: E402

try:
    mark = ctypes.CDLL(None).xnn_oracle_mark
except AttributeError:
    sys.exit('xnn_child.py: xnn_oracle_mark not found: LD_PRELOAD xnn_preload.so')
mark.argtypes = [ctypes.c_int]
if mark(0) != 1:
    sys.exit('xnn_child.py: the preload could not hook XNNPACK\'s allocator')
if a.mode == 'interpreter':
    obj = I.Interpreter(model_path=a.model, num_threads=a.threads)
    mark(1)
    obj.allocate_tensors()
    mark(2)
    for d in obj.get_input_details():
        obj.set_tensor(d['index'], np.zeros(d['shape'], dtype=d['dtype']))
    for k in range(a.invokes):
        obj.invoke()
        mark(3 + k)
else:
    opts = Options(hardware_accelerators=HardwareAccelerator.CPU,
                   cpu_options=CpuOptions(num_threads=a.threads) if not a.weight_cache else
                   CpuOptions(num_threads=a.threads, xnnpack_weight_cache_path=a.weight_cache))
    obj = CompiledModel.from_file(a.model, options=opts)
    mark(1)
    ins = obj.create_input_buffers(0)
    outs = obj.create_output_buffers(0)
    mark(2)
    for k in range(a.invokes):
        obj.run_by_index(0, ins, outs)
        mark(3 + k)
    del ins, outs
obj = None
gc.collect()
mark(99)
