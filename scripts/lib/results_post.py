"""scripts/bench's last step: turns the JSON arenaref_bench wrote into a strict results file.

Strict: no NaN or Infinity anywhere (such fields are dropped), skipped benchmarks carry
"skipped": true and no times. Reproduction: the command line, filter, mode and profile go into
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
    parser.add_argument("json")
    parser.add_argument("--mode", choices=("time", "instructions"), default="time")
    parser.add_argument(
        "--callgrind", help="the directory of callgrind's dumps (instructions mode)"
    )
    parser.add_argument("--noise", help="the sampler's file")
    parser.add_argument("--command", default="", help="the scripts/bench command line")
    parser.add_argument("--filter", default="", help="the --filter given")
    parser.add_argument("--valgrind", default="", help="valgrind --version")
    args = parser.parse_args()
    try:
        with open(args.json) as handle:
            data = json.load(handle)  # Python's reader takes NaN; the file written will not have it
    except (OSError, ValueError) as error:
        sys.exit(f"scripts/bench: cannot read {args.json}: {error}")
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        sys.exit(f"scripts/bench: {args.json} is not a Google Benchmark JSON file")
    for entry in data["benchmarks"]:
        if entry.get("error_occurred"):
            entry["skipped"] = True
            for key in TIME_FIELDS:
                entry.pop(key, None)
    if args.mode == "instructions" and args.callgrind:  # scripts/bench attaches them itself
        attach_instructions(data, args.callgrind, args.json)
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
    data = strip_nonfinite(data)
    text = json.dumps(data, indent=2, allow_nan=False)
    with open(args.json + ".tmp", "w") as handle:
        handle.write(text + "\n")
    os.replace(args.json + ".tmp", args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
