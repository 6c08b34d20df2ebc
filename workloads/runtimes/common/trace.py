"""Reading and validating an arena-trace/1 (TRACE.md): structure, ids, bytes, loops; then the
lifetimes, computed once here (never judged: the certificate judges the plan) and handed to the
plan, the faults and the placement problem.

Lifetimes come from the executed order with every loop cut to at most three iterations (first,
middle, last): addresses repeat every iteration and a read always sees the latest write, so
every pair of values live at once, and every live set, already shows in that sequence.
"""

import hashlib
import json

FORMAT = "arena-trace/1"
REGION_KINDS = ("arena", "weights", "constants", "kv", "io", "scratch", "dynamic")
REGION_STRIDE = 0x100000000000  # region i lands at REGION_STRIDE * (i + 1) in the plan
UNROLL = 3
LABEL_IN_NAME = 80  # characters of a label kept in a plane's name or a phase's id


class TraceError(Exception):
    """A bad trace: the message says what and where (JSON path, op index, value id)."""


def _int(x, path, signed=False):
    if isinstance(x, bool):
        raise TraceError(f"{path}: expected an integer, got {json.dumps(x)}")
    if isinstance(x, int):
        v = x
    elif isinstance(x, str) and (x.startswith("0x") or (signed and x.startswith("-0x"))):
        try:
            v = int(x, 16)
        except ValueError:
            raise TraceError(f"{path}: {x!r} is not a hex integer")
    else:
        raise TraceError(f"{path}: expected an integer, got {json.dumps(x)[:60]}")
    if not signed and v < 0:
        raise TraceError(f"{path}: {v} is negative")
    if v >= 1 << 63 or v < -(1 << 63):
        raise TraceError(f"{path}: {v} does not fit in 63 bits")
    return v


def _get(obj, key, path, kind, required=True, default=None):
    if not isinstance(obj, dict):
        raise TraceError(f"{path}: expected an object")
    if key not in obj or obj[key] is None:
        if required:
            raise TraceError(f"{path}.{key}: missing")
        return default
    v = obj[key]
    if kind is int:
        return _int(v, f"{path}.{key}")
    if kind is str and not isinstance(v, str):
        raise TraceError(f"{path}.{key}: expected a string")
    if kind is list and not isinstance(v, list):
        raise TraceError(f"{path}.{key}: expected an array")
    if kind is dict and not isinstance(v, dict):
        raise TraceError(f"{path}.{key}: expected an object")
    if kind is bool and not isinstance(v, bool):
        raise TraceError(f"{path}.{key}: expected true or false")
    return v


def digest(trace):
    """sha256 of the trace's canonical JSON (sorted keys, no spaces)."""
    text = json.dumps(trace, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class Trace:
    """A validated trace. Fields: raw, alignment, regions (list of dicts with index, window
    base), values (id -> dict with region index, offset, size, whole_program, cls), ops (list of
    dicts: kernel, reads, writes, updates (from, to), update_ranges (from -> {"reads", "writes"}:
    byte ranges (offset, size) of the value, None where absent), words), loops (merged, sorted), and the
    lifetimes: seq = op indices in executed order (loops cut), intervals[id] = [start, end]
    positions in seq where the value is live, and executed = launches executed."""


def load(path):
    try:
        with open(path) as f:
            text = f.read()
    except OSError as e:
        raise TraceError(f"{path}: cannot read it: {e.strerror}")
    try:
        return json.loads(text)
    except ValueError as e:
        raise TraceError(f"{path}: not JSON: {e}")


def validate(raw):
    """The trace checked and indexed (a Trace); raises TraceError on the first bad thing."""
    if not isinstance(raw, dict):
        raise TraceError("trace: expected a JSON object")
    fmt = _get(raw, "format", "trace", str)
    if fmt != FORMAT:
        raise TraceError(f"trace.format: {fmt!r}, expected {FORMAT!r}")
    t = Trace()
    t.raw = raw
    t.runtime = _get(raw, "runtime", "trace", dict)
    t.program = _get(raw, "program", "trace", dict)
    _get(t.runtime, "name", "trace.runtime", str)
    _get(t.program, "name", "trace.program", str)
    t.capture = _get(raw, "capture", "trace", dict, required=False, default={})
    a = _get(raw, "alignment", "trace", int)
    if a < 1 or a & (a - 1):
        raise TraceError(f"trace.alignment: {a} is not a power of two")
    t.alignment = a

    t.regions, by_name = [], {}
    for i, r in enumerate(_get(raw, "regions", "trace", list)):
        p = f"trace.regions[{i}]"
        name = _get(r, "name", p, str)
        if name in by_name:
            raise TraceError(f"{p}.name: region {name!r} declared twice")
        kind = _get(r, "kind", p, str)
        if kind not in REGION_KINDS:
            raise TraceError(f"{p}.kind: {kind!r}, expected one of {', '.join(REGION_KINDS)}")
        size = _get(r, "size", p, int)
        if size >= REGION_STRIDE:
            raise TraceError(f"{p}.size: {size} bytes, more than the {REGION_STRIDE} a region may")
        reg = {
            "index": i,
            "name": name,
            "kind": kind,
            "base": _get(r, "base", p, int, required=False, default=0),
            "size": size,
            "planned_size": _get(r, "planned_size", p, int, required=False),
            "window": _get(r, "window", p, bool, required=False, default=True),
            "plan_base": REGION_STRIDE * (i + 1),
        }
        by_name[name] = reg
        t.regions.append(reg)

    t.values = {}
    for i, v in enumerate(_get(raw, "values", "trace", list)):
        p = f"trace.values[{i}]"
        vid = _get(v, "id", p, str)
        p = f"value {vid!r} (trace.values[{i}])"
        if vid in t.values:
            raise TraceError(f"{p}: id declared twice")
        rname = _get(v, "region", p, str)
        if rname not in by_name:
            raise TraceError(f"{p}.region: no region named {rname!r}")
        reg = by_name[rname]
        off = _get(v, "offset", p, int)
        size = _get(v, "size", p, int)
        if off + size > reg["size"]:
            raise TraceError(
                f"{p}: bytes [{off}, {off + size}) run past region {rname!r} ({reg['size']} bytes)"
            )
        whole = _get(v, "whole_program", p, bool, required=False, default=False)
        if size and reg["window"] and off % a:
            raise TraceError(f"{p}.offset: {off} is not a multiple of the alignment {a}")
        label = _get(v, "label", p, str, required=False)
        t.values[vid] = {
            "id": vid,
            "index": i,
            "region": reg["index"],
            "offset": off,
            "size": size,
            "whole_program": whole,
            "label": label,
            "plane": _named(vid, label),
        }
    planes = {}
    for v in t.values.values():
        if v["plane"] in planes:
            raise TraceError(
                f"values {planes[v['plane']]!r} and {v['id']!r} would both be named "
                f"{v['plane']!r} in the plan (id and label): change an id"
            )
        planes[v["plane"]] = v["id"]

    t.ops = []
    for k, o in enumerate(_get(raw, "ops", "trace", list)):
        t.ops.append(_op(t, k, o))
    if not t.ops:
        raise TraceError("trace.ops: no ops (a plan needs at least one launch)")
    t.loops = _loops(raw, len(t.ops))
    from . import steps  # words that move with their loops (steps.py)

    steps.check(t)
    _globals(t)
    _classes(t)
    _lifetimes(t)
    return t


def _named(vid, label):
    """A plane's name in the plan: the id, then the runtime's own name (the label, cut to
    LABEL_IN_NAME characters) in parentheses: unique as ids are, and findable in the runtime."""
    if not label:
        return vid
    label = " ".join(label.split())
    if len(label) > LABEL_IN_NAME:
        label = label[: LABEL_IN_NAME - 1] + "…"
    return f"{vid} ({label})"


def planned(t, vid):
    """Whether a value becomes a plane: not a whole-program value, not empty, in a window."""
    v = t.values[vid]
    return not v["whole_program"] and v["size"] > 0 and t.regions[v["region"]]["window"]


def _op(t, k, o):
    p = f"op {k} (trace.ops[{k}])"
    kernel = _get(o, "kernel", p, str)
    p = f"op {k} ({kernel})"

    def ids(key):
        out = []
        for j, vid in enumerate(_get(o, key, p, list, required=False, default=[])):
            if not isinstance(vid, str):
                raise TraceError(f"{p}.{key}[{j}]: expected a value id (a string)")
            if vid not in t.values:
                raise TraceError(f"{p}.{key}[{j}]: unknown value {vid!r}")
            if vid not in out:
                out.append(vid)
        return out

    reads, writes = ids("reads"), ids("writes")
    updates, ranges = [], {}
    for j, u in enumerate(_get(o, "updates", p, list, required=False, default=[])):
        q = f"{p}.updates[{j}]"
        f, to = _get(u, "from", q, str), _get(u, "to", q, str)
        for vid in (f, to):
            if vid not in t.values:
                raise TraceError(f"{q}: unknown value {vid!r}")
        vf, vt = t.values[f], t.values[to]
        if (vf["region"], vf["offset"], vf["size"]) != (vt["region"], vt["offset"], vt["size"]):
            raise TraceError(
                f"{q}: in-place update from {f!r} to {to!r} on different bytes "
                f"({_where(t, vf)} vs {_where(t, vt)}): an update keeps the region, offset and size"
            )
        if vf["whole_program"] or vt["whole_program"]:
            raise TraceError(
                f"{q}: in-place update of a whole-program value ({f!r} -> {to!r}): "
                "write the global instead (writes)"
            )
        if any(f == x for x, _ in updates) or any(to == y for _, y in updates):
            raise TraceError(f"{q}: value {f!r} or {to!r} is in two updates of one op")
        updates.append((f, to))
        rr = {key: _ranges(u, key, q, f, vf["size"]) for key in ("reads", "writes")}
        if rr["reads"] is not None or rr["writes"] is not None:
            ranges[f] = rr
    ufrom = {f for f, _ in updates}
    uto = {y for _, y in updates}
    for vid in reads:
        if vid in writes and vid not in ufrom:
            raise TraceError(
                f"{p}: value {vid!r} is both read and written: say the in-place write "
                f'in updates ({{"from": "{vid}", "to": "{vid}"}})'
            )
    reads = reads + [f for f in ufrom if f not in reads]
    writes = [w for w in writes if w not in ufrom or w in uto] + [y for y in uto if y not in writes]
    for f in ufrom:
        if f in writes and f not in uto:
            raise TraceError(f"{p}: value {f!r} is updated in place and also written fresh")
    words, steps = None, {}
    if "words" in o and o["words"] is not None:
        words = []
        for j, w in enumerate(_get(o, "words", p, list)):
            q = f"{p}.words[{j}]"
            if isinstance(w, dict):
                vid = _get(w, "value", q, str)
                if vid not in t.values:
                    raise TraceError(f"{q}: unknown value {vid!r}")
                off = _get(w, "offset", q, int, required=False, default=0)
                v = t.values[vid]
                if v["size"] and not off < v["size"]:
                    raise TraceError(
                        f"{q}: offset {off} lies outside value {vid!r} ({v['size']} bytes)"
                    )
                if not v["whole_program"] and vid not in reads and vid not in writes:
                    raise TraceError(
                        f"{q}: names value {vid!r}, which the op neither reads nor writes"
                    )
                words.append((vid, off))
                if w.get("steps") is not None:
                    steps[j] = w["steps"]
            else:
                words.append(_int(w, q))
    label = _get(o, "label", p, str, required=False)
    if label:
        label = " ".join(label.split())
        if len(label) > LABEL_IN_NAME:
            label = label[: LABEL_IN_NAME - 1] + "…"
    return {
        "index": k,
        "kernel": kernel,
        "label": label,
        "reads": reads,
        "writes": writes,
        "updates": updates,
        "update_ranges": ranges,
        "words": words,
        "steps_raw": steps,
    }


def _ranges(u, key, q, vid, size):
    """An update's `reads` or `writes`: byte ranges of the updated value (None: absent, the
    contract's default; [] nothing), each at least one byte and inside the value."""
    if key not in u or u[key] is None:
        return None
    q = f"{q}.{key}"
    if not isinstance(u[key], list):
        raise TraceError(f"{q}: expected an array of {{offset, size}} byte ranges of value {vid!r}")
    out = []
    for j, r in enumerate(u[key]):
        p = f"{q}[{j}]"
        if not isinstance(r, dict):
            raise TraceError(f"{p}: expected an object {{offset, size}} (a byte range of value {vid!r})")
        try:
            off, n = _get(r, "offset", p, int), _get(r, "size", p, int)
        except TraceError as e:
            raise TraceError(f"{e} (a byte range of value {vid!r})")
        if n < 1:
            raise TraceError(f"{p}: size {n}: a range of value {vid!r} holds at least one byte")
        if off + n > size:
            raise TraceError(
                f"{p}: bytes [{off}, {off + n}) run past value {vid!r} ({size} bytes)"
            )
        out.append((off, n))
    return out


def _where(t, v):
    return f"{t.regions[v['region']]['name']}+{v['offset']}, {v['size']} B"


def _loops(raw, n):
    loops = []
    for i, lp in enumerate(_get(raw, "loops", "trace", list, required=False, default=[])):
        p = f"loop {i} (trace.loops[{i}])"
        first, count = _get(lp, "first", p, int), _get(lp, "count", p, int)
        it = _get(lp, "iterations", p, int)
        if count < 1 or it < 1:
            raise TraceError(f"{p}: count {count} and iterations {it} must be at least 1")
        if first + count > n:
            raise TraceError(f"{p}: ops [{first}, {first + count}) run past the {n} ops")
        loops.append({"first": first, "count": count, "iterations": it, "index": i})
    merged = {}
    for lp in loops:  # the same range twice is one loop run the product of their iterations
        key = (lp["first"], lp["count"])
        if key in merged:
            merged[key]["iterations"] *= lp["iterations"]
            merged[key]["merged"] = merged[key].get("merged", 1) + 1
        else:
            merged[key] = dict(lp)
    loops = sorted(merged.values(), key=lambda l: (l["first"], -l["count"]))
    for i, a in enumerate(loops):
        for b in loops[i + 1 :]:
            a0, a1, b0, b1 = a["first"], a["first"] + a["count"], b["first"], b["first"] + b["count"]
            if b0 < a1 and not (b1 <= a1):
                raise TraceError(
                    f"loop {a['index']} (ops [{a0}, {a1})) and loop {b['index']} "
                    f"(ops [{b0}, {b1})) overlap without nesting"
                )
    return loops


def _globals(t):
    gl = [v for v in t.values.values() if v["whole_program"] and v["size"] > 0]
    span = sorted((v["region"], v["offset"], v["offset"] + v["size"], v["id"]) for v in gl)
    for (r0, _, e0, a), (r1, s1, _, b) in zip(span, span[1:]):
        if r0 == r1 and s1 < e0:
            raise TraceError(f"whole-program values {a!r} and {b!r} share bytes")
    t.globals = [v["id"] for v in sorted(gl, key=lambda v: v["index"])]
    # A value on a global's bytes would be a plane over a global: rule (B) forbids it.
    for v in t.values.values():
        if v["whole_program"] or not v["size"]:
            continue
        for g in gl:
            if g["region"] == v["region"] and _meets(g, v):
                raise TraceError(
                    f"value {v['id']!r} lies on the bytes of whole-program value {g['id']!r}"
                )


def _meets(a, b):
    return a["offset"] < b["offset"] + b["size"] and b["offset"] < a["offset"] + a["size"]


def _classes(t):
    """Values joined by in-place updates share their bytes for good: one class (placement row)."""
    parent = {vid: vid for vid in t.values}

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for o in t.ops:
        for f, to in o["updates"]:
            parent[find(to)] = find(f)
    for vid, v in t.values.items():
        v["cls"] = find(vid)


def executed_sequence(t, cap=None):
    """Op indices in executed order, each loop run min(iterations, cap) times (cap None: all)."""
    loops = t.loops

    def run(lo, hi, enclosing):
        out, k = [], lo
        inner = [l for l in loops if lo <= l["first"] and l["first"] + l["count"] <= hi
                 and l is not enclosing]
        while k < hi:
            here = [l for l in inner if l["first"] == k and not any(
                m is not l and m["first"] <= l["first"] and l["first"] + l["count"]
                <= m["first"] + m["count"] and m["count"] > l["count"] for m in inner)]
            if here:
                l = max(here, key=lambda l: l["count"])
                body = run(l["first"], l["first"] + l["count"], l)
                n = l["iterations"] if cap is None else min(l["iterations"], cap)
                out.extend(body * n)
                k = l["first"] + l["count"]
            else:
                out.append(k)
                k += 1
        return out

    return run(0, len(t.ops), None)


def executed_count(t):
    """Launches executed: each op times the product of its enclosing loops' iterations."""
    total = 0
    for k in range(len(t.ops)):
        m = 1
        for l in t.loops:
            if l["first"] <= k < l["first"] + l["count"]:
                m *= l["iterations"]
        total += m
    return total


def _lifetimes(t):
    """Each value's runs in the capped executed order, first write to last read, as recorded:
    nothing here judges them. A read of a value updated away, of one never written, or two values
    live at once on shared bytes is the plan's to show and the certificate's to decide (rule B or
    D); the trace layer records what the runtime did, however wrong."""
    seq = executed_sequence(t, UNROLL)
    t.executed = executed_count(t)
    intervals = {}  # value id -> list of [start, end] in sequence positions
    for pos, k in enumerate(seq):
        o = t.ops[k]
        ufrom = {f: to for f, to in o["updates"]}
        for vid in o["reads"]:
            if t.values[vid]["whole_program"]:
                continue
            if vid in intervals:
                intervals[vid][-1][1] = pos
            else:  # read before any write: its run starts at the read
                intervals[vid] = [[pos, pos]]
        for vid in o["writes"]:
            if t.values[vid]["whole_program"]:
                continue
            if ufrom.get(vid) == vid:
                intervals[vid][-1][1] = pos  # in place, same name: the value goes on
                continue
            intervals.setdefault(vid, []).append([pos, pos])
    t.seq = seq
    t.intervals = intervals


def first_instance(t, k):
    """The executed phase instance (CERTIFICATE.md rule D: a maximal run of consecutive launches
    of one phase; here a phase per op) at which op k first runs: the instances before its first
    launch, counted over the whole schedule with every loop run in full (exact integers, no
    unrolling: a loop adds iterations x its body's instances, less one at each back edge where
    the body's last launch and its first are one op). None if op k never runs."""
    loops = t.loops

    def walk(lo, hi, enclosing):
        # (instances, first op, last op, instances before op k's first launch or None)
        n, first, last, before = 0, None, None, None
        inner = [l for l in loops if lo <= l["first"] and l["first"] + l["count"] <= hi
                 and l is not enclosing]
        i = lo
        while i < hi:
            here = [l for l in inner if l["first"] == i]
            if here:
                l = max(here, key=lambda l: l["count"])
                bn, bf, bl, bb = walk(l["first"], l["first"] + l["count"], l)
                it = l["iterations"]
                seg = (it * bn - (it - 1) * (bl == bf), bf, bl, bb)
                i = l["first"] + l["count"]
            else:
                seg = (1, i, i, 0 if i == k else None)
                i += 1
            sn, sf, sl, sb = seg
            if sn == 0:
                continue
            join = 1 if last is not None and last == sf else 0
            if before is None and sb is not None:
                before = n - join + sb if sb else n
            n, last = n + sn - join, sl
            first = sf if first is None else first
        return n, first, last, before

    return walk(0, len(t.ops), None)[3]
