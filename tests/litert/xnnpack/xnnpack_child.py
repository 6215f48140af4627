#!/usr/bin/env python3
"""Child process of xnnpack_truth.py: runs one model in LiteRT and marks its phases.

usage: xnnpack_child.py {interpreter|compiled} MODEL.tflite [--threads N] [--weight-cache PATH]

--weight-cache PATH (compiled only): CpuOptions(xnnpack_weight_cache_path=PATH), XNNPACK's
weight cache: a FILE that the delegate builds (when missing or empty) or loads, or ":memory"
(a memfd). Every phase then also records the mappings of that file ("weight_cache").

Phase markers are close(900000000 + k) system calls (they fail with EBADF), which the
bpftrace script in xnnpack_truth.py records in the same event stream as the allocator
probes.  Prints one JSON object on stdout. XNN_CHILD_LINGER (seconds, default 0.7): how
long it waits before exiting, so that bpftrace can read its maps to symbolize stacks.
"""
import json, os, sys, time, traceback

MAGIC = 900000000
PHASES = ["start", "loaded", "allocated", "invoke1", "invoke2", "invoke3", "deleted"]

def smaps():
    out = {}
    try:
        with open("/proc/self/smaps_rollup") as f:
            for line in f:
                parts = line.split()
                if len(parts) >= 3 and parts[-1] == "kB":
                    out[parts[0].rstrip(":")] = int(parts[1]) * 1024
    except OSError:
        pass
    return {k: out.get(k) for k in ("Rss", "Anonymous", "Pss_Anon", "Pss_File", "Pss_Shmem",
                                    "Private_Dirty", "Private_Clean", "Shared_Clean",
                                    "Shared_Dirty")}

def cache_maps(path):
    """The mappings of the weight-cache file (or its memfd) in /proc/self/smaps: their count,
    summed Rss, dirty and clean bytes, the bytes of the file they span (overlaps counted once)
    and the file's size."""
    if not path:
        return None
    want = "/memfd:XNNPack in-memory weight cache" if path.startswith(":memory") \
        else os.path.realpath(path)
    maps, cur = [], None
    try:
        with open("/proc/self/smaps") as f:
            for line in f:
                p = line.split()
                if p and "-" in p[0] and not p[0].endswith(":"):
                    name = line.split(None, 5)[5].strip() if len(p) >= 6 else ""
                    cur = None
                    if name == want or name.startswith(want + " "):
                        lo, hi = (int(x, 16) for x in p[0].split("-"))
                        cur = {"off": int(p[2], 16), "len": hi - lo}
                        maps.append(cur)
                elif cur is not None and len(p) >= 3 and p[-1] == "kB":
                    cur[p[0].rstrip(":")] = int(p[1]) * 1024
    except OSError:
        return None
    span, end = 0, -1
    for m in sorted(maps, key=lambda m: m["off"]):
        lo, hi = max(m["off"], end), m["off"] + m["len"]
        if hi > lo:
            span += hi - lo
            end = hi
    size = None
    if not path.startswith(":memory"):
        try:
            size = os.path.getsize(path)
        except OSError:
            pass
    sm = lambda k: sum(m.get(k, 0) for m in maps)
    return {"mappings": len(maps), "rss": sm("Rss"), "span": span, "file_size": size,
            "dirty": sm("Private_Dirty") + sm("Shared_Dirty"),
            "clean": sm("Private_Clean") + sm("Shared_Clean"), "locked": sm("Locked")}

def lib_base():
    """Load address of libpywrap_litert_common.so (mapping at file offset 0), as hex."""
    try:
        with open("/proc/self/maps") as f:
            for line in f:
                p = line.split()
                if len(p) >= 6 and p[5].endswith("libpywrap_litert_common.so") and int(p[2], 16) == 0:
                    return p[0].split("-")[0]
    except OSError:
        pass
    return None

def main():
    mode, model = sys.argv[1], sys.argv[2]
    threads = 1
    cache = None
    if "--weight-cache" in sys.argv:
        cache = sys.argv[sys.argv.index("--weight-cache") + 1]
    if "--threads" in sys.argv:
        threads = int(sys.argv[sys.argv.index("--threads") + 1])
    res = {"lib_base": lib_base(), "pid": os.getpid(), "mode": mode, "model": model, "threads": threads,
           "phases": [], "error": None, "error_phase": None, "weight_cache_path": cache}
    import numpy as np
    if mode == "interpreter":
        from ai_edge_litert import interpreter as I
    else:
        from ai_edge_litert.compiled_model import CompiledModel
        from ai_edge_litert.options import Options
        from ai_edge_litert.cpu_options import CpuOptions
        from ai_edge_litert.hardware_accelerator import HardwareAccelerator

    def mark(k):
        if not res.get("lib_base"):
            res["lib_base"] = lib_base()
        res["phases"].append({"name": PHASES[k], "id": k, "t_ns": time.monotonic_ns(),
                              "smaps": smaps(), "weight_cache": cache_maps(cache)})
        try:
            os.close(MAGIC + k)
        except OSError:
            pass

    phase = "start"
    mark(0)
    obj = None
    try:
        phase = "loaded"
        if mode == "interpreter":
            # Default resolver: AUTO = BUILTIN, XNNPACK applied by default.
            obj = I.Interpreter(model_path=model, num_threads=threads)
            mark(1)
            phase = "allocated"
            obj.allocate_tensors()
            mark(2)
            for d in obj.get_input_details():
                obj.set_tensor(d["index"], np.zeros(d["shape"], dtype=d["dtype"]))
            for k in (1, 2, 3):
                phase = "invoke%d" % k
                obj.invoke()
                mark(2 + k)
            res["num_tensors"] = len(obj.get_tensor_details())
        else:
            cpu = CpuOptions(num_threads=threads)
            if cache:
                cpu = CpuOptions(num_threads=threads, xnnpack_weight_cache_path=cache)
            opts = Options(hardware_accelerators=HardwareAccelerator.CPU, cpu_options=cpu)
            obj = CompiledModel.from_file(model, options=opts)
            mark(1)
            phase = "allocated"
            ins = obj.create_input_buffers(0)
            outs = obj.create_output_buffers(0)
            try:
                res["fully_accelerated"] = obj.is_fully_accelerated()
            except Exception as e:  # noqa: BLE001
                res["fully_accelerated"] = "error: %s" % e
            sig = obj.get_signature_by_index(0)
            res["signature"] = {k: v for k, v in sig.items() if isinstance(v, (str, list))}
            mark(2)
            phase = "write_inputs"


            for b in ins:
                try:
                    d = b.get_tensor_details()
                    res.setdefault("input_details", []).append(str(d))
                except Exception:  # noqa: BLE001
                    pass
            for k in (1, 2, 3):
                phase = "invoke%d" % k
                obj.run_by_index(0, ins, outs)
                mark(2 + k)
            del ins, outs
    except Exception as e:  # noqa: BLE001
        res["error"] = "%s: %s" % (type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else "")
        res["error_phase"] = phase
        res["traceback"] = traceback.format_exc()[-2000:]
    try:
        obj = None
        import gc; gc.collect()
        mark(6)
    except Exception:  # noqa: BLE001
        pass
    # Give bpftrace time to symbolize our stacks while /proc/PID/maps still exists.
    time.sleep(float(os.environ.get("XNN_CHILD_LINGER", "0.7")))
    sys.stdout.write(json.dumps(res) + "\n")
    sys.stdout.flush()

if __name__ == "__main__":
    main()
