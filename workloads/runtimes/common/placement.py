"""The placement problem a trace poses: one buffer per in-place class (values an update joins
share their bytes) of the values in the planned regions (kind "arena" by default), live over
the runs of consecutive op indices (written order) where any of its values is live, at its real
size with the trace's alignment; as MiniMalloc's CSV (id,lower,upper,size,alignment, upper
exclusive) with our group column, for `arenacert place`: one row per run, each with an id of its
own (the buffer's number for its first run, NUMBER.K for its K-th later one: ids stay unique, as
MiniMalloc's are) and the buffer's number as its group (rows of one group are one buffer, at one
offset); the runtime's planned_size and the max-live bound beside it.

A value live across a loop's back edge is live at the body's first ops and at its last, not in
between where the loop's code reuses its bytes (XLA copies loop state at the body's start and
rewrites it at the end): one hull per buffer would cover the whole body, so each run is a row.
Sizes are not rounded up: the last buffer's end is not padded past the runtime's allocation.
"""

from .trace import planned


def problem(t, kinds=("arena",)):
    """{"buffers", "rows", "csv", "order", "planned_size", "max_live", "regions"} for validated
    Trace t. buffers: one per class, with its runs ([lower, upper) op indices) and its number
    "id"; rows: one per run, in buffer order, each with its own "id" (a string) and its buffer's
    number as "group"."""
    regions = [r for r in t.regions if r["kind"] in kinds]
    idx = {r["index"] for r in regions}
    classes = {}
    for vid, ivs in t.intervals.items():
        v = t.values[vid]
        if v["region"] not in idx or not planned(t, vid):
            continue
        c = classes.setdefault(
            v["cls"],
            {
                "values": [],
                "ops": set(),
                "size": v["size"],
                "region": t.regions[v["region"]]["name"],
            },
        )
        c["values"].append(vid)
        # The op indices of every executed position where the value is live (the set, not its
        # hull). Sound: two values live at one executed position are both live at that
        # position's op index, so their buffers' runs meet there and no placement of the rows
        # gives them shared bytes.
        for s, e in ivs:
            c["ops"].update(t.seq[s : e + 1])
    buffers = []
    for c in classes.values():
        ops = sorted(c.pop("ops"))
        runs = []
        for k in ops:
            if runs and runs[-1][1] == k:
                runs[-1][1] = k + 1
            else:
                runs.append([k, k + 1])
        c["runs"] = runs
        buffers.append(c)
    buffers.sort(key=lambda c: (c["runs"][0][0], t.values[c["values"][0]]["index"]))
    rows = []
    lines = ["id,lower,upper,size,alignment,group"]
    for i, c in enumerate(buffers):
        c["id"] = i
        for k, (lo, hi) in enumerate(c["runs"]):
            rid = f"{i}.{k}" if k else f"{i}"  # no number has a dot: unique
            rows.append(
                {
                    "id": rid,
                    "group": i,
                    "lower": lo,
                    "upper": hi,
                    "size": c["size"],
                    "alignment": t.alignment,
                    "values": c["values"],
                    "region": c["region"],
                }
            )
            lines.append(f"{rid},{lo},{hi},{c['size']},{t.alignment},{i}")
    sizes = [r["planned_size"] for r in regions if r["planned_size"] is not None]
    return {
        "buffers": buffers,
        "rows": rows,
        "csv": "\n".join(lines) + "\n",
        "order": "written (op indices; loops cut to their bodies; a buffer's runs of live ops)",
        "planned_size": sum(sizes) if sizes else None,
        "max_live": max_live(rows),
        "regions": [r["name"] for r in regions],
    }


def max_live(rows):
    """The lower bound: the largest sum of sizes live at one time, each row counting while it
    lives (as ar_place_lower_bound counts)."""
    events = {}
    for r in rows:
        if r["size"] and r["lower"] < r["upper"]:
            events[r["lower"]] = events.get(r["lower"], 0) + r["size"]
            events[r["upper"]] = events.get(r["upper"], 0) - r["size"]
    live = best = 0
    for k in sorted(events):
        live += events[k]
        best = max(best, live)
    return best
