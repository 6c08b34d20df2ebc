"""A validated trace as an arena-plan/1 plan (CERTIFICATE.md): a window per region at its fixed
base, whole-program values as globals, one phase and launch per op (reads carried, writes fresh,
an in-place update a carried plane with `becomes`, and the `reads`/`writes` its update says),
loops as repeats (their deltas or frames the words that move with them, steps.py), one schedule
reference over every launch.
"""

from . import steps
from .trace import planned


def address(t, vid, offset=0):
    v = t.values[vid]
    return t.regions[v["region"]]["plan_base"] + v["offset"] + offset


def plane(t, vid, carried, becomes=None, ranges=None):
    """A plane; with becomes, an in-place update into that value, and with ranges (an update's
    {"reads", "writes"} byte ranges), its `reads`/`writes` (CERTIFICATE.md section 1), which need
    `becomes`: an update that keeps its name says `becomes` its own name (a no-op there)."""
    p = {"name": t.values[vid]["plane"], "base": hex(address(t, vid)),
         "size": t.values[vid]["size"], "carried": carried}
    if becomes is not None and (becomes != vid or ranges):
        p["becomes"] = t.values[becomes]["plane"]
    for key in ("reads", "writes"):
        if ranges and ranges.get(key) is not None:
            p[key] = [{"offset": o, "size": n} for o, n in ranges[key]]
    return p


def phase_planes(t, o):
    ufrom = dict(o["updates"])
    uto = set(ufrom.values())
    ranges = o.get("update_ranges", {})
    planes = [plane(t, v, True, ufrom.get(v), ranges.get(v) if v in ufrom else None)
              for v in o["reads"] if planned(t, v)]
    planes += [plane(t, v, False) for v in o["writes"] if planned(t, v) and v not in uto]
    return planes


def launch_words(t, o, counts):
    ws = o["words"]
    if ws is None:
        ws = [(v, 0) for v in o["reads"] + [w for w in o["writes"] if w not in o["reads"]]]
        ws = [w for w in ws if t.values[w[0]]["size"] > 0]
    out = []
    for w in ws:
        if isinstance(w, int):
            out.append(w)
        elif t.values[w[0]]["size"] == 0:
            counts["zero_size_words_dropped"] += 1
        else:
            out.append(hex(address(t, w[0], w[1])))
    return out


def phase_id(o):
    """"<index>:<kernel>", then the runtime's own words for the op (its label) in parentheses:
    the certificate's message names phases by id, so a runtime engineer finds the op from it."""
    return f"{o['index']}:{o['kernel']}" + (f" ({o['label']})" if o.get("label") else "")


def to_plan(t):
    """The plan (a dict, meta included) for a validated Trace."""
    counts = {"zero_size_words_dropped": 0}
    windows = [
        {"base": hex(r["plan_base"]), "size": r["size"]} for r in t.regions if r["window"]
    ]
    globals_ = [
        {"name": t.values[g]["plane"], "base": hex(address(t, g)), "size": t.values[g]["size"]}
        for g in t.globals
        if t.regions[t.values[g]["region"]]["window"]
    ]
    phases, launches = [], []
    for o in t.ops:
        pid = phase_id(o)
        phases.append({"id": pid, "planes": phase_planes(t, o)})
        launches.append({"kernel": o["kernel"], "phase": pid, "words": launch_words(t, o, counts)})
    plan = {
        "format": "arena-plan/1",
        "alignment": t.alignment,
        "windows": windows,
        "globals": globals_,
        "phases": phases,
        "launches": launches,
    }
    if t.loops:
        plan["repeats"] = [
            {"first": l["first"], "count": l["count"], "iterations": l["iterations"],
             **steps.moves(t, l)}
            for l in t.loops
        ]
    plan["schedule"] = [{"first": 0, "count": len(launches)}]
    plan["meta"] = meta(t, counts)
    return plan


def _with(t, key):
    """In-place updates of planned values that say `key` (reads or writes) in the plan."""
    return sum(1 for o in t.ops for f, _ in o["updates"]
               if planned(t, f) and o["update_ranges"].get(f, {}).get(key) is not None)


def loop_depths(t):
    out = []
    for l in t.loops:
        depth = sum(
            1
            for m in t.loops
            if m is not l
            and m["first"] <= l["first"]
            and l["first"] + l["count"] <= m["first"] + m["count"]
        )
        out.append(
            {"first": l["first"], "count": l["count"], "iterations": l["iterations"], "depth": depth}
        )
    return out


def meta(t, counts):
    from .trace import digest

    names = {v for o in t.ops for v in o["reads"] + o["writes"] if planned(t, v)}
    return {
        "source": "arena-trace/1, planned by workloads/runtimes/common",
        "runtime": t.runtime,
        "program": t.program,
        "capture": t.capture,
        "trace_digest": digest(t.raw),
        "counts": {
            "ops": len(t.ops),
            "ops_executed": t.executed,
            "values": len(t.values),
            "globals": sum(1 for g in t.globals if t.regions[t.values[g]["region"]]["window"]),
            "planes": len(names),
            "in_place_updates": sum(len(o["updates"]) for o in t.ops),
            "updates_with_reads": _with(t, "reads"),
            "updates_with_writes": _with(t, "writes"),
            "loops": len(t.loops),
            "words_moving": steps.count(t),
            **counts,
        },
        "loops": loop_depths(t),
        "regions": [
            {
                "name": r["name"],
                "kind": r["kind"],
                "size": r["size"],
                "planned_size": r["planned_size"],
                "recorded_base": hex(r["base"]),
                "plan_base": hex(r["plan_base"]),
                "window": r["window"],
            }
            for r in t.regions
        ],
        "expect": 0,
    }
