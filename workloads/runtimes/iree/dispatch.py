"""What a dispatch does inside a value it updates in place (a `rw` binding, or a `ro` and a `wo`
binding on one value): its `writes` and the `reads` across elements the trace's update may say
(TRACE.md). Read from the executables as iree-compile prints them before
iree-stream-fuse-dispatch-bindings (one binding per tensor, in the dispatch's order, subspans at
their offset in the binding): a `iree_tensor_ext.dispatch.tensor.store` into the value writes
its box's bytes; a `dispatch.tensor.load` from it is a read across elements unless its only use
is as the destination (`outs`) of one op whose result is stored back at the same box (a
destination-passing op updating its own elements: linalg, a scatter, a sort), or as an input of a
linalg.generic with all-parallel iterators whose map for it equals the output's, that output
stored back at the same box (elementwise). Box offsets are evaluated from the dispatch's
operands (index.Ix of the host's values: a bounded or moving offset gives the hull of its boxes).
"""

import re

from . import index as ix

ELEMENT_BYTES = {"i1": 1, "i8": 1, "i16": 2, "i32": 4, "i64": 8, "f16": 2, "bf16": 2,
                 "f32": 4, "f64": 8, "index": 8, "f8E4M3FN": 1, "f8E5M2": 1}
_STMT = re.compile(r"^\s*(?:%[\w$.-]+(?::\d+)?(?:, %[\w$.-]+(?::\d+)?)* = |[a-z_][\w.]*(?:\s|$)|"
                   r"\^|\}|return)")
_TENSOR = re.compile(r"dispatch\.tensor<(readonly|writeonly|readwrite):tensor<([^>]*)>>")


class Undecided(Exception):
    """The executable says something this reader cannot follow: the caller reads it all."""


class Func:
    def __init__(self, name, args, statements):
        self.name, self.args, self.statements = name, args, statements


def parse(text):
    """{function name: Func} of every dispatch function in a printed module, with the module's
    affine map aliases substituted (#map3 -> affine_map<...>)."""
    maps = dict(re.findall(r"^(#map\d*) = (affine_map<.*>)\s*$", text, re.M))
    funcs = {}
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = re.match(r"^(\s*)func\.func @([\w$.-]+)\((.*)\)\s*(?:attributes .*)?\{\s*$", lines[i])
        if not m:
            i += 1
            continue
        indent, name, args = len(m.group(1)), m.group(2), m.group(3)
        body, i = [], i + 1
        while i < len(lines) and not (lines[i].startswith(" " * indent + "}") and
                                      len(lines[i]) - len(lines[i].lstrip()) == indent):
            body.append(lines[i])
            i += 1
        stmts = []
        for line in body:
            line = re.sub(r"#map\d*\b", lambda x: maps.get(x.group(0), x.group(0)), line)
            if stmts and not _STMT.match(line):
                stmts[-1] += " " + line.strip()
            else:
                stmts.append(line.strip())
        funcs[name] = Func(name, [(a.split(":")[0].strip(), "!stream.binding" in a)
                                  for a in _split(args)], stmts)
        i += 1
    return funcs


def _split(text):
    """Split at commas outside brackets (the '>' of '->' closes nothing)."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([{<"
        depth -= ch in ")]}" or (ch == ">" and not cur.endswith("-"))
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [c for c in out + [cur] if c.strip()]


def _results(lhs):
    names = []
    for part in lhs.split(","):
        part = part.strip()
        m = re.match(r"(%[\w$.-]+):(\d+)$", part)
        names += [f"{m.group(1)}#{k}" for k in range(int(m.group(2)))] if m else [part]
    return names


def _box(stmt):
    """(offsets, sizes, strides) token lists of a load or store, or None (the whole tensor)."""
    m = re.search(r"offsets = \[(.*?)\], sizes = \[(.*?)\], strides = \[(.*?)\]", stmt)
    if not m:
        return None
    return tuple([t.strip() for t in g.split(",") if t.strip()] for g in m.groups())


def effects(func, alg, operands, binding):
    """(writes, reads) of the function's binding number `binding` (counted among its
    bindings): lists of (lo, hi) byte hulls from the binding's first byte, the offsets taken
    over every value the operands (index.Ix, in order) may have. Raises Undecided."""
    bindings = [a for a, b in func.args if b]
    scalars = [a for a, b in func.args if not b]
    if binding >= len(bindings) or len(scalars) != len(operands):
        raise Undecided(f"{func.name}: {len(bindings)} bindings and {len(scalars)} operands, "
                        f"the dispatch gives binding {binding} and {len(operands)} operands")
    env = dict(zip(scalars, operands))
    target = bindings[binding]
    spans = {}       # subspan SSA -> (offset Ix, shape, element bytes)
    loads = {}       # load result -> (subspan, box)
    stores = []      # (stored value, subspan, box as a tuple)
    uses = {}        # SSA -> list of statements using it (other than its definition)
    defs = {}        # SSA result -> its statement
    for s in func.statements:
        m = re.match(r"(%[\w$.:, -]+?) = ([\w.]+)(.*)$", s)
        lhs, op, rest = (m.group(1), m.group(2), m.group(3)) if m else ("", s.split(" ")[0], s)
        outs = _results(lhs) if lhs else []
        for o in outs:
            defs[o] = s
        for tok in set(re.findall(r"%[\w$.-]+(?:#\d+)?", rest)):
            uses.setdefault(tok, []).append(s)
        _index(alg, env, outs, op, rest)
        if op == "stream.binding.subspan":
            mm = re.match(r"\s*(%[\w$.-]+)\[(%[\w$.-]+)\]", rest)
            t = _TENSOR.search(rest)
            if mm and mm.group(1) == target:
                if not t or "?" in t.group(2):
                    raise Undecided(f"{func.name}: a subspan of a dynamic shape")
                dims = t.group(2).split("x")
                el = ELEMENT_BYTES.get(dims[-1])
                if el is None:
                    raise Undecided(f"{func.name}: elements of type {dims[-1]}")
                spans[outs[0]] = (env.get(mm.group(2), ix.unknown()),
                                  [int(d) for d in dims[:-1]], el)
        elif op == "iree_tensor_ext.dispatch.tensor.load":
            src = re.match(r"\s*(%[\w$.-]+)", rest).group(1)
            if src in spans:
                loads[outs[0]] = (src, _box(s))
        elif s.startswith("iree_tensor_ext.dispatch.tensor.store"):
            mm = re.match(r"iree_tensor_ext\.dispatch\.tensor\.store (%[\w$.#-]+), (%[\w$.-]+)", s)
            if mm and mm.group(2) in spans:
                stores.append((mm.group(1), mm.group(2), _box(s)))
    stores = [(v, p, b and tuple(map(tuple, b))) for v, p, b in stores]
    loads = {k: (p, b and tuple(map(tuple, b))) for k, (p, b) in loads.items()}
    if not spans:
        raise Undecided(f"{func.name}: no subspan of binding {target}")
    writes = [_hull(alg, env, spans[sp], box) for _, sp, box in stores]
    reads = []
    for name, (sp, box) in loads.items():
        if not _in_place(name, sp, box, uses, stores):
            reads.append(_hull(alg, env, spans[sp], box))
    return writes, reads


def _index(alg, env, outs, op, rest):
    """The index arithmetic of a dispatch function, as the host's (index.py)."""
    toks = re.findall(r"%[\w$.-]+(?:#\d+)?", rest.split(" : ")[0])
    if op == "arith.constant":
        m = re.match(r"\s*(-?\d+) : (index|i\d+)", rest)
        if m:
            env[outs[0]] = ix.const(int(m.group(1)))
    elif op == "iree_tensor_ext.dispatch.workload.ordinal" and toks:
        env[outs[0]] = env.get(toks[0], ix.unknown())
    elif op in ("arith.index_cast", "arith.index_castui", "arith.extui", "arith.extsi") and toks:
        env[outs[0]] = alg.cast(op.split(".")[1], env.get(toks[0], ix.unknown()))
    elif op.startswith("arith.") and (op[6:] in ("addi", "subi", "muli") or op[6:] in ix.BINARY) \
            and len(toks) >= 2:
        env[outs[0]] = alg.binary(op[6:], env.get(toks[0], ix.unknown()),
                                  env.get(toks[1], ix.unknown()))
    elif op == "util.assume.int":
        for name, (tok, ranges) in zip(outs, re.findall(r"(%[\w$.-]+)\[(.*?)\](?:,|\s*:)", rest)
                                       or re.findall(r"(%[\w$.-]+)(<[^>]*>)", rest)):
            e = env.get(tok, ix.unknown())
            lo = [int(x) for x in re.findall(r"umin = (\d+)", ranges)]
            hi = [int(x) for x in re.findall(r"umax = (\d+)", ranges)]
            if not e.decided and lo and hi and len(lo) == len(hi):
                e = ix.Ix(span=(min(lo), max(hi)))
            env[name] = e
    elif op == "affine.apply":
        m = re.match(r"\s*(affine_map<.*>)\((.*?)\)(?:\[(.*?)\])?\s*$", rest)
        if m:
            _, results = ix.affine_map(m.group(1))
            dims = [env.get(t, ix.unknown()) for t in re.findall(r"%[\w$.-]+", m.group(2))]
            syms = [env.get(t, ix.unknown()) for t in re.findall(r"%[\w$.-]+", m.group(3) or "")]
            env[outs[0]] = ix.eval_affine(alg, results[0], dims, syms)


def _hull(alg, env, span, box):
    """(lo, hi): the bytes a box of the subspan can touch, from the binding's first byte."""
    off, shape, el = span
    ob = alg.bounds(off) if off.base is None else None
    if ob is None or not all(isinstance(x, int) for x in ob):
        raise Undecided("a subspan at an offset not known")
    if box is None:
        n = 1
        for d in shape:
            n *= d
        return ob[0], ob[1] + n * el
    offs, sizes, strides = box
    if not (len(offs) == len(sizes) == len(strides) == len(shape)):
        raise Undecided("a box whose rank is not its tensor's")
    first = last = 0
    mult = 1
    for d in reversed(range(len(shape))):
        lo_hi = _value(alg, env, offs[d])
        size, stride = _value(alg, env, sizes[d]), _value(alg, env, strides[d])
        if size[0] != size[1] or stride[0] != stride[1] or stride[0] < 0:
            raise Undecided("a box of a size or stride known only at run time")
        if size[0] == 0:
            return ob[0], ob[0]
        lo = max(0, lo_hi[0])
        hi = min(shape[d] - 1 - (size[0] - 1) * stride[0], lo_hi[1])
        hi = max(hi, lo)
        first += lo * mult
        last += (hi + (size[0] - 1) * stride[0]) * mult
        mult *= shape[d]
    return ob[0] + first * el, ob[1] + (last + 1) * el


def _value(alg, env, tok):
    """(lo, hi) of a box entry: an integer, or an SSA index with bounds (else Undecided)."""
    if re.match(r"-?\d+$", tok):
        return int(tok), int(tok)
    b = alg.bounds(env[tok]) if tok in env and env[tok].base is None else None
    if b is None or not all(isinstance(x, int) for x in b):
        raise Undecided(f"a box entry {tok} known only at run time, unbounded")
    return b


def _in_place(name, sp, box, uses, stores):
    """Whether load `name` (of subspan sp at box) is read only for the elements written from
    it: its one use an op updating it as its destination, or an elementwise generic input, the
    result stored back to sp at the same box."""
    us = uses.get(name, [])
    if len(us) != 1:
        return not us
    s = us[0]
    m = re.match(r"(%[\w$.:, -]+?) = ([\w.]+)", s)
    if not m:
        return False
    results = _results(m.group(1))
    op = m.group(2)
    ins = _operands(s, "ins")
    outs = _operands(s, "outs")
    if name in outs and name not in ins:
        k = outs.index(name)
    elif name in ins and name not in outs and op == "linalg.generic":
        if not re.search(r'iterator_types = \[(?:"parallel"(?:, )?)+\]', s):
            return False
        maps = re.search(r"indexing_maps = \[(.*?)\](?:, iterator_types|\})", s)
        if not maps:
            return False
        maps = [x.strip() for x in _split(maps.group(1))]
        if len(maps) != len(ins) + len(outs):
            return False
        mine = maps[ins.index(name)]
        ks = [j for j, mo in enumerate(maps[len(ins):]) if mo == mine]
        return any(j < len(results) and (results[j], sp, box) in stores for j in ks)
    else:
        return False
    return k < len(results) and (results[k], sp, box) in stores


def _operands(stmt, key):
    m = re.search(key + r"\((.*?) : ", stmt)
    return [t.strip() for t in m.group(1).split(",")] if m else []
