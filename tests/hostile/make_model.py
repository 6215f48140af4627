#!/usr/bin/env python3
"""Writes small hostile .tflite models (flatbuffers written by hand, schema.fbs field ids).

usage: make_model.py KIND OUT
  huge-tensor   one COMPLEX128 input tensor of shape [2^29, 2^30]: 2^63 bytes
  huge-sum      two FLOAT32 tensors of shape [2^27, 2^27]: 2^56 bytes each, the most one
                tensor may hold, 2^57 together
  lstm-N        N LSTM operators (full kernel: Init reserves 21 tensors each) that all
                share one operator table, so each costs 4 bytes of file
  ulstm-N       the same with N UNIDIRECTIONAL_SEQUENCE_LSTM operators (Init reserves
                12 tensors each) and no options
"""
import struct
import sys


class Builder:
    """Front to back, like tests/unit/model_fixture.h: a uoffset points forward, so what a
    reference names is written after it and linked with link()."""

    def __init__(self):
        self.b = bytearray()

    def align(self, a):
        self.b += bytes(-len(self.b) % a)

    def put(self, data):
        at = len(self.b)
        self.b += data
        return at

    def u32(self, v):
        self.align(4)
        return self.put(struct.pack('<I', v & 0xffffffff))

    def link(self, at, target):
        assert target > at
        struct.pack_into('<I', self.b, at, target - at)

    def table(self, fields):
        """fields: [(id, fmt or 'ref', value)]; returns (table pos, {id: ref slot})."""
        max_id = max([f[0] for f in fields], default=-1)
        vt_len = 4 + 2 * (max_id + 1)
        self.align(4)
        vt = self.put(bytes(vt_len))
        self.align(8)
        pos = self.u32(0)
        struct.pack_into('<i', self.b, pos, pos - vt)
        refs = {}
        for fid, fmt, val in fields:
            f = '<I' if fmt == 'ref' else '<' + fmt
            self.align(struct.calcsize(f))
            at = self.put(struct.pack(f, 0 if fmt == 'ref' else val))
            if fmt == 'ref':
                refs[fid] = at
            struct.pack_into('<H', self.b, vt + 4 + 2 * fid, at - pos)
        struct.pack_into('<HH', self.b, vt, vt_len, len(self.b) - pos)
        return pos, refs

    def ints(self, v):
        at = self.u32(len(v))
        for x in v:
            self.put(struct.pack('<i', x))
        return at

    def string(self, s):
        at = self.u32(len(s))
        self.put(s.encode() + b'\0')
        return at

    def refs(self, n):
        at = self.u32(n)
        for _ in range(n):
            self.put(bytes(4))
        return at


def model(tensors, ops, opcodes, inputs, outputs):
    """tensors: [(name, type, shape)]; ops: (count, opcode index, options type, options
    fields) all sharing one table; opcodes: [builtin code]."""
    f = Builder()
    f.u32(0)
    f.put(b'TFL3')
    root, r = f.table([(0, 'I', 3), (1, 'ref', 0), (2, 'ref', 0), (4, 'ref', 0)])
    f.link(0, root)
    codes = f.refs(len(opcodes))
    f.link(r[1], codes)
    for i, c in enumerate(opcodes):
        t, _ = f.table([(0, 'b', min(c, 127)), (2, 'i', 1), (3, 'i', c)])
        f.link(codes + 4 + 4 * i, t)
    bufs = f.refs(1)
    f.link(r[4], bufs)
    t, _ = f.table([])
    f.link(bufs + 4, t)
    sgs = f.refs(1)
    f.link(r[2], sgs)
    sg, s = f.table([(0, 'ref', 0), (1, 'ref', 0), (2, 'ref', 0), (3, 'ref', 0)])
    f.link(sgs + 4, sg)
    f.link(s[1], f.ints(inputs))
    f.link(s[2], f.ints(outputs))
    tv = f.refs(len(tensors))
    f.link(s[0], tv)
    for i, (name, typ, shape) in enumerate(tensors):
        t, tr = f.table([(0, 'ref', 0), (1, 'B', typ), (3, 'ref', 0)])
        f.link(tv + 4 + 4 * i, t)
        f.link(tr[0], f.ints(shape))
        f.link(tr[3], f.string(name))
    count, code, opt_type, opt_fields = ops
    ov = f.refs(count)
    f.link(s[3], ov)
    if count:
        fields = [(0, 'I', code)]
        if opt_type:
            fields += [(3, 'B', opt_type), (4, 'ref', 0)]
        t, tr = f.table(fields)
        if opt_type:
            f.link(tr[4], f.table(opt_fields)[0])
        for i in range(count):
            f.link(ov + 4 + 4 * i, t)
    return bytes(f.b)


FLOAT32, COMPLEX128 = 0, 11
LSTM, OPT_LSTM, ULSTM = 16, 14, 44


def main():
    kind, out = sys.argv[1], sys.argv[2]
    if kind == 'huge-tensor':
        data = model([('huge', COMPLEX128, [1 << 29, 1 << 30]), ('out', FLOAT32, [4])],
                     (0, 0, 0, []), [], [0], [1])
    elif kind == 'huge-sum':
        data = model([('a', FLOAT32, [1 << 27, 1 << 27]), ('b', FLOAT32, [1 << 27, 1 << 27])],
                     (0, 0, 0, []), [], [0], [1])
    elif kind.startswith('lstm-'):
        # LSTMOptions.kernel_type (field 3) FULL = 0: lstm.cc Init reserves 21 tensors
        data = model([('in', FLOAT32, [1, 4])], (int(kind[5:]), 0, OPT_LSTM, [(3, 'B', 0)]),
                     [LSTM], [0], [0])
    elif kind.startswith('ulstm-'):
        data = model([('in', FLOAT32, [1, 4])], (int(kind[6:]), 0, 0, []), [ULSTM], [0], [0])
    else:
        sys.exit('unknown kind ' + kind)
    open(out, 'wb').write(data)


if __name__ == '__main__':
    main()
