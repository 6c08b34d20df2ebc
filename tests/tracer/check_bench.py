"""The trace family in arenaref_bench: three shipped instances unpacked (as scripts/bench does),
the quick profile registers the two up to 25,000 buffers and the full one all three; sqlite-small's entries run for
every strategy but the time-limited ones and each is certified 0, at the manifest's bound and
buffers, no lower than the bound; without ARENAREF_TRACES the family is one skipped entry that
says why. Usage: check_bench.py ROOT ARENAREF_BENCH DIR"""

import csv
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_checks import expect, finish, runs as by_name  # noqa: E402

root, bench, work = sys.argv[1:4]
traces = os.path.join(work, "traces")
subprocess.run(["/usr/bin/python3", os.path.join(root, "workloads", "tracer", "family.py"), "unpack", traces,
                "--names", "python-startup,sqlite-small,sqlite-medium"], check=True, stdout=subprocess.DEVNULL)
manifest = {r["name"]: r for r in csv.DictReader(open(os.path.join(root, "workloads", "data", "traces",
                                                                   "manifest.tsv")), delimiter="\t")}
env = dict(os.environ, ARENAREF_TRACES=traces)


def listed(*flags, environment=env):
    done = subprocess.run([bench, "--benchmark_filter=^placement/trace/", "--benchmark_list_tests=true", *flags],
                          env=environment, capture_output=True, text=True)
    return sorted({line.split("/")[2] for line in done.stdout.split()})


small = sorted(n for n, r in manifest.items() if int(r["buffers"]) <= 25000)
expect(listed() == small, f"quick profile: the instances up to 25,000 buffers: {listed()}")
expect(listed("--arenaref_profile=full") == sorted(small + ["sqlite-medium"]),
       f"full profile: every instance unpacked (here also sqlite-medium): {listed('--arenaref_profile=full')}")

out = os.path.join(work, "run.json")
done = subprocess.run([bench, "--benchmark_filter=^placement/trace/sqlite-small/(greedy|first-fit|best-fit)",
                       "--benchmark_min_time=0.001", "--benchmark_repetitions=1", f"--benchmark_out={out}",
                       "--benchmark_out_format=json"], env=env, capture_output=True, text=True)
expect(done.returncode == 0, f"arenaref_bench exit status {done.returncode}")
if done.returncode:
    print(done.stderr[-2000:])
runs = by_name(json.load(open(out))["benchmarks"])
names = sorted(n for n in runs if n.startswith("placement/trace/sqlite-small/"))
expect(len(names) == 4, f"four heuristics ran: {names}")
bound = int(manifest["sqlite-small"]["max_live_bound"])
for name in names:
    r = runs[name]
    expect(not r.get("error_occurred") and r.get("verdict") == 0 and r.get("lower_bound") == bound and
           r.get("buffers") == int(manifest["sqlite-small"]["buffers"]) and r.get("height", 0) >= bound and
           r.get("read_s", 0) > 0 and r.get("write_s", 0) > 0,
           f"{name}: certified 0, bound {r.get('lower_bound')} = the manifest's, height {r.get('height')} >= it, "
           f"read {r.get('read_s')} s and write {r.get('write_s')} s timed")

bare = {k: v for k, v in env.items() if k != "ARENAREF_TRACES"}
done = subprocess.run([bench, "--benchmark_filter=^placement/trace/", f"--benchmark_out={out}",
                       "--benchmark_out_format=json"], env=bare, capture_output=True, text=True)
entries = json.load(open(out))["benchmarks"]
expect(len(entries) == 1 and entries[0]["name"] == "placement/trace/unavailable" and entries[0].get("error_occurred")
       and "ARENAREF_TRACES" in entries[0].get("error_message", ""),
       f"without ARENAREF_TRACES: one skipped entry with the reason: {[(e['name'], e.get('error_message')) for e in entries]}")
finish()
