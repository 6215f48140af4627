"""The VM suite's dma-buf section (scripts/vm/tests.sh, 7), judged against what
tests/fixtures/dmabuf_fixture.c printed: its JSON line per phase (the buffers it held, their
sizes, what it mapped and the Rss it read of its own mappings) and its child's line (the
buffer passed to it). Imported by check.py, which hands in its helpers."""
import base64
import gzip
import json
import os
import re


def _lines(text, key):
    out = []
    for line in text.splitlines():
        if line.startswith('{"' + key + '"'):
            try:
                out.append(json.loads(line))
            except ValueError:
                pass
    return out


def _release(release):
    m = re.match(r'(\d+)\.(\d+)', release)
    return (int(m.group(1)), int(m.group(2))) if m else (0, 0)


def _save(sec, rec, save, label):
    """The guest's trace and the fixture's lines, for tests/fixtures/trace/dmabuf-K.*"""
    t = sec('dmabuf_trace')
    if not save or not t or t['rc'] != 0:
        return
    try:
        raw = gzip.decompress(base64.b64decode(t['out']))
    except (ValueError, OSError):
        return
    with open(os.path.join(save, f'dmabuf-{label}.aptrace'), 'wb') as f:
        f.write(raw)
    with open(os.path.join(save, f'dmabuf-{label}.fixture.jsonl'), 'w') as f:
        f.write(''.join(x + '\n' for x in rec['out'].splitlines() if x.startswith('{')))


def judge_dmabuf(sec, js, check, out, info, release, fentry=False, save=None, label=''):
    """fentry: the kernel has BPF trampolines, so the export and release events must work;
    save: a directory for the guest's trace (dmabuf-LABEL.aptrace) and the fixture's lines."""
    has_iter = _release(release) >= (6, 16)
    rec = sec('dmabuf_rec')
    if rec is None:
        return
    env = sec('dmabuf_env')
    info(f'dma-buf exporters: {env["out"].strip() if env else "?"}'.replace('\n', ' | '))
    no = re.search(r'dmabuf_fixture: no dma-buf exporter: (.*)', rec['err'])
    rep = sec('dmabuf_json')
    d = js(rep, 'dmabuf_json') if rep else None
    if no:
        out('SKIP', 'the dma-bufs of the fixture, recorded and reported',
            f'this kernel has no dma-buf exporter to allocate from ({no.group(1)})')
        check('without an exporter: the fixture exits 77, record says so (exit 4), and the '
              'report has no dma-buf part', rec['rc'] == 4 and d is not None and
              'dmabuf' not in d and 'dmabuf_peak_bytes' not in d.get('summary', {}),
              f'rc {rec["rc"]}, keys {sorted(d) if d else None}')
    else:
        _judge_held(sec, js, check, out, info, rec, d, has_iter, fentry)
        _save(sec, rec, save, label)
    # a process without dma-bufs: its report as before, no part of this
    s, t = sec('nodmabuf_json'), sec('nodmabuf_text')
    nd = js(s, 'nodmabuf_json') if s else None
    if nd is not None and t:
        check('a process without dma-bufs (mininfer): no "dmabuf" in its JSON, no device line '
              'or dma-buf section in its text', 'dmabuf' not in nd and
              'dmabuf_peak_bytes' not in nd.get('summary', {}) and
              'device     ' not in t['out'] and 'dma-bufs' not in t['out'],
              f'keys {sorted(nd)}')
    c = sec('dmabuf_check')
    cd = js(c, 'dmabuf_check') if c else None
    if cd:
        f = {x['name']: x for x in cd['features']}.get('dmabuf_iter')
        want = 'ok' if has_iter else 'missing'
        check(f'check: dmabuf_iter {want} on {release}', f is not None and f['status'] == want,
              str(f))
        f = {x['name']: x for x in cd['features']}.get('dmabuf_events')
        want = 'ok' if fentry else 'refused or missing'
        check(f'check: dmabuf_events {want} (BPF trampolines: {"yes" if fentry else "no"})',
              f is not None and (f['status'] == 'ok') == fentry, str(f))


def _judge_held(sec, js, check, out, info, rec, d, has_iter, fentry):
    phases = _lines(rec['out'], 'phase')
    ops = _lines(rec['out'], 'op')
    child = _lines(rec['out'], 'child')
    if not check('record of the fixture: exit 0, three phases printed', rec['rc'] == 0 and
                 len(phases) == 3, f'rc {rec["rc"]}, {len(phases)} phases: {rec["err"][-400:]}'):
        return
    if not check('report --json has a "dmabuf" object', d is not None and 'dmabuf' in d,
                 f'keys {sorted(d) if d else None}'):
        return
    p1, p2, p3 = phases
    x = d['dmabuf']
    # an exporter the kernel lacks: its buffers' checks are not run, and said so
    without = re.search(r'dmabuf_fixture: without (.*)', rec['err'])
    if without and '/dev/dma_heap/system' in without.group(1):
        out('SKIP', 'the heap buffers A, B and D (a name, a buffer passed to the child, one '
            'held by its mapping alone)', f'no DMA heap here: {without.group(1)}')
    if without and '/dev/udmabuf' in without.group(1):
        out('SKIP', 'the udmabuf buffer U', f'no udmabuf here: {without.group(1)}')
    info(f'fixture phase 1: {p1["count"]} buffers, {p1["bytes"]} bytes; report: peak '
         f'{x["peak_bytes"]} in {x["peak_buffers"]}, source {x["source"]}, '
         f'{x["samples"]} samples, mapped rss {x["max_mapped_rss"]}')
    check('the peak is the fixture\'s phase 1: bytes and count',
          x['peak_bytes'] == p1['bytes'] and x['peak_buffers'] == p1['count'],
          f'peak {x["peak_bytes"]} in {x["peak_buffers"]}, fixture {p1["bytes"]} in '
          f'{p1["count"]}')
    # a sample's time is taken before its read: up to one interval before what it saw
    slack = x['interval_ms'] * 1_000_000
    check('... reached between phase 1 and phase 2 (a sample\'s time up to one interval '
          'before its read)', p1['ts_ns'] - slack <= x['peak_monotonic_ns'] <= p2['ts_ns'],
          f'{p1["ts_ns"]} - {slack} <= {x["peak_monotonic_ns"]} <= {p2["ts_ns"]}')
    short = {o['what']: o for o in ops if o['what'].startswith('short-') and o['op'] == 'alloc'}
    # the device peak: the events' (phase 1 and S1, exported and not yet freed) where they
    # are traced, else the samples'
    dev = p1['bytes'] + short['short-S1']['size'] if fentry and 'short-S1' in short else \
        p1['bytes']
    check(f'the summary and the device peak: {dev} ({"events" if fentry else "samples"})',
          d['summary'].get('dmabuf_peak_bytes') == dev and x['device_peak_bytes'] == dev and
          x['device_peak_from'] == ('events' if fentry else 'samples'),
          f'{d["summary"].get("dmabuf_peak_bytes")} {x["device_peak_bytes"]} '
          f'{x["device_peak_from"]}')
    check('at the end nothing held, as in phase 3', x['end_bytes'] == p3['bytes'] == 0 and
          x['end_buffers'] == p3['count'] == 0, f'{x["end_bytes"]} in {x["end_buffers"]}')
    got = {b['inode']: b for b in x['buffers']}
    want = [b['inode'] for b in p1['buffers']] + \
        ([o['inode'] for o in short.values()] if fentry else [])
    check(f'every buffer once, by inode, and no other ({"with" if fentry else "without"} the '
          'short-lived ones)', sorted(got) == sorted(want), f'{sorted(got)} vs {sorted(want)}')
    exporter = {'heap-A': 'system', 'heap-B': 'system', 'udmabuf-U': 'udmabuf',
                'heap-D': 'system'}
    for b in p1['buffers']:
        r = got.get(b['inode'])
        if r is None:
            continue
        # D is held by its mapping alone: without the iterator or the events its size is
        # its mapping's and its exporter unknown, unless a sample caught it in the
        # microseconds between its allocation and the close of its fd (then fds 1 and
        # fdinfo's figures)
        only_mapped = b['what'] == 'heap-D'
        blind = only_mapped and not has_iter and not fentry and r['fds'] == 0
        want_exp = '' if blind else exporter[b['what']]
        check(f'{b["what"]}: size {b["size"]}, mapped {b["mapped"]}, mapped rss {b["rss"]} '
              f'(the fixture\'s own smaps), exporter {want_exp or "unknown"}'
              f'{", size from its mapping" if blind else ""}, held at the peak',
              r['size'] == b['size'] and r['mapped_bytes'] == b['mapped'] and
              r['mapped_rss'] == b['rss'] and r['exporter'] == want_exp and r['at_peak'] and
              r['fds'] == (r['fds'] if only_mapped and r['fds'] <= 1 else 1) and
              r['size_from_map'] == blind and r['maps'] == (1 if b['mapped'] else 0), str(r))
        if b['what'] == 'heap-A':
            check('heap-A: its DMA_BUF_SET_NAME name', r['name'] == 'npu-weights', r['name'])
    b_ = [b for b in p1['buffers'] if b['what'] == 'heap-B']
    if b_:
        check('heap-B passed to the child: the child holds that inode and size',
              len(child) == 1 and child[0]['inode'] == b_[0]['inode'] and
              child[0]['size'] == b_[0]['size'], f'{child} vs {b_[0]}')
        r = got.get(b_[0]['inode'])
        if r:
            check('heap-B: last seen before phase 2 (closed once passed)',
                  r['last_ns'] + d_base(x) <= p2['ts_ns'], f'{r} vs {p2["ts_ns"]}')
    want = 'bpf_iter' if has_iter else 'fdinfo'
    check(f'source {want} (the BPF dma-buf iterator is 6.16 on)', x['source'] == want,
          x['source'])
    t = sec('dmabuf_text')
    if t:
        note = ('from the BPF dma-buf iterator (bpf_iter)' if has_iter else
                'no BPF iterator: this kernel has no dma-buf iterator')
        check('text: the verdict\'s device line, the CMA note, the dma-bufs section and the '
              'source note', t['rc'] == 0 and '\ndevice     dma-bufs ' in t['out'] and
              'carved out of' in t['out'] and '\ndma-bufs   peak ' in t['out'] and
              note in t['out'], t['out'][:1500])
    env = sec('dmabuf_env')
    cma = re.search(r'^CmaTotal:\s+(\d+) kB', env['out'], re.M) if env else None
    want_cma = int(cma.group(1)) * 1024 if cma else None
    check(f'cma_total as the guest\'s /proc/meminfo says ({want_cma})',
          x['cma_total'] == want_cma, str(x['cma_total']))
    om = sec('dmabuf_om')
    if om:
        m = re.search(r'^arenaprof_dmabuf_peak_bytes(?:\{[^}]*\})? (\d+)$', om['out'], re.M)
        check('openmetrics: arenaprof_dmabuf_peak_bytes is the device peak',
              m is not None and int(m.group(1)) == dev, om['out'][-600:])
    if fentry:
        _judge_events(check, info, rec, t, x, ops, p1, got)
    else:
        check('no events where the kernel has no BPF trampolines', x['events'] is None,
              str(x['events']))


_EXPORTER = {'heap': 'system', 'udmabuf': 'udmabuf'}


def _judge_events(check, info, rec, t, x, ops, p1, got):
    """The export and release events against the fixture's own allocations and frees."""
    ev = x['events']
    if not check('events: a "dmabuf.events" object by fentry, and record said so', ev is not
                 None and ev['method'] == 'fentry' and
                 'exports and releases traced as they happen (fentry)' in rec['err'],
                 f'{ev}; {rec["err"][-600:]}'):
        return
    base = d_base(x)
    allocs = [o for o in ops if o['op'] == 'alloc']
    frees = [o for o in ops if o['op'] == 'free']
    info(f'events: {ev["exported"]} exported, {ev["released"]} released, peak '
         f'{ev["peak_bytes"]} in {ev["peak_buffers"]}; fixture {len(allocs)} allocations, '
         f'{len(frees)} frees')
    check(f'events: {len(allocs)} exports and {len(frees)} releases, as the fixture\'s '
          'allocations and frees', ev['exported'] == len(allocs) and
          ev['released'] == len(frees) and ev['end_bytes'] == 0 and ev['end_buffers'] == 0,
          str(ev))
    for o in ops:
        r = got.get(o['inode'], {})
        key = 'exported_ns' if o['op'] == 'alloc' else 'released_ns'
        at = r.get(key)
        exp = _EXPORTER[o['what'].split('-')[0]] if not o['what'].startswith('short') else \
            ('system' if any(a['what'].startswith('heap') for a in allocs) else 'udmabuf')
        check(f'events: {o["what"]} {o["op"]} ({o["size"]} bytes, {exp}) within the '
              f'fixture\'s own times around it', at is not None and
              o['t0_ns'] <= at + base <= o['t1_ns'] and r.get('size') == o['size'] and
              r.get('exporter') == exp,
              f'{key} {at} + {base} vs [{o["t0_ns"]}, {o["t1_ns"]}]; {r}')
    # the order: every export and release, by time, as the fixture did them
    seq = sorted([(b['exported_ns'], 'alloc', b['inode']) for b in got.values()
                  if b['exported_ns'] is not None] +
                 [(b['released_ns'], 'free', b['inode']) for b in got.values()
                  if b['released_ns'] is not None])
    want = [(o['op'], o['inode']) for o in sorted(ops, key=lambda o: o['t0_ns'])]
    check('events: in the fixture\'s order', [s[1:] for s in seq] == want,
          f'{[s[1:] for s in seq]} vs {want}')
    s1 = next((o for o in allocs if o['what'] == 'short-S1'), None)
    if s1:
        check(f'events: peak {p1["bytes"] + s1["size"]} in {p1["count"] + 1} buffers (phase 1 '
              'and S1), reached at S1\'s export', ev['peak_bytes'] == p1['bytes'] + s1['size']
              and ev['peak_buffers'] == p1['count'] + 1 and
              s1['t0_ns'] <= ev['peak_monotonic_ns'] <= s1['t1_ns'], str(ev))
        held = {b['inode'] for b in p1['buffers']} | {s1['inode']}
        check('events: the buffers live at that peak are phase 1\'s and S1',
              {i for i, b in got.items() if b['at_events_peak']} == held,
              str({i: b['at_events_peak'] for i, b in got.items()}))
    for o in allocs:
        if o['what'].startswith('short'):
            r = got.get(o['inode'], {})
            check(f'{o["what"]}: seen by its events, missed by every sample (it lived less '
                  'than one interval)', r.get('sampled') is False and
                  r.get('exported_ns') is not None and r.get('released_ns') is not None, str(r))
    if t:
        check('text: the events line and the short-lived buffers no sample saw',
              f'events fentry: {len(allocs)} exported by the target, {len(frees)} of them '
              'released' in t['out'] and t['out'].count('(no sample saw it: held ') ==
              len([o for o in allocs if o['what'].startswith('short')]), t['out'][-1500:])


def d_base(x):
    """The trace's clock base: peak_monotonic_ns less peak_at_ns."""
    return x['peak_monotonic_ns'] - x['peak_at_ns']
