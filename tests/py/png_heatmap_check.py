#!/usr/bin/env python3
"""Reads a heatmap PNG back against the CSV of the same matrix.

The PNG's "arenaprof:plot" tEXt chunk gives the plot's geometry. Every cell whose CSV
count is non-zero must be drawn in a colour of the scale, every zero cell in one of the
background colours (white, the row stripe, the faint plan over either, the dashed end of the planned arena). Every labelled
row must have ink in the label column, and the axis its tick labels.

  png_heatmap_check.py PNG CSV      prints 'ok ...' and exits 0, or the first mismatch, 1
"""
import csv
import sys

from PIL import Image


def blend(fg, bg, a):
    return tuple((f * a + b * (255 - a) + 127) // 255 for f, b in zip(fg, bg))


def main():
    im = Image.open(sys.argv[1])
    im.load()
    x0, y0, cw, ch, cols, rows = (int(v) for v in im.info['arenaprof:plot'].split())
    table = list(csv.reader(open(sys.argv[2])))[1:]
    if (len(table), len(table[0]) - 2) != (rows, cols):
        print('geometry %dx%d, CSV %dx%d' % (rows, cols, len(table), len(table[0]) - 2))
        return 1
    white, stripe, plan = (255, 255, 255), (243, 243, 243), (184, 199, 217)
    background = {white, stripe, blend(plan, white, 115), blend(plan, stripe, 115), (204, 0, 0)}
    blue = (11, 79, 156)   # the widest operator's outlines, drawn over the cells
    px = im.convert('RGB').load()
    hidden = 0
    for r, row in enumerate(table):
        for c, v in enumerate(row[2:]):
            seen = {px[x, y] for x in range(x0 + c * cw, x0 + (c + 1) * cw)
                    for y in range(y0 + r * ch, y0 + (r + 1) * ch)} - {blue}
            if not seen:
                hidden += 1   # wholly under an outline: cannot be read back
                continue
            if (int(v) != 0) != bool(seen - background):
                print('row %d col %d: count %s, pixels %s' % (r, c, v, sorted(seen)))
                return 1
    if hidden * 20 > rows * cols:
        print('%d of %d cells hidden under outlines' % (hidden, rows * cols))
        return 1
    every = 1 if ch >= 10 else -(-10 // ch)
    for r in range(0, rows, every):
        ink = any(sum(px[x, y]) < 300 for x in range(8, x0 - 6)
                  for y in range(y0 + r * ch, min(y0 + (r + 1) * ch, im.size[1])))
        if not ink:
            print('row %d: no label drawn' % r)
            return 1
    axis = y0 + rows * ch
    if not any(sum(px[x, y]) < 300 for x in range(x0, x0 + cols * cw) for y in range(axis + 6, axis + 16)):
        print('no tick labels under the plot')
        return 1
    print('ok %dx%d cells (%d under outlines), %d labelled rows, title %r' % (
        rows, cols, hidden, len(range(0, rows, every)),
                                                        im.info.get('Title', '')[:40]))
    return 0


sys.exit(main())
