#!/usr/bin/env python3
"""Compare `arenaprof report --json --pages` with `mininfer --truth` page by page.

usage: check_trace.py REPORT.json TRUTH.json [--runs N] [--grow] [--agreement]
--agreement: the trace has op markers; plan and marker attribution must agree on every
first-touched arena page that both name.
Prints one PASS:/FAIL: line per check (tests/run-tests counts them); exit 1 on a failure.
"""
import json
import sys

args = sys.argv[1:]
rep = json.load(open(args[0]))
truth = json.load(open(args[1]))
label = args[args.index('--label') + 1] if '--label' in args else ''
runs = int(args[args.index('--runs') + 1]) if '--runs' in args else None
failed = False


def check(name, ok, why=''):
    global failed
    if ok:
        print(f'PASS: {label}{name}')
    else:
        failed = True
        print(f'FAIL: {label}{name}: {why}')


arena = rep.get('arena')
check('arena identified', arena is not None, rep.get('arena_rule', ''))
if arena is None:
    sys.exit(1)
got = {p['page']: (p['run'], p['op']) for p in rep.get('arena_pages', [])}
want = {p['page']: (p['run'], p['op']) for p in truth['pages'] if p['op'] is not None}
check('arena size is the plan',
      arena['bytes'] == truth['arena_pages'] * truth['page_size'],
      f"{arena['bytes']} vs {truth['arena_pages']} pages")
missing = sorted(set(want) - set(got))
extra = sorted(set(got) - set(want))
check('first-touched arena pages equal the truth, page by page',
      not missing and not extra,
      f'{len(missing)} missing (e.g. {missing[:5]}), {len(extra)} extra (e.g. {extra[:5]})')
wrong_run = [p for p in want if p in got and got[p][0] != want[p][0]]
check('every page first touched in the predicted run', not wrong_run,
      f'{len(wrong_run)} pages, e.g. ' +
      ', '.join(f'page {p}: run {got[p][0]} (want {want[p][0]})' for p in wrong_run[:5]))
wrong_op = [p for p in want if p in got and got[p][1] != want[p][1]]
check('every page first touched under the predicted operator marker', not wrong_op,
      f'{len(wrong_op)} pages, e.g. ' +
      ', '.join(f'page {p}: op {got[p][1]} (want {want[p][1]})' for p in wrong_op[:5]))
ops_got = {o['index']: o['first_touch_pages'] for o in rep.get('ops', [])}
ops_want = {o['index']: o['first_touch_pages'] for o in truth['ops']}
check('per-operator first-touch pages equal the truth', ops_got == ops_want,
      f'differ at {sorted(k for k in set(ops_got) | set(ops_want) if ops_got.get(k) != ops_want.get(k))[:8]}')
byrun_got = {r['run']: r['pages'] for r in rep.get('first_touch_by_run', [])}
byrun_want = {r['run']: r['pages'] for r in truth['first_touch_by_run']}
check('first touches per run equal the truth', byrun_got == byrun_want,
      f'got {dict(list(byrun_got.items())[:8])}, want {dict(list(byrun_want.items())[:8])}')
check('0 dropped events', rep['dropped_events'] == 0, f"{rep['dropped_events']} dropped")
if runs is not None:
    check(f'{runs} runs counted', rep['runs'] == runs, f"{rep['runs']} runs")
weights = [m for m in rep['mappings'] if m['role'] == 'weights']
check('file-backed faults land on the model file mapping',
      len(weights) >= 1 and all(m['kind'] == 'file' for m in weights) and
      sum(m['faults'] for m in weights) > 0,
      f'weights mappings: {weights}')
if '--agreement' in args:
    corr = rep.get('correlation') or {}
    check('plan and op-marker attribution agree on 100 % of the compared pages',
          corr.get('compared_pages', 0) > 0 and corr.get('agreement') == 1.0,
          f"{corr.get('agree_pages')} of {corr.get('compared_pages')} pages agree")
if '--grow' in args:
    g = truth.get('grow')
    moves = rep.get('arena_moves', [])
    check('the grown arena is followed', g is not None and len(moves) == 1 and
          moves[0]['bytes'] == g['arena_pages'] * truth['page_size'] and
          moves[0]['first_touch_pages'] == sum(p['op'] is not None for p in g['pages']),
          f'moves {[(m["bytes"], m["first_touch_pages"], m["first_run"]) for m in moves]}, '
          f'truth {g and (g["arena_pages"], len(g["pages"]), g.get("run"))}')
sys.exit(1 if failed else 0)
