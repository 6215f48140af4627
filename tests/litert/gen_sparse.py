"""gen_models.py's models with int4 and sparse weights."""

from gen_builder import *  # noqa: F401,F403
from gen_rnn import lstm_op, lstm_state

def pack_int4(q):
    """int4 values, two per byte, the first in the low nibble (LiteRT's packing)."""
    q = np.asarray(q, dtype=np.int8).reshape(-1)
    if q.size % 2:
        q = np.append(q, np.int8(0))
    return ((q[0::2] & 0x0F) | ((q[1::2] & 0x0F) << 4)).astype(np.uint8)


def fc_int4_layer(g, name, x, batch, cols, units, seed):
    rng = np.random.default_rng(seed)
    q = rng.integers(-7, 8, size=[units, cols], dtype=np.int8)
    w = g.tensor(name + "/weights", [units, cols], TT.INT4, pack_int4(q), scales=[0.05])
    y = g.tensor(name, [batch, units], TT.FLOAT32)
    g.op(OP.FULLY_CONNECTED, [x, w, -1], [y], OPT.FullyConnectedOptions,
         fb.FullyConnectedOptionsT())
    return y


def fc_int4(path):
    m, g = main_graph("arenaprof generated: FULLY_CONNECTED with int4 filters")
    x = g.tensor("input", [3, 40], TT.FLOAT32)
    # the 4-bit path: 40 cols padded to 64, 18 units to 20, 3 rows to 4 (2 at a time)
    y0 = fc_int4_layer(g, "fc4bit", x, 3, 40, 18, 110)
    # 18 cols (< 32): the standard hybrid temporaries
    y1 = fc_int4_layer(g, "fchybrid", y0, 3, 18, 8, 111)
    # 5 rows: 4 at a time, padded to 8; 6 units to 8
    x5 = g.tensor("input5", [5, 64], TT.FLOAT32)
    y5 = fc_int4_layer(g, "fc4bit5", x5, 5, 64, 6, 112)
    # 1 row, 32 cols, 4 units: nothing rounded
    x1 = g.tensor("input1", [1, 32], TT.FLOAT32)
    y2 = fc_int4_layer(g, "fc4bit1", x1, 1, 32, 4, 113)
    # misses the 4-bit path: odd cols, then 3 units
    x3 = g.tensor("input3", [1, 33], TT.FLOAT32)
    y3 = fc_int4_layer(g, "fcodd", x3, 1, 33, 4, 114)
    y4 = fc_int4_layer(g, "fcnarrow", x1, 1, 32, 3, 115)
    finish(m, g, [x, x5, x1, x3], [y1, y5, y2, y3, y4], path)


def index_vector(values, small):
    """A SparseIndexVector: Uint8Vector or Uint16Vector when small, else Int32Vector."""
    if not small:
        v, t = fb.Int32VectorT(), fb.SparseIndexVector.Int32Vector
    elif max(values, default=0) < 256:
        v, t = fb.Uint8VectorT(), fb.SparseIndexVector.Uint8Vector
    else:
        v, t = fb.Uint16VectorT(), fb.SparseIndexVector.Uint16Vector
    v.values = values
    return v, t


def csr_sparsity(dense, small=False):
    """SparsityParameters of a 2-D matrix: dim 0 dense, dim 1 CSR; and its values."""
    segments, indices = [0], []
    for row in dense:
        nz = np.nonzero(row)[0]
        indices.extend(int(i) for i in nz)
        segments.append(len(indices))
    s = fb.SparsityParametersT()
    s.traversalOrder = [0, 1]
    d0 = fb.DimensionMetadataT()
    d0.format = fb.DimensionType.DENSE
    d0.denseSize = dense.shape[0]
    d1 = fb.DimensionMetadataT()
    d1.format = fb.DimensionType.SPARSE_CSR
    d1.arraySegments, d1.arraySegmentsType = index_vector(segments, small)
    d1.arrayIndices, d1.arrayIndicesType = index_vector(indices, small)
    s.dimMetadata = [d0, d1]
    return s, dense[dense != 0]


def fc_sparse_layer(g, name, x, batch, cols, units, wtype, seed, small=False):
    dense = weights([units, cols], np.int8 if wtype == TT.INT8 else np.float32, seed)
    rng = np.random.default_rng(seed + 1)
    dense[rng.random([units, cols]) < 0.7] = 0
    s, values = csr_sparsity(dense, small)
    w = g.tensor(name + "/weights", [units, cols], wtype, values,
                 scales=[0.02] if wtype == TT.INT8 else None)
    g.g.tensors[w].sparsity = s
    y = g.tensor(name, [batch, units], TT.FLOAT32)
    g.op(OP.FULLY_CONNECTED, [x, w, -1], [y], OPT.FullyConnectedOptions,
         fb.FullyConnectedOptionsT())
    return y


def fc_sparse(path):
    m, g = main_graph("arenaprof generated: FULLY_CONNECTED with sparse filters")
    x = g.tensor("input", [2, 32], TT.FLOAT32)
    y0 = fc_sparse_layer(g, "fcfloat", x, 2, 32, 24, TT.FLOAT32, 120)
    # hybrid: the 6th temporary, the ledger, is persistent
    y1 = fc_sparse_layer(g, "fchybrid", y0, 2, 24, 16, TT.INT8, 122)
    # the index vectors as Uint16Vector segments (> 255 values) and Uint8Vector indices
    x2 = g.tensor("input2", [1, 40], TT.FLOAT32)
    y2 = fc_sparse_layer(g, "fcsmall", x2, 1, 40, 24, TT.INT8, 124, small=True)
    finish(m, g, [x, x2], [y1, y2], path)


def dense_sparsity(sizes):
    """SparsityParameters whose every dim is DENSE (the given sizes, in order): a format
    LiteRT's sparse kernels read index vectors from that are not there."""
    s = fb.SparsityParametersT()
    s.traversalOrder = list(range(len(sizes)))
    s.dimMetadata = []
    for size in sizes:
        d = fb.DimensionMetadataT()
        d.format = fb.DimensionType.DENSE
        d.denseSize = size
        s.dimMetadata.append(d)
    return s


def block_sparsity(dense):
    """SparsityParameters of a 2-D matrix in blocks of 1x16, the layout the sparse hybrid
    LSTM multiplies: dim 0 dense, dim 1 CSR over the blocks, the block dense; and the
    values of its nonzero blocks."""
    rows, cols = dense.shape
    blocks = dense.reshape(rows, cols // 16, 16)
    segments, indices, values = [0], [], []
    for row in blocks:
        for i, block in enumerate(row):
            if block.any():
                indices.append(i)
                values.append(block)
        segments.append(len(indices))
    s = fb.SparsityParametersT()
    s.traversalOrder = [0, 1, 2]
    s.blockMap = [1]
    d0, d1, d2 = (fb.DimensionMetadataT() for _ in range(3))
    d0.format = d2.format = fb.DimensionType.DENSE
    d0.denseSize = rows
    d2.denseSize = 16
    d1.format = fb.DimensionType.SPARSE_CSR
    d1.arraySegments, d1.arraySegmentsType = index_vector(segments, False)
    d1.arrayIndices, d1.arrayIndicesType = index_vector(indices, True)
    s.dimMetadata = [d0, d1, d2]
    return s, np.concatenate(values)


def sparse_weights(g, name, shape, seed, sparse):
    """int8 weights, half their 1x16 blocks zero; block sparse unless sparse is False."""
    dense = weights(shape, np.int8, seed)
    rng = np.random.default_rng(seed + 1)
    dense.reshape(shape[0], -1, 16)[rng.random([shape[0], shape[1] // 16]) < 0.5] = 0
    if not sparse:
        return g.tensor(name, shape, TT.INT8, dense, scales=[0.02])
    s, values = block_sparsity(dense)
    w = g.tensor(name, shape, TT.INT8, values, scales=[0.02])
    g.g.tensors[w].sparsity = s
    return w


def lstm_sparse_layer(g, name, x, batch, n_in, n_cell, n_out, seed, cifg, dense=()):
    """A hybrid LSTM node (the full kernel) projected to n_out, its int8 weights block
    sparse but those named in dense; no peepholes or layer norm. Every matrix's columns
    are a multiple of 16 (the kernel's block)."""
    parts = [(p, [n_cell, n_in]) for p in ("input_to_input", "input_to_forget",
                                           "input_to_cell", "input_to_output")]
    parts += [(p, [n_cell, n_out]) for p in ("recurrent_to_input", "recurrent_to_forget",
                                             "recurrent_to_cell", "recurrent_to_output")]
    parts += [("projection", [n_out, n_cell])]
    ws = [-1 if cifg and part.endswith("to_input") else
          sparse_weights(g, "%s/%s" % (name, part), shape, seed + 2 * i, part not in dense)
          for i, (part, shape) in enumerate(parts)]
    bias = [-1 if cifg and gate == "input" else
            g.tensor("%s/%s_gate_bias" % (name, gate), [n_cell], TT.FLOAT32,
                     weights([n_cell], np.float32, seed + 30 + i))
            for i, gate in enumerate(("input", "forget", "cell", "output"))]
    ins = ([x] + ws[:8] + [-1, -1, -1] + bias + [ws[8], -1] +
           lstm_state(g, name, batch, n_cell, n_out) + [-1] * 4)
    y = g.tensor(name, [batch, n_out], TT.FLOAT32)
    lstm_op(g, ins, [y])
    return y


def lstm_sparse(path):
    m, g = main_graph("arenaprof generated: LSTM, sparse hybrid")
    x = g.tensor("input", [2, 32], TT.FLOAT32)
    # all 9 weights sparse: 9 ledgers sized
    a = lstm_sparse_layer(g, "lstm0", x, 2, 32, 32, 16, 800, False)
    # CIFG, two weights dense: their ledgers, and the input gate's, never sized
    b = lstm_sparse_layer(g, "lstm1", a, 2, 16, 16, 32, 850, True,
                          dense=("input_to_forget", "recurrent_to_cell"))
    finish(m, g, [x], [b], path)
