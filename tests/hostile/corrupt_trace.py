#!/usr/bin/env python3
"""Damages one record in the middle of a trace, leaving its CRC as it was, so that the
record fails its check (man arenaprof-trace(5): a 16-byte file header, then records
{u32 type, u32 len, u32 crc} + payload). Prints: faults in the original, the damaged
record's offset, and its size with its header. PACKED records are unpacked first
(unpack_trace.py): the damage is to one fault.

usage: corrupt_trace.py IN OUT payload|length
  payload   flip one bit in the payload of the middle FAULT record (type 2)
  length    set that record's len to 0x00ffffff (under the 16 MiB limit, past the file)
"""
import struct
import sys

from unpack_trace import unpack

src, dst, what = sys.argv[1:4]
data = unpack(open(src, 'rb').read())
off, faults = 16, []
while off + 12 <= len(data):
    typ, ln, _ = struct.unpack_from('<III', data, off)
    if typ == 2:
        faults.append((off, ln))
    off += 12 + ln
o, ln = faults[len(faults) // 2]
if what == 'payload':
    data[o + 12 + 20] ^= 0x40
elif what == 'length':
    struct.pack_into('<I', data, o + 4, 0x00ffffff)
else:
    sys.exit('unknown damage ' + what)
open(dst, 'wb').write(data)
print(len(faults), o, 12 + ln)
