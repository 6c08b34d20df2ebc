"""Words that move with their loops (TRACE.md, "steps"): a word's offset inside its value may
change from one iteration to the next (a KV-cache row at the token's position, a layer's slice of
a stacked buffer), as a delta per iteration or an offset per iteration of an enclosing loop. The
value (its plane) stays where it is; only the word moves, and it must stay inside the value at
every iteration. Checked here once the loops are read; planned as each repeat's `deltas`, or its
`frames` where a step is not a delta (CERTIFICATE.md section 1).
"""

from .trace import TraceError, _int

FRAMES_LIMIT = 1 << 20  # iterations a repeat's frames may list


def check(t):
    """Validate every word's steps against the trace's loops (raw indices; TRACE.md) and keep
    them as op["steps"] = {word index: [(raw loop index, delta or None, offsets or None)]}."""
    raw = t.raw.get("loops") or []
    for o in t.ops:
        given = o.pop("steps_raw", {})
        o["steps"] = {}
        for j, st in given.items():
            q = f"op {o['index']} ({o['kernel']}).words[{j}].steps"
            if not isinstance(st, list):
                raise TraceError(f"{q}: expected an array")
            vid, off = o["words"][j]
            size = t.values[vid]["size"]
            out, seen = [], set()
            lo = hi = off
            first_past = None
            for n, s in enumerate(st):
                p = f"{q}[{n}]"
                if not isinstance(s, dict):
                    raise TraceError(f"{p}: expected an object")
                li = _int(s.get("loop"), f"{p}.loop") if "loop" in s else None
                if li is None:
                    raise TraceError(f"{p}.loop: missing")
                if li >= len(raw):
                    raise TraceError(f"{p}.loop: {li}, but the trace has {len(raw)} loops")
                lp = raw[li]
                first, count, it = lp["first"], lp["count"], lp["iterations"]
                first, count, it = (_int(x, f"trace.loops[{li}]") for x in (first, count, it))
                if not first <= o["index"] < first + count:
                    raise TraceError(f"{p}.loop: loop {li} (ops [{first}, {first + count})) "
                                     f"does not run op {o['index']}")
                if li in seen:
                    raise TraceError(f"{p}.loop: loop {li} named twice")
                seen.add(li)
                has_d, has_o = s.get("delta") is not None, s.get("offsets") is not None
                if has_d == has_o:
                    raise TraceError(f"{p}: expected exactly one of delta and offsets")
                if has_d:
                    d = _int(s["delta"], f"{p}.delta", signed=True)
                    shifts = (0, d * (it - 1))
                    out.append((li, d, None))
                    desc = f"{d} x the iteration of loop {li}"
                else:
                    offs = s["offsets"]
                    if not isinstance(offs, list) or len(offs) != it:
                        raise TraceError(f"{p}.offsets: expected {it} offsets (loop {li}'s "
                                         f"iterations), got "
                                         f"{len(offs) if isinstance(offs, list) else offs!r}")
                    offs = [_int(x, f"{p}.offsets[{i}]", signed=True) for i, x in enumerate(offs)]
                    shifts = (min(offs), max(offs))
                    out.append((li, None, offs))
                    desc = f"loop {li}'s offsets"
                lo, hi = lo + min(shifts), hi + max(shifts)
                if first_past is None and (off + min(shifts) < 0 or
                                           (size and off + max(shifts) >= size)):
                    first_past = _first_past(off, size, out[-1], it, desc)
            if size and (lo < 0 or hi >= size):
                why = first_past or f"it ranges over [{lo}, {hi}]"
                raise TraceError(f"{q}: the word leaves value {vid!r} ({size} bytes): {why}")
            if out:
                o["steps"][j] = out


def _first_past(off, size, step, it, desc):
    _, d, offs = step
    for i in range(it):
        x = off + (d * i if offs is None else offs[i])
        if x < 0 or x >= size:
            return f"offset {off} + {desc} is {x} at iteration {i}"
    return None


def _raw_of(t, loop):
    """The raw loops (trace.loops indices) merged into a plan repeat, the innermost first (the
    order listed: a capture closes an inner loop before the one around it)."""
    raw = t.raw.get("loops") or []
    return [i for i, l in enumerate(raw)
            if (_int(l["first"], "loop"), _int(l["count"], "loop")) ==
            (loop["first"], loop["count"])]


def plan_word(t, o, j):
    """A trace word's index among its launch's words in the plan (words on zero-size values
    are dropped there)."""
    return sum(1 for w in o["words"][:j] if isinstance(w, int) or t.values[w[0]]["size"] > 0)


def moves(t, loop):
    """The repeat's {"deltas": [...]} or {"frames": [...]} for a loop of the validated trace."""
    raws = _raw_of(t, loop)
    digits = [_int((t.raw["loops"][i])["iterations"], "loop") for i in raws]
    n = loop["iterations"]
    entries = []  # (launch, word, delta or None, per-iteration shifts or None)
    for o in t.ops[loop["first"]:loop["first"] + loop["count"]]:
        for j, st in sorted(o.get("steps", {}).items()):
            mine = {li: (d, offs) for li, d, offs in st if li in raws}
            if not mine:
                continue
            w = plan_word(t, o, j)
            if len(raws) == 1:
                d, offs = mine[raws[0]]
                entries.append((o["index"], w, d, offs))
                continue
            if n > FRAMES_LIMIT:
                raise TraceError(f"loop {raws}: {n} iterations of merged loops with a moving "
                                 f"word (op {o['index']}): more than {FRAMES_LIMIT} frames")
            shifts = []
            for m in range(n):
                total, rest = 0, m
                for li, it in zip(raws, digits):
                    i, rest = rest % it, rest // it
                    d, offs = mine.get(li, (0, None))
                    total += d * i if offs is None else offs[i]
                shifts.append(total)
            if all(x == m * shifts[1 % n] for m, x in enumerate(shifts)):
                entries.append((o["index"], w, shifts[1 % n] if n > 1 else 0, None))
            else:
                entries.append((o["index"], w, None, shifts))
    if all(offs is None for _, _, _, offs in entries):
        return {"deltas": [{"launch": k, "word": w, "delta": d}
                           for k, w, d, _ in entries if d]}
    if n > FRAMES_LIMIT:
        raise TraceError(f"loop over ops [{loop['first']}, {loop['first'] + loop['count']}): "
                         f"{n} iterations with a word given per iteration: more than "
                         f"{FRAMES_LIMIT} frames")
    frames = []
    for i in range(n):
        frame = []
        for k, w, d, offs in entries:
            x = d * i if offs is None else offs[i]
            if x:
                frame.append({"launch": k, "word": w, "offset": x})
        frames.append(frame)
    return {"frames": frames}


def count(t):
    """Words that move, for the plan's meta."""
    return sum(len(o.get("steps", {})) for o in t.ops)
