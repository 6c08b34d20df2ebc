"""IREE capture: what IREE's compiler planned for a JAX function, as an arena-trace/1.

jax lowers the function to StableHLO; `iree-compile` (llvm-cpu) compiles it to the stream dialect
and prints the entry function before and after iree-stream-layout-slices, the pass that packs each
execution region's transient slices. The dump before the pass has the structure (each pack's
slices, which slice every binding names); the one after has the offsets the pass chose (the same
lines, each pack result a constant), read by zipping the two. Regions are the allocations (a
packed transient is an arena with IREE's packed size); ops are the copies, fills and dispatches
of each stream.cmd.execute in order (a concurrent block one op); scf.for with constant bounds is a
loop, its loop-carried resources moved through slots (README). Offsets the host computes from the
loops' counters make words move with them (index.py); what a dispatch does inside a value it
updates comes from its executable (dispatch.py). What cannot be said is an ExportError naming
the op.
"""

import json
import os
import re
import subprocess
import sys
import tempfile
import time

from . import dispatch
from . import index as ix

ALIGNMENT_CAP = 64
UNDECIDED_LISTED = 20  # undecided offsets named in meta.capture (all are counted)
COMPILE_FLAGS = ["--iree-hal-target-device=local",
                 "--iree-hal-local-target-device-backends=llvm-cpu",
                 "--iree-llvmcpu-target-cpu=generic",
                 "--compile-to=stream",
                 "--mlir-print-ir-before=iree-stream-layout-slices",
                 "--mlir-print-ir-after=iree-stream-layout-slices",
                 "--mlir-print-ir-before=iree-stream-fuse-dispatch-bindings"]
DUMP = re.compile(r"^// -----// IR Dump (Before|After) LayoutSlicesPass: "
                  r"iree-stream-layout-slices //----- //\n", re.M)
# The module before binding fusion: the executables with one binding per tensor (dispatch.py).
MODULE_DUMP = re.compile(r"^// -----// IR Dump Before FuseDispatchBindingsPass: "
                         r"iree-stream-fuse-dispatch-bindings //----- //\n", re.M)
SSA = re.compile(r"%[\w$.-]+(?:#\d+)?")
# Ops of the entry function that launch nothing and move no bytes the trace must see.
QUIET = ("arith.", "hal.", "stream.timepoint.join", "stream.timepoint.immediate",
         "stream.resource.dealloca", "stream.cmd.flush", "stream.cmd.invalidate",
         "stream.cmd.discard")


class ExportError(Exception):
    """The program cannot be exported (exit 2): the message says why and where."""


def versions():
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for name in ("iree-base-compiler", "jax", "jaxlib", "numpy", "penzai"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def iree_compile_path():
    try:
        from iree.compiler.tools import binaries

        return binaries.find_tool("iree-compile")
    except Exception as e:  # not installed, or its binary missing
        raise ExportError(f"IREE's compiler is not available ({type(e).__name__}: {e}); "
                          "scripts/iree-plan installs the pinned group 'iree' into the build venv")


def compile_dumps(mlir_text):
    """iree-compile's dumps of the entry function around the pass: (before, after) lines, and
    the module's text before iree-stream-fuse-dispatch-bindings (its executables; None where
    iree-compile printed none)."""
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "program.mlir")
        with open(src, "w") as f:
            f.write(mlir_text)
        r = subprocess.run([iree_compile_path(), src, *COMPILE_FLAGS, "-o", os.devnull],
                           capture_output=True, text=True)
    if r.returncode != 0:
        errors = [l for l in r.stderr.splitlines() if "error:" in l]
        first = errors[0] if errors else (r.stderr.strip().splitlines() or ["(no message)"])[-1]
        first = re.sub(r"^\S*program\.mlir:", "line ", first)
        raise ExportError(f"iree-compile could not compile the program (exit {r.returncode}): "
                          f"{first}")
    parts = DUMP.split(r.stderr)
    dumps = [(parts[i], parts[i + 1]) for i in range(1, len(parts) - 1, 2)]
    mains = [(k, body) for k, body in dumps if re.match(r"util\.func public @main\(", body)]
    if len(mains) < 2 or mains[-2][0] != "Before" or mains[-1][0] != "After":
        raise ExportError("iree-compile printed no dump of @main around "
                          "iree-stream-layout-slices (is the entry point named main?)")
    modules = MODULE_DUMP.split(r.stderr)
    module = re.split(r"^// -----// IR Dump", modules[-1], flags=re.M)[0] \
        if len(modules) > 1 else None
    return _function_text(mains[-2][1]), _function_text(mains[-1][1]), module


def _function_text(body):
    """The function's lines, from its header to its closing brace."""
    lines, depth = [], 0
    for line in body.splitlines():
        lines.append(line)
        depth += line.count("{") - line.count("}")
        if len(lines) > 1 and line.startswith("}") and depth <= 0:
            break
    return lines


def _structural(lines):
    """The lines the pass does not touch: all but constants and packs (with their slices)."""
    out, in_pack = [], False
    for line in lines:
        s = line.strip()
        if in_pack:
            in_pack = not s.startswith("})")
            continue
        if "stream.resource.pack" in s:
            in_pack = not s.endswith("index")
            continue
        if re.match(r"%[\w]+ = arith\.constant ", s):
            continue
        out.append(s)
    return out


def pack_offsets(before, after):
    """{"%P#k": bytes}: each pack result's value after the pass, by zipping the two dumps."""
    consts = {}
    for line in after:
        m = re.match(r"\s*(%[\w]+) = arith\.constant (-?\d+) : index", line)
        if m:
            consts[m.group(1)] = int(m.group(2))
    packs = set()
    for line in before:
        m = re.match(r"\s*(%[\w]+):\d+ = stream\.resource\.pack", line)
        if m:
            packs.add(m.group(1))
    b, a = _structural(before), _structural(after)
    if len(a) != len(b):
        raise ExportError(f"the dumps before and after iree-stream-layout-slices differ in "
                          f"shape ({len(b)} and {len(a)} lines): cannot read the offsets")
    out = {}
    for lb, la in zip(b, a):
        tb, ta = SSA.findall(lb), SSA.findall(la)
        if len(tb) != len(ta) or SSA.sub("%", lb) != SSA.sub("%", la):
            raise ExportError(f"the dumps before and after iree-stream-layout-slices differ at "
                              f"'{lb[:120]}'")
        for x, y in zip(tb, ta):
            if "#" in x and x.split("#")[0] in packs:
                if y not in consts:
                    raise ExportError(f"pack result {x} is {y} after the pass, not a constant")
                if out.setdefault(x, consts[y]) != consts[y]:
                    raise ExportError(f"pack result {x} has two values after the pass")
    return out


def _split_top(text):
    """Split at commas outside brackets."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "([{<":
            depth += 1
        elif ch in ")]}>":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def _results(lhs):
    """'%a, %b' or '%x:3' or '%x' -> the result names."""
    names = []
    for part in lhs.split(","):
        part = part.strip()
        m = re.match(r"(%[\w$.-]+):(\d+)$", part)
        if m:
            names += [f"{m.group(1)}#{k}" for k in range(int(m.group(2)))]
        elif part:
            names.append(part)
    return names


class _View:
    """A resource SSA value: `size` bytes of a region from `at` (an index.Ix: from the start of
    its value, or of the region where value is None); value a slice, the region's one value
    ("whole"), or None (a packed region's whole: each range names its slice)."""

    def __init__(self, region, at, size, value=None):
        self.region, self.size, self.value = region, size, value
        self.at = ix.const(at) if isinstance(at, int) else at


class _Reader:
    def __init__(self, lines, offsets, funcs=None):
        self.lines, self.offsets = lines, offsets
        self.funcs = funcs      # dispatch function name -> dispatch.Func (None: not printed)
        self.ranges_undecided = []  # updates whose reads could not be derived, and why
        self.ix = {}            # SSA -> index.Ix: an index the host computes
        self.alg = ix.Algebra({})  # loop id -> its trip count
        self.loop_pos = {}      # loop id -> its index in self.loops (the trace's)
        self.undecided = []     # where an offset could not be decided (the value's hull)
        self.views = {}         # SSA -> _View
        self.regions = {}       # name -> region dict (kind, size, planned_size, pack, role)
        self.region_order = []
        self.values = {}        # id -> value dict
        self.packs = {}         # pack name -> list of (interval, size) per slice (k >= 1)
        self.ops, self.loops = [], []
        self.exports = []
        self.counts = {"executes": 0, "dispatches": 0, "copies": 0, "fills": 0,
                       "concurrent_blocks": 0, "loops": 0, "host_loads": 0,
                       "loop_slots": 0, "slot_moves_written": 0, "offsets_moving": 0,
                       "offsets_undecided": 0, "reads_derived": 0, "reads_undecided": 0,
                       "updates_reading_across": 0}
        self.loop_line = {}     # loop id -> the line of its scf.for
        self.written = set()
        self.n_regions = {"alloca": 0, "import": 0, "global": 0}
        self.group = None       # ops of a concurrent block being gathered
        self.line_no = 0
        # Ordering of execution regions: a timepoint covers the executes done when it is
        # reached (atoms: execute numbers, or ('iter', loop, j) for a loop-carried timepoint).
        self.tp = {}
        self.iter_binding = {}
        self.waits = {}         # execute -> the atoms its await covers
        self.touch = {}         # execute -> (values read, values written)
        self.exec_line = {}
        self.exec_seq = []
        self.host_done = set()
        self.cur_exec = None
        self.loop_stack = []    # the loops the walk is inside
        self.region_loops = {}  # region -> the loops it is allocated in (once per iteration)

    # -- errors and ints ---------------------------------------------------------------------
    def fail(self, what):
        raise ExportError(f"line {self.line_no} of the stream program: {_printed(what)}")

    def expr(self, tok):
        """The index.Ix of an SSA index (unknown where the capture cannot say)."""
        if tok in self.ix:
            return self.ix[tok]
        m = re.match(r"(%[\w]+)#(\d+)$", tok)
        if m and m.group(1) in self.packs:
            return ix.Ix(base=(m.group(1), int(m.group(2))), lin=(0, {}))
        return ix.unknown()

    def int_of(self, tok, what):
        e = self.expr(tok)
        if e.const is not None:
            return e.const
        if e.base is not None and e.rest().const is not None:
            off = self.offsets.get(f"{e.base[0]}#{e.base[1]}")
            if off is not None:
                return off + e.rest().const
        self.fail(f"{what} {tok} is not a constant")

    # -- regions and values ------------------------------------------------------------------
    def region(self, name, kind, size, role, planned=None, pack=None):
        self.region_loops[name] = tuple(self.loop_stack)
        r = {"name": name, "kind": kind, "size": size, "role": _printed(role)}
        if planned is not None:
            r["planned_size"] = planned
        if pack:
            r["pack"] = pack
        self.regions[name] = r
        self.region_order.append(name)
        return r

    def value(self, region, key, label):
        r = self.regions[region]
        if key == "whole":
            vid, off, size = region, 0, r["size"]
        else:
            pack, k = r["pack"], key
            vid = f"{region}.s{k}"
            off = self.offsets.get(f"{pack}#{k}")
            size = self.packs[pack][k - 1][1]
            if off is None:
                self.fail(f"slice {k} of {pack} has no offset after the pass")
        v = self.values.get(vid)
        if v is None:
            v = self.values[vid] = {"id": vid, "region": region, "offset": off, "size": size,
                                    "whole_program": r["kind"] in ("weights", "constants"),
                                    "label": _printed(label)}
        return vid

    def view_value(self, v):
        """The value a view names (None: a packed region whole)."""
        if v.value == "whole":
            return self.value(v.region, "whole", self.regions[v.region]["role"])
        return v.value

    def sized(self, name, size):
        """A resource whose size is known only where an execute binds it (a global)."""
        v = self.views.get(name)
        if v is not None and v.size is None:
            r = self.regions[v.region]
            r["size"] = v.size = size
        return v

    def resolve(self, view_tok, off_tok, length, what):
        """(value id, word) of a range of a bound resource: the value whose bytes it lies in
        and the word's fields, {"offset": o} plus "steps" where the offset moves with the
        enclosing loops. length: an index.Ix or an int (bytes from the offset)."""
        v = self.views.get(view_tok)
        if v is None:
            self.fail(f"{what}: {view_tok} is not a resource the capture knows")
        if isinstance(length, int):
            length = ix.const(length)
        rel = self.alg.add(v.at, self.expr(off_tok))
        where = f"{what}: the range {view_tok}[{off_tok}]"
        r = self.regions[v.region]
        if v.value is not None:
            vid = self.view_value(v)
            if rel.base is not None:
                rel = ix.unknown()
            return vid, self.word(vid, rel, length, where)
        # A packed region bound whole: the offset names the slice.
        pack = r["pack"]
        if rel.base is not None:
            if rel.base[0] == pack and rel.base[1] >= 1:
                k = rel.base[1]
                vid = self.value(v.region, k, f"{pack}#{k}")
                return vid, self.word(vid, rel.rest(), length, where, rel)
        else:
            b, n = self.alg.bounds(rel), self.alg.bounds(length)
            if b is not None:
                end = b[1] + (max(n[1], 1) if n else 1)
                hits = [k for k in range(1, len(self.packs[pack]) + 1)
                        if self.offsets.get(f"{pack}#{k}", -1) <= b[0] and end <=
                        self.offsets.get(f"{pack}#{k}", -1) + self.packs[pack][k - 1][1]]
                if len(hits) == 1:
                    k = hits[0]
                    vid = self.value(v.region, k, f"{pack}#{k}")
                    inside = self.alg.add(rel, ix.const(self.values[vid]["offset"]), -1)
                    return vid, self.word(vid, inside, length, where, rel)
        self.fail(f"{where} names no slice of its pack ({self.describe(rel)}: no one slice "
                  "holds it at every iteration)")

    def describe(self, e):
        """An index in words, for messages: its base, then how it moves with the loops."""
        head = f"{e.base[0]}#{e.base[1]} + " if e.base is not None else ""
        if e.lin is not None:
            c, terms = e.lin
            moves = " + ".join(f"{a} x the iteration of the scf.for at line "
                               f"{self.loop_line[l]}" for l, a in sorted(terms.items()))
            return head + (f"{c} + {moves}" if moves else f"{c}")
        if e.table is not None:
            lo, hi = self.alg.bounds(e)
            lines = ", ".join(str(self.loop_line[l]) for l in e.table[0])
            return head + (f"one of {lo}..{hi} per iteration of the scf.for at lines {lines}, "
                           "not a sum of one offset per loop")
        if e.span is not None:
            return head + f"a value in {e.span[0]}..{e.span[1]} computed at run time"
        return head + "a value computed at run time"

    def word(self, vid, rel, length, where, shown=None):
        """The word's fields for a range at rel (an index.Ix, from the value's first byte) of
        length bytes: {"offset": o}, plus "steps" where it moves with the loops. Every
        iteration's range must lie in the value (else the program is refused, naming it); an
        offset that cannot be decided is the value's hull (its first byte), counted. shown: the
        offset as the program computes it, for messages."""
        shown = shown or rel
        size = self.values[vid]["size"]
        n = self.alg.bounds(length)
        nmax = max(n[1], 1) if n else None
        if rel.decided:
            lo, hi = self.alg.bounds(rel)
            if size and (lo < 0 or hi >= size or (nmax is not None and hi + nmax > size)):
                self.fail(f"{where} runs past {vid} ({size} bytes): "
                          f"{self.past(rel, nmax, size, shown)}")
            steps = self.steps(rel)
            if steps is not None:
                off, moves = steps
                self.counts["offsets_moving"] += bool(moves)
                w = {"offset": off, "steps": moves} if moves else {"offset": off}
                w["_at"] = (lo, hi)  # the offset's least and greatest (dropped in emit)
                return w
        self.counts["offsets_undecided"] += 1
        self.undecided.append(_printed(f"line {self.line_no}: {where} at "
                                       f"{self.describe(shown)}"))
        return {"offset": 0}

    def past(self, rel, length, size, shown):
        """The first iteration where [rel, rel + length) leaves [0, size), in words."""
        loops = rel.loops()
        pts = self.alg.points(loops) or []
        for p in pts:
            o = self.alg.at(rel, loops, p)
            if o < 0 or o + (length or 1) > size:
                at = ", ".join(f"iteration {i} of the scf.for at line {self.loop_line[l]}"
                               for l, i in zip(loops, p)) or "always"
                return f"bytes [{o}, {o + (length or 1)}) at {at} (offset {self.describe(shown)})"
        lo, hi = self.alg.bounds(rel)
        return f"offsets from {lo} to {hi} (offset {self.describe(shown)})"

    def steps(self, e):
        """(offset at the first iteration, steps) where e is a sum of one function per loop
        (each a delta where affine, else its offsets per iteration); None where it is not."""
        if e.lin is not None:
            c, terms = e.lin
            return c, [{"loop": l, "delta": a} for l, a in sorted(terms.items()) if a]
        loops, vals = e.table
        zero = tuple(0 for _ in loops)
        f0 = vals[zero]
        parts = []
        for k, l in enumerate(loops):
            parts.append([vals[tuple(i if j == k else 0 for j in range(len(loops)))] - f0
                          for i in range(self.alg.iters[l])])
        if any(v != f0 + sum(parts[k][i] for k, i in enumerate(p)) for p, v in vals.items()):
            return None
        moves = []
        for l, g in zip(loops, parts):
            if all(x == i * g[1] for i, x in enumerate(g)):
                moves.append({"loop": l, "delta": g[1]})
            else:
                moves.append({"loop": l, "offsets": g})
        return f0, [m for m in moves if m.get("delta", 1)]

    # -- ops ---------------------------------------------------------------------------------
    def emit(self, kernel, reads, writes, words, kind, partial=(), ranges=None):
        """An op; ranges: value -> {"writes", "reads"} of an update (None: absent)."""
        reads = list(dict.fromkeys(reads))
        writes = list(dict.fromkeys(writes))
        words = [{k: v for k, v in w.items() if not k.startswith("_")} for w in words]
        updates = []
        for w in writes:
            if w in reads or (w in partial and w in self.written):
                u = {"from": w, "to": w}
                for k, v in (ranges or {}).get(w, {}).items():
                    if v is not None:
                        u[k] = [{"offset": a, "size": b - a} for a, b in v]
                updates.append(u)
        op = {"kernel": kernel, "reads": [r for r in reads if r not in writes],
              "writes": [w for w in writes if not any(u["to"] == w for u in updates)],
              "updates": updates, "words": words, "kind": kind}
        if self.group is not None:
            self.group.append(op)
        else:
            self.ops.append(op)
        self.written.update(writes)
        if self.cur_exec is not None:
            rd, wr = self.touch[self.cur_exec]
            rd.update(reads)
            wr.update(writes)

    def close_group(self):
        group, self.group = self.group, None
        if not group:
            return
        reads, writes, updates, words = [], [], [], []
        for op in group:
            for u in op["updates"]:
                if u["from"] in writes or u["from"] in reads:
                    self.fail(f"a concurrent block updates {u['from']}, which another of its "
                              "ops uses: the order inside the block is not fixed")
                updates.append(u)
            for w in op["writes"]:
                if w in writes or w in reads:
                    self.fail(f"a concurrent block writes {w} twice or reads it: the order "
                              "inside the block is not fixed")
                writes.append(w)
            for r in op["reads"]:
                if r in writes or any(u["from"] == r for u in updates):
                    self.fail(f"a concurrent block reads {r}, which another of its ops writes")
                if r not in reads:
                    reads.append(r)
            words += op["words"]
        if len(group) == 1:
            self.ops.append(group[0])
            return
        self.counts["concurrent_blocks"] += 1
        self.ops.append({"kernel": "concurrent{" + ", ".join(o["kernel"] for o in group) + "}",
                         "reads": reads, "writes": writes, "updates": updates, "words": words,
                         "kind": "concurrent"})

    # -- the walk ----------------------------------------------------------------------------
    def run(self):
        stack = []  # (kind, info)
        i = 0
        lines = self.lines
        while i < len(lines) - 1:
            i += 1
            self.line_no = i + 1
            s = lines[i].strip()
            if not s:
                continue
            if s.startswith("}"):
                if not stack:
                    break
                kind, info = stack.pop()
                if kind == "for":
                    self.end_for(info)
                elif kind == "concurrent":
                    self.close_group()
                elif kind == "dispatch":
                    self.end_dispatch(info)
                elif kind == "execute":
                    self.end_execute(info)
                continue
            if stack and stack[-1][0] == "dispatch":
                self.binding(stack[-1][1], s)
                continue
            m = re.match(r"(%[\w]+) = arith\.constant (-?\d+|true|false) : (index|i\d+)", s)
            if m:
                v = m.group(2)
                self.ix[m.group(1)] = ix.const({"true": 1, "false": 0}.get(v) if v in
                                               ("true", "false") else int(v))
                continue
            m = re.match(r"(%[\w]+) = (arith|affine|util)\.([\w.]+) (.*)$", s)
            if m and self.index_op(m.group(1), m.group(2), m.group(3), m.group(4)):
                continue
            if "stream.resource.pack" in s:
                i = self.pack(s, i)
                continue
            m = re.match(r"((?:%[\w$.-]+(?::\d+)?)(?:, %[\w$.-]+)*) = ([\w.]+)(.*)$", s)
            op, lhs, rest = (m.group(2), m.group(1), m.group(3)) if m else (s.split()[0], "", s)
            if op == "stream.tensor.import":
                self.import_(lhs, s)
            elif op == "util.global.load":
                self.global_(lhs, s)
            elif op == "stream.resource.alloca":
                self.alloca(lhs, s)
            elif op == "stream.resource.subview":
                self.subview(lhs, s)
            elif op == "stream.timepoint.await":
                self.host_done |= self.closure(self.tp.get(rest.split()[0], ()))
                mm = re.search(r"=> (.*?) :", rest)
                srcs = [x.strip() for x in mm.group(1).split(",")] if mm else []
                for name, src in zip(_results(lhs), srcs):
                    if src in self.views:
                        self.views[name] = self.views[src]
            elif op == "stream.resource.load":
                mm = re.match(r"\s*(%[\w#]+)\[(%[\w#]+)\]", rest)
                vid, w = self.resolve(mm.group(1), mm.group(2), 1, "stream.resource.load")
                self.counts["host_loads"] += 1
                self.emit("readback", [vid], [], [{"value": vid, **w}], "host")
            elif op == "stream.tensor.export":
                mm = re.search(r"\) (%[\w#]+) :", s)
                if mm and mm.group(1) in self.views:
                    self.exports.append(mm.group(1))
            elif op == "stream.cmd.execute":
                self.counts["executes"] += 1
                self.execute(s)
                stack.append(("execute", self.begin_execute(lhs, s)))
            elif op in ("stream.timepoint.join", "stream.timepoint.immediate",
                        "stream.resource.dealloca"):
                self.timepoint(op, lhs, rest)
            elif op == "scf.for":
                stack.append(("for", self.begin_for(lhs, s)))
            elif s.startswith("scf.yield"):
                if not stack or stack[-1][0] != "for":
                    self.fail("scf.yield outside an scf.for")
                stack[-1][1]["yield"] = [x.strip() for x in
                                         s[len("scf.yield"):].split(":")[0].split(",")]
            elif s.startswith("stream.cmd.concurrent") or s.startswith("stream.cmd.serial"):
                if s.startswith("stream.cmd.concurrent"):
                    if self.group is not None:
                        self.fail("a concurrent block inside a concurrent block")
                    self.group = []
                    stack.append(("concurrent", None))
                else:
                    stack.append(("serial", None))
            elif s.startswith("stream.cmd.dispatch"):
                mm = re.match(r"stream\.cmd\.dispatch @([\w$.-]+)::@([\w$.-]+)(?:\[[^\]]*\])?"
                              r"(?:\((.*?) : [^)]*\))?", s)
                if not mm:
                    self.fail(f"a dispatch of several entry points: {s[:100]}")
                operands = [self.expr(t.strip()) for t in (mm.group(3) or "").split(",")
                            if t.strip()]
                stack.append(("dispatch", {"kernel": mm.group(2), "ranges": [],
                                           "operands": operands, "line": self.line_no}))
            elif s.startswith("stream.cmd.copy"):
                self.copy(s)
            elif s.startswith("stream.cmd.fill"):
                self.fill(s)
            elif s.startswith("util.return"):
                break
            elif op in ("scf.if", "scf.index_switch") or s.startswith("scf.if"):
                cond = re.search(r"scf\.(?:if|index_switch) (%[\w#]+)", s)
                self.fail(f"{op if op.startswith('scf.') else 'scf.if'} on "
                          f"{cond.group(1) if cond else '?'} (a value known only when the "
                          "program runs, such as one loaded from the device): which branch runs "
                          "is not known before it runs, and an arena plan needs a fixed schedule "
                          "(lax.cond, lax.switch, or a while loop's first test)")
            elif op == "scf.while" or s.startswith("scf.while"):
                self.fail("scf.while: a loop whose trip count is known only when it runs "
                          "(lax.while_loop on data): the launches it makes are not known before "
                          "it runs; use lax.scan or lax.fori_loop with static bounds")
            elif s.startswith(QUIET) or op.startswith(QUIET) or s.startswith("//"):
                continue
            else:
                self.fail(f"{op}: an op the capture cannot express ({s[:120]})")

    def index_op(self, name, dialect, op, rest):
        """An index the host computes (arith, affine.apply/min/max, util.align and
        util.assume.int): its index.Ix. False where the op computes no index (float math): the
        line is then read as any other."""
        toks = re.findall(r"%[\w#]+", rest.split(" : ")[0])
        a = self.alg
        if dialect == "arith":
            if op in ("addi", "subi", "muli") or op in ix.BINARY:
                if len(toks) >= 2:
                    self.ix[name] = a.binary(op, self.expr(toks[0]), self.expr(toks[1]))
                return True
            if op == "cmpi":
                pred = rest.split(",")[0].strip()
                if ("cmpi." + pred) in ix.BINARY and len(toks) >= 2:
                    self.ix[name] = a.binary("cmpi." + pred, self.expr(toks[0]),
                                             self.expr(toks[1]))
                return True
            if op in ("index_cast", "index_castui", "extsi", "extui", "trunci", "bitcast"):
                if toks:
                    e = self.expr(toks[0])
                    self.ix[name] = a.cast(op, e) if op != "trunci" else self.trunc(e, rest)
                return True
            if op == "select" and len(toks) >= 3:
                self.ix[name] = a.select(*(self.expr(t) for t in toks[:3]))
                return True
            return False
        if dialect == "affine" and op in ("apply", "min", "max"):
            m = re.match(r"(affine_map<.*>)\((.*?)\)(?:\[(.*?)\])?\s*$", rest.strip())
            if not m:
                self.fail(f"affine.{op} with a map the capture cannot read (an alias such as "
                          f"#map, or no operands): {rest[:100]}")
            try:
                ndims, results = ix.affine_map(m.group(1))
            except ValueError as e:
                self.fail(f"affine.{op}: {e}")
            dims = [self.expr(t) for t in re.findall(r"%[\w#]+", m.group(2))]
            syms = [self.expr(t) for t in re.findall(r"%[\w#]+", m.group(3) or "")]
            vals = [ix.eval_affine(a, r, dims, syms) for r in results]
            out = vals[0]
            for v in vals[1:]:
                out = a.binary("minsi" if op == "min" else "maxsi", out, v)
            if op == "apply" and len(vals) != 1:
                self.fail(f"affine.apply with {len(vals)} results")
            self.ix[name] = out
            return True
        if dialect == "util" and op == "align" and len(toks) >= 2:
            self.ix[name] = a.apply(lambda x, y: None if y <= 0 else -(-x // y) * y,
                                    [self.expr(toks[0]), self.expr(toks[1])],
                                    lambda p, q: (p[0], p[1] + q[1] - 1) if q[0] > 0 else None)
            return True
        if dialect == "util" and op == "assume.int" and toks:
            e = self.expr(toks[0])
            lo = [int(x) for x in re.findall(r"umin = (\d+)", rest)]
            hi = [int(x) for x in re.findall(r"umax = (\d+)", rest)]
            if not e.decided and e.base is None and lo and hi and len(lo) == len(hi):
                e = ix.Ix(span=(min(lo), max(hi)))
            self.ix[name] = e
            return True
        return False

    def trunc(self, e, rest):
        """arith.trunci: the same integer where it fits the narrower type, else unknown."""
        m = re.search(r"to i(\d+)", rest)
        b = self.alg.bounds(e) if e.base is None else None
        if m and b and -(1 << (int(m.group(1)) - 1)) <= b[0] and b[1] < 1 << (int(m.group(1)) - 1):
            return e
        return ix.unknown()

    def pack(self, s, i):
        m = re.match(r"(%[\w]+):(\d+) = stream\.resource\.pack", s)
        if not m:
            self.fail(f"a pack the capture cannot read: {s[:100]}")
        name, slices = m.group(1), []
        if "offset(" in s:
            self.fail("a pack with a base offset")
        while not self.lines[i].strip().startswith("})"):
            i += 1
            mm = re.match(r"\s*\[(\d+), (\d+)\] = (%[\w#]+),?$", self.lines[i])
            if mm:
                slices.append(((int(mm.group(1)), int(mm.group(2))),
                               self.int_of(mm.group(3), "a slice's size")))
        if len(slices) + 1 != int(m.group(2)):
            self.fail(f"pack {name}: {len(slices)} slices read, {m.group(2)} results")
        self.packs[name] = slices
        return i

    def import_(self, lhs, s):
        m = re.search(r"\{(%[\w#]+)\}\s*$", s)
        size = self.int_of(m.group(1), "an import's size")
        arg = re.search(r"\) (%\w+) :", s)
        self.n_regions["import"] += 1
        name = f"arg{self.n_regions['import'] - 1}"
        self.region(name, "weights", size, f"import {arg.group(1) if arg else '?'}")
        self.views[lhs] = _View(name, 0, size, "whole")

    def global_(self, lhs, s):
        if "!stream.resource" not in s:
            return
        if "immutable" not in s:
            self.fail("a mutable global resource (state kept across calls)")
        g = re.search(r"@([\w$.-]+)", s).group(1)
        self.n_regions["global"] += 1
        name = f"const{self.n_regions['global'] - 1}"
        self.region(name, "constants", None, f"global @{g}")
        self.views[lhs] = _View(name, 0, None, "whole")

    def alloca(self, lhs, s):
        m = re.search(r"!stream\.resource<(\w+)>\{(%[\w#]+)\}", s)
        lifetime, size_tok = m.group(1), m.group(2)
        e = self.expr(size_tok)
        self.n_regions["alloca"] += 1
        name = f"{lifetime}{self.n_regions['alloca'] - 1}"
        res = _results(lhs)[0]
        waited = re.search(r"await\((%[\w#]+)\)", s)
        for t in _results(lhs)[1:]:
            self.tp[t] = self.tp.get(waited.group(1), frozenset()) if waited else frozenset()
        if e.base is not None and e.base[1] == 0 and e.rest().const == 0:
            size = self.offsets.get(size_tok)
            if size is None:
                self.fail(f"the pack {e.base[0]} has no size after the pass")
            kind = "arena" if lifetime == "transient" else "io"
            self.region(name, kind, size, f"{lifetime} pack {e.base[0]}",
                        planned=size if kind == "arena" else None, pack=e.base[0])
            self.views[res] = _View(name, 0, size, None)
        else:
            size = self.int_of(size_tok, "an allocation's size")
            kind = {"transient": "scratch", "external": "io", "staging": "io"}.get(lifetime)
            if kind is None:
                self.fail(f"an allocation of {lifetime} lifetime")
            self.region(name, kind, size, f"{lifetime} allocation")
            self.views[res] = _View(name, 0, size, "whole")

    def subview(self, lhs, s):
        m = re.search(r"subview (%[\w#]+)\[(%[\w#]+)\].*->\s*!stream\.resource<\w+>\{(%[\w#]+)\}",
                      s)
        base = self.views.get(m.group(1))
        if base is None:
            self.fail(f"a subview of {m.group(1)}, which the capture does not know")
        size = self.int_of(m.group(3), "a subview's size")
        e = self.alg.add(base.at, self.expr(m.group(2)))
        r = self.regions[base.region]
        if base.value is None and e.base is not None and e.base[0] == r.get("pack") \
                and e.base[1] >= 1:
            vid = self.value(base.region, e.base[1], f"{e.base[0]}#{e.base[1]}")
            self.views[lhs] = _View(base.region, e.rest(), size, vid)
        elif base.value is not None and e.base is None:
            self.views[lhs] = _View(base.region, e, size, base.value)
        else:
            self.fail(f"a subview of {m.group(1)} at {m.group(2)}: not a slice of its pack "
                      f"({self.describe(e)})")

    def execute(self, s):
        m = re.search(r"with\((.*)\) \{$", s)
        if not m:
            self.fail("a stream.cmd.execute whose bindings cannot be read")
        for b in _split_top(m.group(1)):
            mm = re.match(r"(%[\w#]+) as (%[\w#]+): !stream\.resource<\w+>\{(%[\w#]+)\}", b)
            if not mm:
                self.fail(f"a binding of stream.cmd.execute the capture cannot read: {b}")
            outer = mm.group(1)
            v = self.views.get(outer)
            if v is None:
                self.fail(f"stream.cmd.execute binds {outer}, which the capture does not know")
            if v.size is None:
                self.sized(outer, self.int_of(mm.group(3), "a binding's size"))
            self.views[mm.group(2)] = v

    def timepoint(self, op, lhs, rest):
        """What a join (every operand), an immediate (nothing) or a deallocation (its await)
        covers."""
        if op == "stream.resource.dealloca":
            waited = re.search(r"await\((.*?)\)", rest)
            operands = waited.group(1) if waited else ""
        else:
            operands = rest.split("=>")[0]
        self.tp[lhs] = frozenset(a for t in re.findall(r"%[\w#]+", operands)
                                 for a in self.tp.get(t, ()))

    def closure(self, atoms):
        """The executes done once all of atoms are: each with everything it waited on."""
        done, todo = set(), list(atoms)
        while todo:
            a = todo.pop()
            if a in done:
                continue
            done.add(a)
            if isinstance(a, tuple):
                todo += self.iter_binding.get(a, ())
            else:
                todo += self.waits.get(a, ())
        return {a for a in done if not isinstance(a, tuple)}

    def begin_execute(self, lhs, s):
        e = len(self.exec_seq)
        waited = re.search(r"await\((%[\w#]+)\)", s)
        self.waits[e] = self.tp.get(waited.group(1), frozenset()) if waited else frozenset()
        self.touch[e] = (set(), set())
        self.exec_line[e] = self.line_no
        self.exec_seq.append(e)
        self.tp[lhs] = self.waits[e] | {e}
        self.cur_exec = e
        return {"exec": e, "host_done": set(self.host_done)}

    def end_execute(self, info):
        e = info["exec"]
        self.cur_exec = None
        self.check_order(e, [p for p in self.exec_seq if p != e], info["host_done"], "")

    def check_order(self, e, earlier, host_done, when, loop=None):
        """Refuse an execute that may run while an earlier one that shares a value with it
        (one of them writing it) still runs: the trace is one order. Across a loop's
        iterations, a region allocated in its body is a new allocation each iteration."""
        done = self.closure(self.waits[e]) | self.closure(host_done)
        re_, we = self.touch[e]
        for p in earlier:
            if p in done:
                continue
            rp, wp = self.touch[p]
            shared = sorted(v for v in (wp & (re_ | we)) | (rp & we)
                            if loop is None or
                            loop not in self.region_loops[self.values[v]["region"]])
            if shared:
                self.line_no = self.exec_line[e]
                self.fail(f"stream.cmd.execute may run while the one at line "
                          f"{self.exec_line[p]}{when} still runs (its await does not cover it) "
                          f"and both use {shared[0]}: execution regions run asynchronously, "
                          "and the trace is one order")

    def binding(self, info, s):
        m = re.match(r"(ro|wo|rw) (%[\w#]+)\[(%[\w#]+) for (%[\w#]+)\]", s)
        if not m:
            self.fail(f"a dispatch binding the capture cannot read: {s[:100]}")
        length = self.expr(m.group(4))
        vid, w = self.resolve(m.group(2), m.group(3), length, f"dispatch {info['kernel']}")
        info["ranges"].append((m.group(1), vid, w, self.covers(vid, length), length.const))

    def end_dispatch(self, info):
        self.counts["dispatches"] += 1
        rs = info["ranges"]
        reads = [v for a, v, *_ in rs if a in ("ro", "rw")]
        writes = [v for a, v, *_ in rs if a in ("wo", "rw")]
        partial = [v for a, v, _, whole, _ in rs if a == "wo" and not whole]
        rw_fresh = {v for a, v, *_ in rs if a == "rw" and v not in self.written}
        reads = [v for v in reads if not (v in rw_fresh)]
        words = [{"value": v, **w} for _, v, w, *_ in rs if self.values[v]["size"]]
        updated = [v for v in writes if v in reads or (v in partial and v in self.written)]
        ranges = {v: self.dispatch_ranges(info, v) for v in dict.fromkeys(updated)}
        self.emit(info["kernel"], reads, writes, words, "dispatch", partial, ranges)

    def dispatch_ranges(self, info, v):
        """{"writes", "reads"} of a dispatch updating value v in place (dispatch.py): the
        bytes its executable stores into v, and those it loads from v other than to update
        them; undecided (no executable printed, or one it cannot follow), every binding on v
        read and written whole (sound), counted and named."""
        size = self.values[v]["size"]
        binds = [(i, a, w.get("_at"), n) for i, (a, vid, w, _, n) in enumerate(info["ranges"])
                 if vid == v]
        f = self.funcs.get(info["kernel"]) if self.funcs is not None else None
        writes, reads, why = [], [], None
        if self.funcs is None:
            why = "iree-compile printed no executables"
        elif f is None:
            why = f"no function @{info['kernel']} among the executables"
        for i, a, at, n in binds if why is None else ():
            try:
                w_, r_ = dispatch.effects(f, self.alg, info["operands"], i)
            except (dispatch.Undecided, ValueError) as e:
                why = str(e)
                break
            # a binding whose offset is not decided: what it touches is anywhere in the value
            moved = (lambda rs: [(at[0] + lo, at[1] + hi) for lo, hi in rs]) if at else \
                (lambda rs: [(0, size)] if rs else [])
            if a in ("wo", "rw"):
                writes += moved(w_)
            if a in ("ro", "rw"):
                reads += moved(r_)
        if why is not None:
            whole = [(at[0], at[1] + n) if at is not None and n else (0, size)
                     for _, a, at, n in binds]
            writes = [b for b, (_, a, _, _) in zip(whole, binds) if a in ("wo", "rw")]
            reads = [b for b, (_, a, _, _) in zip(whole, binds) if a in ("ro", "rw")]
            self.counts["reads_undecided"] += 1
            self.ranges_undecided.append(_printed(
                f"line {info['line']}: dispatch {info['kernel']} updating {v}: {why}"))
        else:
            self.counts["reads_derived"] += 1
        writes, reads = _merged(writes, size), _merged(reads, size)
        self.counts["updates_reading_across"] += bool(reads)
        return {"writes": None if writes == [(0, size)] else writes, "reads": reads or None}

    def copy(self, s):
        m = re.match(r"stream\.cmd\.copy (%[\w#]+)\[(%[\w#]+)\], (%[\w#]+)\[(%[\w#]+)\], "
                     r"(%[\w#]+)", s)
        if not m:
            self.fail(f"a copy the capture cannot read: {s[:100]}")
        length = self.expr(m.group(5))
        src, so = self.resolve(m.group(1), m.group(2), length, "stream.cmd.copy")
        dst, do = self.resolve(m.group(3), m.group(4), length, "stream.cmd.copy")
        self.counts["copies"] += 1
        n = length.const
        ranges = {dst: {"writes": self.bytes_of(dst, do, n),
                        "reads": self.bytes_of(src, so, n) if src == dst else None}}
        self.emit("copy", [src], [dst], [{"value": src, **so}, {"value": dst, **do}], "copy",
                  () if self.covers(dst, length) else (dst,), ranges)

    def fill(self, s):
        m = re.match(r"stream\.cmd\.fill (%[\w#]+), (%[\w#]+)\[(%[\w#]+) for (%[\w#]+)\]", s)
        if not m:
            self.fail(f"a fill the capture cannot read: {s[:100]}")
        length = self.expr(m.group(4))
        dst, do = self.resolve(m.group(2), m.group(3), length, "stream.cmd.fill")
        self.counts["fills"] += 1
        self.emit("fill", [], [dst], [{"value": dst, **do}], "fill",
                  () if self.covers(dst, length) else (dst,),
                  {dst: {"writes": self.bytes_of(dst, do, length.const)}})

    def bytes_of(self, vid, w, n):
        """[(lo, hi)]: the bytes a range of n bytes at word w may cover in value vid, over
        every iteration (None: the whole value, where the offset or n is not known)."""
        size = self.values[vid]["size"]
        at = w.get("_at")
        if at is None or not n:
            return None
        r = _merged([(at[0], at[1] + n)], size)
        return None if r == [(0, size)] else r

    def covers(self, vid, length):
        """Whether a range of length bytes covers the whole value (at least its size)."""
        return length.const is not None and length.const >= self.values[vid]["size"]

    # -- loops -------------------------------------------------------------------------------
    def begin_for(self, lhs, s):
        m = re.match(r".*scf\.for (%[\w]+) = (%[\w#]+) to (%[\w#]+) step (%[\w#]+)"
                     r"(?: iter_args\((.*?)\) -> \((.*)\))?", s)
        if not m:
            self.fail(f"an scf.for the capture cannot read: {s[:100]}")
        bounds = [self.expr(m.group(k)).const for k in (2, 3, 4)]
        if any(b is None for b in bounds):
            self.fail(f"scf.for with a dynamic trip count ({m.group(2)} to {m.group(3)} step "
                      f"{m.group(4)}): the launches it makes are not known before it runs")
        lb, ub, st = bounds
        if st <= 0:
            self.fail(f"scf.for with step {st}")
        n = max(0, -(-(ub - lb) // st))
        self.counts["loops"] += 1
        idx = self.counts["loops"] - 1
        self.alg.iters[idx] = n
        self.loop_line[idx] = self.line_no
        self.ix[m.group(1)] = ix.iv(idx, lb, st, n)
        slots, reads, writes, words = [], [], [], []
        for j, pair in enumerate(_split_top(m.group(5) or "")):
            arg, init = [x.strip() for x in pair.split("=")]
            v = self.views.get(init)
            if v is None:
                atom = ("iter", idx, j)
                self.iter_binding[atom] = self.tp.get(init, frozenset())
                self.tp[arg] = frozenset([atom])
                slots.append(None)
                continue
            src = self.view_value(v)
            if src is None:
                self.fail(f"scf.for carries the packed resource {init} whole")
            if v.size is None:
                self.fail(f"scf.for carries {init}, whose size is unknown")
            name = f"loop{idx}.state{j}"
            self.region(name, "scratch", v.size, f"scf.for {m.group(1)} iter_arg {arg}")
            slot = self.value(name, "whole", f"loop state {arg}")
            self.counts["loop_slots"] += 1
            self.views[arg] = _View(name, 0, v.size, "whole")
            slots.append((arg, slot))
            reads.append(src)
            writes.append(slot)
            words += [{"value": src, "offset": 0}, {"value": slot, "offset": 0}]
        if writes:
            self.emit("scf.for.init", reads, writes, words, "loop-state")
        self.loop_stack.append(idx)
        return {"results": _results(lhs), "slots": slots, "n": n, "first": len(self.ops),
                "loops_before": len(self.loops), "iv": m.group(1), "index": idx,
                "execs_before": len(self.exec_seq)}

    def end_for(self, info):
        yields = info.get("yield", [])
        reads, writes, words = [], [], []
        for slot, y in zip(info["slots"], yields):
            if slot is None:
                continue
            v = self.views.get(y)
            if v is None:
                self.fail(f"scf.yield {y}: not a resource the capture knows")
            src = self.view_value(v)
            if src is None:
                self.fail(f"scf.yield of the packed resource {y} whole")
            if src == slot[1]:
                continue
            reads.append(src)
            writes.append(slot[1])
            words += [{"value": src, "offset": 0}, {"value": slot[1], "offset": 0}]
        if writes:
            self.counts["slot_moves_written"] += 1
            self.emit("scf.yield", reads, writes, words, "loop-state")
        self.loop_stack.pop()
        # The next iteration's executes against this one's: loop-carried timepoints now stand
        # for what the body yields.
        body = self.exec_seq[info["execs_before"]:]
        for j, (slot, y) in enumerate(zip(info["slots"], yields)):
            if slot is None and ("iter", info["index"], j) in self.iter_binding:
                self.iter_binding[("iter", info["index"], j)] = self.tp.get(y, frozenset())
        if info["n"] > 1:
            for e in body:
                self.check_order(e, body, self.host_done, " in the iteration before",
                                 info["index"])
        for name, slot, y in zip(info["results"], info["slots"], yields):
            if slot is None:
                self.tp[name] = self.tp.get(y, frozenset())
        first, n = info["first"], info["n"]
        if n == 0:
            del self.ops[first:]
            del self.loops[info["loops_before"]:]
        elif n > 1 and len(self.ops) > first:
            self.loop_pos[info["index"]] = len(self.loops)
            self.loops.append({"first": first, "count": len(self.ops) - first, "iterations": n})
        for name, slot in zip(info["results"], info["slots"]):
            if slot is not None:
                self.views[name] = self.views[slot[0]]


_DEF = re.compile(r"^\s*((?:%[\w$.-]+(?::\d+)?)(?:, %[\w$.-]+(?::\d+)?)*) = ")


def unique_names(lines):
    """The lines with every SSA name defined once: MLIR's printer reuses a name in sibling
    regions (two loop bodies may each define %20, a pack in each), which the reader, keyed by
    name, would mix up. A name defined again is renamed NAME__n, its uses with it, by scope: a
    region opens at a line ending in '{' (its arguments, an scf.for's induction variable and
    iter_args or an execute's 'as' names, defined inside) and closes at a line starting '}'."""
    scopes, seen, out = [{}], {}, []

    def define(name, scope):
        n = seen.get(name, 0)
        seen[name] = n + 1
        scope[name] = name if n == 0 else f"{name}__{n}"

    def use(m):
        tok = m.group(0)
        base, _, k = tok.partition("#")
        for sc in reversed(scopes):
            if base in sc:
                return sc[base] + (f"#{k}" if k else "")
        return tok

    for line in lines:
        s = line.strip()
        if s.startswith("}") and len(scopes) > 1:
            scopes.pop()
        lhs = _DEF.match(line)
        head, body = (line[:lhs.end()], line[lhs.end():]) if lhs else ("", line)
        opens = s.endswith("{")
        inner = {}
        if opens:
            for m in re.finditer(r"scf\.for (%[\w$.-]+) = |[(,] *(%[\w$.-]+) = |"
                                 r" as (%[\w$.-]+):", body):
                define(next(g for g in m.groups() if g), inner)
        # uses first (a line never uses what it defines), with the region's own names hidden
        body = SSA.sub(lambda m: use(m) if m.group(0).partition("#")[0] not in inner
                       else inner[m.group(0).partition("#")[0]]
                       + ("#" + m.group(0).partition("#")[2] if "#" in m.group(0) else ""),
                       body)
        if lhs:
            for part in lhs.group(1).split(","):
                define(part.strip().split(":")[0], scopes[-1])
            head = SSA.sub(use, head)
        out.append(head + body)
        if opens:
            scopes.append(inner)
    return out


def _merged(ranges, size):
    """Byte ranges (lo, hi) clipped to [0, size), sorted and joined where they meet."""
    out = []
    for lo, hi in sorted((max(0, lo), min(size, hi)) for lo, hi in ranges):
        if hi <= lo:
            continue
        if out and lo <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _printed(text):
    """SSA names as the printer wrote them (without unique_names' __n)."""
    return re.sub(r"(%[\w$.-]+?)__\d+", r"\1", text)


def read_plan(before, after, module=None):
    """The trace's regions, values, ops and loops from the two dumps of the entry function."""
    before, after = unique_names(before), unique_names(after)
    offsets = pack_offsets(before, after)
    r = _Reader(before, offsets, dispatch.parse(module) if module else None)
    r.run()
    if r.group is not None:
        r.fail("an unclosed concurrent block")
    for op in r.ops:  # a word's steps name the capture's loops: the trace's loops by index
        for w in op["words"]:
            for st in w.get("steps", ()):
                st["loop"] = r.loop_pos[st["loop"]]
    outs = []
    for name in r.exports:
        v = r.views[name]
        vid = r.view_value(v)
        if vid is None:
            r.fail(f"an export of the packed resource {name} whole")
        if vid not in outs:
            outs.append(vid)
    r.emit("readback", outs, [], [{"value": v, "offset": 0} for v in outs
                                  if r.values[v]["size"]], "host")
    # A resource imported and then written is no weight: uploaded first, it is io.
    uploaded = []
    for op in r.ops:
        for w in op["writes"] + [u["to"] for u in op["updates"]]:
            v = r.values[w]
            reg = r.regions[v["region"]]
            if reg["kind"] in ("weights", "constants"):
                reg["kind"], reg["role"] = "io", reg["role"] + " (written: donated)"
                v["whole_program"] = False
                uploaded.append(w)
    if uploaded:
        r.ops.insert(0, {"kernel": "upload", "reads": [], "writes": uploaded, "updates": [],
                         "words": [{"value": w, "offset": 0} for w in uploaded], "kind": "host"})
        for l in r.loops:
            l["first"] += 1
    return r


def _peak(r):
    """IREE's own size: the most bytes of packed transients held at once, each pack held from
    its region's first op to its last (in written order)."""
    span = {}
    for i, op in enumerate(r.ops):
        for vid in op["reads"] + op["writes"] + [u["to"] for u in op["updates"]]:
            reg = r.values[vid]["region"]
            if r.regions[reg]["kind"] == "arena":
                lo, hi = span.get(reg, (i, i))
                span[reg] = (min(lo, i), max(hi, i))
    # A pack used inside a loop and outside it is held across the whole loop (its alloca is
    # outside): its span covers every loop it enters or leaves.
    changed = True
    while changed:
        changed = False
        for reg, (lo, hi) in span.items():
            for l in r.loops:
                f, e = l["first"], l["first"] + l["count"] - 1
                nlo = f if lo > f and lo <= e < hi else lo
                nhi = e if hi < e and lo < f <= hi else hi
                if (nlo, nhi) != (lo, hi):
                    span[reg], changed = (nlo, nhi), True
                    lo, hi = nlo, nhi
    peak = 0
    for i in range(len(r.ops)):
        peak = max(peak, sum(r.regions[g]["size"] for g, (lo, hi) in span.items()
                             if lo <= i <= hi))
    return peak


def _lower(fn, args, donate_argnums):
    import jax

    jitted = fn if hasattr(fn, "lower") else jax.jit(fn, donate_argnums=donate_argnums)
    try:
        return jitted.lower(*args).as_text()
    except Exception as e:  # jax raises many kinds: say what failed, not a traceback
        raise ExportError(f"jax could not lower the function: {type(e).__name__}: "
                          f"{str(e).splitlines()[0] if str(e) else ''}")


def capture(fn, args, name=None, donate_argnums=(), shapes=None, flags=None):
    """The arena-trace/1 (a dict) of what IREE planned for fn(*args); fn may be jitted already.
    Raises ExportError for what the trace cannot express or IREE cannot compile."""
    start = time.perf_counter()
    text = _lower(fn, args, donate_argnums)
    lowered = time.perf_counter()
    before, after, module = compile_dumps(text)
    compiled = time.perf_counter()
    return trace_of_dumps(before, after, name or getattr(fn, "__name__", "function"),
                          shapes if shapes is not None else _arg_shapes(args), flags,
                          {"lower_seconds": round(lowered - start, 3),
                           "iree_compile_seconds": round(compiled - lowered, 3)}, module)


def trace_of_dumps(before, after, name, shapes=None, flags=None, extra=None, module=None):
    """The trace from the two dumps of @main and the module text holding its executables
    (compile_dumps; without it, what a dispatch reads inside a value it updates is undecided)."""
    r = read_plan(before, after, module)
    values = [v for v in r.values.values()]
    used = {v["region"] for v in values}
    regions = []
    for n in r.region_order:
        g = r.regions[n]
        if n not in used:
            continue
        if g["size"] is None:
            raise ExportError(f"region {n} ({g['role']}): its size is never said")
        regions.append({k: g[k] for k in ("name", "kind", "size", "planned_size") if k in g})
    align = ALIGNMENT_CAP
    for v in values:
        while v["size"] and v["offset"] % align:
            align //= 2
    ops = [{k: o[k] for k in ("kernel", "reads", "writes", "updates", "words")} for o in r.ops]
    for o in ops:
        if not o["updates"]:
            del o["updates"]
    kinds = {}
    for o in r.ops:
        kinds[o["kind"]] = kinds.get(o["kind"], 0) + 1
    arena = [g for g in r.regions.values() if g["kind"] == "arena" and g["name"] in used]
    launches = sum(1 for o in r.ops if o["kind"] in ("dispatch", "copy", "fill", "concurrent"))
    return {
        "format": "arena-trace/1",
        "runtime": {"name": "iree", "version": f"iree-base-compiler "
                                               f"{versions().get('iree-base-compiler', '?')}",
                    "target": "llvm-cpu (local)", "packages": versions()},
        "program": {"name": name, "shapes": shapes or {}, "flags": dict(flags or {})},
        "capture": {
            "source": "iree-compile --compile-to=stream, @main printed before and after "
                      "iree-stream-layout-slices",
            "iree_pack_peak": _peak(r),
            "iree_pack_sum": sum(g["size"] for g in arena),
            "packed_transients": len(arena),
            "launches_written": launches,
            "ops_by_kind": dict(sorted(kinds.items())),
            "in_place": sum(len(o["updates"]) for o in r.ops if o["kind"] != "loop-state"),
            "region_roles": {g["name"]: g["role"] for g in r.regions.values()
                             if g["name"] in used},
            "offsets_undecided_at": r.undecided[:UNDECIDED_LISTED],
            "reads_undecided_at": r.ranges_undecided[:UNDECIDED_LISTED],
            **r.counts, **(extra or {}),
        },
        "alignment": align,
        "regions": regions,
        "values": sorted(values, key=lambda v: (v["region"], v["offset"], v["id"])),
        "ops": ops,
        "loops": r.loops,
    }


def _arg_shapes(args):
    import jax

    leaves = jax.tree_util.tree_leaves_with_path(args)
    return {jax.tree_util.keystr(p) or "arg": f"{getattr(x, 'dtype', type(x).__name__)}"
            f"{list(getattr(x, 'shape', ()))}" for p, x in leaves}


def export(fn, args, name=None, out=None, fault_rule=None, fault_seed=0, fault_kind=None,
           donate_argnums=(), flags=None):
    """The Python call: fn (jitted or not) on args, compiled by IREE, as an arena-plan/1 (a
    dict), written to out if given. Raises ExportError or common.TraceError."""
    import common

    start = time.perf_counter()
    raw = capture(fn, args, name=name, donate_argnums=donate_argnums, flags=flags)
    plan, t = common.export(raw, fault_rule, fault_seed, fault_kind)
    prob = common.problem(t)
    plan["meta"]["placement"] = {k: prob[k] for k in ("planned_size", "max_live", "order")}
    plan["meta"]["placement"]["rows"] = len(prob["rows"])
    plan["meta"]["placement"]["buffers"] = len(prob["buffers"])
    plan["meta"]["export_seconds"] = round(time.perf_counter() - start, 3)
    if out:
        from common.cli import write

        write(out, json.dumps(plan) + "\n")
    return plan
