#!/usr/bin/env python3
"""Write the small generated models of tests/models, kinds no real bundled model has.

Usage:
    gen_models.py OUTDIR

Run it with the Python that has ai-edge-litert (its bundled schema module builds the
flatbuffers; /opt/arenaprof-venv/bin/python). The output is deterministic: the same
bytes on every run, so tests/models keeps the files and test_litert_plan.sh checks
that this script still writes them. LiteRT itself judges every one of them.

    gen_hybrid_conv.tflite       dynamic-range quantization: float32 activations,
                                 int8 filters (CONV_2D per channel and per tensor,
                                 DEPTHWISE_CONV_2D, FULLY_CONNECTED)
    gen_float16_weights.tflite   float16 constants behind DEQUANTIZE into CONV_2D
    gen_resource_vars.tflite     VAR_HANDLE, READ_VARIABLE, ASSIGN_VARIABLE, with
                                 CALL_ONCE running an init subgraph
    gen_while_loop.tflite        WHILE with cond and body subgraphs
    gen_if_else.tflite           IF with then and else subgraphs
    gen_svdf.tflite              SVDF in float and hybrid (int8 weights), as in
                                 keyword-spotting models
    gen_add_n.tflite             ADD_N of five tensors: a scratch sized by the
                                 thread count
    gen_rnn.tflite               RNN and UNIDIRECTIONAL_SEQUENCE_RNN, float and
                                 hybrid (int8 weights)
    gen_lstm.tflite              LSTM (the full kernel, one step): float with and
                                 without CIFG, and hybrid
    gen_bidi_rnn.tflite          BIDIRECTIONAL_SEQUENCE_RNN, float (merged outputs)
                                 and hybrid (two outputs)
    gen_bidi_lstm.tflite         BIDIRECTIONAL_SEQUENCE_LSTM, float, time major and
                                 not, with CIFG on one side
    gen_bidi_lstm_hybrid.tflite  BIDIRECTIONAL_SEQUENCE_LSTM, hybrid (int8 weights),
                                 projected, without and with an aux input
    gen_lstm_basic.tflite        LSTM, the basic kernel: its state inputs made
                                 persistent
    gen_lstm_integer.tflite      LSTM, the full kernel, int8 input: 5 and 12
                                 intermediates
    gen_conv3d.tflite            CONV_3D with a 3x3x3 filter and a strided 1x1x1
                                 one: im2col both times
    gen_dynamic_tile.tflite      TILE of computed multiples: a dynamic output that
                                 splits LiteRT's plan in two steps
    gen_dynamic_shapes.tflite    TRANSPOSE, PAD, RESIZE_BILINEAR, BROADCAST_TO,
                                 SPLIT and FILL of computed shapes: seven steps
    gen_dynamic_ops.tflite       27 more operators whose outputs a computed input
                                 makes dynamic (slices, RANGE, reductions, pads,
                                 NMS, WHERE, UNIQUE, TRANSPOSE_CONV, ...), and two
                                 that stay static (offset STRIDED_SLICE, SLICE
                                 of a given shape)
    gen_dynamic_edges.tflite     the special cases: PAD and PADV2 of a scalar, TOPK_V2 and
                                 SLICE of unknown dims, offset STRIDED_SLICE of computed
                                 strides, dyn data into UNSORTED_SEGMENT_MAX, the
                                 random kernels, EMBEDDING_LOOKUP_SPARSE, DILATE
                                 of ro dilations, the other reductions,
                                 CONV_3D_TRANSPOSE (heap col2im, dyn output),
                                 READ_VARIABLE of a scalar
    gen_detection_postprocess.tflite
                                 an SSD head ending in the custom operator
                                 TFLite_Detection_PostProcess
    gen_const_fold.tflite        outputs LiteRT folds at Prepare into the heap:
                                 SHAPE, RANK, STRIDED_SLICE of a shape, GATHER,
                                 CONCATENATION and RESHAPE of constants, a small
                                 REDUCE_PROD of constants
    gen_dynamic_reshape.tflite   RESHAPE of computed shapes: shared, or an arena slot
                                 that turns dynamic; and to a scalar by an empty shape
    gen_open_shapes.tflite       shapes the file leaves open (signature -1), given by
                                 the input shape and computed shape values
    gen_rfft2d.tflite            RFFT2D of a constant fft_length (4 arena working
                                 areas) and of a computed one (dynamic)
    gen_numeric_verify.tflite    the custom NumericVerify: a persistent output
    gen_stablehlo_reduce_window.tflite
                                 STABLEHLO_REDUCE_WINDOW: padded and dilated copies
    gen_stablehlo_composite.tflite
                                 STABLEHLO_COMPOSITE: its decomposition planned as
                                 an IF branch is
    gen_fc_int4.tflite           FULLY_CONNECTED with int4 filters: the 4-bit path and
                                 the standard hybrid one (cols < 32)
    gen_fc_sparse.tflite         FULLY_CONNECTED with sparse (CSR) filters, float and
                                 hybrid (its ledger)
    gen_lstm_sparse.tflite       LSTM, the full kernel, hybrid with 1x16 block-sparse
                                 weights: its 9 ledgers, with and without CIFG
    gen_stablehlo_case.tflite    STABLEHLO_CASE: every subgraph planned in its Prepare,
                                 listed as a branch or not; subgraph 0's unused input
                                 dropped
    gen_if_dynamic.tflite        IF whose then branch holds a dynamic tensor: its
                                 output dynamic
    gen_while_dynamic.tflite     WHILE whose body holds a dynamic tensor: its outputs
                                 dynamic
    gen_composite_dynamic.tflite STABLEHLO_COMPOSITE whose decomposition holds a
                                 dynamic tensor: its output dynamic
    gen_if_shapes.tflite         IF whose branches give other static shapes: its
                                 output dynamic
    gen_if_resize.tflite         IF, WHILE and STABLEHLO_COMPOSITE whose subgraphs give
    gen_while_resize.tflite      other output shapes than the caller's file says: the
    gen_composite_resize.tflite  outputs resized, and what is computed from them
    gen_flow_inputs.tflite       IF, WHILE and STABLEHLO_COMPOSITE whose subgraphs' file
                                 shapes are not the caller's: prepared on the caller's
    gen_while_scalar.tflite      WHILE whose body turns its scalar counter into [1]:
                                 while.cc lets it pass, its outputs stay in the arena
    gen_case_resize.tflite       STABLEHLO_CASE prepared on caller shapes other than its
                                 subgraphs' file: its output resized
    gen_case_dynamic.tflite      STABLEHLO_CASE with a dynamic subgraph, and one whose
    gen_case_shapes.tflite       compared branch gives other dims: its output dynamic
    gen_while_late.tflite        WHILE, IF (a constant condition),
    gen_if_late.tflite           STABLEHLO_COMPOSITE and STABLEHLO_CASE (a constant
    gen_composite_late.tflite    index) after a dynamic output: prepared, and their
    gen_case_late.tflite         subgraphs planned, in the first invoke
"""

import os
import sys

import flatbuffers
import numpy as np
from flatbuffers import flexbuffers
from ai_edge_litert import schema_py_generated as fb

TT = fb.TensorType
OP = fb.BuiltinOperator
OPT = fb.BuiltinOptions


class Model:
    """A model under construction: buffers and opcodes shared by its subgraphs."""

    def __init__(self, description):
        self.m = fb.ModelT()
        self.m.version = 3
        self.m.description = description
        self.m.operatorCodes = []
        self.m.subgraphs = []
        self.m.buffers = [fb.BufferT()]    # buffer 0: no data
        self.codes = {}

    def opcode(self, code, custom=None):
        if (code, custom) not in self.codes:
            oc = fb.OperatorCodeT()
            oc.builtinCode = code
            oc.deprecatedBuiltinCode = min(code, 127)
            oc.customCode = custom
            oc.version = 1
            self.codes[(code, custom)] = len(self.m.operatorCodes)
            self.m.operatorCodes.append(oc)
        return self.codes[(code, custom)]

    def buffer(self, data):
        b = fb.BufferT()
        b.data = np.frombuffer(data.tobytes(), dtype=np.uint8)
        self.m.buffers.append(b)
        return len(self.m.buffers) - 1

    def write(self, path):
        b = flatbuffers.Builder(4096)
        b.Finish(self.m.Pack(b), file_identifier=b"TFL3")
        with open(path, "wb") as f:
            f.write(b.Output())


class Graph:
    """One subgraph: tensors and operators in execution order."""

    def __init__(self, model, name):
        self.model = model
        self.g = fb.SubGraphT()
        self.g.name = name
        self.g.tensors = []
        self.g.operators = []
        self.g.inputs = []
        self.g.outputs = []
        model.m.subgraphs.append(self.g)

    def tensor(self, name, shape, ttype, data=None, scales=None, qdim=0, variable=False):
        t = fb.TensorT()
        t.name = name
        t.isVariable = variable
        t.shape = list(shape)
        t.type = ttype
        t.buffer = 0 if data is None else self.model.buffer(data)
        if scales is not None:
            q = fb.QuantizationParametersT()
            q.scale = [float(s) for s in scales]
            q.zeroPoint = [0] * len(scales)
            q.quantizedDimension = qdim
            t.quantization = q
        self.g.tensors.append(t)
        return len(self.g.tensors) - 1

    def op(self, code, inputs, outputs, opt_type=0, opt=None, custom=None, custom_opts=None):
        o = fb.OperatorT()
        o.opcodeIndex = self.model.opcode(code, custom)
        o.customOptions = custom_opts
        o.inputs = list(inputs)
        o.outputs = list(outputs)
        o.builtinOptionsType = opt_type
        o.builtinOptions = opt
        self.g.operators.append(o)


def main_graph(description):
    """A model and its subgraph 0, "main"."""
    m = Model(description)
    return m, Graph(m, "main")


def finish(m, g, inputs, outputs, path):
    """Sets the main graph's inputs and outputs and writes the model."""
    g.g.inputs = inputs
    g.g.outputs = outputs
    m.write(path)


def conv_opts(stride, padding=fb.Padding.SAME):
    o = fb.Conv2DOptionsT()
    o.padding = padding
    o.strideW = o.strideH = stride
    o.dilationWFactor = o.dilationHFactor = 1
    return o


def weights(shape, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == np.int8:
        return rng.integers(-127, 128, size=shape, dtype=np.int8)
    return rng.standard_normal(size=shape).astype(dtype)


def hybrid_conv(path):
    m, g = main_graph("arenaprof generated: dynamic-range quantized (hybrid) kernels")
    x = g.tensor("input", [1, 16, 16, 8], TT.FLOAT32)
    # per channel: 16 different scales
    w0 = g.tensor("conv0/filter", [16, 3, 3, 8], TT.INT8, weights([16, 3, 3, 8], np.int8, 1),
                  scales=[0.01 * (i + 1) for i in range(16)])
    b0 = g.tensor("conv0/bias", [16], TT.FLOAT32, weights([16], np.float32, 2))
    y0 = g.tensor("conv0", [1, 8, 8, 16], TT.FLOAT32)
    g.op(OP.CONV_2D, [x, w0, b0], [y0], OPT.Conv2DOptions, conv_opts(2))
    # 16 scales, all equal: not per channel for LiteRT
    w1 = g.tensor("conv1/filter", [16, 1, 1, 16], TT.INT8, weights([16, 1, 1, 16], np.int8, 3),
                  scales=[0.02] * 16)
    b1 = g.tensor("conv1/bias", [16], TT.FLOAT32, weights([16], np.float32, 4))
    y1 = g.tensor("conv1", [1, 8, 8, 16], TT.FLOAT32)
    g.op(OP.CONV_2D, [y0, w1, b1], [y1], OPT.Conv2DOptions, conv_opts(1))
    # one scale, a 3x3 kernel: im2col typed int8
    w2 = g.tensor("conv2/filter", [8, 3, 3, 16], TT.INT8, weights([8, 3, 3, 16], np.int8, 5),
                  scales=[0.03])
    b2 = g.tensor("conv2/bias", [8], TT.FLOAT32, weights([8], np.float32, 6))
    y2 = g.tensor("conv2", [1, 8, 8, 8], TT.FLOAT32)
    g.op(OP.CONV_2D, [y1, w2, b2], [y2], OPT.Conv2DOptions, conv_opts(1))
    wd = g.tensor("dw/filter", [1, 3, 3, 8], TT.INT8, weights([1, 3, 3, 8], np.int8, 7),
                  scales=[0.01 * (i + 1) for i in range(8)], qdim=3)
    bd = g.tensor("dw/bias", [8], TT.FLOAT32, weights([8], np.float32, 8))
    yd = g.tensor("dw", [1, 8, 8, 8], TT.FLOAT32)
    do = fb.DepthwiseConv2DOptionsT()
    do.padding = fb.Padding.SAME
    do.strideW = do.strideH = 1
    do.depthMultiplier = 1
    do.dilationWFactor = do.dilationHFactor = 1
    g.op(OP.DEPTHWISE_CONV_2D, [y2, wd, bd], [yd], OPT.DepthwiseConv2DOptions, do)
    shape = g.tensor("flat/shape", [2], TT.INT32, np.array([1, 512], dtype=np.int32))
    flat = g.tensor("flat", [1, 512], TT.FLOAT32)
    g.op(OP.RESHAPE, [yd, shape], [flat])
    wf = g.tensor("fc/weights", [10, 512], TT.INT8, weights([10, 512], np.int8, 9),
                  scales=[0.05])
    bf = g.tensor("fc/bias", [10], TT.FLOAT32, weights([10], np.float32, 10))
    out = g.tensor("logits", [1, 10], TT.FLOAT32)
    fo = fb.FullyConnectedOptionsT()
    fo.asymmetricQuantizeInputs = True
    g.op(OP.FULLY_CONNECTED, [flat, wf, bf], [out], OPT.FullyConnectedOptions, fo)
    finish(m, g, [x], [out], path)


def float16_weights(path):
    m, g = main_graph("arenaprof generated: float16 weights dequantized for float CONV_2D")
    x = g.tensor("input", [1, 16, 16, 4], TT.FLOAT32)
    prev = x
    for i, (cout, k, stride) in enumerate([(8, 3, 2), (8, 1, 1), (4, 3, 1)]):
        cin = m.m.subgraphs[0].tensors[prev].shape[3]
        h = m.m.subgraphs[0].tensors[prev].shape[1] // stride
        w16 = g.tensor("conv%d/filter_fp16" % i, [cout, k, k, cin], TT.FLOAT16,
                       weights([cout, k, k, cin], np.float16, 20 + i))
        w = g.tensor("conv%d/filter" % i, [cout, k, k, cin], TT.FLOAT32)
        g.op(OP.DEQUANTIZE, [w16], [w])
        b16 = g.tensor("conv%d/bias_fp16" % i, [cout], TT.FLOAT16,
                       weights([cout], np.float16, 30 + i))
        b = g.tensor("conv%d/bias" % i, [cout], TT.FLOAT32)
        g.op(OP.DEQUANTIZE, [b16], [b])
        y = g.tensor("conv%d" % i, [1, h, h, cout], TT.FLOAT32)
        g.op(OP.CONV_2D, [prev, w, b], [y], OPT.Conv2DOptions, conv_opts(stride))
        prev = y
    finish(m, g, [x], [prev], path)


def var_handle(g, name):
    h = g.tensor(name + "/handle", [], TT.RESOURCE)
    o = fb.VarHandleOptionsT()
    o.sharedName = name
    g.op(OP.VAR_HANDLE, [], [h], OPT.VarHandleOptions, o)
    return h


def resource_vars(path):
    m, g = main_graph("arenaprof generated: resource variables initialised by CALL_ONCE")
    init = Graph(m, "init")
    x = g.tensor("input", [1, 64], TT.FLOAT32)
    co = fb.CallOnceOptionsT()
    co.initSubgraphIndex = 1
    g.op(OP.CALL_ONCE, [], [], OPT.CallOnceOptions, co)
    ha = var_handle(g, "acc")
    hb = var_handle(g, "bias")
    a = g.tensor("acc/read", [1, 64], TT.FLOAT32)
    g.op(OP.READ_VARIABLE, [ha], [a])
    b = g.tensor("bias/read", [1, 64], TT.FLOAT32)
    g.op(OP.READ_VARIABLE, [hb], [b])
    s = g.tensor("sum", [1, 64], TT.FLOAT32)
    g.op(OP.ADD, [x, a], [s], OPT.AddOptions, fb.AddOptionsT())
    out = g.tensor("output", [1, 64], TT.FLOAT32)
    g.op(OP.ADD, [s, b], [out], OPT.AddOptions, fb.AddOptionsT())
    g.op(OP.ASSIGN_VARIABLE, [ha, s], [])
    g.g.inputs = [x]
    g.g.outputs = [out]
    for i, name in enumerate(["acc", "bias"]):
        h = var_handle(init, name)
        c = init.tensor(name + "/init", [1, 64], TT.FLOAT32,
                        np.full([1, 64], float(i), dtype=np.float32))
        init.op(OP.ASSIGN_VARIABLE, [h, c], [])
    m.write(path)


def while_caller(g, loop=(1, 32)):
    """input -> ADD -> WHILE(i0 = 0, pre) with cond subgraph 1 and body 2, its output of
    the shape loop in the file: x, pre, loop and the counter's output i_out."""
    x = g.tensor("input", [1, 32], TT.FLOAT32)
    i0 = g.tensor("i0", [], TT.INT32, np.array(0, dtype=np.int32))
    pre = g.tensor("pre", [1, 32], TT.FLOAT32)
    g.op(OP.ADD, [x, x], [pre], OPT.AddOptions, fb.AddOptionsT())
    i_out = g.tensor("i_out", [], TT.INT32)
    y = g.tensor("loop", list(loop), TT.FLOAT32)
    while_op(g, [i0, pre], [i_out, y])
    return x, pre, y, i_out


def while_cond_counter(cond, body, step=(), limit=3, shape=(1, 32)):
    """The cond (i < limit) and the body's counter (i + 1, of the step's shape), with a
    loop variable x of the shape: the body's i, x and i_next."""
    ci = cond.tensor("i", [], TT.INT32)
    cx = cond.tensor("x", list(shape), TT.FLOAT32)
    lim = cond.tensor("limit", [], TT.INT32, np.array(limit, dtype=np.int32))
    c = cond.tensor("more", [], TT.BOOL)
    cond.op(OP.LESS, [ci, lim], [c])
    cond.g.inputs = [ci, cx]
    cond.g.outputs = [c]

    bi = body.tensor("i", [], TT.INT32)
    bx = body.tensor("x", list(shape), TT.FLOAT32)
    one = body.tensor("one", list(step), TT.INT32, np.full(step, 1, dtype=np.int32))
    bi2 = body.tensor("i_next", list(step), TT.INT32)
    body.op(OP.ADD, [bi, one], [bi2], OPT.AddOptions, fb.AddOptionsT())
    return bi, bx, bi2


def while_op(g, inputs, outputs, cond=1, body=2):
    """A WHILE node running subgraphs cond and body."""
    wo = fb.WhileOptionsT()
    wo.condSubgraphIndex = cond
    wo.bodySubgraphIndex = body
    g.op(OP.WHILE, inputs, outputs, OPT.WhileOptions, wo)


def if_op(g, flag, inputs, outputs, then=1, other=2):
    """An IF node on flag running subgraphs then and other."""
    io = fb.IfOptionsT()
    io.thenSubgraphIndex = then
    io.elseSubgraphIndex = other
    g.op(OP.IF, [flag] + inputs, outputs, OPT.IfOptions, io)


def input_pre(g, shape, pre_name="pre"):
    """input -> ADD (input + input) -> pre (or pre_name): what the control-flow callers
    run on."""
    x = g.tensor("input", shape, TT.FLOAT32)
    pre = g.tensor(pre_name, shape, TT.FLOAT32)
    g.op(OP.ADD, [x, x], [pre], OPT.AddOptions, fb.AddOptionsT())
    return x, pre


def add_mul_branches(then, other, shape, tail=None):
    """IF branches x -> y = x + x (then) or x * x (else), and tail(sg, y) when given (its
    result is the branch's output, else y is)."""
    for sg, code, opt_type, opt in ((then, OP.ADD, OPT.AddOptions, fb.AddOptionsT()),
                                    (other, OP.MUL, OPT.MulOptions, fb.MulOptionsT())):
        a = sg.tensor("x", shape, TT.FLOAT32)
        b = sg.tensor("y", shape, TT.FLOAT32)
        sg.op(code, [a, a], [b], opt_type, opt)
        sg.g.inputs = [a]
        sg.g.outputs = [tail(sg, b) if tail else b]


def if_main(description, flag=None, branch=(1, 48)):
    """Subgraph 0 of an IF model: input -> pre -> IF(flag, pre) -> branch, running then
    (subgraph 1) and else (2). flag: the condition's constant value, None for an input.
    Returns the model, its graphs main, then and else, and flag, input, pre, branch."""
    m, g = main_graph(description)
    then = Graph(m, "then")
    other = Graph(m, "else")
    c = g.tensor("flag", [], TT.BOOL, None if flag is None else np.array(flag))
    x, pre = input_pre(g, [1, 48])
    y = g.tensor("branch", list(branch), TT.FLOAT32)
    if_op(g, c, [pre], [y])
    return m, g, then, other, c, x, pre, y


def square_plus(body, x, shape):
    """x * x + x, the loop bodies' work: returns the result, x_next."""
    sq = body.tensor("sq", shape, TT.FLOAT32)
    body.op(OP.MUL, [x, x], [sq], OPT.MulOptions, fb.MulOptionsT())
    nxt = body.tensor("x_next", shape, TT.FLOAT32)
    body.op(OP.ADD, [sq, x], [nxt], OPT.AddOptions, fb.AddOptionsT())
    return nxt


def doubling_body(cond, body, step=()):
    """The cond (i < 3) and a body of i + 1 (of the step's shape) and x + x."""
    bi, bx, bi2 = while_cond_counter(cond, body, step=step)
    bx2 = body.tensor("x_next", [1, 32], TT.FLOAT32)
    body.op(OP.ADD, [bx, bx], [bx2], OPT.AddOptions, fb.AddOptionsT())
    body.g.inputs = [bi, bx]
    body.g.outputs = [bi2, bx2]


def while_loop(path, step=(), what="a WHILE loop with cond and body subgraphs"):
    """gen_while_loop, and with step (1,) gen_while_scalar: the body's counter step."""
    m, g = main_graph("arenaprof generated: " + what)
    cond = Graph(m, "cond")
    body = Graph(m, "body")
    x, pre, y, _ = while_caller(g)
    out = g.tensor("output", [1, 32], TT.FLOAT32)
    g.op(OP.MUL, [y, y], [out], OPT.MulOptions, fb.MulOptionsT())
    g.g.inputs = [x]
    g.g.outputs = [out]

    doubling_body(cond, body, step)
    m.write(path)


def if_else(path):
    m, g, then, other, flag, x, pre, y = if_main(
        "arenaprof generated: IF with then and else subgraphs")
    out = g.tensor("output", [1, 48], TT.FLOAT32)
    g.op(OP.ADD, [y, x], [out], OPT.AddOptions, fb.AddOptionsT())
    g.g.inputs = [flag, x]
    g.g.outputs = [out]
    add_mul_branches(then, other, [1, 48])
    m.write(path)


def detection_postprocess(path):
    m, g = main_graph("arenaprof generated: an SSD head and TFLite_Detection_PostProcess")
    anchors_n, classes = 96, 6
    feat = g.tensor("features", [1, anchors_n, 16], TT.FLOAT32)
    wb = g.tensor("box/weights", [4, 16], TT.FLOAT32, weights([4, 16], np.float32, 50))
    bb = g.tensor("box/bias", [4], TT.FLOAT32, weights([4], np.float32, 51))
    box = g.tensor("box_encodings", [1, anchors_n, 4], TT.FLOAT32)
    fo = fb.FullyConnectedOptionsT()
    fo.keepNumDims = True
    g.op(OP.FULLY_CONNECTED, [feat, wb, bb], [box], OPT.FullyConnectedOptions, fo)
    wc = g.tensor("cls/weights", [classes, 16], TT.FLOAT32,
                  weights([classes, 16], np.float32, 52))
    bc = g.tensor("cls/bias", [classes], TT.FLOAT32, weights([classes], np.float32, 53))
    logits = g.tensor("class_logits", [1, anchors_n, classes], TT.FLOAT32)
    fo2 = fb.FullyConnectedOptionsT()
    fo2.keepNumDims = True
    g.op(OP.FULLY_CONNECTED, [feat, wc, bc], [logits], OPT.FullyConnectedOptions, fo2)
    cls = g.tensor("class_predictions", [1, anchors_n, classes], TT.FLOAT32)
    g.op(OP.LOGISTIC, [logits], [cls])
    anchors = g.tensor("anchors", [anchors_n, 4], TT.FLOAT32,
                       np.abs(weights([anchors_n, 4], np.float32, 54)) + 0.1)
    max_det = 10
    outs = [g.tensor("detection_boxes", [1, max_det, 4], TT.FLOAT32),
            g.tensor("detection_classes", [1, max_det], TT.FLOAT32),
            g.tensor("detection_scores", [1, max_det], TT.FLOAT32),
            g.tensor("num_detections", [1], TT.FLOAT32)]
    opts = flexbuffers.Dumps({
        "max_detections": max_det, "max_classes_per_detection": 1,
        "detections_per_class": 100, "use_regular_nms": False,
        "nms_score_threshold": 0.3, "nms_iou_threshold": 0.6,
        "num_classes": classes - 1, "y_scale": 10.0, "x_scale": 10.0,
        "h_scale": 5.0, "w_scale": 5.0})
    g.op(OP.CUSTOM, [box, cls, anchors], outs, custom="TFLite_Detection_PostProcess",
         custom_opts=list(opts))
    finish(m, g, [feat], outs, path)


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


def add_n(path):
    m, g = main_graph("arenaprof generated: ADD_N and its scratch")
    xs = [g.tensor("input%d" % i, [1, 100], TT.FLOAT32) for i in range(5)]
    y = g.tensor("sum", [1, 100], TT.FLOAT32)
    g.op(OP.ADD_N, xs, [y], OPT.AddNOptions, fb.AddNOptionsT())
    out = g.tensor("output", [1, 100], TT.FLOAT32)
    g.op(OP.ADD, [y, xs[0]], [out], OPT.AddOptions, fb.AddOptionsT())
    finish(m, g, xs, [out], path)


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


def conv3d(path):
    m, g = main_graph("arenaprof generated: CONV_3D and its im2col")
    x = g.tensor("input", [1, 4, 8, 8, 3], TT.FLOAT32)
    prev = x
    for i, (shape, stride, pad, out) in enumerate([
            ([3, 3, 3, 3, 8], 1, fb.Padding.SAME, [1, 4, 8, 8, 8]),
            ([1, 1, 1, 8, 4], 2, fb.Padding.VALID, [1, 2, 4, 4, 4])]):
        f = g.tensor("conv3d%d/filter" % i, shape, TT.FLOAT32,
                     weights(shape, np.float32, 300 + i))
        b = g.tensor("conv3d%d/bias" % i, [shape[4]], TT.FLOAT32,
                     weights([shape[4]], np.float32, 310 + i))
        y = g.tensor("conv3d%d" % i, out, TT.FLOAT32)
        o = fb.Conv3DOptionsT()
        o.padding = pad
        o.strideD = o.strideH = o.strideW = stride
        g.op(OP.CONV_3D, [prev, f, b], [y], OPT.Conv3DOptions, o)
        prev = y
    finish(m, g, [x], [prev], path)


def const_fold(path):
    m, g = main_graph("arenaprof generated: outputs folded into the heap at Prepare")
    x = g.tensor("input", [1, 8, 8, 4], TT.FLOAT32)
    shp = g.tensor("shape", [4], TT.INT32)
    so = fb.ShapeOptionsT()
    so.outType = TT.INT32
    g.op(OP.SHAPE, [x], [shp], OPT.ShapeOptions, so)
    rank = g.tensor("rank", [], TT.INT32)
    g.op(OP.RANK, [x], [rank], OPT.RankOptions, fb.RankOptionsT())
    begin = g.tensor("begin", [1], TT.INT32, np.array([0], dtype=np.int32))
    end = g.tensor("end", [1], TT.INT32, np.array([4], dtype=np.int32))
    strides = g.tensor("strides", [1], TT.INT32, np.array([1], dtype=np.int32))
    ss = g.tensor("shape_again", [4], TT.INT32)
    g.op(OP.STRIDED_SLICE, [shp, begin, end, strides], [ss], OPT.StridedSliceOptions,
         fb.StridedSliceOptionsT())
    y = g.tensor("double", [1, 8, 8, 4], TT.FLOAT32)
    g.op(OP.ADD, [x, x], [y], OPT.AddOptions, fb.AddOptionsT())
    # a shape computed from folded tensors: not dyn, the output shares its input
    z = g.tensor("reshaped", [1, 8, 8, 4], TT.FLOAT32)
    g.op(OP.RESHAPE, [y, ss], [z])
    idx = g.tensor("idx", [2], TT.INT32, np.array([1, 2], dtype=np.int32))
    hw = g.tensor("hw", [2], TT.INT32)
    g.op(OP.GATHER, [shp, idx], [hw], OPT.GatherOptions, fb.GatherOptionsT())
    c0 = g.tensor("c0", [16, 16], TT.FLOAT32, weights([16, 16], np.float32, 40))
    c1 = g.tensor("c1", [16, 16], TT.FLOAT32, weights([16, 16], np.float32, 41))
    cat = g.tensor("const_cat", [32, 16], TT.FLOAT32)
    co = fb.ConcatenationOptionsT()
    co.axis = 0
    g.op(OP.CONCATENATION, [c0, c1], [cat], OPT.ConcatenationOptions, co)
    rs = g.tensor("const_cat/shape", [2], TT.INT32, np.array([16, 32], dtype=np.int32))
    cr = g.tensor("const_reshaped", [16, 32], TT.FLOAT32)
    g.op(OP.RESHAPE, [cat, rs], [cr])
    axis = g.tensor("axis", [1], TT.INT32, np.array([1], dtype=np.int32))
    prod = g.tensor("const_prod", [4], TT.FLOAT32)
    c2 = g.tensor("c2", [4, 8], TT.FLOAT32, weights([4, 8], np.float32, 42))
    ro = fb.ReducerOptionsT()
    g.op(OP.REDUCE_PROD, [c2, axis], [prod], OPT.ReducerOptions, ro)
    out = g.tensor("output", [1, 8, 8, 4], TT.FLOAT32)
    g.op(OP.ADD, [z, x], [out], OPT.AddOptions, fb.AddOptionsT())
    finish(m, g, [x], [out, hw, rank, cr, prod], path)


def dynamic_reshape(path):
    m, g = main_graph("arenaprof generated: RESHAPE of computed shapes (shape not known "
                      "at Prepare) and of an empty constant shape")

    def computed(name, values):
        """An int32 tensor ADD computes from two constants: ADD does not fold."""
        v = np.array(values, dtype=np.int32)
        z = g.tensor(name + "/zero", list(v.shape), TT.INT32, np.zeros_like(v))
        c = g.tensor(name + "/const", list(v.shape), TT.INT32, v)
        out = g.tensor(name, list(v.shape), TT.INT32)
        g.op(OP.ADD, [c, z], [out], OPT.AddOptions, fb.AddOptionsT())
        return out

    def reshape(x, shape, name, dims):
        out = g.tensor(name, dims, TT.FLOAT32)
        g.op(OP.RESHAPE, [x, shape], [out], OPT.ReshapeOptions, fb.ReshapeOptionsT())
        return out

    def unary(code, x, name, dims):
        out = g.tensor(name, dims, TT.FLOAT32)
        g.op(code, [x], [out])
        return out

    x = g.tensor("input", [1, 64], TT.FLOAT32)
    # the graph input cannot be shared: an arena slot at its step, then dyn in Eval
    r1 = reshape(x, computed("shape1", [8, 8]), "reshaped_input", [8, 8])
    k = g.tensor("k", [8, 8], TT.FLOAT32, np.ones((8, 8), dtype=np.float32))
    a = g.tensor("a", [8, 8], TT.FLOAT32)
    # shares r1 when LiteRT plans, r1 turns dyn: a gets a buffer of its own, never freed
    g.op(OP.ADD, [r1, k], [a], OPT.AddOptions, fb.AddOptionsT())
    b = unary(OP.RELU, a, "b", [8, 8])
    # an arena input: the output shares its buffer
    r2 = reshape(b, computed("shape2", [4, 16]), "reshaped_shared", [4, 16])
    c = unary(OP.RELU, r2, "c", [4, 16])
    t = g.tensor("tiled", [8, 16], TT.FLOAT32)
    g.op(OP.TILE, [c, computed("multiples", [2, 1])], [t], OPT.TileOptions, fb.TileOptionsT())
    # its input turned dyn after LiteRT shared it: a slot of its own, then dyn
    r3 = reshape(t, computed("shape3", [128]), "reshaped_dyn", [128])
    d = unary(OP.RELU, r3, "d", [128])
    e = g.tensor("e", [1], TT.FLOAT32)
    g.op(OP.SUM, [d, g.tensor("axis", [1], TT.INT32, np.array([0], dtype=np.int32))], [e],
         OPT.ReducerOptions, fb.ReducerOptionsT())
    # an empty constant shape (a data vector of 0 bytes) is constant: shape known
    empty = g.tensor("scalar_shape", [0], TT.INT32, np.zeros(0, dtype=np.int32))
    sc = reshape(e, empty, "scalar", [])
    out = unary(OP.RELU, sc, "output", [])
    finish(m, g, [x], [d, out], path)


def open_shapes(path):
    m, g = main_graph("arenaprof generated: shapes the file leaves open (signature -1), "
                      "given by LiteRT from the input shape and computed shape values")

    def t(name, shape, sig, ttype=TT.FLOAT32, data=None):
        i = g.tensor(name, shape, ttype, data)
        g.g.tensors[i].shapeSignature = list(sig)
        return i

    def const_i32(name, values):
        v = np.array(values, dtype=np.int32)
        return g.tensor(name, list(v.shape), TT.INT32, v)

    # the converter writes 1 for each unknown dimension: [1, 1, 8] for [1, -1, 8]
    x = t("input", [1, 1, 8], [1, -1, 8])
    a = t("a", [1, 1, 8], [1, -1, 8])
    g.op(OP.ADD, [x, x], [a], OPT.AddOptions, fb.AddOptionsT())
    shape = t("shape", [3], [3], TT.INT32)
    sho = fb.ShapeOptionsT()
    sho.outType = TT.INT32
    g.op(OP.SHAPE, [a], [shape], OPT.ShapeOptions, sho)
    n = t("n", [], [], TT.INT32)
    so = fb.StridedSliceOptionsT()
    so.shrinkAxisMask = 1
    g.op(OP.STRIDED_SLICE, [shape, const_i32("b", [1]), const_i32("e", [2]),
                            const_i32("s", [1])], [n], OPT.StridedSliceOptions, so)
    n2 = t("n2", [], [], TT.INT32)
    g.op(OP.MUL, [n, const_i32("two", 2)], [n2], OPT.MulOptions, fb.MulOptionsT())
    packed = t("new_shape", [3], [3], TT.INT32)
    po = fb.PackOptionsT()
    po.valuesCount = 3
    g.op(OP.PACK, [const_i32("one", 1), n2, const_i32("four", 4)], [packed],
         OPT.PackOptions, po)
    # PACK does not fold: the shape is known in Eval only
    r = t("reshaped", [1, 1, 4], [1, -1, 4])
    g.op(OP.RESHAPE, [a, packed], [r], OPT.ReshapeOptions, fb.ReshapeOptionsT())
    e = t("expanded", [1, 1, 1, 4], [1, -1, 1, 4])
    g.op(OP.EXPAND_DIMS, [r, const_i32("axis2", 2)], [e])
    f = g.tensor("filter", [6, 3, 1, 4], TT.FLOAT32, weights([6, 3, 1, 4], np.float32, 7))
    cv = t("conv", [1, 1, 1, 6], [1, -1, 1, 6])
    bias = g.tensor("bias", [6], TT.FLOAT32, np.zeros(6, dtype=np.float32))
    g.op(OP.CONV_2D, [e, f, bias], [cv], OPT.Conv2DOptions, conv_opts(1, fb.Padding.VALID))
    sq = t("squeezed", [1, 1, 6], [1, -1, 6])
    sqo = fb.SqueezeOptionsT()
    sqo.squeezeDims = [2]
    g.op(OP.SQUEEZE, [cv], [sq], OPT.SqueezeOptions, sqo)
    tr = t("transposed", [1, 6, 1], [1, 6, -1])
    g.op(OP.TRANSPOSE, [sq, const_i32("perm", [0, 2, 1])], [tr], OPT.TransposeOptions,
         fb.TransposeOptionsT())
    cat = t("concat", [1, 6, 2], [1, 6, -1])
    co = fb.ConcatenationOptionsT()
    co.axis = 2
    g.op(OP.CONCATENATION, [tr, tr], [cat], OPT.ConcatenationOptions, co)
    mo = fb.ReducerOptionsT()
    mo.keepDims = False
    mean = t("mean", [1, 6], [1, 6])
    g.op(OP.MEAN, [cat, const_i32("axis_t", [2])], [mean], OPT.ReducerOptions, mo)
    w = g.tensor("fc_w", [3, 6], TT.FLOAT32, weights([3, 6], np.float32, 8))
    out = t("output", [1, 3], [1, 3])
    g.op(OP.FULLY_CONNECTED, [mean, w, -1], [out], OPT.FullyConnectedOptions,
         fb.FullyConnectedOptionsT())
    # flattened to [-1], written [1]: LiteRT decided MUL's in-place sharing on those 4
    # bytes (no sharing at 4 bytes or less), before its Prepare gave the real size
    ng = t("negated", [1, 1, 6], [1, -1, 6])
    g.op(OP.NEG, [sq], [ng])
    flat = t("flat", [1], [-1])
    g.op(OP.RESHAPE, [ng, const_i32("minus_one", [-1])], [flat], OPT.ReshapeOptions,
         fb.ReshapeOptionsT())
    sc = t("scaled", [1], [-1])
    g.op(OP.MUL, [flat, g.tensor("two_f", [], TT.FLOAT32, np.array(2.0, dtype=np.float32))],
         [sc], OPT.MulOptions, fb.MulOptionsT())
    rl = t("relu", [1], [-1])
    g.op(OP.RELU, [sc], [rl])
    finish(m, g, [x], [out, cat, rl], path)


def dynamic_tile(path):
    m, g = main_graph("arenaprof generated: TILE of computed multiples, its output dynamic")
    x = g.tensor("input", [1, 64], TT.FLOAT32)
    a = g.tensor("a", [1, 64], TT.FLOAT32)
    g.op(OP.ADD, [x, x], [a], OPT.AddOptions, fb.AddOptionsT())
    m1 = g.tensor("m1", [2], TT.INT32, np.array([1, 1], dtype=np.int32))
    m2 = g.tensor("m2", [2], TT.INT32, np.array([1, 1], dtype=np.int32))
    mult = g.tensor("multiples", [2], TT.INT32)
    g.op(OP.ADD, [m1, m2], [mult], OPT.AddOptions, fb.AddOptionsT())
    t = g.tensor("tiled", [2, 128], TT.FLOAT32)
    g.op(OP.TILE, [a, mult], [t], OPT.TileOptions, fb.TileOptionsT())
    b = g.tensor("b", [1, 64], TT.FLOAT32)
    g.op(OP.MUL, [a, a], [b], OPT.MulOptions, fb.MulOptionsT())
    c = g.tensor("c", [1, 64], TT.FLOAT32)
    g.op(OP.RELU, [b], [c])
    r = g.tensor("r", [2, 128], TT.FLOAT32)
    g.op(OP.RELU, [t], [r])
    finish(m, g, [x], [r, c], path)


def computed_in(g, name, values, dtype=np.int32, ttype=TT.INT32):
    """A tensor ADD computes from two constants: ADD does not fold, so it is not const."""
    v = np.array(values, dtype=dtype)
    z = g.tensor(name + "/zero", list(v.shape), ttype, np.zeros_like(v))
    c = g.tensor(name + "/const", list(v.shape), ttype, v)
    out = g.tensor(name, list(v.shape), ttype)
    g.op(OP.ADD, [c, z], [out], OPT.AddOptions, fb.AddOptionsT())
    return out


def dynamic_shapes(path):
    m, g = main_graph("arenaprof generated: outputs made dynamic by computed shape inputs")

    def computed(name, values):
        return computed_in(g, name, values)

    x = g.tensor("input", [1, 8, 8, 4], TT.FLOAT32)
    a = g.tensor("a", [1, 8, 8, 4], TT.FLOAT32)
    g.op(OP.ADD, [x, x], [a], OPT.AddOptions, fb.AddOptionsT())
    perm = computed("perm", [0, 2, 1, 3])
    tr = g.tensor("transposed", [1, 8, 8, 4], TT.FLOAT32)
    g.op(OP.TRANSPOSE, [a, perm], [tr], OPT.TransposeOptions, fb.TransposeOptionsT())
    pads = computed("paddings", [[0, 0], [1, 1], [1, 1], [0, 0]])
    pd = g.tensor("padded", [1, 10, 10, 4], TT.FLOAT32)
    g.op(OP.PAD, [tr, pads], [pd], OPT.PadOptions, fb.PadOptionsT())
    size = computed("size", [16, 16])
    rz = g.tensor("resized", [1, 16, 16, 4], TT.FLOAT32)
    ro = fb.ResizeBilinearOptionsT()
    g.op(OP.RESIZE_BILINEAR, [pd, size], [rz], OPT.ResizeBilinearOptions, ro)
    shape = computed("shape", [2, 16, 16, 4])
    bc = g.tensor("broadcast", [2, 16, 16, 4], TT.FLOAT32)
    g.op(OP.BROADCAST_TO, [rz, shape], [bc])
    m.m.operatorCodes[m.codes[(OP.BROADCAST_TO, None)]].version = 2  # LiteRT has 2 and 3
    axis = computed("axis", 0)
    s0 = g.tensor("split0", [1, 16, 16, 4], TT.FLOAT32)
    s1 = g.tensor("split1", [1, 16, 16, 4], TT.FLOAT32)
    so = fb.SplitOptionsT()
    so.numSplits = 2
    g.op(OP.SPLIT, [axis, bc], [s0, s1], OPT.SplitOptions, so)
    dims = computed("dims", [1, 16, 16, 4])
    one = g.tensor("one", [], TT.FLOAT32, np.array(1.0, dtype=np.float32))
    fl = g.tensor("filled", [1, 16, 16, 4], TT.FLOAT32)
    g.op(OP.FILL, [dims, one], [fl], OPT.FillOptions, fb.FillOptionsT())
    y = g.tensor("y", [1, 16, 16, 4], TT.FLOAT32)
    g.op(OP.ADD, [s0, fl], [y], OPT.AddOptions, fb.AddOptionsT())
    out = g.tensor("output", [1, 16, 16, 4], TT.FLOAT32)
    g.op(OP.MUL, [y, s1], [out], OPT.MulOptions, fb.MulOptionsT())
    finish(m, g, [x], [out], path)


def dynamic_ops(path):
    m, g = main_graph("arenaprof generated: more outputs made dynamic by computed inputs")
    f32, i32 = TT.FLOAT32, TT.INT32

    def const(name, values, dtype=np.int32, ttype=i32):
        v = np.array(values, dtype=dtype)
        return g.tensor(name, list(v.shape), ttype, v)

    def cmp(name, values):
        return computed_in(g, name, values)

    def out(name, shape, ttype=f32, signature=None):
        t = g.tensor(name, shape, ttype)
        if signature is not None:
            g.g.tensors[t].shapeSignature = list(signature)
        outs.append(t)
        return t

    outs = []
    x = g.tensor("input", [1, 8, 8, 4], f32)
    a = g.tensor("a", [1, 8, 8, 4], f32)
    g.op(OP.ADD, [x, x], [a], OPT.AddOptions, fb.AddOptionsT())
    ones4 = const("strides", [1, 1, 1, 1])
    g.op(OP.STRIDED_SLICE, [a, cmp("begin", [0, 0, 0, 0]), cmp("end", [1, 4, 8, 4]), ones4],
         [out("strided", [1, 4, 8, 4])], OPT.StridedSliceOptions, fb.StridedSliceOptionsT())
    # offset: end is a size from begin, so a computed begin leaves the shape known
    so = fb.StridedSliceOptionsT()
    so.offset = True
    g.op(OP.STRIDED_SLICE, [a, cmp("begin_off", [0, 2, 0, 0]), const("size_off", [1, 4, 8, 4]),
                            ones4], [out("strided_offset", [1, 4, 8, 4])],
         OPT.StridedSliceOptions, so)
    g.op(OP.RANGE, [const("start", 0), cmp("limit", 8), const("delta", 1)],
         [out("range", [8], i32)], OPT.RangeOptions, fb.RangeOptionsT())
    size = const("slice_size", [1, 4, 8, 4])
    # a static output shape is kept; one of unknown dims is dyn
    g.op(OP.SLICE, [a, cmp("slice_begin", [0, 0, 0, 0]), size],
         [out("sliced_static", [1, 4, 8, 4])], OPT.SliceOptions, fb.SliceOptionsT())
    g.op(OP.SLICE, [a, cmp("slice_begin2", [0, 4, 0, 0]), size],
         [out("sliced", [1, 4, 8, 4], signature=[1, -1, 8, 4])], OPT.SliceOptions,
         fb.SliceOptionsT())
    s2b = g.tensor("space_to_batch", [4, 4, 4, 4], f32)
    g.op(OP.SPACE_TO_BATCH_ND, [a, cmp("block", [2, 2]), const("s2b_pad", [[0, 0], [0, 0]])],
         [s2b], OPT.SpaceToBatchNDOptions, fb.SpaceToBatchNDOptionsT())
    g.op(OP.BATCH_TO_SPACE_ND, [s2b, cmp("block2", [2, 2]), const("crops", [[0, 0], [0, 0]])],
         [out("batch_to_space", [1, 8, 8, 4])], OPT.BatchToSpaceNDOptions,
         fb.BatchToSpaceNDOptionsT())
    mean = g.tensor("mean", [1, 4], f32)
    g.op(OP.MEAN, [a, cmp("mean_axis", [1, 2])], [mean], OPT.ReducerOptions,
         fb.ReducerOptionsT())
    keep = fb.ReducerOptionsT()
    keep.keepDims = True
    g.op(OP.SUM, [a, cmp("sum_axis", [3])], [out("sum", [1, 8, 8, 1])], OPT.ReducerOptions,
         keep)
    g.op(OP.REDUCE_MAX, [a, cmp("max_axis", [1])], [out("max", [1, 8, 4])],
         OPT.ReducerOptions, fb.ReducerOptionsT())
    g.op(OP.TOPK_V2, [mean, cmp("k", 2)], [out("topk_values", [1, 2]),
                                           out("topk_indices", [1, 2], i32)],
         OPT.TopKV2Options, fb.TopKV2OptionsT())
    sv = fb.SplitVOptionsT()
    sv.numSplits = 2
    g.op(OP.SPLIT_V, [a, cmp("size_splits", [3, 5]), const("split_axis", 1)],
         [out("split_v0", [1, 3, 8, 4]), out("split_v1", [1, 5, 8, 4])], OPT.SplitVOptions, sv)
    pads = [[0, 0], [1, 1], [1, 1], [0, 0]]
    g.op(OP.PADV2, [a, cmp("padv2_pads", pads), const("pad_value", 1.0, np.float32, f32)],
         [out("padded_v2", [1, 10, 10, 4])], OPT.PadV2Options, fb.PadV2OptionsT())
    mp = fb.MirrorPadOptionsT()
    mp.mode = fb.MirrorPadMode.REFLECT
    g.op(OP.MIRROR_PAD, [a, cmp("mirror_pads", pads)], [out("mirror_padded", [1, 10, 10, 4])],
         OPT.MirrorPadOptions, mp)
    g.op(OP.RESIZE_NEAREST_NEIGHBOR, [a, cmp("nn_size", [16, 16])],
         [out("resized_nn", [1, 16, 16, 4])], OPT.ResizeNearestNeighborOptions,
         fb.ResizeNearestNeighborOptionsT())
    am = fb.ArgMaxOptionsT()
    am.outputType = TT.INT64
    g.op(OP.ARG_MAX, [a, cmp("argmax_axis", [3])], [out("argmax", [1, 8, 8], TT.INT64)],
         OPT.ArgMaxOptions, am)
    an = fb.ArgMinOptionsT()
    an.outputType = TT.INT64
    g.op(OP.ARG_MIN, [a, cmp("argmin_axis", [3])], [out("argmin", [1, 8, 8], TT.INT64)],
         OPT.ArgMinOptions, an)
    oh = fb.OneHotOptionsT()
    oh.axis = -1
    g.op(OP.ONE_HOT, [const("oh_indices", [0, 1, 2, 1]), cmp("depth", 3),
                      const("on", 1.0, np.float32, f32), const("off", 0.0, np.float32, f32)],
         [out("one_hot", [4, 3])], OPT.OneHotOptions, oh)
    # EXPAND_DIMS shares its input in place: here with a dyn output
    ed = g.tensor("expanded", [1, 1, 8, 8, 4], f32)
    g.op(OP.EXPAND_DIMS, [a, cmp("expand_axis", 0)], [ed], OPT.ExpandDimsOptions,
         fb.ExpandDimsOptionsT())
    g.op(OP.ADD, [ed, ed], [out("expanded_sum", [1, 1, 8, 8, 4])], OPT.AddOptions,
         fb.AddOptionsT())
    g.op(OP.SPARSE_TO_DENSE, [const("sp_indices", [[0], [2]]), cmp("dense_shape", [4]),
                              const("sp_values", [2.0, 3.0], np.float32, f32),
                              const("sp_default", 0.0, np.float32, f32)],
         [out("dense", [4])], OPT.SparseToDenseOptions, fb.SparseToDenseOptionsT())
    cond = g.tensor("cond", [4], TT.BOOL)
    g.op(OP.GREATER, [const("cond_values", [1.0, 0.0, 2.0, 3.0], np.float32, f32),
                      const("cond_zero", [0.0] * 4, np.float32, f32)], [cond],
         OPT.GreaterOptions, fb.GreaterOptionsT())
    g.op(OP.WHERE, [cond], [out("where", [3, 1], TT.INT64)], OPT.WhereOptions,
         fb.WhereOptionsT())
    g.op(OP.SCATTER_ND, [const("sc_indices", [[1], [3]]),
                         const("sc_updates", [5.0, 6.0], np.float32, f32),
                         cmp("sc_shape", [4])], [out("scattered", [4])],
         OPT.ScatterNdOptions, fb.ScatterNdOptionsT())
    boxes = const("boxes", [[0, 0, 1, 1], [0, 0.1, 1, 1.1], [0, 2, 1, 3], [0, 4, 1, 5]],
                  np.float32, f32)
    scores = const("scores", [0.9, 0.8, 0.7, 0.6], np.float32, f32)
    iou, thr = const("iou", 0.5, np.float32, f32), const("score_thr", 0.0, np.float32, f32)
    g.op(OP.NON_MAX_SUPPRESSION_V4, [boxes, scores, cmp("max_out", 3), iou, thr],
         [out("nms4_indices", [3], i32), out("nms4_valid", [], i32)],
         OPT.NonMaxSuppressionV4Options, fb.NonMaxSuppressionV4OptionsT())
    g.op(OP.NON_MAX_SUPPRESSION_V5, [boxes, scores, cmp("max_out5", 3), iou, thr,
                                     const("sigma", 0.0, np.float32, f32)],
         [out("nms5_indices", [3], i32), out("nms5_scores", [3]), out("nms5_valid", [], i32)],
         OPT.NonMaxSuppressionV5Options, fb.NonMaxSuppressionV5OptionsT())
    seg_data = const("seg_data", np.arange(8).reshape(4, 2), np.float32, f32)
    g.op(OP.SEGMENT_SUM, [seg_data, cmp("seg_ids", [0, 0, 1, 1])],
         [out("segment_sum", [2, 2])], OPT.SegmentSumOptions, fb.SegmentSumOptionsT())
    g.op(OP.UNSORTED_SEGMENT_SUM, [seg_data, const("useg_ids", [0, 1, 0, 1]),
                                   cmp("num_segments", [2])],
         [out("unsorted_sum", [2, 2])], OPT.UnsortedSegmentSumOptions,
         fb.UnsortedSegmentSumOptionsT())
    tc = fb.TransposeConvOptionsT()
    tc.padding, tc.strideH, tc.strideW = fb.Padding.SAME, 2, 2
    w = const("tconv_w", np.ones((4, 3, 3, 4)) / 36, np.float32, f32)
    g.op(OP.TRANSPOSE_CONV, [cmp("tconv_shape", [1, 16, 16, 4]), w, a],
         [out("tconv", [1, 16, 16, 4])], OPT.TransposeConvOptions, tc)
    # an output_shape folded at Prepare (ro) is still not IsConstantTensor
    ro_shape = g.tensor("tconv_shape_ro", [4], i32)
    co = fb.ConcatenationOptionsT()
    g.op(OP.CONCATENATION, [const("tconv_hw", [1, 16]), const("tconv_wc", [16, 4])],
         [ro_shape], OPT.ConcatenationOptions, co)
    g.op(OP.TRANSPOSE_CONV, [ro_shape, w, a], [out("tconv_ro", [1, 16, 16, 4])],
         OPT.TransposeConvOptions, tc)
    uo = fb.UniqueOptionsT()
    uo.idxOutType = i32
    g.op(OP.UNIQUE, [cmp("unique_in", [1, 2, 1, 3])],
         [out("unique", [3], i32), out("unique_idx", [4], i32)], OPT.UniqueOptions, uo)
    finish(m, g, [x], outs, path)


def dynamic_edges(path):
    m, g = main_graph("arenaprof generated: the special cases of outputs made dynamic")
    f32, i32 = TT.FLOAT32, TT.INT32

    def const(name, values, dtype=np.int32, ttype=i32):
        v = np.array(values, dtype=dtype)
        return g.tensor(name, list(v.shape), ttype, v)

    def cmp(name, values, dtype=np.int32, ttype=i32):
        return computed_in(g, name, values, dtype, ttype)

    def out(name, shape, ttype=f32, signature=None):
        t = g.tensor(name, shape, ttype)
        if signature is not None:
            g.g.tensors[t].shapeSignature = list(signature)
        outs.append(t)
        return t

    def reduce(code, name, x, axis, shape, ttype=f32):
        g.op(code, [x, cmp(name + "_axis", axis)], [out(name, shape, ttype)],
             OPT.ReducerOptions, fb.ReducerOptionsT())

    outs = []
    x = g.tensor("input", [1, 8, 8, 4], f32)
    a = g.tensor("a", [1, 8, 8, 4], f32)
    g.op(OP.ADD, [x, x], [a], OPT.AddOptions, fb.AddOptionsT())
    # the reductions that were not on gen_dynamic_ops; REDUCE_PROD of a constant input:
    # its normalized_dims stays in the arena
    reduce(OP.REDUCE_PROD, "prod", const("prod_in", np.ones((2, 3)), np.float32, f32), [1],
           [2])
    reduce(OP.REDUCE_MIN, "min", a, [1, 2], [1, 4])
    flags = g.tensor("flags", [1, 8, 8, 4], TT.BOOL)
    g.op(OP.GREATER, [a, const("zero", 0.0, np.float32, f32)], [flags], OPT.GreaterOptions,
         fb.GreaterOptionsT())
    reduce(OP.REDUCE_ANY, "any", flags, [3], [1, 8, 8], TT.BOOL)
    reduce(OP.REDUCE_ALL, "all", flags, [3], [1, 8, 8], TT.BOOL)
    # PAD of a scalar: dyn with constant paddings
    g.op(OP.PAD, [const("scalar", 2.0, np.float32, f32), const("no_pads", np.zeros((0, 2)))],
         [out("padded_scalar", [])], OPT.PadOptions, fb.PadOptionsT())
    g.op(OP.PADV2, [const("scalar2", 3.0, np.float32, f32), const("no_pads2", np.zeros((0, 2))),
                    const("pad_value", 1.0, np.float32, f32)],
         [out("padded_scalar_v2", [])], OPT.PadV2Options, fb.PadV2OptionsT())
    # TOPK_V2 of an input of unknown dims: dyn with a constant k; SLICE of it too when
    # its own output shape is not fully given
    unk = g.tensor("unknown", [1, 8, 8, 4], f32)
    g.g.tensors[unk].shapeSignature = [1, -1, 8, 4]
    g.op(OP.ADD, [a, a], [unk], OPT.AddOptions, fb.AddOptionsT())
    g.op(OP.SLICE, [unk, const("slice_begin", [0, 0, 0, 0]), const("slice_size", [1, 2, 8, 4])],
         [out("sliced_unknown", [1, 2, 8, 4], signature=[1, -1, 8, 4])], OPT.SliceOptions,
         fb.SliceOptionsT())
    g.op(OP.TOPK_V2, [unk, const("k", 2)], [out("topk_values", [1, 8, 8, 2]),
                                           out("topk_indices", [1, 8, 8, 2], i32)],
         OPT.TopKV2Options, fb.TopKV2OptionsT())
    # STRIDED_SLICE with offset and computed strides: dyn
    so = fb.StridedSliceOptionsT()
    so.offset = True
    g.op(OP.STRIDED_SLICE, [a, const("begin", [0, 0, 0, 0]), const("size", [1, 4, 8, 4]),
                            cmp("strides", [1, 1, 1, 1])], [out("strided", [1, 4, 8, 4])],
         OPT.StridedSliceOptions, so)
    # UNSORTED_SEGMENT_* of constant ids and count: MAX of dyn data (a RANGE of a computed
    # limit) is dyn, PROD and MIN with a computed count, SUM of constants is static
    data = g.tensor("seg_data", [8], f32)
    g.op(OP.RANGE, [const("r0", 0.0, np.float32, f32), cmp("r_limit", 8.0, np.float32, f32),
                    const("r1", 1.0, np.float32, f32)], [data], OPT.RangeOptions,
         fb.RangeOptionsT())
    g.op(OP.UNSORTED_SEGMENT_MAX, [data, const("seg_ids8", [0, 1] * 4), const("two", [2])],
         [out("useg_max", [2])], OPT.UnsortedSegmentMaxOptions,
         fb.UnsortedSegmentMaxOptionsT())
    ids, two = const("seg_ids", [0, 1, 0, 1]), const("two2", [2])
    cdata = const("cseg_data", np.arange(8).reshape(4, 2), np.float32, f32)
    g.op(OP.UNSORTED_SEGMENT_PROD, [cdata, ids, cmp("count_prod", [2])],
         [out("useg_prod", [2, 2])], OPT.UnsortedSegmentProdOptions,
         fb.UnsortedSegmentProdOptionsT())
    g.op(OP.UNSORTED_SEGMENT_MIN, [cdata, ids, cmp("count_min", [2])],
         [out("useg_min", [2, 2])], OPT.UnsortedSegmentMinOptions,
         fb.UnsortedSegmentMinOptionsT())
    g.op(OP.UNSORTED_SEGMENT_SUM, [cdata, ids, two], [out("useg_sum_static", [2, 2])],
         OPT.UnsortedSegmentSumOptions, fb.UnsortedSegmentSumOptionsT())
    # the random kernels
    ro = fb.RandomOptionsT()
    ro.seed, ro.seed2 = 1, 2
    g.op(OP.RANDOM_UNIFORM, [cmp("uniform_shape", [2, 3])], [out("uniform", [2, 3])],
         OPT.RandomOptions, ro)
    g.op(OP.RANDOM_STANDARD_NORMAL, [cmp("normal_shape", [3, 2])], [out("normal", [3, 2])],
         OPT.RandomOptions, ro)
    g.op(OP.MULTINOMIAL, [cmp("logits", [[0.0, 1.0, 2.0]], np.float32, f32),
                          const("samples", 4)], [out("multinomial", [1, 4], TT.INT64)],
         OPT.RandomOptions, ro)
    # EMBEDDING_LOOKUP_SPARSE: always dyn
    el = fb.EmbeddingLookupSparseOptionsT()
    el.combiner = fb.CombinerType.SUM
    g.op(OP.EMBEDDING_LOOKUP_SPARSE,
         [const("el_ids", [0, 1, 2]), const("el_indices", [[0, 0], [0, 1], [1, 0]]),
          const("el_shape", [2, 2]), const("el_weights", [1.0, 1.0, 1.0], np.float32, f32),
          const("el_params", np.ones((4, 3)), np.float32, f32)],
         [out("embedded", [2, 3])], OPT.EmbeddingLookupSparseOptions, el)
    # DILATE asks IsConstantTensor: dilations folded at Prepare (ro) make it dyn
    dil = g.tensor("dilations", [4], i32)
    g.op(OP.CONCATENATION, [const("dil_a", [1, 2]), const("dil_b", [2, 1])], [dil],
         OPT.ConcatenationOptions, fb.ConcatenationOptionsT())
    g.op(OP.DILATE, [a, dil, const("dil_pad", 0.0, np.float32, f32)],
         [out("dilated", [1, 15, 15, 4])])
    # CONV_3D_TRANSPOSE: col2im on the heap (none when dilated), the output dyn with a
    # computed output_shape; a MEAN after them numbers its temporaries after col2im
    c3 = cmp("c3_in", np.ones((1, 2, 4, 4, 2)), np.float32, f32)
    w3 = const("c3_filter", np.ones((2, 2, 2, 3, 2)) / 16, np.float32, f32)
    c3o = fb.Conv3DOptionsT()
    c3o.padding, c3o.strideD, c3o.strideH, c3o.strideW = fb.Padding.SAME, 2, 2, 2
    shape3 = [1, 4, 8, 8, 3]
    g.op(OP.CONV_3D_TRANSPOSE, [const("c3_shape", shape3), w3, c3],
         [out("c3t", shape3)], OPT.Conv3DOptions, c3o)
    g.op(OP.CONV_3D_TRANSPOSE, [cmp("c3_shape_c", shape3), w3, c3],
         [out("c3t_computed", shape3)], OPT.Conv3DOptions, c3o)
    c3d = fb.Conv3DOptionsT()
    c3d.padding, c3d.strideD, c3d.strideH, c3d.strideW = fb.Padding.SAME, 2, 2, 2
    c3d.dilationDFactor = c3d.dilationHFactor = c3d.dilationWFactor = 2
    c3t_dil = g.tensor("c3t_dilated", shape3, f32)
    g.op(OP.CONV_3D_TRANSPOSE, [const("c3_shape_d", shape3), w3, c3], [c3t_dil],
         OPT.Conv3DOptions, c3d)
    g.op(OP.MEAN, [c3t_dil, const("c3_axis", [1, 2, 3])], [out("c3_mean", [1, 3])],
         OPT.ReducerOptions, fb.ReducerOptionsT())
    # READ_VARIABLE of rank 0: dyn (a scalar cannot be told from an unranked tensor)
    hv = var_handle(g, "scalar_var")
    g.op(OP.ASSIGN_VARIABLE, [hv, const("var_init", 5.0, np.float32, f32)], [])
    g.op(OP.READ_VARIABLE, [hv], [out("var_read", [])])
    finish(m, g, [x], outs, path)


def rfft2d(path):
    m, g = main_graph("arenaprof generated: RFFT2D of constant, computed and folded "
                      "fft_length")
    x = g.tensor("input", [1, 3, 16, 32], TT.FLOAT32)
    a = g.tensor("a", [1, 3, 16, 32], TT.FLOAT32)
    g.op(OP.ADD, [x, x], [a], OPT.AddOptions, fb.AddOptionsT())
    # constant fft_length: 4 arena temporaries; the input is cut to 8x16
    n0 = g.tensor("fft_length0", [2], TT.INT32, np.array([8, 16], dtype=np.int32))
    f0 = g.tensor("rfft0", [1, 3, 8, 9], TT.COMPLEX64)
    g.op(OP.RFFT2D, [a, n0], [f0])
    # fft_length ADD computes from two constants (not folded): output and temporaries
    # dynamic; the input is padded to 32x64
    z = g.tensor("fft_length1/zero", [2], TT.INT32, np.zeros([2], dtype=np.int32))
    c = g.tensor("fft_length1/const", [2], TT.INT32, np.array([32, 64], dtype=np.int32))
    n1 = g.tensor("fft_length1", [2], TT.INT32)
    g.op(OP.ADD, [c, z], [n1], OPT.AddOptions, fb.AddOptionsT())
    f1 = g.tensor("rfft1", [1, 3, 32, 33], TT.COMPLEX64)
    g.op(OP.RFFT2D, [a, n1], [f1])
    # fft_length folded at Prepare: SHAPE(a)[2:4] = [16, 32], values only LiteRT computes;
    # output and temporaries in the arena, sized from them
    shp = g.tensor("fft_length2/shape", [4], TT.INT32)
    so = fb.ShapeOptionsT()
    so.outType = TT.INT32
    g.op(OP.SHAPE, [a], [shp], OPT.ShapeOptions, so)
    begin = g.tensor("fft_length2/begin", [1], TT.INT32, np.array([2], dtype=np.int32))
    end = g.tensor("fft_length2/end", [1], TT.INT32, np.array([4], dtype=np.int32))
    strides = g.tensor("fft_length2/strides", [1], TT.INT32, np.array([1], dtype=np.int32))
    n2 = g.tensor("fft_length2", [2], TT.INT32)
    g.op(OP.STRIDED_SLICE, [shp, begin, end, strides], [n2], OPT.StridedSliceOptions,
         fb.StridedSliceOptionsT())
    f2 = g.tensor("rfft2", [1, 3, 16, 17], TT.COMPLEX64)
    g.op(OP.RFFT2D, [a, n2], [f2])
    out = g.tensor("output", [1, 3, 16, 32], TT.FLOAT32)
    g.op(OP.MUL, [a, a], [out], OPT.MulOptions, fb.MulOptionsT())
    finish(m, g, [x], [f0, f1, f2, out], path)


def numeric_verify(path):
    m, g = main_graph("arenaprof generated: NumericVerify of an int8 tensor against float")
    x = g.tensor("input", [1, 64], TT.FLOAT32)
    a = g.tensor("a", [1, 64], TT.FLOAT32)
    g.op(OP.ADD, [x, x], [a], OPT.AddOptions, fb.AddOptionsT())
    q = g.tensor("a/quantized", [1, 64], TT.INT8, scales=[0.1])
    g.op(OP.QUANTIZE, [a], [q])
    d = g.tensor("a/dequantized", [1, 64], TT.FLOAT32)
    g.op(OP.DEQUANTIZE, [q], [d])
    # the output is float32 in the persistent arena, its dequantized scratch heap
    v = g.tensor("verify", [1, 64], TT.FLOAT32)
    opts = flexbuffers.Dumps({"tolerance": 5.0, "log_if_failed": False})
    g.op(OP.CUSTOM, [q, a], [v], custom="NumericVerify", custom_opts=list(opts))
    out = g.tensor("output", [1, 64], TT.FLOAT32)
    g.op(OP.ADD, [d, a], [out], OPT.AddOptions, fb.AddOptionsT())
    finish(m, g, [x], [out, v], path)


def stablehlo_reduce_window(path):
    m, g = main_graph("arenaprof generated: STABLEHLO_REDUCE_WINDOW, dilated and padded copies")
    body = Graph(m, "body")
    p = body.tensor("lhs", [], TT.FLOAT32)
    q = body.tensor("rhs", [], TT.FLOAT32)
    r = body.tensor("sum", [], TT.FLOAT32)
    body.op(OP.ADD, [p, q], [r], OPT.AddOptions, fb.AddOptionsT())
    body.g.inputs = [p, q]
    body.g.outputs = [r]
    x = g.tensor("input", [1, 8, 8, 3], TT.FLOAT32)
    a = g.tensor("a", [1, 8, 8, 3], TT.FLOAT32)
    g.op(OP.ADD, [x, x], [a], OPT.AddOptions, fb.AddOptionsT())
    zero = g.tensor("zero", [], TT.FLOAT32, np.array(0.0, dtype=np.float32))

    def reduce_window(name, shape, window, strides, base_dil, window_dil, padding):
        o = fb.StablehloReduceWindowOptionsT()
        o.windowDimensions = window
        o.windowStrides = strides
        o.baseDilations = base_dil
        o.windowDilations = window_dil
        o.padding = padding
        o.bodySubgraphIndex = 1
        y = g.tensor(name, shape, TT.FLOAT32)
        g.op(OP.STABLEHLO_REDUCE_WINDOW, [a, zero], [y])
        g.g.operators[-1].builtinOptions2Type = fb.BuiltinOptions2.StablehloReduceWindowOptions
        g.g.operators[-1].builtinOptions2 = o
        return y

    # padded to [1, 10, 10, 3], 3x3 windows at stride 2
    y0 = reduce_window("pooled", [1, 4, 4, 3], [1, 3, 3, 1], [1, 2, 2, 1], None, None,
                       [0, 0, 1, 1, 1, 1, 0, 0])
    # dilated to [1, 15, 15, 3], 2x2 windows dilated by 2
    y1 = reduce_window("dilated", [1, 13, 13, 3], [1, 2, 2, 1], [1, 1, 1, 1], [1, 2, 2, 1],
                       [1, 2, 2, 1], None)
    out = g.tensor("output", [1, 4, 4, 3], TT.FLOAT32)
    g.op(OP.MUL, [y0, y0], [out], OPT.MulOptions, fb.MulOptionsT())
    finish(m, g, [x], [out, y1], path)


def composite_op(g, inputs, outputs, name, decomposition):
    """A STABLEHLO_COMPOSITE node running subgraph `decomposition` (options in
    builtin_options_2; LiteRT's reader requires the attributes, even empty ones)."""
    g.op(OP.STABLEHLO_COMPOSITE, inputs, outputs)
    o = fb.StableHLOCompositeOptionsT()
    o.name = name
    o.decompositionSubgraphIndex = decomposition
    o.version = 1
    o.compositeAttributes = list(flexbuffers.Dumps({"k": 1}))
    o.compositeAttributesFormat = fb.CustomOptionsFormat.FLEXBUFFERS
    g.g.operators[-1].builtinOptions2Type = fb.BuiltinOptions2.StableHLOCompositeOptions
    g.g.operators[-1].builtinOptions2 = o


def doubled_in(dec):
    """A decomposition's input "in" [1, 64] and its ADD to itself, "doubled": in, doubled."""
    a = dec.tensor("in", [1, 64], TT.FLOAT32)
    b = dec.tensor("doubled", [1, 64], TT.FLOAT32)
    dec.op(OP.ADD, [a, a], [b], OPT.AddOptions, fb.AddOptionsT())
    return a, b


def double_relu(dec):
    """doubled_in, then its RELU, "relu": in, relu."""
    a, b = doubled_in(dec)
    c = dec.tensor("relu", [1, 64], TT.FLOAT32)
    dec.op(OP.RELU, [b], [c])
    return a, c


def stablehlo_composite(path):
    m, g = main_graph("arenaprof generated: STABLEHLO_COMPOSITE, its decomposition planned "
                      "in arenas of its own")
    dec = Graph(m, "decomposition")
    a, c = double_relu(dec)
    # an input no operator reads: RemoveUnusedInputs drops it before the plan
    unused = dec.tensor("unused", [1, 8], TT.FLOAT32)
    dec.g.inputs = [a, unused]
    dec.g.outputs = [c]
    x, x2 = input_pre(g, [1, 64], "x2")
    u = g.tensor("u", [1, 8], TT.FLOAT32, np.zeros((1, 8), dtype=np.float32))
    y = g.tensor("y", [1, 64], TT.FLOAT32)
    composite_op(g, [x2, u], [y], "arenaprof.double_relu", 1)
    out = g.tensor("output", [1, 64], TT.FLOAT32)
    g.op(OP.RELU, [y], [out])
    finish(m, g, [x], [out], path)


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


def case_branch(sg, k):
    """Subgraph k of gen_stablehlo_case: (x, bias) -> y, each with arenas of other sizes."""
    a = sg.tensor("x", [1, 64], TT.FLOAT32)
    b = sg.tensor("bias", [1, 64], TT.FLOAT32)
    y = sg.tensor("y", [1, 64], TT.FLOAT32)
    if k == 1:      # bias unused: RemoveUnusedInputs drops it
        t = sg.tensor("doubled", [1, 64], TT.FLOAT32)
        sg.op(OP.ADD, [a, a], [t], OPT.AddOptions, fb.AddOptionsT())
        sg.op(OP.RELU, [t], [y])
    elif k == 2:
        t = sg.tensor("squared", [1, 64], TT.FLOAT32)
        sg.op(OP.MUL, [a, a], [t], OPT.MulOptions, fb.MulOptionsT())
        sg.op(OP.ADD, [t, b], [y], OPT.AddOptions, fb.AddOptionsT())
    elif k == 3:    # x unused; three tensors live at once
        t1 = sg.tensor("b2", [1, 64], TT.FLOAT32)
        sg.op(OP.ADD, [b, b], [t1], OPT.AddOptions, fb.AddOptionsT())
        t2 = sg.tensor("bb", [1, 64], TT.FLOAT32)
        sg.op(OP.MUL, [b, b], [t2], OPT.MulOptions, fb.MulOptionsT())
        t3 = sg.tensor("sum", [1, 64], TT.FLOAT32)
        sg.op(OP.ADD, [t1, t2], [t3], OPT.AddOptions, fb.AddOptionsT())
        sg.op(OP.MUL, [t3, t1], [y], OPT.MulOptions, fb.MulOptionsT())
    else:
        t = sg.tensor("tanh", [1, 64], TT.FLOAT32)
        sg.op(OP.TANH, [a], [t])
        sg.op(OP.SUB, [t, b], [y], OPT.SubOptions, fb.SubOptionsT())
    sg.g.inputs = [a, b]
    sg.g.outputs = [y]


def stablehlo_case(path):
    m, g = main_graph("arenaprof generated: STABLEHLO_CASE, every subgraph planned in its "
                      "Prepare")
    for k, name in enumerate(("double", "square_plus", "three_ways", "unlisted"), 1):
        case_branch(Graph(m, name), k)
    idx = g.tensor("index", [1], TT.INT32)
    x, x2 = input_pre(g, [1, 64], "x2")
    bias = g.tensor("bias", [1, 64], TT.FLOAT32, np.full((1, 64), 0.5, dtype=np.float32))
    y = g.tensor("y", [1, 64], TT.FLOAT32)
    g.op(OP.STABLEHLO_CASE, [idx, x2, bias], [y])
    o = fb.StablehloCaseOptionsT()
    # subgraph 4 is not listed, yet planned; the Prepare reads indices [0, subgraphs - 2]
    # (one past the last with [1, 2, 3]: both LiteRTs crash), so 3 is listed twice
    o.branchSubgraphIndices = [1, 2, 3, 3]
    g.g.operators[-1].builtinOptions2Type = fb.BuiltinOptions2.StablehloCaseOptions
    g.g.operators[-1].builtinOptions2 = o
    out = g.tensor("output", [1, 64], TT.FLOAT32)
    g.op(OP.RELU, [y], [out])
    # an input nothing reads: the CASE's Prepare drops it before subgraph 0 is planned
    unused = g.tensor("unused", [1, 32], TT.FLOAT32)
    finish(m, g, [idx, unused, x], [out], path)


def case_op(g, inputs, outputs, branches):
    """A STABLEHLO_CASE node (options in builtin_options_2) choosing among branches."""
    g.op(OP.STABLEHLO_CASE, inputs, outputs)
    o = fb.StablehloCaseOptionsT()
    o.branchSubgraphIndices = branches
    g.g.operators[-1].builtinOptions2Type = fb.BuiltinOptions2.StablehloCaseOptions
    g.g.operators[-1].builtinOptions2 = o


def case_model(path, what, bodies, shape=(1, 64)):
    """index, input (of shape) -> x2 -> STABLEHLO_CASE -> y -> RELU, its subgraphs 1.. one
    per body: body(sg, x) gives the output of a branch whose input x is [1, 64] in the
    file. Every subgraph is listed, so the Prepare's test compares them all."""
    m, g = main_graph("arenaprof generated: " + what)
    for k, body in enumerate(bodies, 1):
        sg = Graph(m, "branch%d" % k)
        a = sg.tensor("x", [1, 64], TT.FLOAT32)
        sg.g.inputs = [a]
        sg.g.outputs = [body(sg, a)]
    idx = g.tensor("index", [1], TT.INT32)
    x, x2 = input_pre(g, list(shape), "x2")
    y = g.tensor("y", [1, 64], TT.FLOAT32)
    case_op(g, [idx, x2], [y], list(range(1, len(bodies) + 1)))
    out = g.tensor("output", [1, 64], TT.FLOAT32)
    g.op(OP.RELU, [y], [out])
    finish(m, g, [idx, x], [out], path)


def add_relu(sg, x):
    """x + x, then RELU: a branch of two arena tensors."""
    t = sg.tensor("doubled", [1, 64], TT.FLOAT32)
    sg.op(OP.ADD, [x, x], [t], OPT.AddOptions, fb.AddOptionsT())
    y = sg.tensor("y", [1, 64], TT.FLOAT32)
    sg.op(OP.RELU, [t], [y])
    return y


def square(sg, x):
    """x * x."""
    y = sg.tensor("y", [1, 64], TT.FLOAT32)
    sg.op(OP.MUL, [x, x], [y], OPT.MulOptions, fb.MulOptionsT())
    return y


def case_resize(path):
    # the caller's [1, 80] is copied in: both branches give [1, 80], and so does the CASE
    case_model(path, "STABLEHLO_CASE prepared on shapes other than its subgraphs' file",
               [add_relu, square], shape=(1, 80))


def case_dynamic(path):
    case_model(path, "STABLEHLO_CASE whose second branch holds a dynamic tensor",
               [add_relu, lambda sg, x: tile_dyn(sg, x, [1, 64]), square])


def case_shapes(path):
    # the Prepare compares branch 2's [1, 128] with branch 1's [1, 64]: dyn
    case_model(path, "STABLEHLO_CASE whose branches give outputs of other dims",
               [add_relu, lambda sg, x: concat_self(sg, x, [1, 64])])


def tile_dyn(g, x, shape):
    """TILE of x by computed ones: a dynamic output of x's shape (a dynamic subgraph)."""
    mult = computed_in(g, "multiples", [1] * len(shape))
    t = g.tensor("tiled", shape, TT.FLOAT32)
    g.op(OP.TILE, [x, mult], [t], OPT.TileOptions, fb.TileOptionsT())
    return t


def after_dynamic(g, shape):
    """input -> ADD -> pre, and a TILE of pre by computed multiples: the dynamic output
    after which LiteRT prepares the rest of the graph, and the subgraphs it runs, in the
    first invoke. Returns input, pre and the tiled tensor."""
    x, pre = input_pre(g, shape)
    return x, pre, tile_dyn(g, pre, shape)


def while_late(path):
    m, g = main_graph("arenaprof generated: WHILE after a dynamic output")
    cond = Graph(m, "cond")
    body = Graph(m, "body")
    x, pre, t = after_dynamic(g, [1, 32])
    i0 = g.tensor("i0", [], TT.INT32, np.array(0, dtype=np.int32))
    i_out = g.tensor("i_out", [], TT.INT32)
    y = g.tensor("loop", [1, 32], TT.FLOAT32)
    while_op(g, [i0, pre], [i_out, y])
    out = g.tensor("output", [1, 32], TT.FLOAT32)
    g.op(OP.ADD, [y, t], [out], OPT.AddOptions, fb.AddOptionsT())

    bi, bx, bi2 = while_cond_counter(cond, body)
    bx2 = square_plus(body, bx, [1, 32])
    body.g.inputs = [bi, bx]
    body.g.outputs = [bi2, bx2]
    finish(m, g, [x], [out], path)


def case_late(path):
    m, g = main_graph("arenaprof generated: STABLEHLO_CASE after a dynamic output, its "
                      "index a constant")
    for k, body in enumerate((add_relu, square), 1):
        sg = Graph(m, "branch%d" % k)
        a = sg.tensor("x", [1, 64], TT.FLOAT32)
        sg.g.inputs = [a]
        sg.g.outputs = [body(sg, a)]
    # index 1 runs branch 2, whose output Eval_static makes the caller's: its plan is
    # made again without it (flow_variants.py makes the index an input)
    idx = g.tensor("index", [1], TT.INT32, np.array([1], dtype=np.int32))
    x, pre, t = after_dynamic(g, [1, 64])
    y = g.tensor("y", [1, 64], TT.FLOAT32)
    case_op(g, [idx, pre], [y], [1, 2])
    out = g.tensor("output", [1, 64], TT.FLOAT32)
    g.op(OP.ADD, [y, t], [out], OPT.AddOptions, fb.AddOptionsT())
    # nothing reads it, but the CASE's Prepare drops it only after subgraph 0's first
    # plan placed it: its slot stays
    unused = g.tensor("unused", [1, 32], TT.FLOAT32)
    finish(m, g, [unused, x], [out], path)


def relu_z(sg, y):
    """RELU of y into z: a second tensor in each of gen_if_late's branches."""
    z = sg.tensor("z", [1, 48], TT.FLOAT32)
    sg.op(OP.RELU, [y], [z])
    return z


def if_late(path):
    m, g = main_graph("arenaprof generated: IF after a dynamic output, its condition a "
                      "constant")
    then = Graph(m, "then")
    other = Graph(m, "else")
    # the first invoke runs then, whose output Eval_static makes the caller's: then's
    # plan is made again without it (flow_variants.py makes the condition an input)
    flag = g.tensor("flag", [], TT.BOOL, np.array(True))
    x, pre, t = after_dynamic(g, [1, 48])
    y = g.tensor("branch", [1, 48], TT.FLOAT32)
    if_op(g, flag, [pre], [y])
    out = g.tensor("output", [1, 48], TT.FLOAT32)
    g.op(OP.ADD, [y, t], [out], OPT.AddOptions, fb.AddOptionsT())
    add_mul_branches(then, other, [1, 48], relu_z)
    finish(m, g, [x], [out], path)


def composite_late(path):
    m, g = main_graph("arenaprof generated: STABLEHLO_COMPOSITE after a dynamic output")
    dec = Graph(m, "decomposition")
    a, c = double_relu(dec)
    dec.g.inputs = [a]
    dec.g.outputs = [c]
    x, pre, t = after_dynamic(g, [1, 64])
    y = g.tensor("y", [1, 64], TT.FLOAT32)
    # Eval_static makes the decomposition's output the caller's y: its plan, made in
    # the first invoke, is made again without it
    composite_op(g, [pre], [y], "arenaprof.double_relu", 1)
    out = g.tensor("output", [1, 64], TT.FLOAT32)
    g.op(OP.ADD, [y, t], [out], OPT.AddOptions, fb.AddOptionsT())
    finish(m, g, [x], [out], path)


def if_dynamic(path):
    # a constant condition: the first invoke runs then, which plans the rest of its graph
    m, g, then, other, flag, x, pre, y = if_main(
        "arenaprof generated: IF whose then branch holds a dynamic tensor", flag=True)
    a = g.tensor("after", [1, 48], TT.FLOAT32)
    g.op(OP.ADD, [y, x], [a], OPT.AddOptions, fb.AddOptionsT())
    out = g.tensor("output", [1, 48], TT.FLOAT32)
    g.op(OP.MUL, [a, pre], [out], OPT.MulOptions, fb.MulOptionsT())
    g.g.inputs = [x]
    g.g.outputs = [out]
    a = then.tensor("x", [1, 48], TT.FLOAT32)
    b = then.tensor("sum", [1, 48], TT.FLOAT32)
    then.op(OP.ADD, [a, a], [b], OPT.AddOptions, fb.AddOptionsT())
    t = tile_dyn(then, b, [1, 48])
    c = then.tensor("y", [1, 48], TT.FLOAT32)
    then.op(OP.RELU, [t], [c])
    then.g.inputs = [a]
    then.g.outputs = [c]
    a = other.tensor("x", [1, 48], TT.FLOAT32)
    b = other.tensor("y", [1, 48], TT.FLOAT32)
    other.op(OP.MUL, [a, a], [b], OPT.MulOptions, fb.MulOptionsT())
    other.g.inputs = [a]
    other.g.outputs = [b]
    m.write(path)


def while_dynamic(path):
    m, g = main_graph("arenaprof generated: WHILE whose body holds a dynamic tensor")
    cond = Graph(m, "cond")
    body = Graph(m, "body")
    x, pre, y, _ = while_caller(g)
    a = g.tensor("after", [1, 32], TT.FLOAT32)
    g.op(OP.MUL, [y, y], [a], OPT.MulOptions, fb.MulOptionsT())
    out = g.tensor("output", [1, 32], TT.FLOAT32)
    g.op(OP.ADD, [a, pre], [out], OPT.AddOptions, fb.AddOptionsT())
    g.g.inputs = [x]
    g.g.outputs = [out]

    bi, bx, bi2 = while_cond_counter(cond, body)
    s = body.tensor("sum", [1, 32], TT.FLOAT32)
    body.op(OP.ADD, [bx, bx], [s], OPT.AddOptions, fb.AddOptionsT())
    t = tile_dyn(body, s, [1, 32])
    bx2 = body.tensor("x_next", [1, 32], TT.FLOAT32)
    body.op(OP.RELU, [t], [bx2])
    body.g.inputs = [bi, bx]
    body.g.outputs = [bi2, bx2]
    m.write(path)


def composite_dynamic(path):
    m, g = main_graph("arenaprof generated: STABLEHLO_COMPOSITE whose decomposition holds "
                      "a dynamic tensor")
    dec = Graph(m, "decomposition")
    a, b = doubled_in(dec)
    t = tile_dyn(dec, b, [1, 64])
    c = dec.tensor("relu", [1, 64], TT.FLOAT32)
    dec.op(OP.RELU, [t], [c])
    dec.g.inputs = [a]
    dec.g.outputs = [c]
    x, x2 = input_pre(g, [1, 64], "x2")
    y = g.tensor("y", [1, 64], TT.FLOAT32)
    composite_op(g, [x2], [y], "arenaprof.tile_relu", 1)
    a2 = g.tensor("after", [1, 64], TT.FLOAT32)
    g.op(OP.RELU, [y], [a2])
    out = g.tensor("output", [1, 64], TT.FLOAT32)
    g.op(OP.ADD, [a2, x2], [out], OPT.AddOptions, fb.AddOptionsT())
    finish(m, g, [x], [out], path)


def if_shapes(path):
    m, g, then, other, flag, x, pre, y = if_main(
        "arenaprof generated: IF whose branches give different static shapes")
    a = g.tensor("after", [1, 48], TT.FLOAT32)
    g.op(OP.RELU, [y], [a])
    out = g.tensor("output", [1, 48], TT.FLOAT32)
    g.op(OP.ADD, [pre, pre], [out], OPT.AddOptions, fb.AddOptionsT())
    g.g.inputs = [flag, x]
    g.g.outputs = [out, a]
    a = then.tensor("x", [1, 48], TT.FLOAT32)
    b = then.tensor("y", [1, 48], TT.FLOAT32)
    then.op(OP.ADD, [a, a], [b], OPT.AddOptions, fb.AddOptionsT())
    then.g.inputs = [a]
    then.g.outputs = [b]
    a = other.tensor("x", [1, 48], TT.FLOAT32)
    b = other.tensor("sq", [1, 48], TT.FLOAT32)
    other.op(OP.MUL, [a, a], [b], OPT.MulOptions, fb.MulOptionsT())
    shp = other.tensor("shape", [2], TT.INT32, np.array([2, 24], dtype=np.int32))
    c = other.tensor("y", [2, 24], TT.FLOAT32)
    other.op(OP.RESHAPE, [b, shp], [c])
    other.g.inputs = [a]
    other.g.outputs = [c]
    m.write(path)


def concat_self(g, x, shape):
    """CONCATENATION of x with itself on its last axis: a tensor twice as wide."""
    o = fb.ConcatenationOptionsT()
    o.axis = len(shape) - 1
    y = g.tensor("wide", shape[:-1] + [2 * shape[-1]], TT.FLOAT32)
    g.op(OP.CONCATENATION, [x, x], [y], OPT.ConcatenationOptions, o)
    return y


def if_resize(path):
    # the file says [1, 48]; IF's Prepare resizes it to the branches' [1, 96]
    m, g, then, other, flag, x, pre, y = if_main(
        "arenaprof generated: IF whose branches give an output wider than the caller's "
        "tensor says")
    a = g.tensor("after", [1, 48], TT.FLOAT32)
    g.op(OP.ADD, [y, y], [a], OPT.AddOptions, fb.AddOptionsT())
    b = g.tensor("relu", [1, 48], TT.FLOAT32)
    g.op(OP.RELU, [a], [b])
    out = g.tensor("output", [1, 48], TT.FLOAT32)
    g.op(OP.MUL, [pre, x], [out], OPT.MulOptions, fb.MulOptionsT())
    g.g.inputs = [flag, x]
    g.g.outputs = [b, out]
    add_mul_branches(then, other, [1, 48], lambda sg, b: concat_self(sg, b, [1, 48]))
    m.write(path)


def while_scalar(path):
    # i [] and i_next [1] differ in dims, but while.cc adds their first dims (a scalar
    # counts 0) and lets a sum of 1 pass: the outputs are not made dyn
    while_loop(path, step=(1,),
               what="WHILE whose body gives its scalar counter back as [1]")


def while_resize(path):
    m, g = main_graph("arenaprof generated: WHILE whose outputs the caller's file gives "
                      "other shapes than the body's")
    cond = Graph(m, "cond")
    body = Graph(m, "body")
    # the file says [1, 8]; WHILE's Prepare resizes it to the body's [1, 32]
    x, pre, y, i_out = while_caller(g, loop=(1, 8))
    a = g.tensor("after", [1, 8], TT.FLOAT32)
    g.op(OP.MUL, [y, y], [a], OPT.MulOptions, fb.MulOptionsT())
    w = concat_self(g, a, [1, 8])
    out = g.tensor("output", [1, 16], TT.FLOAT32)
    g.op(OP.RELU, [w], [out])
    g.g.inputs = [x]
    g.g.outputs = [out, i_out]
    doubling_body(cond, body)
    m.write(path)


def composite_resize(path):
    m, g = main_graph("arenaprof generated: STABLEHLO_COMPOSITE whose decomposition gives "
                      "an output wider than the caller's tensor says")
    dec = Graph(m, "decomposition")
    a, b = doubled_in(dec)
    dec.g.inputs = [a]
    dec.g.outputs = [concat_self(dec, b, [1, 64])]
    x, x2 = input_pre(g, [1, 64], "x2")
    # the file says [1, 64]; the composite's Prepare resizes it to [1, 128]
    y = g.tensor("y", [1, 64], TT.FLOAT32)
    composite_op(g, [x2], [y], "arenaprof.widen", 1)
    a2 = g.tensor("after", [1, 64], TT.FLOAT32)
    g.op(OP.RELU, [y], [a2])
    out = g.tensor("output", [1, 64], TT.FLOAT32)
    g.op(OP.ADD, [x2, x], [out], OPT.AddOptions, fb.AddOptionsT())
    finish(m, g, [x], [a2, out], path)


def flow_inputs(path):
    m, g = main_graph("arenaprof generated: IF, WHILE and STABLEHLO_COMPOSITE whose "
                      "subgraphs' file shapes differ from the caller's inputs")
    then = Graph(m, "then")
    other = Graph(m, "else")
    cond = Graph(m, "cond")
    body = Graph(m, "body")
    dec = Graph(m, "decomposition")
    flag = g.tensor("flag", [], TT.BOOL, np.array(False))
    x, pre = input_pre(g, [1, 40])
    # the branches say [1, 24]: LiteRT prepares them on [1, 40], and the IF gives [1, 80]
    y = g.tensor("branch", [1, 48], TT.FLOAT32)
    if_op(g, flag, [pre], [y])
    add_mul_branches(then, other, [1, 24], lambda sg, b: concat_self(sg, b, [1, 24]))
    # the loop says [1, 32]: it runs on [1, 80]
    i0 = g.tensor("i0", [], TT.INT32, np.array(0, dtype=np.int32))
    i_out = g.tensor("i_out", [], TT.INT32)
    lp = g.tensor("loop", [1, 48], TT.FLOAT32)
    while_op(g, [i0, y], [i_out, lp], 3, 4)
    bi, bx, bi2 = while_cond_counter(cond, body, limit=2)
    bx2 = square_plus(body, bx, [1, 32])
    body.g.inputs = [bi, bx]
    body.g.outputs = [bi2, bx2]
    # the decomposition says [1, 16]: it runs on [1, 80] and gives [1, 160]
    a = dec.tensor("in", [1, 16], TT.FLOAT32)
    b = dec.tensor("doubled", [1, 16], TT.FLOAT32)
    dec.op(OP.ADD, [a, a], [b], OPT.AddOptions, fb.AddOptionsT())
    r = dec.tensor("relu", [1, 16], TT.FLOAT32)
    dec.op(OP.RELU, [b], [r])
    dec.g.inputs = [a]
    dec.g.outputs = [concat_self(dec, r, [1, 16])]
    z = g.tensor("z", [1, 48], TT.FLOAT32)
    composite_op(g, [lp], [z], "arenaprof.relu_widen", 5)
    out = g.tensor("output", [1, 48], TT.FLOAT32)
    g.op(OP.RELU, [z], [out])
    finish(m, g, [x], [out, i_out], path)


MODELS = {
    "gen_hybrid_conv.tflite": hybrid_conv,
    "gen_float16_weights.tflite": float16_weights,
    "gen_resource_vars.tflite": resource_vars,
    "gen_while_loop.tflite": while_loop,
    "gen_const_fold.tflite": const_fold,
    "gen_if_else.tflite": if_else,
    "gen_svdf.tflite": svdf,
    "gen_add_n.tflite": add_n,
    "gen_rnn.tflite": rnn,
    "gen_lstm.tflite": lstm,
    "gen_bidi_rnn.tflite": bidi_rnn,
    "gen_bidi_lstm.tflite": bidi_lstm,
    "gen_bidi_lstm_hybrid.tflite": bidi_lstm_hybrid,
    "gen_lstm_basic.tflite": lstm_basic,
    "gen_lstm_integer.tflite": lstm_integer,
    "gen_conv3d.tflite": conv3d,
    "gen_detection_postprocess.tflite": detection_postprocess,
    "gen_dynamic_tile.tflite": dynamic_tile,
    "gen_dynamic_reshape.tflite": dynamic_reshape,
    "gen_open_shapes.tflite": open_shapes,
    "gen_dynamic_shapes.tflite": dynamic_shapes,
    "gen_dynamic_ops.tflite": dynamic_ops,
    "gen_dynamic_edges.tflite": dynamic_edges,
    "gen_rfft2d.tflite": rfft2d,
    "gen_numeric_verify.tflite": numeric_verify,
    "gen_stablehlo_reduce_window.tflite": stablehlo_reduce_window,
    "gen_stablehlo_composite.tflite": stablehlo_composite,
    "gen_fc_int4.tflite": fc_int4,
    "gen_fc_sparse.tflite": fc_sparse,
    "gen_lstm_sparse.tflite": lstm_sparse,
    "gen_stablehlo_case.tflite": stablehlo_case,
    "gen_if_dynamic.tflite": if_dynamic,
    "gen_while_dynamic.tflite": while_dynamic,
    "gen_composite_dynamic.tflite": composite_dynamic,
    "gen_if_shapes.tflite": if_shapes,
    "gen_if_resize.tflite": if_resize,
    "gen_while_resize.tflite": while_resize,
    "gen_composite_resize.tflite": composite_resize,
    "gen_flow_inputs.tflite": flow_inputs,
    "gen_while_scalar.tflite": while_scalar,
    "gen_case_resize.tflite": case_resize,
    "gen_case_dynamic.tflite": case_dynamic,
    "gen_case_shapes.tflite": case_shapes,
    "gen_while_late.tflite": while_late,
    "gen_if_late.tflite": if_late,
    "gen_composite_late.tflite": composite_late,
    "gen_case_late.tflite": case_late,
}


def main(argv):
    if len(argv) != 2:
        sys.stderr.write("usage: gen_models.py OUTDIR\n")
        return 2
    for name, gen in MODELS.items():
        gen(os.path.join(argv[1], name))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
