#!/usr/bin/env python3
"""Renames a mapping's file in a trace: every MAPPING record (type 3) whose path is OLD
gets NEW (the record's len and crc fixed), so a hostile trace can name any file, e.g. a
FIFO, as the file a mapping came from (man arenaprof-trace(5): records {u32 type, u32 len,
u32 crc} + payload; a MAPPING payload is 56 bytes of fields, then the path and a NUL).
PACKED records are unpacked first (unpack_trace.py): format 4 packs mappings too.

usage: rename_path.py IN OUT OLD NEW
"""
import sys

from unpack_trace import rewrite

src, dst, old, new = sys.argv[1], sys.argv[2], sys.argv[3].encode(), sys.argv[4].encode()


def rename(typ, pay):
    if typ == 3 and len(pay) > 56 and pay[56:].rstrip(b'\0') == old:
        return pay[:56] + new + b'\0'
    return pay


out, renamed = rewrite(open(src, 'rb').read(), rename)
open(dst, 'wb').write(out)
print(renamed)
