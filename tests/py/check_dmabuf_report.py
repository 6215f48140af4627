#!/usr/bin/env python3
"""report --json's "dmabuf" object (and the summary's dmabuf_peak_bytes) against what
tests/fixtures/dmabuf_fixture.c printed when the trace was recorded: its phase lines (the
buffers it held, their sizes, what it mapped, the Rss it read of its own mappings).

usage: check_dmabuf_report.py REPORT.json FIXTURE.jsonl SOURCE LABEL
Prints PASS:/FAIL: lines; exit 1 on a failure."""
import json
import sys

rep, fix, source, label = sys.argv[1:5]
failed = False


def check(name, ok, why=''):
    global failed
    print(f'{"PASS" if ok else "FAIL"}: {label}: {name}' + ('' if ok else f': {why}'))
    failed |= not ok


d = json.load(open(rep))
phases = [json.loads(x) for x in open(fix) if x.startswith('{"phase"')]
p1, p3 = phases[0], phases[2]
x = d.get('dmabuf')
if not x:
    check('a "dmabuf" object', False, f'keys {sorted(d)}')
    sys.exit(1)
check(f'peak {p1["bytes"]} bytes in {p1["count"]} buffers, the fixture\'s phase 1',
      x['peak_bytes'] == p1['bytes'] and x['peak_buffers'] == p1['count'] and
      d['summary']['dmabuf_peak_bytes'] == p1['bytes'],
      f'{x["peak_bytes"]} in {x["peak_buffers"]}, summary {d["summary"].get("dmabuf_peak_bytes")}')
check('nothing held at the end (phase 3)', x['end_bytes'] == p3['bytes'] == 0 and
      x['end_buffers'] == 0, f'{x["end_bytes"]} in {x["end_buffers"]}')
check(f'source {source}, sampled every 100 ms', x['source'] == source and
      x['interval_ms'] == 100, f'{x["source"]} {x["interval_ms"]}')
got = {b['inode']: b for b in x['buffers']}
check('one buffer per inode the fixture held', sorted(got) ==
      sorted(b['inode'] for b in p1['buffers']), f'{sorted(got)}')
for b in p1['buffers']:
    r = got.get(b['inode'], {})
    check(f'{b["what"]}: size, mapped bytes and mapped rss as the fixture\'s',
          r.get('size') == b['size'] and r.get('mapped_bytes') == b['mapped'] and
          r.get('mapped_rss') == b['rss'] and r.get('at_peak') is True, f'{r} vs {b}')
sys.exit(1 if failed else 0)
