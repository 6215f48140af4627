#!/usr/bin/env python3
"""Rewrites a trace's PACKED records (type 14, man arenaprof-trace(5), formats 2 and 4) as
the plain records they hold, each with its CRC, so that the tools here that edit records
one at a time can reach every fault. A second decoder of the format, written from the
man page: test_hostile.sh checks that report says the same of both files.

usage: unpack_trace.py IN OUT     (also imported: unpack(bytes) -> bytearray)
       unpack_trace.py --sizes IN  the bytes of each record type, packed entries by
                                   theirs before deflate (docs/trace-cost.md's table)
"""
import struct
import sys
import zlib

M64 = (1 << 64) - 1
FREE = 7                # ap_alloc_fn AP_ALLOC_FREE
FIELDS = {8: 21, 9: 5}  # SAMPLE, DROPS: u64 fields


def record(typ, payload):
    hdr = struct.pack('<II', typ, len(payload))
    return hdr + struct.pack('<I', zlib.crc32(payload, zlib.crc32(hdr))) + payload


class Buf:
    def __init__(self, b):
        self.b, self.i = b, 0

    def byte(self):
        self.i += 1
        return self.b[self.i - 1]

    def varint(self):
        x = shift = 0
        while True:
            c = self.byte()
            x |= (c & 0x7f) << shift
            shift += 7
            if not c & 0x80:
                return x & M64

    def zz(self):
        z = self.varint()
        return (z >> 1) ^ (-(z & 1) & M64)

    def cstr(self):
        j = self.b.index(0, self.i)
        s, self.i = bytes(self.b[self.i:j]), j + 1
        return s


def s32(v):
    v &= 0xffffffff
    return v - (1 << 32) if v & 0x80000000 else v


class State:
    """What entries are deltas from (a key block starts afresh) and, in format 4, what
    outlives blocks: the mapping snapshots."""

    def __init__(self, version):
        self.version = version
        self.snaps = {'started': False, 'cur': None, 'cur_n': [], 'base': None,
                      'base_n': []}
        self.reset()

    def reset(self):
        self.ts = self.addr = self.ip = self.vs = self.ve = self.vf = 0
        self.tid = self.flags = 0
        self.run = self.op = -1
        self.vmas = [[0, 0, 0, 0, 0]]     # start, end, flags, last addr, last ip
        self.aptr = self.acaller = self.afn = 0
        self.blocks = []                   # the last 16 allocations: (ptr, size)
        self.mend = self.minode = self.mmaj = self.mmin = self.snap = 0
        self.prev = {8: [0] * 21, 9: [0] * 5}
        self.rb = self.re = self.rlen = self.rgap = 0

    def add_map(self, m, path):
        sn = self.snaps
        if not sn['started'] or m[5] != sn['cur']:
            sn['base'], sn['base_n'] = sn['cur'], sn['cur_n']
            sn['cur'], sn['cur_n'], sn['started'] = m[5], [], True
            sn['cursor'] = 0
        sn['cur_n'].append((m, path))


def mapping(m, path):
    return struct.pack('<QQQQQIIII', *m) + path + b'\0'


def fault_marker(st, tag, b):
    kind = tag & 7
    typ = kind + 1 if kind == 1 else kind + 2
    v4 = st.version >= 4
    if tag & 0x08:
        st.tid = b.varint()
    guess = st.run + 1 if v4 and typ == 4 else st.run
    if tag & 0x10:
        run, st.op = s32(guess + b.zz()), s32(st.op + b.zz())
    else:
        run = guess
    st.run = run
    if kind == 1 and v4:
        if tag & 0x40:
            k = b.varint()
            if k:
                st.vmas.insert(0, st.vmas.pop(k))
            else:
                start = (st.vmas[0][0] + b.zz()) & M64
                span, flags = b.varint(), b.varint()
                st.vmas.insert(0, [start, (start + span) & M64, flags, start, st.vmas[0][4]])
                del st.vmas[8:]
        v = st.vmas[0]
        if tag & 0x20:
            v[4] = (v[4] + b.zz()) & M64
        if tag & 0x80:
            st.flags = b.varint()
        st.ts = (st.ts + b.zz()) & M64
        v[3] = (v[3] + b.zz()) & M64
        return 2, struct.pack('<QQQQQQIIii', st.ts, v[3], v[4], v[0], v[1], v[2], st.tid,
                              st.flags, st.run, st.op)
    if tag & 0x20:
        st.ip = (st.ip + b.zz()) & M64
    if tag & 0x40:
        st.vs = (st.vs + b.zz()) & M64
        span = b.varint()
        st.ve = (st.vs + span) & M64
        st.vf = b.varint()
    if tag & 0x80:
        st.flags = b.varint()
    ts = st.ts
    if v4 and typ == 4 and st.re:
        ts = st.re + st.rgap
    elif v4 and typ == 5 and st.rb:
        ts = st.rb + st.rlen
    st.ts = (ts + b.zz()) & M64
    if v4 and typ == 4:
        st.rgap, st.rb = (st.ts - st.re) & M64 if st.re else 0, st.ts
    elif v4 and typ == 5:
        st.rlen, st.re = (st.ts - st.rb) & M64 if st.rb else 0, st.ts
    if kind == 1:
        st.addr = (st.addr + b.zz()) & M64
        return 2, struct.pack('<QQQQQQIIii', st.ts, st.addr, st.ip, st.vs, st.ve, st.vf,
                              st.tid, st.flags, st.run, st.op)
    return typ, struct.pack('<QIiiI', st.ts, st.tid, st.run, st.op, 0)


def alloc(st, tag, b):
    if tag & 0x08:
        st.tid = b.varint()
    if tag & 0x10:
        st.run = s32(st.run + b.zz())
    if tag & 0x20:
        st.acaller = (st.acaller + b.zz()) & M64
    if tag & 0x80:
        st.afn = b.varint()
    ref = st.afn == FREE and tag & 0x40
    align = 0
    if tag & 0x40:
        k = b.varint()
        if ref:
            st.aptr, size = st.blocks[-1 - k]
        else:
            align = k
    st.ts = (st.ts + b.zz()) & M64
    if not ref:
        st.aptr = (st.aptr + b.zz()) & M64
        size = b.varint()
    if st.afn != FREE:
        st.blocks = (st.blocks + [(st.aptr, size)])[-16:]
    return 13, struct.pack('<QQQQQIIiI', st.ts, st.aptr, size, align, st.acaller, st.tid,
                           st.afn, st.run, 0)


def map_entry(st, tag, b):
    sn = st.snaps
    if not tag & 0x40:
        st.ts = (st.ts + b.zz()) & M64
        st.snap = (st.snap + b.zz()) & 0xffffffff
    if tag & 0x08:                      # a run copied from the snapshot before
        base_snap = (st.snap + b.zz()) & 0xffffffff
        base_n, first, count = b.varint(), b.varint(), b.varint()
        if not sn['started'] or st.snap != sn['cur']:
            st.add_map((0, 0, 0, 0, 0, st.snap, 0, 0, 0), b'')   # starts the snapshot
            sn['cur_n'].pop()
        assert sn['base'] == base_snap and len(sn['base_n']) == base_n
        out = []
        for m, path in sn['base_n'][first:first + count]:
            m = (st.ts,) + m[1:5] + (st.snap,) + m[6:]
            st.add_map(m, path)
            out.append((3, mapping(m, path)))
        sn['cursor'] = first + count
        st.mend, st.minode, st.mmaj, st.mmin = m[2], m[4], m[7], m[8]
        return out
    start = (st.mend + b.zz()) & M64
    end = (start + b.varint()) & M64
    offset, prot = b.varint(), b.varint()
    if tag & 0x80:                      # the file of the base's mapping k past the cursor
        k = b.varint()
        if not sn['started'] or st.snap != sn['cur']:
            st.add_map((0, 0, 0, 0, 0, st.snap, 0, 0, 0), b'')   # starts the snapshot
            sn['cur_n'].pop()
        bm, path = sn['base_n'][sn['cursor'] + k]
        st.minode, st.mmaj, st.mmin = bm[4], bm[7], bm[8]
    elif not tag & 0x10:
        st.mmaj, st.mmin, st.minode = b.varint(), b.varint(), b.varint()
    if tag & 0x80:
        pass
    elif tag & 0x20:
        path = st.paths[b.varint()]
    else:
        path = b.cstr()
        if path and len(st.paths) < 256:
            st.paths.append(path)
    st.mend = end
    m = (st.ts, start, end, offset, st.minode, st.snap, prot, st.mmaj, st.mmin)
    st.add_map(m, path)
    return [(3, mapping(m, path))]


def escape(st, tag, b):
    typ = b.varint()
    if tag == 0x08:                     # u64 fields, deltas from the last of the type
        mask = b.varint()
        prev = st.prev[typ]
        st.ts = (st.ts + b.zz()) & M64
        v = [st.ts] + prev[1:]
        for i in range(1, FIELDS[typ]):
            if mask >> (i - 1) & 1:
                v[i] = (v[i] + b.zz()) & M64
        st.prev[typ] = v
        return typ, struct.pack('<%dQ' % FIELDS[typ], *v)
    n = b.varint()
    b.i += n
    return typ, bytes(b.b[b.i - n:b.i])


def entries(st, data, sizes=None):
    """The records a PACKED payload holds: (type, payload bytes); with sizes (a dict),
    adds the bytes of each record type's entries (after inflating) to it."""
    b = Buf(data)
    if st.version >= 4:
        first = b.byte()
        if first & 2:                   # deflated: the raw length, then raw deflate
            n = b.varint()
            data = zlib.decompress(bytes(data[b.i:]), -15)
            assert len(data) == n
            b = Buf(data)
        if not first & 1:
            st.reset()
    else:
        st.reset()
    st.paths = []
    while b.i < len(b.b):
        at = b.i
        tag = b.byte()
        kind = tag & 7
        if st.version >= 4 and kind == 6:
            out = [alloc(st, tag, b)]
        elif st.version >= 4 and kind == 7:
            out = map_entry(st, tag, b)
        elif st.version >= 4 and kind == 0:
            out = [escape(st, tag, b)]
        else:
            out = [fault_marker(st, tag, b)]
        if sizes is not None:
            k = sizes.setdefault(out[0][0], [0, 0])
            k[0] += len(out)
            k[1] += b.i - at
        yield from out


def unpack(data):
    out = bytearray(data[:16])
    st = State(struct.unpack_from('<I', data, 8)[0])
    off = 16
    while off + 12 <= len(data):
        typ, ln, _ = struct.unpack_from('<III', data, off)
        end = off + 12 + ln
        if typ == 14 and end <= len(data):
            for t, p in entries(st, data[off + 12:end]):
                out += record(t, p)
        else:
            out += data[off:end]
        off = end
    out += data[off:]
    return out


def rewrite(data, change):
    """The trace unpacked, each record's payload replaced by change(type, payload) (the
    same bytes to keep it), its len and crc written anew; a cut record at the end is
    dropped. Returns (bytes, how many change altered)."""
    data = unpack(data)
    out = bytearray(data[:16])
    off, changed = 16, 0
    while off + 12 <= len(data):
        typ, ln, _ = struct.unpack_from('<III', data, off)
        if off + 12 + ln > len(data):
            break
        pay = bytes(data[off + 12:off + 12 + ln])
        new = change(typ, pay)
        changed += new != pay
        out += record(typ, new)
        off += 12 + ln
    return out, changed


NAMES = {1: 'HEADER', 2: 'FAULT', 3: 'MAPPING', 4: 'RUN_BEGIN', 5: 'RUN_END',
         6: 'OP_BEGIN', 7: 'OP_END', 8: 'SAMPLE', 9: 'DROPS', 10: 'NOTE', 11: 'RESIDENT',
         12: 'END', 13: 'ALLOC', 14: 'PACKED (headers, first bytes, deflate)'}


def sizes(data):
    """Prints records and bytes by type: a packed record's entries by theirs, before
    deflate; PACKED's line is what its records add (headers, first bytes) or deflate
    takes away (negative)."""
    got = {}
    st = State(struct.unpack_from('<I', data, 8)[0])
    off = 16
    while off + 12 <= len(data):
        typ, ln, _ = struct.unpack_from('<III', data, off)
        end = off + 12 + ln
        k = got.setdefault(typ, [0, 0])
        k[0] += 1
        k[1] += 12 + ln
        if typ == 14 and end <= len(data):
            inner = {}
            for _ in entries(st, data[off + 12:end], inner):
                pass
            for t, (n, b) in inner.items():
                got.setdefault(t, [0, 0])
                got[t][0] += n
                got[t][1] += b
                k[1] -= b
        off = end
    print('%-40s %9s %10s %6s' % ('records', 'count', 'bytes', 'share'))
    for t in sorted(got):
        n, b = got[t]
        print('%-40s %9d %10d %5.1f %%' % (NAMES.get(t, str(t)), n, b, 100 * b / len(data)))
    print('%-40s %9s %10d' % ('file (16-byte header included)', '', len(data)))


if __name__ == '__main__':
    if sys.argv[1] == '--sizes':
        sizes(open(sys.argv[2], 'rb').read())
        sys.exit(0)
    src, dst = sys.argv[1:3]
    open(dst, 'wb').write(unpack(open(src, 'rb').read()))
