#!/usr/bin/env python3
"""Renames a mapping's file in a trace: every MAPPING record (type 3) whose path is OLD
gets NEW (the record's len and crc fixed), so a hostile trace can name any file, e.g. a
FIFO, as the file a mapping came from (man arenaprof-trace(5): records {u32 type, u32 len,
u32 crc} + payload; a MAPPING payload is 56 bytes of fields, then the path and a NUL).
PACKED records are unpacked first (unpack_trace.py): format 4 packs mappings too.

usage: rename_path.py IN OUT OLD NEW
"""
import struct
import sys
import zlib

from unpack_trace import unpack

src, dst, old, new = sys.argv[1], sys.argv[2], sys.argv[3].encode(), sys.argv[4].encode()
data = unpack(open(src, 'rb').read())
out = bytearray(data[:16])
off, renamed = 16, 0
while off + 12 <= len(data):
    typ, ln, _ = struct.unpack_from('<III', data, off)
    if off + 12 + ln > len(data):
        break
    pay = data[off + 12:off + 12 + ln]
    if typ == 3 and ln > 56 and pay[56:].rstrip(b'\0') == old:
        pay = pay[:56] + new + b'\0'
        renamed += 1
    hdr = struct.pack('<II', typ, len(pay))
    out += hdr + struct.pack('<I', zlib.crc32(pay, zlib.crc32(hdr))) + pay
    off += 12 + ln
open(dst, 'wb').write(out)
print(renamed)
