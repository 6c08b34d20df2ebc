"""A real runtime's family in the suite: scripts/bench (no build, no report) runs
certify/FAMILY/ and placement/FAMILY/ on the plans the family's exporter made (--export-all),
and the results file is checked: every model's certify entry gives verdict 0, the runtime's own
planner (OWN: planned_size) is at least the max-live bound, every strategy's placement
certifies 0 and is no lower than the bound, and the search's height is at most the runtime's
own size (the problem's buffers live over runs of ops and keep their real sizes, so the
runtime's own placement is one of its placements). A model written !MODEL is one the exporter
refuses: its certify entry is skipped with the reason ("refused: ..."), and it has no other.
Usage: check_bench.py ROOT BUILD_DIR DIR FAMILY OWN MODEL... [!MODEL...]"""

import glob
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_checks import expect, finish, place_strategies, runs as by_name  # noqa: E402

args = sys.argv[1:]
root, build_dir, work, family, own_name = args[:5]
want_models = sorted(m for m in args[5:] if not m.startswith("!"))
want_refused = sorted(m[1:] for m in args[5:] if m.startswith("!"))
os.makedirs(work, exist_ok=True)
for old in glob.glob(os.path.join(work, "*.json")):
    os.remove(old)
env = dict(os.environ, BUILD_DIR=build_dir)
done = subprocess.run(
    [os.path.join(root, "scripts/bench"), "--no-build", "--no-report", "--out", work,
     "--filter", f"^(certify|placement)/{family}/"],
    env=env, capture_output=True, text=True)
expect(done.returncode == 0, f"scripts/bench exit status {done.returncode}")
files = [f for f in glob.glob(os.path.join(work, "*.json")) if not f.endswith(".topology.json")]
if done.returncode or len(files) != 1:
    print(done.stdout[-2000:], done.stderr[-3000:])
    sys.exit(1)
results = json.load(open(files[0]))
refused = []
for skipped in results.get("arenaref_skipped", []):
    name, message = skipped["name"], skipped.get("error_message") or ""
    if name.startswith(f"certify/{family}/") and name.split("/")[2] in want_refused:
        refused.append(name.split("/")[2])
        expect(message.startswith("refused: "), f"{name} skipped: {message}")
    else:
        expect(False, f"{name} skipped: {message}")
expect(sorted(refused) == want_refused, f"the refused {want_refused}: {sorted(refused)}")
runs = by_name(results["benchmarks"])
models = sorted({n.split("/")[2] for n in runs if n.startswith(f"certify/{family}/")})
expect(models == want_models, f"the models {want_models}: {models}")
strategies = None
for model in models:
    c = runs[f"certify/{family}/{model}"]
    expect(c.get("verdict") == 0 and c.get("ops", 0) > 0, f"certify/{family}/{model}: verdict 0"
           + (f", {c['instructions']:.0f} instructions" if "instructions" in c else ""))
    planned, bound = c.get("planned_size", 0), c.get("lower_bound_bytes", 0)
    expect(0 < bound <= planned, f"{model}: {own_name}'s {planned} >= bound {bound}")
    own = runs.get(f"placement/{family}/{model}/{own_name}", {})
    expect(own.get("height_bytes") == planned and own.get("lower_bound_bytes") == bound
           and own.get("verdict") == 0,
           f"placement/{family}/{model}/{own_name}: height {own.get('height_bytes')}, verdict "
           f"{own.get('verdict')}")
    ours = sorted(n.split("/")[3] for n in runs
                  if n.startswith(f"placement/{family}/{model}/")
                  and not n.endswith(f"/{own_name}"))
    strategies = strategies or place_strategies(os.path.join(build_dir, "bin"))
    expect(len(ours) >= 5 and ours == strategies, f"{model}: every strategy of place.h ran ({ours})")
    for s in ours:
        r = runs[f"placement/{family}/{model}/{s}"]
        expect(r.get("verdict") == 0 and r.get("valid") == 1 and r.get("height_bytes", 0) >= bound
               and r.get("planned_size") == planned,
               f"placement/{family}/{model}/{s}: height {r.get('height_bytes')} >= bound {bound},"
               f" verdict {r.get('verdict')}")
    search = runs.get(f"placement/{family}/{model}/search", {}).get("height_bytes")
    expect(search is not None and search <= planned,
           f"{model}: search {search} <= {own_name}'s {planned}")
finish()
