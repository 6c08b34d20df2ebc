"""scripts/compare's engine: times through compare.py's U test, counters by hand.

Time: for each benchmark with repetitions in both files, compare.py's dump gives the U test's
p-value over the repetitions; the change is that of the median aggregate (falling back to the
median of the repetitions). The time compared is CPU time, except for manual-time (GPU)
benchmarks, where it is the manual (real) time: on a shared machine, real time also counts the
time the process waited for a core, which moves medians by 10-30% when other work runs, while
CPU time does not. A real slowdown costs CPU time (the planted one spins), so it shows. A slowdown counts when
p < alpha and the change exceeds the threshold. Benchmarks without repetitions are listed as
"no U test" and never fail the comparison: only the regression set is repeated.

Counters: deterministic ones must not get worse: precision shares must not drop, verdicts must
not change, allocations per call must not rise (beyond 0.01, the resolution of a per-call
average over a few hundred calls).
"""
import argparse
import json
import re
import os
import subprocess
import sys
import tempfile

COMPARE_PY = "/usr/share/benchmark/compare.py"
MUST_NOT_DROP = ("site_precision", "plan_precision", "sites_certificate_accepted", "plans_certificate_safe",
                 "verdict_matches_expect", "bits_match_library")
MUST_NOT_RISE = ("allocations_per_call", "unsound_plans")
MUST_NOT_CHANGE = ("verdict", "verdict_x1", "verdict_x8", "sites", "sites_exact_accepted")
RISE_TOLERANCE = 0.01
# What can fail a comparison: the project's own code. The other allocators, the pool and the
# floors are there for comparison; their times are listed, never judged (jemalloc's CPU time,
# for one, moves by ~6% from process to process with its background purging).
REGRESSION_SET = r"^(certify|decode_loop)/|^(arena|gpu)/[^/]+/arena(/|$)"


def load(path):
    try:
        with open(path) as handle:
            data = json.load(handle)
    except (OSError, ValueError) as error:
        sys.exit(f"scripts/compare: cannot read {path}: {error}")
    if "benchmarks" not in data:
        sys.exit(f"scripts/compare: {path} is not a Google Benchmark JSON file (no 'benchmarks')")
    return data


def runs_by_name(data):
    """Per benchmark name: its plain runs (repetitions) and its aggregates by kind."""
    runs, aggregates = {}, {}
    for entry in data["benchmarks"]:
        if entry.get("error_occurred"):
            continue
        name = entry.get("run_name", entry["name"])
        if entry.get("run_type") == "aggregate":
            aggregates.setdefault(name, {})[entry.get("aggregate_name", "")] = entry
        else:
            runs.setdefault(name, []).append(entry)
    return runs, aggregates


def median(values):
    values = sorted(values)
    n = len(values)
    return 0.0 if n == 0 else (values[n // 2] if n % 2 else (values[n // 2 - 1] + values[n // 2]) / 2)


UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def metric(name):
    """Which time a benchmark is judged by: real (manual) time for GPU benchmarks, else CPU time."""
    return "real_time" if "manual_time" in name else "cpu_time"


def center(name, runs, aggregates):
    """The median time in ns (metric(name)): the median aggregate where repeated, else of the runs."""
    key = metric(name)
    if name in aggregates and "median" in aggregates[name]:
        entry = aggregates[name]["median"]
        return entry[key] * UNITS.get(entry.get("time_unit", "ns"), 1.0)
    return median([run[key] * UNITS.get(run.get("time_unit", "ns"), 1.0) for run in runs.get(name, [])])


def main():
    parser = argparse.ArgumentParser(prog="scripts/compare", description=__doc__.split("\n")[0])
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--threshold", type=float, default=0.05, help="relative slowdown that matters (0.05 = 5%%)")
    parser.add_argument("--alpha", type=float, default=0.05, help="significance level of the U test")
    parser.add_argument("--quiet-compare-py", action="store_true", help="do not print compare.py's own table")
    parser.add_argument("--regression-set", default=REGRESSION_SET,
                        help="regex of the benchmark names whose slowdowns fail the comparison (default: %(default)s)")
    args = parser.parse_args()
    if not os.path.exists(COMPARE_PY):
        sys.exit(f"scripts/compare: {COMPARE_PY} is missing (apt-get install libbenchmark-tools python3-scipy)")
    base, new = load(args.base), load(args.new)

    with tempfile.TemporaryDirectory() as tmp:
        dump = os.path.join(tmp, "diff.json")
        command = ["/usr/bin/python3", COMPARE_PY, "-a", "--no-color", "--alpha", str(args.alpha), "-d", dump,
                   "benchmarks", args.base, args.new]
        result = subprocess.run(command, capture_output=True, text=True)
        if result.returncode != 0:
            sys.stderr.write(result.stderr)
            sys.exit(f"scripts/compare: compare.py failed (status {result.returncode})")
        if not args.quiet_compare_py:
            print("== compare.py (aggregates; U test over the repetitions) ==")
            print(result.stdout.rstrip())
            print()
        with open(dump) as handle:
            diff = json.load(handle)

    base_runs, base_aggregates = runs_by_name(base)
    new_runs, new_aggregates = runs_by_name(new)
    pvalues = {}
    for entry in diff:
        utest = entry.get("utest") or {}
        if entry.get("run_type") != "aggregate" and "time_pvalue" in utest:
            key = "time_pvalue" if metric(entry["name"]) == "real_time" else "cpu_pvalue"
            pvalues[entry["name"]] = (utest[key], utest.get("nr_of_repetitions", 0),
                                      utest.get("nr_of_repetitions_other", 0))

    judged = re.compile(args.regression_set)
    failures = []
    rows = []
    for name in sorted(set(base_runs) & set(new_runs)):
        old_time, new_time = center(name, base_runs, base_aggregates), center(name, new_runs, new_aggregates)
        change = (new_time - old_time) / old_time if old_time > 0 else 0.0
        if name in pvalues:
            p, n_old, n_new = pvalues[name]
            significant = p < args.alpha
            slower = significant and change > args.threshold
            verdict = "SLOWER" if slower else ("faster" if significant and change < -args.threshold else "same")
            if slower and not judged.search(name):
                slower, verdict = False, "slower (not judged)"
            ptext = f"{p:.4f}"
        else:
            n_old, n_new = len(base_runs[name]), len(new_runs[name])
            slower, verdict, ptext = False, "no U test", "-"
        rows.append((name + (" (real)" if metric(name) == "real_time" else ""), old_time, new_time, change, ptext,
                     f"{n_old}/{n_new}", verdict))
        if slower:
            failures.append(f"{name}: {change:+.1%} (p = {ptext})")

    counter_rows = []
    for name in sorted(set(base_runs) & set(new_runs)):
        old, fresh = base_runs[name][0], new_runs[name][0]
        for key in MUST_NOT_DROP + MUST_NOT_RISE + MUST_NOT_CHANGE:
            if key not in old or key not in fresh:
                continue
            a, b = float(old[key]), float(fresh[key])
            bad = (key in MUST_NOT_DROP and b < a - 1e-12) or (key in MUST_NOT_RISE and b > a + RISE_TOLERANCE) or \
                  (key in MUST_NOT_CHANGE and a != b)
            if bad or a != b:
                counter_rows.append((name, key, a, b, "REGRESSED" if bad else "changed"))
            if bad:
                failures.append(f"{name}: counter {key} {a:g} -> {b:g}")

    width = max([len(r[0]) for r in rows] + [9])
    print(f"== times (median CPU time, real time for GPU benchmarks; slower = p < {args.alpha} and change > "
          f"{args.threshold:.0%}) ==")
    print(f"{'benchmark':<{width}}  {'base (ns)':>12}  {'new (ns)':>12}  {'change':>8}  {'p':>7}  {'reps':>7}  verdict")
    for name, old_time, new_time, change, ptext, reps, verdict in rows:
        print(f"{name:<{width}}  {old_time:12.4g}  {new_time:12.4g}  {change:+8.1%}  {ptext:>7}  {reps:>7}  {verdict}")
    only_base = sorted(set(base_runs) - set(new_runs))
    only_new = sorted(set(new_runs) - set(base_runs))
    if only_base:
        print(f"only in base ({len(only_base)}): " + ", ".join(only_base[:10]) + (" ..." if len(only_base) > 10 else ""))
    if only_new:
        print(f"only in new ({len(only_new)}): " + ", ".join(only_new[:10]) + (" ..." if len(only_new) > 10 else ""))
    print()
    print("== counters (precision must not drop, allocations per call must not rise, verdicts must not change) ==")
    if counter_rows:
        for name, key, a, b, state in counter_rows:
            print(f"{name:<{width}}  {key:<28} {a:>14g} -> {b:<14g} {state}")
    else:
        print("all compared counters equal")
    print()
    if failures:
        print(f"REGRESSION ({len(failures)}):")
        for failure in failures:
            print(f"  {failure}")
        return 1
    tested = sum(1 for r in rows if r[6] != "no U test")
    print(f"no regression ({tested} benchmarks U-tested, {len(rows) - tested} without repetitions; judged: "
          f"{args.regression_set})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
