"""gen_models.py's control flow: resource variables, WHILE, IF, STABLEHLO_COMPOSITE and
STABLEHLO_CASE, with subgraphs that resize, go dynamic or run late."""

from gen_builder import *  # noqa: F401,F403

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
