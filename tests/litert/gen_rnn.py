"""gen_models.py's recurrent models: SVDF, RNN, LSTM and their bidirectional forms."""

from gen_builder import *  # noqa: F401,F403

def const_weights(g, name, shape, wtype, seed):
    """A constant of random weights: float32, or int8 with one scale."""
    if wtype == TT.INT8:
        return g.tensor(name, shape, wtype, weights(shape, np.int8, seed), scales=[0.02])
    return g.tensor(name, shape, wtype, weights(shape, np.float32, seed))


def svdf_layer(g, name, x, in_size, filters, rank, memory, wtype, seed):
    wf = const_weights(g, name + "/weights_feature", [filters, in_size], wtype, seed)
    wt = const_weights(g, name + "/weights_time", [filters, memory], wtype, seed + 1)
    b = g.tensor(name + "/bias", [filters // rank], TT.FLOAT32,
                 weights([filters // rank], np.float32, seed + 2))
    batch = g.g.tensors[x].shape[0]
    state = g.tensor(name + "/state", [batch, memory * filters], TT.FLOAT32, variable=True)
    y = g.tensor(name, [batch, filters // rank], TT.FLOAT32)
    o = fb.SVDFOptionsT()
    o.rank = rank
    g.op(OP.SVDF, [x, wf, wt, b, state], [y], OPT.SVDFOptions, o)
    return y


def svdf(path):
    m, g = main_graph("arenaprof generated: SVDF, float and hybrid")
    x = g.tensor("input", [2, 40], TT.FLOAT32)
    y = svdf_layer(g, "svdf0", x, 40, 64, 4, 10, TT.FLOAT32, 60)
    z = svdf_layer(g, "svdf1", y, 16, 32, 2, 8, TT.INT8, 70)
    finish(m, g, [x], [z], path)


def rnn_layer(g, code, name, x, batch, in_size, units, wtype, seed, seq=None):
    w = const_weights(g, name + "/weights", [units, in_size], wtype, seed)
    r = const_weights(g, name + "/recurrent", [units, units], wtype, seed + 1)
    b = g.tensor(name + "/bias", [units], TT.FLOAT32, weights([units], np.float32, seed + 2))
    h = g.tensor(name + "/state", [batch, units], TT.FLOAT32, variable=True)
    if seq is None:
        y = g.tensor(name, [batch, units], TT.FLOAT32)
        g.op(code, [x, w, r, b, h], [y], OPT.RNNOptions, fb.RNNOptionsT())
    else:
        o = fb.SequenceRNNOptionsT()
        o.timeMajor = True
        y = g.tensor(name, [seq, batch, units], TT.FLOAT32)
        g.op(code, [x, w, r, b, h], [y], OPT.SequenceRNNOptions, o)
    return y


def rnn(path):
    m, g = main_graph("arenaprof generated: RNN and UNIDIRECTIONAL_SEQUENCE_RNN, float and hybrid")
    x = g.tensor("input", [5, 3, 20], TT.FLOAT32)    # time major: [time, batch, in]
    s0 = rnn_layer(g, OP.UNIDIRECTIONAL_SEQUENCE_RNN, "seq0", x, 3, 20, 24, TT.FLOAT32, 80,
                   seq=5)
    s1 = rnn_layer(g, OP.UNIDIRECTIONAL_SEQUENCE_RNN, "seq1", s0, 3, 24, 16, TT.INT8, 83,
                   seq=5)
    flat_shape = g.tensor("flat/shape", [2], TT.INT32, np.array([3, 80], dtype=np.int32))
    flat = g.tensor("flat", [3, 80], TT.FLOAT32)
    g.op(OP.RESHAPE, [s1, flat_shape], [flat])
    r0 = rnn_layer(g, OP.RNN, "rnn0", flat, 3, 80, 12, TT.FLOAT32, 86)
    r1 = rnn_layer(g, OP.RNN, "rnn1", r0, 3, 12, 8, TT.INT8, 89)
    finish(m, g, [x], [r1], path)


def lstm_gates(g, name, n_in, n_cell, wtype, seed, cifg, n_out=None, btype=TT.FLOAT32):
    """One LSTM cell's 18 inputs from input_to_input weights on: no peepholes or
    projection; recurrent weights [n_cell, n_out] (n_out defaults to n_cell); biases
    float32, or int32 for the integer kernel."""
    n_rec = n_cell if n_out is None else n_out

    def w(part, shape, i):
        return const_weights(g, "%s/%s" % (name, part), shape, wtype, seed + i)

    def bias(part, i):
        b = weights([n_cell], np.float32, seed + 10 + i)
        if btype == TT.INT32:
            return g.tensor("%s/%s_bias" % (name, part), [n_cell], btype,
                            (b * 1000).astype(np.int32), scales=[1e-4])
        return g.tensor("%s/%s_bias" % (name, part), [n_cell], btype, b)
    return [-1 if cifg else w("input_to_input", [n_cell, n_in], 0),
            w("input_to_forget", [n_cell, n_in], 1), w("input_to_cell", [n_cell, n_in], 2),
            w("input_to_output", [n_cell, n_in], 3),
            -1 if cifg else w("recurrent_to_input", [n_cell, n_rec], 4),
            w("recurrent_to_forget", [n_cell, n_rec], 5),
            w("recurrent_to_cell", [n_cell, n_rec], 6),
            w("recurrent_to_output", [n_cell, n_rec], 7),
            -1, -1, -1,
            -1 if cifg else bias("input_gate", 0), bias("forget_gate", 1),
            bias("cell_gate", 2), bias("output_gate", 3),
            -1, -1]


def lstm_state(g, name, batch, n_cell, n_out=None):
    """The float output state ([batch, n_out], n_out defaulting to n_cell) and cell state
    of an LSTM node: variables."""
    return [g.tensor(name + "/output_state", [batch, n_out or n_cell], TT.FLOAT32,
                     variable=True),
            g.tensor(name + "/cell_state", [batch, n_cell], TT.FLOAT32, variable=True)]


def lstm_op(g, ins, outs, basic=False):
    """An LSTM node with tanh activation, the full kernel or the basic one."""
    o = fb.LSTMOptionsT()
    o.fusedActivationFunction = fb.ActivationFunctionType.TANH
    if basic:
        o.kernelType = fb.LSTMKernelType.BASIC
    g.op(OP.LSTM, ins, outs, OPT.LSTMOptions, o)


def lstm_layer(g, name, x, batch, n_in, n_cell, wtype, seed, cifg=False):
    """An LSTM node, 24 inputs: no peepholes, projection or layer norm."""
    ins = ([x] + lstm_gates(g, name, n_in, n_cell, wtype, seed, cifg) +
           lstm_state(g, name, batch, n_cell) + [-1, -1, -1, -1])
    y = g.tensor(name, [batch, n_cell], TT.FLOAT32)
    lstm_op(g, ins, [y])
    return y


def lstm(path):
    m, g = main_graph("arenaprof generated: LSTM, the full kernel, float and hybrid")
    x = g.tensor("input", [2, 24], TT.FLOAT32)
    a = lstm_layer(g, "lstm0", x, 2, 24, 20, TT.FLOAT32, 100)
    b = lstm_layer(g, "lstm1", a, 2, 20, 16, TT.FLOAT32, 120, cifg=True)
    c = lstm_layer(g, "lstm2", b, 2, 16, 12, TT.INT8, 140)
    finish(m, g, [x], [c], path)


def lstm_basic_layer(g, name, x, act, state, seed):
    """An LSTM node of the basic kernel (LSTMOptions.kernel_type BASIC): 5 inputs (input,
    previous activation, weights, bias, previous state) and 4 outputs (activation, state,
    concat_temp, activation_temp)."""
    batch, n_in = g.g.tensors[x].shape
    depth = g.g.tensors[act].shape[1]
    w = const_weights(g, name + "/weights", [4 * depth, n_in + depth], TT.FLOAT32, seed)
    b = g.tensor(name + "/bias", [4 * depth], TT.FLOAT32,
                 weights([4 * depth], np.float32, seed + 1))
    outs = [g.tensor(name + "/activation", [batch, depth], TT.FLOAT32),
            g.tensor(name + "/state", [batch, depth], TT.FLOAT32),
            g.tensor(name + "/concat_temp", [batch, n_in + depth], TT.FLOAT32),
            g.tensor(name + "/activation_temp", [batch, 4 * depth], TT.FLOAT32)]
    lstm_op(g, [x, act, w, b, state], outs, basic=True)
    return outs


def lstm_basic(path):
    """Two basic LSTM steps: the first's previous activation and state are graph inputs,
    the second's the first's outputs; Prepare moves all four to the persistent arena."""
    m, g = main_graph("arenaprof generated: LSTM, the basic kernel")
    x = g.tensor("input", [2, 8], TT.FLOAT32)
    act = g.tensor("activation0", [2, 6], TT.FLOAT32)
    state = g.tensor("state0", [2, 6], TT.FLOAT32)
    a1, s1, _, _ = lstm_basic_layer(g, "lstm0", x, act, state, 600)
    a2, s2, _, _ = lstm_basic_layer(g, "lstm1", x, a1, s1, 610)
    y = g.tensor("output", [2, 6], TT.FLOAT32)
    g.op(OP.ADD, [a2, s2], [y], OPT.AddOptions, fb.AddOptionsT())
    finish(m, g, [x, act, state], [y], path)


def lstm_integer_layer(g, name, x, batch, n_in, n_cell, seed, n_inter, cell_scale):
    """An LSTM node of the full kernel with an int8 input: int8 weights, int32 biases, an
    int8 output state and an int16 cell state; 5 intermediates (8x8_16, only the hidden
    one's scale read) or 12 (8x8_8, every scale read)."""
    ins = [x] + lstm_gates(g, name, n_in, n_cell, TT.INT8, seed, False, btype=TT.INT32)
    ins += [g.tensor(name + "/output_state", [batch, n_cell], TT.INT8, variable=True,
                     scales=[1.0 / 128]),
            g.tensor(name + "/cell_state", [batch, n_cell], TT.INT16, variable=True,
                     scales=[cell_scale]),
            -1, -1, -1, -1]
    inter = [g.tensor("%s/intermediate%d" % (name, i), [], TT.INT16 if n_inter == 12 and
                      i < 4 else TT.INT8, scales=[2.0 ** -10]) for i in range(n_inter)]
    y = g.tensor(name, [batch, n_cell], TT.INT8, scales=[1.0 / 128])
    lstm_op(g, ins, [y])
    g.g.operators[-1].intermediates = inter
    return y


def lstm_integer(path):
    m, g = main_graph("arenaprof generated: LSTM, the full kernel, integer")
    x = g.tensor("input", [3, 16], TT.INT8, scales=[0.05])
    a = lstm_integer_layer(g, "lstm0", x, 3, 16, 12, 700, 5, 2.0 ** -11)
    b = lstm_integer_layer(g, "lstm1", a, 3, 12, 10, 720, 12, 1.0 / 32768)
    finish(m, g, [x], [b], path)


def bidi_rnn_layer(g, name, x, batch, steps, n_in, fw_units, bw_units, wtype, seed,
                   merge):
    ins = [x]
    for side, units, i in (("fw", fw_units, 0), ("bw", bw_units, 4)):
        ins += [const_weights(g, "%s/%s_weights" % (name, side), [units, n_in], wtype,
                              seed + i),
                const_weights(g, "%s/%s_recurrent" % (name, side), [units, units], wtype,
                              seed + i + 1),
                g.tensor("%s/%s_bias" % (name, side), [units], TT.FLOAT32,
                         weights([units], np.float32, seed + i + 2)),
                g.tensor("%s/%s_state" % (name, side), [batch, units], TT.FLOAT32,
                         variable=True)]
    ins += [-1, -1, -1]
    o = fb.BidirectionalSequenceRNNOptionsT()
    o.mergeOutputs = merge
    if merge:
        outs = [g.tensor(name, [batch, steps, fw_units + bw_units], TT.FLOAT32)]
    else:
        outs = [g.tensor(name + "/fw", [batch, steps, fw_units], TT.FLOAT32),
                g.tensor(name + "/bw", [batch, steps, bw_units], TT.FLOAT32)]
    g.op(OP.BIDIRECTIONAL_SEQUENCE_RNN, ins, outs, OPT.BidirectionalSequenceRNNOptions, o)
    return outs


def bidi_rnn(path):
    m, g = main_graph("arenaprof generated: BIDIRECTIONAL_SEQUENCE_RNN, float and hybrid")
    x = g.tensor("input", [2, 4, 10], TT.FLOAT32)
    y = bidi_rnn_layer(g, "bidi0", x, 2, 4, 10, 8, 6, TT.FLOAT32, 150, True)[0]
    outs = bidi_rnn_layer(g, "bidi1", y, 2, 4, 14, 12, 10, TT.INT8, 160, False)
    finish(m, g, [x], outs, path)


def bidi_lstm_layer(g, name, x, steps, batch, n_in, fw_cell, bw_cell, seed, time_major):
    """A BIDIRECTIONAL_SEQUENCE_LSTM node, 48 inputs, the backward side with CIFG (LiteRT
    wants the same number of cells on both sides)."""
    ins = ([x] + lstm_gates(g, name + "/fw", n_in, fw_cell, TT.FLOAT32, seed, False) +
           lstm_gates(g, name + "/bw", n_in, bw_cell, TT.FLOAT32, seed + 20, True) +
           lstm_state(g, name + "/fw", batch, fw_cell) +
           lstm_state(g, name + "/bw", batch, bw_cell) + [-1] * 9)
    o = fb.BidirectionalSequenceLSTMOptionsT()
    o.fusedActivationFunction = fb.ActivationFunctionType.TANH
    o.timeMajor = time_major
    lead = [steps, batch] if time_major else [batch, steps]
    outs = [g.tensor(name + "/fw_out", lead + [fw_cell], TT.FLOAT32),
            g.tensor(name + "/bw_out", lead + [bw_cell], TT.FLOAT32)]
    g.op(OP.BIDIRECTIONAL_SEQUENCE_LSTM, ins, outs, OPT.BidirectionalSequenceLSTMOptions, o)
    return outs


def bidi_lstm(path):
    m, g = main_graph("arenaprof generated: BIDIRECTIONAL_SEQUENCE_LSTM, float")
    x = g.tensor("input", [6, 2, 12], TT.FLOAT32)     # time major
    fw, bw = bidi_lstm_layer(g, "bidi0", x, 6, 2, 12, 10, 10, 200, True)
    cat = g.tensor("concat", [6, 2, 20], TT.FLOAT32)
    co = fb.ConcatenationOptionsT()
    co.axis = 2
    g.op(OP.CONCATENATION, [fw, bw], [cat], OPT.ConcatenationOptions, co)
    perm = g.tensor("perm", [3], TT.INT32, np.array([1, 0, 2], dtype=np.int32))
    bm = g.tensor("batch_major", [2, 6, 20], TT.FLOAT32)
    g.op(OP.TRANSPOSE, [cat, perm], [bm])
    outs = bidi_lstm_layer(g, "bidi1", bm, 6, 2, 20, 6, 6, 240, False)
    finish(m, g, [x], outs, path)


def projected_gates(g, name, n_in, n_cell, n_out, seed, cifg):
    """lstm_gates in int8 with a projection to n_out: recurrent weights [n_cell, n_out]."""
    ins = lstm_gates(g, name, n_in, n_cell, TT.INT8, seed, cifg, n_out)
    ins[15] = const_weights(g, name + "/projection", [n_out, n_cell], TT.INT8, seed + 40)
    return ins


def bidi_lstm_hybrid_layer(g, name, x, batch, n_in, n_cell, n_out, seed, aux=None):
    """A hybrid BIDIRECTIONAL_SEQUENCE_LSTM node (int8 weights, float activations), time
    major, both sides projected to n_out (LiteRT checks both sides against the forward
    side's sizes), the backward side with CIFG; aux (a tensor of n_in features) adds an
    auxiliary input and both sides' aux weights."""
    steps = g.g.tensors[x].shape[0]
    ins = [x]
    for side, cifg, s in (("fw", False, 0), ("bw", True, 50)):
        ins += projected_gates(g, "%s/%s" % (name, side), n_in, n_cell, n_out, seed + s, cifg)
    for side in ("fw", "bw"):
        ins += [g.tensor("%s/%s/output_state" % (name, side), [batch, n_out], TT.FLOAT32,
                         variable=True),
                g.tensor("%s/%s/cell_state" % (name, side), [batch, n_cell], TT.FLOAT32,
                         variable=True)]
    if aux is None:
        ins += [-1] * 9
    else:
        ins += [aux]
        for side, cifg, s in (("fw", False, 100), ("bw", True, 110)):
            ins += [-1 if cifg and j == 0 else
                    const_weights(g, "%s/%s/aux_%d" % (name, side, j), [n_cell, n_in],
                                  TT.INT8, seed + s + j) for j in range(4)]
    o = fb.BidirectionalSequenceLSTMOptionsT()
    o.fusedActivationFunction = fb.ActivationFunctionType.TANH
    o.timeMajor = True
    outs = [g.tensor(name + "/fw_out", [steps, batch, n_out], TT.FLOAT32),
            g.tensor(name + "/bw_out", [steps, batch, n_out], TT.FLOAT32)]
    g.op(OP.BIDIRECTIONAL_SEQUENCE_LSTM, ins, outs, OPT.BidirectionalSequenceLSTMOptions, o)
    return outs


def bidi_lstm_hybrid(path):
    m, g = main_graph("arenaprof generated: BIDIRECTIONAL_SEQUENCE_LSTM, hybrid")
    x = g.tensor("input", [5, 3, 12], TT.FLOAT32)     # time major
    xa = g.tensor("aux_input", [5, 3, 10], TT.FLOAT32)
    fw, _ = bidi_lstm_hybrid_layer(g, "bidi0", x, 3, 12, 6, 10, 300)
    outs = bidi_lstm_hybrid_layer(g, "bidi1", fw, 3, 10, 8, 20, 500, aux=xa)
    finish(m, g, [x, xa], outs, path)
