#!/usr/bin/env python3
"""Sums the live XNNPACK blocks a guest dumped (XNNBLOCK lines of xnn_preload.so) by the
function that allocated them, named from the wheel's symbol table.

usage: xnn_sites.py RESULTS SYMTAB      (SYMTAB: 'HEXADDR NAME' lines, sorted; xnn-truth)
Prints 'BYTES BLOCKS FUNCTION' lines, largest first, then the sizes of every block.
"""
import bisect
import collections
import sys

addrs, names = [], []
with open(sys.argv[2]) as f:
    for line in f:
        p = line.split()
        if len(p) == 2:
            addrs.append(int(p[0], 16))
            names.append(p[1])
by = collections.defaultdict(lambda: [0, 0])
blocks = []
with open(sys.argv[1], errors='replace') as f:
    for line in f:
        p = line.split()
        if len(p) == 5 and p[0] == 'XNNBLOCK':
            size, align, site = int(p[1]), int(p[2]), int(p[3], 16)
            i = bisect.bisect_right(addrs, site) - 1
            fn = names[i] if i >= 0 else hex(site)
            by[fn][0] += size
            by[fn][1] += 1
            blocks.append((size, align, fn))
for fn, (b, n) in sorted(by.items(), key=lambda kv: -kv[1][0]):
    print(b, n, fn)
print('#blocks')
for size, align, fn in sorted(blocks, reverse=True):
    print(size, align, fn)
