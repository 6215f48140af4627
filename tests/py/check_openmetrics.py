#!/usr/bin/env python3
"""Check arenaprof's OpenMetrics text with the prometheus-client OpenMetrics parser.

usage: check_openmetrics.py FILE VERSION LABEL [--model NAME] [--expect JSON]
Structure, as Prometheus users expect it: the strict parser reads it (it refuses a text
without "# EOF" at its end, a counter sample without _total, a summary's quantile that is
not canonical); "# EOF" is the last line; arenaprof_build_info is a gauge of value 1 with
version=VERSION; the counters (runs, dropped events, first-touched arena pages) are counter
families with one _total sample; a run latency, when there is one, is a summary with the
quantiles 0.5, 0.9, 0.99 in order, _sum and _count; no label is empty; model= is NAME on
every sample but build_info's (--model), or on none. --expect: a JSON object of sample name
to value, each compared exactly. Prints one PASS:/FAIL: line per check, LABEL first; exit 1
on a failure.
"""
import json
import sys

from prometheus_client.openmetrics.parser import text_string_to_metric_families as parse

args = sys.argv[1:]
path, version, label = args[0], args[1], args[2]
model = args[args.index('--model') + 1] if '--model' in args else None
expect = json.loads(args[args.index('--expect') + 1]) if '--expect' in args else {}
failed = False


def check(name, ok, why=''):
    global failed
    print(f'{"PASS" if ok else "FAIL"}: {label}{name}{"" if ok else ": " + str(why)}')
    failed = failed or not ok


text = open(path).read()
try:
    fams = {f.name: f for f in parse(text)}
except ValueError as e:
    check('the OpenMetrics parser reads it', False, e)
    sys.exit(1)
check('the OpenMetrics parser reads it', True)
check('"# EOF" is its last line', text.endswith('\n# EOF\n'), repr(text[-40:]))
samples = [s for f in fams.values() for s in f.samples]

b = fams.get('arenaprof_build_info')
check(f'arenaprof_build_info: a gauge, 1, version="{version}"',
      b is not None and b.type == 'gauge' and len(b.samples) == 1 and
      b.samples[0].value == 1 and b.samples[0].labels == {'version': version},
      b and b.samples)

counters = ['arenaprof_runs', 'arenaprof_dropped_events', 'arenaprof_arena_first_touch_pages']
bad = [n for n in counters if n not in fams or fams[n].type != 'counter' or
       [s.name for s in fams[n].samples] != [n + '_total']]
check('runs, dropped events, first-touched arena pages: counters, one _total sample each',
      not bad, bad)

lat = fams.get('arenaprof_run_latency_seconds')
if lat is not None:
    q = [s.labels.get('quantile') for s in lat.samples if s.name == lat.name]
    rest = sorted(s.name for s in lat.samples if s.name != lat.name)
    v = [s.value for s in lat.samples if s.name == lat.name]
    check('run latency: a summary in seconds, quantiles 0.5 0.9 0.99 rising, _sum, _count',
          lat.type == 'summary' and lat.unit == 'seconds' and q == ['0.5', '0.9', '0.99'] and
          v == sorted(v) and v[0] > 0 and
          rest == [lat.name + '_count', lat.name + '_sum'], (lat.type, q, v, rest))

empty = [(s.name, k) for s in samples for k, x in s.labels.items() if x == '']
check('no empty label', not empty, empty)
want = {model} if model else {None}
got = {s.labels.get('model') for s in samples if s.name != 'arenaprof_build_info'}
check(f'model label {model!r} on every sample' if model else 'no model label (no plan)',
      got == want, got)

values = {s.name + ('' if 'quantile' not in s.labels else '{' + s.labels['quantile'] + '}'):
          s.value for s in samples}
for k, x in expect.items():
    check(f'{k} = {x}', values.get(k) == x, values.get(k))
sys.exit(1 if failed else 0)
