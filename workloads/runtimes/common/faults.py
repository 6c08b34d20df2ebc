"""Planted faults, each with the verdict class the certificate must give (meta.fault):
  move     a value (with its in-place class) onto the bytes of another live at the same time:
           B when the two (or what it now covers) meet in one phase, else D;
  inplace  an op made to write its output over an input a later op still reads (becomes): D;
  word     a launch's address word moved into its window, off every plane of its phase and
           every global: C, verdict exactly 2 + launch;
  reads    an in-place update made to read across elements the bytes it writes (`reads` set to
           its `writes`, the whole value where it writes all): D at the first executed instance
           of its phase, verdict exactly 2 + launches + that instance on a plan that was clean.
The seed picks the candidate (seed modulo their number, then the next that gives the class).
"""

from .plan import address, phase_planes, phase_id, to_plan
from .trace import TraceError, first_instance, planned

KINDS = {"B": "move", "C": "word", "D": "inplace"}
FAULT_KINDS = ("move", "inplace", "word", "reads")
TRIES = 256


def _b_breaks(plan):
    gl = [(int(g["base"], 16), int(g["base"], 16) + g["size"]) for g in plan["globals"]]
    for k, ph in enumerate(plan["phases"]):
        rs = sorted((int(p["base"], 16), int(p["base"], 16) + p["size"]) for p in ph["planes"])
        for (_, e0), (s1, _) in zip(rs, rs[1:]):
            if s1 < e0:
                return k
        for s, e in rs:
            if any(s < ge and gs < e for gs, ge in gl):
                return k
    return None


def _live_pairs(t):
    """(a, b) value ids live at once somewhere in the capped executed order, a before b."""
    ivs = sorted(
        (s, e, vid) for vid, xs in t.intervals.items() if planned(t, vid) for s, e in xs
    )
    pairs, active = set(), []
    for s, e, vid in ivs:
        active = [x for x in active if x[1] >= s]
        for _, _, w in active:
            if w != vid and t.values[w]["region"] == t.values[vid]["region"]:
                pairs.add((w, vid))
        active.append((s, e, vid))
    order = {vid: v["index"] for vid, v in t.values.items()}
    return sorted(pairs, key=lambda p: (order[p[0]], order[p[1]]))


def _members(t, vid):
    c = t.values[vid]["cls"]
    return [w for w, v in t.values.items() if v["cls"] == c]


def _set_offset(t, vid, off):
    for w in _members(t, vid):
        t.values[w]["offset"] = off


def _move_candidates(t):
    out = []
    for a, b in _live_pairs(t):
        for x, y in ((a, b), (b, a)):
            vx, vy = t.values[x], t.values[y]
            if vx["cls"] == vy["cls"] or vx["offset"] == vy["offset"]:
                continue
            if vy["offset"] + vx["size"] > t.regions[vx["region"]]["size"]:
                continue
            out.append((x, y))
    return out


def _inplace_candidates(t):
    first_pos = {}
    for pos, k in enumerate(t.seq):
        first_pos.setdefault(k, pos)
    out = []
    for o in t.ops:
        pos = first_pos.get(o["index"])
        if pos is None:
            continue
        ufrom = {f for f, _ in o["updates"]}
        uto = {y for _, y in o["updates"]}
        for x in o["reads"]:
            if not planned(t, x) or x in ufrom:
                continue
            later = any(s <= pos < e for s, e in t.intervals.get(x, []))
            if not later:
                continue
            for y in o["writes"]:
                if not planned(t, y) or y in uto or y == x:
                    continue
                vx, vy = t.values[x], t.values[y]
                if vx["region"] != vy["region"] or vx["size"] != vy["size"]:
                    continue
                out.append((o["index"], x, y))
    return out


def plant(t, rule="any", seed=0, kind=None):
    """Plant one fault into validated Trace t (changed in place); returns (plan, fault meta).
    rule: any|B|C|D, the class wanted; kind: move|inplace|word (default from the rule)."""
    if seed < 0:
        raise TraceError(f"fault seed {seed}: must be at least 0")
    if rule not in ("any", "B", "C", "D"):
        raise TraceError(f"fault rule {rule!r}: expected any, B, C or D")
    kind = kind or KINDS.get(rule, "move")
    if kind == "word":
        if rule not in ("any", "C"):
            raise TraceError(f"fault kind word gives rule C, not {rule}")
        return _plant_word(t, seed)
    if kind == "reads":
        if rule not in ("any", "D"):
            raise TraceError(f"fault kind reads gives rule D, not {rule}")
        return _plant_reads(t, seed)
    if kind == "move":
        cands = _move_candidates(t)
    elif kind == "inplace":
        if rule == "B":
            raise TraceError("fault kind inplace gives rule D, not B")
        cands = _inplace_candidates(t)
    else:
        raise TraceError(f"fault kind {kind!r}: expected {', '.join(FAULT_KINDS)}")
    if not cands:
        raise TraceError(f"no candidate for a {kind} fault in this trace")
    for i in range(min(len(cands), TRIES)):
        c = cands[(seed + i) % len(cands)]
        saved = {vid: v["offset"] for vid, v in t.values.items()}
        if kind == "move":
            x, y = c
            old = t.values[x]["offset"]
            _set_offset(t, x, t.values[y]["offset"])
        else:
            k, x, y = c
            old = t.values[y]["offset"]
            op = t.ops[k]
            op["updates"] = op["updates"] + [(x, y)]
            _set_offset(t, y, t.values[x]["offset"])
        plan = to_plan(t)
        b = _b_breaks(plan)
        got = "B" if b is not None else "D"
        if rule in ("any", got):
            info = {
                "kind": kind,
                "rule": rule,
                "seed": seed,
                "candidates": len(cands),
                "expect_class": got,
            }
            if kind == "move":
                info.update(
                    value=x,
                    plane=t.values[x]["plane"],
                    onto=y,
                    moved=_members(t, x),
                    **{"from": hex(t.regions[t.values[x]["region"]]["plan_base"] + old)},
                    to=hex(address(t, x)),
                )
            else:
                info.update(op=k, kernel=t.ops[k]["kernel"], input=x, output=y,
                            plane=t.values[y]["plane"],
                            **{"from": hex(t.regions[t.values[y]["region"]]["plan_base"] + old)},
                            to=hex(address(t, y)))
            info["why"] = (
                f"phase {plan['phases'][b]['id']} holds overlapping planes (rule B, verdict 1)"
                if got == "B"
                else "two values live at once share bytes, and a later phase carries the "
                "overwritten one (rule D, verdict >= 2 + launches)"
            )
            plan["meta"]["fault"] = info
            plan["meta"]["expect_class"] = got
            del plan["meta"]["expect"]
            return plan, info
        for vid, off in saved.items():
            t.values[vid]["offset"] = off
        if kind == "inplace":
            t.ops[c[0]]["updates"] = t.ops[c[0]]["updates"][:-1]
    raise TraceError(f"no {kind} fault of rule {rule} among {len(cands)} candidates")


def _plant_word(t, seed):
    plan = to_plan(t)
    cands = []
    for i, l in enumerate(plan["launches"]):
        for j, w in enumerate(l["words"]):
            if isinstance(w, str):
                cands.append((i, j))
    if not cands:
        raise TraceError("no address word to move for a word fault")
    windows = [(int(w["base"], 16), w["size"]) for w in plan["windows"]]
    gl = [(int(g["base"], 16), int(g["base"], 16) + g["size"]) for g in plan["globals"]]
    for n in range(min(len(cands), TRIES)):
        i, j = cands[(seed + n) % len(cands)]
        addr = int(plan["launches"][i]["words"][j], 16)
        win = next(((b, s) for b, s in windows if b <= addr < b + s), None)
        if win is None:
            continue
        ranges = sorted(
            [(int(p["base"], 16), int(p["base"], 16) + p["size"]) for p in plan["phases"][i]["planes"]]
            + gl
        )
        gaps, at = [], win[0]
        for s, e in ranges:
            if s > at:
                gaps.append(at)
            at = max(at, e)
        if at < win[0] + win[1]:
            gaps.append(at)
        gaps = [g for g in gaps if win[0] <= g < win[0] + win[1]]
        if not gaps:
            continue
        new = gaps[seed % len(gaps)]
        plan["launches"][i]["words"][j] = hex(new)
        info = {
            "kind": "word",
            "rule": "C",
            "seed": seed,
            "candidates": len(cands),
            "launch": i,
            "kernel": plan["launches"][i]["kernel"],
            "word": j,
            "from": hex(addr),
            "to": hex(new),
            "expect_class": "C",
            "expect": 2 + i,
            "why": f"launch {i}'s word {j} lies in a window, in no plane of its phase and no global",
        }
        plan["meta"]["fault"] = info
        plan["meta"]["expect_class"] = "C"
        plan["meta"]["expect"] = 2 + i
        return plan, info
    raise TraceError("no address word with a free byte in its window for a word fault")


def _plant_reads(t, seed):
    """An in-place update that reads, across elements, bytes it writes: rule D at its phase."""
    cands = []
    for o in t.ops:
        for f, to in o["updates"]:
            w = o["update_ranges"].get(f, {}).get("writes")
            if planned(t, f) and w != [] and first_instance(t, o["index"]) is not None:
                cands.append((o["index"], f, to))
    if not cands:
        raise TraceError("no candidate for a reads fault (no in-place update that writes bytes)")
    k, f, to = cands[seed % len(cands)]
    op = t.ops[k]
    had = op["update_ranges"].get(f)
    rr = dict(had or {"reads": None, "writes": None})
    size = t.values[f]["size"]
    rr["reads"] = list(rr["writes"]) if rr["writes"] is not None else [(0, size)]
    op["update_ranges"] = dict(op["update_ranges"], **{f: rr})
    plan = to_plan(t)
    inst = first_instance(t, k)
    n = len(plan["launches"])
    lo, sz = rr["reads"][0]
    info = {
        "kind": "reads",
        "rule": "D",
        "seed": seed,
        "candidates": len(cands),
        "op": k,
        "kernel": op["kernel"],
        "phase": phase_id(op),
        "value": f,
        "becomes": to,
        "plane": t.values[f]["plane"],
        "reads": [{"offset": o, "size": s} for o, s in rr["reads"]],
        "expect_class": "D",
        "expect": 2 + n + inst,
        "why": f"phase {phase_id(op)} reads bytes [{lo}, {lo + sz}) of {t.values[f]['plane']} "
               f"across elements and overwrites them in place (rule D at its instance {inst}, "
               f"verdict 2 + {n} launches + {inst} on a plan that was clean)",
    }
    plan["meta"]["fault"] = info
    plan["meta"]["expect_class"] = "D"
    plan["meta"]["expect"] = info["expect"]
    return plan, info
