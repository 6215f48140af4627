#!/usr/bin/env python3
"""Dump the arena plan that the real LiteRT runtime makes for a .tflite model.

Usage:
    litert_plan.py [--details] [--lifetimes] [--threads N] [--subgraph K]
                   [--invoke] MODEL.tflite
    litert_plan.py --print-state MODEL.tflite

Run it with the Python that has ai-edge-litert installed, e.g.
/opt/arenaprof-venv/bin/python (needs only ai-edge-litert, its bundled
flatbuffer schema module and numpy; no extra package), or with one that has
tflite-runtime 2.14 (/opt/tflrt214-venv/bin/python), whose wheel has no schema
module: ARENAPROF_SCHEMA_PY then names ai-edge-litert's schema_py_generated.py
(it needs the flatbuffers package). tflite-runtime's Python Interpreter leaves
num_threads at -1 when --threads is not given.

The model is loaded with OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
(no XNNPACK), num_threads 1 (ai-edge-litert) unless --threads, allocate_tensors() is
called, nothing is invoked, except for --subgraph K naming the init subgraph
of a CALL_ONCE: LiteRT plans that one in CALL_ONCE's first Eval, so the
model is invoked once first (the comment line says planned_at=first_invoke),
and --invoke, which reads the plan after one invoke: LiteRT plans the nodes
after a dynamic output in the first invoke (a comment line names the arena
tensors allocate_tensors() left unplaced). WHILE, IF and STABLEHLO_COMPOSITE
release their subgraphs' normal arenas after each Eval: for such a subgraph,
--invoke takes the offsets from its ArenaPlanner's allocs_, which keep the plan.
Every subgraph has an ArenaPlanner and arenas of its own; WHILE and IF plan
their subgraphs in their Prepare, that is within allocate_tensors().  The plan depends on num_threads for float
models: with N > 1 float CONV_2D uses the multithreaded Eigen kernel, whose
transposed-filter temporary (hwcn_weights) is kTfLiteArenaRwPersistent and
which needs no im2col in the normal arena.

Output (stdout), CSV:
    tensor,name,offset,size
one row per tensor that lives in the normal arena (kTfLiteArenaRw) with a
non-null data pointer, sorted by tensor index, then comment lines (starting
with '#'), the last of which is always
    # arena_bytes=<max(offset+size)>
Tensors that the runtime added beyond the model's own tensors (kernel
temporaries, e.g. the im2col buffer of a quantized CONV_2D) are printed too,
with a name of the form "<temporary node=N op=CONV_2D #j>" (the generated
name starts with "<temporary").  --lifetimes adds the columns
first_node,last_node as recorded by LiteRT's ArenaPlanner (alloc_node_ /
dealloc_node_; 2147483647 = never freed), when they could be read.

How the data is obtained:
  * Tensor allocation types, data pointers and byte sizes are read from the
    runtime's own TfLiteTensor array: interp._native_handle() is the
    tflite::impl::Interpreter*, whose first member is the primary subgraph's
    TfLiteContext*; TfLiteContext.tensors points at the TfLiteTensor array
    (layout from tflite/core/c/common.h).  Subgraph K's context is found
    through Interpreter::subgraphs_ (a vector of Subgraph pointers whose first
    is the primary context's impl_), at the primary one's offset in its
    Subgraph; its nodes are checked against the model file's operators (the
    Python API lists subgraph 0's only).  The layout is validated against
    the Python API (tensor count, every tensor name, data pointers from
    interp.tensor(i)()) before it is trusted; memory is only read where
    /proc/self/maps says it is readable.  If the validation fails the script
    exits 5, or with --heuristic falls back to a classification from the
    flatbuffer (constant = buffer with data, variable = is_variable) and
    says so in a comment.
  * The ArenaPlanner object (Subgraph::memory_planner_) is located by
    scanning the Subgraph object (TfLiteContext.impl_) for an object whose
    second word is the context pointer; its allocs_ (offset, size, tensor,
    first_node, last_node), alloc_node_, dealloc_node_, the two
    SimpleMemoryArena buffers and actual_tensor_id_ (in-place sharing) are
    read and cross-checked with the tensor data pointers.  Failure here only
    drops the extra information.
  * Node temporaries and inplace_operator flags come from
    Subgraph::nodes_and_registration_, found and validated the same way
    against interp._interpreter.NodeInputs/NodeOutputs.

Offsets are relative to the normal arena's base pointer when the planner was
found (they are then exactly the planner's offsets), else to the lowest data
pointer among normal-arena tensors.

Exit status: 0 ok; 2 usage error / unreadable file; 3 the model cannot be
planned by this runtime ("not comparable: <reason>" on stderr, e.g. an
unresolved custom op); 4 --print-state requested but unavailable; 5 the
runtime's tensor structures could not be read and validated (see
--heuristic).
"""

import argparse
import csv
import ctypes
import os
import sys

INT32_MAX = 2**31 - 1
RELEASED_BASE = 1 << 48     # stands for a released arena's base (allocs_ offsets)

ALLOC_TYPES = [
    "kTfLiteMemNone", "kTfLiteMmapRo", "kTfLiteArenaRw",
    "kTfLiteArenaRwPersistent", "kTfLiteDynamic", "kTfLitePersistentRo",
    "kTfLiteCustom", "kTfLiteVariantObject", "kTfLiteNonCpu",
]
K_MMAP_RO, K_ARENA_RW, K_ARENA_RW_PERSISTENT, K_DYNAMIC = 1, 2, 3, 4

# TfLiteTensor (tflite/core/c/common.h, not TF_LITE_STATIC_MEMORY), LP64.
T_TYPE, T_DATA, T_DIMS, T_ALLOC_TYPE, T_BYTES, T_NAME, T_IS_VARIABLE = (
    0, 8, 16, 32, 40, 56, 77)
TENSOR_STRUCT_SIZES = (112, 120, 104, 128)  # 112 expected; others tried
# TfLiteContext
C_TENSORS_SIZE, C_TENSORS, C_IMPL = 0, 16, 24
# TfLiteNode
N_INPUTS, N_OUTPUTS, N_INTERMEDIATES, N_TEMPORARIES = 0, 8, 16, 24
N_SIZE = 80
# TfLiteRegistration
R_BUILTIN_CODE, R_CUSTOM_NAME, R_VERSION, R_INPLACE = 40, 48, 56, 80

INPLACE_FLAGS = [(1, "DataUnmodified"), (4, "Input0Shared"),
                 (8, "Input1Shared"), (16, "Input2Shared")]


class NotComparable(Exception):
    pass


# --------------------------------------------------------------------------
# Safe raw memory reads (only inside readable mappings of this process)
# --------------------------------------------------------------------------
class Mem:
    def __init__(self):
        self.ranges = []
        self.reload()

    def reload(self):
        ranges = []
        with open("/proc/self/maps") as f:
            for line in f:
                parts = line.split()
                lo, hi = (int(x, 16) for x in parts[0].split("-"))
                if parts[1][0] == "r":
                    ranges.append((lo, hi, parts[5] if len(parts) > 5 else ""))
        self.ranges = ranges

    def _find(self, addr):
        for lo, hi, path in self.ranges:
            if lo <= addr < hi:
                return lo, hi, path
        return None

    def ok(self, addr, n=8):
        # user space ends below 2^47 on x86-64 but at 2^48 on arm64 (Debian's
        # arm64 kernels map libraries and heaps at 0xffff........): 2^56 (x86-64's
        # 5-level limit) only drops values that are no user address anywhere
        if not isinstance(addr, int) or addr <= 0 or addr >= 1 << 56:
            return False
        r = self._find(addr)
        if r is None or addr + n > r[1]:
            self.reload()
            r = self._find(addr)
        return r is not None and addr + n <= r[1]

    def mapping(self, addr):
        r = self._find(addr)
        return r

    def u64(self, addr):
        if not self.ok(addr, 8):
            raise MemoryError(hex(addr))
        return ctypes.c_uint64.from_address(addr).value

    def i32(self, addr):
        if not self.ok(addr, 4):
            raise MemoryError(hex(addr))
        return ctypes.c_int32.from_address(addr).value

    def u8(self, addr):
        if not self.ok(addr, 1):
            raise MemoryError(hex(addr))
        return ctypes.c_uint8.from_address(addr).value

    def cstr(self, addr, maxlen=4096):
        if addr == 0:
            return None
        out = bytearray()
        for i in range(maxlen):
            b = self.u8(addr + i)
            if b == 0:
                return out.decode("utf-8", "replace")
            out.append(b)
        return None

    def int_array(self, addr):
        """TfLiteIntArray: int size; int data[size]."""
        if addr == 0:
            return []
        n = self.i32(addr)
        if n < 0 or n > 1_000_000 or not self.ok(addr, 4 + 4 * n):
            raise MemoryError("bad TfLiteIntArray")
        return [self.i32(addr + 4 + 4 * k) for k in range(n)]

    def vector(self, addr, elem):
        """std::vector (libstdc++: begin, end, end_of_storage) or None."""
        try:
            b, e, c = self.u64(addr), self.u64(addr + 8), self.u64(addr + 16)
        except MemoryError:
            return None
        if b == 0:
            return (0, 0) if e == 0 and c == 0 else None
        if not (b <= e <= c) or (e - b) % elem or (c - b) % elem:
            return None
        if e > b and not self.ok(b, e - b):
            return None
        return b, (e - b) // elem


# --------------------------------------------------------------------------
# The model file
# --------------------------------------------------------------------------
def schema():
    """The flatbuffer schema module: ai-edge-litert's own, or (tflite-runtime ships
    none) the file $ARENAPROF_SCHEMA_PY names, which needs the flatbuffers package."""
    try:
        from ai_edge_litert import schema_py_generated
        return schema_py_generated
    except ImportError:
        import importlib.util
        path = os.environ.get("ARENAPROF_SCHEMA_PY")
        if not path:
            raise
        spec = importlib.util.spec_from_file_location("schema_py_generated", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        return mod


def interpreter_module():
    """ai-edge-litert's interpreter, else tflite-runtime's (the older wheel): the
    same Python API and the same C structures."""
    try:
        from ai_edge_litert import interpreter
    except ImportError:
        from tflite_runtime import interpreter
    return interpreter


def parse_model(path, sg_index=0):
    S = schema()
    with open(path, "rb") as f:
        buf = f.read()
    model = S.Model.GetRootAs(buf, 0)
    ops_by_value = {v: k for k, v in vars(S.BuiltinOperator).items()
                    if not k.startswith("_") and isinstance(v, int)}
    codes = []
    for i in range(model.OperatorCodesLength()):
        oc = model.OperatorCodes(i)
        code = max(oc.BuiltinCode(), oc.DeprecatedBuiltinCode())
        custom = oc.CustomCode()
        if custom is not None:
            custom = custom.decode("utf-8", "replace")
        name = custom if (code == S.BuiltinOperator.CUSTOM and custom) \
            else ops_by_value.get(code, str(code))
        codes.append(name)
    # who runs each subgraph: LiteRT plans a CALL_ONCE init subgraph in
    # CALL_ONCE's first Eval, and with it the subgraphs of the WHILE and IF
    # inside it (in their Prepare)
    caller, call_once_inits = {}, set()
    opts = {"CALL_ONCE": (S.BuiltinOptions.CallOnceOptions, S.CallOnceOptions,
                          ("InitSubgraphIndex",)),
            "WHILE": (S.BuiltinOptions.WhileOptions, S.WhileOptions,
                      ("CondSubgraphIndex", "BodySubgraphIndex")),
            "IF": (S.BuiltinOptions.IfOptions, S.IfOptions,
                   ("ThenSubgraphIndex", "ElseSubgraphIndex"))}
    for k in range(model.SubgraphsLength()):
        g = model.Subgraphs(k)
        for i in range(g.OperatorsLength()):
            op = g.Operators(i)
            name = codes[op.OpcodeIndex()]
            if name not in opts or op.BuiltinOptionsType() != opts[name][0]:
                continue
            o = opts[name][1]()
            t = op.BuiltinOptions()
            o.Init(t.Bytes, t.Pos)
            for field in opts[name][2]:
                child = getattr(o, field)()
                caller.setdefault(child, k)
                if name == "CALL_ONCE":
                    call_once_inits.add(child)
    at_invoke, c = False, sg_index
    for _ in range(model.SubgraphsLength()):
        at_invoke |= c in call_once_inits
        if c not in caller:
            break
        c = caller[c]
    if not 0 <= sg_index < model.SubgraphsLength():
        raise ValueError("the model has %d subgraphs, no subgraph %d"
                         % (model.SubgraphsLength(), sg_index))
    sg = model.Subgraphs(sg_index)
    tensors = []
    for i in range(sg.TensorsLength()):
        t = sg.Tensors(i)
        bidx = t.Buffer()
        const = False
        if bidx != 0 and bidx < model.BuffersLength():
            b = model.Buffers(bidx)
            const = (not b.DataIsNone() and b.DataLength() > 0) or \
                b.Offset() > 1
        name = t.Name()
        tensors.append({
            "name": name.decode("utf-8", "replace") if name else "",
            "type": t.Type(), "buffer": bidx, "constant": const,
            "is_variable": bool(t.IsVariable()),
            "shape": list(t.ShapeAsNumpy()) if t.ShapeLength() else [],
        })
    ops = []
    for i in range(sg.OperatorsLength()):
        op = sg.Operators(i)
        ops.append({
            "op": codes[op.OpcodeIndex()] if op.OpcodeIndex() < len(codes)
            else "?",
            "inputs": list(op.InputsAsNumpy()) if op.InputsLength() else [],
            "outputs": list(op.OutputsAsNumpy()) if op.OutputsLength() else [],
        })
    return {
        "tensors": tensors, "ops": ops,
        "inputs": list(sg.InputsAsNumpy()) if sg.InputsLength() else [],
        "outputs": list(sg.OutputsAsNumpy()) if sg.OutputsLength() else [],
        "num_subgraphs": model.SubgraphsLength(),
        "subgraph": sg_index,
        "planned_at_invoke": at_invoke,
    }


# --------------------------------------------------------------------------
# The runtime
# --------------------------------------------------------------------------
def load_interpreter(path, num_threads=None, input_shapes=()):
    I = interpreter_module()
    try:
        interp = I.Interpreter(
            model_path=path, num_threads=num_threads,
            experimental_op_resolver_type=(
                I.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES))
    except Exception as e:  # noqa: BLE001
        raise NotComparable("LiteRT cannot load the model: " + _first_line(e))
    inputs = interp.get_input_details()
    for k, dims in input_shapes:
        if k >= len(inputs):
            raise NotComparable("--input-shape %d: the model has %d inputs"
                                % (k, len(inputs)))
        interp.resize_tensor_input(inputs[k]["index"], dims, strict=True)
    try:
        interp.allocate_tensors()
    except Exception as e:  # noqa: BLE001
        msg = str(e)
        if "unresolved custom op" in msg:
            op = msg.split("unresolved custom op:", 1)[1].split(".")[0].strip()
            node = ""
            if "Node number" in msg:
                node = " (node " + msg.split("Node number", 1)[1].split()[0] + ")"
            raise NotComparable(
                "unresolved custom op %s%s: LiteRT's builtin resolver cannot "
                "prepare the graph, so it plans no arena" % (op, node))
        raise NotComparable("allocate_tensors failed: " + _first_line(e))
    return interp


def _first_line(e):
    s = str(e).strip().splitlines()
    return s[0] if s else type(e).__name__


def numpy_address(interp, i, sg=0):
    try:
        w = interp._interpreter
        a = w.tensor(w, i, sg)
        return a.__array_interface__["data"][0]
    except Exception:  # noqa: BLE001  (null data, strings, ...)
        return None


class Runtime:
    """Everything read out of the live interpreter."""

    def __init__(self, interp, model):
        self.interp = interp
        self.w = interp._interpreter  # pybind wrapper
        self.model = model
        self.mem = Mem()
        self.notes = []
        self.sg = model["subgraph"]
        self.n = self.w.NumTensors(self.sg)
        # tflite-runtime 2.14's wrapper has no NumSubgraphs: the model file's count
        self.num_subgraphs = self.w.NumSubgraphs() if hasattr(self.w, "NumSubgraphs") \
            else model["num_subgraphs"]
        self.num_nodes = self.w.NumNodes() if self.sg == 0 else \
            len(model["ops"])
        self.ctx = None
        self.tensors = None      # list of dicts from TfLiteTensor
        self.nodes = None        # list of dicts from nodes_and_registration_
        self.planner = None      # dict
        self.heuristic = False
        self._read_tensors()
        if self.ctx:
            self._read_nodes()
            self._read_planner()

    # ---- TfLiteTensor array ----
    def _read_tensors(self):
        names = [self.w.TensorName(i, self.sg) for i in range(self.n)]
        try:
            handle = self.interp._native_handle()
            ctx = self.mem.u64(handle)  # Interpreter::context_ (1st member)
            if self.sg:
                ctx = self._subgraph_context(handle, ctx)
            if self.mem.u64(ctx + C_TENSORS_SIZE) != self.n:
                raise MemoryError("tensors_size mismatch")
            base = self.mem.u64(ctx + C_TENSORS)
            for size in TENSOR_STRUCT_SIZES:
                ts = self._try_tensor_layout(base, size, names)
                if ts is not None:
                    self.ctx, self.tensors = ctx, ts
                    if size != 112:
                        self.notes.append("TfLiteTensor stride %d" % size)
                    return
            raise MemoryError("TfLiteTensor layout not validated")
        except MemoryError as e:
            self.notes.append("runtime structures unreadable (%s): heuristic "
                              "classification from the flatbuffer" % e)
        self.heuristic = True
        self.tensors = self._heuristic_tensors(names)

    def _subgraph_context(self, handle, ctx0):
        """The TfLiteContext of subgraph self.sg: Interpreter::subgraphs_ is a
        vector<unique_ptr<Subgraph>> whose first element is the primary
        subgraph (ctx0's impl_), and every Subgraph holds its context at the
        same offset as the primary one does."""
        m = self.mem
        sub0 = m.u64(ctx0 + C_IMPL)
        nsg = self.num_subgraphs
        for off in range(8, 1024, 8):
            v = m.vector(handle + off, 8)
            if not v or v[1] != nsg or m.u64(v[0]) != sub0:
                continue
            sub = m.u64(v[0] + 8 * self.sg)
            ctx = sub + (ctx0 - sub0)
            if m.ok(ctx, 32) and m.u64(ctx + C_IMPL) == sub:
                return ctx
        raise MemoryError("Interpreter::subgraphs_ not found")

    def _try_tensor_layout(self, base, size, names):
        m = self.mem
        out = []
        try:
            for i in range(self.n):
                p = base + i * size
                name = m.cstr(m.u64(p + T_NAME))
                if (name or "") != (names[i] or ""):
                    return None
                at = m.i32(p + T_ALLOC_TYPE)
                if not 0 <= at < len(ALLOC_TYPES):
                    return None
                dims_p = m.u64(p + T_DIMS)
                out.append({"index": i, "name": name or "",
                            "data": m.u64(p + T_DATA),
                            "alloc_type": at, "bytes": m.u64(p + T_BYTES),
                            "type": m.i32(p + T_TYPE),
                            "dims": m.int_array(dims_p) if dims_p else None,
                            "is_variable": bool(m.u8(p + T_IS_VARIABLE))})
        except MemoryError:
            return None
        # Cross-check data pointers with the Python API, only where that is
        # safe: interp.tensor(i)() segfaults on tensors that kernels reserved
        # with AddTensors but never set up (kTfLiteMemNone, dims == NULL),
        # and hands out a *copy* for kTfLiteMmapRo tensors and for scalars
        # (rank 0, such as a WHILE loop's counter).
        matched = 0
        for t in out:
            if t["alloc_type"] in (K_ARENA_RW, K_ARENA_RW_PERSISTENT) and \
                    t["data"] and t["dims"]:
                a = numpy_address(self.interp, t["index"], self.sg)
                if a is not None and a != t["data"]:
                    return None
                matched += a is not None
        if matched == 0 and any(t["alloc_type"] == K_ARENA_RW and t["data"]
                                for t in out):
            # only scalars in the arena (a WHILE cond): the names alone
            # vouch for the layout, and the planner's allocs_ check the
            # data pointers (_try_planner)
            if not any(t["alloc_type"] == K_ARENA_RW and t["data"] and
                       t["dims"] for t in out) and \
                    sum(1 for t in out if t["name"]) >= 2:
                self.notes.append("arena holds scalars only: data pointers "
                                  "checked against the planner only")
                return out
            return None
        return out

    def _heuristic_tensors(self, names):
        out = []
        mt = self.model["tensors"]
        for i in range(self.n):
            data, nbytes, dims = 0, 0, None
            # Tensors past the model's own are kernel-reserved and may be
            # uninitialised: interp.tensor() can crash on them, skip.
            if i < len(mt):
                try:
                    a = self.interp.tensor(i)()
                    dims = list(a.shape)
                    nbytes = a.nbytes
                    data = a.__array_interface__["data"][0] if nbytes else 0
                except Exception:  # noqa: BLE001
                    pass
                if mt[i]["constant"]:
                    at = K_MMAP_RO
                elif mt[i]["type"] in (5, 13, 14):
                    at = K_DYNAMIC
                elif mt[i]["is_variable"]:
                    at = K_ARENA_RW_PERSISTENT
                else:
                    at = K_ARENA_RW
            else:
                at = 0
            out.append({"index": i, "name": names[i] or "", "data": data,
                        "alloc_type": at, "bytes": nbytes, "type": -1,
                        "dims": dims, "is_variable":
                        i < len(mt) and mt[i]["is_variable"]})
        self.notes.append("heuristic mode: kernel temporaries not visible, "
                          "kernel-made persistent/dynamic tensors (e.g. "
                          "DEQUANTIZE of constants) misclassified as arena")
        return out

    # ---- Subgraph::nodes_and_registration_ ----
    def _read_nodes(self):
        m = self.mem
        try:
            sub = m.u64(self.ctx + C_IMPL)
        except MemoryError:
            self.notes.append("Subgraph object not readable")
            return
        self.subgraph = sub
        if self.sg == 0:
            want_in = [list(self.w.NodeInputs(i))
                       for i in range(self.num_nodes)]
            want_out = [list(self.w.NodeOutputs(i))
                        for i in range(self.num_nodes)]
        else:  # the Python API has nodes of subgraph 0 only: the model's
            want_in = [[int(x) for x in op["inputs"]]
                       for op in self.model["ops"]]
            want_out = [[int(x) for x in op["outputs"]]
                        for op in self.model["ops"]]
        if self.num_nodes == 0:
            self.nodes = []
            return
        for off in range(0, 8192, 8):
            if not m.ok(sub + off, 24):
                break
            for pair_size in (168, 160, 176, 152, 184):
                v = m.vector(sub + off, pair_size)
                if not v or v[1] != self.num_nodes:
                    continue
                nodes = self._try_nodes(v[0], pair_size, want_in, want_out)
                if nodes is not None:
                    self.nodes = nodes
                    if pair_size != 168:
                        self.notes.append("node+registration stride %d"
                                          % pair_size)
                    return
        self.notes.append("nodes_and_registration_ not found: no temporaries"
                          " list, no inplace flags")

    def _try_nodes(self, base, pair_size, want_in, want_out):
        m = self.mem
        out = []
        try:
            for i in range(self.num_nodes):
                p = base + i * pair_size
                ins = m.int_array(m.u64(p + N_INPUTS))
                outs = m.int_array(m.u64(p + N_OUTPUTS))
                if ins != want_in[i] or outs != want_out[i]:
                    return None
                r = p + N_SIZE
                inplace = None
                if pair_size >= N_SIZE + 88:
                    inplace = m.u64(r + R_INPLACE)
                    if inplace > 0xFF:
                        inplace = None
                out.append({
                    "index": i, "inputs": ins, "outputs": outs,
                    "intermediates": m.int_array(m.u64(p + N_INTERMEDIATES)),
                    "temporaries": m.int_array(m.u64(p + N_TEMPORARIES)),
                    "builtin_code": m.i32(r + R_BUILTIN_CODE),
                    "custom_name": m.cstr(m.u64(r + R_CUSTOM_NAME)),
                    "version": m.i32(r + R_VERSION),
                    "inplace": inplace,
                    "op": self.w.NodeName(i) if self.sg == 0
                    else self.model["ops"][i]["op"],
                })
        except MemoryError:
            return None
        return out

    # ---- ArenaPlanner ----
    def _read_planner(self):
        m = self.mem
        sub = getattr(self, "subgraph", None)
        if not sub:
            return
        for off in range(0, 8192, 8):
            if not m.ok(sub + off, 8):
                break
            p = m.u64(sub + off)
            if not m.ok(p, 64):
                continue
            try:
                if m.u64(p + 8) != self.ctx or not m.ok(m.u64(p), 8):
                    continue
            except MemoryError:
                continue
            pl = self._try_planner(p)
            if pl is not None:
                self.planner = pl
                return
        self.notes.append("ArenaPlanner not found: no planner cross-check")

    def _try_planner(self, p):
        m = self.mem
        n = self.n
        pos = 16
        allocs = None
        # allocs_: vector<ArenaAllocWithUsageInterval> (32-byte elements)
        while pos < 256:
            v = m.vector(p + pos, 32)
            if v and v[1] == n:
                allocs = []
                for i in range(n):
                    a = v[0] + 32 * i
                    allocs.append({
                        "offset": m.u64(a), "size": m.u64(a + 8),
                        "tensor": m.i32(a + 16), "first": m.i32(a + 20),
                        "last": m.i32(a + 24)})
                if all(a["tensor"] in (i, -1) for i, a in enumerate(allocs)):
                    break
                allocs = None
            pos += 8
        if allocs is None:
            return None
        pos += 24
        # alloc_node_, dealloc_node_: the next two vector<int32_t> of size n
        # whose contents look like node indices.
        found = []
        while pos < 512 and len(found) < 2:
            v = m.vector(p + pos, 4)
            if v and v[1] == n:
                vals = [m.i32(v[0] + 4 * i) for i in range(n)]
                if all(0 <= x < max(self.num_nodes, 1) or x == INT32_MAX
                       for x in vals):
                    found.append(vals)
                    pos += 24
                    continue
            pos += 8
        if len(found) != 2:
            return None
        alloc_node, dealloc_node = found
        # SimpleMemoryArena x2: committed_, high_water_mark_,
        # {pointer, aligned_pointer}, data_size_, alignment_ ...
        arenas = []
        while pos < 1024 and len(arenas) < 2:
            try:
                w = [m.u64(p + pos + 8 * k) for k in range(5)]
            except MemoryError:
                return None
            # LiteRT: high_water_mark_, ResizableAlignedBuffer {pointer,
            # aligned_pointer, data_size_, alignment_}; tflite-runtime 2.14:
            # arena_alignment_, high_water_mark_, underlying_buffer_,
            # underlying_buffer_size_, underlying_buffer_aligned_ptr_
            for (align, hwm, ptr, dsz, aptr), step in (
                    ((w[4], w[0], w[1], w[3], w[2]), 40),
                    ((w[0], w[1], w[2], w[3], w[4]), 40 + 24)):
                # a released arena (ReleaseBuffer) has no buffer and no size
                if align == 64 and (aptr == ptr == dsz == 0 or (
                        ptr <= aptr < ptr + 64 and aptr % 64 == 0
                        and dsz >= hwm)) and hwm < 1 << 40 and dsz < 1 << 40:
                    arenas.append({"hwm": hwm, "base": aptr,
                                   "buffer_size": dsz, "at": pos})
                    pos += step
                    break
            else:
                pos += 8
        if len(arenas) != 2:
            return None
        pl = {"addr": p, "allocs": allocs, "alloc_node": alloc_node,
              "dealloc_node": dealloc_node, "arena": arenas[0],
              "persistent": arenas[1], "shared": None}
        # Validate: every arena tensor with its own allocation sits at
        # base + allocs_[t].offset.
        ok = 0
        for t in self.tensors:
            a = allocs[t["index"]]
            if t["alloc_type"] == K_ARENA_RW and t["data"] and a["size"] > 0:
                if t["data"] != arenas[0]["base"] + a["offset"]:
                    return None
                ok += 1
        pl["validated_tensors"] = ok
        pl["shared"] = self._try_shared_map(p, pos)
        return pl

    def _try_shared_map(self, p, pos):
        """actual_tensor_id_: std::unordered_map<int32_t,int32_t> after
        preserve_all_tensors_, tensor_alignment_ (64), last_active_node_."""
        m = self.mem
        for off in range(pos, pos + 64, 4):
            try:
                if m.i32(p + off) != 64:
                    continue
            except MemoryError:
                return None
            mp = (p + off + 8 + 7) // 8 * 8
            try:
                buckets, nb, first, count = (m.u64(mp + 8 * k)
                                             for k in range(4))
            except MemoryError:
                continue
            if nb == 0 or count > self.n or not m.ok(buckets, 8 * nb):
                continue
            res = {}
            node = first
            try:
                while node and len(res) <= count:
                    k, v = m.i32(node + 8), m.i32(node + 12)
                    res[k] = v
                    node = m.u64(node)
            except MemoryError:
                continue
            if len(res) == count and all(0 <= k < self.n and 0 <= v < self.n
                                         for k, v in res.items()):
                return res
        return None


# --------------------------------------------------------------------------
# Output
# --------------------------------------------------------------------------
def temp_owner(rt):
    """tensor index -> (node index, op, j) for node temporaries."""
    owners = {}
    if rt.nodes:
        for nd in rt.nodes:
            for j, t in enumerate(nd["temporaries"]):
                owners[t] = (nd["index"], nd["op"], j)
    elif rt.planner:
        # Fallback: kernel-added tensors live exactly during one node.
        per_node = {}
        for t in range(len(rt.model["tensors"]), rt.n):
            a = rt.planner["alloc_node"][t]
            if a != INT32_MAX:
                j = per_node.get(a, 0)
                per_node[a] = j + 1
                owners[t] = (a, rt.model["ops"][a]["op"], j)
    return owners


def inplace_str(v):
    if v is None:
        return "?"
    if v == 0:
        return "none"
    return "|".join(n for b, n in INPLACE_FLAGS if v & b)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("model")
    ap.add_argument("--details", action="store_true",
                    help="add comment lines: every tensor with its "
                    "allocation type, every node with its temporaries")
    ap.add_argument("--lifetimes", action="store_true",
                    help="add first_node,last_node columns (ArenaPlanner)")
    ap.add_argument("--threads", type=int, default=None, metavar="N",
                    help="num_threads for the interpreter (default: the "
                    "wrapper's default, 1). Float CONV_2D switches to the "
                    "multithreaded Eigen kernel when N > 1: persistent "
                    "hwcn_weights temporaries instead of arena im2col")
    ap.add_argument("--subgraph", type=int, default=0, metavar="K",
                    help="the subgraph whose plan is printed (default 0). "
                    "Each subgraph has an ArenaPlanner of its own: WHILE and "
                    "IF plan theirs in their Prepare, so allocate_tensors() "
                    "plans them; CALL_ONCE plans its init subgraph in its "
                    "first Eval, so for that one the model is invoked once "
                    "(inputs left as allocated) and the plan read after it")
    ap.add_argument("--invoke", action="store_true",
                    help="invoke the model once (inputs as allocated) before "
                    "reading the plan: after a node whose output is dynamic "
                    "LiteRT plans the rest of the graph in the first invoke, "
                    "in steps, around what allocate_tensors() placed")
    ap.add_argument("--input-shape", action="append", default=[],
                    metavar="[K=]D,D,...",
                    help="resize input K (default 0) before allocate_tensors,"
                    " as arenaprof plan --input-shape plans it")
    ap.add_argument("--heuristic", action="store_true",
                    help="if LiteRT's TfLiteTensor array cannot be read and "
                    "validated, fall back to a flatbuffer-based guess "
                    "(unreliable: kernel temporaries invisible, kernel-made "
                    "persistent tensors counted as arena) instead of exit 5")
    ap.add_argument("--print-state", action="store_true",
                    help="run tflite::PrintInterpreterState (unavailable "
                    "in ai-edge-litert 2.3.0: exits 4)")
    args = ap.parse_args(argv)

    if not os.path.isfile(args.model):
        print("litert_plan: no such file: %s" % args.model, file=sys.stderr)
        return 2
    if args.print_state:
        print("litert_plan: PrintInterpreterState is not reachable: the "
              "ai-edge-litert wheel has no Python binding for it, and "
              "tflite::PrintInterpreterState (optional_debug_tools.cc) is not "
              "linked into libpywrap_litert_common.so at all (neither exported"
              " nor in its local symbol table); tflite::DumpArenaInfo is the "
              "empty weak default. Use --details instead.", file=sys.stderr)
        return 4
    try:
        model = parse_model(args.model, args.subgraph)
    except Exception as e:  # noqa: BLE001
        print("litert_plan: cannot parse %s: %s" % (args.model, e),
              file=sys.stderr)
        return 2
    try:
        shapes = []
        for a in args.input_shape:
            k, _, dims = a.rpartition("=")
            shapes.append((int(k or 0), [int(d) for d in dims.split(",")]))
        interp = load_interpreter(args.model, args.threads, shapes)
    except NotComparable as e:
        print("not comparable: %s" % e, file=sys.stderr)
        return 3

    invoked = False
    if model["planned_at_invoke"] or args.invoke:
        try:
            interp.invoke()
        except Exception as e:  # noqa: BLE001
            print("not comparable: subgraph %d is planned at the first "
                  "invoke, which failed: %s" % (args.subgraph, _first_line(e)),
                  file=sys.stderr)
            return 3
        invoked = True
    rt = Runtime(interp, model)
    if any(n.startswith("arena holds scalars only") for n in rt.notes) and \
            not rt.planner:
        print("litert_plan: subgraph %d's tensor layout is not validated: "
              "only scalars in its arena and no ArenaPlanner found"
              % args.subgraph, file=sys.stderr)
        return 5
    if rt.heuristic and args.subgraph:
        print("litert_plan: cannot read subgraph %d's TfLiteTensor array (%s);"
              " --heuristic covers subgraph 0 only" % (
                  args.subgraph, "; ".join(rt.notes)), file=sys.stderr)
        return 5
    if rt.heuristic and not args.heuristic:
        print("litert_plan: cannot read LiteRT's TfLiteTensor array (%s); "
              "rerun with --heuristic for an unreliable flatbuffer-based "
              "approximation" % "; ".join(rt.notes), file=sys.stderr)
        return 5
    n_model = len(model["tensors"])
    owners = temp_owner(rt)
    pl = rt.planner

    arena = [t for t in rt.tensors if t["alloc_type"] == K_ARENA_RW]
    released = invoked and args.subgraph and not model["planned_at_invoke"] \
        and all(not t["data"] for t in arena)
    if released and pl and pl["shared"] is not None:
        # WHILE, IF and STABLEHLO_COMPOSITE release their subgraphs' normal
        # arenas after Eval (ReleaseMemory); the planner keeps its allocs_,
        # which hold the plan the invoke made: offsets from there
        for t in arena:
            a = pl["allocs"][pl["shared"].get(t["index"], t["index"])]
            if a["size"]:
                t["data"] = RELEASED_BASE + a["offset"]
        pl["arena"]["base"] = RELEASED_BASE
    placed = [t for t in arena if t["data"]]
    # a tensor the planner never allocates (WHILE's dropped pass-through output:
    # its alloc node is unassigned) has no data after an invoke either
    def never_allocated(t):
        return pl is not None and pl["alloc_node"][t["index"]] == INT32_MAX

    if invoked and not released and \
            any(not t["data"] and t["bytes"] and not never_allocated(t)
                for t in arena):
        # CALL_ONCE releases the init subgraph's normal arena after running it
        print("litert_plan: subgraph %d's normal arena was released after the "
              "invoke that planned it: its offsets are not readable here"
              % args.subgraph, file=sys.stderr)
        return 5
    if pl and pl["arena"]["base"]:
        base = pl["arena"]["base"]
        base_from = "planner"
    else:
        base = min((t["data"] for t in placed), default=0)
        base_from = "lowest"
    lowest = min((t["data"] for t in placed), default=0)

    def name_of(t):
        i = t["index"]
        if i >= n_model:
            if i in owners:
                nd, op, j = owners[i]
                return "<temporary node=%d op=%s #%d>" % (nd, op, j)
            return "<kernel tensor #%d not a node temporary>" % (i - n_model)
        return t["name"]

    out = csv.writer(sys.stdout, lineterminator="\n")
    hdr = ["tensor", "name", "offset", "size"]
    if args.lifetimes:
        hdr += ["first_node", "last_node"]
    out.writerow(hdr)
    def slot_bytes(t):
        # RemoveUnusedInputs zeroes the bytes of an input the plan has placed
        # (a STABLEHLO_CASE prepared in the first invoke): its slot is the
        # planner's allocation, which it keeps
        if not t["bytes"] and pl and t["index"] < len(pl["allocs"]):
            return pl["allocs"][t["index"]]["size"]
        return t["bytes"]

    arena_bytes = 0
    for t in placed:
        off = t["data"] - base
        row = [t["index"], name_of(t), off, slot_bytes(t)]
        if args.lifetimes:
            if pl:
                row += [pl["alloc_node"][t["index"]],
                        pl["dealloc_node"][t["index"]]]
            else:
                row += ["", ""]
        out.writerow(row)
        arena_bytes = max(arena_bytes, off + slot_bytes(t))
    sys.stdout.flush()

    def c(line):
        print("# " + line)

    c("model=%s tensors_in_model=%d tensors_in_runtime=%d nodes=%d "
      "subgraphs=%d num_threads=%d subgraph=%d planned_at=%s" % (
          os.path.basename(args.model), n_model, rt.n, rt.num_nodes,
          rt.num_subgraphs, args.threads or 1, args.subgraph,
          "first_invoke" if invoked else "allocate_tensors"))
    unplaced_after = [t["index"] for t in arena if not t["data"] and t["bytes"]]
    if not invoked and unplaced_after:
        c("note: %d arena tensors not placed by allocate_tensors() %s: a "
          "dynamic output split the plan, the rest is planned in the first "
          "invoke (--invoke)" % (len(unplaced_after), unplaced_after))
    c("source=%s offsets_relative_to=%s" % (
        "heuristic" if rt.heuristic else "TfLiteTensor.allocation_type",
        "planner allocs_ (the arena was released after the invoke)" if released
        and base == RELEASED_BASE else "planner arena base"
        if base_from == "planner" else "lowest normal-arena data pointer"))
    for note in rt.notes:
        c("note: " + note)
    if lowest != base:
        c("warning: lowest normal-arena tensor is at offset %d, not 0"
          % (lowest - base))
    counts = {}
    for t in rt.tensors:
        counts[t["alloc_type"]] = counts.get(t["alloc_type"], 0) + 1
    c("allocation_types " + " ".join(
        "%s=%d" % (ALLOC_TYPES[k], v) for k, v in sorted(counts.items())))
    unplaced = [t["index"] for t in arena if not t["data"]]
    c("arena_tensors=%d placed=%d null_data=%d%s" % (
        len(arena), len(placed), len(unplaced),
        (" " + str(unplaced)) if unplaced else ""))
    temps = [t for t in placed if t["index"] >= n_model]
    c("kernel_temporaries_in_arena=%d" % len(temps) + "".join(
        " [t%d %s %dB @%d]" % (t["index"], name_of(t), t["bytes"],
                               t["data"] - base) for t in temps))
    others = [t for t in rt.tensors
              if t["index"] >= n_model and t["alloc_type"] != K_ARENA_RW]
    for t in others:
        c("kernel_tensor t%d %s type=%s bytes=%d" % (
            t["index"], name_of(t), ALLOC_TYPES[t["alloc_type"]], t["bytes"]))
    by_addr = {}
    for t in placed:
        by_addr.setdefault(t["data"], []).append(t["index"])
    groups = [v for v in by_addr.values() if len(v) > 1]
    c("same_offset_groups=%d (in-place sharing or reuse after death)" % len(
        groups) + "".join(" [%s @%d]" % ("=".join("t%d" % i for i in g),
                                         rt.tensors[g[0]]["data"] - base)
                          for g in groups))
    if pl and pl["shared"] is not None:
        c("planner_inplace_shared(actual_tensor_id_)=%d%s" % (
            len(pl["shared"]), "".join(
                " t%d->t%d" % kv for kv in sorted(pl["shared"].items()))))
    persist = [t for t in rt.tensors
               if t["alloc_type"] == K_ARENA_RW_PERSISTENT]
    pbase = pl["persistent"]["base"] if pl else \
        min((t["data"] for t in persist if t["data"]), default=0)
    for t in persist:
        c("persistent t%d %s offset=%s bytes=%d" % (
            t["index"], name_of(t),
            (t["data"] - pbase) if t["data"] else "null", t["bytes"]))
    dyn = [t for t in rt.tensors if t["alloc_type"] == K_DYNAMIC]
    for t in dyn:
        c("dynamic t%d %s bytes=%d data=%s" % (
            t["index"], name_of(t), t["bytes"],
            "set" if t["data"] else "null"))
    if pl:
        c("planner arena: high_water_mark=%d buffer_size=%d; persistent "
          "arena: high_water_mark=%d buffer_size=%d; %d tensors validated "
          "against allocs_" % (
              pl["arena"]["hwm"], pl["arena"]["buffer_size"],
              pl["persistent"]["hwm"], pl["persistent"]["buffer_size"],
              pl["validated_tensors"]))
    if args.details:
        c("--- tensors: index alloc_type bytes offset [first,last] name")
        for t in rt.tensors:
            at = t["alloc_type"]
            if at == K_ARENA_RW and t["data"]:
                off = str(t["data"] - base)
            elif at == K_ARENA_RW_PERSISTENT and t["data"]:
                off = "p+%d" % (t["data"] - pbase)
            else:
                off = "-"
            life = ""
            if pl and pl["alloc_node"][t["index"]] != INT32_MAX:
                life = " [%d,%s]" % (
                    pl["alloc_node"][t["index"]],
                    "inf" if pl["dealloc_node"][t["index"]] == INT32_MAX
                    else pl["dealloc_node"][t["index"]])
            c("t%d %s %d %s%s %s" % (t["index"], ALLOC_TYPES[at], t["bytes"],
                                     off, life, name_of(t)))
        if rt.nodes:
            c("--- nodes: index op inplace temporaries")
            for nd in rt.nodes:
                c("n%d %s inplace=%s temporaries=%s" % (
                    nd["index"], nd["op"], inplace_str(nd["inplace"]),
                    nd["temporaries"]))
    c("arena_bytes=%d" % arena_bytes)
    return 0


if __name__ == "__main__":
    sys.exit(main())
