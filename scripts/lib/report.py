"""scripts/report's engine: results files in, a folder with report.md and PNG plots out.

Everything comes from the results files: names say what a benchmark is (certify/FAMILY/PRESET,
precision/FAMILY/few:K, arena/STREAM/STRATEGY, placement/INSTANCE/STRATEGY, ...), counters carry
the figures. Every time is CPU time per iteration (manual time for GPU benchmarks), the quantity
scripts/compare judges: a median over repetitions with its interquartile range. Each section is a
function in SECTIONS (results, folder) -> markdown lines; a section with nothing to show returns
[]. Plots are drawn by gnuplot from .dat/.gp files left beside them (scripts/lib/plot.py).
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import (  # noqa: E402
    byte_tics,
    colour,
    draw,
    log_tics,
    style,
    terminal,
    write_blocks,
)
from results import (  # noqa: E402
    DUPLICATES,
    BadInput,
    Results,
    deterministic_digest,
    fail,
    load_file,
    say_left_out,
)
from report_format import (  # noqa: E402
    fmt_spread,
    fmt_count,
    fmt_instructions,
    fmt_bytes,
    fmt_ratio,
    table,
    figure,
    ordered,
)
from report_arena import arena_section, workspace_section  # noqa: E402
from report_placement import placement_section, runtimes_section  # noqa: E402
import report_hosts  # noqa: E402

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


def left_out_section(results, folder):
    """What was read but not used, as printed on the command line."""
    if not results.left_out:
        return []
    return [
        "## Left out",
        "",
        table(["what", "why"], [[f"`{w}`", why] for w, why in results.left_out]),
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
    ("runtimes", runtimes_section),
    ("placement", placement_section),
    ("instructions", instructions_section),
    ("skipped", skipped_section),
    ("left out", left_out_section),
    ("environment", environment_section),
]
# The benchmark groups the sections above show (a new group's section adds its prefix here):
# a benchmark of another group is in no table, and the report says so.
SHOWN = (
    "ratios/",
    "decode_loop/",
    "certify/",
    "exact/",
    "load/",
    "jansson/",
    "floor/",
    "precision/",
    "arena/",
    "gpu/",
    "placement/",
)


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
        "--leaderboard",
        action="append",
        default=[],
        metavar="TSV",
        help="a scripts/place-leaderboard table (its leaderboard.tsv): a section of placement "
        "against the field, ours and the peers, with its quality-against-time plot (repeatable)",
    )
    parser.add_argument(
        "--root", default=".", help="the repository root (scripts/report passes it)"
    )
    args = parser.parse_args()
    name = args.name or os.path.splitext(os.path.basename(args.results[0]))[0]
    folder = args.out or os.path.join(args.root, "reports", name)
    try:
        kinds = report_hosts.kinds_of(args.results, load_file)
        results = Results(args.results, args.duplicates) if len(kinds) == 1 else None
    except BadInput as error:
        fail("scripts/report", error)
    if results is not None:
        # Every input read but not used is said, with the reason, on every run.
        unshown = [
            (n, "no section of the report shows its group (report.py, SHOWN)")
            for n in sorted(results.runs)
            if not n.startswith(SHOWN) and n not in results.instructions
        ]
        results.left_out += unshown
        say_left_out("scripts/report", results.left_out)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.endswith((".png", ".dat", ".gp")):
            os.remove(os.path.join(folder, old))
    if results is None:  # files from several host kinds: side by side, then a section per kind
        try:
            lines = report_hosts.report(kinds, args.duplicates, name, folder, SECTIONS)
        except BadInput as error:
            fail("scripts/report", error)
    else:
        lines = header(results, name)
        for _, section in SECTIONS:
            lines += section(results, folder)
    for k, tsv in enumerate(args.leaderboard):
        from report_leaderboard import leaderboard_section

        if not os.path.isfile(tsv):
            fail("scripts/report", BadInput(f"--leaderboard {tsv}: no such file"))
        part = os.path.join(folder, f"leaderboard{k + 1}") if len(args.leaderboard) > 1 else folder
        os.makedirs(part, exist_ok=True)
        section = leaderboard_section(tsv, part)
        if part != folder:  # its plot lives in its own folder
            section = [l.replace("](leaderboard_", f"](leaderboard{k + 1}/leaderboard_") for l in section]
        lines += section
    path = os.path.join(folder, "report.md")
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print(f"scripts/report: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
