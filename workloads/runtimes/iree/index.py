"""The host program's index arithmetic as functions of the enclosing loops' iteration ordinals:
an offset computed in an scf.for body from its induction variable (arith, affine.apply) is known
at every iteration before the program runs, so a launch's word can move with the loop instead of
being refused. A value is affine in the ordinals (`lin`), known per iteration but not affine
(`table`, enumerated up to TABLE_LIMIT points), only bounded (`span`: a loaded token clamped to
the cache), or unknown; `base` is a pack result (`%P#k`) the layout pass turns into a constant.
"""

import re

TABLE_LIMIT = 1 << 16
U64 = 1 << 64
NEG, POS = float("-inf"), float("inf")  # a span's unknown side


class Ix:
    __slots__ = ("base", "lin", "table", "span")

    def __init__(self, base=None, lin=None, table=None, span=None):
        self.base, self.lin, self.table, self.span = base, lin, table, span

    def __repr__(self):
        table = self.table and f"{len(self.table[1])} points over {self.table[0]}"
        return f"Ix(base={self.base}, lin={self.lin}, table={table}, span={self.span})"

    @property
    def decided(self):
        return self.lin is not None or self.table is not None

    @property
    def const(self):
        """The integer it always is (None where it moves or is not known, or has a base)."""
        if self.base is None and self.lin is not None and not self.lin[1]:
            return self.lin[0]
        return None

    def rest(self):
        """The same without its base."""
        return Ix(None, self.lin, self.table, self.span)

    def loops(self):
        if self.lin is not None:
            return tuple(sorted(self.lin[1]))
        if self.table is not None:
            return self.table[0]
        return ()


def const(v):
    return Ix(lin=(v, {}))


def unknown(base=None):
    return Ix(base)


def iv(loop, lb, step, iterations):
    """An induction variable: lb + step x the loop's ordinal (a constant for one iteration)."""
    if iterations <= 1:
        return const(lb)
    return Ix(lin=(lb, {loop: step}))


class Algebra:
    """The arithmetic over one program's loops (`iters`: loop id -> its trip count)."""

    def __init__(self, iters):
        self.iters = iters

    # -- points and bounds --------------------------------------------------------------------
    def points(self, loops):
        """Every ordinal tuple of the loops (None past TABLE_LIMIT)."""
        n = 1
        for l in loops:
            n *= self.iters[l]
            if n > TABLE_LIMIT:
                return None
        out = [()]
        for l in loops:
            out = [p + (i,) for p in out for i in range(self.iters[l])]
        return out

    def at(self, e, loops, p):
        """e's value (without base) at ordinal tuple p over loops."""
        if e.lin is not None:
            c, terms = e.lin
            return c + sum(terms.get(l, 0) * i for l, i in zip(loops, p))
        tl, vals = e.table
        pos = {l: i for l, i in zip(loops, p)}
        return vals[tuple(pos[l] for l in tl)]

    def bounds(self, e):
        """(lo, hi) of e without its base, or None."""
        if e.lin is not None:
            c, terms = e.lin
            lo = hi = c
            for l, a in terms.items():
                end = a * (self.iters[l] - 1)
                lo, hi = lo + min(0, end), hi + max(0, end)
            return lo, hi
        if e.table is not None:
            vs = e.table[1].values()
            return min(vs), max(vs)
        return e.span

    def fit(self, loops, vals):
        """A lin where the table is affine in the ordinals, else the table (zero terms dropped)."""
        zero = tuple(0 for _ in loops)
        c = vals[zero]
        terms = {}
        for k, l in enumerate(loops):
            if self.iters[l] > 1:
                one = tuple(1 if j == k else 0 for j in range(len(loops)))
                if vals[one] != c:
                    terms[l] = vals[one] - c
        if all(c + sum(terms.get(l, 0) * i for l, i in zip(loops, p)) == v
               for p, v in vals.items()):
            return Ix(lin=(c, terms))
        used = [l for k, l in enumerate(loops)
                if any(vals[p] != vals[p[:k] + (0,) + p[k + 1:]] for p in vals)]
        if len(used) < len(loops):
            keep = [loops.index(l) for l in used]
            vals = {tuple(p[k] for k in keep): v for p, v in vals.items()}
            loops = tuple(used)
        return Ix(table=(tuple(loops), vals))

    # -- operations ---------------------------------------------------------------------------
    def apply(self, fn, args, interval=None):
        """fn over ints applied to Ix args (no bases): enumerated where every arg is decided,
        else interval(bounds...) where every arg is bounded and interval is given."""
        if any(a.base is not None for a in args):
            return unknown()
        if all(a.decided for a in args):
            loops = tuple(sorted({l for a in args for l in a.loops()}))
            pts = self.points(loops)
            if pts is not None:
                vals = {}
                for p in pts:
                    r = fn(*[self.at(a, loops, p) for a in args])
                    if r is None:
                        break
                    vals[p] = r
                else:
                    return self.fit(loops, vals)
        if interval is not None:  # an unknown side is unbounded: a clamp still bounds it
            bs = [self.bounds(a) or (NEG, POS) for a in args]
            try:
                r = interval(*bs)
            except (TypeError, ValueError, OverflowError, ZeroDivisionError):
                r = None
            if r is not None and not any(x != x for x in r) and (r[0] > NEG or r[1] < POS):
                return Ix(span=r)
        return unknown()

    def add(self, a, b, sign=1):
        if a.base is not None and b.base is not None:
            if sign < 0 and a.base == b.base:  # two offsets in one pack: their difference
                return self.add(a.rest(), b.rest(), -1)
            return unknown()
        if b.base is not None:
            if sign < 0:
                return unknown()
            a, b = b, a
        base = a.base
        a, b = a.rest(), b.rest()
        if a.lin is not None and b.lin is not None:
            c = a.lin[0] + sign * b.lin[0]
            terms = dict(a.lin[1])
            for l, x in b.lin[1].items():
                terms[l] = terms.get(l, 0) + sign * x
            r = Ix(lin=(c, {l: x for l, x in terms.items() if x}))
        else:
            r = self.apply(lambda x, y: x + sign * y, [a, b],
                           lambda p, q: (p[0] + sign * (q[0] if sign > 0 else q[1]),
                                         p[1] + sign * (q[1] if sign > 0 else q[0])))
        r.base = base
        return r

    def mul(self, a, b):
        for x, y in ((a, b), (b, a)):
            k = y.const
            if k is not None and x.base is None:
                if x.lin is not None:
                    return Ix(lin=(x.lin[0] * k, {l: c * k for l, c in x.lin[1].items() if c * k}))
                if x.table is not None:
                    return self.fit(x.table[0], {p: v * k for p, v in x.table[1].items()})
                if x.span is not None:
                    lo, hi = _smul(x.span[0], k), _smul(x.span[1], k)
                    return Ix(span=(min(lo, hi), max(lo, hi)))
        return self.apply(lambda x, y: x * y, [a, b], _corners(_smul))

    def binary(self, op, a, b):
        if op == "addi":
            return self.add(a, b)
        if op == "subi":
            return self.add(a, b, -1)
        if op == "muli":
            return self.mul(a, b)
        fn, interval = BINARY[op]
        return self.apply(fn, [a, b], interval)

    def cast(self, op, a):
        """index_cast and friends: the same integer (unsigned casts of a value that may be
        negative, or truncations that may not fit, are unknown)."""
        if op in ("index_castui", "extui") and a.base is None:
            b = self.bounds(a)
            if b is None or b[0] < 0:
                return unknown()
        return a

    def select(self, c, a, b):
        k = c.const
        if k is not None:
            return a if k else b
        if all(x.base is None for x in (a, b, c)):
            return self.apply(lambda p, x, y: x if p else y, [c, a, b],
                              lambda p, x, y: (min(x[0], y[0]), max(x[1], y[1])))
        return unknown()


def _udiv(x, y):
    return None if y == 0 or x < 0 or y < 0 else x // y


def _sdiv(x, y):  # truncating
    if y == 0:
        return None
    q = abs(x) // abs(y)
    return q if (x >= 0) == (y >= 0) else -q


def _srem(x, y):
    return None if y == 0 else x - y * _sdiv(x, y)


def _floordiv(x, y):
    return None if y == 0 else x // y


def _ceildiv(x, y):
    return None if y == 0 else -(-x // y)


def _umin(x, y):
    return x if x % U64 <= y % U64 else y


def _umax(x, y):
    return x if x % U64 >= y % U64 else y


def _smul(x, y):
    return 0 if x == 0 or y == 0 else x * y


def _corners(fn):
    def iv(p, q):
        vs = [fn(x, y) for x in p for y in q]
        return None if any(v is None for v in vs) else (min(vs), max(vs))
    return iv


def _monotone(fn):
    return lambda p, q: (fn(p[0], q[0]), fn(p[1], q[1]))


def _nonneg(interval):
    """An unsigned op's interval, where both sides are known non-negative."""
    return lambda p, q: interval(p, q) if p[0] >= 0 and q[0] >= 0 else None


def _posdiv(fn):
    return lambda p, q: _corners(fn)(p, q) if q[0] > 0 else None


def _rem_iv(p, q):
    if q[0] <= 0 or p[0] < 0:
        return None
    return (0, min(q[1] - 1, p[1])) if p[1] >= q[0] else p


def _cmp(pred):
    f = {"eq": lambda x, y: x == y, "ne": lambda x, y: x != y,
         "slt": lambda x, y: x < y, "sle": lambda x, y: x <= y,
         "sgt": lambda x, y: x > y, "sge": lambda x, y: x >= y,
         "ult": lambda x, y: x % U64 < y % U64, "ule": lambda x, y: x % U64 <= y % U64,
         "ugt": lambda x, y: x % U64 > y % U64, "uge": lambda x, y: x % U64 >= y % U64}[pred]
    return lambda x, y: int(f(x, y))


BINARY = {
    "minsi": (min, _monotone(min)), "maxsi": (max, _monotone(max)),
    "minui": (_umin, _nonneg(_monotone(min))), "maxui": (_umax, _nonneg(_monotone(max))),
    "divui": (_udiv, _nonneg(_posdiv(_floordiv))), "divsi": (_sdiv, _posdiv(_sdiv)),
    "floordivsi": (_floordiv, _posdiv(_floordiv)), "ceildivsi": (_ceildiv, _posdiv(_ceildiv)),
    "ceildivui": (lambda x, y: None if x < 0 or y <= 0 else _ceildiv(x, y),
                  _nonneg(_posdiv(_ceildiv))),
    "remui": (lambda x, y: None if x < 0 or y <= 0 else x % y, _rem_iv),
    "remsi": (_srem, _rem_iv),
    "shli": (lambda x, y: x << y if 0 <= y < 64 else None,
             lambda p, q: (p[0] << q[0], p[1] << q[1]) if p[0] >= 0 and 0 <= q[0] and q[1] < 64
             else None),
    "shrui": (lambda x, y: x >> y if x >= 0 and 0 <= y < 64 else None,
              lambda p, q: (p[0] >> q[1], p[1] >> q[0]) if p[0] >= 0 and 0 <= q[0] else None),
    "shrsi": (lambda x, y: x >> y if 0 <= y < 64 else None, None),
    "andi": (lambda x, y: x & y, None), "ori": (lambda x, y: x | y, None),
    "xori": (lambda x, y: x ^ y, None),
}
for _p in ("eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge"):
    BINARY["cmpi." + _p] = (_cmp(_p), None)


# -- affine.apply / affine.min / affine.max -----------------------------------------------------

_TOKEN = re.compile(r"\s*(floordiv|ceildiv|mod|[ds]\d+|\d+|[-+*(),])")


def affine_map(text):
    """affine_map<(d0, d1)[s0] -> (e0, e1)> -> (number of dims, list of parsed results)."""
    m = re.match(r"\s*affine_map<\((.*?)\)(?:\[(.*?)\])?\s*->\s*\((.*)\)>\s*$", text)
    if not m:
        raise ValueError(f"not an affine map: {text[:80]}")
    dims = [d.strip() for d in m.group(1).split(",") if d.strip()]
    syms = [s.strip() for s in (m.group(2) or "").split(",") if s.strip()]
    toks = _tokens(m.group(3))
    results = []
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else None

    def take():
        pos[0] += 1
        return toks[pos[0] - 1]

    def atom():
        t = take()
        if t == "(":
            e = expr()
            if take() != ")":
                raise ValueError("unbalanced parentheses in an affine map")
            return e
        if t == "-":
            return ("neg", atom())
        if t.isdigit():
            return ("c", int(t))
        if t in dims:
            return ("d", dims.index(t))
        if t in syms:
            return ("s", syms.index(t))
        raise ValueError(f"affine map token {t!r}")

    def term():
        e = atom()
        while peek() in ("*", "floordiv", "ceildiv", "mod"):
            e = (take(), e, atom())
        return e

    def expr():
        e = term()
        while peek() in ("+", "-"):
            e = (take(), e, term())
        return e

    while True:
        results.append(expr())
        if peek() == ",":
            take()
            continue
        break
    if pos[0] != len(toks):
        raise ValueError("trailing tokens in an affine map")
    return len(dims), results


def _tokens(s):
    out, i = [], 0
    while i < len(s):
        if s[i].isspace():
            i += 1
            continue
        m = _TOKEN.match(s, i)
        if not m:
            raise ValueError(f"affine map: cannot read {s[i:i + 20]!r}")
        out.append(m.group(1))
        i = m.end()
    return out


def eval_affine(alg, node, dims, syms):
    kind = node[0]
    if kind == "c":
        return const(node[1])
    if kind == "d":
        return dims[node[1]]
    if kind == "s":
        return syms[node[1]]
    if kind == "neg":
        return alg.mul(eval_affine(alg, node[1], dims, syms), const(-1))
    a, b = eval_affine(alg, node[1], dims, syms), eval_affine(alg, node[2], dims, syms)
    return {"+": lambda: alg.add(a, b), "-": lambda: alg.add(a, b, -1),
            "*": lambda: alg.mul(a, b),
            "floordiv": lambda: alg.binary("floordivsi", a, b),
            "ceildiv": lambda: alg.binary("ceildivsi", a, b),
            "mod": lambda: alg.apply(lambda x, y: None if y <= 0 else x % y, [a, b],
                                     _rem_iv)}[kind]()
