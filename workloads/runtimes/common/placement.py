"""The placement problem a trace poses: one row per in-place class (values an update joins share
their bytes) of the values in the planned regions (kind "arena" by default), its lifetime in
written order (op indices; a value live across a loop's back edge covers the loop) and its
size rounded up to the alignment; as MiniMalloc's CSV (id,lower,upper,size, upper exclusive)
for `arenacert place`, with the runtime's planned_size and the max-live bound beside it.
"""

from .trace import planned


def round_up(x, a):
    return (x + a - 1) // a * a


def problem(t, kinds=("arena",)):
    """{"rows", "csv", "order", "planned_size", "max_live", "regions"} for validated Trace t."""
    regions = [r for r in t.regions if r["kind"] in kinds]
    idx = {r["index"] for r in regions}
    classes = {}
    for vid, (lo, hi) in t.live.items():
        v = t.values[vid]
        if v["region"] not in idx or not planned(t, vid):
            continue
        c = classes.setdefault(v["cls"], {"values": [], "lower": lo, "upper": hi + 1,
                                          "size": round_up(v["size"], t.alignment),
                                          "region": t.regions[v["region"]]["name"]})
        c["values"].append(vid)
        c["lower"], c["upper"] = min(c["lower"], lo), max(c["upper"], hi + 1)
    rows = sorted(classes.values(), key=lambda c: (c["lower"], t.values[c["values"][0]]["index"]))
    lines = ["id,lower,upper,size"]
    for i, c in enumerate(rows):
        c["id"] = i
        lines.append(f"{i},{c['lower']},{c['upper']},{c['size']}")
    sizes = [r["planned_size"] for r in regions if r["planned_size"] is not None]
    return {
        "rows": rows,
        "csv": "\n".join(lines) + "\n",
        "order": "written (op indices; loops cut to their bodies)",
        "planned_size": sum(sizes) if sizes else None,
        "max_live": max_live(rows),
        "regions": [r["name"] for r in regions],
    }


def max_live(rows):
    """The lower bound: the largest sum of sizes live at one time."""
    events = {}
    for r in rows:
        events[r["lower"]] = events.get(r["lower"], 0) + r["size"]
        events[r["upper"]] = events.get(r["upper"], 0) - r["size"]
    live = best = 0
    for k in sorted(events):
        live += events[k]
        best = max(best, live)
    return best
