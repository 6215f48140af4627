#!/usr/bin/env python3
"""Compare LiteRT's real arena plan with arenaprof's.

Usage:
    compare_plan.py [--lifetimes] [--ignore-temporaries] [--quiet]
                    LITERT.csv ARENAPROF.csv

LITERT.csv    output of tests/litert/litert_plan.py:
                tensor,name,offset,size[,first_node,last_node]
              plus '#' comment lines, among them '# model=<file> ...' and
              '# arena_bytes=<n>'.
ARENAPROF.csv output of `arenaprof plan --csv`:
                tensor,name,offset,size,first_node,last_node,kind
              kinds: arena, input, output, variable, weights, dynamic,
              unplanned, parent (a subgraph input using its caller's
              buffer); offset -1 for tensors not in an arena; in-place
              shared tensors carry their root's offset.  '#' lines ignored,
              except an optional '# arena_bytes=<n>' which, when present,
              is taken as arenaprof's arena size.

For every tensor in LiteRT's normal arena (every LITERT.csv row, kernel
temporaries "<temporary ...>" included) the arenaprof row with the same
tensor index must be in the normal arena (kind arena/input/output, or any
kind other than variable/weights/dynamic/unplanned, with offset >= 0) with
the same offset and size.  Tensors that arenaprof puts in the normal arena
with a non-zero size but that LiteRT does not have there are listed as
extra.  The arena sizes must be equal too: LiteRT's is its '# arena_bytes='
(else max(offset+size)); arenaprof's is its '# arena_bytes=' if given, else
max(offset+size) over its normal-arena rows.

--lifetimes          also compare first_node/last_node (needs
                     litert_plan.py --lifetimes).  2147483647 and larger,
                     "inf", "max", "end" and "" all mean "never freed".
--ignore-temporaries leave LiteRT's kernel temporaries out of the tensor
                     comparison (the arena sizes are still compared).

Prints
    <model>: N/M tensors match (P%), arena litert=X arenaprof=Y
then one line per mismatch.  Exit 0 on a full match (all tensors, no extra
tensor, same arena size, and lifetimes when asked), 1 otherwise, 2 on bad
input.
"""

import argparse
import csv
import os
import sys

NOT_NORMAL_ARENA = {"variable", "persistent", "weights", "dynamic", "unplanned",
                    "parent"}
NEVER = 2**31 - 1


class BadInput(Exception):
    pass


def read_csv(path, required):
    """-> (rows as dicts, comments as list of str without '# ')."""
    try:
        with open(path, newline="") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise BadInput("%s: %s" % (path, e.strerror or e))
    comments = [ln.lstrip("#").strip() for ln in lines if ln.startswith("#")]
    data = [ln for ln in lines if ln.strip() and not ln.startswith("#")]
    if not data:
        raise BadInput("%s: no CSV header" % path)
    reader = csv.DictReader(data)
    header = [h.strip() for h in (reader.fieldnames or [])]
    reader.fieldnames = header
    missing = [c for c in required if c not in header]
    if missing:
        raise BadInput("%s: header lacks column(s) %s (header: %s)"
                       % (path, ",".join(missing), ",".join(header)))
    rows = []
    for lineno, r in enumerate(reader, start=2):
        if None in r:  # more fields than header
            raise BadInput("%s: CSV row %d has too many fields"
                           % (path, lineno))
        try:
            r["tensor"] = int(r["tensor"])
            r["offset"] = int(r["offset"])
            r["size"] = int(r["size"])
        except (TypeError, ValueError):
            raise BadInput("%s: CSV row %d: tensor, offset and size must be "
                           "integers: %r" % (path, lineno, r))
        rows.append(r)
    return rows, header, comments


def comment_value(comments, key):
    """Value of 'key=<v>' in the comment lines (last one wins)."""
    val = None
    for c in comments:
        for tok in c.split():
            if tok.startswith(key + "="):
                val = tok[len(key) + 1:]
    return val


def node_value(v):
    v = (v or "").strip().lower()
    if v in ("", "inf", "max", "end", "infinity"):
        return NEVER
    try:
        n = int(v)
    except ValueError:
        raise BadInput("bad node value %r" % v)
    return NEVER if n >= NEVER else n


def fmt_node(n):
    return "inf" if n == NEVER else str(n)


def main(argv=None):
    ap = argparse.ArgumentParser(
        description="Compare LiteRT's arena plan with arenaprof's.")
    ap.add_argument("litert")
    ap.add_argument("arenaprof")
    ap.add_argument("--lifetimes", action="store_true")
    ap.add_argument("--ignore-temporaries", action="store_true")
    ap.add_argument("--quiet", action="store_true",
                    help="print only the summary line")
    args = ap.parse_args(argv)

    try:
        lrows, lhdr, lcom = read_csv(args.litert,
                                     ["tensor", "name", "offset", "size"])
        arows, ahdr, acom = read_csv(
            args.arenaprof, ["tensor", "name", "offset", "size",
                             "first_node", "last_node", "kind"])
        if args.lifetimes and not {"first_node", "last_node"} <= set(lhdr):
            raise BadInput("%s: --lifetimes needs first_node,last_node "
                           "columns (litert_plan.py --lifetimes)"
                           % args.litert)
        seen = set()
        for r in lrows:
            if r["tensor"] in seen:
                raise BadInput("%s: tensor %d listed twice"
                               % (args.litert, r["tensor"]))
            seen.add(r["tensor"])
            if r["offset"] < 0 or r["size"] < 0:
                raise BadInput("%s: negative offset/size for tensor %d"
                               % (args.litert, r["tensor"]))
        amap = {}
        for r in arows:
            if r["tensor"] in amap:
                raise BadInput("%s: tensor %d listed twice"
                               % (args.arenaprof, r["tensor"]))
            r["kind"] = (r.get("kind") or "").strip()
            amap[r["tensor"]] = r
        l_arena_c = comment_value(lcom, "arena_bytes")
        a_arena_c = comment_value(acom, "arena_bytes")
        l_arena = int(l_arena_c) if l_arena_c is not None else \
            max((r["offset"] + r["size"] for r in lrows), default=0)
        a_normal = [r for r in arows
                    if r["offset"] >= 0 and r["kind"] not in NOT_NORMAL_ARENA]
        a_arena = int(a_arena_c) if a_arena_c is not None else \
            max((r["offset"] + r["size"] for r in a_normal), default=0)
        if args.lifetimes:
            for r in lrows:
                r["first_node"] = node_value(r.get("first_node"))
                r["last_node"] = node_value(r.get("last_node"))
            for r in arows:
                r["first_node"] = node_value(r.get("first_node"))
                r["last_node"] = node_value(r.get("last_node"))
    except (BadInput, ValueError) as e:
        print("compare_plan: bad input: %s" % e, file=sys.stderr)
        return 2

    model = comment_value(lcom, "model") or os.path.basename(args.litert)
    for ext in (".tflite", ".csv"):
        if model.endswith(ext):
            model = model[:-len(ext)]

    def is_temp(r):
        return r["name"].startswith("<temporary")

    compared = [r for r in lrows
                if not (args.ignore_temporaries and is_temp(r))]
    problems = []
    notes = []
    good = 0
    for lr in sorted(compared, key=lambda r: r["tensor"]):
        t = lr["tensor"]
        ar = amap.get(t)
        what = "tensor %d %r: litert offset=%d size=%d" % (
            t, lr["name"], lr["offset"], lr["size"])
        if ar is None:
            problems.append(what + ", arenaprof: no such tensor")
            continue
        if not is_temp(lr) and ar["name"] != lr["name"]:
            notes.append("note: tensor %d named %r by litert, %r by arenaprof"
                         % (t, lr["name"], ar["name"]))
        where = ", arenaprof offset=%d size=%d kind=%s" % (
            ar["offset"], ar["size"], ar["kind"] or "?")
        if ar["kind"] in NOT_NORMAL_ARENA or ar["offset"] < 0:
            problems.append(what + where + " (not in the normal arena)")
            continue
        if ar["offset"] != lr["offset"] or ar["size"] != lr["size"]:
            problems.append(what + where)
            continue
        if args.lifetimes and (ar["first_node"], ar["last_node"]) != (
                lr["first_node"], lr["last_node"]):
            problems.append(what + where + ", lifetime litert [%s,%s] "
                            "arenaprof [%s,%s]" % (
                                fmt_node(lr["first_node"]),
                                fmt_node(lr["last_node"]),
                                fmt_node(ar["first_node"]),
                                fmt_node(ar["last_node"])))
            continue
        good += 1

    in_litert = {r["tensor"] for r in lrows}
    extras = [r for r in a_normal
              if r["tensor"] not in in_litert and r["size"] > 0]
    for r in sorted(extras, key=lambda r: r["tensor"]):
        problems.append("tensor %d %r: not in litert's normal arena, "
                        "arenaprof offset=%d size=%d kind=%s (extra)" % (
                            r["tensor"], r["name"], r["offset"], r["size"],
                            r["kind"] or "?"))

    total = len(compared)
    pct = 100.0 * good / total if total else 100.0
    print("%s: %d/%d tensors match (%.1f%%), arena litert=%d arenaprof=%d"
          % (model, good, total, pct, l_arena, a_arena))
    if not args.quiet:
        if l_arena != a_arena:
            print("  arena size differs: litert=%d arenaprof=%d (%+d)"
                  % (l_arena, a_arena, a_arena - l_arena))
        for p in problems:
            print("  mismatch " + p)
        for n in notes:
            print("  " + n)
    return 0 if (good == total and not extras and l_arena == a_arena) else 1


if __name__ == "__main__":
    sys.exit(main())
