"""scripts/bench --shard I/N: which of the selected benchmarks shard I of N runs, and its record.

`select` reads the selected names (one per line, the binary's listing) and prints shard I's.
The split is a function of the names and the committed baseline alone (results/baseline/, the
file of the same mode and profile), so every shard of a sweep computes the same one wherever it
runs: each benchmark weighs what it took in the baseline (the sum of its runs' iterations x
real time, plus a fixed cost per run for setup), a name the baseline lacks weighs the median,
and the heaviest go first, each to the lightest shard so far (ties: by name, then the lower
shard). `record` puts the shard into a finished results file's context (arenaref_shard):
index, count, the whole selection's size and digest, the balance's source and this shard's
names, which is what scripts/merge checks; and arenaref_host_kind when ARENAREF_HOST_KIND is set.
"""

import argparse
import glob
import hashlib
import json
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import NS, base_name  # noqa: E402

SETUP_S = 0.02  # per run: plan generation and warm-up are not in real_time


def parse_shard(text):
    match = re.fullmatch(r"(\d+)/(\d+)", text or "")
    if not match or not 1 <= int(match.group(1)) <= int(match.group(2)):
        raise ValueError(f"--shard '{text}': expected I/N with 1 <= I <= N (e.g. 2/4)")
    return int(match.group(1)), int(match.group(2))


def baseline_weights(folder, mode, profile):
    """(base name -> seconds, the file used) from the baseline file of this mode and profile."""
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path) as handle:
                data = json.load(handle)
        except (OSError, ValueError):
            continue
        context = data.get("context", {}) if isinstance(data, dict) else {}
        if context.get("arenaref_mode", "time") != mode or context.get("profile") != profile:
            continue
        weights = {}
        for entry in data.get("benchmarks", []):
            if entry.get("run_type") == "aggregate":
                continue
            name = base_name(entry.get("run_name", entry.get("name", "")))
            seconds = SETUP_S
            if isinstance(entry.get("real_time"), (int, float)):
                seconds += (
                    entry["real_time"]
                    * NS.get(entry.get("time_unit", "ns"), 1.0)
                    * entry.get("iterations", 1)
                    / 1e9
                )
            weights[name] = weights.get(name, 0.0) + seconds
        return weights, os.path.basename(path)
    return {}, None


def group_of(name):
    """The instruction profile's process group: PREFIX/SECOND (certify/decoder, arena/small)."""
    return "/".join(name.split("/")[:2])


def split(names, count, weights, groups=False):
    """names -> list of count lists; deterministic, heaviest first onto the lightest shard.
    groups: whole groups (group_of) are the units, never split between shards."""
    default = statistics.median(weights.values()) if weights else 1.0
    units = {}
    for name in names:
        units.setdefault(group_of(name) if groups else name, []).append(name)
    weight = {u: sum(weights.get(base_name(n), default) for n in ns) for u, ns in units.items()}
    loads = [0.0] * count
    shards = [[] for _ in range(count)]
    for unit in sorted(units, key=lambda u: (-weight[u], u)):
        lightest = min(range(count), key=lambda i: (loads[i], i))
        loads[lightest] += weight[unit]
        shards[lightest].extend(units[unit])
    order = {n: i for i, n in enumerate(names)}  # each shard keeps the listing's order
    return [sorted(s, key=order.get) for s in shards], loads


def selection_digest(names):
    return hashlib.sha256("\n".join(sorted(base_name(n) for n in names)).encode()).hexdigest()[:16]


def join_parts(path, callgrind):
    """JSON.part001... (raw Google Benchmark files) with their dumps CALLGRIND/001... -> JSON."""
    from results_post import attach_instructions

    parts = sorted(glob.glob(glob.escape(path) + ".part[0-9][0-9][0-9]"))
    if not parts:
        print(f"scripts/bench: no part of {path} was written", file=sys.stderr)
        return 1
    joined = None
    for part in parts:
        with open(part) as handle:
            data = json.load(handle)  # Python's reader takes NaN; the post step drops it
        attach_instructions(data, os.path.join(callgrind, part[-3:]), part)
        if joined is None:
            joined = data
        else:
            joined["benchmarks"] += data["benchmarks"]
    with open(path + ".tmp", "w") as handle:
        json.dump(joined, handle)
    os.replace(path + ".tmp", path)
    for part in parts:
        os.remove(part)
    return 0


def main():
    parser = argparse.ArgumentParser(prog="scripts/lib/shard.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    pick = sub.add_parser("select", help="names on stdin -> this shard's names on stdout")
    pick.add_argument("shard", help="I/N")
    pick.add_argument("--mode", default="time")
    pick.add_argument("--profile", default="quick")
    pick.add_argument("--baseline", required=True, help="the baseline folder")
    pick.add_argument("--record", required=True, help="write the shard's record (JSON) here")
    pick.add_argument("--groups", action="store_true", help="split whole PREFIX/SECOND groups")
    join = sub.add_parser("join", help="the instruction profile's parts (one per group) as one file")
    join.add_argument("json", help="JSON.partNNN are the parts, CALLGRIND/NNN their dumps")
    join.add_argument("callgrind")
    put = sub.add_parser("record", help="put a record into a results file's context")
    put.add_argument("results")
    put.add_argument("record")
    args = parser.parse_args()
    if args.command == "select":
        try:
            index, count = parse_shard(args.shard)
        except ValueError as error:
            print(f"scripts/bench: {error}", file=sys.stderr)
            return 2
        names = [line.strip() for line in sys.stdin if line.strip()]
        units = len({group_of(n) for n in names}) if args.groups else len(names)
        what = "group(s) of benchmarks (one callgrind process each)" if args.groups else "benchmark(s)"
        if units < count:
            print(
                f"scripts/bench: --shard {args.shard}: only {units} {what} selected,"
                f" so at most {units} shard(s)",
                file=sys.stderr,
            )
            return 2
        weights, source = baseline_weights(args.baseline, args.mode, args.profile)
        shards, loads = split(names, count, weights, args.groups)
        record = {
            "index": index,
            "count": count,
            "selected": len(names),
            "selection_digest": selection_digest(names),
            "balance": (
                f"{source} (estimated {loads[index - 1]:.1f} s of {sum(loads):.1f} s)"
                if source
                else f"equal weights (no {args.mode} {args.profile} baseline in {args.baseline})"
            ),
            "balance_source": source or "",
            "unit": "group" if args.groups else "benchmark",
            "benchmarks": [base_name(n) for n in shards[index - 1]],
        }
        with open(args.record, "w") as handle:
            json.dump(record, handle)
        print("\n".join(shards[index - 1]))
        return 0
    if args.command == "join":
        return join_parts(args.json, args.callgrind)
    with open(args.record) as handle:
        record = json.load(handle)
    with open(args.results) as handle:
        data = json.load(handle)
    context = data.setdefault("context", {})
    context["arenaref_shard"] = record
    if os.environ.get("ARENAREF_HOST_KIND"):  # scripts/sweep: the --constraint the task ran under
        context["arenaref_host_kind"] = os.environ["ARENAREF_HOST_KIND"]
    with open(args.results + ".tmp", "w") as handle:
        handle.write(json.dumps(data, indent=2, allow_nan=False) + "\n")
    os.replace(args.results + ".tmp", args.results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
