"""scripts/bench's last step: turns the JSON arenaref_bench wrote into a strict results file.

Strict: no NaN or Infinity anywhere (such fields are dropped). Skipped benchmarks leave
"benchmarks" for a list of their own, "arenaref_skipped" (name, error_message, no times), so that
every reader of Google Benchmark's format sees measurements only (bench/README.md says why).
--reformat FILE... applies only that and the strictness to files written before. Reproduction: the command line, filter, mode and profile go into
the context. Noise: the load average and CPU steal sampled through the run (scripts/bench's
sampler file) and each repeated benchmark's CV of CPU time go into "arenaref_noise". With
--callgrind DIR (scripts/bench --instructions), every run gets "instructions": the callgrind
count of its timed loop's body divided by its iterations, from the dumps the shim made.
"""

import argparse
import glob
import json
import math
import os
import re
import statistics
import sys

TIME_FIELDS = ("real_time", "cpu_time")
SKIPPED = "arenaref_skipped"  # the name scripts/lib/results.py reads


def strip_nonfinite(value):
    """The value with every NaN/Infinity dropped from objects and replaced by None in arrays."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            item = strip_nonfinite(item)
            if item is None and value[key] is not None:
                continue
            out[key] = item
        return out
    if isinstance(value, list):
        return [strip_nonfinite(item) for item in value]
    return value


def set_skipped_apart(data):
    """Moves skipped runs (Google Benchmark's error_occurred; older files' "skipped": true) out of
    "benchmarks" into "arenaref_skipped", without times; the list is always written."""
    kept, skipped = [], [e for e in data.get(SKIPPED) or [] if isinstance(e, dict)]
    for entry in data["benchmarks"]:
        if isinstance(entry, dict) and (entry.get("error_occurred") or entry.get("skipped")):
            entry = {k: v for k, v in entry.items() if k not in TIME_FIELDS + ("instructions",)}
            entry.update(error_occurred=True, skipped=True)
            entry.setdefault("error_message", "skipped")
            skipped.append(entry)
        else:
            kept.append(entry)
    data["benchmarks"] = kept
    data[SKIPPED] = skipped
    return data


def write_strict(data, path, indent=2):
    text = json.dumps(strip_nonfinite(data), indent=indent, allow_nan=False)
    with open(path + ".tmp", "w") as handle:
        handle.write(text + "\n")
    os.replace(path + ".tmp", path)


def reformat(paths):
    """Old results files to today's format: skipped runs apart, no NaN; nothing re-measured."""
    for path in paths:
        try:
            with open(path) as handle:
                text = handle.read()
            data = json.loads(text)
        except (OSError, ValueError) as error:
            sys.exit(f"scripts/lib/results_post.py: cannot read {path}: {error}")
        second = text.split("\n", 2)[1] if text.count("\n") > 1 else ""
        indent = len(second) - len(second.lstrip(" ")) or 2  # kept, so the diff is the change
        if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
            sys.exit(f"scripts/lib/results_post.py: {path} is not a Google Benchmark JSON file")
        before = sum(1 for e in data["benchmarks"] if e.get("error_occurred") or e.get("skipped"))
        write_strict(set_skipped_apart(data), path, indent)
        print(f"{path}: {before} skipped entries moved to {SKIPPED}; NaN/Infinity fields dropped")
    return 0


def read_dumps(directory):
    """The shim's dumps in order: (name, iterations, skipped, instructions)."""
    parts = []
    for path in glob.glob(os.path.join(directory, "*")):
        part, desc, total = None, None, None
        with open(path, errors="replace") as handle:
            for line in handle:
                if line.startswith("part:"):
                    part = int(line.split()[1])
                elif line.startswith("desc: Trigger:"):
                    desc = line[len("desc: Trigger:") :].strip()
                elif line.startswith("totals:") or (total is None and line.startswith("summary:")):
                    total = int(line.split()[1])
        match = re.match(
            r"Client Request: arenaref-run iterations=(\d+)( skipped)? name=(.*)$", desc or ""
        )
        if match and part is not None and total is not None:
            parts.append((part, match.group(3), int(match.group(1)), bool(match.group(2)), total))
    parts.sort()
    return [p[1:] for p in parts]


def attach_instructions(data, directory, source):
    """Sets "instructions" (per iteration) on each run from the dumps, matched in order."""
    dumps = read_dumps(directory)
    runs = [e for e in data["benchmarks"] if e.get("run_type") != "aggregate"]
    if len(dumps) != len(runs):
        sys.exit(
            f"scripts/bench: {source} has {len(runs)} runs but callgrind made {len(dumps)} dumps "
            f"in {directory}: cannot match counts to runs"
        )
    per_name = {}
    for entry, (name, iterations, skipped, total) in zip(runs, dumps):
        run_name = entry.get("run_name", entry["name"])
        if not run_name.startswith(name):
            sys.exit(
                f"scripts/bench: dump for '{name}' does not match the run '{run_name}' in {source}"
            )
        if skipped or entry.get("error_occurred") or iterations <= 0:
            continue
        entry["instructions"] = total / iterations
        per_name.setdefault(run_name, []).append(entry["instructions"])
    for entry in data["benchmarks"]:
        if entry.get("run_type") == "aggregate" and entry.get("aggregate_name") in (
            "mean",
            "median",
        ):
            values = per_name.get(entry.get("run_name"))
            if values:
                aggregate = (
                    statistics.median if entry["aggregate_name"] == "median" else statistics.fmean
                )
                entry["instructions"] = aggregate(values)


def read_noise(path):
    """Load average and CPU steal from the sampler's lines: 'EPOCH LOAD1 cpu user nice ...'."""
    loads, stats = [], []
    if path and os.path.exists(path):
        with open(path) as handle:
            for line in handle:
                fields = line.split()
                if len(fields) < 11 or fields[2] != "cpu":
                    continue
                try:
                    loads.append(float(fields[1]))
                    stats.append([int(x) for x in fields[3:]])
                except ValueError:
                    continue
    noise = {"samples": len(loads)}
    if loads:
        noise["load_average_1min"] = {
            "min": min(loads),
            "median": statistics.median(loads),
            "max": max(loads),
        }
    if len(stats) >= 2:
        delta = [b - a for a, b in zip(stats[0], stats[-1])]
        total = sum(delta[:8]) or 1
        noise["cpu_steal_percent"] = round(100.0 * delta[7] / total, 3) if len(delta) > 7 else None
        noise["cpu_busy_percent"] = round(100.0 * (total - delta[3] - delta[4]) / total, 3)
    return noise


def benchmark_cv(data):
    """CV of the judged time over each repeated benchmark's repetitions."""
    times = {}
    for entry in data["benchmarks"]:
        if entry.get("run_type") == "aggregate" or entry.get("error_occurred"):
            continue
        key = "real_time" if "manual_time" in entry["name"] else "cpu_time"
        if isinstance(entry.get(key), (int, float)):
            times.setdefault(entry.get("run_name", entry["name"]), []).append(float(entry[key]))
    out = {}
    for name, values in times.items():
        if len(values) >= 2 and statistics.fmean(values) > 0:
            out[name] = round(statistics.stdev(values) / statistics.fmean(values), 6)
    return out


def main():
    parser = argparse.ArgumentParser(
        prog="scripts/lib/results_post.py", description=__doc__.split("\n")[0]
    )
    parser.add_argument("json", nargs="+", help="the file arenaref_bench wrote (--reformat: files)")
    parser.add_argument(
        "--reformat",
        action="store_true",
        help="only move skipped entries apart and drop NaN in existing results files",
    )
    parser.add_argument("--mode", choices=("time", "instructions"), default="time")
    parser.add_argument(
        "--callgrind", help="the directory of callgrind's dumps (instructions mode)"
    )
    parser.add_argument("--noise", help="the sampler's file")
    parser.add_argument("--command", default="", help="the scripts/bench command line")
    parser.add_argument("--filter", default="", help="the --filter given")
    parser.add_argument("--valgrind", default="", help="valgrind --version")
    args = parser.parse_args()
    if args.reformat:
        return reformat(args.json)
    if len(args.json) != 1:
        parser.error("one results file (or --reformat FILE...)")
    args.json = args.json[0]
    try:
        with open(args.json) as handle:
            data = json.load(handle)  # Python's reader takes NaN; the file written will not have it
    except (OSError, ValueError) as error:
        sys.exit(f"scripts/bench: cannot read {args.json}: {error}")
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        sys.exit(f"scripts/bench: {args.json} is not a Google Benchmark JSON file")
    if args.mode == "instructions" and args.callgrind:  # scripts/bench attaches them itself
        attach_instructions(data, args.callgrind, args.json)  # matched in order: skipped ones too
    set_skipped_apart(data)
    context = data.setdefault("context", {})
    context["arenaref_mode"] = args.mode
    context["arenaref_command"] = args.command
    context["arenaref_filter"] = args.filter
    if args.mode == "instructions":
        context["instructions_per"] = (
            "iteration (callgrind Ir of the timed loop's body / iterations)"
        )
        context["valgrind_version"] = args.valgrind
        context["times_are"] = "under callgrind: not comparable with native times"
    noise = read_noise(args.noise)
    if args.mode == "time":
        noise["cv"] = benchmark_cv(data)
    data["arenaref_noise"] = noise
    write_strict(data, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
