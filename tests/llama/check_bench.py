"""The llama family in the suite: scripts/bench (no build, no report) runs certify/llama/ and
placement/llama/ on the plans scripts/llama-plan --export-all makes, and the results file is
checked: every model's certify entry gives verdict 0, ggml-alloc's buffer (planned_size) is at
least the max-live bound, every strategy's placement certifies 0 and is no lower than the bound,
and the search's height is at most ggml-alloc's buffer. Usage: check_bench.py ROOT BUILD_DIR DIR"""

import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_checks import expect, finish, runs as by_name  # noqa: E402

root, build_dir, work = sys.argv[1:4]
os.makedirs(work, exist_ok=True)
for old in glob.glob(os.path.join(work, "*.json")):
    os.remove(old)
env = dict(os.environ, BUILD_DIR=build_dir)
done = subprocess.run(
    [os.path.join(root, "scripts/bench"), "--no-build", "--no-report", "--out", work,
     "--filter", "^(certify|placement)/llama/"],
    env=env, capture_output=True, text=True)
expect(done.returncode == 0, f"scripts/bench exit status {done.returncode}")
files = [f for f in glob.glob(os.path.join(work, "*.json")) if not f.endswith(".topology.json")]
if done.returncode or len(files) != 1:
    print(done.stdout[-2000:], done.stderr[-3000:])
    sys.exit(1)
results = json.load(open(files[0]))
for skipped in results.get("arenaref_skipped", []):
    expect(False, f"{skipped['name']} skipped: {skipped.get('error_message')}")
runs = by_name(results["benchmarks"])
models = sorted({n.split("/")[2] for n in runs if n.startswith("certify/llama/")})
expect(models == ["llama-f16", "llama-gqa", "qwen2-f16-tied"], f"three models: {models}")
strategies = None
for model in models:
    c = runs[f"certify/llama/{model}"]
    expect(c.get("verdict") == 0 and c.get("ops", 0) > 0, f"certify/llama/{model}: verdict 0")
    planned, bound = c.get("planned_size", 0), c.get("lower_bound_bytes", 0)
    expect(0 < bound <= planned, f"{model}: ggml-alloc's buffer {planned} >= bound {bound}")
    own = runs.get(f"placement/llama/{model}/ggml-alloc", {})
    expect(own.get("height_bytes") == planned and own.get("lower_bound_bytes") == bound
           and own.get("verdict") == 0,
           f"placement/llama/{model}/ggml-alloc: height {own.get('height_bytes')}, verdict "
           f"{own.get('verdict')}")
    ours = sorted(n.split("/")[3] for n in runs
                  if n.startswith(f"placement/llama/{model}/") and not n.endswith("/ggml-alloc"))
    strategies = strategies or ours
    expect(len(ours) == 5 and ours == strategies, f"{model}: the five strategies ran ({ours})")
    for s in ours:
        r = runs[f"placement/llama/{model}/{s}"]
        expect(r.get("verdict") == 0 and r.get("valid") == 1 and r.get("height_bytes", 0) >= bound
               and r.get("planned_size") == planned,
               f"placement/llama/{model}/{s}: height {r.get('height_bytes')} >= bound {bound},"
               f" verdict {r.get('verdict')}")
    search = runs.get(f"placement/llama/{model}/search", {}).get("height_bytes")
    expect(search is not None and search <= planned,
           f"{model}: search {search} <= ggml-alloc's buffer {planned}")
finish()
