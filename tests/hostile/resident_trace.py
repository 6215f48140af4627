#!/usr/bin/env python3
"""Writes a trace (man arenaprof-trace(5)) whose one RESIDENT record claims every page of
a huge mapping resident: the cost of reading it must follow the record's size, not the
span it names.

usage: resident_trace.py OUT SPAN_GIB BITMAP_KIB [COPIES]
  a HEADER (4 KiB pages), COPIES (default 1) RESIDENT records for the mapping
  [0x7f0000000000, + SPAN_GIB GiB) with a BITMAP_KIB KiB all-ones bitmap, a FAULT in it,
  and an END record
"""
import struct
import sys
import zlib


def rec(typ, payload):
    hdr = struct.pack('<II', typ, len(payload))
    return hdr + struct.pack('<I', zlib.crc32(payload, zlib.crc32(hdr))) + payload


out, gib, kib = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
copies = int(sys.argv[4]) if len(sys.argv) > 4 else 1
start = 0x7f0000000000
end = start + (gib << 30)
bits = b'\xff' * (kib << 10)
data = b'APTRACE\0' + struct.pack('<II', 1, 0)
strings = b'x86_64\0' + b'6.1.0\0' + b'tp\0' + b'hostile\0' + b'\0' + b'\0'
data += rec(1, struct.pack('<IIQQiI', 4096, 0, 1, 1, 4242, 0) + strings)
for _ in range(copies):
    data += rec(11, struct.pack('<QQQQ', 2, start, end, len(bits) * 8) + bits)
# a fault on the first page: resident at attach, so not a first touch
data += rec(2, struct.pack('<QQQQQQIIii', 3, start, 0, start, end, 0x3, 1, 0, -1, -1))
data += rec(12, struct.pack('<QIiiI', 4, 0, 0, 0, 0))
open(out, 'wb').write(data)
