"""scripts/export's engine: a results file of scripts/bench as a CI tracker reads it.

Only the judged benchmarks (the project's code, as scripts/compare judges it: the time set for
times, the instruction set for instruction counts), never skipped ones, each once, under its
name without the "/repeats:N" suffix:
  googlecpp  Google Benchmark JSON for github-action-benchmark (tool: 'googlecpp'): one entry per
             benchmark, real_time = the median CPU time (ns; manual time for GPU), or, in an
             instruction file, an entry "NAME/instructions" whose real_time is the count per
             iteration and time_unit "instructions" (shown as instructions/iter)
  bencher    Bencher Metric Format for `bencher run --adapter json`: per benchmark a "latency"
             measure (median ns, lower/upper = the repetitions' min and max) or an
             "instructions" measure (value per iteration)
Strict JSON (no NaN/Infinity). Exit: 0 written, 2 bad input (unreadable, not a results file,
nothing to export).
"""
import argparse
import json
import math
import re
import statistics
import sys

TIME_SET = r"^(certify|decode_loop)/|^(arena|gpu)/[^/]+/arena(/|$)"
INSTRUCTION_SET = r"^(certify|decode_loop|exact|load|precision)/|^(arena|gpu)/[^/]+/arena(/|$)"
UNITS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}
SUFFIX = re.compile(r"/repeats:\d+")


def fail(message):
    print(f"scripts/export: {message}", file=sys.stderr)
    sys.exit(2)


def collect(data, mode):
    """{name: {"times": [ns...], "instructions": [...]}} of the judged, non-skipped runs."""
    judged = re.compile(INSTRUCTION_SET if mode == "instructions" else TIME_SET)
    out = {}
    for entry in data["benchmarks"]:
        if entry.get("run_type") == "aggregate" or entry.get("error_occurred") or entry.get("skipped"):
            continue
        name = entry.get("run_name", entry.get("name", ""))
        if not judged.search(name):
            continue
        item = out.setdefault(SUFFIX.sub("", name), {"times": [], "instructions": []})
        if mode == "instructions":
            value = entry.get("instructions")
            if isinstance(value, (int, float)) and math.isfinite(value):
                item["instructions"].append(float(value))
        else:
            key = "real_time" if "manual_time" in name else "cpu_time"
            value = entry.get(key)
            if isinstance(value, (int, float)) and math.isfinite(value):
                item["times"].append(float(value) * UNITS.get(entry.get("time_unit", "ns"), 1.0))
    return {name: item for name, item in out.items() if item["times"] or item["instructions"]}


def main():
    parser = argparse.ArgumentParser(prog="scripts/export", description=__doc__.split("\n")[0],
                                     epilog="Exit status: 0 written; 2 bad usage or input.")
    parser.add_argument("--tracker", required=True, choices=("googlecpp", "bencher"))
    parser.add_argument("results", help="a results file of scripts/bench")
    parser.add_argument("-o", "--output", help="write here instead of standard output")
    args = parser.parse_args()
    try:
        with open(args.results) as handle:
            data = json.load(handle)
    except OSError as error:
        fail(f"cannot read {args.results}: {error.strerror}")
    except ValueError as error:
        fail(f"{args.results} is not JSON: {error}")
    if not isinstance(data, dict) or not isinstance(data.get("benchmarks"), list):
        fail(f"{args.results} is not a results file of scripts/bench (no 'benchmarks' list)")
    context = data.get("context", {}) if isinstance(data.get("context"), dict) else {}
    mode = context.get("arenaref_mode") or (
        "instructions" if any("instructions" in e for e in data["benchmarks"]) else "time")
    items = collect(data, mode)
    if not items:
        fail(f"{args.results}: no judged benchmark with a {mode} figure to export")
    if args.tracker == "googlecpp":
        entries = []
        for name, item in sorted(items.items()):
            if item["instructions"]:
                entries.append({"name": f"{name}/instructions", "run_name": f"{name}/instructions",
                                "run_type": "iteration", "iterations": 1, "threads": 1,
                                "real_time": statistics.median(item["instructions"]),
                                "cpu_time": statistics.median(item["instructions"]), "time_unit": "instructions"})
            if item["times"]:
                median = statistics.median(item["times"])
                entries.append({"name": name, "run_name": name, "run_type": "iteration", "iterations": 1,
                                 "threads": 1, "real_time": median, "cpu_time": median, "time_unit": "ns"})
        keep = ("date", "host_name", "executable", "num_cpus", "mhz_per_cpu", "cpu_scaling_enabled",
                "library_build_type", "arenaref_commit", "arenaref_mode", "profile")
        output = {"context": {k: context[k] for k in keep if k in context}, "benchmarks": entries}
    else:
        output = {}
        for name, item in sorted(items.items()):
            measures = {}
            if item["times"]:
                measures["latency"] = {"value": statistics.median(item["times"]),
                                       "lower_value": min(item["times"]), "upper_value": max(item["times"])}
            if item["instructions"]:
                measures["instructions"] = {"value": statistics.median(item["instructions"])}
            output[name] = measures
    text = json.dumps(output, indent=2, allow_nan=False) + "\n"
    if args.output:
        with open(args.output, "w") as handle:
            handle.write(text)
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
