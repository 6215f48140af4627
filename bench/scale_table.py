#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""make bench's scale table (bench/run-bench scale): every consumer of a trace on traces
of each record kind at 10x steps, time and peak RSS, with the growth exponent fitted
over the last step; the TUI's live model on inputs of each kind (bench/scale_live.c);
then the plan of each graph shape at 10x steps.

Each figure is the median of --reps runs, with [min .. max] beside it: the noise band.
The exponent is log10(t(N) / t(N / 10)) over the two largest sizes, its band from the
extremes of both; goal <= 1.1. With --instructions, a trace row above 1.1 is run once more
at both sizes under valgrind: the instructions it executes say whether the work grew
faster than the records, or only the time (memory latency, as the working set outgrows
the caches). Kinds and shapes: bench/scale_trace.c and
bench/scale_model.py. A run past --timeout seconds is shown as >T and ends that row.

usage: bench/scale_table.py [--build DIR] [--max N] [--reps R] [--timeout T]
                            [--kinds K,K] [--live K,K] [--shapes S,S] [--max-ops N]
                            [--no-import] [--instructions]
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile
import threading
import time

KINDS = ["fault", "alloc", "note", "mapping", "snapmaps", "marker", "sample",
         "vmas", "unknown", "blocks", "reuse", "giveback", "sites"]
LIVE = ["fault", "vmas", "unknown", "mapping", "alloc", "sites", "blocks", "marker",
        "sample", "note"]
SHAPES = ["chain", "fanin", "fanin-fc", "residual", "unet", "transformer"]
MODEL = "tests/models/mobilenet_v1_0.25_128_quant.tflite"	# the heatmap's plan


def run(cmd, timeout):
    """(seconds, peak RSS KiB, rc) of one run; seconds None past the timeout. The RSS from
    /usr/bin/time (its %M: the child's own), the time from the clock around a blocking
    wait (Popen.wait with a timeout polls, which would add up to 50 ms)."""
    with tempfile.NamedTemporaryFile(prefix="arenaprof-time.") as tf:
        t0 = time.monotonic()
        p = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", tf.name] + cmd,
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        killer = threading.Timer(timeout, p.kill)
        killer.start()
        rc = p.wait()
        dt = time.monotonic() - t0
        killed = not killer.is_alive()
        killer.cancel()
        if killed:
            return None, 0, -1
        try:
            kib = int(open(tf.name).read().split()[-1])
        except (ValueError, IndexError):
            kib = 0
    return dt, kib, rc


def measure(cmd, reps, timeout):
    """[(s, KiB)] of reps runs, or None when one timed out or failed."""
    out = []
    for _ in range(reps):
        s, kib, rc = run(cmd, timeout)
        if s is None or rc != 0:
            return None if s is None else "rc %d" % rc
        out.append((s, kib))
    return out


def med(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2]


def fmt_t(runs):
    t = [r[0] for r in runs]
    return "%.3f [%.3f..%.3f]" % (med(t), min(t), max(t))


def exponent(a, b):
    """the growth exponent over one 10x step, and its band, from two sets of runs"""
    ta, tb = [r[0] for r in a], [r[0] for r in b]
    floor = 1e-3
    e = math.log10(max(med(tb), floor) / max(med(ta), floor))
    lo = math.log10(max(min(tb), floor) / max(max(ta), floor))
    hi = math.log10(max(max(tb), floor) / max(min(ta), floor))
    return "%.2f [%.2f..%.2f]" % (e, lo, hi)


def table(rows_label, sizes, entries, unit):
    """entries: label -> {size: runs or None or str}"""
    head = "%-34s" % rows_label + "".join("%24s" % ("%s %s" % (n, unit)) for n in sizes)
    print(head + "%12s %20s" % ("peak RSS", "exponent (t)"))
    for label, by in entries:
        cells, last, prev = [], None, None
        for n in sizes:
            r = by.get(n)
            if r is None:
                cells.append("%24s" % "-")
            elif isinstance(r, str):
                cells.append("%24s" % r)
            else:
                cells.append("%24s" % fmt_t(r))
                prev, last = last, r
        rss = "%9.1f MiB" % (max(k for _, k in last) / 1024) if last else "-"
        ex = exponent(prev, last) if prev and last else "-"
        print("%-34s" % label + "".join(cells) + "%12s %20s" % (rss, ex))


def consumers(ap, trace, other, tmp):
    """every consumer, its output to stdout (thrown away: the disk is not measured)"""
    del tmp
    return [
        ("report", [ap, "report", trace]),
        ("report --json", [ap, "report", "--json", trace]),
        ("report --plan (attribution)", [ap, "report", "--plan", MODEL, trace]),
        ("heatmap --force --format csv", [ap, "heatmap", trace, "--force", "--plan", MODEL,
                                          "--format", "csv", "-o", "-"]),
        ("export chrome", [ap, "export", trace, "--format", "chrome", "-o", "-"]),
        ("export csv", [ap, "export", trace, "--format", "csv", "-o", "-"]),
        ("diff (two traces)", [ap, "diff", other, trace]),
    ]


def trace_table(a, tmp):
    st = os.path.join(a.build, "bench", "scale_trace")
    ap = os.path.join(a.build, "arenaprof")
    sizes = [10 ** k for k in range(3, 10) if 10 ** k <= a.max]
    print("== scale: every consumer on traces of one record kind, N records "
          "(seconds: median [min..max] of %d)" % a.reps)
    for kind in a.kinds:
        entries, sizes_mb = {}, {}
        stopped = set()
        small = os.path.join(tmp, "small.trace")
        subprocess.run([st, kind, "100", small], check=True)
        for n in sizes:
            tr = os.path.join(tmp, "%s.trace" % kind)
            subprocess.run([st, kind, str(n), tr], check=True)
            sizes_mb[n] = os.path.getsize(tr) / 1e6
            for label, cmd in consumers(ap, tr, small, tmp):
                by = entries.setdefault(label, {})
                if label in stopped:
                    continue
                r = measure(cmd, a.reps, a.timeout)
                if r is None:
                    by[n] = ">%gs" % a.timeout
                    stopped.add(label)
                else:
                    by[n] = r
            os.unlink(tr)
        print("-- %s (file: %s MB)" % (kind, ", ".join("%.2f" % sizes_mb[n]
                                                     for n in sizes)))
        table("command", sizes, list(entries.items()), "rec")
        per10 = []
        for label in ("report", "report --json"):
            rep = entries.get(label, {}).get(sizes[-1])
            if isinstance(rep, list) and sizes_mb[sizes[-1]] >= 1:
                per10.append("%s %.2f s" % (label, med([r[0] for r in rep]) * 10 /
                                            sizes_mb[sizes[-1]]))
        if per10:
            print("   per 10 MB of this kind: %s (goal < 2 s)" % ", ".join(per10))
        if a.instructions and len(sizes) >= 2:
            instruction_check(a, tmp, kind, sizes, entries)


def instructions(cmd):
    """instructions one run executes (valgrind's cachegrind, no cache model), or None"""
    r = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                        "--cachegrind-out-file=/dev/null"] + cmd,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in r.stderr.splitlines():
        if "I   refs:" in line:
            return int(line.split()[-1].replace(",", ""))
    return None


def instruction_check(a, tmp, kind, sizes, entries):
    """--instructions: for the rows whose time grew faster than 1.1 over the last step,
    the instructions they executed at both sizes: work that grows linearly with the
    records while the time does not is memory latency, not the algorithm"""
    st = os.path.join(a.build, "bench", "scale_trace")
    ap = os.path.join(a.build, "arenaprof")
    small = os.path.join(tmp, "small.trace")
    flagged = []
    for label, by in entries.items():
        r0, r1 = by.get(sizes[-2]), by.get(sizes[-1])
        if isinstance(r0, list) and isinstance(r1, list) and \
                math.log10(med([x[0] for x in r1]) / max(med([x[0] for x in r0]), 1e-3)) > 1.1:
            flagged.append(label)
    if not flagged:
        return
    counts = {}
    for n in sizes[-2:]:
        tr = os.path.join(tmp, "%s.%d.trace" % (kind, n))
        subprocess.run([st, kind, str(n), tr], check=True)
        for label, cmd in consumers(ap, tr, small, tmp):
            if label in flagged:
                counts.setdefault(label, []).append(instructions(cmd))
        os.unlink(tr)
    for label in flagged:
        c = counts.get(label, [])
        if len(c) == 2 and all(c):
            print("   %s: time exponent > 1.1, instructions x%.2f (exponent %.2f)" %
                  (label, c[1] / c[0], math.log10(c[1] / c[0])))


def live_table(a):
    """the live model (what the TUI draws), fed N inputs of each kind, a frame per sample"""
    sl = os.path.join(a.build, "bench", "scale_live")
    sizes = [10 ** k for k in range(3, 10) if 10 ** k <= a.max]
    print("== scale: the TUI's live model fed N inputs of one kind, a frame's queries "
          "per sample (seconds: median [min..max] of %d)" % a.reps)
    entries = []
    for kind in a.live:
        by = {}
        for n in sizes:
            r = measure([sl, kind, str(n), MODEL], a.reps, a.timeout)
            by[n] = ">%gs" % a.timeout if r is None else r
            if r is None or isinstance(r, str):
                break
        entries.append((kind, by))
    table("kind", sizes, entries, "in")


def plan_table(a, tmp):
    ap = os.path.join(a.build, "arenaprof")
    gen = os.path.join(os.path.dirname(os.path.abspath(__file__)), "scale_model.py")
    if not os.path.exists(gen):
        print("(no bench/scale_model.py: the plan scale table is not measured)")
        return
    sizes = [10 ** k for k in range(3, 7) if 10 ** k <= a.max_ops]
    print("== scale: plan of graphs of N operators (seconds: median [min..max] of %d)"
          % a.reps)
    entries = []
    for shape in a.shapes:
        by, stop = {}, False
        for n in sizes:
            m = os.path.join(tmp, "%s.tflite" % shape)
            subprocess.run([sys.executable, gen, shape, str(n), m], check=True)
            if not stop:
                r = measure([ap, "plan", m], a.reps, a.timeout)
                by[n] = r if r is not None else ">%gs" % a.timeout
                stop = r is None or isinstance(r, str)
            os.unlink(m)
        entries.append((shape, by))
    table("shape", sizes, entries, "ops")
    print("   goal: plan of a 100k-operator graph < 1 s")


def write_import(path, shape, n):
    """a CSV plan of n tensors of 64 bytes: chain (each live at two nodes, two offsets
    taking turns) or wide (all live at every node, side by side)"""
    with open(path, "w") as f:
        f.write("tensor,name,offset,size,first_node,last_node,kind\n")
        for i in range(n):
            if shape == "chain":
                f.write("%d,t%d,%d,64,%d,%d,arena\n" % (i, i, (i % 2) * 64, i,
                                                        min(i + 1, n - 1)))
            else:
                f.write("%d,t%d,%d,64,0,%d,arena\n" % (i, i, i * 64, n - 1))


def import_table(a, tmp):
    ap = os.path.join(a.build, "arenaprof")
    sizes = [10 ** k for k in range(3, 7) if 10 ** k <= a.max]
    print("== scale: plan --import of a CSV plan of N tensors (seconds: median [min..max] "
          "of %d)" % a.reps)
    entries = []
    for shape in ("chain", "wide"):
        by = {}
        for n in sizes:
            f = os.path.join(tmp, "%s.csv" % shape)
            write_import(f, shape, n)
            r = measure([ap, "plan", "--import", f], a.reps, a.timeout)
            by[n] = r if r is not None else ">%gs" % a.timeout
            os.unlink(f)
            if not isinstance(by[n], list):
                break
        entries.append((shape, by))
    table("plan --import", sizes, entries, "tensors")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--build", default=os.environ.get("BUILD", "build"))
    p.add_argument("--max", type=int, default=1000000)
    p.add_argument("--max-ops", type=int, default=100000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--timeout", type=float, default=30)
    p.add_argument("--kinds", default=",".join(KINDS))
    p.add_argument("--live", default=",".join(LIVE))
    p.add_argument("--shapes", default=",".join(SHAPES))
    p.add_argument("--no-import", dest="imports", action="store_false")
    p.add_argument("--instructions", action="store_true",
                   help="count the instructions of rows whose time exponent is > 1.1 "
                        "(valgrind)")
    a = p.parse_args()
    a.kinds = [k for k in a.kinds.split(",") if k]
    a.shapes = [s for s in a.shapes.split(",") if s]
    a.live = [k for k in a.live.split(",") if k]
    print("cpu: %s" % next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo")
                           if l.startswith("model name")), "?"))
    with tempfile.TemporaryDirectory(prefix="arenaprof-scale.") as tmp:
        if a.kinds:
            trace_table(a, tmp)
        if a.live:
            live_table(a)
        if a.shapes:
            plan_table(a, tmp)
        if a.imports:
            import_table(a, tmp)


if __name__ == "__main__":
    main()
