"""scripts/history's engine: results files of many commits in, reports/history/ out.

Commits are put in git's topological order of HEAD's ancestry (not file dates); files of one
commit are pooled (the quick profile's only, when a commit has files of several profiles). Per
judged benchmark (scripts/compare's regression set) the instruction count and CPU time per commit
are tabled and plotted, and MongoDB's e-divisive means (signal-processing-algorithms) looks for
change points in the instruction series (the time series where there are no counts). Each change
point names the commit range it lies in. Instruction counts are exact, so every step between two
measured commits past the threshold is listed as well: the two lists can be held side by side.
Runs inside build/venv (scripts/history installs the pinned group 'history').
"""

import argparse
import glob
import os
import re
import subprocess
import sys

import numpy as np
from signal_processing_algorithms.energy_statistics import energy_statistics

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plot import colour, draw, log_tics, style, terminal  # noqa: E402
from report_format import table  # noqa: E402
from results import BadInput, Results, kept_by, load_file, say_left_out  # noqa: E402

PROG = "scripts/history"
JUDGED = re.compile(r"^(certify|decode_loop)/|^(arena|gpu)/[^/]+/arena(/|$)")


def git(root, *args):
    result = subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)
    return result.stdout.strip() if result.returncode == 0 else None


def find_files(paths):
    found = []
    for path in paths:
        if os.path.isdir(path):
            found += glob.glob(os.path.join(path, "**", "*.json"), recursive=True)
        elif os.path.exists(path):
            found.append(path)
        else:
            raise BadInput(f"{path}: no such file or folder")
    return sorted(set(found))


def gather(root, paths):
    """{commit: Results}, the topological order, and what was left out and why."""
    order = (git(root, "rev-list", "--topo-order", "--reverse", "HEAD") or "").split()
    position = {sha: i for i, sha in enumerate(order)}
    by_commit, left_out = {}, []
    for path in find_files(paths):
        try:
            data = load_file(path)
        except BadInput as error:
            left_out.append((path, str(error)))
            continue
        context = data.get("context", {})
        sha = git(
            root, "rev-parse", "--verify", "-q", f"{context.get('arenaref_commit', '')}^{{commit}}"
        )
        if str(context.get("arenaref_dirty", "")).lower() == "true":
            left_out.append((path, "made from a dirty tree"))
        elif not sha or sha not in position:
            left_out.append(
                (
                    path,
                    f"commit {context.get('arenaref_commit', '?')[:12]} is not in HEAD's history",
                )
            )
        elif context.get("planted_slowdown", "1") not in ("1", "1.0", 1):
            left_out.append((path, "a planted slowdown"))
        else:
            by_commit.setdefault(sha, []).append((path, context.get("profile", "quick")))
    # Times of another machine kind are not comparable: keep the most common CPU model's files.
    # Counts made another way (the bench's timed loop vs one ar_certify call) are not either:
    # files counted another way than most counted files are left out.
    # A tie goes to the newest commit's (what was just run), never to set order.
    models, methods, newest = {}, {}, {}
    for sha, files in by_commit.items():
        for path, _ in files:
            context = load_file(path).get("context", {})
            models[path] = context.get("cpu_model", "?")
            newest[path] = position[sha]
            if context.get("instructions_per"):
                methods[path] = context["instructions_per"]

    def most_common(values):
        if not values:
            return None, False
        rank = lambda v: (
            list(values.values()).count(v),
            max(newest[f] for f in values if values[f] == v),
        )
        ranked = sorted(set(values.values()), key=rank, reverse=True)
        tie = len(ranked) > 1 and rank(ranked[0])[0] == rank(ranked[1])[0]
        return ranked[0], tie

    method, _ = most_common(methods)
    for sha in list(by_commit):
        left_out += [
            (f, f"instructions counted another way ({methods[f][:60]}...)")
            for f, _ in by_commit[sha]
            if f in methods and methods[f] != method
        ]
        by_commit[sha] = [(f, p) for f, p in by_commit[sha] if methods.get(f, method) == method]
        if not by_commit[sha]:
            del by_commit[sha]
    common, tie = most_common({f: m for f, m in models.items() if methods.get(f, method) == method})
    kept = f"kept: {common}, as many files, the newest commit's" if tie else f"most files: {common}"
    for sha in list(by_commit):
        left_out += [
            (f, f"another CPU ({models[f]}; {kept})")
            for f, _ in by_commit[sha]
            if models[f] != common
        ]
        by_commit[sha] = [(f, p) for f, p in by_commit[sha] if models[f] == common]
        if not by_commit[sha]:
            del by_commit[sha]
    merged = {}
    for sha, files in by_commit.items():
        profiles = {p for _, p in files}
        keep = [
            f for f, p in files if p == ("quick" if "quick" in profiles else sorted(profiles)[0])
        ]
        left_out += [
            (f, "another profile than this commit's other files") for f, _ in files if f not in keep
        ]
        try:
            merged[sha] = Results(keep, duplicates="pool")
        except BadInput as error:
            left_out.append((", ".join(keep), str(error)))
    commits = sorted(merged, key=position.get)
    return merged, commits, left_out


def subject(root, sha):
    return (git(root, "log", "-1", "--format=%s", sha) or "")[:90]


def between(root, old, new):
    """The commits after old up to new (first parent chain), as (count, first, last)."""
    shas = (git(root, "rev-list", "--reverse", f"{old}..{new}") or "").split()
    return len(shas), (shas[0] if shas else new), new


def change_points(values, pvalue):
    np.random.seed(1)  # the permutation test draws at random: a fixed seed gives one answer
    series = np.array(values, dtype=float)
    if len(series) < 4 or np.all(series == series[0]):
        return []
    return sorted(energy_statistics.e_divisive(series, pvalue=pvalue, permutations=200))


def describe(root, commits, index, before, after):
    count, first, last = between(root, commits[index - 1], commits[index])
    change = (after / before - 1) * 100 if before else float("nan")
    span = (
        f"{first[:10]}"
        if count == 1
        else (
            f"{commits[index - 1][:10]}..{last[:10]} ({count} commits: "
            f"first {first[:10]}, last {last[:10]})"
        )
    )
    return change, span


def main():
    parser = argparse.ArgumentParser(
        prog=PROG, description="History of the judged benchmarks across commits."
    )
    parser.add_argument("paths", nargs="*", help="results files or folders (default: results/)")
    parser.add_argument("--out", help="the report folder (default reports/history)")
    parser.add_argument(
        "--threshold", type=float, default=1.0, help="percent a change must exceed (default 1)"
    )
    parser.add_argument(
        "--pvalue", type=float, default=0.05, help="e-divisive significance level (default 0.05)"
    )
    parser.add_argument("--root", default=".")
    args = parser.parse_args()
    root = os.path.abspath(args.root)
    try:
        merged, commits, left_out = gather(root, args.paths or [os.path.join(root, "results")])
    except BadInput as error:
        print(f"{PROG}: {error}", file=sys.stderr)
        return 2
    # Every file left out is said, with the reason, in every run (the report repeats it).
    for path, why in left_out:
        shown = os.path.relpath(path, root) if path.startswith(root + os.sep) else path
        say_left_out(PROG, [(shown, why)])
    if len(commits) < 2:
        print(
            f"{PROG}: results of {len(commits)} commit(s) of HEAD's history found"
            + (
                f" ({kept_by(f'{len(left_out)} file(s)')}; a file of another CPU model"
                " counts only where it is the most common one or, in a tie, the newest commit's)"
                if left_out
                else ""
            )
            + "; a history needs two or more (scripts/history --collect REV adds one)",
            file=sys.stderr,
        )
        return 2
    folder = os.path.abspath(args.out or os.path.join(root, "reports", "history"))
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):
        if old.endswith((".png", ".dat", ".gp")):
            os.remove(os.path.join(folder, old))
    names = sorted(
        {n for r in merged.values() for n in set(r.runs) | set(r.instructions) if JUDGED.search(n)}
    )
    lines = [
        "# Benchmark history",
        "",
        (
            f"{len(commits)} commits of HEAD's history, in git's topological order (oldest first),"
            f" from {sum(len(r.files) for r in merged.values())} results files. Judged benchmarks"
            " only (the regression set of `scripts/compare`). Instructions: callgrind counts,"
            " exact; time: CPU time, median [IQR] over the repetitions of that commit's files"
            " (runs of different commits were taken at different moments on a shared machine, so"
            " time steps under ~20% are not reliable; instruction steps are)."
        ),
        "",
        "| # | commit | subject | files |",
        "| --- | --- | --- | --- |",
    ]
    for i, sha in enumerate(commits):
        lines.append(
            f"| {i} | `{sha[:10]}` | {subject(root, sha)} | "
            f"{', '.join(os.path.basename(p) for p, _ in merged[sha].files)} |"
        )
    lines.append("")
    found_rows, step_rows = [], []
    series = {}
    for name in names:
        counts = [merged[c].instructions_of(name) for c in commits]
        times = [merged[c].time_stats(name) for c in commits]
        series[name] = (counts, times)
        present = [(i, c[0]) for i, c in enumerate(counts) if c]
        kind = "instructions"
        if len(present) < 4:
            present = [(i, t[0]) for i, t in enumerate(times) if t]
            kind = "CPU time"
        if len(present) < 4:
            continue
        index = [i for i, _ in present]
        values = [v for _, v in present]
        points = change_points(values, args.pvalue)
        bounds = [0] + points + [len(values)]
        for k, cp in enumerate(points):
            before = float(np.mean(values[bounds[k] : cp]))
            after = float(np.mean(values[cp : bounds[k + 2]]))
            change, span = describe(root, [commits[i] for i in index], cp, before, after)
            if abs(change) > args.threshold:
                found_rows.append([f"`{name}`", kind, f"{change:+.1f}%", span])
        if kind == "instructions":
            for k in range(1, len(values)):
                change = (values[k] / values[k - 1] - 1) * 100
                if abs(change) > args.threshold:
                    _, span = describe(
                        root, [commits[i] for i in index], k, values[k - 1], values[k]
                    )
                    step_rows.append([f"`{name}`", f"{change:+.1f}%", span])
    lines += [
        "## Change points (e-divisive means)",
        "",
        (
            f"MongoDB's e-divisive means (signal-processing-algorithms, p < {args.pvalue}, 200"
            " permutations, fixed seed) over each benchmark's series; a change point is kept when"
            f" the means on its two sides differ by more than {args.threshold:g}%. The range is"
            " where the change lies: between the last measured commit before it and the first"
            " after it."
        ),
        "",
    ]
    lines.append(
        table(["benchmark", "series", "change of the mean", "commit range"], found_rows)
        if found_rows
        else "No change point found."
    )
    lines += [
        "",
        "## Every instruction step past the threshold",
        "",
        (
            "Counts are exact, so each step between two measured commits is a real change of the"
            " work done."
        ),
        "",
    ]
    lines.append(
        table(["benchmark", "step", "commit range"], step_rows) if step_rows else "No step."
    )
    lines.append("")
    # One plot per judged group: the largest preset of each family (the table has every one).
    groups = {}
    for name in names:
        groups.setdefault(name.split("/")[0], []).append(name)
    for group, members in sorted(groups.items()):
        chosen = {}
        for name in members:
            key = name.split("/")[1] if len(name.split("/")) > 1 else name
            chosen[key] = name  # sorted names: medium after small after ... is not alphabetical
        order = ["tiny", "small", "medium", "large"]
        for name in members:
            key = name.split("/")[1] if len(name.split("/")) > 1 else name
            rank = lambda n: (
                order.index(n.split("/")[2])
                if len(n.split("/")) > 2 and n.split("/")[2] in order
                else -1
            )
            if rank(name) >= rank(chosen[key]):
                chosen[key] = name
        shown = list(chosen.values())
        data = os.path.join(folder, f"{group}.dat")
        with open(data, "w") as handle:
            handle.write(
                "# commit_index, then per benchmark: instructions, cpu median us, q1, q3\n"
            )
            handle.write("# " + " ".join(shown) + "\n")
            for i, sha in enumerate(commits):
                row = [str(i)]
                for name in shown:
                    counts, times = series[name]
                    row.append(f"{counts[i][0]:.0f}" if counts[i] else "?")
                    row += [f"{v / 1e3:.4f}" for v in times[i][:3]] if times[i] else ["?"] * 3
                handle.write(" ".join(row) + "\n")
        xtics = (
            "set xtics rotate by -45 ("
            + ", ".join(f"'{sha[:7]}' {i}" for i, sha in enumerate(commits))
            + ")\n"
        )
        counted = [v for n in shown for c in series[n][0] if c for v in [c[0]]]
        timed = [v / 1e3 for n in shown for t in series[n][1] if t for v in t[:3]]
        script = (
            terminal(1300, 960 if counted else 560)
            + f"set output '{group}.png'\nset datafile missing '?'\n"
            + (
                f"set multiplot layout 2,1 title '{group}/: the largest preset of each family"
                " across commits (oldest left; dashed: change points)'\n"
                if counted
                else ""
            )
            + xtics
            + f"set xrange [-0.5:{len(commits) - 0.5}]\nset key inside top right box opaque reverse"
            " Left\nset bmargin 5\nset rmargin 2\n"
        )
        arrows = ""
        for row in found_rows:
            name = row[0].strip("`")
            if name in shown:
                first = row[3].split("..")[-1].split(" ")[0]
                idx = next((i for i, sha in enumerate(commits) if sha.startswith(first)), None)
                if idx is not None:
                    arrows += (
                        f"set arrow from {idx - 0.5}, graph 0 to {idx - 0.5}, graph 1 nohead dt 2 "
                        f"{colour(shown.index(name))}\n"
                    )
        if counted:
            script += (
                "set title 'instructions per call (callgrind; exact)'\nset logscale y\n"
                "set ylabel 'instructions'\n"
                + log_tics(min(counted) / 1.2, max(counted) * 1.2)
                + f"set yrange [{min(counted) / 1.2}:{max(counted) * 1.2}]\n"
                + arrows
                + "plot "
                + ", ".join(
                    f"'{group}.dat' using 1:{2 + 4 * k} with linespoints {style(k)} lw 2 ps 1.4 "
                    f"title '{name}'"
                    for k, name in enumerate(shown)
                )
                + "\nunset arrow\n"
            )
        if timed:
            script += (
                "set title 'CPU time per call (median, bars: IQR; different moments of a shared"
                " machine)'\nset logscale y\nset ylabel 'CPU time'\n"
                + log_tics(min(timed) / 1.3, max(timed) * 1.3, "y", "µs")
                + f"set yrange [{min(timed) / 1.3}:{max(timed) * 1.3}]\nplot "
                + ", ".join(
                    f"'{group}.dat' using 1:{3 + 4 * k}:{4 + 4 * k}:{5 + 4 * k} with yerrorlines "
                    f"{style(k)} lw 1.5 ps 1.2 title '{name}'"
                    for k, name in enumerate(shown)
                )
                + "\n"
            )
        if counted:
            script += "unset multiplot\n"
        if draw(folder, f"{group}.gp", script, PROG):
            lines += [
                f"![{group} history]({group}.png)",
                "",
                (
                    f"*Figure {group}.png: where the instruction line steps, the commit under the"
                    " step changed the work; flat stretches are commits that left it alone. Times"
                    " follow the same steps only where they are larger than the machine's drift.*"
                ),
                "",
            ]
    lines += [
        "## Every judged benchmark",
        "",
        "| benchmark | " + " | ".join(f"`{c[:7]}`" for c in commits) + " |",
        "|" + " --- |" * (len(commits) + 1),
    ]
    for name in names:
        counts, times = series[name]
        cells = []
        for c, t in zip(counts, times):
            text = f"{c[0]:,.0f}" if c else ""
            if t:
                text += (" / " if text else "") + f"{t[0] / 1e3:.3g} µs"
            cells.append(text or "-")
        lines.append(f"| `{name}` | " + " | ".join(cells) + " |")
    lines += ["", "Cells: instructions / CPU time median.", ""]
    if left_out:
        lines += ["## Left out", "", "| file | why |", "| --- | --- |"]
        lines += [f"| {os.path.relpath(p, root)} | {why} |" for p, why in left_out] + [""]
    path = os.path.join(folder, "history.md")
    with open(path, "w") as handle:
        handle.write("\n".join(lines) + "\n")
    print(
        f"{PROG}: wrote {path} ({len(commits)} commits, {len(names)} judged benchmarks, "
        f"{len(found_rows)} change points)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
