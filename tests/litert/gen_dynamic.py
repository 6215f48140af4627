"""gen_models.py's models with shapes the file leaves open or data computes."""

from gen_builder import *  # noqa: F401,F403

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
