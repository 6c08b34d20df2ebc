"""scripts/compare on synthetic results whose verdicts are certain.

Three files share one benchmark with 12 repetitions and deterministic counters: `same` holds the
base's times shuffled with a tiny jitter (no regression: exit 0), `slow` holds them x1.2 (a
planted 20% slowdown: exit 1), `alloc` keeps the times but raises allocations_per_call and
drops site_precision (counter regressions: exit 1). A 3% slowdown that the U test finds
significant stays under the default 5% threshold (exit 0) and is flagged with --threshold 0.02. The
same 20% slowdown on a comparison point outside the regression set (jemalloc) is not judged.
"""
import json
import os
import random
import subprocess
import sys
import tempfile

compare = sys.argv[1]
rng = random.Random(7)
base_times = [100.0 + rng.uniform(-2, 2) for _ in range(12)]


def results(times, allocations=0.0, precision=1.0, name="arena/fixed/arena/repeats:12"):
    runs = []
    for i, t in enumerate(times):
        runs.append({"name": name, "run_name": name,
                     "run_type": "iteration", "repetitions": 12, "repetition_index": i, "threads": 1,
                     "iterations": 1000, "real_time": t, "cpu_time": t, "time_unit": "us",
                     "allocations_per_call": allocations, "site_precision": precision})
    ordered = sorted(times)
    median = (ordered[5] + ordered[6]) / 2
    runs.append({"name": name + "_median", "run_name": name,
                 "run_type": "aggregate", "aggregate_name": "median", "repetitions": 12, "threads": 1,
                 "iterations": 12, "real_time": median, "cpu_time": median, "time_unit": "us",
                 "allocations_per_call": allocations, "site_precision": precision})
    return {"context": {"date": "2026-11-29"}, "benchmarks": runs}


failures = 0


def check(name, data, expected, *extra, base=None):
    global failures
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for label, content in (("base", base or results(base_times)), (name, data)):
            path = os.path.join(tmp, label + ".json")
            with open(path, "w") as handle:
                json.dump(content, handle)
            paths.append(path)
        done = subprocess.run([compare, *paths, "--quiet-compare-py", *extra], capture_output=True, text=True)
        if done.returncode != expected:
            failures += 1
            print(f"FAIL {name}: exit {done.returncode}, expected {expected}\n{done.stdout}{done.stderr}")
        else:
            print(f"ok   {name}: exit {done.returncode}")


shuffled = [t * (1 + rng.uniform(-0.003, 0.003)) for t in base_times]
rng.shuffle(shuffled)
check("same", results(shuffled), 0)
check("slow", results([t * 1.2 for t in base_times]), 1)
check("alloc", results(base_times, allocations=1.0, precision=0.9), 1)
check("small", results([t * 1.03 for t in base_times]), 0)
check("small-threshold", results([t * 1.03 for t in base_times]), 1, "--threshold", "0.02")
# A slowdown of a comparison point (another allocator) is listed, not judged.
other = "arena/fixed/jemalloc/repeats:12"
check("other-allocator", results([t * 1.2 for t in base_times], name=other), 0, base=results(base_times, name=other))
sys.exit(1 if failures else 0)
