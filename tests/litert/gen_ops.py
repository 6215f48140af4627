"""gen_models.py's single-operator models: hybrid and float16 weights, detection
postprocess, ADD_N, CONV_3D, constant folding, RFFT2D, NUMERIC_VERIFY, REDUCE_WINDOW."""

from gen_builder import *  # noqa: F401,F403

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


def add_n(path):
    m, g = main_graph("arenaprof generated: ADD_N and its scratch")
    xs = [g.tensor("input%d" % i, [1, 100], TT.FLOAT32) for i in range(5)]
    y = g.tensor("sum", [1, 100], TT.FLOAT32)
    g.op(OP.ADD_N, xs, [y], OPT.AddNOptions, fb.AddNOptionsT())
    out = g.tensor("output", [1, 100], TT.FLOAT32)
    g.op(OP.ADD, [y, xs[0]], [out], OPT.AddOptions, fb.AddOptionsT())
    finish(m, g, xs, [out], path)


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
