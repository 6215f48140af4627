"""One run's bytes after the first invoke, from the two oracles of xnnpack_truth.py: the
uprobe trace (phases.invoke1.live_bytes, when the trace is complete) and the in-process
count (preload.invoke1, --preload). Used by test_xnnpack_plan.sh and test_xnnpack_cache.sh.

invoke1(r) -> (bytes or None, line): where both measured they must be one number (else
None and a FAIL line); where only one did, its number and an INFO line that says which;
where neither did, None and a FAIL line with both reasons. line is "" when both agree."""


def invoke1(label, r):
    live = r.get("phases", {}).get("invoke1", {}).get("live_bytes")
    if not r.get("trace_complete"):
        live = None
    pre = r.get("preload") or {"error": "not run"}
    inproc = pre.get("invoke1")
    traced = r.get("trace_problem") or "no invoke1 phase in the trace"
    if live is not None and inproc is not None:
        if live != inproc:
            return None, ("FAIL: %s: the oracles disagree: uprobes %d, in the process %d" %
                          (label, live, inproc))
        return live, ""
    if live is not None:
        return live, ("INFO: %s: the uprobes' figure only (in the process: %s)" %
                      (label, pre.get("error")))
    if inproc is not None:
        return inproc, ("INFO: %s: measured in the process only (the uprobe trace: %s)" %
                        (label, traced))
    return None, ("FAIL: %s: no measurement after the first invoke (uprobes: %s; in the "
                  "process: %s)" % (label, traced, pre.get("error")))
