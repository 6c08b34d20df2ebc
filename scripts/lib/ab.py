"""scripts/compare --ab: a same-session A/B of two revisions' times.

Both revisions are built in their own worktree and build folder under build/ab/ (the work tree
itself when NEW is omitted), then their benchmark binaries run alternately, one pair at a time,
the order inside each pair drawn at random (seeded, recorded), so load from elsewhere lands on
both sides alike. Each run's sample per benchmark is the median CPU time of its repetitions; a
pair gives the ratio NEW/BASE. Per benchmark: the median ratio and its bootstrap confidence
interval (percentile, 2000 resamples). SLOWER only when the whole interval lies above
1 + threshold; faster when it lies below 1 - threshold; same when it lies inside; otherwise
"inconclusive" (more pairs would tell). Exit: 0 no regression, 1 a judged benchmark SLOWER,
2 bad usage (unknown revision, a build that fails, no benchmark matched).
"""
import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DEFAULT_FILTER = r"^certify/(decoder|moe)/small/|^arena/(small|fixed)/arena/"
REGRESSION_SET = r"^(certify|decode_loop)/|^(arena|gpu)/[^/]+/arena(/|$)"


class BadInput(Exception):
    pass


def git(*args, cwd=ROOT):
    done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise BadInput(f"git {' '.join(args)}: {done.stderr.strip()}")
    return done.stdout.strip()


def prepare(rev, label, build, log):
    """(source dir, build dir, description) of a revision; rev None = the work tree."""
    ab = os.path.join(ROOT, "build", "ab")
    os.makedirs(ab, exist_ok=True)
    if rev is None:
        dirty = bool(git("status", "--porcelain", "--untracked-files=no"))
        source, folder = ROOT, os.path.join(ab, "build-worktree")
        what = f"work tree at {git('rev-parse', '--short=12', 'HEAD')}{' (dirty)' if dirty else ''}"
    else:
        try:
            sha = git("rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}")
        except BadInput:
            raise BadInput(f"unknown revision '{rev}' (not a commit in this repository)")
        source, folder = os.path.join(ab, f"src-{sha[:12]}"), os.path.join(ab, f"build-{sha[:12]}")
        what = f"{rev} = {sha[:12]}"
        if not os.path.isdir(source):
            git("worktree", "add", "--detach", source, sha)
    binary = os.path.join(folder, "bin", "arenaref_bench")
    if build:
        print(f"ab: building {label} ({what}) in {os.path.relpath(folder, ROOT)}", file=sys.stderr)
        steps = [["cmake", "-S", source, "-B", folder, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                  "-DARENAREF_BENCH=ON"],
                 ["cmake", "--build", folder, "--target", "arenaref_bench", "-j", str(os.cpu_count() or 2)]]
        for step in steps:
            done = subprocess.run(step, capture_output=True, text=True)
            if done.returncode != 0:
                log.write(done.stdout + done.stderr)
                raise BadInput(f"building {label} ({what}) failed: {' '.join(step)}\n{done.stderr[-2000:]}")
    if not os.access(binary, os.X_OK):
        raise BadInput(f"{binary} is missing (drop --no-build)")
    return binary, what


def sample(binary, args, env, tmp):
    """Median CPU time (ns) per benchmark name of one run of `binary`."""
    out = os.path.join(tmp, "run.json")
    command = [binary, f"--benchmark_filter={args.filter}", f"--benchmark_min_time={args.min_time}",
               f"--benchmark_out={out}", "--benchmark_out_format=json", "--benchmark_format=json"]
    done = subprocess.run(command, capture_output=True, text=True, env=env)
    if done.returncode != 0:
        raise BadInput(f"{binary} failed (status {done.returncode}): {done.stderr[-1000:]}")
    with open(out) as handle:
        data = json.load(handle)
    per_name = {}
    for entry in data["benchmarks"]:
        if entry.get("run_type") == "aggregate" or entry.get("error_occurred"):
            continue
        key = "real_time" if "manual_time" in entry["name"] else "cpu_time"
        scale = {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[entry.get("time_unit", "ns")]
        per_name.setdefault(entry.get("run_name", entry["name"]), []).append(entry[key] * scale)
    return {name: statistics.median(values) for name, values in per_name.items()}


def bootstrap(ratios, confidence, rng, resamples=2000):
    n = len(ratios)
    medians = sorted(statistics.median(rng.choice(ratios) for _ in range(n)) for _ in range(resamples))
    low = medians[int((1 - confidence) / 2 * resamples)]
    high = medians[min(resamples - 1, int((1 + confidence) / 2 * resamples))]
    return statistics.median(ratios), low, high


def judge(ratios, threshold, confidence, rng):
    """(median ratio, low, high, verdict) of paired NEW/BASE ratios."""
    median, low, high = bootstrap(ratios, confidence, rng)
    if low > 1 + threshold:
        verdict = "SLOWER"
    elif high < 1 - threshold:
        verdict = "faster"
    elif low >= 1 - threshold and high <= 1 + threshold:
        verdict = "same"
    else:
        verdict = "inconclusive"
    return median, low, high, verdict


def load_average():
    with open("/proc/loadavg") as handle:
        return float(handle.read().split()[0])


def main(argv):
    parser = argparse.ArgumentParser(prog="scripts/compare --ab", description=__doc__.split("\n")[0],
                                     epilog="Exit status: 0 no regression, 1 regression, 2 bad usage or input.")
    parser.add_argument("base", help="the base revision (anything git rev-parse takes)")
    parser.add_argument("new", nargs="?", help="the new revision (default: the work tree, as it is)")
    parser.add_argument("--filter", default=DEFAULT_FILTER, help="benchmarks to run (default: %(default)s)")
    parser.add_argument("--pairs", type=int, default=10, help="alternating pairs of runs (default 10)")
    parser.add_argument("--time-threshold", type=float, default=0.05, help="relative slowdown that matters (0.05)")
    parser.add_argument("--confidence", type=float, default=0.95, help="of the interval (default 0.95)")
    parser.add_argument("--min-time", type=float, default=0.02, help="seconds per benchmark run (default 0.02)")
    parser.add_argument("--seed", type=int, default=None, help="of the order and the bootstrap (default: time)")
    parser.add_argument("--new-env", action="append", default=[], metavar="VAR=VALUE",
                        help="set in NEW's runs only (e.g. ARENAREF_BENCH_SLOWDOWN=1.1 plants a slowdown)")
    parser.add_argument("--no-build", action="store_true", help="use the binaries already in build/ab/")
    parser.add_argument("--out", help="write the samples, ratios and intervals here (strict JSON)")
    parser.add_argument("--regression-set", default=REGRESSION_SET, help="names whose slowdowns fail (%(default)s)")
    args = parser.parse_args(argv)
    if args.pairs < 3:
        raise BadInput("--pairs must be at least 3")
    if not 0 < args.time_threshold < 1 or not 0.5 <= args.confidence < 1:
        raise BadInput("--time-threshold must be in (0, 1) and --confidence in [0.5, 1)")
    new_env = dict(os.environ)
    for item in args.new_env:
        if "=" not in item:
            raise BadInput(f"--new-env {item}: expected VAR=VALUE")
        key, value = item.split("=", 1)
        new_env[key] = value
    import re
    try:
        judged = re.compile(args.regression_set)
    except re.error as error:
        raise BadInput(f"--regression-set: {error}")
    seed = args.seed if args.seed is not None else int(time.time())
    rng = random.Random(seed)
    started = time.time()
    with tempfile.TemporaryDirectory(dir=os.path.join(ROOT, "build")) as tmp, \
            open(os.path.join(tmp, "build.log"), "w") as log:
        base_bin, base_what = prepare(args.base, "BASE", not args.no_build, log)
        new_bin, new_what = prepare(args.new, "NEW", not args.no_build, log)
        built = time.time()
        sides = {"A": (base_bin, dict(os.environ)), "B": (new_bin, new_env)}
        samples = {"A": [], "B": []}
        orders, loads = [], []
        for pair in range(args.pairs):
            order = ["A", "B"] if rng.random() < 0.5 else ["B", "A"]
            orders.append("".join(order))
            for side in order:
                loads.append(load_average())
                samples[side].append(sample(sides[side][0], args, sides[side][1], tmp))
            print(f"\rab: pair {pair + 1}/{args.pairs} ({''.join(order)})", end="", file=sys.stderr)
        print(file=sys.stderr)
    names = sorted(set.intersection(*(set(s) for s in samples["A"] + samples["B"])))
    if not names:
        raise BadInput(f"no benchmark matching '{args.filter}' ran on both sides")
    rows, failures = [], []
    for name in names:
        ratios = [b[name] / a[name] for a, b in zip(samples["A"], samples["B"]) if a[name] > 0]
        median, low, high, verdict = judge(ratios, args.time_threshold, args.confidence, rng)
        if verdict == "SLOWER" and not judged.search(name):
            verdict = "slower (not judged)"
        if verdict == "SLOWER":
            failures.append(f"{name}: {median - 1:+.1%} [{low - 1:+.1%}, {high - 1:+.1%}]")
        rows.append({"name": name, "ratios": ratios, "median_ratio": median, "low": low, "high": high,
                     "verdict": verdict})
    print(f"A = BASE: {base_what}\nB = NEW:  {new_what}" + (f" with {' '.join(args.new_env)}" if args.new_env else ""))
    print(f"{args.pairs} pairs, orders {' '.join(orders)} (seed {seed}); load average "
          f"{min(loads):g}-{max(loads):g}; build {built - started:.0f} s, runs {time.time() - built:.0f} s")
    width = max(len(r["name"]) for r in rows) + 2
    print(f"{'benchmark':<{width}} {'NEW/BASE':>9} {int(args.confidence * 100)}% interval      verdict "
          f"(threshold {args.time_threshold:.0%})")
    for r in rows:
        print(f"{r['name']:<{width}} {r['median_ratio'] - 1:>+9.1%} [{r['low'] - 1:+.1%}, {r['high'] - 1:+.1%}]"
              f"{'':4} {r['verdict']}")
    if args.out:
        record = {"base": base_what, "new": new_what, "new_env": args.new_env, "pairs": args.pairs,
                  "orders": orders, "seed": seed, "filter": args.filter, "min_time": args.min_time,
                  "time_threshold": args.time_threshold, "confidence": args.confidence,
                  "load_average_samples": loads, "build_seconds": built - started,
                  "run_seconds": time.time() - built, "benchmarks": rows}
        with open(args.out, "w") as handle:
            json.dump(record, handle, indent=2, allow_nan=False)
    if failures:
        print(f"REGRESSION ({len(failures)}):")
        for failure in failures:
            print(f"  {failure}")
        return 1
    print("no regression (SLOWER needs the whole interval above the threshold)")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except BadInput as error:
        print(f"scripts/compare --ab: {error}", file=sys.stderr)
        sys.exit(2)
