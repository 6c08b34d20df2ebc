"""The report's arena sections: host-page strategies side by side, and the workspace."""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import (  # noqa: E402
    BARS,
    byte_tics,
    draw,
    log_tics,
    terminal,
)
from report_format import (  # noqa: E402
    fmt_time,
    fmt_spread,
    fmt_count,
    fmt_instructions,
    fmt_bytes,
    fmt_ratio,
    table,
    figure,
    STRATEGIES,
    STREAMS,
)


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
                f" yrange [0:{max(reserved) * 1.12:.2f}]\n" + bars(7, errors=False)
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
