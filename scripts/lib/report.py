"""scripts/report's engine: Google Benchmark JSON in, reports/<name>/report.md and PNGs out.

Everything comes from the results files: names say what a benchmark is (certify/FAMILY/PRESET,
precision/FAMILY/few:K, arena/STREAM/STRATEGY, ...), counters carry the figures. Times are
medians over repetitions where there are repetitions. Plots are drawn by gnuplot (pngcairo)
from data files written beside them, which stay in the report folder so a plot can be redrawn.
"""
import argparse
import json
import math
import os
import re
import subprocess
import sys

SUFFIX = re.compile(r"/(repeats|iterations|min_time|threads):[^/]+|/(manual_time|real_time|process_time)")
NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
PRESETS = ["tiny", "small", "medium", "large"]
STRATEGIES = ["arena", "glibc", "mimalloc", "jemalloc", "mmap", "pool", "floor"]
STREAMS = ["small", "fixed", "uniform", "heavy", "large"]
COLORS = {"arena": "#9400d3", "glibc": "#009e73", "mimalloc": "#56b4e9", "jemalloc": "#e69f00", "mmap": "#555555",
          "pool": "#cc79a7", "floor": "#d55e00"}


DETERMINISTIC = ("words", "launches", "repeats", "references", "executed_launches", "instances", "verdict",
                 "verdict_matches_expect", "verdict_x1", "verdict_x8", "executed_launches_x1", "executed_launches_x8",
                 "workspace_bytes", "lower_bound_bytes", "file_bytes", "evaluations", "few", "plans", "sites",
                 "sites_exact_accepted", "sites_certificate_accepted", "site_precision", "plans_exact_safe",
                 "plans_certificate_safe", "plan_precision", "unsound_plans", "hull_slack_bytes", "hulls", "points",
                 "plans_exact_refused", "bits_match_library", "high_water_bytes", "allocations_per_call")


def deterministic_digest(results):
    """A digest of every deterministic counter: two runs of one commit must show the same."""
    import hashlib
    digest = hashlib.sha256()
    count = 0
    for name in sorted(results.runs):
        run = results.runs[name][0]
        for key in DETERMINISTIC:
            if key in run:
                digest.update(f"{name}\t{key}\t{run[key]!r}\n".encode())
                count += 1
    return digest.hexdigest()[:16], count


def base_name(name):
    return SUFFIX.sub("", name)


class Results:
    def __init__(self, paths):
        self.files = []
        self.runs = {}        # base name -> list of plain runs
        self.aggregates = {}  # base name -> {aggregate: entry}
        self.errors = {}      # base name -> message
        for path in paths:
            try:
                with open(path) as handle:
                    data = json.load(handle)
            except (OSError, ValueError) as error:
                sys.exit(f"scripts/report: cannot read {path}: {error}")
            if "benchmarks" not in data:
                sys.exit(f"scripts/report: {path} is not a Google Benchmark JSON file")
            self.files.append((path, data.get("context", {})))
            seen = set()
            for entry in data["benchmarks"]:
                name = base_name(entry.get("run_name", entry["name"]))
                if name not in seen:  # a later file replaces an earlier one's runs
                    seen.add(name)
                    self.runs.pop(name, None)
                    self.aggregates.pop(name, None)
                    self.errors.pop(name, None)
                if entry.get("error_occurred"):
                    self.errors[name] = entry.get("error_message", "skipped")
                elif entry.get("run_type") == "aggregate":
                    self.aggregates.setdefault(name, {})[entry.get("aggregate_name")] = entry
                else:
                    self.runs.setdefault(name, []).append(entry)

    def has(self, name):
        return name in self.runs

    def time_ns(self, name):
        """Median real time (manual time for GPU benchmarks) in ns, or None."""
        if name in self.aggregates and "median" in self.aggregates[name]:
            entry = self.aggregates[name]["median"]
        elif name in self.runs:
            values = sorted(run["real_time"] * NS[run["time_unit"]] for run in self.runs[name])
            n = len(values)
            return values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2
        else:
            return None
        return entry["real_time"] * NS[entry["time_unit"]]

    def counter(self, name, key, aggregate="median"):
        """A counter: the median aggregate's when repeated (rates), else the first run's."""
        if name in self.aggregates and aggregate in self.aggregates[name] and key in self.aggregates[name][aggregate]:
            return self.aggregates[name][aggregate][key]
        if name in self.runs and key in self.runs[name][0]:
            return self.runs[name][0][key]
        return None

    def names(self, prefix):
        return sorted(n for n in set(self.runs) | set(self.errors) if n.startswith(prefix))

    def families(self):
        order = ["decoder", "moe", "training", "pipeline", "encoder"]
        found = {n.split("/")[1] for prefix in ("certify/", "precision/", "ratios/") for n in self.names(prefix)}
        return [f for f in order if f in found] + sorted(found - set(order))

    def presets(self, family):
        found = {n.split("/")[2] for n in self.names(f"certify/{family}/")}
        return [p for p in PRESETS if p in found] + sorted(found - set(PRESETS))


def fmt_time(ns):
    if ns is None:
        return "-"
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("µs", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3g} {unit}"
    return f"{ns:.3g} ns"


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


def gnuplot(folder, script_name, script):
    path = os.path.join(folder, script_name)
    with open(path, "w") as handle:
        handle.write(script)
    result = subprocess.run(["gnuplot", script_name], cwd=folder, capture_output=True, text=True)
    if result.returncode != 0:
        print(f"scripts/report: gnuplot failed on {script_name}:\n{result.stderr}", file=sys.stderr)
        return False
    return True


TERMINAL = "set terminal pngcairo size 1000,640 enhanced font 'DejaVu Sans,11' noenhanced\n"


def write_data(folder, name, blocks):
    """blocks: [(title, [(x, y, ...)])] -> a gnuplot data file with one indexed block each."""
    with open(os.path.join(folder, name), "w") as handle:
        for title, points in blocks:
            handle.write(f"# {title}\n")
            for point in points:
                handle.write(" ".join(str(v) for v in point) + "\n")
            handle.write("\n\n")


def certificate_section(results, folder):
    out = ["## Certificate time", ""]
    families = results.families()
    rows = []
    blocks, side = [], {k: [] for k in ("certify", "exact", "load", "jansson", "floor")}
    for family in families:
        points = []
        for preset in results.presets(family):
            name = f"certify/{family}/{preset}"
            words = results.counter(name, "words")
            t = results.time_ns(name)
            exact_name = f"exact/{family}/{preset}"
            exact = results.time_ns(exact_name) if results.has(exact_name) else None
            exact_text = fmt_time(exact) if exact is not None else ("refused" if exact_name in results.errors else "-")
            rows.append([family, preset, fmt_count(words), fmt_count(results.counter(name, "launches")),
                         fmt_count(results.counter(name, "executed_launches")), fmt_time(t),
                         fmt_count(results.counter(name, "words_per_second")) + "/s",
                         fmt_count(results.counter(name, "launches_per_second")) + "/s",
                         fmt_count(results.counter(name, "executed_launches_per_second")) + "/s", exact_text,
                         fmt_time(results.time_ns(f"load/{family}/{preset}")),
                         fmt_time(results.time_ns(f"jansson/{family}/{preset}")),
                         fmt_time(results.time_ns(f"floor/{family}/{preset}")),
                         fmt_count(results.counter(name, "verdict"))])
            if words and t:
                points.append((words, t / 1e6))
            for kind in side:
                n = f"{kind}/{family}/{preset}"
                w = results.counter(n, "words")
                if results.has(n) and w:
                    side[kind].append((w, results.time_ns(n) / 1e6))
        if points:
            blocks.append((family, points))
    if not rows:
        return ["## Certificate time", "", "No certificate benchmarks in these results.", ""]
    out.append(table(["family", "preset", "words", "launches", "executed launches", "certify", "words/s",
                      "launches/s", "executed/s", "exact", "load (JSON)", "jansson parse", "floor", "verdict"], rows))
    out.append("")
    out.append("Times are medians. *exact*: the exact oracle (\"refused\": past its evaluation limit); *load*: "
               "`ar_plan_load_file` on the plan written as JSON; *jansson parse*: `json_load_file` of the same "
               "file; *floor*: one pass reading every parameter word.")
    out.append("")
    if blocks:
        write_data(folder, "cert_time.dat", blocks)
        plots = ", ".join(f"'cert_time.dat' index {i} using 1:2 with linespoints lw 2 pt 7 title '{title}'"
                          for i, (title, _) in enumerate(blocks))
        ok = gnuplot(folder, "cert_time.gp", TERMINAL + "set output 'cert_time.png'\n"
                     "set title 'Certificate time vs plan size, per workload family (ar_certify, median)'\n"
                     "set logscale xy\nset xlabel 'parameter words as written'\nset ylabel 'time (ms)'\n"
                     "set grid\nset key top left\nset format x '%g'\nset format y '%g'\n"
                     f"plot {plots}\n")
        if ok:
            out += ["![certificate time vs plan size](cert_time.png)", ""]
    side_blocks = [(k, sorted(v)) for k, v in side.items() if v]
    if side_blocks:
        write_data(folder, "cert_side.dat", side_blocks)
        styles = {"certify": "lw 2 pt 7", "exact": "lw 1 pt 5", "load": "lw 1 pt 9", "jansson": "lw 1 pt 11",
                  "floor": "lw 1 pt 13 dt 2"}
        plots = ", ".join(f"'cert_side.dat' index {i} using 1:2 with points {styles.get(title, '')} ps 1.3 title "
                          f"'{title}'" for i, (title, _) in enumerate(side_blocks))
        ok = gnuplot(folder, "cert_side.gp", TERMINAL + "set output 'cert_side.png'\n"
                     "set title 'Certificate, exact oracle, loader, jansson parse and the floor (all families)'\n"
                     "set logscale xy\nset xlabel 'parameter words as written'\nset ylabel 'time (ms)'\n"
                     "set grid\nset key top left\nset format x '%g'\nset format y '%g'\n"
                     f"plot {plots}\n")
        if ok:
            out += ["![certificate next to reading](cert_side.png)", ""]
    return out


def ordered(results, prefix):
    """Names prefix/FAMILY/PRESET... in family order, then preset order, then by name."""
    families = results.families()
    def key(name):
        parts = name.split("/")
        family = families.index(parts[1]) if len(parts) > 1 and parts[1] in families else len(families)
        preset = PRESETS.index(parts[2]) if len(parts) > 2 and parts[2] in PRESETS else len(PRESETS)
        return (family, preset, name)
    return sorted(results.names(prefix), key=key)


def ratios_section(results):
    names = ordered(results, "ratios/")
    if not names:
        return []
    out = ["## Issue 5 targets: ratios measured in one run", "",
           "Each row comes from one benchmark (`ratios/FAMILY/PRESET`) that measures everything in each of its "
           "iterations; figures are medians. Targets: certify/load ≤ 0.25, certify/floor ≤ 10, load/jansson ≤ 1.5, "
           "(D) x8/x1 < 1.10 (the same plan with every repeat's iterations ×8, shifts zeroed in both copies), "
           "loader peak memory ≤ 8× the file (a fresh process's VmHWM before and after `ar_plan_load_file`). The "
           "targets are stated for each family's largest preset: those rows are marked ✓/✗ (smaller plans are "
           "dominated by fixed costs and page granularity).", ""]
    rows = []
    largest = {}  # family -> its largest preset here: the targets are stated for those
    for name in names:
        largest[name.split("/")[1]] = name.split("/")[2]
    for name in names:
        if name in results.errors:
            rows.append([name.split("/")[1], name.split("/")[2], "skipped: " + results.errors[name]] + [""] * 11)
            continue
        c = lambda key: results.counter(name, key)
        target = largest.get(name.split("/")[1]) == name.split("/")[2]
        mark = lambda value, limit: "-" if value is None else (
            f"**{value:.3g}** {'✓' if value <= limit else '✗'}" if target else f"{value:.3g}")
        rows.append([name.split("/")[1], name.split("/")[2], fmt_count(c("words")), fmt_bytes(c("file_bytes")),
                     fmt_time(c("certify_ns")), fmt_time(c("load_ns")), fmt_time(c("jansson_ns")),
                     fmt_time(c("floor_ns")), mark(c("certify_over_load"), 0.25), mark(c("certify_over_floor"), 10),
                     mark(c("load_over_jansson"), 1.5), mark(c("d_scaling_x8"), 1.10),
                     f"{fmt_ratio(c('load_mb_per_s'))} / {fmt_ratio(c('jansson_mb_per_s'))}",
                     mark(c("load_peak_over_file"), 8)])
    out.append(table(["family", "preset", "words", "JSON", "certify", "load", "jansson", "floor", "certify/load",
                      "certify/floor", "load/jansson", "(D) x8/x1", "MB/s load / jansson", "load peak / file"],
                     rows))
    out.append("")
    for name in results.names("decode_loop/"):
        if name in results.errors:
            out += [f"`{name}`: skipped: {results.errors[name]}", ""]
            continue
        c = lambda key: results.counter(name, key)
        out += [f"Decode loop `{name}`: {fmt_count(c('references'))} schedule references, "
                f"{fmt_count(c('launches'))} launches as written, {fmt_count(c('executed_launches'))} executed "
                f"launches, {fmt_count(c('instances'))} phase instances: certified in "
                f"{fmt_time(results.time_ns(name))} (verdict {fmt_count(c('verdict'))}; target: well under a "
                f"second).", ""]
    return out


def precision_section(results, folder):
    names = results.names("precision/")
    if not names:
        return []
    out = ["## Interval-hull precision", "",
           "Per family: the clean medium plan and every precision-probe fault. *sites*: (launch, word) sites the "
           "certificate accepts among those the exact oracle accepts; *plans*: safe plans (exact verdict 0) the "
           "certificate certifies; *slack*: bytes the hulls claim that no iteration touches. All deterministic "
           "except *time saved* (1 − certificate time / exact time).", ""]
    rows, blocks = [], []
    for family in results.families():
        points = []
        entries = []
        for name in results.names(f"precision/{family}/"):
            m = re.search(r"few:(\d+)", name)
            if m:
                entries.append((int(m.group(1)), name))
        for few, name in sorted(entries):
            if name in results.errors:
                rows.append([family, few, "skipped: " + results.errors[name], "", "", "", "", ""])
                continue
            c = lambda key: results.counter(name, key)
            rows.append([family, few, f"{c('site_precision'):.4f} ({fmt_count(c('sites_certificate_accepted'))}/"
                                      f"{fmt_count(c('sites_exact_accepted'))})",
                         f"{c('plan_precision'):.3f} ({fmt_count(c('plans_certificate_safe'))}/"
                         f"{fmt_count(c('plans_exact_safe'))})", fmt_bytes(c("hull_slack_bytes")),
                         f"{fmt_count(c('hulls'))} / {fmt_count(c('points'))}",
                         f"{100 * c('time_saved_vs_exact'):.1f}%" if c("time_saved_vs_exact") is not None else "-",
                         fmt_count(c("unsound_plans"))])
            points.append((few, c("site_precision"), c("plan_precision"),
                           (c("sites_exact_accepted") or 0) - (c("sites_certificate_accepted") or 0),
                           max((c("hull_slack_bytes") or 0) / (1 << 20), 1e-3)))
        if points:
            blocks.append((family, points))
    out.append(table(["family", "few", "site precision (accepted/exact)", "plan precision", "hull slack",
                      "hulls / points", "time saved vs exact", "unsound plans"], rows))
    out.append("")
    if blocks:
        write_data(folder, "precision.dat", blocks)
        def lines(column):
            return ", ".join(f"'precision.dat' index {i} using 1:{column} with linespoints lw 2 pt {4 + 2 * i} "
                             f"ps 1.4 dt {1 + i} title '{t}'" for i, (t, _) in enumerate(blocks))
        ok = gnuplot(folder, "precision.gp", TERMINAL.replace("1000,640", "1500,520") +
                     "set output 'precision.png'\nset multiplot layout 1,3 title 'Interval-hull precision vs few "
                     "(medium presets and precision probes; lines overlap where families agree)'\n"
                     "set logscale x 2\nset xrange [0.8:320]\nset grid\nset key top right\n"
                     "set xlabel 'few (iterations given points, not a hull)'\n"
                     "set title 'falsely rejected sites (exact accepts, certificate rejects)'\n"
                     f"set ylabel 'sites'\nset yrange [0:*]\nplot {lines(4)}\n"
                     "set title 'safe plans the certificate certifies'\nset ylabel 'share of safe plans'\n"
                     f"set yrange [0:1.05]\nset key bottom right\nplot {lines(3)}\n"
                     "set title 'hull slack'\nset ylabel 'MiB (log scale)'\nset logscale y\nset yrange [*:*]\n"
                     f"set format y '%g'\nset key bottom left\nplot {lines(5)}\nunset multiplot\n")
        if ok:
            out += ["![precision vs few](precision.png)", ""]
    return out


def arena_section(results, folder):
    names = results.names("arena/")
    if not names:
        return []
    out = ["## Arena steady state (host pages)", "",
           "The same seeded stream of `ar_text_encode` calls per stream; one iteration is one call. Streams: "
           "`small` (1-4 items of 1-8 tokens, 4 dimensions: the encoder's compute is about 100 ns, so the call "
           "costs about what its allocations cost), `fixed`, `uniform`, `heavy` (32 dimensions, 37-65 µs of "
           "compute per call, which hides the allocator), `large` (8 items of 2048-16384 tokens, 16 dimensions, "
           "about 4.5 MiB per call). `mmap` (large stream only) maps fresh pages for each output and unmaps them, "
           "as glibc's malloc does above its mmap threshold; glibc itself raises that threshold to the largest "
           "block freed (up to 32 MiB), so after the first calls it stops mapping on this stream.", "",
           "- **time per call**: median over repetitions of the uninstrumented timed loop; **vs floor**: divided by "
           "the time of caller-owned buffers on the same stream.",
           "- **alloc path**: what the strategy's own allocation path costs per call, measured in a probe pass "
           "after the timed loop (a whole pass over the stream, or as many calls as were timed, at most 1024) with "
           "CLOCK_MONOTONIC around its three allocations and around its three frees (pool: pops and pushes; "
           "floor: the same intervals around nothing, the measurement's zero), less the clock's own cost; the "
           "median and the mean over the probe calls. The **arena** cannot be taken apart from outside, so its "
           "figure is an `ar_text_encode` of an empty batch on the same warm arena: the library's fixed per-call "
           "path (argument check, holder CAS, rewind, reserve check, release), interleaved with the stream's calls; "
           "its growths are counted under allocations (none after warm-up). The clock steps by the `timer "
           "resolution` shown below, so medians under a few steps are coarse; the mean resolves finer.",
           "- First-touch page faults are paid where the encoder writes fresh pages, not in the allocation path: "
           "they show in time per call and in **minor faults/call** (getrusage of the thread over the timed loop; "
           "**warm-up faults/call** over the first pass, in a process that has run other benchmarks before).",
           "- **allocations/call**: arena growths, allocator calls, pool misses after warm-up; **reserved** vs "
           "**high water**: bytes the strategy holds vs the most bytes one call writes; **NUMA node** of the latest "
           "output pages (-1: unknown; `mmap` has unmapped them by the time they are looked up).", ""]
    rows, data = [], []
    streams = [s for s in STREAMS if any(n.startswith(f"arena/{s}/") for n in names)]
    strategies = [s for s in STRATEGIES if any(n.endswith(f"/{s}") for n in names)]
    resolution = None
    for stream in streams:
        floor = results.time_ns(f"arena/{stream}/floor")
        for strategy in strategies:
            name = f"arena/{stream}/{strategy}"
            if name in results.errors:
                rows.append([stream, strategy, "skipped: " + results.errors[name]] + [""] * 10)
                continue
            if not results.has(name):
                continue
            c = lambda key: results.counter(name, key)
            t = results.time_ns(name)
            resolution = resolution or c("timer_resolution_ns")
            rows.append([stream, strategy, fmt_time(t), fmt_ratio(t / floor if t and floor else None),
                         fmt_time(c("alloc_path_ns")), fmt_time(c("alloc_path_mean_ns")),
                         fmt_ratio(c("allocations_per_call")), fmt_ratio(c("minor_faults_per_call")),
                         fmt_ratio(c("warmup_minor_faults_per_call")), fmt_bytes(c("reserved_bytes")),
                         fmt_bytes(c("high_water_bytes")), fmt_count(c("numa_node"))])

        def value(strategy, compute):
            name = f"arena/{stream}/{strategy}"
            if not results.has(name) or name in results.errors:
                return "?"
            result = compute(name)
            return "?" if result is None else result

        # The log axis cannot show 0: a median under 1 ns is drawn at 1 ns (the table has the figure).
        data.append([stream] +
                    [value(s, lambda n: max(results.counter(n, "alloc_path_ns") or 0, 1.0)) for s in strategies] +
                    [value(s, lambda n: results.time_ns(n) / floor if floor else None) for s in strategies] +
                    [value(s, lambda n: results.counter(n, "allocations_per_call")) for s in strategies] +
                    [value(s, lambda n: (results.counter(n, "reserved_bytes") or 0) /
                           (results.counter(n, "high_water_bytes") or 1)) for s in strategies])
    out.append(table(["stream", "strategy", "time per call", "vs floor", "alloc path (median)", "alloc path (mean)",
                      "allocations/call", "minor faults/call", "warm-up faults/call", "reserved", "high water",
                      "NUMA node"], rows))
    out.append("")
    if resolution is not None:
        out += [f"Timer resolution seen by the probe: {fmt_time(resolution)} per step.", ""]
    if data and strategies:
        with open(os.path.join(folder, "arena.dat"), "w") as handle:
            handle.write("# stream " + " ".join(f"{s}_{what}" for what in ("alloc_ns", "vs_floor", "allocs", "reserved_over_hw")
                                                for s in strategies) + "\n")
            for row in data:
                handle.write(" ".join(str(v) for v in row) + "\n")
        k = len(strategies)
        numbers = lambda block: [v for row in data for v in row[1 + block * k:1 + (block + 1) * k] if v != "?"]

        def plot(block, skip=()):
            return "plot " + ", ".join(f"'arena.dat' using {block * k + i + 2}:xtic(1) title '{s}' "
                                       f"lc rgb '{COLORS.get(s, '#000000')}'"
                                       for i, s in enumerate(strategies) if s not in skip)
        top_ratio = max(numbers(1) + [1.0])
        top_allocs = max(numbers(2) + [1.0])
        top_reserved = max(numbers(3) + [1.0])
        ok = gnuplot(folder, "arena.gp", TERMINAL.replace("1000,640", "1500,1050") +
                     "set output 'arena.png'\nset datafile missing '?'\n"
                     "set multiplot layout 2,2 title 'Arena strategies over the same ar_text_encode stream "
                     "(medians after one warm-up pass; see the report for what each panel measures)'\n"
                     "set style data histograms\nset style histogram clustered gap 1\n"
                     "set style fill solid 0.85 border -1\nset boxwidth 0.9\nset grid ytics\n"
                     "set key outside right top vertical\n"
                     f"set xrange [-0.6:{len(data) - 0.4}]\nset xlabel 'stream (batch sizes)'\n"
                     "set title 'allocation path per call (arena: an empty-batch call; floor: 0, not drawn)'\n"
                     "set logscale y\nset format y '%g'\nset ylabel 'ns per call (log scale)'\n"
                     "set yrange [1:*]\n" + plot(0, skip=("floor",)) + "\n"
                     "unset logscale y\nset format y '%g'\n"
                     "set title 'total time per call relative to caller-owned buffers (floor = 1)'\n"
                     f"set ylabel 'time per call / floor time'\nset yrange [0:{top_ratio * 1.12:.2f}]\n"
                     "set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black'\n" +
                     plot(1) + "\nunset arrow 1\n"
                     "set title 'allocator calls per call after warm-up (0: arena growths, pool misses, floor)'\n"
                     f"set ylabel 'allocations per call'\nset yrange [0:{top_allocs * 1.15:.2f}]\n" + plot(2) + "\n"
                     "set title 'bytes held vs the most bytes one call writes'\n"
                     f"set ylabel 'reserved / high water'\nset yrange [0:{top_reserved * 1.12:.2f}]\n" + plot(3) +
                     "\nunset multiplot\n")
        if ok:
            out += ["![arena strategies](arena.png)", ""]
    gpu = results.names("gpu/")
    if gpu:
        out += ["### GPU", ""]
        gpu_rows = []
        for name in gpu:
            if name in results.errors:
                gpu_rows.append([name, "skipped: " + results.errors[name], "", ""])
            else:
                gpu_rows.append([name, fmt_time(results.time_ns(name)),
                                 fmt_ratio(results.counter(name, "allocations_per_call")),
                                 fmt_bytes(results.counter(name, "reserved_bytes"))])
        out += [table(["benchmark", "time per call (CUDA events)", "allocations/call", "reserved"], gpu_rows), ""]
    return out


def workspace_section(results, folder):
    rows, points = [], []
    for family in results.families():
        for preset in results.presets(family):
            name = f"certify/{family}/{preset}"
            workspace, bound = results.counter(name, "workspace_bytes"), results.counter(name, "lower_bound_bytes")
            if workspace is None or bound is None:
                continue
            rows.append([family, preset, fmt_bytes(workspace), fmt_bytes(bound),
                         f"{workspace / bound:.3f}" if bound else "-"])
            points.append((f"{family}/{preset}", workspace / (1 << 20), bound / (1 << 20)))
    if not rows:
        return []
    out = ["## Workspace vs lower bound", "",
           "The generators' greedy-by-size planner: bytes its workspace spans, against the largest sum of planes "
           "live at once (no placement can do better).", "",
           table(["family", "preset", "workspace", "lower bound", "workspace / bound"], rows), ""]
    with open(os.path.join(folder, "workspace.dat"), "w") as handle:
        handle.write("# plan workspace lower_bound\n")
        for point in points:
            handle.write(" ".join(str(v) for v in point) + "\n")
    ok = gnuplot(folder, "workspace.gp", TERMINAL.replace("1000,640", "1300,900") +
                 "set output 'workspace.png'\nset multiplot layout 2,1 title 'Planner workspace vs lower bound "
                 "per plan'\nset style data histograms\nset style histogram clustered gap 1\n"
                 "set style fill solid 0.8 border -1\nset boxwidth 0.9\nset grid ytics\nset key top left\n"
                 "set xtics rotate by -35\nset rmargin 10\nset bmargin 6\n"
                 "set title 'bytes'\nset logscale y\nset ylabel 'MiB (log scale)'\n"
                 "plot 'workspace.dat' using 2:xtic(1) title 'workspace', '' using 3 title 'lower bound'\n"
                 "set title 'workspace / lower bound (1 = optimal)'\nunset logscale y\nset ylabel 'ratio'\n"
                 "set yrange [0:1.25]\nunset key\nplot 'workspace.dat' using ($2/$3):xtic(1) title 'workspace / lower bound' "
                 "lc rgb '#4477aa'\nunset multiplot\n")
    if ok:
        out += ["![workspace vs lower bound](workspace.png)", ""]
    return out


def environment_section(results):
    out = ["## Environment", ""]
    for path, context in results.files:
        out.append(f"**{os.path.basename(path)}**")
        out.append("")
        keys = ["arenaref_commit", "arenaref_dirty", "arenaref_host", "date", "profile", "compiler", "c_flags",
                "build_type", "library_build_type", "benchmark_version", "hwloc_version", "jansson_version",
                "cuda_version", "gpus", "cpu_model", "cpu_count", "num_cpus", "mhz_per_cpu", "cpu_governor",
                "cpu_boost", "topology", "topology_xml", "seeds", "planted_slowdown"]
        keys += sorted(k for k in context if k not in keys and k != "caches")
        rows = [[k, str(context[k])] for k in keys if k in context]
        out += [table(["field", "value"], rows), ""]
    return out


def main():
    parser = argparse.ArgumentParser(prog="scripts/report")
    parser.add_argument("results", nargs="+")
    parser.add_argument("--name")
    parser.add_argument("--root", default=".")
    args = parser.parse_args()
    results = Results(args.results)
    name = args.name or os.path.splitext(os.path.basename(args.results[0]))[0]
    folder = os.path.join(args.root, "reports", name)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.endswith((".png", ".dat", ".gp")):
            os.remove(os.path.join(folder, old))
    context = results.files[0][1]
    lines = [f"# arenaref benchmark report: {name}", "",
             f"From {', '.join(os.path.basename(p) for p, _ in results.files)} "
             f"(commit {context.get('arenaref_commit', 'unknown')[:12]}, dirty {context.get('arenaref_dirty', '?')}, "
             f"profile {context.get('profile', '?')}, {context.get('date', '')}). Host: {context.get('cpu_model', '?')}, "
             f"{context.get('num_cpus', '?')} CPUs; Google Benchmark library build type "
             f"{context.get('library_build_type', '?')}; GPUs: {context.get('gpus', '?')}.", ""]
    digest, count = deterministic_digest(results)
    lines += [f"Deterministic figures (verdicts, plan sizes, precision, workspace; {count} counters) digest: "
              f"`{digest}`. These figures do not depend on timing: another run of the same commit "
              f"must print the same digest (compare two reports to check).", ""]
    lines += ratios_section(results)
    lines += certificate_section(results, folder)
    lines += precision_section(results, folder)
    lines += arena_section(results, folder)
    lines += workspace_section(results, folder)
    if results.errors:
        lines += ["## Skipped benchmarks", "", table(["benchmark", "reason"],
                                                     [[n, m] for n, m in sorted(results.errors.items())]), ""]
    lines += environment_section(results)
    path = os.path.join(folder, "report.md")
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print(f"scripts/report: wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
