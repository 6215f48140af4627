#!/usr/bin/env python3
"""Judges what the VM suite's guest printed (scripts/vm/tests.sh) for one kernel.

usage: check.py [--arch x86|arm64] [--suite core|litert] --kernel K --fentry yes|no --results RESULTS.log
                --ref DIR --runs N [--wall S]

RESULTS.log holds sections "=== NAME rc RC secs S" / "--- stdout" / "--- stderr" /
"=== end NAME" between "VMTEST-BEGIN" and "VMTEST-END" lines. DIR holds the host's
reference: truth.json (mininfer --truth) and host_tp.json, host_perf.json (arenaprof
report --json --pages of the host's traces of the same workload). --page-size is the
kernel's (its config): the guest's truth and traces must be in it; the host's pages are
compared only when the sizes are equal. --fentry says whether
the kernel has BPF trampolines (CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS): then fentry must
work and auto must pick it (on arm64); else fentry must fail with a clear line and auto
must fall back to perf. Prints one PASS:/FAIL: line per check, prefixed "[K] " (x86) or
"[arm64 K] ", INFO: lines with the numbers; exit 1 on a failure. --suite litert judges
scripts/vm/tests-litert.sh's sections instead: a real LiteRT traced with no marker.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

ap = argparse.ArgumentParser()
ap.add_argument('--arch', default='x86', choices=('x86', 'arm64'))
ap.add_argument('--suite', default='core', choices=('core', 'litert'))
ap.add_argument('--kernel', required=True)
ap.add_argument('--fentry', default='yes', choices=('yes', 'no'))
ap.add_argument('--page-size', type=int, default=4096)
ap.add_argument('--results', required=True)
ap.add_argument('--ref', required=True)
ap.add_argument('--runs', type=int, required=True)
ap.add_argument('--litert-runs', type=int, default=20)
ap.add_argument('--wall', default='?')
ap.add_argument('--only', choices=('dmabuf',), help='judge that section alone (VMTEST_ONLY)')
a = ap.parse_args()
K = a.kernel if a.arch == 'x86' else f'arm64 {a.kernel}'
X86 = a.arch == 'x86'
FENTRY = a.fentry == 'yes'
# what --probe auto must choose: the x86 tracepoint, else fentry where trampolines exist
AUTO = 'tp' if X86 else ('fentry' if FENTRY else 'perf')
failed = False
MIB = 1 << 20


def out(kind, name, why=''):
    print(f'{kind}: [{K}] {name}' + (f': {why}' if why else ''))


def check(name, ok, why=''):
    global failed
    if ok:
        out('PASS', name)
    else:
        failed = True
        out('FAIL', name, why)
    return ok


def info(msg):
    print(f'INFO: [{K}] {msg}')


try:
    text = open(a.results, 'rb').read().decode('utf-8', 'replace').replace('\r', '')
except OSError as e:
    text = ''
    info(f'no results file: {e}')

begin = re.search(r'^VMTEST-BEGIN (\S+) uptime ([0-9.]+)', text, re.M)
end = re.search(r'^VMTEST-END rc (\d+) uptime ([0-9.]+)', text, re.M)
if not check('the guest booted and started the tests', begin is not None,
             'no VMTEST-BEGIN line on the results port'):
    sys.exit(1)
check('the guest finished the tests', end is not None, 'no VMTEST-END line: it hung or crashed')
boot = float(begin.group(2))
tests_s = float(end.group(2)) - boot if end else float('nan')
info(f'kernel {begin.group(1)}: boot to init {boot:.1f} s (guest clock), tests {tests_s:.1f} s, '
     f'VM wall time {a.wall} s')

sections = {}
for m in re.finditer(r'^=== (\S+) rc (-?\d+) secs ([0-9.]+)\n--- stdout\n(.*?)--- stderr\n'
                     r'(.*?)=== end \1$', text, re.M | re.S):
    sections[m.group(1)] = {'rc': int(m.group(2)), 'secs': float(m.group(3)),
                            'out': m.group(4), 'err': m.group(5)}
for line in text.splitlines():
    if line.startswith('INFO '):
        info(line[5:])


def sec(name):
    s = sections.get(name)
    if s is None:
        check(f'{name}: ran', False, 'no section in the results (the guest stopped before it?)')
    return s


def js(s, name):
    try:
        return json.loads(s['out'])
    except (ValueError, TypeError) as e:
        check(f'{name}: JSON output', False, f'{e}: {s["out"][:300]!r} {s["err"][:300]!r}')
        return None


def one_line(s):
    lines = [x for x in s['err'].splitlines() if x.strip()]
    return len(lines) == 1, lines


LITERT_INVOKE = '_ZN6tflite19interpreter_wrapper18InterpreterWrapper6InvokeEi'


def judge_litert():
    """LiteRT in the guest, traced by this arch's arenaprof, against LiteRT's own arena."""
    s = sec('python')
    if s:
        check('Debian\'s arm64 python3.11 imports numpy and ai_edge_litert', s['rc'] == 0,
              s['err'][-300:])
        info(f'python, numpy: {s["out"].strip()} (import took {s["secs"]} s)')
    s = sec('litert_record')
    if not s or not check('record of litert_run.py exits 0', s['rc'] == 0,
                          f'rc {s["rc"]}: {s["err"][-600:]}'):
        return
    m = re.search(r'with (tp|fentry|perf)', s['err'])
    info(f'record took {s["secs"]} s with {m.group(1) if m else "?"}')
    check(f'the fault source is {AUTO} on this kernel', m is not None and m.group(1) == AUTO,
          s['err'][-300:])
    found = re.findall(r'run probe: (\S+):(\S+) \(run entry point found automatically: ',
                       s['err'])
    check('run probe found automatically in the aarch64 wheel '
          '(InterpreterWrapper::Invoke in libpywrap_litert_common.so)',
          any(sym == LITERT_INVOKE and path.endswith('libpywrap_litert_common.so')
              for path, sym in found), re.findall(r'.*run probe.*', s['err'])[:2])
    truth = re.search(r'^arena 0x([0-9a-f]+) bytes (\d+) allocate$', s['out'], re.M)
    if not check('LiteRT printed its own arena (litert_run.py --print-arena)',
                 truth is not None, s['out'][:300]):
        return
    base, nbytes = int(truth.group(1), 16), int(truth.group(2))
    # record --runs N stops recording at N and leaves the command to finish
    check('the workload ran to its own end after the recorded runs (its last line kept)',
          'done runs' in s['out'], s['out'][-200:])
    r = sec('litert_json')
    if not r:
        return
    d = js(r, 'litert_json')
    if not d:
        return
    a_, c = d['arena_id'], d['consistency']
    info(f'arena {a_["rule"]} base 0x{a_["base"]:x} bytes {a_["bytes"]} plan '
         f'{a_["plan_bytes"]}, block {a_["block"]["function"]}({a_["block"]["size"]}); '
         f'first-touch pages {a_["first_touch_pages"]}, consistency {c["value"]}, '
         f'{d["faults_total"]} faults, {d["runs"]} runs')
    check(f'trace header: arch aarch64, method {AUTO}',
          d.get('arch') == 'aarch64' and d.get('method') == AUTO,
          f'{d.get("arch")} {d.get("method")}')
    check(f'{a.litert_runs} runs counted, ended by --runs',
          d['runs'] == a.litert_runs and d['end']['reason'] == 'the requested runs completed',
          f'{d["runs"]} runs, {d["end"]["reason"]!r}')
    check('0 dropped events', d['dropped_events'] == 0, str(d['dropped_events']))
    check('arena found by the allocation probe', a_['rule'] == 'allocation', a_['rule_text'])
    check(f'its base is LiteRT\'s own arena base 0x{base:x}', a_['base'] == base,
          hex(a_['base']))
    check(f'the plan\'s arena equals LiteRT\'s on arm64 ({nbytes} bytes)',
          a_['plan_bytes'] == nbytes, str(a_['plan_bytes']))
    slack = a_['block']['size'] - a_['plan_bytes']
    check(f'the block is aligned_alloc(64, plan + {slack})',
          63 <= slack <= 126 and a_['block']['function'] == 'aligned_alloc',
          f'{a_["block"]["function"]}({a_["block"]["size"]})')
    ft = a_['first_touch_pages']
    check(f'every first-touched arena page attributed ({a_["attributed_pages"]} of {ft})',
          ft > 0 and a_['attributed_pages'] == ft and a_['unplanned_pages'] == 0,
          f'{a_["unplanned_pages"]} unplanned')
    check(f'consistency 1.0 ({c["in_order"]} of {c["run0_touches"]} run-0 first touches in '
          'plan order)', c['value'] == 1.0, str(c.get('back', [])[:3]))
    w = d['weights']
    check(f'weights: the model mapping, file-backed ({w["faults"]} faults)',
          w['mappings'] >= 1 and w['faults'] > 0, str(w))
    t = sec('litert_text')
    if t:
        check('the text report names the method and the run probe',
              t['rc'] == 0 and f'method     {AUTO}' in t['out'] and
              'Python Interpreter.invoke' in t['out'],
              t['out'][:400])


def judge_litert_compiled():
    """CompiledModel (run_by_index) on the default path in the guest: every run counted,
    and XNNPACK's blocks named by operator against the arm64 plan."""
    s = sec('litert_compiled')
    if not s or not check('record of litert_run.py --api compiled exits 0', s['rc'] == 0,
                          f'rc {s["rc"] if s else "?"}: {s["err"][-600:] if s else ""}'):
        return
    check('CompiledModel: the run probe is LiteRtCompiledModelT::Run',
          re.search(r'run probe: \S+libpywrap_litert_common.so:_ZN20LiteRtCompiledModelT3Run',
                    s['err']) is not None, re.findall(r'.*run probe.*', s['err'])[:3])
    r = sec('litert_compiled_json')
    d = js(r, 'litert_compiled_json') if r else None
    if d:
        check(f'CompiledModel: {a.litert_runs} runs counted, ended by --runs',
              d['runs'] == a.litert_runs and
              d['end']['reason'] == 'the requested runs completed',
              f'{d["runs"]} runs, {d["end"]["reason"]!r}')
        judge_xnnpack_blocks(d, 'CompiledModel')


def judge_xnnpack_blocks(d, label):
    """XNNPACK's allocator probed in the aarch64 wheel: its blocks named by operator
    against the arm64 plan (every class and every delegated operator as planned)."""
    x = d.get('xnnpack')
    if not check(f'{label}: XNNPACK\'s allocator probed, its blocks named by the plan',
                 bool(x) and x.get('named_by_plan'), str(x)[:300]):
        return
    check(f'{label}: every XNNPACK byte named ({x["blocks_bytes"]} bytes, '
          f'{x["n_blocks"]} blocks)', x['attributed_bytes'] == x['blocks_bytes'],
          f'{x["attributed_bytes"]} of {x["blocks_bytes"]}')
    check(f'{label}: XNNPACK as planned, {x["operators_exact"]} of '
          f'{x["operators_planned"]} operators exact',
          x['as_planned'] and x['operators_exact'] == x['operators_planned'],
          f'measured { {k: x[k] for k in x["planned"]} }, planned {x["planned"]}, '
          f'{x["naming"]}')
    w = x.get('workspace_pages')
    check(f'{label}: the workspace block is the arm64 plan\'s and its pages are named by '
          f'operator ({w["attributed_pages"] if w else "?"} of '
          f'{w["first_touched_pages"] if w else "?"})',
          bool(w) and w['block_bytes'] == w['planned_bytes'] and
          w['attributed_pages'] == w['first_touched_pages'] > 0, str(w)[:300])
    check(f'{label}: the plan describes the trace (summary.plan_matches)',
          d['summary'].get('plan_matches') is True,
          '; '.join(d.get('correlation', {}).get('mismatch_reasons', []))[:300])


def judge_litert_plans():
    """The aarch64 wheel's plan of float CONV_2D models at 4 threads (kGenericOptimized:
    im2col, no hwcn_weights) against this arm64 build's default plan, offset by offset."""
    cmp = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests',
                       'litert', 'compare_plan.py')
    for m in ('gen_float16_weights', 'face_detection_short_range'):
        lr, ap_, aj = sec(f'lplan_{m}'), sec(f'aplan_{m}'), sec(f'apjson_{m}')
        if not (lr and ap_ and aj):
            continue
        if not check(f'{m}: LiteRT\'s aarch64 plan at 4 threads read (litert_plan.py)',
                     lr['rc'] == 0 and ap_['rc'] == 0,
                     f'rc {lr["rc"]} {ap_["rc"]}: {lr["err"][-300:]} {ap_["err"][-300:]}'):
            continue
        d = js(aj, f'apjson_{m}')
        if not d:
            continue
        check(f'{m}: the arm64 build plans for arm64 by default', d.get('arch') == 'arm64',
              str(d.get('arch')))
        with tempfile.TemporaryDirectory() as tmp:
            lp, app = os.path.join(tmp, 'lr.csv'), os.path.join(tmp, 'ap.csv')
            with open(lp, 'w') as f:
                f.write(lr['out'])
            with open(app, 'w') as f:
                f.write(ap_['out'])
            r = subprocess.run([sys.executable, cmp, lp, app], capture_output=True,
                               text=True)
        info(r.stdout.splitlines()[0] if r.stdout else r.stderr[:200])
        check(f'{m}, 4 threads: every arena tensor at the aarch64 wheel\'s offset',
              r.returncode == 0, (r.stdout + r.stderr)[:600])
        p = re.search(r'persistent arena: high_water_mark=(\d+)', lr['out'])
        check(f'{m}, 4 threads: persistent arena of the wheel\'s size '
              f'({d["persistent_bytes"]} bytes)',
              p is not None and int(p.group(1)) == d['persistent_bytes'],
              p.group(0) if p else lr['out'][-300:])


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_dmabuf import judge_dmabuf  # noqa: E402

RELEASE_GUEST = begin.group(1)
DMABUF = dict(fentry=FENTRY, save=os.path.dirname(os.path.abspath(a.results)), label=a.kernel)
if a.only == 'dmabuf':
    judge_dmabuf(sec, js, check, out, info, RELEASE_GUEST, **DMABUF)
    sys.exit(1 if failed else 0)

if a.suite == 'litert':
    judge_litert()
    judge_litert_compiled()
    judge_litert_plans()
    sys.exit(1 if failed else 0)

# ---- environment ----
s = sec('env')
if s:
    check('cgroup2 offers the memory controller', 'memory' in s['out'].split('\n')[0].split(),
          s['out'][:200])
    check('PSI is available (/proc/pressure/memory)', 'some avg10=' in s['out'], s['err'][:200])

# ---- 1. memory.peak and a removed cgroup (cg_check) ----
s = sec('cg_check')
if s:
    for line in s['out'].splitlines():
        if line.startswith('PASS: ') or line.startswith('FAIL: '):
            kind, rest = line.split(': ', 1)
            if kind == 'FAIL':
                failed = True
            print(f'{kind}: [{K}] peak/session: {rest}')
        elif line.startswith('DATA ') or line.startswith('NOTE '):
            info('cg_check ' + line)
    check('cg_check exits 0', s['rc'] == 0, f'rc {s["rc"]}: {s["err"][:300]}')

# ---- 2. OOM kill under memory.max ----
s = sec('oom_json')
if s:
    d = js(s, 'oom_json')
    if d:
        r = d['runs'][0]
        ev = r['events']
        info(f'OOM run (memory.max 64M, 101 MiB arena): exit_status {r["exit_status"]} '
             f'signal {r["signal"]} oom_killed {r["oom_killed"]} memory.peak '
             f'{r["memory_peak_bytes"]} VmHWM {r["vmhwm_bytes"]} events {ev} pressure '
             f'{r["pressure"]} wall {r["wall_s"]} s')
        check('memory.max 64M, 101 MiB arena: the run is reported OOM-killed (SIGKILL)',
              s['rc'] == 0 and r['oom_killed'] is True and r['signal'] == 9 and
              r['exit_status'] is None, f'rc {s["rc"]}, run {r}')
        check('... memory.events.local shows oom_kill = 1 (and oom >= 1, max > 0)',
              ev['oom_kill'] == 1 and ev['oom'] >= 1 and ev['max'] > 0, str(ev))
        check('... memory.peak is at the limit (60-64 MiB)',
              60 * MIB <= (r['memory_peak_bytes'] or 0) <= 64 * MIB,
              str(r['memory_peak_bytes']))
s = sec('oom_text')
if s:
    check('the text report names the OOM kill', s['rc'] == 0 and 'OOM kill' in s['out'],
          s['out'][:400])
s = sec('fits_json')
if s:
    d = js(s, 'fits_json')
    if d:
        r = d['runs'][0]
        info(f'fitting run (memory.max 512M, high auto {d["limits"]["memory_high_bytes"]}): '
             f'exit {r["exit_status"]} memory.peak {r["memory_peak_bytes"]} VmHWM '
             f'{r["vmhwm_bytes"]} events {r["events"]} pressure {r["pressure"]}')
        check('with enough memory: exit 0, no OOM, no max or high event',
              s['rc'] == 0 and r['exit_status'] == 0 and not r['oom_killed'] and
              r['events']['oom_kill'] == 0 and r['events']['oom'] == 0 and
              r['events']['max'] == 0 and r['events']['high'] == 0, str(r))
        check('--memory-high auto is 95 % of --memory-max',
              d['limits']['memory_high_bytes'] == 512 * MIB * 95 // 100, str(d['limits']))
        check('... memory.peak covers the 101 MiB arena, VmHWM too',
              (r['memory_peak_bytes'] or 0) > 101 * MIB and (r['vmhwm_bytes'] or 0) > 101 * MIB,
              f'{r["memory_peak_bytes"]} {r["vmhwm_bytes"]}')

# ---- 3 and 4. memory.high, pressure, PSI triggers ----
s = sec('high_json')
if s:
    d = js(s, 'high_json')
    if d:
        r = d['runs'][0]
        ev = r['events']
        info(f'memory.high run: exit {r["exit_status"]} memory.peak {r["memory_peak_bytes"]} '
             f'VmHWM {r["vmhwm_bytes"]} events {ev} pressure {r["pressure"]} wall '
             f'{r["wall_s"]:.2f} s')
        for t in r['triggers']:
            info(f'PSI trigger {t["spec"]!r}: armed {t["armed"]} fired {t["fired"]} at '
                 f'{t["times_s"][:10]} s{" error " + t.get("error", "") if not t["armed"] else ""}')
        check('memory.high below the working set: exit 0, high events > 0, no OOM kill',
              s['rc'] == 0 and r['exit_status'] == 0 and ev['high'] > 0 and
              ev['oom_kill'] == 0, str(r))
        check('... reported as paid in reclaim', r['paid_in_reclaim'] is True, str(r))
        check('... memory.pressure totals rise (some > 0)',
              (r['pressure']['some_total_us'] or 0) > 0, str(r['pressure']))
        check('PSI triggers parse and arm on the cgroup (some and full)',
              len(r['triggers']) == 2 and all(t['armed'] for t in r['triggers']),
              str(r['triggers']))
        check('... and are waited on: firings counted with times, none after the cgroup is gone',
              all(t['fired'] == len(t['times_s']) and not t['source_gone']
                  for t in r['triggers']), str(r['triggers']))
s = sec('high_text')
if s:
    check('the text report says "paid in reclaim"', s['rc'] == 0 and 'paid in reclaim' in s['out'],
          s['out'][:500])
    m = re.search(r"psi trigger +('[^']*': [^\n]*)", s['out'])
    info('text: ' + (m.group(1) if m else '(no trigger line)'))
s = sec('min_weights')
if s:
    d = js(s, 'min_weights')
    if d:
        check('--memory-min weights = the plan\'s weights bytes; --repeat 2 gives 2 runs, fresh '
              'cgroups', s['rc'] == 0 and len(d['runs']) == 2 and
              d['limits']['memory_min_bytes'] == d['plan']['weights_bytes'] > 0 and
              all(r['exit_status'] == 0 for r in d['runs']) and
              d['runs'][0]['cgroup'] != d['runs'][1]['cgroup'], str(d)[:500])
        said = 'reset is unsupported' in s['err'] and 'fresh cgroup' in s['err']
        if a.kernel == '6.1':
            check('--repeat on 6.1: run says memory.peak reset is unsupported and that each '
                  'run gets a fresh cgroup', said, s['err'][:400])
        else:
            check(f'--repeat on {K}: no reset note (memory.peak is resettable)', not said,
                  s['err'][:400])
        info(f'memory.min weights run: min {d["limits"]["memory_min_bytes"]} peaks '
             f'{[r["memory_peak_bytes"] for r in d["runs"]]}')

s = sec('tiny')
if s:
    d = js(s, 'tiny')
    if d:
        r = d['runs'][0]
        check('a trivial command (true): exit 0, a peak and a VmHWM read',
              s['rc'] == 0 and r['exit_status'] == 0 and r['memory_peak_bytes'] is not None and
              r['vmhwm_bytes'] is not None, str(r))
        info(f'run -- true: memory.peak {r["memory_peak_bytes"]} VmHWM {r["vmhwm_bytes"]} '
             '(VmHWM includes the forked arenaprof before exec)')

# ---- bad input and clean-up ----
for name, rc, pat, what in (
        ('psi_bad', 2, 'window', 'a bad --psi-trigger: exit 2, one line'),
        ('not_cgroup', 1, 'not a cgroup v2 directory', '--cgroup-parent that is not a cgroup: '
         'exit 1, one line'),
        ('busy_parent', 1, 'no-internal-processes', 'a parent with processes of its own: '
         'exit 1, the rule named'),
        ('exec_fail', 2, 'cannot run', 'a command that does not exist: exit 2')):
    s = sec(name)
    if s:
        ok1, lines = one_line(s)
        check(what, s['rc'] == rc and ok1 and pat in s['err'] and 'egmentation' not in s['err'],
              f'rc {s["rc"]}, stderr {lines}')
s = sec('interrupt')
if s:
    check('SIGINT during a run: passed on to the command, reported, exit 1',
          s['rc'] == 1 and 'killed by SIGINT' in s['out'] and 'interrupted by SIGINT' in s['err'],
          f'rc {s["rc"]}, stdout {s["out"][-300:]!r}, stderr {s["err"][-300:]!r}')
s = sec('cg_left')
if s:
    check('every cgroup the tests created was removed', s['out'].strip() == '', s['out'])

# ---- 5. first touches: every method this kernel has, against the truth and the host ----
ref_truth = os.path.join(a.ref, 'truth.json')
same_pages = True
s = sec('truth')
if s:
    try:
        guest_truth = json.loads(s['out'])
    except ValueError:
        guest_truth = None
    check('mininfer --truth in the guest', s['rc'] == 0 and guest_truth is not None,
          f'rc {s["rc"]}: {s["err"][:300]}')
    if guest_truth is not None:
        host_truth = json.load(open(ref_truth))
        gps = guest_truth.get('page_size')
        check(f'the guest\'s pages are the kernel\'s: {a.page_size} bytes', gps == a.page_size,
              f'mininfer says {gps}')
        same_pages = gps == host_truth.get('page_size')
        if same_pages:
            # all but the model's path
            same = ({k: v for k, v in guest_truth.items() if k != 'model'} ==
                    {k: v for k, v in host_truth.items() if k != 'model'})
            check('the guest\'s truth equals the host\'s (same plan, same pages)', same,
                  f'{guest_truth.get("arena_pages")} vs {host_truth.get("arena_pages")} pages')
        else:
            info(f'pages of {gps} bytes here, {host_truth.get("page_size")} on the host: the '
                 f'truth ({guest_truth.get("arena_pages")} pages) is the guest\'s own, and '
                 'page-by-page comparisons with the host\'s traces do not apply')
        with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
            json.dump(guest_truth, f)
            ref_truth = f.name
host = {}
for m in ('tp', 'perf'):
    p = os.path.join(a.ref, f'host_{m}.json')
    if os.path.exists(p):
        host[m] = json.load(open(p))


def pages(rep):
    return {p['page']: (p['run'], p['op']) for p in rep.get('arena_pages', [])}


# the methods this kernel must have; the others must fail with one clear line
works = {'fentry': FENTRY, 'tp': X86, 'perf': True}
why_not = {'fentry': 'not supported by this kernel', 'tp': 'x86 only'}
for m in ('fentry', 'tp', 'perf'):
    s = sec(f'rec_{m}')
    if not s:
        continue
    if not works[m]:
        ok1, lines = one_line(s)
        check(f'record --probe {m} is refused here, exit 1, one line naming why '
              f'("{why_not[m]}")', s['rc'] == 1 and ok1 and why_not[m] in s['err'] and
              'Unknown error' not in s['err'], f'rc {s["rc"]}: {lines}')
        continue
    if not check(f'record --probe {m}: loads, attaches and exits 0',
                 s['rc'] == 0 and f'with {m}' in s['err'], f'rc {s["rc"]}: {s["err"][-600:]}'):
        continue
    r = sec(f'rep_{m}')
    if not r:
        continue
    rep = js(r, f'rep_{m}')
    if not rep:
        continue
    check(f'{m}: the trace header says method {m}, arch {"x86_64" if X86 else "aarch64"}, '
          f'page {a.page_size}', rep.get('method') == m and
          rep.get('arch') == ('x86_64' if X86 else 'aarch64') and
          rep.get('page_size') == a.page_size,
          f'{rep.get("method")} {rep.get("arch")} {rep.get("page_size")}')
    with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as f:
        f.write(r['out'])
    res = subprocess.run([sys.executable, 'tests/py/check_trace.py', f.name, ref_truth,
                          '--runs', str(a.runs), '--agreement',
                          '--label', f'[{K}] {m} vs truth: '],
                         capture_output=True, text=True)
    os.unlink(f.name)
    for line in res.stdout.splitlines():
        if line.startswith('FAIL: '):
            failed = True
        print(line)
    if res.returncode and 'FAIL' not in res.stdout:
        check(f'{m}: check_trace.py', False, res.stderr[-300:])
    pg = pages(rep)
    info(f'{m}: {len(pg)} first-touched arena pages, {rep.get("faults_total")} faults, '
         f'{rep.get("dropped_events")} dropped; record took {s["secs"]} s')
    # the host's traces: the same pages from another kernel (and, on arm64, another arch)
    if m == 'tp' or (X86 and m == 'perf') or not same_pages:
        continue
    for hm in ('tp', 'perf'):
        if hm not in host:
            if X86:
                check(f'{m} pages equal the host\'s {hm} pages', False,
                      f'the host\'s {hm} reference trace failed (see INFO)')
            continue
        hp = pages(host[hm])
        diff = sorted(set(hp.items()) ^ set(pg.items()))
        check(f'{m} in the VM gives the same first-touch pages (run, op) as the host\'s '
              f'{hm} ({len(hp)} pages)', pg == hp and len(pg) > 0,
              f'{len(diff)} differ, e.g. {diff[:5]}')
s = sec('rec_auto')
if s:
    m = re.search(r'with (tp|fentry|perf)', s['err'])
    got = m.group(1) if m else 'nothing'
    info(f'auto mode picked {got} (fault source used on this kernel)')
    r = sections.get('rep_auto')
    ok = False
    if r and r['rc'] == 0:
        try:
            rep = json.loads(r['out'])
            ok = rep.get('arena') is not None and rep['arena'].get('first_touch_pages', 0) > 0
        except ValueError:
            pass
    check(f'auto mode picks {AUTO} here and its trace has the arena',
          s['rc'] == 0 and got == AUTO and ok, f'picked {got}, rc {s["rc"]}: {s["err"][-400:]}')
    if AUTO != ('tp' if X86 else 'fentry'):
        check(f'auto says why it fell back to {AUTO}',
              'chosen by --probe auto after' in s['err'] and 'not supported by this kernel'
              in s['err'], s['err'][-400:])

# ---- 6. no /sys/kernel/btf/vmlinux: --btf FILE and ARENAPROF_BTF ----
RELEASE = begin.group(1)
SYSBTF = '/sys/kernel/btf/vmlinux'


def judge_btf():
    """The sysfs BTF hidden (tests.sh, 6): record's refusal, --btf and ARENAPROF_BTF of its
    copy against the truth, check's report, and another kernel's BTF refused."""
    global failed
    h = sections.get('nobtf_hide')
    if h:
        check('the guest hides /sys/kernel/btf/vmlinux', False, h['err'][:300])
        return
    s = sec('nobtf_paths')
    if s:
        check('with /sys/kernel/btf hidden, none of libbpf\'s vmlinux locations exists',
              s['rc'] == 0 and s['out'].strip() == '', s['out'][:300])
    s = sec('nobtf_rec')
    if s:
        ok1, lines = one_line(s)
        want = (f'no kernel BTF ({SYSBTF}: No such file or directory): give --btf FILE or '
                f'ARENAPROF_BTF=FILE, this kernel\'s BTF (uname -r {RELEASE}), from pahole -J')
        check('no BTF, no --btf: record exits 1, one line naming --btf, ARENAPROF_BTF, '
              'uname -r, pahole -J and BTFHub', s['rc'] == 1 and ok1 and want in s['err'] and
              'BTFHub' in s['err'], f'rc {s["rc"]}: {lines}')
    s = sec('nobtf_check')
    d = js(s, 'nobtf_check') if s else None
    if d:
        f = {x['name']: x for x in d['features']}
        check('check without BTF: source missing, btf missing naming --btf, record and top '
              'unavailable, exit 2', s['rc'] == 2 and
              d['btf'] == {'source': 'missing', 'file': None} and
              f['btf']['status'] == 'missing' and '--btf FILE' in f['btf']['detail'] and
              d['faces']['record'] == d['faces']['top'] == 'unavailable',
              f'rc {s["rc"]}, btf {d["btf"]}, {f["btf"]}, faces {d["faces"]}')
        # what this test does not show, said by the guest itself: the kernel has BTF inside
        check('... and kernel_btf ok: the kernel still has BTF of its own (only the file is '
              'hidden)', f['kernel_btf']['status'] == 'ok', str(f['kernel_btf']))
    t = sec('btf_truth')
    truth = None
    if t:
        try:
            truth = json.loads(t['out'])
        except ValueError:
            check('mininfer --truth --runs 2', False, t['err'][:300])
    for rec, rep, how in (('btf_rec', 'btf_rep', '--btf /tmp/vmlinux.btf'),
                          ('btfenv_rec', None, 'ARENAPROF_BTF=/tmp/vmlinux.btf')):
        s = sec(rec)
        if not s or not check(f'no built-in BTF, {how}: record exits 0 with perf, tp and '
                              'fentry refused for want of the kernel\'s BTF ids',
                              s['rc'] == 0 and 'with perf' in s['err'] and
                              'fentry: attaches by the kernel\'s own BTF ids' in s['err'] and
                              f'{how} serves CO-RE relocations only' in s['err'],
                              f'rc {s["rc"] if s else "?"}: {s["err"][-600:] if s else ""}'):
            continue
        r = sec(rep) if rep else None
        d = js(r, rep) if r else None
        if not d or truth is None:
            continue
        check(f'{how}: the trace says method perf, page {a.page_size}',
              d.get('method') == 'perf' and d.get('page_size') == a.page_size,
              f'{d.get("method")} {d.get("page_size")}')
        with tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as fr, \
                tempfile.NamedTemporaryFile('w', suffix='.json', delete=False) as ft:
            fr.write(r['out'])
            json.dump(truth, ft)
        res = subprocess.run([sys.executable, 'tests/py/check_trace.py', fr.name, ft.name,
                              '--runs', '2', '--agreement', '--label', f'[{K}] {how}: '],
                             capture_output=True, text=True)
        os.unlink(fr.name)
        os.unlink(ft.name)
        for line in res.stdout.splitlines():
            if line.startswith('FAIL: '):
                failed = True
            print(line)
        if res.returncode and 'FAIL' not in res.stdout:
            check(f'{how}: check_trace.py', False, res.stderr[-300:])
        info(f'{how}: {len(d.get("arena_pages", []))} first-touched arena pages, '
             f'{d.get("faults_total")} faults; record took {s["secs"]} s')
    for name, src in (('btf_check', '--btf'), ('btfenv_check', 'ARENAPROF_BTF')):
        s = sec(name)
        d = js(s, name) if s else None
        if not d:
            continue
        f = {x['name']: x for x in d['features']}
        check(f'check with {src}: source {src}, btf ok (the layout read right), perf ok, '
              'tp_btf and fentry missing, record degraded',
              d['btf'] == {'source': src, 'file': '/tmp/vmlinux.btf'} and
              f['btf']['status'] == 'ok' and 'read this process right' in f['btf']['detail']
              and f['perf_events']['status'] == 'ok' and
              f['tp_btf']['status'] == f['fentry']['status'] == 'missing' and
              d['faces']['record'] == 'degraded',
              f'btf {d["btf"]}, {f["btf"]["detail"]}, perf {f["perf_events"]["status"]}, '
              f'tp {f["tp_btf"]["status"]}, fentry {f["fentry"]["status"]}, {d["faces"]}')
    other = re.search(r'^INFO other_btf (\S+)', text, re.M)
    s = sections.get('btf_wrong')
    if s is None or not other:
        check('a wrong --btf was tried', False, 'no btf_wrong section: no /ap/other.btf')
        return
    ok1, lines = one_line(s)
    check(f'--btf of the {other.group(1)} kernel\'s BTF: exit 1, one line: not this '
          'kernel\'s BTF, uname -r named, probably another kernel',
          s['rc'] == 1 and ok1 and f"is not this kernel's BTF (uname -r {RELEASE})" in s['err']
          and 'probably for another kernel' in s['err'], f'rc {s["rc"]}: {lines}')


def judge_budget_cgroup():
    """report --budget from a trace recorded in a child cgroup whose page cache (32 MiB
    written to a file) no VmHWM holds: memory.peak is the peak, and it decides 28M."""
    rec, cg, rep = sec('budget_rec'), sec('budget_cgpeak'), sec('budget_json')
    if not (rec and cg and rep):
        return
    check('record in a child cgroup: exit 0', rec['rc'] == 0, rec['err'][-300:])
    d = js(rep, 'budget_json')
    if not d:
        return
    sm, b = d['samples'], d['budget']
    cg_file = int(cg['out'].split()[0]) if cg['out'].strip() else 0
    cgmax, hwm = sm['memory_peak_max_bytes'] or 0, sm['vmhwm_max_bytes'] or 0
    info(f'budget: memory.peak samples max {cgmax}, the cgroup\'s file after {cg_file}, '
         f'VmHWM max {hwm}, non-reclaimable {b["nonreclaimable_bytes"]}')
    check('the trace sampled memory.peak: over the 32 MiB written, at most the cgroup\'s '
          'own memory.peak read after, above VmHWM', 32 * MIB <= cgmax <= cg_file and
          hwm < cgmax, f'samples {cgmax}, file {cg_file}, VmHWM {hwm}')
    check('report --budget 28M: the peak is memory.peak\'s, it decides: DOES NOT FIT, '
          'exit 3', rep['rc'] == 3 and b['peak_bytes'] == cgmax and
          b['peak_source'] == 'memory.peak' and b['fits'] is False and
          b['decided_by'] == 'peak' and b['nonreclaimable_bytes'] < 28 * MIB,
          f'rc {rep["rc"]}: {b}')
    p = d['summary']['peak_parts']
    held = sum(p['nonreclaimable'].values()) + sum(p['reclaimable'].values())
    check('the peak\'s parts sum to memory.peak, the page cache no VmHWM holds named as '
          'the cgroup\'s other charges', p['peak_bytes'] == cgmax and p['peak_source'] ==
          'memory.peak' and held + p['between_samples_bytes'] + p['cgroup_other_bytes'] ==
          cgmax and held + p['between_samples_bytes'] >= hwm and p['cgroup_other_bytes'] > 0,
          str(p))


judge_btf()
judge_budget_cgroup()
judge_dmabuf(sec, js, check, out, info, RELEASE_GUEST, **DMABUF)

if end and int(end.group(1)) != 0:
    info(f'tests.sh exit code {end.group(1)}')
sys.exit(1 if failed else 0)
