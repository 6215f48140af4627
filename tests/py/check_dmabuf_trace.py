#!/usr/bin/env python3
"""A trace the VM suite's guest recorded of tests/fixtures/dmabuf_fixture.c, reported here,
judged by the guest's own judge (scripts/vm/check_dmabuf.py) against what the fixture
printed then: the samples' figures, and the export and release events where the guest had
them (counts, sizes, times, order, the peak at the short-lived S1's export).

usage: check_dmabuf_trace.py FIXTURE.jsonl REPORT.txt REPORT.json REPORT.om RELEASE EVENTS LABEL
EVENTS: yes (the guest traced the events) or no. Prints PASS:/FAIL:/SKIP: lines; exit 1 on
a failure."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..',
                                'scripts', 'vm'))
from check_dmabuf import judge_dmabuf  # noqa: E402

fix, txt, rep, om, release, events, label = sys.argv[1:8]
failed = False


def read(p):
    with open(p) as f:
        return f.read()


text = read(txt)
# the sections the guest printed, from the files here; the record's stderr notes are the
# report's "note" lines, which say the same
secs = {
    'dmabuf_rec': {'out': read(fix), 'err': text, 'rc': 0},
    'dmabuf_json': {'out': read(rep), 'err': '', 'rc': 0},
    'dmabuf_text': {'out': text, 'err': '', 'rc': 0},
    'dmabuf_om': {'out': read(om), 'err': '', 'rc': 0},
}


def sec(name):
    return secs.get(name)


def js(s, name):
    return json.loads(s['out'])


def out(kind, name, why=''):
    print(f'{kind}: {label}: {name}' + (f': {why}' if why else ''))


def check(name, ok, why=''):
    global failed
    out('PASS' if ok else 'FAIL', name, '' if ok else why)
    failed |= not ok
    return ok


def info(msg):
    pass


judge_dmabuf(sec, js, check, out, info, release, fentry=events == 'yes')
sys.exit(1 if failed else 0)
