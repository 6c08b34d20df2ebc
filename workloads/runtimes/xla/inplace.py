"""What an in-place update reads across elements and what it writes (TRACE.md's `reads` and
`writes`), derived from the HLO of the instruction that updates its operand's buffer.

Each value inside a fused computation is abstracted by how it reads the updated operand `p`:
a set of affine index maps (element k of the value reads p's element const + sum(start terms) +
sum(k[d] * stride[d]), in p's physical element order; a dynamic start is a term whose value XLA
clamps to [0, dim - size]) and a set of reads that are no map (a reduce, a gather, a concatenate:
their operands' footprints). Slices, dynamic slices, transposes, broadcasts, reverses, bitcasts
and reshapes move the maps; elementwise ops merge them. At the root, a map equal to the output's
own identity (the same element of p as the one written, `x.at[i].set(f(x[i]))`) is elementwise;
every other map is a read across elements, given as its footprint in bytes. A root
dynamic-update-slice over p itself writes only its box (a hull over the starts' clamped range);
anything else writes the whole value. What no rule covers is undecided: the whole value is read.
"""

ALL = "all"
RANGES_CAP = 256  # ranges per list: past it, the innermost gaps are hulled (a superset: sound)

# Bytes per element of XLA's PrimitiveType numbers (xla_data.proto); sub-byte types are absent.
ELEMENT_BYTES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 2, 8: 4, 9: 8, 10: 2, 11: 4, 12: 8,
                 15: 8, 16: 2, 18: 16, 19: 1, 20: 1, 23: 1, 24: 1, 25: 1}
TUPLE_TYPE = 13

ELEMENTWISE = {
    "abs", "add", "and", "atan2", "cbrt", "ceil", "clamp", "compare", "complex", "convert",
    "copy", "cos", "divide", "erf", "exponential", "exponential-minus-one", "floor", "imag",
    "is-finite", "log", "log-plus-one", "logistic", "maximum", "minimum", "multiply", "negate",
    "not", "or", "popcnt", "power", "real", "reduce-precision", "remainder",
    "round-nearest-afz", "round-nearest-even", "rsqrt", "select", "shift-left",
    "shift-right-arithmetic", "shift-right-logical", "sign", "sine", "sqrt", "subtract", "tan",
    "tanh", "xor", "count-leading-zeros", "stochastic-convert", "map",
}
NO_DATA = {"constant", "iota", "rng", "rng-bit-generator", "rng-get-and-update-state",
           "partition-id", "replica-id", "after-all"}
# Kernels written to run in place over their operand (they read its current bytes, not a copy of
# the old value): trusted, as the contract trusts an elementwise op.
IN_PLACE_KERNELS = {"scatter", "sort", "custom-call", "triangular-solve", "cholesky"}


class Undecided(Exception):
    """The capture cannot say what the update reads: the message says why."""


def phys_strides(shape):
    """Element strides of each logical dimension in the shape's physical (layout) order."""
    dims = list(shape.dimensions)
    mtm = list(shape.layout.minor_to_major) or list(range(len(dims) - 1, -1, -1))
    strides, acc = [0] * len(dims), 1
    for d in mtm:
        strides[d] = acc
        acc *= dims[d]
    return strides


def elements(shape):
    n = 1
    for d in shape.dimensions:
        n *= d
    return n


class Map:
    """p's element read by element k of a value: const + sum(coef * start) + sum(k[d] * stride[d])
    for k in [0, extents); `origin` (a linear form like the base, or None: the base) is p's element
    at the value's coordinate 0 where the map covers only part of the value (a dynamic-update-
    slice's update, shifted to its box)."""

    __slots__ = ("const", "terms", "strides", "extents", "origin", "hidden")

    def __init__(self, const, terms, strides, extents, origin=None, hidden=()):
        self.const, self.terms = const, tuple(sorted(((k, c) for k, c in terms if c), key=repr))
        self.strides, self.extents = tuple(strides), tuple(extents)
        self.origin = origin
        self.hidden = tuple((s, n) for s, n in hidden if n > 1 and s)  # a reduce's (stride, extent)

    def key(self):
        st = tuple(s if n > 1 else 0 for s, n in zip(self.strides, self.extents))
        return (self.const, self.terms, st, self.extents, self.origin, self.hidden)

    def moved(self, const, terms, strides, extents):
        """The same reads seen from another value's coordinates (its reduced dimensions kept)."""
        return Map(const, terms, strides, extents, hidden=self.hidden)

    def at_origin(self):
        """(const, terms) of p's element at the value's coordinate 0."""
        return self.origin if self.origin is not None else (self.const, self.terms)


class Val:
    """A value's reads of p: maps (dict key -> Map), footprints read across elements (dict key ->
    Map, or the whole value in `whole`), and whether it is p itself (bitcasts of p only)."""

    __slots__ = ("maps", "reads", "whole", "pure")

    def __init__(self, maps=(), reads=(), whole=False, pure=False):
        self.maps = {m.key(): m for m in maps}
        self.reads = {m.key(): m for m in reads}
        self.whole, self.pure = whole, pure

    def absorbed(self):
        """Everything this value reads of p, as reads (its maps' footprints included)."""
        return Val(reads=list(self.reads.values()) + list(self.maps.values()), whole=self.whole)


def union(vals, maps=None):
    out = Val()
    for v in vals:
        out.reads.update(v.reads)
        out.whole = out.whole or v.whole
        if maps is None:
            out.maps.update(v.maps)
    for m in maps or ():
        out.maps[m.key()] = m
    return out


def _absorb(vals):
    return union([v.absorbed() for v in vals])


def _linear(terms_a, terms_b, sign=1):
    d = dict(terms_a)
    for k, c in terms_b:
        d[k] = d.get(k, 0) + sign * c
    return tuple(sorted(((k, c) for k, c in d.items() if c), key=repr))


def reshape_strides(src_dims, src_strides, dst_dims):
    """Strides of dst's dimensions (both in row-major order) when dst is src reshaped, or None
    when the map is not affine in dst's index (a merged group of src that is not contiguous)."""
    a = [(n, s) for n, s in zip(src_dims, src_strides) if n != 1]
    b = [i for i, n in enumerate(dst_dims) if n != 1]
    out = [0] * len(dst_dims)
    i = j = 0
    while i < len(a) or j < len(b):
        if i >= len(a) or j >= len(b):
            return None
        ga, gb, pa, pb = [a[i]], [b[j]], a[i][0], dst_dims[b[j]]
        i, j = i + 1, j + 1
        while pa != pb:
            if pa < pb:
                if i >= len(a):
                    return None
                ga.append(a[i])
                pa *= a[i][0]
                i += 1
            else:
                if j >= len(b):
                    return None
                gb.append(b[j])
                pb *= dst_dims[b[j]]
                j += 1
        for (n0, s0), (n1, s1) in zip(ga, ga[1:]):
            if s0 != s1 * n1:
                return None
        stride = ga[-1][1]
        for d in reversed(gb):
            out[d] = stride
            stride *= dst_dims[d]
    return out


def _moved(vals, fn):
    """fn applied to every map of a (single) operand's value; maps it cannot move are read."""
    v = vals[0]
    out = Val(reads=list(v.reads.values()), whole=v.whole)
    for m in v.maps.values():
        n = fn(m) if m.origin is None else None
        if n is None:
            out.reads[m.key()] = m
        else:
            out.maps[n.key()] = n
    return out


class Analysis:
    """The fused computation (or the instruction) that updates operand `p` in place."""

    def __init__(self, M, instr, aliased, out_index, size):
        """aliased: {(operand number, leaf index)} where the op reads p; out_index: the output
        leaf on p's bytes; size: p's bytes."""
        self.M, self.instr, self.aliased, self.out_index, self.size = M, instr, aliased, \
            out_index, size
        self.skeys = {}

    # Start indices: a structural key (the same expression gives the same key) or a constant.
    def skey(self, iid):
        if iid in self.skeys:
            return self.skeys[iid]
        self.skeys[iid] = ("cycle",)
        i = self.M.instr[iid]
        c = self.constant(i)
        if c is not None:
            k = ("const", c)
        else:
            k = (i.opcode, i.shape.element_type, tuple(i.shape.dimensions), i.comparison_direction,
                 i.comparison_type, i.tuple_index, tuple(i.dimensions),
                 i.parameter_number if i.opcode == "parameter" else -1,
                 tuple(self.skey(o) for o in i.operand_ids))
            if i.opcode not in ELEMENTWISE and i.opcode not in ("parameter", "bitcast",
                                                                "reshape", "broadcast"):
                k = ("instr", iid)  # compared by identity only
        self.skeys[iid] = k
        return k

    @staticmethod
    def constant(i):
        if i.opcode != "constant" or list(i.shape.dimensions):
            return None
        lit = i.literal
        for xs in (lit.s32s, lit.s64s, lit.u32s, lit.u64s):
            if len(xs) == 1:
                return int(xs[0])
        return None

    def start(self, iid, hi):
        """A clamped start index: (const, terms)."""
        hi = max(hi, 0)
        c = self.constant(self.M.instr[iid])
        if c is not None:
            return min(max(c, 0), hi), ()
        if hi == 0:
            return 0, ()
        return 0, (((self.skey(iid), hi), 1),)

    # The fused computation, instruction by instruction (operands before users).
    def run(self, comp_id, params):
        vals = {}
        comp = self.M.comps[comp_id]
        for i in comp.instructions:
            vals[i.id] = self.transfer(i, vals, params)
        return vals

    def transfer(self, i, vals, params):
        op = i.opcode
        ops = [vals[o] for o in i.operand_ids]
        dims = list(i.shape.dimensions)
        if op == "parameter":
            return params.get(i.parameter_number, Val())
        if op == "get-tuple-element":
            src = vals[i.operand_ids[0]]
            if isinstance(src, dict):
                return src.get(i.tuple_index, Val())
            return src
        if any(isinstance(v, dict) for v in ops) or i.shape.element_type == TUPLE_TYPE:
            flat = []
            for v in ops:
                flat.extend(v.values() if isinstance(v, dict) else [v])
            return _absorb(flat)
        if op in NO_DATA:
            return Val()
        rank = len(dims)
        if op in ELEMENTWISE:
            out = union(ops, maps=[])
            for o, v in zip(i.operand_ids, ops):
                od = list(self.M.instr[o].shape.dimensions)
                for m in v.maps.values():
                    if od == dims:
                        out.maps[m.key()] = m
                    elif not od and m.origin is None:  # a scalar operand, broadcast
                        b = m.moved(m.const, m.terms, [0] * rank, dims)
                        out.maps[b.key()] = b
                    else:
                        out.reads[m.key()] = m
            if op == "copy" and len(ops) == 1 and ops[0].pure:
                out.pure = True
            return out
        if op in ("bitcast", "reshape"):
            src = self.M.instr[i.operand_ids[0]].shape
            sdims = list(src.dimensions)
            if op == "bitcast":
                so = list(src.layout.minor_to_major) or list(range(len(sdims) - 1, -1, -1))
                do = list(i.shape.layout.minor_to_major) or list(range(rank - 1, -1, -1))
                so, do = so[::-1], do[::-1]  # major to minor
            else:
                so, do = list(range(len(sdims))), list(range(rank))

            def move(m):
                st = reshape_strides([sdims[d] for d in so], [m.strides[d] for d in so],
                                     [dims[d] for d in do])
                if st is None:
                    return None
                strides = [0] * rank
                for k, d in enumerate(do):
                    strides[d] = st[k]
                return m.moved(m.const, m.terms, strides, dims)

            out = _moved(ops, move)
            out.pure = ops[0].pure and op == "bitcast"
            return out
        if op == "transpose":
            perm = list(i.dimensions)
            return _moved(ops, lambda m: m.moved(m.const, m.terms, [m.strides[p] for p in perm],
                                             dims))
        if op == "broadcast":
            bd = list(i.dimensions)

            def move(m):
                strides = [0] * rank
                for k, d in enumerate(bd):
                    strides[d] = m.strides[k]
                return m.moved(m.const, m.terms, strides, dims)

            return _moved(ops, move)
        if op == "reverse":
            rd = set(i.dimensions)

            def move(m):
                c = m.const + sum((m.extents[d] - 1) * m.strides[d] for d in rd)
                return m.moved(c, m.terms, [-s if d in rd else s for d, s in enumerate(m.strides)],
                           dims)

            return _moved(ops, move)
        if op == "slice":
            sl = list(i.slice_dimensions)

            def move(m):
                c = m.const + sum(d.start * s for d, s in zip(sl, m.strides))
                return m.moved(c, m.terms, [s * max(d.stride, 1) for d, s in zip(sl, m.strides)],
                           dims)

            return _moved(ops, move)
        if op == "dynamic-slice":
            src = list(self.M.instr[i.operand_ids[0]].shape.dimensions)
            sizes = list(i.dynamic_slice_sizes) or dims
            starts = [self.start(o, n - z) for o, n, z in zip(i.operand_ids[1:], src, sizes)]

            def move(m):
                c, terms = m.const, list(m.terms)
                for (sc, st), s in zip(starts, m.strides):
                    c += sc * s
                    terms += [(k, coef * s) for k, coef in st]
                return m.moved(c, _linear(terms, ()), m.strides, dims)

            out = _moved(ops[:1], move)
            return union([out] + [v.absorbed() for v in ops[1:]])
        if op == "dynamic-update-slice":
            return self.dus(i, ops)[0]
        if op == "reduce" and len(ops) == 2:
            # Each output element reads its input along the reduced dimensions: they become the
            # map's hidden (stride, extent) pairs, the others stay its coordinates.
            rd = set(i.dimensions)

            def move(m):
                keep = [d for d in range(len(m.strides)) if d not in rd]
                return Map(m.const, m.terms, [m.strides[d] for d in keep], dims,
                           hidden=m.hidden + tuple((m.strides[d], m.extents[d]) for d in rd))

            return union([_moved(ops[:1], move), ops[1].absorbed()])
        # reduce, reduce-window, dot, convolution, gather, concatenate, pad, sort, scatter,
        # custom-call, fft, ...: every element may read every element read: no map survives.
        return _absorb(ops)

    def dus(self, i, ops):
        """(value, written box as a Map in the DUS's coordinates)."""
        dims = list(i.shape.dimensions)
        upd = list(self.M.instr[i.operand_ids[1]].shape.dimensions)
        starts = [self.start(o, n - u) for o, n, u in zip(i.operand_ids[2:], dims, upd)]
        out = union([ops[0], Val(reads=list(ops[1].reads.values()), whole=ops[1].whole)]
                    + [v.absorbed() for v in ops[2:]])
        # The update's element j lands on element starts + j: p's element there, at the box's
        # origin, is the map's base less the starts along the DUS's own strides (an update
        # dimension of extent 1 has no stride of its own to shift by).
        ident = phys_strides(i.shape)
        for m in ops[1].maps.values():
            if m.origin is not None:
                out.reads[m.key()] = m
                continue
            c, terms = m.const, m.terms
            for (sc, st), s in zip(starts, ident):
                c -= sc * s
                terms = _linear(terms, [(k, coef * s) for k, coef in st], -1)
            n = Map(m.const, m.terms, m.strides, m.extents, origin=(c, terms), hidden=m.hidden)
            out.maps[n.key()] = n
        c, terms = 0, ()
        for (sc, st), s in zip(starts, ident):
            c += sc * s
            terms = _linear(terms, [(k, coef * s) for k, coef in st])
        return out, Map(c, terms, ident, upd)


def footprint(m, nelem):
    """p's elements a map can read, as sorted disjoint [lo, hi) ranges (a superset past the cap)."""
    lo = m.const
    dims = [(s, n) for s, n in zip(m.strides, m.extents) if n > 1 and s != 0] + list(m.hidden)
    for (skey, hi), coef in m.terms:
        if hi > 0:
            dims.append((coef, hi + 1))
    norm = []
    for s, n in dims:
        if s < 0:
            lo += s * (n - 1)
            s = -s
        norm.append((s, n))
    norm.sort()
    run, outer = 1, []
    for s, n in norm:
        if not outer and s <= run:
            run = s * (n - 1) + run
        else:
            outer.append((s, n))
    count = 1
    for _, n in outer:
        count *= n
    while count > RANGES_CAP:
        s, n = outer.pop(0)
        run = s * (n - 1) + run
        count //= n
    offs = [0]
    for s, n in outer:
        offs = [o + s * t for o in offs for t in range(n)]
    out = []
    for o in sorted(offs):
        a, b = max(lo + o, 0), min(lo + o + run, nelem)
        if a >= b:
            continue
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def merge(ranges):
    out = []
    for a, b in sorted(ranges):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _cap(ranges):
    """At most RANGES_CAP ranges: the smallest gaps closed first (a superset)."""
    ranges = [list(r) for r in ranges]
    while len(ranges) > RANGES_CAP:
        k = min(range(len(ranges) - 1), key=lambda j: ranges[j + 1][0] - ranges[j][1])
        ranges[k][1] = ranges[k + 1][1]
        del ranges[k + 1]
    return ranges


def analyse(M, instr, aliased, out_index, size):
    """{"reads": byte ranges or None (none across elements), "writes": byte ranges or None (all),
    "pattern": the rule that decided, "undecided": why not, or None} for the update of p (the
    operand leaves in `aliased`) into output leaf out_index, p being `size` bytes."""
    a = Analysis(M, instr, aliased, out_index, size)
    op = instr.opcode
    whole = [(0, size)]
    try:
        if op == "fusion":
            return _fusion(a, whole)
        if op == "dynamic-update-slice":
            if any(n != 0 for n, _ in aliased):
                raise Undecided("a dynamic-update-slice whose update or start is the updated "
                                "buffer")
            shape = M.instr[instr.operand_ids[0]].shape
            esize = _esize(shape, size)
            _, box = a.dus(instr, [Val(), Val(), *[Val() for _ in instr.operand_ids[2:]]])
            return {"reads": None, "writes": _bytes(footprint(box, elements(shape)), esize),
                    "pattern": "dynamic-update-slice", "undecided": None}
        if op in ELEMENTWISE:
            return {"reads": None, "writes": None, "pattern": "elementwise", "undecided": None}
        if op in IN_PLACE_KERNELS:
            return {"reads": None, "writes": None, "pattern": f"{op} (an in-place kernel)",
                    "undecided": None}
        raise Undecided(f"no rule for a {op} updating its operand in place")
    except Undecided as e:
        return {"reads": whole, "writes": None, "pattern": "undecided", "undecided": str(e)}
    except (AttributeError, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError) as e:
        # An HLO this reading did not foresee: the whole value is read (sound), and said why.
        return {"reads": whole, "writes": None, "pattern": "undecided",
                "undecided": f"the analysis failed on it ({type(e).__name__}: {e})"}


def _esize(shape, size):
    n = elements(shape)
    es = ELEMENT_BYTES.get(shape.element_type)
    if es is None or n * es != size:
        raise Undecided(f"its element type ({shape.element_type}) or size ({size} B for {n} "
                        "elements) is not one the analysis reads")
    return es


def _bytes(ranges, esize):
    return [(lo * esize, (hi - lo) * esize) for lo, hi in _cap(ranges)]


def _fusion(a, whole):
    M, instr = a.M, a.instr
    comp = M.comps[instr.called_computation_ids[0]]
    params = {}
    for n, idx in a.aliased:
        pshape = M.instr[instr.operand_ids[n]].shape
        leaf = pshape
        for k in idx:
            leaf = leaf.tuple_shapes[k]
        v = Val(maps=[Map(0, (), phys_strides(leaf), list(leaf.dimensions))], pure=True)
        if idx:
            if len(idx) != 1:
                raise Undecided("a nested tuple operand")
            params.setdefault(n, {})[idx[0]] = v
        else:
            params[n] = v
    for n, v in list(params.items()):
        if isinstance(v, dict):
            pshape = M.instr[instr.operand_ids[n]].shape
            for k in range(len(pshape.tuple_shapes)):
                v.setdefault(k, Val())
    vals = a.run(comp.id, params)
    root = M.instr[comp.root_id]
    out = root
    others = []
    if a.out_index:
        if root.opcode != "tuple" or len(a.out_index) != 1:
            raise Undecided("a tuple-shaped output that is no tuple of arrays")
        out = M.instr[root.operand_ids[a.out_index[0]]]
        others = [o for k, o in enumerate(root.operand_ids) if k != a.out_index[0]]
    core = out
    while core.opcode == "bitcast":
        core = M.instr[core.operand_ids[0]]
    esize = _esize(core.shape, a.size)
    nelem = elements(core.shape)
    ident = phys_strides(core.shape)
    pattern = "elementwise"
    writes = None
    if core.opcode == "dynamic-update-slice":
        val, boxes = _dus_writes(a, core, vals)
        if boxes is not None:
            writes = merge(r for b in boxes for r in footprint(b, nelem))
            pattern = "dynamic-update-slice"
        else:
            pattern = "dynamic-update-slice over a computed operand"
    elif core.opcode == "scatter":
        ops = [vals[o] for o in core.operand_ids]
        n = len(ops) // 2
        val = union([ops[0]] + [v.absorbed() for v in ops[n:]])
        pattern = "scatter"
    else:
        val = vals[core.id]
    cross = list(val.reads.values())
    whole_read = val.whole
    for m in val.maps.values():
        c, terms = m.at_origin()
        same = (c == 0 and not terms and
                all(s == t or n <= 1 for s, t, n in zip(m.strides, ident, m.extents))
                and len(m.strides) == len(ident))
        if not same:
            cross.append(m)
        elif m.hidden:
            # Element k reduces p's elements k + h.stride over its hidden dimensions: at h = 0
            # it reads its own element (not across); every other h reads across elements.
            for e, (s, n) in enumerate(m.hidden):
                rest = m.hidden[:e] + ((s, n - 1),) + m.hidden[e + 1:]
                cross.append(Map(m.const + s, m.terms, m.strides, m.extents, hidden=rest))
    for o in others:  # another output of the fusion reading p: conservatively across elements
        v = vals[o]
        v = union(list(v.values())) if isinstance(v, dict) else v
        cross += list(v.absorbed().reads.values())
        whole_read = whole_read or v.whole
    pnelem = a.size // esize
    if whole_read:
        reads = [[0, pnelem]]
    else:
        reads = merge(r for m in cross for r in footprint(m, pnelem))
    if reads:
        pattern += " reading across elements"
    return {"reads": _bytes(reads, esize) if reads else None,
            "writes": _bytes(writes, esize) if writes is not None else None,
            "pattern": pattern, "undecided": None}


def _dus_writes(a, core, vals):
    """A root dynamic-update-slice's value and the boxes it writes (None: all of it), nested
    dynamic-update-slices over p itself adding theirs."""
    boxes = []
    i = core
    val = None
    while True:
        ops = [vals[o] for o in i.operand_ids]
        v, box = a.dus(i, ops)
        if val is None:
            val = v
        boxes.append(box)
        base = a.M.instr[i.operand_ids[0]]
        if vals[base.id].pure:
            return val, boxes
        if base.opcode == "dynamic-update-slice" and \
                list(base.shape.dimensions) == list(i.shape.dimensions) and \
                list(base.shape.layout.minor_to_major) == list(i.shape.layout.minor_to_major):
            i = base
            continue
        return val, None
