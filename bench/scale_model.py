#!/usr/bin/env python3
"""Writes a large .tflite of a given shape and operator count, for timing `arenaprof plan`.

usage: scale_model.py SHAPE N OUT

  chain        N operators in a line: FULLY_CONNECTED, TANH, LOGISTIC repeated, the width
               cycling 16, 32, 48, 64 floats (at most two activations live at a time)
  fanin        N - 1 ADDs of four graph inputs (8, 23, 40, 64 floats), every output live
               into one CONCATENATION: N activations live at once
  fanin-fc     the same with FULLY_CONNECTEDs, each adding LiteRT's 6 kernel tensors
               (0 bytes for a float filter): 6 (N - 1) zero-size tensors more
  residual     blocks of LOGISTIC, MUL, ADD (h + sigmoid(h) * h) over 32 floats; every 8th
               block adds the output of 8 blocks before instead of its own input:
               in-place sharing and short skips
  unet         N / 2 TANHs down, every output kept, then ADDs up that read them back in
               reverse: nested lifetimes, N / 2 activations live in the middle
  transformer  blocks of 11 operators over 8 tokens of 16 floats: FULLY_CONNECTED q, k, v,
               BATCH_MATMUL q k^T, SOFTMAX, BATCH_MATMUL by v, FULLY_CONNECTED out, ADD,
               FULLY_CONNECTED (RELU) to 32, FULLY_CONNECTED back to 16, ADD

Every shape has exactly N operators (a shape's last block is filled with LOGISTICs);
weights are shared between blocks, so the file grows with the operators alone. The
operators are LiteRT builtins with static float32 shapes: LiteRT plans these files too.
Deterministic: the same bytes for the same arguments. Python 3 standard library only; the
flatbuffer writer is tests/hostile/make_model.py's.
"""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'tests',
                                'hostile'))
from make_model import Builder  # noqa: E402

FLOAT32 = 0
ADD, CONCATENATION, FULLY_CONNECTED, LOGISTIC, MUL = 0, 2, 9, 14, 18
SOFTMAX, TANH, BATCH_MATMUL = 25, 28, 126
# BuiltinOptions union: (type id, [(field id, format, value)])
OPT_NONE = (0, None)
OPT_FC = (8, [(0, 'b', 0)])
OPT_FC_RELU = (8, [(0, 'b', 1)])
OPT_SOFTMAX = (9, [(0, 'f', 1.0)])
OPT_CONCAT = (10, [(0, 'i', 1), (1, 'b', 0)])
OPT_ADD = (11, [(0, 'b', 0)])
OPT_MUL = (21, [(0, 'b', 0)])
OPT_BMM = (101, [(0, 'B', 0), (1, 'B', 0)])
OPT_BMM_ADJ_Y = (101, [(0, 'B', 0), (1, 'B', 1)])


class Graph:
    """One subgraph: tensors (name, shape, buffer), operators (code, in, out, options)."""

    def __init__(self):
        self.tensors = []
        self.buffers = [b'']  # buffer 0: the empty sentinel
        self.ops = []
        self.inputs = []
        self.outputs = []

    def tensor(self, name, shape, data=None):
        buf = 0
        if data is not None:
            buf = len(self.buffers)
            self.buffers.append(data)
        self.tensors.append((name, shape, buf))
        return len(self.tensors) - 1

    def weights(self, name, shape):
        n = 1
        for d in shape:
            n *= d
        data = b''.join(struct.pack('<f', ((i * 7919) % 17 - 8) / 64.0) for i in range(n))
        return self.tensor(name, shape, data)

    def op(self, code, ins, outs, opt=OPT_NONE):
        self.ops.append((code, ins, outs, opt))


def write(g):
    codes = sorted({op[0] for op in g.ops})
    code_index = {c: i for i, c in enumerate(codes)}
    f = Builder()
    f.u32(0)
    f.put(b'TFL3')
    root, r = f.table([(0, 'I', 3), (1, 'ref', 0), (2, 'ref', 0), (4, 'ref', 0)])
    f.link(0, root)
    cv = f.refs(len(codes))
    f.link(r[1], cv)
    for i, c in enumerate(codes):
        t, _ = f.table([(0, 'b', min(c, 127)), (2, 'i', 1), (3, 'i', c)])
        f.link(cv + 4 + 4 * i, t)
    sgs = f.refs(1)
    f.link(r[2], sgs)
    sg, s = f.table([(0, 'ref', 0), (1, 'ref', 0), (2, 'ref', 0), (3, 'ref', 0)])
    f.link(sgs + 4, sg)
    f.link(s[1], f.ints(g.inputs))
    f.link(s[2], f.ints(g.outputs))
    tv = f.refs(len(g.tensors))
    f.link(s[0], tv)
    for i, (name, shape, buf) in enumerate(g.tensors):
        fields = [(0, 'ref', 0), (1, 'B', FLOAT32), (3, 'ref', 0)]
        if buf:
            fields.append((2, 'I', buf))
        t, tr = f.table(fields)
        f.link(tv + 4 + 4 * i, t)
        f.link(tr[0], f.ints(shape))
        f.link(tr[3], f.string(name))
    ov = f.refs(len(g.ops))
    f.link(s[3], ov)
    opt_slots = {}  # options shared by every operator that has the same: written last
    for i, (code, ins, outs, opt) in enumerate(g.ops):
        fields = [(0, 'I', code_index[code]), (1, 'ref', 0), (2, 'ref', 0)]
        if opt[0]:
            fields += [(3, 'B', opt[0]), (4, 'ref', 0)]
        t, tr = f.table(fields)
        f.link(ov + 4 + 4 * i, t)
        f.link(tr[1], f.ints(ins))
        f.link(tr[2], f.ints(outs))
        if opt[0]:
            opt_slots.setdefault(repr(opt), (opt, []))[1].append(tr[4])
    for opt, slots in opt_slots.values():
        t, _ = f.table(opt[1])
        for at in slots:
            f.link(at, t)
    bv = f.refs(len(g.buffers))
    f.link(r[4], bv)
    for i, data in enumerate(g.buffers):
        t, tr = f.table([(0, 'ref', 0)] if data else [])
        f.link(bv + 4 + 4 * i, t)
        if data:
            f.align(16)
            f.put(bytes(12))  # the data itself 16-byte aligned, after its length
            f.link(tr[0], f.u32(len(data)))
            f.put(data)
    return bytes(f.b)


def fill(g, x, shape, n):
    """LOGISTICs up to n operators in all; returns the last tensor."""
    while len(g.ops) < n:
        y = g.tensor('fill%d' % len(g.ops), shape)
        g.op(LOGISTIC, [x], [y])
        x = y
    return x


def chain(g, n):
    widths = [16, 32, 48, 64]
    w = {k: g.weights('w%d' % k, [widths[(k + 1) % 4], widths[k]]) for k in range(4)}
    x = g.tensor('in', [1, widths[0]])
    g.inputs = [x]
    for i in range(n):
        k = (i // 3) % 4
        if i % 3 == 0:
            y = g.tensor('fc%d' % i, [1, widths[(k + 1) % 4]])
            g.op(FULLY_CONNECTED, [x, w[k], -1], [y], OPT_FC)
        else:
            y = g.tensor('act%d' % i, [1, widths[(k + 1) % 4]])
            g.op(TANH if i % 3 == 1 else LOGISTIC, [x], [y])
        x = y
    g.outputs = [x]


def fanin(g, n, fc=False):
    widths = [8, 23, 40, 64]
    xs = [g.tensor('in%d' % k, [1, widths[k]]) for k in range(4)]
    ws = [g.weights('w%d' % k, [widths[k], widths[k]]) for k in range(4)] if fc else []
    g.inputs = xs
    ys = []
    for i in range(n - 1):
        k = i % 4
        y = g.tensor('y%d' % i, [1, widths[k]])
        if fc:
            g.op(FULLY_CONNECTED, [xs[k], ws[k], -1], [y], OPT_FC)
        else:
            g.op(ADD, [xs[k], xs[k]], [y], OPT_ADD)
        ys.append(y)
    ys = ys or xs
    out = g.tensor('concat', [1, sum(widths[i % 4] for i in range(len(ys)))])
    g.op(CONCATENATION, ys, [out], OPT_CONCAT)
    g.outputs = [out]


def residual(g, n):
    shape = [1, 32]
    h = g.tensor('in', shape)
    g.inputs = [h]
    outs = [h]
    b = 0
    while len(g.ops) + 3 <= n:
        a = g.tensor('sig%d' % b, shape)
        g.op(LOGISTIC, [h], [a])
        m = g.tensor('mul%d' % b, shape)
        g.op(MUL, [a, h], [m], OPT_MUL)
        h2 = g.tensor('res%d' % b, shape)
        g.op(ADD, [h, m] if b % 8 or b < 8 else [outs[-8], m], [h2], OPT_ADD)
        h = h2
        outs.append(h)
        b += 1
    g.outputs = [fill(g, h, shape, n)]


def unet(g, n):
    shape = [1, 32]
    d = [g.tensor('in', shape)]
    g.inputs = [d[0]]
    for i in range(n // 2):
        y = g.tensor('down%d' % i, shape)
        g.op(TANH, [d[-1]], [y])
        d.append(y)
    u = d[-1]
    for j in range(n - n // 2):
        y = g.tensor('up%d' % j, shape)
        g.op(ADD, [u, d[max(len(d) - 2 - j, 0)]], [y], OPT_ADD)
        u = y
    g.outputs = [u]


def transformer(g, n):
    seq, dm, ff = 8, 16, 32
    wq, wk, wv, wo = (g.weights('w' + c, [dm, dm]) for c in 'qkvo')
    w1, w2 = g.weights('w1', [ff, dm]), g.weights('w2', [dm, ff])
    x = g.tensor('in', [seq, dm])
    g.inputs = [x]
    b = 0
    while len(g.ops) + 11 <= n:
        def t(name, shape):
            return g.tensor('b%d.%s' % (b, name), shape)

        q, k, v = t('q', [seq, dm]), t('k', [seq, dm]), t('v', [seq, dm])
        for y, w in ((q, wq), (k, wk), (v, wv)):
            g.op(FULLY_CONNECTED, [x, w, -1], [y], OPT_FC)
        s, p, a = t('scores', [seq, seq]), t('probs', [seq, seq]), t('attn', [seq, dm])
        g.op(BATCH_MATMUL, [q, k], [s], OPT_BMM_ADJ_Y)
        g.op(SOFTMAX, [s], [p], OPT_SOFTMAX)
        g.op(BATCH_MATMUL, [p, v], [a], OPT_BMM)
        o, x1 = t('proj', [seq, dm]), t('res1', [seq, dm])
        g.op(FULLY_CONNECTED, [a, wo, -1], [o], OPT_FC)
        g.op(ADD, [x, o], [x1], OPT_ADD)
        h, f, x2 = t('ff1', [seq, ff]), t('ff2', [seq, dm]), t('res2', [seq, dm])
        g.op(FULLY_CONNECTED, [x1, w1, -1], [h], OPT_FC_RELU)
        g.op(FULLY_CONNECTED, [h, w2, -1], [f], OPT_FC)
        g.op(ADD, [x1, f], [x2], OPT_ADD)
        x = x2
        b += 1
    g.outputs = [fill(g, x, [seq, dm], n)]


SHAPES = {
    'chain': chain,
    'fanin': fanin,
    'fanin-fc': lambda g, n: fanin(g, n, fc=True),
    'residual': residual,
    'unet': unet,
    'transformer': transformer,
}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in SHAPES:
        sys.exit('usage: scale_model.py %s N OUT' % '|'.join(SHAPES))
    n = int(sys.argv[2])
    if n < 1:
        sys.exit('scale_model.py: N must be at least 1')
    g = Graph()
    SHAPES[sys.argv[1]](g, n)
    assert len(g.ops) == n, (len(g.ops), n)
    with open(sys.argv[3], 'wb') as out:
        out.write(write(g))


if __name__ == '__main__':
    main()
