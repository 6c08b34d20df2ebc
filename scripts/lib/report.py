"""scripts/report's engine: results files in, a folder with report.md and PNG plots out.

Everything comes from the results files: names say what a benchmark is (certify/FAMILY/PRESET,
precision/FAMILY/few:K, arena/STREAM/STRATEGY, placement/INSTANCE/STRATEGY, ...), counters carry
the figures. Every time is CPU time per iteration (manual time for GPU benchmarks), the quantity
scripts/compare judges: a median over repetitions with its interquartile range. Each section is a
function in SECTIONS (results, folder) -> markdown lines; a section with nothing to show returns
[]. Plots are drawn by gnuplot from .dat/.gp files left beside them (scripts/lib/plot.py).
"""

import argparse
import math
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import (
    BARS,
    byte_tics,
    colour,
    draw,
    label,
    log_tics,
    style,
    terminal,
    write_blocks,
)  # noqa: E402
from results import (
    DUPLICATES,
    BadInput,
    Results,
    deterministic_digest,
    fail,
    quantiles,
)  # noqa: E402

STRATEGIES = ["arena", "glibc", "mimalloc", "jemalloc", "mmap", "pool", "floor"]
STREAMS = ["small", "fixed", "uniform", "heavy", "large"]


# ---- formatting ----


def unit_of(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return unit, scale
    return "ns", 1.0


def fmt_time(ns):
    if ns is None:
        return "-"
    unit, scale = unit_of(ns)
    return f"{ns / scale:.3g} {unit}"


def fmt_spread(stats):
    """'31.0 µs [29.8–32.1]' (median [IQR]); one run has no spread: '157 µs (1 run)'."""
    if stats is None:
        return "-"
    median, q1, q3, n = stats
    if n < 2:
        return f"{fmt_time(median)} (1 run)"
    unit, scale = unit_of(median)
    num = lambda v: f"{v:.0f}" if v >= 1000 else f"{v:.3g}"  # no 1.11e+03 when q3 passes a unit
    return f"{num(median / scale)} {unit} [{num(q1 / scale)}–{num(q3 / scale)}]"


def fmt_count(value):
    if value is None:
        return "-"
    value = float(value)
    if value == int(value) and abs(value) < 1e6:
        return f"{int(value)}"
    for unit, scale in (("G", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(value) >= scale:
            return f"{value / scale:.3g}{unit}"
    return f"{value:.3g}"


def fmt_instructions(results, name):
    found = results.instructions_of(name)
    if found is None:
        return "-"
    count, equal, spread = found
    return f"{count:,.0f}" + ("" if equal else f" (runs span {100 * spread:.2g}%)")


def fmt_bytes(value):
    if value is None:
        return "-"
    value = float(value)
    for unit, scale in (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if value >= scale:
            return f"{value / scale:.3g} {unit}"
    return f"{int(value)} B"


def fmt_ratio(value, digits=3):
    return "-" if value is None else f"{value:.{digits}g}"


def table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join(" --- " for _ in header) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines)


def figure(png, alt, caption):
    return [f"![{alt}]({png})", "", f"*Figure {png}: {caption}*", ""]


def ordered(results, prefix):
    """Names prefix/FAMILY/PRESET... in family order, then preset order, then by name."""
    families = results.families()
    presets = ["tiny", "small", "medium", "large"]

    def key(name):
        parts = name.split("/")
        family = (
            families.index(parts[1]) if len(parts) > 1 and parts[1] in families else len(families)
        )
        preset = presets.index(parts[2]) if len(parts) > 2 and parts[2] in presets else len(presets)
        return (family, preset, name)

    return sorted(results.names(prefix), key=key)


# ---- sections ----


def ratios_section(results, folder):
    names = ordered(results, "ratios/")
    if not names:
        return []
    out = [
        "## Certificate targets: ratios measured in one run",
        "",
        (
            "Each row comes from one benchmark (`ratios/FAMILY/PRESET`) that times everything in"
            " each of its iterations in process CPU time; each ratio is the ratio of medians over"
            " those iterations (the file records no spread for them). Absolute times are in the"
            " certificate table below, from the repeated benchmarks. Targets: certify/load ≤ 0.25,"
            " certify/floor ≤ 10, load/jansson ≤ 1.5, (D) x8/x1 < 1.10 (the same plan with every"
            " repeat's iterations ×8, shifts zeroed in both copies), loader peak memory ≤ 8× the"
            " file (a fresh process's VmHWM before and after `ar_plan_load_file`). The targets are"
            " stated for each family's largest preset: those rows are marked ✓/✗ (smaller plans are"
            " dominated by fixed costs and page granularity)."
        ),
        "",
    ]
    rows = []
    largest = {}
    for name in names:
        largest[name.split("/")[1]] = name.split("/")[2]
    for name in names:
        family, preset = name.split("/")[1:3]
        if name in results.errors:
            rows.append([family, preset, "skipped: " + results.errors[name]] + [""] * 7)
            continue
        c = lambda key: results.counter(name, key)
        target = largest.get(family) == preset
        mark = lambda value, limit: (
            "-"
            if value is None
            else (f"**{value:.3g}** {'✓' if value <= limit else '✗'}" if target else f"{value:.3g}")
        )
        rows.append(
            [
                family,
                preset,
                fmt_count(c("words")),
                fmt_bytes(c("file_bytes")),
                mark(c("certify_over_load"), 0.25),
                mark(c("certify_over_floor"), 10),
                mark(c("load_over_jansson"), 1.5),
                mark(c("d_scaling_x8"), 1.10),
                f"{fmt_ratio(c('load_mb_per_s'))} / {fmt_ratio(c('jansson_mb_per_s'))}",
                mark(c("load_peak_over_file"), 8),
            ]
        )
    out += [
        table(
            [
                "family",
                "preset",
                "words",
                "JSON",
                "certify/load",
                "certify/floor",
                "load/jansson",
                "(D) x8/x1",
                "MB/s load / jansson",
                "load peak / file",
            ],
            rows,
        ),
        "",
    ]
    for name in results.names("decode_loop/"):
        if name in results.errors:
            out += [f"`{name}`: skipped: {results.errors[name]}", ""]
            continue
        c = lambda key: results.counter(name, key)
        instructions = results.instructions_of(name)
        out += [
            f"Decode loop `{name}`: {fmt_count(c('references'))} schedule references,"
            f" {fmt_count(c('launches'))} launches as written, {fmt_count(c('executed_launches'))}"
            f" executed launches, {fmt_count(c('instances'))} phase instances: certified in"
            f" {fmt_spread(results.time_stats(name))}"
            + (f", {fmt_instructions(results, name)} instructions" if instructions else "")
            + f" (verdict {fmt_count(c('verdict'))}; target: well under a second).",
            "",
        ]
    return out


def certificate_section(results, folder):
    families = results.families()
    rows, blocks = [], []
    side = {k: [] for k in ("certify", "exact", "load", "jansson", "floor")}
    with_instructions = any(n.startswith("certify/") for n in results.instructions)
    for family in families:
        points = []
        for preset in results.presets(family):
            name = f"certify/{family}/{preset}"
            words = results.counter(name, "words")
            stats = results.time_stats(name)
            exact_name = f"exact/{family}/{preset}"
            exact = (
                fmt_spread(results.time_stats(exact_name))
                if results.has(exact_name)
                else ("refused" if exact_name in results.errors else "-")
            )
            row = [
                family,
                preset,
                fmt_count(words),
                fmt_count(results.counter(name, "launches")),
                fmt_count(results.counter(name, "executed_launches")),
                fmt_spread(stats),
            ]
            if with_instructions:
                row.append(fmt_instructions(results, name))
            row += [
                exact,
                fmt_spread(results.time_stats(f"load/{family}/{preset}")),
                fmt_spread(results.time_stats(f"jansson/{family}/{preset}")),
                fmt_spread(results.time_stats(f"floor/{family}/{preset}")),
                fmt_count(results.counter(name, "verdict")),
            ]
            rows.append(row)
            if words and stats:
                points.append((words, stats[0] / 1e3, stats[1] / 1e3, stats[2] / 1e3))
            for kind in side:
                n = f"{kind}/{family}/{preset}"
                w = results.counter(n, "words")
                s = results.time_stats(n)
                if s and w:
                    side[kind].append((w, s[0] / 1e3, s[1] / 1e3, s[2] / 1e3))
        if points:
            blocks.append((family, sorted(points)))
    if not rows:
        return []
    header = ["family", "preset", "words", "launches", "executed launches", "certify"]
    if with_instructions:
        header.append("certify instructions")
    header += ["exact", "load (JSON)", "jansson parse", "floor", "verdict"]
    out = [
        "## Certificate time",
        "",
        table(header, rows),
        "",
        "*exact*: the exact oracle (\"refused\": past its evaluation limit); *load*:"
        " `ar_plan_load_file` on the plan written as JSON; *jansson parse*: `json_load_file` of the"
        " same file; *floor*: one pass reading every parameter word. Only `certify/` is repeated"
        " (it is judged); the others ran once, so they have no spread."
        + (
            f" Instructions: per {results.instructions_per}."
            if with_instructions and results.instructions_per
            else ""
        ),
        "",
    ]
    if blocks:
        write_blocks(folder, "cert_time.dat", blocks, "words median_us q1_us q3_us")
        values = [v for _, pts in blocks for p in pts for v in p[1:]]
        plots = ", ".join(
            f"'cert_time.dat' index {i} using 1:2:3:4 with yerrorbars {style(i)} ps 1.5 lw 1.5 "
            f"title '{title}'"
            for i, (title, _) in enumerate(blocks)
        )
        words = [p[0] for _, pts in blocks for p in pts]
        ok = draw(
            folder,
            "cert_time.gp",
            terminal()
            + "set output 'cert_time.png'\nset title 'Certificate CPU time vs plan size per"
            " workload family (median, bars: IQR)'\nset logscale xy\nset xlabel 'parameter words"
            " as written'\nset ylabel 'CPU time per certificate'\nset key top left box opaque"
            f" reverse Left\nset xrange [{min(words) / 1.4}:{max(words) * 1.4}]\nset yrange"
            f" [{min(values) / 1.3}:{max(values) * 1.3}]\n"
            + log_tics(min(words) / 1.4, max(words) * 1.4, "x")
            + log_tics(min(values) / 1.3, max(values) * 1.3, "y", "µs")
            + f"plot {plots}\n",
        )
        if ok:
            out += figure(
                "cert_time.png",
                "certificate time vs plan size",
                "certificate time grows with the words written, not with the executed launches (see"
                " no_unrolling.png); points, not lines, since pipeline's tiny and small presets"
                " have the same size.",
            )
    side_blocks = [(k, sorted(v)) for k, v in side.items() if v]
    if side_blocks:
        write_blocks(folder, "cert_side.dat", side_blocks, "words median_us q1_us q3_us")
        values = [v for _, pts in side_blocks for p in pts for v in p[1:]]
        words = [p[0] for _, pts in side_blocks for p in pts]
        plots = ", ".join(
            f"'cert_side.dat' index {i} using 1:2:3:4 with yerrorbars {style(i)} ps 1.3 "
            f"title '{title}'"
            for i, (title, _) in enumerate(side_blocks)
        )
        ok = draw(
            folder,
            "cert_side.gp",
            terminal()
            + "set output 'cert_side.png'\nset title 'Certificate next to the exact oracle, the"
            " loader, a jansson parse and the floor'\nset logscale xy\nset xlabel 'parameter"
            " words as written'\nset ylabel 'CPU time'\nset key top left box opaque reverse"
            " Left\n"
            + log_tics(min(words) / 1.4, max(words) * 1.4, "x")
            + log_tics(min(values) / 1.3, max(values) * 1.3, "y", "µs")
            + f"set xrange [{min(words) / 1.4}:{max(words) * 1.4}]\n"
            f"set yrange [{min(values) / 1.3}:{max(values) * 1.3}]\nplot {plots}\n",
        )
        if ok:
            out += figure(
                "cert_side.png",
                "certificate next to reading",
                "on every plan the certificate costs a small fraction of reading the plan (load,"
                " jansson) and a small multiple of the floor; the exact oracle, which unrolls,"
                " grows far faster (bars: IQR where repeated).",
            )
    return out


def no_unrolling_section(results, folder):
    """Certificate time against executed launches with the words held fixed (ratios/ x1 vs x8)."""
    blocks = []
    for name in ordered(results, "ratios/"):
        c = lambda key: results.counter(name, key)
        x1, x8 = c("executed_launches_x1"), c("executed_launches_x8")
        t1, t8 = c("certify_x1_ns"), c("certify_x8_ns")
        if None in (x1, x8, t1, t8) or name in results.errors:
            continue
        family, preset = name.split("/")[1:3]
        blocks.append(
            (
                f"{family}/{preset} ({fmt_count(c('words'))} words)",
                [(x1, t1 / 1e3, t1 / 1e3), (x8, t8 / 1e3, t1 / 1e3 * x8 / x1)],
            )
        )
    if not blocks:
        return []
    # One preset per family keeps the plot readable: the largest one present.
    largest = {}
    for title, points in blocks:
        largest[title.split("/")[0]] = (title, points)
    blocks = list(largest.values())
    write_blocks(
        folder, "no_unrolling.dat", blocks, "executed_launches certify_us unrolled_guide_us"
    )
    xs = [p[0] for _, pts in blocks for p in pts]
    ys = [p[1] for _, pts in blocks for p in pts]
    plots = []
    for i, (title, _) in enumerate(blocks):
        plots.append(
            f"'no_unrolling.dat' index {i} using 1:2 with linespoints {style(i)} lw 2 ps 1.6 "
            f"title '{title}'"
        )
        plots.append(
            f"'no_unrolling.dat' index {i} using 1:3 with lines {colour(i)} lw 1.5 dt 3 notitle"
        )
    top = max(p[2] for _, pts in blocks for p in pts)
    ok = draw(
        folder,
        "no_unrolling.gp",
        terminal()
        + "set output 'no_unrolling.png'\nset title 'Same words, 8× the executed launches:"
        " certificate CPU time (ratios/ x1 and x8)'\nset logscale xy\nset xlabel 'executed"
        " launches (the plan unrolled)'\nset ylabel 'CPU time per certificate'\nset key top left"
        f" box opaque reverse Left\nset xrange [{min(xs) / 1.5}:{max(xs) * 1.5}]\nset yrange"
        f" [{min(ys) / 1.5}:{top * 1.5}]\n"
        + log_tics(min(xs) / 1.5, max(xs) * 1.5, "x")
        + log_tics(min(ys) / 1.5, top * 1.5, "y", "µs")
        + "plot "
        + ", ".join(plots)
        + "\n",
    )
    out = [
        "## Certificate time does not grow with executed launches",
        "",
        (
            "`ratios/FAMILY/PRESET` certifies two copies of one plan built with every repeat's"
            " iterations ×1 and ×8: the same words, 8× the executed launches. Solid: measured"
            " (medians of the benchmark's iterations; it records no spread). Dotted: what a checker"
            " that unrolls would cost (time ∝ executed launches)."
        ),
        "",
    ]
    if ok:
        out += figure(
            "no_unrolling.png",
            "certificate time vs executed launches",
            "each solid segment is flat (x8/x1 in the ratios table), while the dotted guide of an"
            " unrolling checker rises 8×: the certificate's cost follows the words, not the"
            " launches.",
        )
    return out


def precision_section(results, folder):
    names = results.names("precision/")
    if not names:
        return []
    out = [
        "## Interval-hull precision",
        "",
        (
            "Per family: the clean medium plan and every precision-probe fault. *sites*: (launch,"
            " word) sites the certificate accepts among those the exact oracle accepts; *plans*:"
            " safe plans (exact verdict 0) the certificate certifies; *slack*: bytes the hulls"
            " claim that no iteration touches. All deterministic except *time saved* (1 −"
            " certificate time / exact time, one run each)."
        ),
        "",
    ]
    rows, series = [], {}
    fews = set()
    for family in results.families():
        entries = []
        for name in results.names(f"precision/{family}/"):
            m = re.search(r"few:(\d+)", name)
            if m:
                entries.append((int(m.group(1)), name))
        points = []
        for few, name in sorted(entries):
            if name in results.errors:
                rows.append([family, few, "skipped: " + results.errors[name], "", "", "", "", ""])
                continue
            c = lambda key: results.counter(name, key)
            if c("site_precision") is None:
                continue
            rows.append(
                [
                    family,
                    few,
                    (
                        f"{c('site_precision'):.4f} ({fmt_count(c('sites_certificate_accepted'))}/"
                        f"{fmt_count(c('sites_exact_accepted'))})"
                    ),
                    (
                        f"{fmt_count(c('plans_certificate_safe'))} of"
                        f" {fmt_count(c('plans_exact_safe'))}"
                    ),
                    fmt_bytes(c("hull_slack_bytes")),
                    f"{fmt_count(c('hulls'))} / {fmt_count(c('points'))}",
                    (
                        f"{100 * c('time_saved_vs_exact'):.1f}%"
                        if c("time_saved_vs_exact") is not None
                        else "-"
                    ),
                    fmt_count(c("unsound_plans")),
                ]
            )
            fews.add(few)
            points.append(
                (
                    few,
                    (c("sites_exact_accepted") or 0) - (c("sites_certificate_accepted") or 0),
                    c("hull_slack_bytes"),
                )
            )
        if points:
            series[family] = points
    out += [
        table(
            [
                "family",
                "few",
                "site precision (accepted/exact)",
                "safe plans certified",
                "hull slack",
                "hulls / points",
                "time saved vs exact",
                "unsound plans",
            ],
            rows,
        ),
        "",
    ]
    if not series:
        return out
    fews = sorted(fews)
    position = {
        few: i for i, few in enumerate(fews)
    }  # categories: no line crosses an unmeasured few

    def merged(column):
        """Families with identical values share one entry (they would hide each other)."""
        groups = []
        for family, points in series.items():
            values = [(p[0], p[column]) for p in points]
            for group in groups:
                if group[1] == values:
                    group[0].append(family)
                    break
            else:
                groups.append(([family], values))
        return groups

    blocks, rejected_groups = [], merged(1)
    for families, values in rejected_groups:
        blocks.append((", ".join(families), [(position[few], v) for few, v in values]))
    slack_groups = merged(2)
    for families, values in slack_groups:
        blocks.append(
            (
                ", ".join(families),
                [(position[few], v if v and v > 0 else None) for few, v in values],
            )
        )
    write_blocks(folder, "precision.dat", blocks, "few_index value")
    n = len(rejected_groups)
    top = max(v for _, values in rejected_groups for _, v in values)
    slack = [v for _, values in slack_groups for _, v in values if v]
    xtics = "set xtics (" + ", ".join(f"'{few}' {i}" for few, i in position.items()) + ")\n"

    def plot(offset, groups):
        return "plot " + ", ".join(
            f"'precision.dat' index {offset + i} using"
            f" ($1+{(i - (len(groups) - 1) / 2) * 0.08:.2f}):2 with points {style(i)} ps 2 lw 2"
            f" title '{', '.join(families)}'"
            for i, (families, _) in enumerate(groups)
        )

    script = (
        terminal(1400, 560)
        + "set output 'precision.png'\nset datafile missing '?'\nset multiplot layout 1,2 title"
        " 'Interval-hull precision vs few (medium presets and precision probes; families with"
        " identical values share a marker)'\n"
        + xtics
        + f"set xrange [-0.5:{len(fews) - 0.5}]\nset xlabel 'few (iterations given as points, not a"
        " hull)'\nset key top right box opaque reverse Left\nset title 'falsely rejected sites"
        " (exact accepts, certificate rejects)'\nset ylabel 'sites'\nset yrange"
        f" [-0.3:{top + 2}]\nset ytics 1\nset format y '%.0f'\n{plot(0, rejected_groups)}\n"
    )
    if slack:
        script += (
            "set title 'hull slack (bytes the hulls claim, no iteration touches)'\nset logscale y"
            " 1024\nset ylabel 'bytes'\nset key bottom left box opaque reverse Left\nset yrange"
            f" [{min(slack) / 2}:{max(slack) * 2}]\n"
            + byte_tics(min(slack) / 2, max(slack) * 2)
            + f"{plot(n, slack_groups)}\n"
        )
    script += "unset multiplot\n"
    if draw(folder, "precision.gp", script):
        out += figure(
            "precision.png",
            "precision vs few",
            "a larger few leaves fewer sites falsely rejected and shrinks the hull slack by orders"
            " of magnitude at few ≥ 64; the safe-plan counts (of 3 per family) are in the table."
            " The figures are deterministic (no spread to draw).",
        )
    return out


def arena_section(results, folder):
    names = results.names("arena/")
    if not names:
        return []
    out = [
        "## Arena steady state (host pages)",
        "",
        (
            "The same seeded stream of `ar_text_encode` calls per stream; one iteration is one"
            " call. Streams: `small` (1-4 items of 1-8 tokens, 4 dimensions: the encoder's compute"
            " is about 100 ns, so the call costs about what its allocations cost), `fixed`,"
            " `uniform`, `heavy` (32 dimensions, 37-65 µs of compute per call, which hides the"
            " allocator), `large` (8 items of 2048-16384 tokens, 16 dimensions, about 4.5 MiB per"
            " call). `mmap` (large stream only) maps fresh pages for each output and unmaps them,"
            " as glibc's malloc does above its mmap threshold; glibc itself raises that threshold"
            " to the largest block freed (up to 32 MiB), so after the first calls it stops mapping"
            " on this stream."
        ),
        "",
        (
            "- **time per call**: CPU time of the uninstrumented timed loop, median [IQR] over"
            " repetitions; **vs floor**: the median divided by the median of caller-owned buffers"
            " on the same stream."
        ),
        (
            "- **alloc path**: what the strategy's own allocation path costs per call, measured in"
            " a probe pass after the timed loop with CLOCK_MONOTONIC around its three allocations"
            " and its three frees (pool: pops and pushes; floor: the same intervals around nothing,"
            " the measurement's zero), less the clock's own cost: the mean over the probe calls,"
            " median [IQR] over repetitions. The **arena** cannot be taken apart from outside: its"
            " figure is an `ar_text_encode` of an empty batch on the same warm arena, the library's"
            " fixed per-call path. The clock steps by the timer resolution given below, which is"
            " why the mean, not the per-call median, is shown."
        ),
        (
            "- First-touch page faults are paid where the encoder writes fresh pages: they show in"
            " time per call and in **minor faults/call** (getrusage of the thread over the timed"
            " loop)."
        ),
        (
            "- **allocations/call**: arena growths, allocator calls, pool misses after warm-up;"
            " **reserved** vs **high water**: bytes the strategy holds vs the most bytes one call"
            " writes; **NUMA node** of the latest output pages (-1: unknown)."
        ),
        "",
    ]
    streams = [s for s in STREAMS if any(n.startswith(f"arena/{s}/") for n in names)]
    streams += sorted({n.split("/")[1] for n in names} - set(streams))
    strategies = [s for s in STRATEGIES if any(n.endswith(f"/{s}") for n in names)]
    with_instructions = any(n.startswith("arena/") for n in results.instructions)
    rows, data = [], []
    resolution = None
    for stream in streams:
        floor = results.time_ns(f"arena/{stream}/floor")
        row_data = [stream]
        for strategy in strategies:
            name = f"arena/{stream}/{strategy}"
            if name in results.errors:
                rows.append([stream, strategy, "skipped: " + results.errors[name]] + [""] * 8)
            if not results.has(name):
                row_data += ["?"] * 12
                continue
            c = lambda key: results.counter(name, key)
            stats = results.time_stats(name)
            path = results.counter_stats(name, "alloc_path_mean_ns")
            resolution = resolution or c("timer_resolution_ns")
            row = [
                stream,
                strategy,
                fmt_spread(stats),
                fmt_ratio(stats[0] / floor if stats and floor else None),
                fmt_spread(path),
            ]
            if with_instructions:
                row.append(fmt_instructions(results, name))
            row += [
                fmt_ratio(c("allocations_per_call")),
                fmt_ratio(c("minor_faults_per_call")),
                fmt_bytes(c("reserved_bytes")),
                fmt_bytes(c("high_water_bytes")),
                fmt_count(c("numa_node")),
            ]
            rows.append(row)
            # Plot columns per strategy: alloc path (mean ns) median q1 q3, time/floor median q1 q3,
            # allocations per call, reserved / high water (then padding to 12).
            if strategy == "floor" or path is None:
                row_data += ["?", "?", "?"]
            else:
                row_data += [max(path[0], 0.1), max(path[1], 0.1), max(path[2], 0.1)]
            row_data += (
                [stats[0] / floor, stats[1] / floor, stats[2] / floor]
                if stats and floor
                else ["?", "?", "?"]
            )
            allocations = c("allocations_per_call")
            row_data += [
                "?" if allocations is None else allocations,
                (c("reserved_bytes") or 0) / (c("high_water_bytes") or 1),
                "?",
                "?",
                "?",
                "?",
            ]
        data.append(row_data)
    header = ["stream", "strategy", "time per call", "vs floor", "alloc path (mean ns)"]
    if with_instructions:
        header.append("instructions per call")
    header += ["allocations/call", "minor faults/call", "reserved", "high water", "NUMA node"]
    out += [table(header, rows), ""]
    if resolution is not None:
        out += [f"Timer resolution seen by the probe: {fmt_time(resolution)} per step.", ""]
    if data and strategies:
        with open(os.path.join(folder, "arena.dat"), "w") as handle:
            handle.write(
                "# stream, then per strategy ("
                + " ".join(strategies)
                + "): alloc_mean_ns median q1 q3, "
                "time/floor median q1 q3, allocations_per_call, reserved/high_water, 4 unused\n"
            )
            for row in data:
                handle.write(" ".join(str(v) for v in row) + "\n")

        def col(strategy, offset):
            return 2 + strategies.index(strategy) * 12 + offset

        def bars(offset, skip=(), errors=True):
            parts = []
            for i, s in enumerate(strategies):
                if s in skip:
                    continue
                using = (
                    f"{col(s, offset)}:{col(s, offset + 1)}:{col(s, offset + 2)}:xtic(1)"
                    if errors
                    else f"{col(s, offset)}:xtic(1)"
                )
                parts.append(
                    f"'arena.dat' using {using} title '{s}' lc rgb '{BARS[i % len(BARS)]}'"
                )
            return "plot " + ", ".join(parts) + "\n"

        values = lambda offset, skip=(): [
            r[col(s, offset) - 1]
            for r in data
            for s in strategies
            if s not in skip and r[col(s, offset) - 1] != "?"
        ]
        paths = values(0, ("floor",))
        ratios = values(3) + values(5)
        allocations = values(6)
        reserved = values(7)
        script = (
            terminal(1500, 1050)
            + "set output 'arena.png'\nset datafile missing '?'\nset multiplot layout 2,2 title"
            " 'Arena strategies over the same ar_text_encode streams (CPU time; bars: median,"
            " whiskers: IQR over repetitions)'\nset style fill solid 1.0 border lc rgb"
            " 'black'\nset boxwidth 0.9\nset grid noxtics ytics\nset key outside right top"
            f" vertical\nset xrange [-0.6:{len(data) - 0.4}]\nset xlabel 'stream'\n"
        )
        if paths:
            script += (
                "set style data histograms\nset style histogram errorbars gap 1 lw 1\n"
                "set title 'allocation path per call (mean ns; arena: an empty-batch call)'\n"
                "set logscale y\nset ylabel 'ns per call'\n"
                + log_tics(min(paths) / 1.5, max(paths) * 1.5, "y", "ns")
                + f"set yrange [{min(paths) / 1.5}:{max(paths) * 1.5}]\n"
                + bars(0, ("floor",))
                + "unset logscale y\nset ytics auto\n"
            )
        if ratios:
            script += (
                "set style data histograms\nset style histogram errorbars gap 1 lw 1\n"
                "set title 'time per call / floor time (1 = caller-owned buffers)'\n"
                "set ylabel 'ratio to the floor'\n"
                f"set yrange [0:{max(ratios) * 1.1:.3f}]\nset format y '%.1f'\n"
                "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'\n"
                + bars(3)
                + "unset arrow 1\nset format y '%g'\n"
            )
        if allocations and max(allocations) > 0:
            script += (
                "set style data histograms\nset style histogram clustered gap 1\nset title"
                " 'allocator calls per call after warm-up'\nset ylabel 'allocations per call'\nset"
                f" yrange [0:{max(allocations) * 1.15 + 0.1:.2f}]\nset ytics 1\n"
                + bars(6, errors=False)
                + "set ytics auto\n"
            )
        if reserved and max(reserved) != min(reserved):
            script += (
                "set style data histograms\nset style histogram clustered gap 1\nset title 'bytes"
                " held / most bytes one call writes'\nset ylabel 'reserved / high water'\nset"
                f" yrange [0:{max(reserved) * 1.12:.2f}]\n"
                + bars(7, errors=False)
            )
        script += "unset multiplot\n"
        if draw(folder, "arena.gp", script):
            out += figure(
                "arena.png",
                "arena strategies",
                "the arena makes no allocator call after warm-up and its per-call path is the"
                " cheapest after the pool's; where whiskers overlap the floor line, the time"
                " difference is within the noise (the compute hides the allocator on"
                " fixed/uniform/heavy).",
            )
    gpu = results.names("gpu/")
    if gpu:
        out += ["### GPU", ""]
        gpu_rows = []
        for name in gpu:
            if name in results.errors:
                gpu_rows.append([name, "skipped: " + results.errors[name], "", ""])
            else:
                gpu_rows.append(
                    [
                        name,
                        fmt_spread(results.time_stats(name)),
                        fmt_ratio(results.counter(name, "allocations_per_call")),
                        fmt_bytes(results.counter(name, "reserved_bytes")),
                    ]
                )
        out += [
            table(
                [
                    "benchmark",
                    "time per call (CUDA events, manual time)",
                    "allocations/call",
                    "reserved",
                ],
                gpu_rows,
            ),
            "",
        ]
    return out


def workspace_section(results, folder):
    rows, points = [], []
    for family in results.families():
        for preset in results.presets(family):
            name = f"certify/{family}/{preset}"
            workspace, bound = results.counter(name, "workspace_bytes"), results.counter(
                name, "lower_bound_bytes"
            )
            if workspace is None or bound is None:
                continue
            rows.append(
                [
                    family,
                    preset,
                    fmt_bytes(workspace),
                    fmt_bytes(bound),
                    f"{workspace / bound:.3f}" if bound else "-",
                ]
            )
            points.append((f"{family}/{preset}", workspace, bound))
    if not rows:
        return []
    out = [
        "## Workspace vs lower bound",
        "",
        (
            "The generators' greedy-by-size planner: bytes its workspace spans, against the largest"
            " sum of planes live at once (no placement can do better)."
        ),
        "",
        table(["family", "preset", "workspace", "lower bound", "workspace / bound"], rows),
        "",
    ]
    all_optimal = all(b and w == b for _, w, b in points)
    with open(os.path.join(folder, "workspace.dat"), "w") as handle:
        handle.write("# plan workspace_bytes lower_bound_bytes\n")
        for point in points:
            handle.write(" ".join(str(v) for v in point) + "\n")
    values = [v for _, w, b in points for v in (w, b) if v]
    script = (
        terminal(1300, 640)
        + "set output 'workspace.png'\nset title 'Planner workspace and the lower bound per plan"
        " (bytes, log scale)'\nset style data histograms\nset style histogram clustered gap"
        " 1\nset style fill solid 1.0 border lc rgb 'black'\nset boxwidth 0.9\nset grid noxtics"
        " ytics\nset key top left box opaque reverse Left\nset xtics rotate by -35\nset bmargin"
        " 7\nset rmargin 9\nset logscale y 1024\nset ylabel 'bytes'\nset yrange"
        f" [{min(values) / 2}:{max(values) * 3}]\n"
        + byte_tics(min(values) / 2, max(values) * 3)
        + f"plot 'workspace.dat' using 2:xtic(1) title 'workspace' lc rgb '{BARS[1]}', "
        f"'' using 3 title 'lower bound' lc rgb '{BARS[5]}'\n"
    )
    if draw(folder, "workspace.gp", script):
        out += figure(
            "workspace.png",
            "workspace vs lower bound",
            (
                "every plan's workspace equals its lower bound (ratio 1.000 in the table), so no"
                " ratio panel is drawn"
                if all_optimal
                else (
                    "where the two bars differ the planner left room over the lower bound (ratios"
                    " in the table)"
                )
            )
            + "; sizes span several orders of magnitude across presets.",
        )
    return out


def placement_parts(name):
    """placement/SET/INSTANCE/STRATEGY or placement/INSTANCE/STRATEGY -> (set, instance, strategy);
    without a SET the instance's name up to its first '-', '_', '.', ':' or digit names the set."""
    parts = name.split("/")
    if len(parts) >= 4:
        return parts[1], "/".join(parts[2:-1]), parts[-1]
    instance = parts[1]
    if not re.search(r"[-_.:]|(?<=[a-z])(?=\d)", instance):
        return "", instance, parts[2]  # bare names (minimalloc's A..H): one set, named by its range
    return re.split(r"[-_.:]|(?<=[a-z])(?=\d)", instance)[0], instance, parts[2]


def preset_order(name):
    """Sort key putting FAMILY-tiny before -small, -medium, -large (then by name)."""
    presets = ["tiny", "small", "medium", "large"]
    last = re.split(r"[-/]", name)[-1]
    return (
        re.sub(r"(tiny|small|medium|large)$", "", name),
        presets.index(last) if last in presets else -1,
        name,
    )


def placement_section(results, folder):
    """A table and a plot per instance set: each strategy's height against the lower bound."""
    names = [n for n in results.names("placement/") if len(n.split("/")) >= 3]
    if not names:
        return []

    def first(name, keys):
        return next(
            (results.counter(name, k) for k in keys if results.counter(name, k) is not None), None
        )

    sets = {}
    for name in names:
        sets.setdefault(placement_parts(name)[0], []).append(name)
    out = [
        "## Placement strategies",
        "",
        (
            "`placement/[SET/]INSTANCE/STRATEGY`: the height a strategy's placement reaches, the"
            " lower bound (the most bytes live at once), their ratio, the height against the"
            " capacity or the runtime's own arena where the benchmark gives them, the solve time"
            " (CPU, median [IQR] or one run), and whether the placement was checked valid (verdict"
            " 0 from the certificate, or `valid` 1)."
        ),
        "",
    ]
    if "" in sets:
        bare = sorted({placement_parts(n)[1] for n in sets[""]})
        sets[f"{bare[0]}–{bare[-1]}" if len(bare) > 1 else bare[0]] = sets.pop("")
    for set_name, members in sorted(sets.items()):
        rows, blocks = [], {}
        for name in sorted(members, key=lambda n: preset_order(placement_parts(n)[1]) + (n,)):
            _, instance, strategy = placement_parts(name)
            if name in results.errors:
                rows.append([instance, strategy, "skipped: " + results.errors[name]] + [""] * 5)
                continue
            height = first(name, ("height_bytes", "height"))
            bound = first(name, ("lower_bound_bytes", "lower_bound", "max_live_bytes"))
            ratio = first(name, ("height_over_lower_bound", "height_over_lower")) or (
                height / bound if height and bound else None
            )
            other = first(name, ("height_over_capacity", "height_over_litert"))
            verdict = results.counter(name, "verdict")
            valid = results.counter(name, "valid")
            checked = (
                f"verdict {fmt_count(verdict)}"
                if verdict is not None
                else ("valid" if valid == 1 else "INVALID" if valid is not None else "-")
            )
            rows.append(
                [
                    instance,
                    strategy,
                    fmt_bytes(height),
                    fmt_bytes(bound),
                    fmt_ratio(ratio, 4),
                    fmt_ratio(other, 4),
                    fmt_spread(results.time_stats(name)),
                    checked,
                ]
            )
            if ratio is not None:
                blocks.setdefault(strategy, []).append((instance, ratio))
        other_name = (
            "height / runtime's arena"
            if any("height_over_litert" in r for n in members for r in results.runs.get(n, [])[:1])
            else "height / capacity"
        )
        out += [
            f"### {set_name}",
            "",
            table(
                [
                    "instance",
                    "strategy",
                    "height",
                    "lower bound",
                    "height / bound",
                    other_name,
                    "solve time",
                    "checked",
                ],
                rows,
            ),
            "",
        ]
        if blocks:
            instances = sorted({i for pts in blocks.values() for i, _ in pts}, key=preset_order)
            stem = f"placement_{re.sub(r'[^A-Za-z0-9]', '_', set_name)}"  # A–H -> placement_A_H
            with open(os.path.join(folder, stem + ".dat"), "w") as handle:
                handle.write("# instance " + " ".join(blocks) + "\n")
                for instance in instances:
                    values = [dict(pts).get(instance, "?") for pts in blocks.values()]
                    handle.write(
                        re.sub(r"\s", "_", instance) + " " + " ".join(str(v) for v in values) + "\n"
                    )
            plots = ", ".join(
                f"'{stem}.dat' using {i + 2}:xtic(1) title '{s}' lc rgb '{BARS[i % len(BARS)]}'"
                for i, s in enumerate(blocks)
            )
            top = max(v for pts in blocks.values() for _, v in pts)
            ok = draw(
                folder,
                stem + ".gp",
                terminal(1300, 640)
                + f"set output '{stem}.png'\nset title 'Placement height / lower bound per instance"
                f" ({set_name})'\nset datafile missing '?'\nset style data histograms\nset style"
                " histogram clustered gap 1\nset style fill solid 1.0 border lc rgb 'black'\nset"
                " boxwidth 0.9\nset grid noxtics ytics\nset key outside right top\nset xtics"
                " rotate by -30\nset bmargin 10\nset ylabel 'height / lower bound (1 ="
                f" optimal)'\nset yrange [0:{max(top * 1.1, 1.1):.3f}]\nset arrow 1 from graph 0,"
                f" first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'\nplot {plots}\n",
            )
            if ok:
                out += figure(
                    f"{stem}.png",
                    f"placement {set_name}",
                    "bars at the dashed line reach the lower bound; the taller a bar, the more room"
                    " that strategy leaves unused on that instance (the runtime's own planner,"
                    " where present, is one of the strategies).",
                )
    return out


def tflite_section(results, folder):
    """certify/tflite/MODEL: real models' plans as LiteRT made them, next to the max-live bound."""
    names = [n for n in results.names("certify/tflite/")]
    if not names:
        return []
    rows = []
    for name in names:
        if name in results.errors:
            rows.append([name.split("/", 2)[2], "skipped: " + results.errors[name]] + [""] * 7)
            continue
        c = lambda key: results.counter(name, key)
        arena, bound = c("litert_arena_bytes"), c("lower_bound_bytes")
        rows.append(
            [
                name.split("/", 2)[2],
                fmt_count(c("ops")),
                fmt_count(c("tensors")),
                fmt_count(c("planes")),
                fmt_count(c("words")),
                fmt_spread(results.time_stats(name)),
                fmt_bytes(arena),
                fmt_bytes(bound),
                fmt_ratio(arena / bound if arena and bound else None, 4),
                fmt_count(c("verdict")),
            ]
        )
    out = [
        "## Real models (LiteRT plans)",
        "",
        (
            "`certify/tflite/MODEL`: a model's memory plan as LiteRT's arena planner made it,"
            " certified. The runtime's arena (lowest tensor to highest end) against the max-live"
            " lower bound; strategies of our own on the same lifetimes are in the placement section"
            " (set `tflite`)."
        ),
        "",
        table(
            [
                "model",
                "ops",
                "tensors",
                "planes",
                "words",
                "certify",
                "LiteRT arena",
                "lower bound",
                "arena / bound",
                "verdict",
            ],
            rows,
        ),
        "",
    ]
    probes = [n for n in results.names("precision/tflite/") if n not in results.errors]
    if probes:
        c = lambda name, key: results.counter(name, key)
        out += [
            (
                "`precision/tflite/MODEL`: the clean plan and two planted faults, exact oracle vs"
                " certificate (deterministic)."
            ),
            "",
            table(
                [
                    "model",
                    "site precision",
                    "safe plans certified",
                    "verdict classes as planted",
                    "unsound plans",
                ],
                [
                    [
                        n.split("/", 2)[2],
                        fmt_ratio(c(n, "site_precision"), 4),
                        (
                            f"{fmt_count(c(n, 'plans_certificate_safe'))} of"
                            f" {fmt_count(c(n, 'plans_exact_safe'))}"
                        ),
                        f"{fmt_count(c(n, 'verdict_classes_match'))} of {fmt_count(c(n, 'plans'))}",
                        fmt_count(c(n, "unsound_plans")),
                    ]
                    for n in probes
                ],
            ),
            "",
        ]
    return out


def instructions_section(results, folder):
    """Every instruction count in the files, next to the same benchmark's time."""
    if not results.instructions:
        return []
    rows = [
        [f"`{name}`", fmt_instructions(results, name), fmt_spread(results.time_stats(name))]
        for name in sorted(results.instructions)
    ]
    return [
        "## Instruction counts",
        "",
        (
            "Counted with callgrind (deterministic: two runs of one build agree exactly), per"
            f" {results.instructions_per or 'iteration'}; what scripts/compare judges first when"
            " both files have them. The time beside each is from the timed run of the same"
            " benchmark, if any."
        ),
        "",
        table(["benchmark", "instructions", "CPU time"], rows),
        "",
    ]


def skipped_section(results, folder):
    if not results.errors:
        return []
    return [
        "## Skipped benchmarks",
        "",
        table(["benchmark", "reason"], [[n, m] for n, m in sorted(results.errors.items())]),
        "",
    ]


def environment_section(results, folder):
    out = ["## Environment", ""]
    for path, context in results.files:
        out += [f"**{os.path.basename(path)}**", ""]
        keys = [
            "arenaref_commit",
            "arenaref_dirty",
            "arenaref_host",
            "arenaref_mode",
            "arenaref_command",
            "arenaref_filter",
            "date",
            "profile",
            "compiler",
            "c_flags",
            "build_type",
            "library_build_type",
            "benchmark_version",
            "hwloc_version",
            "jansson_version",
            "cuda_version",
            "gpus",
            "cpu_model",
            "cpu_count",
            "num_cpus",
            "mhz_per_cpu",
            "cpu_governor",
            "cpu_boost",
            "topology",
            "topology_xml",
            "seeds",
            "planted_slowdown",
        ]
        keys += sorted(k for k in context if k not in keys and k != "caches")
        out += [table(["field", "value"], [[k, str(context[k])] for k in keys if k in context]), ""]
    return out


# The report, in order. A new benchmark group adds its section here.
SECTIONS = [
    ("ratios", ratios_section),
    ("certificate", certificate_section),
    ("no-unrolling", no_unrolling_section),
    ("precision", precision_section),
    ("arena", arena_section),
    ("workspace", workspace_section),
    ("tflite", tflite_section),
    ("placement", placement_section),
    ("instructions", instructions_section),
    ("skipped", skipped_section),
    ("environment", environment_section),
]


def header(results, name):
    context = results.files[0][1]
    commits = sorted({c.get("arenaref_commit", "unknown")[:12] for _, c in results.files})
    lines = [
        f"# arenaref benchmark report: {name}",
        "",
        (
            f"From {', '.join(os.path.basename(p) for p, _ in results.files)} (commit"
            f" {', '.join(commits)}, dirty {context.get('arenaref_dirty', '?')}, profile"
            f" {context.get('profile', '?')}, {context.get('date', '')}). Host:"
            f" {context.get('cpu_model', '?')}, {context.get('num_cpus', '?')} CPUs; Google"
            f" Benchmark library build type {context.get('library_build_type', '?')}; GPUs:"
            f" {context.get('gpus', '?')}."
        ),
        "",
        (
            "**How to read the times.** Every time is CPU time per iteration (GPU benchmarks:"
            " manual time from CUDA events), the quantity `scripts/compare` judges: the median over"
            " the repetitions, with the interquartile range in brackets (25th–75th percentile); a"
            " benchmark that ran once says \"1 run\". On a shared machine wall time also counts"
            " waiting for a core, so it is not used. Instruction counts, where a file has them, are"
            " deterministic and shown beside the times."
        ),
        "",
    ]
    for path, noise in results.noise.items():
        load = noise.get("load_average_1min") or {}
        if load:
            lines += [
                (
                    f"Machine load during `{os.path.basename(path)}` (scripts/bench's"
                    f" {noise.get('samples', '?')} samples): 1-minute load average median"
                    f" {load.get('median')} (min {load.get('min')}, max {load.get('max')}) on"
                    f" {results.files[0][1].get('num_cpus', '?')} CPUs, CPU steal"
                    f" {noise.get('cpu_steal_percent', '?')}%, busy"
                    f" {noise.get('cpu_busy_percent', '?')}%."
                ),
                "",
            ]
    if results.replaced:
        lines += [
            (
                f"Merged with `--duplicates last`: {len(results.replaced)} benchmark(s) of an"
                f" earlier file were replaced by a later file's (e.g. `{results.replaced[0][0]}`)."
            ),
            "",
        ]
    elif results.duplicates == "pool" and len(results.files) > 1:
        lines += [
            (
                "Merged with `--duplicates pool`: the repetitions of a benchmark found in several"
                " files are pooled."
            ),
            "",
        ]
    digest, count = deterministic_digest(results)
    lines += [
        (
            f"Deterministic figures (verdicts, plan sizes, precision, workspace; {count} counters)"
            f" digest: `{digest}`. Another run of the same commit and profile must give the same"
            " digest; `scripts/reproduce RESULTS.json` checks it."
        ),
        "",
    ]
    return lines


def main():
    parser = argparse.ArgumentParser(
        prog="scripts/report",
        description="Write a report (report.md and PNG plots) from results files alone.",
        epilog=(
            "Exit: 0 written, 2 bad input (unreadable or not a results file, clashing benchmarks)."
        ),
    )
    parser.add_argument(
        "results",
        nargs="+",
        help=(
            "results files (scripts/bench's JSON); "
            "an instruction-mode file adds its counts to the timed file's benchmarks"
        ),
    )
    parser.add_argument(
        "--name",
        help=(
            "the report's name (default: the first file's name without .json); "
            "the folder is reports/NAME unless --out is given"
        ),
    )
    parser.add_argument("--out", help="write the report into this folder instead of reports/NAME")
    parser.add_argument(
        "--duplicates",
        default="error",
        choices=sorted(DUPLICATES),
        help="when several files hold the same benchmark: "
        + "; ".join(f"{k}: {v}" for k, v in DUPLICATES.items())
        + " (default: error)",
    )
    parser.add_argument(
        "--root", default=".", help="the repository root (scripts/report passes it)"
    )
    args = parser.parse_args()
    try:
        results = Results(args.results, args.duplicates)
    except BadInput as error:
        fail("scripts/report", error)
    name = args.name or os.path.splitext(os.path.basename(args.results[0]))[0]
    folder = args.out or os.path.join(args.root, "reports", name)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.endswith((".png", ".dat", ".gp")):
            os.remove(os.path.join(folder, old))
    lines = header(results, name)
    for _, section in SECTIONS:
        lines += section(results, folder)
    path = os.path.join(folder, "report.md")
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print(f"scripts/report: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
