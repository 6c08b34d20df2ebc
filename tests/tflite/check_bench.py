"""The tflite family in arenaref_bench: every model exported into a directory, then one model's
entries run and their counters checked: the certificate gives 0, both planted faults get the
class their meta names and nothing unsound is certified, LiteRT's arena is at least the max-live
bound, and every strategy of place.h places the same lifetimes validly, no lower than the
bound. Usage: check_bench.py TFLITE_PLAN ARENAREF_BENCH DIR"""

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_checks import expect, finish, place_strategies, runs as by_name  # noqa: E402

plan_tool, bench, work = sys.argv[1:4]
plans = os.path.join(work, "plans")
subprocess.run([plan_tool, "--export-all", plans], check=True)
with open(os.path.join(plans, "index.tsv")) as f:
    rows = [line.rstrip("\n").split("\t") for line in f][1:]
expect(len({r[0] for r in rows}) == 7, "the index lists the seven shipped models")
out = os.path.join(work, "run.json")
env = dict(os.environ, ARENAREF_TFLITE_PLANS=plans)
command = [
    bench,
    "--benchmark_filter=tflite/face_landmark",
    "--benchmark_min_time=0.001",
    "--benchmark_repetitions=1",
    f"--benchmark_out={out}",
    "--benchmark_out_format=json",
]
done = subprocess.run(command, env=env, capture_output=True, text=True)
expect(done.returncode == 0, f"arenaref_bench exit status {done.returncode}")
if done.returncode:
    print(done.stderr[-2000:])
entries = json.load(open(out))["benchmarks"]
for entry in entries:
    if entry.get("run_type") != "aggregate":
        expect(not entry.get("error_occurred"), f"{entry['name']}: {entry.get('error_message')}")
runs = by_name(entries)
c = runs.get("certify/tflite/face_landmark", {})
expect(c.get("verdict") == 0 and c.get("ops") == 97, "certify: verdict 0 on 97 ops")
p = runs.get("precision/tflite/face_landmark", {})
expect(
    p.get("verdict_classes_match") == 3 and p.get("unsound_plans") == 0,
    "precision: the clean plan and both faults get their class, nothing unsound",
)
own_name = "placement/tflite/face_landmark/litert"
own = runs.get(own_name, {})
bound = own.get("lower_bound_bytes", 0)
expect(
    0 < bound <= own.get("height_bytes", 0) == own.get("litert_arena_bytes"),
    "placement/litert: LiteRT's arena is its height, at least the max-live bound",
)
ours = [n for n in runs if n.startswith("placement/tflite/face_landmark/") and n != own_name]
strategies = place_strategies(os.path.dirname(bench))
expect(sorted(n.split("/")[3] for n in ours) == strategies and len(strategies) >= 5,
       f"every strategy of place.h ran ({sorted(n.split('/')[3] for n in ours)} of {strategies})")
for name in ours:
    run = runs[name]
    expect(
        run.get("valid") == 1 and run.get("height_bytes", 0) >= bound,
        f"{name}: valid, height {run.get('height_bytes')} >= bound {bound}",
    )
finish()
