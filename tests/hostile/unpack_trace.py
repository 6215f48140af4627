#!/usr/bin/env python3
"""Rewrites a trace's PACKED records (type 14, man arenaprof-trace(5), format 2) as the
plain FAULT and marker records they hold, each with its CRC, so that the tools here that
edit records one at a time can reach every fault. A second decoder of the format, written
from the man page: test_hostile.sh checks that report says the same of both files.

usage: unpack_trace.py IN OUT     (also imported: unpack(bytes) -> bytearray)
"""
import struct
import sys
import zlib

M64 = (1 << 64) - 1


def record(typ, payload):
    hdr = struct.pack('<II', typ, len(payload))
    return hdr + struct.pack('<I', zlib.crc32(payload, zlib.crc32(hdr))) + payload


def varint(b, i):
    x = shift = 0
    while True:
        c = b[i]
        i += 1
        x |= (c & 0x7f) << shift
        shift += 7
        if not c & 0x80:
            return x & M64, i


def unzigzag(z):
    return (z >> 1) ^ (-(z & 1) & M64)


def s32(v):
    v &= 0xffffffff
    return v - (1 << 32) if v & 0x80000000 else v


def entries(b):
    """The records a PACKED payload holds: (type, payload bytes)."""
    ts = addr = ip = vs = ve = vf = tid = flags = 0
    run = op = -1
    i = 0
    while i < len(b):
        tag = b[i]
        i += 1
        kind = tag & 7
        if tag & 0x08:
            tid, i = varint(b, i)
        if tag & 0x10:
            z, i = varint(b, i)
            run = s32(run + unzigzag(z))
            z, i = varint(b, i)
            op = s32(op + unzigzag(z))
        if tag & 0x20:
            z, i = varint(b, i)
            ip = (ip + unzigzag(z)) & M64
        if tag & 0x40:
            z, i = varint(b, i)
            vs = (vs + unzigzag(z)) & M64
            span, i = varint(b, i)
            ve = (vs + span) & M64
            vf, i = varint(b, i)
        if tag & 0x80:
            flags, i = varint(b, i)
        z, i = varint(b, i)
        ts = (ts + unzigzag(z)) & M64
        if kind == 1:
            z, i = varint(b, i)
            addr = (addr + unzigzag(z)) & M64
            yield 2, struct.pack('<QQQQQQIIii', ts, addr, ip, vs, ve, vf, tid, flags, run, op)
        else:
            yield kind + 2, struct.pack('<QIiiI', ts, tid, run, op, 0)


def unpack(data):
    out = bytearray(data[:16])
    off = 16
    while off + 12 <= len(data):
        typ, ln, _ = struct.unpack_from('<III', data, off)
        end = off + 12 + ln
        if typ == 14 and end <= len(data):
            for t, p in entries(data[off + 12:end]):
                out += record(t, p)
        else:
            out += data[off:end]
        off = end
    out += data[off:]
    return out


if __name__ == '__main__':
    src, dst = sys.argv[1:3]
    open(dst, 'wb').write(unpack(open(src, 'rb').read()))
