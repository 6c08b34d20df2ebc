"""LiteRT's in-place alias chain, built in code: each model as a .tflite flatbuffer (LiteRT's own
schema module) with the reference its output must equal, computed with numpy alone.

The pattern: an elementwise op writes its output over its input (LiteRT's ArenaPlanner in-place
reuse) while a view of that input (RESHAPE, SQUEEZE, EXPAND_DIMS of an earlier in-place result)
is the reader that let it; another reader of the viewed tensor comes later and reads bytes the
in-place op already overwrote. A control moves that late reader before the in-place op.
Usage (the build venv's Python): models.py --list | models.py NAME OUT.tflite
"""

import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "tests", "tflite"))
from make_model import OP, T, Graph, schema  # noqa: E402

S = [2, 4]  # the input's shape
X = np.arange(8, dtype=np.float32).reshape(S)  # the input the reproducers feed


def _opts(kind):
    o = getattr(schema, kind + "OptionsT")()
    return getattr(schema.BuiltinOptions, kind + "Options"), o


ELEMENTWISE = {  # op: (LiteRT builtin, options kind, numpy)
    "ADD": (OP.ADD, "Add", np.add),
    "MUL": (OP.MUL, "Mul", np.multiply),
    "SUB": (OP.SUB, "Sub", np.subtract),
}


class Model:
    """A graph and, beside it, the same computation in numpy."""

    def __init__(self):
        self.g = Graph()
        self.x = self.g.tensor("x", S)
        self.ref = {self.x: X}

    def const(self, name, value, shape):
        data = np.full(shape, value, np.float32)
        t = self.g.tensor(name, shape, data=data)
        self.ref[t] = data
        return t

    def elementwise(self, op, name, a, b):
        code, kind, fn = ELEMENTWISE[op]
        shape = list(np.broadcast_shapes(self.ref[a].shape, self.ref[b].shape))
        t = self.g.tensor(name, shape)
        self.g.op(code, [a, b], [t], options=_opts(kind))
        self.ref[t] = fn(self.ref[a], self.ref[b]).astype(np.float32)
        return t

    def reshape(self, name, a, shape):
        s = self.g.tensor(f"{name}_shape", [len(shape)], T.INT32,
                          data=np.array(shape, np.int32))
        t = self.g.tensor(name, shape)
        self.g.op(OP.RESHAPE, [a, s], [t])
        self.ref[t] = self.ref[a].reshape(shape)
        return t

    def expand_dims(self, name, a, axis):
        ax = self.g.tensor(f"{name}_axis", [], T.INT32, data=np.array(axis, np.int32))
        shape = list(np.expand_dims(self.ref[a], axis).shape)
        t = self.g.tensor(name, shape)
        self.g.op(OP.EXPAND_DIMS, [a, ax], [t])
        self.ref[t] = self.ref[a].reshape(shape)
        return t

    def squeeze(self, name, a, axis):
        o = schema.SqueezeOptionsT()
        o.squeezeDims = [axis]
        shape = list(np.squeeze(self.ref[a], axis).shape)
        t = self.g.tensor(name, shape)
        self.g.op(OP.SQUEEZE, [a], [t], options=(schema.BuiltinOptions.SqueezeOptions, o))
        self.ref[t] = self.ref[a].reshape(shape)
        return t

    def unary(self, code, name, a, fn):
        t = self.g.tensor(name, list(self.ref[a].shape))
        self.g.op(code, [a], [t])
        self.ref[t] = fn(self.ref[a]).astype(np.float32)
        return t

    def concat(self, name, a, b):
        o = schema.ConcatenationOptionsT()
        o.axis = 0
        ref = np.concatenate([self.ref[a], self.ref[b]], 0)
        t = self.g.tensor(name, list(ref.shape))
        self.g.op(OP.CONCATENATION, [a, b], [t],
                  options=(schema.BuiltinOptions.ConcatenationOptions, o))
        self.ref[t] = ref
        return t

    def write(self, path, out):
        self.g.write(path, [self.x], [out])
        return self.ref[out]


def _alias_chain(path, view, back, ops=("ADD", "MUL", "ADD", "SUB", "ADD"), late_first=False,
                 late="elementwise", unary=None):
    """a = x op0 c1; y = a op1 c2 (in place on a); v = VIEW(y); z = v op2 c3 (in place on the
    root a); w = y op3 c4 (reads y: after z overwrote it, unless late_first); out = BACK(z) op4 w.
    view/back build the alias and its inverse: f(model, name, tensor) -> tensor. late="concat":
    the late reader is w = CONCATENATION(y, y) and out = CONCATENATION(BACK(z), BACK(z)) op4 w.
    unary=(code, numpy): z = UNARY(v) instead (an op LiteRT does not run in place)."""
    m = Model()
    c1 = m.const("c1", 1, S)
    c2 = m.const("c2", 2, S)
    c4 = m.const("c4", 4, S)
    a = m.elementwise(ops[0], "a", m.x, c1)
    y = m.elementwise(ops[1], "y", a, c2)
    v = view(m, "v", y)
    c3 = m.const("c3", 3, list(m.ref[v].shape))

    def late_reader():
        return m.concat("w", y, y) if late == "concat" else m.elementwise(ops[3], "w", y, c4)

    def in_place():
        if unary:
            return m.unary(unary[0], "z", v, unary[1])
        return m.elementwise(ops[2], "z", v, c3)

    if late_first:
        w = late_reader()
        z = in_place()
    else:
        z = in_place()
        w = late_reader()
    zb = back(m, "zb", z)
    if late == "concat":
        zb = m.concat("zc", zb, zb)
    return m.write(path, m.elementwise(ops[4], "out", zb, w))


def _reshape(m, name, t):
    return m.reshape(name, t, [8])


def _reshape_back(m, name, t):
    return m.reshape(name, t, S)


def _expand(m, name, t):
    return m.expand_dims(name, t, 0)


def _squeeze_back(m, name, t):
    return m.squeeze(name, t, 0)


def _two_aliases(m, name, t):  # RESHAPE then EXPAND_DIMS: [2,4] -> [8] -> [1,8]
    return m.expand_dims(name, m.reshape(f"{name}_flat", t, [8]), 0)


def _two_back(m, name, t):
    return m.reshape(name, t, S)


def _reads_both(path):
    """The late reader reads the stale y and the in-place result z in one op:
    a = x + c1; y = a * c2; v = RESHAPE(y); z = v + c3; out = y - RESHAPE(z)."""
    m = Model()
    a = m.elementwise("ADD", "a", m.x, m.const("c1", 1, S))
    y = m.elementwise("MUL", "y", a, m.const("c2", 2, S))
    z = m.elementwise("ADD", "z", m.reshape("v", y, [8]), m.const("c3", 3, [8]))
    return m.write(path, m.elementwise("SUB", "out", y, m.reshape("zb", z, S)))


VARIANTS = {  # name: (builder, expect: "wrong" (a planner bug, rule D unless the name says B)
    # or "right" (a control))
    "reshape": (lambda p: _alias_chain(p, _reshape, _reshape_back), "wrong"),
    "squeeze_expand_dims": (lambda p: _alias_chain(p, _expand, _squeeze_back), "wrong"),
    "two_aliases": (lambda p: _alias_chain(p, _two_aliases, _two_back), "wrong"),
    "mul_in_place": (lambda p: _alias_chain(p, _reshape, _reshape_back,
                                            ops=("MUL", "SUB", "MUL", "ADD", "SUB")), "wrong"),
    "sub_in_place": (lambda p: _alias_chain(p, _reshape, _reshape_back,
                                            ops=("ADD", "MUL", "SUB", "SUB", "ADD")), "wrong"),
    "concat_late_reader": (lambda p: _alias_chain(p, _reshape, _reshape_back, late="concat"),
                           "wrong"),
    # one op reads both values on the same bytes: the contract's rule B, checked before D
    "late_reader_reads_both_rule_B": (_reads_both, "wrong"),
    # RELU on the alias: LiteRT runs no unary op in place, so nothing is overwritten
    "control_relu_not_in_place": (lambda p: _alias_chain(
        p, _reshape, _reshape_back, unary=(OP.RELU, lambda x: np.maximum(x, 0))), "right"),
    "control_reshape": (lambda p: _alias_chain(p, _reshape, _reshape_back, late_first=True),
                        "right"),
    "control_squeeze_expand_dims": (
        lambda p: _alias_chain(p, _expand, _squeeze_back, late_first=True), "right"),
    "control_two_aliases": (lambda p: _alias_chain(p, _two_aliases, _two_back, late_first=True),
                            "right"),
    "control_mul_in_place": (lambda p: _alias_chain(p, _reshape, _reshape_back,
                                                    ops=("MUL", "SUB", "MUL", "ADD", "SUB"),
                                                    late_first=True), "right"),
    "control_sub_in_place": (lambda p: _alias_chain(p, _reshape, _reshape_back,
                                                    ops=("ADD", "MUL", "SUB", "SUB", "ADD"),
                                                    late_first=True), "right"),
    "control_concat_late_reader": (lambda p: _alias_chain(p, _reshape, _reshape_back,
                                                          late="concat", late_first=True),
                                   "right"),
}


def build(name, path):
    """Write model NAME to PATH; returns (input, reference output, expect)."""
    fn, expect = VARIANTS[name]
    return X, fn(path), expect


if __name__ == "__main__":
    if sys.argv[1:] == ["--list"]:
        print("\n".join(VARIANTS))
    elif len(sys.argv) == 3 and sys.argv[1] in VARIANTS:
        build(*sys.argv[1:])
    else:
        sys.exit(__doc__)
