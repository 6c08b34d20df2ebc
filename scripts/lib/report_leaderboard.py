"""The placement leaderboard (scripts/place-leaderboard's TSV) as report text: per family, a
table of instance x strategy (height over the optimum where known, else over the max-live bound;
seconds; an invalid or failed answer says so and counts as no answer), the best valid height per
instance marked, and a gnuplot scatter of quality against time (one point per answer)."""

import csv
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import PALETTE, POINTS, draw, terminal  # noqa: E402
from report_format import figure, table  # noqa: E402

FAMILY_TITLES = {
    "fit": "A–H in fit mode (capacity 1,048,576: does it fit, and how fast)",
    "minimize": "A–H minimised (height over the max-live bound)",
    "large": "large real instances (idealloc's: MindSpore SOMAS, IOPDDL)",
    "packing": "perfect packings (optimum known: height over it)",
    "runtimes": "real runtimes' plans (LiteRT, llama.cpp, XLA, IREE), minimised",
    "trace": "real programs' malloc traces (CPython, GCC's cc1, sqlite3), minimised",
}


def read(tsv):
    with open(tsv) as handle:
        return list(csv.DictReader(handle, delimiter="\t"))


def quality(row):
    """The height's ratio the table shows: over the optimum where known, else over the bound."""
    key = "over_optimum" if row.get("over_optimum") else "over_bound"
    return float(row[key]) if row.get(key) else None


def answered(row):
    return row["status"] in ("ok", "no fit") and row.get("valid") == "yes"


def cell(row, best):
    if row["status"] == "skipped":
        return "skipped"
    if not answered(row):
        what = row["status"] if row["status"] != "ok" else "invalid"
        return f"**{what}**" + (f" ({row['seconds']} s)" if row.get("seconds") else "")
    q = quality(row)
    text = f"{q:.4f}" if q is not None else "?"
    if row["mode"] == "fit":
        text += " fits" if row.get("fits") == "yes" else " no fit"
    if best is not None and int(row["height"]) == best:
        text = f"**{text}**"
    return f"{text} ({float(row['seconds']):.2f} s)"


def leaderboard_section(tsv, folder, prog="scripts/place-leaderboard"):
    rows = read(tsv)
    out = ["## Placement against the field", ""]
    if not rows:
        return out + ["No leaderboard rows.", ""]
    first = rows[0]
    out += [
        f"Each strategy once per instance, {first['time_limit']} s budget, {first['threads']}"
        " thread(s), ours through `arenacert place`, omnimalloc 1.0.0's allocators as"
        " `omnimalloc:NAME` (scripts/place-leaderboard). A cell is the height over the optimum"
        " (perfect packings) or over the max-live bound, then wall seconds of one run on a shared"
        " machine (compare within the table, not across runs). Every answer was judged by"
        " `arenacert place --check` and `arenacert import | certify`; **invalid**, **error** and"
        " **timeout** are answers that failed that or never came. Bold: the least valid height on"
        " the instance.",
        "",
    ]
    skipped = {r["note"] for r in rows if r["status"] == "skipped"}
    for why in sorted(skipped):
        out += [f"Peers skipped: {why}.", ""]
    families = []
    for r in rows:
        if r["family"] not in families:
            families.append(r["family"])
    for family in families:
        frows = [r for r in rows if r["family"] == family]
        strategies = []
        for r in frows:
            if r["strategy"] not in strategies and r["status"] != "skipped":
                strategies.append(r["strategy"])
        if not strategies:
            continue
        instances = []
        for r in frows:
            if r["instance"] not in instances:
                instances.append(r["instance"])
        body = []
        for inst in instances:
            irows = {r["strategy"]: r for r in frows if r["instance"] == inst}
            heights = [int(r["height"]) for r in irows.values() if answered(r)]
            best = min(heights) if heights else None
            some = next(iter(irows.values()))
            body.append([inst, some["buffers"]] + [cell(irows[s], best) if s in irows else "–"
                                                   for s in strategies])
        out += [f"### {FAMILY_TITLES.get(family, family)}", "",
                table(["instance", "buffers"] + strategies, body), ""]
        wins = {s: 0 for s in strategies}
        for inst in instances:
            irows = [r for r in frows if r["instance"] == inst and answered(r)]
            if not irows:
                continue
            best = min(int(r["height"]) for r in irows)
            for r in irows:
                if int(r["height"]) == best:
                    wins[r["strategy"]] += 1
        out += ["Least height (ties count for each): " + ", ".join(
            f"{s} {n}/{len(instances)}" for s, n in wins.items()) + ".", ""]
    out += scatter(rows, folder, prog)
    return out


def scatter(rows, folder, prog):
    """Quality against time: one point per valid answer, a series per strategy."""
    points = {}
    for r in rows:
        if answered(r) and r["mode"] != "fit" and quality(r) is not None:
            points.setdefault(r["strategy"], []).append(
                (max(float(r["seconds"]), 1e-3), quality(r), r["instance"]))
    if not points:
        return []
    stem = "leaderboard_quality_time"
    with open(os.path.join(folder, stem + ".dat"), "w") as handle:
        for s, pts in points.items():
            handle.write(f"# {s}\n")
            for x, y, inst in pts:
                handle.write(f"{x:.4f} {y:.6f} {inst}\n")
            handle.write("\n\n")
    top = max(y for pts in points.values() for _, y, _ in pts)
    plots = ", ".join(
        # Past the palette, the next colour with another point type: no two series look alike.
        f"'{stem}.dat' index {i} using 1:2 title '{s}' with points"
        f" pt {POINTS[(i + i // len(PALETTE)) % len(POINTS)]}"
        f" ps 1.4 lc rgb '{PALETTE[i % len(PALETTE)]}'"
        for i, s in enumerate(points))
    ok = draw(folder, stem + ".gp", terminal(1100, 700) +
              f"set output '{stem}.png'\nset title 'Placement: quality against time (every"
              " instance but fit mode)'\nset logscale x\nset xlabel 'wall seconds (one run)'\n"
              "set ylabel 'height / optimum or max-live bound (1 = optimal)'\n"
              f"set yrange [0.99:{max(top * 1.02, 1.05):.3f}]\nset key outside right top\n"
              f"plot {plots}\n", prog=prog)
    if not ok:
        return []
    return figure(f"{stem}.png", "quality against time",
                  "each point one strategy on one instance: further left is faster, lower is"
                  " better; points at 1 are optimal.")


def main(argv):
    if len(argv) != 3:
        print("usage: report_leaderboard.py LEADERBOARD.tsv OUT_DIR", file=sys.stderr)
        return 2
    os.makedirs(argv[2], exist_ok=True)
    text = "\n".join(leaderboard_section(argv[1], argv[2])) + "\n"
    with open(os.path.join(argv[2], "leaderboard.md"), "w") as handle:
        handle.write(text)
    print(os.path.join(argv[2], "leaderboard.md"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
