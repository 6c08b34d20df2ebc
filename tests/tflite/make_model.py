"""Write a tiny .tflite flatbuffer of one KIND, for the exporter's tests (each a case a real model
met: a scalar, an empty tensor, a tensor LiteRT gives no data, an unusual dtype, a custom op, a
second subgraph). Run with the build venv's Python (LiteRT's schema module and flatbuffers).
Usage: make_model.py KIND OUT.tflite     make_model.py --list (the kinds)"""

import sys

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as schema

T = schema.TensorType
OP = schema.BuiltinOperator


class Graph:
    """One subgraph built up tensor by tensor; constants get a buffer of their bytes."""

    def __init__(self):
        self.buffers = [schema.BufferT()]  # buffer 0: the empty sentinel
        self.tensors, self.ops, self.codes = [], [], []

    def tensor(self, name, shape, dtype=T.FLOAT32, data=None):
        t = schema.TensorT()
        t.name, t.shape, t.type, t.buffer = name.encode(), list(shape), dtype, 0
        if data is not None:
            b = schema.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1

    def op(self, code, inputs, outputs, custom=None, options=None):
        key = (code, custom)
        if key not in self.codes:
            self.codes.append(key)
        o = schema.OperatorT()
        o.opcodeIndex, o.inputs, o.outputs = self.codes.index(key), inputs, outputs
        if options is not None:
            o.builtinOptionsType, o.builtinOptions = options
        if custom is not None:
            o.customOptions = []
        self.ops.append(o)

    def write(self, path, inputs, outputs, extra_subgraphs=0):
        model = schema.ModelT()
        model.version, model.buffers = 3, self.buffers
        model.operatorCodes = []
        for code, custom in self.codes:
            c = schema.OperatorCodeT()
            c.builtinCode, c.deprecatedBuiltinCode = code, min(code, 127)
            c.version = 1
            if custom is not None:
                c.customCode = custom.encode()
            model.operatorCodes.append(c)
        sg = schema.SubGraphT()
        sg.name, sg.tensors, sg.operators = b"main", self.tensors, self.ops
        sg.inputs, sg.outputs = inputs, outputs
        model.subgraphs = [sg]
        for k in range(extra_subgraphs):
            body = schema.SubGraphT()
            body.name = f"body{k}".encode()
            body.tensors, body.inputs, body.outputs, body.operators = [], [], [], []
            model.subgraphs.append(body)
        builder = flatbuffers.Builder(1024)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        with open(path, "wb") as f:
            f.write(builder.Output())


def add_options():
    o = schema.AddOptionsT()
    return schema.BuiltinOptions.AddOptions, o


def chain(g, x, n, dtype=T.FLOAT32, shape=(8,)):
    """n ADDs x+x in a chain; the last one's output is returned (the model's output)."""
    for k in range(n):
        y = g.tensor(f"add{k}", shape, dtype)
        g.op(OP.ADD, [x, x], [y], options=add_options())
        x = y
    return x


def scalar_constant(path):
    """A 0-d constant (ADD's second operand): exports; its address is LiteRT's TfLiteTensor's (the
    file's mapping plus its offset where that cannot be read)."""
    g = Graph()
    x = g.tensor("x", [8])
    c = g.tensor("one", [], data=np.float32(1.0))
    y = g.tensor("y", [8])
    g.op(OP.ADD, [x, c], [y], options=add_options())
    g.write(path, [x], [chain(g, y, 2)])


def scalar_intermediate(path):
    """0-d tensors only: an input, a constant, an intermediate and the output (all scalars in
    the arena): LiteRT's Python API gives their values, not their buffers; their addresses are
    read from LiteRT's TfLiteTensor, each checked against the value it holds."""
    g = Graph()
    x = g.tensor("x", [])
    c = g.tensor("one", [], data=np.float32(1.0))
    y = g.tensor("y", [])
    g.op(OP.ADD, [x, c], [y], options=add_options())
    g.write(path, [x], [chain(g, y, 1, shape=())])


def scalar_reduction(path):
    """A 0-d intermediate between tensors of bytes: SUM of x over its only axis (a scalar in the
    arena, with the reduction's temporaries), added back to x, then a chain: its address is read
    from LiteRT's TfLiteTensor, checked by every view."""
    g = Graph()
    x = g.tensor("x", [8])
    axis = g.tensor("axis", [1], T.INT32, data=np.array([0], dtype=np.int32))
    s = g.tensor("s", [])
    r = schema.ReducerOptionsT()
    r.keepDims = False
    g.op(OP.SUM, [x, axis], [s], options=(schema.BuiltinOptions.ReducerOptions, r))
    y = g.tensor("y", [8])
    g.op(OP.ADD, [x, s], [y], options=add_options())
    g.write(path, [x], [chain(g, y, 2)])


def scalar_folded(path):
    """basic-pitch's pattern: STRIDED_SLICE of x's SHAPE to a 0-d int32, which LiteRT computes
    at prepare into a tensor of its own (kTfLitePersistentRo, outside the arena), then CAST and
    added to x."""
    g = Graph()
    x = g.tensor("x", [2, 4])
    shape = g.tensor("shape", [2], T.INT32)
    so = schema.ShapeOptionsT()
    so.outType = T.INT32
    g.op(OP.SHAPE, [x], [shape], options=(schema.BuiltinOptions.ShapeOptions, so))
    begin, end, strides = (g.tensor(n, [1], T.INT32, data=np.array([v], dtype=np.int32))
                           for n, v in (("begin", 0), ("end", 1), ("strides", 1)))
    n = g.tensor("n", [], T.INT32)
    ss = schema.StridedSliceOptionsT()
    ss.shrinkAxisMask = 1
    g.op(OP.STRIDED_SLICE, [shape, begin, end, strides], [n],
         options=(schema.BuiltinOptions.StridedSliceOptions, ss))
    nf = g.tensor("nf", [])
    co = schema.CastOptionsT()
    co.inDataType, co.outDataType = T.INT32, T.FLOAT32
    g.op(OP.CAST, [n], [nf], options=(schema.BuiltinOptions.CastOptions, co))
    y = g.tensor("y", [2, 4])
    g.op(OP.ADD, [x, nf], [y], options=add_options())
    g.write(path, [x], [chain(g, y, 1, shape=(2, 4))])


def int_sum(g, n, name):
    """SUM of the int32 tensor n over its last axis: LiteRT keeps its running sum in an int64
    temporary (besides its int32 index, axes and dims)."""
    axis = g.tensor(f"{name}_axis", [1], T.INT32, data=np.array([1], dtype=np.int32))
    s = g.tensor(name, [g.tensors[n].shape[0]], T.INT32)
    r = schema.ReducerOptionsT()
    r.keepDims = False
    g.op(OP.SUM, [n, axis], [s], options=(schema.BuiltinOptions.ReducerOptions, r))
    return s


def conv_temporaries(path):
    """A 3x3 CONV_2D (an im2col temporary) between two SUMs of int32 tensors (each with an int64
    running sum among its temporaries): LiteRT numbers the temporaries in prepare order, so the
    CONV_2D's lie between int64 ones. What each op holds is LiteRT's record; a guess in node
    order by the kernels' known temporaries takes the first SUM's int64 sum for the im2col."""
    g = Graph()
    n = g.tensor("n", [2, 3], T.INT32)
    s1 = int_sum(g, n, "sum1")
    x = g.tensor("x", [1, 6, 6, 2])
    w = g.tensor("w", [4, 3, 3, 2],
                 data=np.linspace(-1, 1, 72, dtype=np.float32).reshape(4, 3, 3, 2))
    b = g.tensor("b", [4], data=np.zeros(4, dtype=np.float32))
    c = g.tensor("conv", [1, 6, 6, 4])
    co = schema.Conv2DOptionsT()
    co.padding, co.strideH, co.strideW = schema.Padding.SAME, 1, 1
    co.dilationHFactor = co.dilationWFactor = 1
    g.op(OP.CONV_2D, [x, w, b], [c], options=(schema.BuiltinOptions.Conv2DOptions, co))
    m = g.tensor("m", [2, 5], T.INT32)
    s2 = int_sum(g, m, "sum2")
    g.write(path, [n, x, m], [s1, chain(g, c, 1, shape=(1, 6, 6, 4)), s2])


def persistent_temporary(path):
    """BATCH_MATMUL by a constant: LiteRT keeps the constant transposed in a temporary of its
    persistent arena (kTfLiteArenaRwPersistent), not in the arena with the other temporaries."""
    g = Graph()
    x = g.tensor("x", [1, 4, 8])
    w = g.tensor("w", [1, 8, 6], data=np.linspace(-1, 1, 48, dtype=np.float32).reshape(1, 8, 6))
    y = g.tensor("y", [1, 4, 6])
    o = schema.BatchMatMulOptionsT()
    g.op(OP.BATCH_MATMUL, [x, w], [y], options=(schema.BuiltinOptions.BatchMatMulOptions, o))
    g.write(path, [x], [chain(g, y, 1, shape=(1, 4, 6))])


def hybrid(path):
    """FULLY_CONNECTED of float inputs by int8 weights (hybrid): its temporaries are the inputs
    quantized, their scales, an accumulator, the zero points (in the arena) and the weights'
    row sums (in the persistent arena)."""
    g = Graph()
    x = g.tensor("x", [2, 16])
    w = g.tensor("w", [8, 16], T.INT8, data=np.arange(128, dtype=np.int8).reshape(8, 16))
    qp = schema.QuantizationParametersT()
    qp.scale, qp.zeroPoint = [0.05], [0]
    g.tensors[w].quantization = qp
    b = g.tensor("b", [8], data=np.zeros(8, np.float32))
    y = g.tensor("y", [2, 8])
    o = schema.FullyConnectedOptionsT()
    o.asymmetricQuantizeInputs = True
    g.op(OP.FULLY_CONNECTED, [x, w, b], [y],
         options=(schema.BuiltinOptions.FullyConnectedOptions, o))
    g.write(path, [x], [chain(g, y, 1, shape=(2, 8))])


def dynamic_input(path):
    """An input whose first dimension is dynamic (signature [-1, 4]), as models exported for any
    batch or length: LiteRT sizes it [1, 4] unless resized (--input-shape)."""
    g = Graph()
    x = g.tensor("x", [1, 4])
    g.tensors[x].shapeSignature = [-1, 4]
    y = g.tensor("y", [1, 4])
    g.tensors[y].shapeSignature = [-1, 4]
    g.op(OP.ADD, [x, x], [y], options=add_options())
    g.write(path, [x], [y])


def empty(path):
    """Tensors of no elements (shape [0]) between ops: no bytes, so no plane and no word."""
    g = Graph()
    x = g.tensor("x", [8])
    e = g.tensor("e", [0])
    g.write(path, [x, e], [chain(g, x, 2), chain(g, e, 3, shape=(0,))])


def no_data(path):
    """FILL to dims the graph is given: its output has no data after allocation (a dynamic
    tensor, sized at invoke)."""
    g = Graph()
    x = g.tensor("x", [8])
    y = g.tensor("y", [8])
    g.op(OP.ADD, [x, x], [y], options=add_options())
    dims = g.tensor("dims", [1], T.INT32)
    v = g.tensor("value", [], data=np.float32(2.0))
    f = g.tensor("filled", [1])
    g.op(OP.FILL, [dims, v], [f])
    g.write(path, [x, dims], [y, f])


def dynamic(path):
    """FILL to dims computed in the graph from an input (x's values, cast): its output is sized
    at invoke (a dynamic tensor, outside the arena), then added to x."""
    g = Graph()
    x = g.tensor("x", [8])
    d = g.tensor("d", [1], T.INT32)
    nd = g.tensor("eight", [1], T.INT32, data=np.array([8], dtype=np.int32))
    g.op(OP.ADD, [d, nd], [g.tensor("dims", [1], T.INT32)], options=add_options())
    v = g.tensor("value", [], data=np.float32(2.0))
    f = g.tensor("filled", [8])
    g.op(OP.FILL, [3, v], [f])
    y = g.tensor("y", [8])
    g.op(OP.ADD, [f, x], [y], options=add_options())
    g.write(path, [x, d], [y])


def dtypes(path):
    """Unusual dtypes in the arena: bool (LOGICAL_NOT), int16 and int64 (ADD), float16 weights
    dequantized once (DEQUANTIZE of a constant: the persistent arena)."""
    g = Graph()
    b = g.tensor("b", [8], T.BOOL)
    nb = g.tensor("not_b", [8], T.BOOL)
    g.op(OP.LOGICAL_NOT, [b], [nb])
    h = g.tensor("h", [8], T.INT16)
    h2 = chain(g, h, 2, T.INT16)
    q = g.tensor("q", [8], T.INT64)
    q2 = chain(g, q, 2, T.INT64)
    w16 = g.tensor("w16", [8], T.FLOAT16, data=np.arange(8, dtype=np.float16))
    w = g.tensor("w", [8])
    g.op(OP.DEQUANTIZE, [w16], [w])
    x = g.tensor("x", [8])
    y = g.tensor("y", [8])
    g.op(OP.ADD, [x, w], [y], options=add_options())
    g.write(path, [b, h, q, x], [nb, h2, q2, chain(g, y, 1)])


def string(path):
    """A string tensor: LiteRT sizes strings at invoke (dynamic), so it cannot be placed."""
    g = Graph()
    s = g.tensor("s", [2], T.STRING)
    r = g.tensor("r", [2], T.STRING)
    shp = g.tensor("shape", [1], T.INT32, data=np.array([2], dtype=np.int32))
    g.op(OP.RESHAPE, [s, shp], [r])
    g.write(path, [s], [r])


def int4(path):
    """An int4 constant (packed weights) dequantized to float32."""
    g = Graph()
    w4 = g.tensor("w4", [8], T.INT4, data=np.zeros(4, dtype=np.uint8))
    qp = schema.QuantizationParametersT()
    qp.scale, qp.zeroPoint = [0.5], [0]
    g.tensors[w4].quantization = qp
    w = g.tensor("w", [8])
    g.op(OP.DEQUANTIZE, [w4], [w])
    x = g.tensor("x", [8])
    y = g.tensor("y", [8])
    g.op(OP.ADD, [x, w], [y], options=add_options())
    g.write(path, [x], [chain(g, y, 1)])


def custom(path):
    """A custom op LiteRT's builtin resolver has no kernel for."""
    g = Graph()
    x = g.tensor("x", [8])
    y = g.tensor("y", [8])
    g.op(OP.CUSTOM, [x], [y], custom="ArenarefNoSuchOp")
    g.write(path, [x], [chain(g, y, 1)])


def two_subgraphs(path):
    """Two subgraphs and no op that calls the second (another signature): invoke() runs the
    first, whose plan stands alone."""
    g = Graph()
    x = g.tensor("x", [8])
    g.write(path, [x], [chain(g, x, 1)], extra_subgraphs=1)


def control_flow(path):
    """IF over two subgraphs (control flow: the bodies are subgraphs the op calls)."""
    g = Graph()
    c = g.tensor("cond", [1], T.BOOL)
    x = g.tensor("x", [8])
    y = g.tensor("y", [8])
    o = schema.IfOptionsT()
    o.thenSubgraphIndex, o.elseSubgraphIndex = 1, 2
    g.op(OP.IF, [c, x], [y], options=(schema.BuiltinOptions.IfOptions, o))
    g.write(path, [c, x], [y], extra_subgraphs=2)


KINDS = {
    f.__name__: f
    for f in (
        scalar_constant,
        scalar_intermediate,
        scalar_reduction,
        scalar_folded,
        conv_temporaries,
        persistent_temporary,
        hybrid,
        dynamic_input,
        empty,
        no_data,
        dynamic,
        dtypes,
        string,
        int4,
        custom,
        two_subgraphs,
        control_flow,
    )
}

if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:
        print("\n".join(KINDS))
    elif len(sys.argv) == 3 and sys.argv[1] in KINDS:
        KINDS[sys.argv[1]](sys.argv[2])
    else:
        sys.exit(f"usage: make_model.py {{{'|'.join(KINDS)}}} OUT.tflite | --list")
