"""The flatbuffer builder behind gen_models.py: a model, its graphs, and helpers."""

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


def var_handle(g, name):
    h = g.tensor(name + "/handle", [], TT.RESOURCE)
    o = fb.VarHandleOptionsT()
    o.sharedName = name
    g.op(OP.VAR_HANDLE, [], [h], OPT.VarHandleOptions, o)
    return h


def computed_in(g, name, values, dtype=np.int32, ttype=TT.INT32):
    """A tensor ADD computes from two constants: ADD does not fold, so it is not const."""
    v = np.array(values, dtype=dtype)
    z = g.tensor(name + "/zero", list(v.shape), ttype, np.zeros_like(v))
    c = g.tensor(name + "/const", list(v.shape), ttype, v)
    out = g.tensor(name, list(v.shape), ttype)
    g.op(OP.ADD, [c, z], [out], OPT.AddOptions, fb.AddOptionsT())
    return out
