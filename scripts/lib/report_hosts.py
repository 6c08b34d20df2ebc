"""scripts/report on files from several host kinds: side-by-side tables, then a section per kind.

A file's host kind is its context's arenaref_host_kind (scripts/bench under scripts/sweep), else
its CPU model, else its host name. Each kind's files (a timed file and an instruction file,
merged shards or not) are read together as one Results, exactly as a single-kind report reads
them. Raw times from different machines do not compare, so each judged time is also shown
divided by the same host's own floor for that benchmark (floor/FAMILY/PRESET for
certify/FAMILY/PRESET, arena/STREAM/floor for arena/STREAM/arena): a ratio within one host.
Instruction counts are deterministic per build, so kinds running one commit and build must
agree; any difference is flagged.
"""

import os
import re

from compare_results import INSTRUCTION_SET, REGRESSION_SET
from report_format import fmt_ratio, fmt_spread, table
from results import Results, deterministic_digest


def host_kind(context):
    for key in ("arenaref_host_kind", "cpu_model", "host_name"):
        if context.get(key):
            return str(context[key])
    return "unknown"


def kinds_of(paths, load_file):
    """{kind: [paths]} in the order the kinds first appear."""
    kinds = {}
    for path in paths:
        kinds.setdefault(host_kind(load_file(path).get("context", {})), []).append(path)
    return kinds


def floor_of(name):
    """The same host's floor benchmark that `name` is normalised by, or None."""
    parts = name.split("/")
    if parts[0] in ("certify", "exact", "load", "jansson", "precision") and len(parts) >= 3:
        return f"floor/{parts[1]}/{parts[2]}"
    if parts[0] == "arena" and len(parts) >= 3:
        return f"arena/{parts[1]}/floor"
    return None


def slug(kind):
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", kind).strip("-") or "kind"


def describe(results):
    """One line about a kind's files: hosts, commit, profile, shards."""
    hosts, commits, shards = set(), set(), 0
    for _, c in results.files:
        merged = c.get("arenaref_merged") or {}
        hosts.update(merged.get("hosts") or [c.get("host_name") or "?"])
        commits.add(str(c.get("arenaref_commit", "?"))[:12])
        shards += len(merged.get("shards") or [])
    c = results.files[0][1]
    return [
        ", ".join(os.path.basename(p) for p, _ in results.files),
        str(c.get("cpu_model", "?")),
        str(c.get("num_cpus", "?")),
        ", ".join(sorted(hosts)),
        ", ".join(sorted(commits)),
        str(c.get("profile", "?")),
        str(shards) if shards else "unsharded",
    ]


def cell(results, name):
    if name in results.errors:
        return "skipped"  # the reason is in the kind's own section
    return fmt_spread(results.time_stats(name))


def normalised(results, name):
    floor = floor_of(name)
    time, base = results.time_ns(name), results.time_ns(floor) if floor else None
    return fmt_ratio(time / base) if time and base else "-"


def time_table(per_kind):
    kinds = list(per_kind)
    judged = re.compile(REGRESSION_SET)
    names = sorted(
        {n for r in per_kind.values() for n in set(r.runs) | set(r.errors) if judged.search(n)}
    )
    if not names:
        return []
    rows = []
    for name in names:
        floor = floor_of(name)
        known = floor and any(r.has(floor) for r in per_kind.values())
        rows.append(
            [f"`{name}`", f"`{floor}`" if known else "-"]
            + [cell(per_kind[k], name) for k in kinds]
            + [normalised(per_kind[k], name) for k in kinds]
        )
    header = ["benchmark", "floor"] + [f"{k}: CPU time" for k in kinds]
    header += [f"{k}: ÷ floor" for k in kinds]
    return [
        "### Judged times, normalised by each host's floor",
        "",
        (
            "The benchmarks scripts/compare judges on time. CPU time is median [IQR] on that host"
            " kind; *÷ floor* divides it by the median of the named floor benchmark measured on"
            " the same host kind (one pass reading every parameter word; for arenas, the same"
            " intervals around nothing), so the columns compare across kinds where raw times do"
            " not. \"-\": no floor in that kind's files."
        ),
        "",
        table(header, rows),
        "",
    ]


def instruction_table(per_kind):
    kinds = list(per_kind)
    judged = re.compile(INSTRUCTION_SET)
    names = sorted({n for r in per_kind.values() for n in r.instructions if judged.search(n)})
    if not names:
        return []
    rows, differing = [], []
    for name in names:
        counts = []
        for k in kinds:
            found = per_kind[k].instructions_of(name)
            counts.append(None if found is None else found[0])
        present = [c for c in counts if c is not None]
        if len(present) < 2:
            agreement = "only one kind"
        elif max(present) == min(present):
            agreement = "equal"
        else:
            spread = (max(present) - min(present)) / min(present)
            agreement = f"**DIFFERS** by {100 * spread:.3g}%"
            differing.append(name)
        rows.append(
            [f"`{name}`"] + [f"{c:,.0f}" if c is not None else "-" for c in counts] + [agreement]
        )
    out = [
        "### Judged instruction counts",
        "",
        (
            "Callgrind counts per iteration (deterministic): host kinds running the same commit"
            " and build must agree exactly. A difference means the kinds ran different code (a"
            " compiler, libc or build type differs, or a code path depends on the host)."
        ),
        "",
        table(["benchmark"] + [f"{k}: instructions" for k in kinds] + ["across kinds"], rows),
        "",
    ]
    if differing:
        out += [
            f"**{len(differing)} benchmark(s) disagree between host kinds:** "
            + ", ".join(f"`{n}`" for n in differing)
            + ".",
            "",
        ]
    else:
        out += ["Every count present in two or more kinds agrees.", ""]
    return out


def kind_section(kind, results, folder, sections):
    """The single-kind report's sections for one kind, one heading level down, plots in KIND/."""
    sub = slug(kind)
    os.makedirs(os.path.join(folder, sub), exist_ok=True)
    for old in os.listdir(os.path.join(folder, sub)):
        if old.endswith((".png", ".dat", ".gp")):
            os.remove(os.path.join(folder, sub, old))
    digest, count = deterministic_digest(results)
    out = [
        f"## Host kind {kind}",
        "",
        f"Files: {describe(results)[0]}. Deterministic digest `{digest}` ({count} counters).",
        "",
    ]
    for _, section in sections:
        for line in section(results, os.path.join(folder, sub)):
            if line.startswith("#"):
                line = "#" + line
            line = re.sub(r"^!\[([^\]]*)\]\(([^)/]+)\)", rf"![\1]({sub}/\2)", line)
            line = re.sub(r"^\*Figure ([^:]+):", rf"*Figure {sub}/\1:", line)
            out.append(line)
    return out


def report(paths_by_kind, duplicates, name, folder, sections):
    """The multi-host report's markdown lines (BadInput propagates: exit 2 in the caller)."""
    per_kind = {k: Results(paths, duplicates) for k, paths in paths_by_kind.items()}
    out = [
        f"# arenaref benchmark report: {name}",
        "",
        (
            f"{len(per_kind)} host kinds. Every time is CPU time per iteration, median over the"
            " repetitions with the interquartile range in brackets; times from different kinds are"
            " compared only through each host's own floor. A section per kind follows the tables."
        ),
        "",
        "## Across host kinds",
        "",
        table(
            ["host kind", "files", "CPU model", "CPUs", "hosts", "commit", "profile", "shards"],
            [[k] + describe(r) for k, r in per_kind.items()],
        ),
        "",
    ]
    out += time_table(per_kind)
    out += instruction_table(per_kind)
    for kind, results in per_kind.items():
        out += kind_section(kind, results, folder, sections)
    return out
