"""The report's placement sections: strategies on MiniMalloc's instances and our presets, and real
runtimes' models (LiteRT's, llama.cpp's, XLA's, IREE's) beside the runtime's own planner, and one
table putting two compilers' plans of the same programs side by side (XLA and IREE)."""

import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import BARS, draw, terminal  # noqa: E402
from report_format import (  # noqa: E402
    fmt_spread,
    fmt_count,
    fmt_bytes,
    fmt_ratio,
    table,
    figure,
)


# The runtimes whose own planner the suite reports (bench/src/bench_runtimes.c): family, the
# runtime, its planner's name (the strategy placement/FAMILY/MODEL/NAME), its label, the counters
# of its bytes and of a placement's height over them.
RUNTIMES = [
    ("tflite", "LiteRT", "litert", "LiteRT arena", "litert_arena_bytes", "height_over_litert"),
    ("llama", "llama.cpp", "ggml-alloc", "ggml-alloc buffer", "planned_size",
     "height_over_planned_size"),
    ("xla", "XLA", "xla-temp", "XLA temp allocation", "planned_size", "height_over_planned_size"),
    ("iree", "IREE", "iree-pack", "IREE packed transients held at once", "planned_size",
     "height_over_planned_size"),
]
# Families compiled from the same programs, shown side by side: (family, compiler, own planner).
SIDE_BY_SIDE = [("xla", "XLA", "xla-temp"), ("iree", "IREE", "iree-pack")]
OWN_OVER = tuple(r[5] for r in RUNTIMES)


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
            other = first(name, ("height_over_capacity",) + OWN_OVER)
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
        own = next((r for r in RUNTIMES if r[0] == set_name), None)
        other_name = (
            "height / runtime's arena"
            if any(k in r for k in OWN_OVER for n in members for r in results.runs.get(n, [])[:1])
            else "height / capacity"
        )
        out += [f"### {set_name}", ""]
        if own:
            out += [
                f"The strategy `{own[2]}` is {own[1]}'s own planner ({own[3]}, as the runtime"
                " planned it); the others place the same lifetimes again.",
                "",
            ]
        out += [
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


def fmt_in_place(c):
    """In-place updates, with those reading across elements and those undecided where the plan
    says (a counter of -1: the capture does not say)."""
    n, r, u = c("in_place_updates"), c("updates_with_reads"), c("reads_undecided")
    if n is None or n < 0:
        return "-"
    known = [f"{fmt_count(x)}" if x is not None and x >= 0 else "-" for x in (r, u)]
    return fmt_count(n) if known == ["-", "-"] else f"{fmt_count(n)} ({known[0]}, {known[1]})"


def runtime_section(results, folder, family, runtime, own_counter, own_label):
    """certify/FAMILY/MODEL: a real runtime's plans as its own planner made them, next to the
    max-live bound; precision/FAMILY/MODEL: its clean plan and two planted faults."""
    names = [n for n in results.names(f"certify/{family}/")]
    if not names:
        return []
    rows = []
    for name in names:
        if name in results.errors:
            rows.append([name.split("/", 2)[2], "skipped: " + results.errors[name]] + [""] * 8)
            continue
        c = lambda key: results.counter(name, key)
        arena, bound = c(own_counter), c("lower_bound_bytes")
        rows.append(
            [
                name.split("/", 2)[2],
                fmt_count(c("ops")),
                fmt_count(c("tensors")),
                fmt_count(c("planes")),
                fmt_in_place(c),
                fmt_count(c("words")),
                fmt_spread(results.time_stats(name)),
                fmt_bytes(arena),
                fmt_bytes(bound),
                fmt_ratio(arena / bound if arena and bound else None, 4),
                fmt_count(c("verdict")),
            ]
        )
    out = [
        f"## Real models ({runtime} plans)",
        "",
        (
            f"`certify/{family}/MODEL`: a model's memory plan as {runtime}'s planner made it,"
            f" certified. The {own_label} against the max-live lower bound; strategies of our own"
            f" on the same lifetimes are in the placement section (set `{family}`). In place:"
            " the plan's in-place updates, and how many read across elements (`reads`: a slice"
            " copied to another index, a reduction over the buffer...) and were undecided by the"
            " capture (read whole); the verdict says whether those reads meet what they write."
        ),
        "",
        table(
            [
                "model",
                "ops",
                "tensors",
                "planes",
                "in place (reading across, undecided)",
                "words",
                "certify",
                own_label,
                "lower bound",
                "own planner / bound",
                "verdict",
            ],
            rows,
        ),
        "",
    ]
    probes = [n for n in results.names(f"precision/{family}/") if n not in results.errors]
    if probes:
        c = lambda name, key: results.counter(name, key)
        out += [
            (
                f"`precision/{family}/MODEL`: the clean plan and two planted faults, exact oracle"
                " vs certificate (deterministic)."
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


def side_by_side_section(results):
    """Each program of the families in SIDE_BY_SIDE, one row per compiler: its kernel launches
    (written, and executed by the plan), loops, in-place updates, the compiler's own size, the
    max-live bound and our best placement of the same lifetimes."""
    programs = {}
    for family, compiler, own in SIDE_BY_SIDE:
        for name in results.names(f"certify/{family}/"):
            program = name.split("/")[2]
            if program != "unavailable":
                programs.setdefault(program, {})[family] = name
    if len(programs) == 0 or not any(len(v) > 1 for v in programs.values()):
        return []
    def exact(value):  # bytes to the byte: the sizes differ by less than fmt_bytes shows
        return "-" if value is None else f"{int(value):,} B"

    rows = []
    for program in sorted(programs):
        for family, compiler, own in SIDE_BY_SIDE:
            name = programs[program].get(family)
            if name is None:
                rows.append([program, compiler, "not in this run"] + [""] * 7)
                continue
            if name in results.errors:
                rows.append([program, compiler, results.errors[name]] + [""] * 7)
                continue
            c = lambda key: results.counter(name, key)
            best, best_name = None, ""
            for p in results.names(f"placement/{family}/{program}/"):
                strategy = p.split("/")[3]
                if strategy == own or p in results.errors:
                    continue
                h = results.counter(p, "height_bytes")
                if h is not None and results.counter(p, "verdict") == 0 and (
                    best is None or h < best
                ):
                    best, best_name = h, strategy
            size = c("planned_size")
            rows.append(
                [
                    program,
                    compiler,
                    f"{fmt_count(c('kernel_launches'))} / {fmt_count(c('executed_launches'))}",
                    fmt_count(c("loops")),
                    fmt_count(c("in_place_updates")),
                    exact(size),
                    exact(c("lower_bound_bytes")),
                    f"{exact(best)} ({best_name})" if best is not None else "-",
                    fmt_ratio(best / size if best and size else None, 4),
                    fmt_count(c("verdict")),
                ]
            )
    return [
        "## Two compilers' plans of the same programs (" + ", ".join(
            f"{compiler}: `{family}`" for family, compiler, _ in SIDE_BY_SIDE) + ")",
        "",
        (
            "Each program of the xla family compiled by XLA and by IREE: the kernel launches the"
            " plan writes (a concurrent block of IREE's is one) and the launches it executes (the"
            " certificate's count: loops unrolled, host transfers and IREE's loop-state moves"
            " included), its loops and in-place updates, the compiler's own size (XLA: the temp"
            " allocation; IREE: its packed transients held at once), the max-live bound of the"
            " same lifetimes and our best strategy's height (verdict 0) against the compiler's"
            " own size. A row that says why is a program the exporter refused. The two own sizes"
            " do not hold the same values: XLA's temp allocation holds its loop state (a decode's"
            " KV cache) and its scratch, while IREE keeps loop state and results in allocations"
            " of their own beside its packs (workloads/runtimes/iree/README.md); each row's bound"
            " and best place the values of that compiler's own arena."
        ),
        "",
        table(
            [
                "program",
                "compiler",
                "launches written / executed",
                "loops",
                "in place",
                "own size",
                "bound",
                "our best",
                "best / own",
                "verdict",
            ],
            rows,
        ),
        "",
    ]


def runtimes_section(results, folder):
    """One section per runtime of RUNTIMES whose entries ran, then the side-by-side table."""
    out = []
    for family, runtime, _, label, counter, _ in RUNTIMES:
        out += runtime_section(results, folder, family, runtime, counter, label)
    return out + side_by_side_section(results)
