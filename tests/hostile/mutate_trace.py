#!/usr/bin/env python3
"""Rewrites fields of a trace's records and fixes their CRCs, making a hostile trace
whose records all pass their check (man arenaprof-trace(5): a 16-byte file header, then
records {u32 type, u32 len, u32 crc} + payload; crc is zlib's crc32 of type, len, payload).
PACKED records are unpacked first (unpack_trace.py), so every fault is a record to edit.

usage: mutate_trace.py IN OUT WHAT=VALUE...
  fault.run=N / fault.op=N   every FAULT record (type 2): run at payload offset 56, op 60
  run.run=N                  every RUN_BEGIN/RUN_END record (types 4, 5): run at offset 12
  op.op=N                    every OP_BEGIN/OP_END record (types 6, 7): op at offset 16
  fault.vm_span=N            every FAULT record whose vma is known: vm_end (offset 32)
                             becomes vm_start (offset 24) + N, a vma of N bytes
"""
import struct
import sys

from unpack_trace import unpack
import zlib

FIELDS = {'fault.run': ((2,), 56), 'fault.op': ((2,), 60), 'run.run': ((4, 5), 12),
          'op.op': ((6, 7), 16), 'fault.vm_span': ((2,), 'span')}
src, dst = sys.argv[1], sys.argv[2]
edits = []
for arg in sys.argv[3:]:
    k, v = arg.split('=')
    edits.append((FIELDS[k], int(v)))
data = unpack(open(src, 'rb').read())
off = 16
while off + 12 <= len(data):
    typ, ln, _ = struct.unpack_from('<III', data, off)
    if off + 12 + ln > len(data):
        break
    pay = off + 12
    for (types, at), v in edits:
        if at == 'span':
            start, end = struct.unpack_from('<QQ', data, pay + 24) if typ == 2 else (0, 0)
            if end > start:
                struct.pack_into('<Q', data, pay + 32, (start + v) & (1 << 64) - 1)
        elif typ in types and at + 4 <= ln:
            struct.pack_into('<i', data, pay + at, v)
    crc = zlib.crc32(bytes(data[off:off + 8]))
    crc = zlib.crc32(bytes(data[pay:pay + ln]), crc)
    struct.pack_into('<I', data, off + 8, crc)
    off = pay + ln
open(dst, 'wb').write(data)
