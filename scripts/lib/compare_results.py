"""scripts/compare's engine: instructions first, times only where the noise allows, counters.

Like with like: both files must come from the same mode, profile, filter, benchmark set and host
kind (CPU model, compiler, build type); a difference is printed first and is exit 2 unless
--force. Instructions (scripts/bench --instructions): deterministic, so a change beyond the
threshold (default 1%) of a judged benchmark is a regression, no statistics needed. Times (CPU
time; manual time for GPU benchmarks): judged only where both runs were quiet enough to see a
change of the time threshold: the repetitions' CV gives the smallest change the medians can show
(about 2.5 standard errors), and a run whose sampled load average passed its CPU count, or whose
CPU steal passed 5%, drifts between runs by more than its CV says (up to 48% seen here), so its
times are "too noisy to judge". A judged slowdown needs change > threshold and the U test's
p < alpha. Counters must not get worse: precision must not drop, verdicts must not change,
allocations per call must not rise. --exact (one commit against itself: a reproduction, merged
shards against a single run): every instruction count must be equal, either way, and a count in
one file only is a difference too; times are not judged. Exit: 0 no regression, 1 regression (or,
with --exact, a difference), 2 bad input, mismatch or nothing compared.
"""

import argparse
import json
import math
import re
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import entries, is_skipped, kept_by, left_out_line  # noqa: E402

MUST_NOT_DROP = (
    "site_precision",
    "plan_precision",
    "sites_certificate_accepted",
    "plans_certificate_safe",
    "verdict_matches_expect",
    "bits_match_library",
)
MUST_NOT_RISE = ("allocations_per_call", "unsound_plans")
MUST_NOT_CHANGE = ("verdict", "verdict_x1", "verdict_x8", "sites", "sites_exact_accepted")
RISE_TOLERANCE = 0.01
# What can fail a comparison on time: the project's own code. The other allocators, the pool and
# the floors are there for comparison; their times are listed, never judged.
REGRESSION_SET = r"^(certify|decode_loop)/|^(arena|gpu)/[^/]+/arena(/|$)"
# On instructions, which are deterministic, every benchmark of the project's code is judged.
INSTRUCTION_SET = r"^(certify|decode_loop|exact|load|precision)/|^(arena|gpu)/[^/]+/arena(/|$)"
HOST_KIND = ("cpu_model", "compiler", "build_type")
STEAL_LIMIT = 5.0
PROG = "scripts/compare"
UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


class BadInput(Exception):
    pass


def load(path):
    try:
        with open(path) as handle:
            data = json.load(handle)
    except OSError as error:
        raise BadInput(f"cannot read {path}: {error.strerror}")
    except ValueError as error:
        raise BadInput(f"{path} is not JSON: {error}")
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        raise BadInput(f"{path} is not a results file of scripts/bench (no 'benchmarks' list)")
    for i, entry in enumerate(entries(data)):
        if not isinstance(entry, dict) or not isinstance(entry.get("name"), str):
            raise BadInput(f"{path}: benchmarks[{i}] has no name")
    return data


def mode(data):
    context = data.get("context", {})
    if context.get("arenaref_mode"):
        return context["arenaref_mode"]
    has = any("instructions" in e for e in data["benchmarks"])
    return "instructions" if has else "time"


def metric(name):
    return "real_time" if "manual_time" in name else "cpu_time"


def runs_by_name(data):
    """Per benchmark name: its plain runs, its aggregates by kind, and {skipped name: reason}."""
    runs, aggregates, skipped = {}, {}, {}
    for entry in entries(data):
        name = entry.get("run_name", entry["name"])
        if is_skipped(entry):
            skipped[name] = entry.get("error_message", "skipped")
            continue
        if entry.get("run_type") == "aggregate":
            aggregates.setdefault(name, {})[entry.get("aggregate_name", "")] = entry
        else:
            runs.setdefault(name, []).append(entry)
    return runs, aggregates, skipped


def times_ns(name, runs):
    key = metric(name)
    return [
        float(r[key]) * UNITS.get(r.get("time_unit", "ns"), 1.0)
        for r in runs
        if isinstance(r.get(key), (int, float))
    ]


def instructions(name, runs, aggregates):
    if "median" in aggregates.get(name, {}) and "instructions" in aggregates[name]["median"]:
        return float(aggregates[name]["median"]["instructions"])
    values = [
        float(r["instructions"])
        for r in runs.get(name, [])
        if isinstance(r.get("instructions"), (int, float))
    ]
    return statistics.median(values) if values else None


def describe(path, data):
    c = data.get("context", {})
    noise = data.get("arenaref_noise", {})
    load = noise.get("load_average_1min", {})
    dirty = " (dirty)" if c.get("arenaref_dirty") == "true" else ""
    cpus = c.get("cpu_count", c.get("num_cpus", "?"))
    parts = [
        f"{path}: mode {mode(data)}, profile {c.get('profile', '?')}, "
        f"filter '{c.get('arenaref_filter', '?')}'",
        f"commit {str(c.get('arenaref_commit', '?'))[:12]}{dirty}",
        f"host {c.get('arenaref_host', c.get('host_name', '?'))}, {c.get('cpu_model', '?')}",
    ]
    if load:
        parts.append(
            f"load average {load.get('min')}-{load.get('max')} (median {load.get('median')}) "
            f"on {cpus} CPUs, steal {noise.get('cpu_steal_percent')}%"
        )
    else:
        parts.append("no noise record")
    return "; ".join(parts)


def run_noise(data):
    """Why this run's times cannot be judged against another run's, or None."""
    noise = data.get("arenaref_noise")
    if not noise or "load_average_1min" not in noise:
        return "no load record (a results file from before the noise record)"
    context = data.get("context", {})
    try:
        cpus = float(context.get("cpu_count") or context.get("num_cpus"))
    except (TypeError, ValueError):
        return "no CPU count in the record"
    peak = noise["load_average_1min"].get("max", 0)
    if peak > cpus:
        return f"load average reached {peak:g} on {cpus:g} CPUs"
    steal = noise.get("cpu_steal_percent") or 0
    if steal > STEAL_LIMIT:
        return f"CPU steal {steal:g}%"
    return None


def mismatches(base, new, base_path="base", new_path="new"):
    """Each fact the two files differ in, naming the value in each file."""
    out = []
    cb, cn = base.get("context", {}), new.get("context", {})
    if mode(base) != mode(new):
        out.append(f"mode differs: {mode(base)} in {base_path}, {mode(new)} in {new_path}")
    for key in ("profile", "arenaref_filter") + HOST_KIND:
        a, b = cb.get(key), cn.get(key)
        if a != b and not (key == "arenaref_filter" and (a is None or b is None)):
            out.append(f"{key} differs: {a!r} in {base_path}, {b!r} in {new_path}")
    names_b = {e.get("run_name", e["name"]) for e in entries(base)}
    names_n = {e.get("run_name", e["name"]) for e in entries(new)}
    if names_b != names_n:
        only_b, only_n = sorted(names_b - names_n), sorted(names_n - names_b)
        text = f"benchmark set differs between {base_path} and {new_path}"
        if only_b:
            text += (
                f"; only in base ({len(only_b)}): "
                + ", ".join(only_b[:5])
                + (" ..." if len(only_b) > 5 else "")
            )
        if only_n:
            text += (
                f"; only in new ({len(only_n)}): "
                + ", ".join(only_n[:5])
                + (" ..." if len(only_n) > 5 else "")
            )
        out.append(text)
    return out


def u_test_p(a, b):
    try:
        from scipy.stats import mannwhitneyu
    except ImportError:
        return None
    if len(a) < 3 or len(b) < 3:
        return None
    return float(mannwhitneyu(a, b, alternative="two-sided").pvalue)


def smallest_visible_change(a, b):
    """About 2.5 standard errors of the difference of two medians, relative (None: unknown)."""
    if len(a) < 3 or len(b) < 3:
        return None
    ma, mb = statistics.fmean(a), statistics.fmean(b)
    if ma <= 0 or mb <= 0:
        return None
    cv_a, cv_b = statistics.stdev(a) / ma, statistics.stdev(b) / mb
    return 2.5 * 1.25 * math.sqrt(cv_a**2 / len(a) + cv_b**2 / len(b))


def main(argv):
    parser = argparse.ArgumentParser(
        prog="scripts/compare",
        description=__doc__.split("\n")[0],
        epilog="scripts/compare --ab BASE_REV [NEW_REV] runs a same-session A/B instead "
        "(scripts/compare --ab --help).",
    )
    parser.add_argument("base", help="the base results file (scripts/bench)")
    parser.add_argument("new", help="the new results file")
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.01,
        help="relative instruction increase that is a regression (default 0.01 = 1%%)",
    )
    parser.add_argument(
        "--time-threshold",
        type=float,
        default=0.05,
        help="relative time increase that matters, where times are judged (default 0.05)",
    )
    parser.add_argument(
        "--alpha", type=float, default=0.05, help="significance level of the U test on times"
    )
    parser.add_argument(
        "--exact",
        action="store_true",
        help="every instruction count must be equal (one commit against itself); times not judged",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="compare files of different mode, profile, filter, benchmark set or host kind",
    )
    parser.add_argument(
        "--regression-set",
        default=REGRESSION_SET,
        help="names whose time slowdowns fail the comparison (default: %(default)s)",
    )
    parser.add_argument(
        "--instruction-set",
        default=INSTRUCTION_SET,
        help="names whose instruction increases fail the comparison (default: %(default)s)",
    )
    args = parser.parse_args(argv)
    for value, flag in (
        (args.threshold, "--threshold"),
        (args.time_threshold, "--time-threshold"),
        (args.alpha, "--alpha"),
    ):
        if not (0 < value < 1):
            raise BadInput(f"{flag} must be between 0 and 1 (got {value})")
    try:
        judged_time, judged_ir = re.compile(args.regression_set), re.compile(args.instruction_set)
    except re.error as error:
        raise BadInput(f"bad regex: {error}")
    base, new = load(args.base), load(args.new)

    print(f"base  {describe(args.base, base)}")
    print(f"new   {describe(args.new, new)}")
    problems = mismatches(base, new, args.base, args.new)
    if problems:
        print("\nNOT LIKE WITH LIKE:")
        for problem in problems:
            print(left_out_line(PROG, f"{args.base} and {args.new}", problem))
        if not args.force:
            print(
                f"{PROG}: refusing to judge (exit 2): {args.base} and {args.new} differ in"
                f" {len(problems)} fact(s); {kept_by('both', '--force')} (it compares what both"
                " files share)"
            )
            return 2
        print("compared anyway (--force): read the verdicts with this in mind")
    print()

    base_runs, base_agg, base_skipped = runs_by_name(base)
    new_runs, new_agg, new_skipped = runs_by_name(new)
    common = sorted(set(base_runs) & set(new_runs))
    if not common:
        print("nothing compared: the two files share no benchmark that ran in both (exit 2)")
        return 2
    failures = []
    width = max(len(n) for n in common) + 2

    ir_rows = []
    for name in common:
        a, b = instructions(name, base_runs, base_agg), instructions(name, new_runs, new_agg)
        if a is None or b is None or a <= 0:
            continue
        change = b / a - 1
        if args.exact:
            verdict = "equal" if a == b else "DIFFERS"
        elif judged_ir.search(name):
            verdict = (
                "MORE"
                if change > args.threshold
                else ("fewer" if change < -args.threshold else "same")
            )
        else:
            verdict = "not judged"
        ir_rows.append((name, a, b, change, verdict))
        if verdict in ("MORE", "DIFFERS"):
            failures.append(
                f"{name}: instructions {change:+.2%} ({a:.0f} -> {b:.0f} per iteration)"
            )
    if args.exact:
        counted = lambda runs, agg: {n for n in runs if instructions(n, runs, agg) is not None}
        one_side = counted(base_runs, base_agg) ^ counted(new_runs, new_agg)
        for name in sorted(one_side):
            failures.append(f"{name}: counted in one file only")
        if not ir_rows:
            print("--exact: no instruction count in both files (exit 2)")
            return 2
    if ir_rows:
        rule = "DIFFERS = not equal (--exact)" if args.exact else f"MORE = over {args.threshold:.2%}"
        print(f"== instructions per iteration (callgrind; {rule}) ==")
        print(f"{'benchmark':<{width}} {'base':>14} {'new':>14} {'change':>9}  verdict")
        for name, a, b, change, verdict in ir_rows:
            print(f"{name:<{width}} {a:>14.0f} {b:>14.0f} {change:>+9.3%}  {verdict}")
        print()

    time_rows = []
    both_time = mode(base) == "time" and mode(new) == "time" and not args.exact
    if both_time:
        run_reason = run_noise(base) or run_noise(new)
        for name in common:
            a, b = times_ns(name, base_runs[name]), times_ns(name, new_runs[name])
            if not a or not b:
                continue
            ma, mb = statistics.median(a), statistics.median(b)
            change = mb / ma - 1 if ma > 0 else 0.0
            visible = smallest_visible_change(a, b)
            p = u_test_p(a, b)
            if not judged_time.search(name):
                verdict = "not judged"
            elif run_reason:
                verdict = f"too noisy to judge ({run_reason})"
            elif visible is None:
                verdict = "too noisy to judge (fewer than 3 repetitions)"
            elif visible > args.time_threshold:
                verdict = f"too noisy to judge (CV: only changes over {visible:.0%} are visible)"
            elif p is not None and p < args.alpha and change > args.time_threshold:
                verdict = "SLOWER"
                failures.append(f"{name}: time {change:+.1%} (p = {p:.4f})")
            elif p is not None and p < args.alpha and change < -args.time_threshold:
                verdict = "faster"
            else:
                verdict = "same"
            time_rows.append(
                (
                    name,
                    ma,
                    mb,
                    change,
                    "-" if p is None else f"{p:.4f}",
                    f"{len(a)}/{len(b)}",
                    verdict,
                )
            )
        print(
            f"== times (median CPU time, manual time for GPU; SLOWER = over "
            f"{args.time_threshold:.0%} with p < {args.alpha}, where the noise allows) =="
        )
        print(
            f"{'benchmark':<{width}} {'base (ns)':>12} {'new (ns)':>12} {'change':>8} {'p':>7} "
            f"{'reps':>6}  verdict"
        )
        for name, ma, mb, change, p, reps, verdict in time_rows:
            print(
                f"{name:<{width}} {ma:>12.4g} {mb:>12.4g} {change:>+8.1%} {p:>7} {reps:>6}  "
                f"{verdict}"
            )
        print()
    elif not ir_rows:
        print(
            "no instruction counts in both files and their times are not comparable "
            f"(modes {mode(base)} and {mode(new)})"
        )

    counter_rows = []
    for name in common:
        old, fresh = base_runs[name][0], new_runs[name][0]
        for key in MUST_NOT_DROP + MUST_NOT_RISE + MUST_NOT_CHANGE:
            if not isinstance(old.get(key), (int, float)) or not isinstance(
                fresh.get(key), (int, float)
            ):
                continue
            a, b = float(old[key]), float(fresh[key])
            bad = (
                (key in MUST_NOT_DROP and b < a - 1e-12)
                or (key in MUST_NOT_RISE and b > a + RISE_TOLERANCE)
                or (key in MUST_NOT_CHANGE and a != b)
            )
            if bad or a != b:
                counter_rows.append((name, key, a, b, "REGRESSED" if bad else "changed"))
            if bad:
                failures.append(f"{name}: counter {key} {a:g} -> {b:g}")
    print(
        "== counters (precision must not drop, allocations per call must not rise, "
        "verdicts must not change) =="
    )
    for name, key, a, b, state in counter_rows:
        print(f"{name:<{width}} {key:<28} {a:>14g} -> {b:<14g} {state}")
    if not counter_rows:
        print("all compared counters equal")
    print()
    for label, names in (("skipped in base", base_skipped), ("skipped in new", new_skipped)):
        if names:
            print(f"{label} ({len(names)}): " + ", ".join(sorted(names)))
            for name in sorted(names):
                print(left_out_line(PROG, name, f"skipped: {names[name]}"))
    for label, names in (
        ("only in base", sorted(set(base_runs) - set(new_runs) - set(new_skipped))),
        ("only in new", sorted(set(new_runs) - set(base_runs) - set(base_skipped))),
    ):
        for name in names:
            print(left_out_line(PROG, name, label))

    if failures:
        print(f"{'NOT EQUAL' if args.exact else 'REGRESSION'} ({len(failures)}):")
        for failure in failures:
            print(f"  {failure}")
        return 1
    if args.exact:
        print(f"equal: {len(ir_rows)} instruction counts equal; counters checked")
        return 0
    judged_ir_count = sum(1 for r in ir_rows if r[4] != "not judged")
    judged_time_count = sum(1 for r in time_rows if r[6] in ("same", "faster"))
    noisy = sum(1 for r in time_rows if r[6].startswith("too noisy"))
    print(
        f"no regression: {len(common)} benchmarks compared; instructions judged on "
        f"{judged_ir_count}, times judged on {judged_time_count}, too noisy to judge on {noisy}; "
        "counters checked"
    )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as error:
        print(f"scripts/compare: {error}", file=sys.stderr)
        sys.exit(2)
