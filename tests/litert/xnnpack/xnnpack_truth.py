#!/usr/bin/env python3
"""The oracle of `arenaprof plan` on LiteRT's default CPU path (issue 24): the bytes
LiteRT's XNNPACK delegate really holds, read from XNNPACK's own allocator.

What it measures. For every model a child process (xnnpack_child.py) runs LiteRT
  (a) interpreter: Interpreter(model_path=M) with the default resolver (XNNPACK applied
      by default), allocate_tensors, invoke() x3;
  (b) compiled:    CompiledModel.from_file(M) on CPU, create_input/output_buffers,
      run_by_index(0, ...) x3;
  and, asked for in --modes, CompiledModel with XNNPACK's weight cache
  (CpuOptions(xnnpack_weight_cache_path=...), docs/xnnpack.md "Weight cache"):
  (c) compiled-cache:      builds the cache file DIR/MODEL.xnncache (removed first);
  (d) compiled-cache-load: loads the file (c) built;
  (e) compiled-memory:     the in-memory cache (":memory", a memfd);
  each phase then also records the cache's mappings (phases.P.weight_cache: rss, span of the
  file, dirty and clean bytes, file_size);
while one bpftrace session (xnn_alloc.bt) traces xnn_allocate / xnn_reallocate /
xnn_deallocate / xnn_aligned_allocate / xnn_aligned_deallocate, XNNPACK's default
allocator, in LiteRT's libpywrap_litert_common.so (uprobes, uretprobes for the returned
pointers, a user stack for every allocation) and the child's phase markers (libc close()
of a magic fd). The event stream is replayed per process: live bytes and blocks at every
phase ("allocated", "invoke1", ...), bytes allocated in total, the live bytes by the
function that allocated them (packed weights, workspace, indirection buffers, ...), the
largest live blocks. tests/integration/test_xnnpack_plan.sh compares
phases.invoke1.live_bytes of the interpreter with `arenaprof plan --json` xnnpack.total_bytes.

How. Several models run in one bpftrace session (--batch), which keeps a run of every
bundled model to a few minutes. Each process's event stream is checked: every allocate,
aligned_allocate and reallocate entry needs its return event (on some kernels a session's
xnn_reallocate uretprobe stopped firing after ~900 hits); a model whose stream is not
complete runs again in a new session (--retries). --preload SO counts every run a second
time, in the process (xnn_preload.c, hooks in XNNPACK's allocator table, no uprobes): the
measurement where the uprobes fail, and a check of the two against each other.

usage (root; the Python that has ai-edge-litert, e.g. /opt/arenaprof-venv/bin/python):
  PY xnnpack_truth.py [--modes interpreter,compiled] [--weight-cache DIR] [--threads 1] [--out truth.json]
      [--md truth.md] [--lib .../libpywrap_litert_common.so] [MODEL.tflite ...]
Without models: every tests/models/*.tflite of this repository. The child runs with the
driver's own Python unless --python; the library is found in that Python's ai_edge_litert
package unless --lib (or $XNN_LITERT_LIB); libc is the one this process maps.
Needs bpftrace, nm (binutils) and stdbuf (coreutils).
"""
import argparse, bisect, collections, glob, json, os, platform, signal, subprocess, sys
import tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
LIB_NAME = "libpywrap_litert_common.so"
PY = sys.executable     # the child's Python (--python)
LIB = None              # LiteRT's library (--lib), found by find_lib()
LIBC = None             # libc, found by find_libc()
PHASES = ["start", "loaded", "allocated", "invoke1", "invoke2", "invoke3", "deleted"]
MiB = 1024.0 * 1024.0

# Frames that only forward an allocation (skipped when naming the allocation site).
WRAPPERS = ("xnn_allocate", "xnn_reallocate", "xnn_aligned_allocate", "xnn_allocate_zero",
            "xnn_allocate_simd", "xnn_allocate_zero_simd", "xnn_reallocate_memory",
            "xnn_allocate_memory", "xnn_allocate_zero_memory", "xnn_allocate_simd_memory",
            "xnn_allocate_zero_simd_memory")


def find_lib(python):
    """libpywrap_litert_common.so of the ai_edge_litert package that python imports."""
    out = subprocess.run([python, "-c", "import ai_edge_litert, os; "
                          "print(os.path.dirname(ai_edge_litert.__file__))"],
                         capture_output=True, text=True)
    if out.returncode:
        raise SystemExit("%s cannot import ai_edge_litert: %s" % (python, out.stderr.strip()[-200:]))
    path = os.path.join(out.stdout.strip(), LIB_NAME)
    if not os.path.exists(path):
        raise SystemExit("no %s in %s" % (LIB_NAME, out.stdout.strip()))
    return path


def find_libc():
    """The libc this process maps (the child's is the same file)."""
    with open("/proc/self/maps") as f:
        for line in f:
            p = line.split()
            if len(p) >= 6 and os.path.basename(p[5]).startswith("libc.so"):
                return p[5]
    raise SystemExit("no libc in /proc/self/maps")


# ---------------------------------------------------------------------------
# Symbols of the .so (nm of .symtab: local symbols included)
# ---------------------------------------------------------------------------
class Symbols:
    def __init__(self, path):
        out = subprocess.run(["nm", "-C", "-S", "--defined-only", path], capture_output=True,
                             text=True, check=True).stdout
        rows = []
        for line in out.splitlines():
            p = line.split(" ", 3)
            if len(p) == 4 and p[2] in "tTwW":
                try:
                    rows.append((int(p[0], 16), int(p[1], 16), p[3]))
                except ValueError:
                    pass
        rows.sort()
        self.addr = [r[0] for r in rows]
        self.rows = rows

    def name(self, off):
        i = bisect.bisect_right(self.addr, off) - 1
        if i < 0:
            return "?0x%x" % off
        a, sz, n = self.rows[i]
        if off >= a + max(sz, 1) + 16:
            return "?0x%x" % off
        return n


def short(name):
    """Function name without argument list or template noise."""
    name = name.replace("(anonymous namespace)::", "")
    depth, out = 0, []
    for ch in name:
        if ch == "(" and depth == 0:
            break
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    s = "".join(out)
    return s.replace("tflite::xnnpack::", "xnnpack_delegate::")


def category(frames):
    """Coarse class of an allocation, from the (short) names of its stack."""
    joined = " ".join(frames)
    first = frames[0] if frames else ""
    # runtime.c: xnn_plan_memory -> initialize_workspace_values (inlined) grows the
    # workspace with xnn_allocate_zero_simd_memory; the planner's own trackers are freed.
    if first == "xnn_plan_memory":
        return "workspace"
    if first in ("reshape_igemm", "reshape_dwconv", "reshape_deconvolution2d_nhwc",
                 "reshape_subconv2d_path", "reshape_conv_path", "reshape_vmulcaddc_path"):
        return "indirection"
    if "workspace" in joined and ("xnn_reshape_runtime" in joined or "xnn_create_workspace" in joined
                                  or "xnn_setup_runtime" in joined or "reshape_runtime" in joined):
        if "xnn_create_workspace" in first:
            return "workspace_struct"
        return "workspace"
    if "xnn_create_workspace" in joined:
        return "workspace_struct"
    if "indirection" in joined:
        return "indirection"
    if any(k in joined for k in ("xnn_pack", "pack_weights", "xnn_get_pointer_to_write_weights",
                                 "weights_cache", "WeightCache", "reserve_space", "packed")):
        return "packed_weights"
    if "xnn_reshape_" in joined or "reshape_" in first:
        return "operator_reshape"
    if "xnn_create_subgraph" in joined or "xnn_define_" in joined or "xnn_subgraph" in first \
            or "xnn_node" in first or "xnn_value" in first:
        return "subgraph_definition"
    if "xnn_create_" in joined or "create_" in first:
        return "operator_create"
    if "xnn_create_runtime" in joined:
        return "runtime"
    return "other"


# ---------------------------------------------------------------------------
# bpftrace
# ---------------------------------------------------------------------------
def start_tracer(events_path):
    src = open(os.path.join(HERE, "xnn_alloc.bt")).read()
    src = src.replace("$LIBC", LIBC).replace("$LIB", LIB)
    bt = events_path + ".bt"
    with open(bt, "w") as f:
        f.write(src)
    # A larger stack map: with the default (4096 keys) bpf_get_stackid() fails with
    # -EEXIST on hash collisions ("failed to look up stack id -17").
    env = dict(os.environ, BPFTRACE_PERF_RB_PAGES="4096", BPFTRACE_MAP_KEYS_MAX="65536")
    err = open(events_path + ".stderr", "w")
    out = open(events_path, "w")
    # bpftrace's -o file is block buffered (READY would only show at exit); its stdout goes
    # through C stdio, so stdbuf -oL makes it line buffered.
    proc = subprocess.Popen(["stdbuf", "-oL", "bpftrace", bt], env=env, stdout=out,
                            stderr=err, start_new_session=True)
    t0 = time.time()
    while time.time() - t0 < 60:
        if proc.poll() is not None:
            raise SystemExit("bpftrace exited: see %s.stderr" % events_path)
        try:
            with open(events_path) as f:
                if "READY" in f.read(4096):
                    return proc
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("bpftrace did not start")


def stop_tracer(proc):
    time.sleep(1.0)
    proc.send_signal(signal.SIGINT)  # our own bpftrace, by its pid
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def read_events(path, pids):
    """Events per pid: (ts, kind, tid, fields, stack-addresses).  Also lost-event notes."""
    per = collections.defaultdict(list)
    lost = []
    cur = None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("\t") or line.startswith(" "):
                if cur is not None:
                    tok = line.split()
                    if tok:
                        try:
                            cur[4].append(int(tok[0], 16))
                        except ValueError:
                            pass
                continue
            p = line.split()
            if not p:
                continue
            if "Lost" in line:
                lost.append(line.strip())
                cur = None
                continue
            if len(p[0]) != 1 or len(p) < 4:
                cur = None
                continue
            try:
                ts, pid, tid = int(p[1]), int(p[2]), int(p[3])
            except ValueError:
                cur = None
                continue
            if pid not in pids:
                cur = None
                continue
            cur = (ts, p[0], tid, p[4:], [])
            per[pid].append(cur)
    for evs in per.values():
        evs.sort(key=lambda e: e[0])
    return per, lost


# ---------------------------------------------------------------------------
# Replay of one process's allocator events
# ---------------------------------------------------------------------------
def replay(events, base, syms, top_n=12):
    live = {}          # ptr -> (size, site, category, phase_index_at_alloc, kind)
    pending = {}       # tid -> (kind, size, oldptr, stack)
    cur_phase = -1
    total_alloc = 0
    n_alloc = n_free = n_realloc = 0
    peak = peak_blocks = 0
    live_bytes = 0
    unmatched_free = 0
    snaps = {}
    alloc_by_phase = collections.Counter()
    aligns = collections.Counter()
    site_cache = {}

    def site_of(stack):
        key = tuple(stack[:10])
        if key in site_cache:
            return site_cache[key]
        names = []
        for a in stack:
            n = syms.name(a - base) if base is not None and a >= base else "?0x%x" % a
            names.append(short(n))
        # drop the allocator entry and forwarding wrappers
        k = 0
        while k < len(names) and (names[k] in WRAPPERS or names[k].startswith("?")
                                  and k == 0):
            k += 1
        frames = names[k:]
        site = " < ".join(frames[:3]) if frames else "?"
        res = (site, category(frames), frames[:6])
        site_cache[key] = res
        return res

    def add(ptr, size, stack, kind):
        nonlocal live_bytes, peak, peak_blocks, total_alloc
        site, cat, frames = site_of(stack)
        live[ptr] = (size, site, cat, cur_phase, kind, frames)
        live_bytes += size
        total_alloc += size
        alloc_by_phase[PHASES[cur_phase + 1] if cur_phase + 1 < len(PHASES) else "after"] += size
        if live_bytes > peak:
            peak = live_bytes
        peak_blocks = max(peak_blocks, len(live))

    def remove(ptr):
        nonlocal live_bytes, unmatched_free
        if ptr == 0:
            return
        b = live.pop(ptr, None)
        if b is None:
            unmatched_free += 1
        else:
            live_bytes -= b[0]

    def snapshot():
        by_cat = collections.Counter()
        by_site = collections.Counter()
        for size, site, cat, _, _, _ in live.values():
            by_cat[cat] += size
            by_site[site] += size
        blocks = sorted(live.values(), key=lambda b: -b[0])[:top_n]
        return {
            "live_bytes": live_bytes, "live_blocks": len(live),
            "total_allocated": total_alloc, "peak_live_bytes": peak,
            "allocations": n_alloc, "frees": n_free, "reallocs": n_realloc,
            "by_category": dict(by_cat.most_common()),
            "by_site": dict(by_site.most_common(12)),
            "largest_blocks": [{"size": b[0], "category": b[2], "site": b[1],
                                "allocated_in": PHASES[b[3] + 1] if b[3] + 1 < len(PHASES) else "?",
                                "aligned": b[4] == "M", "stack": b[5]} for b in blocks],
        }

    for ts, kind, tid, f, stack in events:
        if kind == "P":
            cur_phase = int(f[0])
            snaps[PHASES[cur_phase]] = snapshot()
            snaps[PHASES[cur_phase]]["t_ns"] = ts
        elif kind == "A":
            pending[tid] = ("A", int(f[0]), 0, stack)
        elif kind == "M":
            pending[tid] = ("M", int(f[1]), 0, stack)
            aligns[int(f[0])] += 1
        elif kind == "R":
            pending[tid] = ("R", int(f[1]), int(f[0], 16), stack)
        elif kind in "amr":
            pk = pending.pop(tid, None)
            if pk is None:
                continue
            ptr = int(f[0], 16)
            if pk[0] == "R":
                n_realloc += 1
                if ptr == 0 and pk[1] != 0:
                    continue  # failed realloc: old block still live
                old = live.get(pk[2])
                remove(pk[2])
                if ptr:
                    add(ptr, pk[1], pk[3], "R")
                    if old is not None:
                        # a realloc moves or grows a block: count only its growth as allocated
                        total_alloc -= old[0]
            elif ptr:
                n_alloc += 1
                add(ptr, pk[1], pk[3], pk[0])
        elif kind in "Ff":
            ptr = int(f[0], 16)
            if ptr:
                n_free += 1
            remove(ptr)
    return snaps, {"unmatched_frees": unmatched_free, "alignments": dict(aligns)}


# ---------------------------------------------------------------------------
CACHE_DIR = None        # --weight-cache DIR: where the compiled-cache modes keep their files
CACHE_MODES = ("compiled-cache", "compiled-cache-load", "compiled-memory")


def cache_path(mode, model):
    """The weight cache a mode runs with: compiled-cache builds DIR/MODEL.xnncache (removed
    first), compiled-cache-load loads the file the compiled-cache run built (run it first),
    compiled-memory uses the in-memory cache (":memory", a memfd); None for the others."""
    if mode == "compiled-memory":
        return ":memory"
    if mode not in CACHE_MODES:
        return None
    return os.path.join(CACHE_DIR, os.path.basename(model) + ".xnncache")


def cache_args(mode, model):
    """The child's --weight-cache for a mode (compiled-cache: the file removed first)."""
    cache = cache_path(mode, model)
    if not cache:
        return []
    if mode == "compiled-cache" and os.path.exists(cache):
        os.unlink(cache)
    return ["--weight-cache", cache]


def run_child(mode, model, threads, timeout):
    cmd = [PY, os.path.join(HERE, "xnnpack_child.py"), "interpreter" if mode == "interpreter"
           else "compiled", model, "--threads", str(threads)] + cache_args(mode, model)
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return {"error": "timeout after %ds" % timeout, "pid": None}
    res = None
    for line in p.stdout.splitlines():
        if line.startswith("{"):
            try:
                res = json.loads(line)
            except ValueError:
                pass
    if res is None:
        tail = [l for l in p.stderr.splitlines() if l.strip()][-3:]
        return {"error": "child died (rc %d): %s" % (p.returncode, " | ".join(tail)), "pid": None,
                "rc": p.returncode}
    res["rc"] = p.returncode
    res["log_tail"] = [l for l in p.stderr.splitlines()
                       if "ERROR" in l or "XNNPACK" in l or "XNNPack" in l][-6:]
    return res


def run_preload(mode, model, so, threads, timeout):
    """The second oracle (xnn_preload.c, in the process, no uprobes): XNNPACK's allocator
    counted by hooks in its own function table; {"invoke1": live bytes after the first
    invoke, "invoke3": after the third} or {"error": why}. The cache modes run with the same
    cache file as the traced run (compiled-cache removes it first and builds it again)."""
    if mode == "compiled-memory":
        return None
    with tempfile.NamedTemporaryFile(prefix="xnn-preload.", suffix=".out") as out:
        env = dict(os.environ, LD_PRELOAD=so, XNN_ORACLE_OUT=out.name)
        cmd = [PY, "-E", "-s", os.path.join(HERE, "xnn_child.py"), model, "--mode",
               "interpreter" if mode == "interpreter" else "compiled",
               "--threads", str(threads)] + cache_args(mode, model)
        try:
            p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            return {"error": "timeout after %ds" % timeout}
        marks, blocks = {}, {}
        for line in open(out.name):
            f = line.split()
            if len(f) >= 5 and f[0] == "XNNORACLE" and f[1] == "mark" and f[3] == "live":
                marks[int(f[2])] = int(f[4])
                if len(f) >= 7 and f[5] == "blocks":
                    blocks[int(f[2])] = int(f[6])
    if 3 not in marks:
        tail = [l for l in p.stderr.splitlines() if l.strip()][-2:]
        return {"error": "no mark after the first invoke (rc %d): %s" %
                (p.returncode, " | ".join(tail))}
    return {"invoke1": marks[3], "invoke3": marks.get(5), "invoke1_blocks": blocks.get(3)}


def complete(ev):
    """Every entry probe (A, M, R) followed, on its thread, by its return (a, m, r)?"""
    pend = {}
    bad = collections.Counter()
    for ts, kind, tid, f, st in ev:
        if kind in "AMR":
            if tid in pend:
                bad[pend[tid] + " without return"] += 1
            pend[tid] = kind
        elif kind in "amr":
            if pend.pop(tid, None) != kind.upper():
                bad["stray " + kind] += 1
    for k in pend.values():
        bad[k + " without return"] += 1
    n_nostack = sum(1 for e in ev if e[1] in "AMR" and not e[4])
    if n_nostack:
        bad["entries without a user stack"] += n_nostack
    hard = {k: v for k, v in bad.items() if "stack" not in k}
    return (not hard), ", ".join("%s: %d" % kv for kv in bad.items())


def summarize(child, snaps, extra):
    out = {"pid": child.get("pid"), "error": child.get("error"),
           "error_phase": child.get("error_phase"), "rc": child.get("rc")}
    for k in ("fully_accelerated", "signature", "num_tensors", "log_tail", "traceback",
              "trace_complete", "trace_problem", "trace_attempt", "weight_cache_path"):
        if k in child:
            out[k] = child[k]
    sm = {p["name"]: p["smaps"] for p in child.get("phases", [])}
    wc = {p["name"]: p.get("weight_cache") for p in child.get("phases", [])}
    out["smaps"] = sm
    out["phases"] = {}
    for name in PHASES:
        if name in snaps:
            s = dict(snaps[name])
            if name in sm and sm[name]:
                s["smaps_anonymous"] = sm[name].get("Anonymous")
                s["smaps_rss"] = sm[name].get("Rss")
            if wc.get(name):
                s["weight_cache"] = wc[name]
            out["phases"][name] = s
    out.update(extra)
    a0 = (sm.get("start") or {}).get("Anonymous")
    for name in ("invoke1", "invoke3"):
        a = (sm.get(name) or {}).get("Anonymous")
        if a0 is not None and a is not None:
            out["anon_growth_since_start_" + name] = a - a0
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("models", nargs="*")
    ap.add_argument("--modes", default="interpreter,compiled")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--timeout", type=int, default=180)
    ap.add_argument("--out", default="xnnpack-truth.json", help="the JSON written")
    ap.add_argument("--md", help="a Markdown table of it, too")
    ap.add_argument("--batch", type=int, default=6, help="models per bpftrace session")
    ap.add_argument("--retries", type=int, default=2)
    ap.add_argument("--weight-cache", metavar="DIR",
                    help="where the modes " + ", ".join(CACHE_MODES) + " keep their cache "
                    "files (default: a temporary directory)")
    ap.add_argument("--events", help="bpftrace's raw output (default: a temporary file)")
    ap.add_argument("--python", default=sys.executable, help="the child's Python")
    ap.add_argument("--preload", metavar="SO",
                    help="also count every run but compiled-memory in the process with "
                    "this build of xnn_preload.c (models.M.MODE.preload)")
    ap.add_argument("--lib", default=os.environ.get("XNN_LITERT_LIB"),
                    help="LiteRT's " + LIB_NAME + " (default: the python's ai_edge_litert)")
    args = ap.parse_args()
    global PY, LIB, LIBC
    PY = args.python
    LIB = args.lib or find_lib(PY)
    LIBC = find_libc()
    tmpd = None
    if not args.events:
        tmpd = tempfile.TemporaryDirectory(prefix="xnnpack-truth.")
        args.events = os.path.join(tmpd.name, "events.txt")
    global CACHE_DIR
    CACHE_DIR = args.weight_cache
    if CACHE_DIR:
        os.makedirs(CACHE_DIR, exist_ok=True)
    elif tmpd:
        CACHE_DIR = tmpd.name
    else:
        tmpc = tempfile.TemporaryDirectory(prefix="xnnpack-cache.")  # noqa: F841 (kept alive)
        CACHE_DIR = tmpc.name
    models = args.models or sorted(glob.glob(os.path.join(REPO, "tests", "models", "*.tflite")))
    modes = args.modes.split(",")
    for mode in modes:
        if mode not in ("interpreter", "compiled") + CACHE_MODES:
            raise SystemExit("unknown mode %r (interpreter, compiled, %s)" % (mode, ", ".join(CACHE_MODES)))
    if "compiled-cache-load" in modes and ("compiled-cache" not in modes or modes.index(
            "compiled-cache") > modes.index("compiled-cache-load")) and not args.weight_cache:
        raise SystemExit("compiled-cache-load loads what compiled-cache built: run that first, "
                         "or give --weight-cache DIR with the files")
    syms = Symbols(LIB)
    # Runs in bpftrace sessions of --batch models each.  Every process's event stream is
    # checked (each allocate / aligned_allocate / reallocate entry has its return event;
    # seen once on this kernel: a session's xnn_reallocate uretprobe stopped firing after
    # ~900 hits); a model whose stream is incomplete is run again in a new session.
    done = {}          # (model, mode) -> (child, events)
    todo = [(m, mode) for m in models for mode in modes]
    attempt = 0
    lost = []
    while todo and attempt < args.retries + 1:
        attempt += 1
        retry = []
        for i in range(0, len(todo), args.batch * len(modes)):
            batch = todo[i:i + args.batch * len(modes)]
            tracer = start_tracer(args.events)
            runs = []
            try:
                for m, mode in batch:
                    t = time.time()
                    c = run_child(mode, m, args.threads, args.timeout)
                    runs.append((m, mode, c))
                    print("%-60s %-11s %5.1fs %s" % (os.path.basename(m), mode, time.time() - t,
                          c.get("error") or ""), file=sys.stderr, flush=True)
            finally:
                stop_tracer(tracer)
            pids = {c["pid"] for _, _, c in runs if c.get("pid")}
            per, lost_b = read_events(args.events, pids)
            lost += lost_b
            for m, mode, c in runs:
                ev = per.get(c.get("pid"), [])
                ok, why = complete(ev)
                c["trace_complete"] = ok
                c["trace_problem"] = why
                c["trace_attempt"] = attempt
                if not ok and c.get("pid") and attempt < args.retries + 1:
                    print("  incomplete trace (%s): will run again" % why, file=sys.stderr)
                    retry.append((m, mode))
                done[(m, mode)] = (c, ev)
        todo = retry
    runs = [(m, mode, done[(m, mode)][0]) for m in models for mode in modes]
    per = {done[(m, mode)][0].get("pid"): done[(m, mode)][1] for m in models for mode in modes}
    result = {"host": cpu_info(), "litert": litert_version(PY), "library": LIB,
              "threads": args.threads, "lost_event_notes": lost, "xnnpack_commit":
              "8388bd78690515166d59f1b28e593a455a41d580 (LiteRT 2.3.0's; docs/xnnpack.md)", "models": {}}
    for m, mode, c in runs:
        base = int(c["lib_base"], 16) if c.get("lib_base") else None
        snaps, extra = replay(per.get(c.get("pid"), []), base, syms) if c.get("pid") else ({}, {})
        entry = result["models"].setdefault(os.path.basename(m), {})
        entry[mode] = summarize(c, snaps, extra)
        if args.preload:
            pre = run_preload(mode, m, os.path.abspath(args.preload), args.threads, args.timeout)
            if pre is not None:
                entry[mode]["preload"] = pre
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    if args.md:
        write_md(result, args.md)
    print("wrote %s%s" % (args.out, " and " + args.md if args.md else ""), file=sys.stderr)


def litert_version(python):
    out = subprocess.run([python, "-c", "import importlib.metadata as m; "
                          "print(m.version('ai-edge-litert'))"], capture_output=True, text=True)
    return "ai-edge-litert " + (out.stdout.strip() or "?")


def cpu_info():
    flags, model = set(), ""
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
            elif line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
    keep = sorted(x for x in flags if x.startswith(("avx", "amx", "fma", "f16c", "sse4")))
    return {"model": model, "machine": platform.machine(), "flags": keep,
            "nproc": os.cpu_count()}


def fmt(b):
    return "" if b is None else "%.2f" % (b / MiB)


def write_md(result, path):
    L = []
    h = result["host"]
    L.append("# XNNPACK allocator live bytes, %s, %s\n" % (result["litert"], h["machine"]))
    L.append("Measured by `xnnpack_truth.py` (bpftrace uprobes on xnn_allocate / xnn_reallocate / "
             "xnn_deallocate / xnn_aligned_allocate / xnn_aligned_deallocate in "
             "libpywrap_litert_common.so). CPU: %s, %d vCPUs, flags: %s. Threads: %d.\n"
             % (h["model"], h["nproc"], " ".join(h["flags"]), result["threads"]))
    L.append("MiB = 2^20 bytes. `I` = `Interpreter(model_path=M)` default resolver (XNNPACK by "
             "default), `C` = `CompiledModel.from_file(M)` on CPU. inv1 / inv3: live bytes right "
             "after the first / third invoke; blk: live blocks after invoke 3; tot: bytes "
             "allocated in total up to invoke 3; anonΔ: growth of smaps_rollup Anonymous from "
             "process start (after imports) to invoke 3; cat: where the live bytes after invoke 3 "
             "came from, by the function that allocated them (pw = packed weights, ws = workspace "
             "(xnn_plan_memory), ind = indirection buffers (reshape_igemm / reshape_dwconv), "
             "op = other operator-create blocks, op-r = other reshape blocks, rt = runtime, "
             "sg = subgraph definition, oth = unclassified).\n")
    if result["lost_event_notes"]:
        L.append("**bpftrace reported lost events:** %s\n" % "; ".join(result["lost_event_notes"]))
    L.append("| model | I inv1 | I inv3 | I blk | I tot | I anonΔ | I cat | C inv1 | C inv3 | C blk | C anonΔ | C cat | note |")
    L.append("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    short_cat = {"packed_weights": "pw", "workspace": "ws", "operator_create": "op",
                 "operator_reshape": "op-r", "indirection": "ind", "subgraph_definition": "sg",
                 "workspace_struct": "ws-s", "runtime": "rt", "other": "oth"}
    for name, e in sorted(result["models"].items()):
        row = [name]
        notes = []
        for mode in ("interpreter", "compiled"):
            r = e.get(mode)
            if r is None:
                row += [""] * (6 if mode == "interpreter" else 5)
                continue
            ph = r.get("phases", {})
            i1, i3 = ph.get("invoke1", {}), ph.get("invoke3", {})
            cats = i3.get("by_category", {})
            cs = " ".join("%s %.2f" % (short_cat.get(k, k), v / MiB) for k, v in cats.items()
                          if v >= 0.005 * MiB)
            vals = [fmt(i1.get("live_bytes")), fmt(i3.get("live_bytes")),
                    str(i3.get("live_blocks", "")), fmt(i3.get("total_allocated"))
                    if mode == "interpreter" else None,
                    fmt(r.get("anon_growth_since_start_invoke3")), cs]
            row += [v for v in vals if v is not None]
            if r.get("error"):
                notes.append("%s: %s (at %s)" % (mode[0].upper(), r["error"][:140],
                                                  r.get("error_phase")))
            if r.get("trace_problem"):
                notes.append("%s trace: %s" % (mode[0].upper(), r["trace_problem"]))
            if r.get("unmatched_frees"):
                notes.append("%s: %d unmatched frees" % (mode[0].upper(), r["unmatched_frees"]))
        row.append("; ".join(notes).replace("|", "/"))
        L.append("| " + " | ".join(row) + " |")
    L.append("")
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


if __name__ == "__main__":
    main()
