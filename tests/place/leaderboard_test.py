"""scripts/place-leaderboard end to end on small instances: our strategies' rows are valid and
certified, over the optimum on a perfect packing, and a peer without the `peers` group is a
skipped row with the reason, never dropped; its judge reports a spoiled placement as invalid,
naming the row, and one that certifies as certified."""
import csv
import importlib.machinery
import importlib.util
import os
import subprocess
import sys
import tempfile

root, arenacert = sys.argv[1], sys.argv[2]
script = os.path.join(root, "scripts", "place-leaderboard")
failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


with tempfile.TemporaryDirectory() as tmp:
    env = dict(os.environ, ARENACERT=arenacert, ARENAREF_VENV=os.path.join(tmp, "no-venv"))
    out = os.path.join(tmp, "lb")
    done = subprocess.run([sys.executable, script, "--families", "packing,minimize", "--packings", "40",
                           "--time-limit", "1", "--ours", "greedy-by-size,lns", "--peers", "supermalloc",
                           "--out", out], env=env, capture_output=True, text=True, timeout=600)
    expect(done.returncode == 0, f"place-leaderboard exit {done.returncode}"
           + ("" if done.returncode == 0 else f": {done.stderr[-800:]}"))
    rows = list(csv.DictReader(open(os.path.join(out, "leaderboard.tsv")), delimiter="\t"))
    ours = [r for r in rows if not r["strategy"].startswith("omnimalloc:")]
    peers = [r for r in rows if r["strategy"].startswith("omnimalloc:")]
    expect(len(ours) == 2 * 9 and all(r["valid"] == "yes" and r["certified"] == "yes" for r in ours),
           f"our 18 rows (9 instances x 2) valid and certified: {[(r['instance'], r['strategy'], r['valid']) for r in ours if r['valid'] != 'yes']}")
    packing = [r for r in ours if r["family"] == "packing"]
    expect(packing and all(float(r["over_optimum"]) >= 1.0 for r in packing),
           f"a perfect packing's height is never below its optimum: {[r['over_optimum'] for r in packing]}")
    expect(len(peers) == 9 and all(r["status"] == "skipped" and "no Python environment" in r["note"]
                                   for r in peers),
           f"the peer without its group: 9 skipped rows with the reason: {[(r['status'], r['note'][:60]) for r in peers][:2]}")
    md = open(os.path.join(out, "leaderboard.md")).read()
    expect("### perfect packings" in md and "minimised" in md and "lns" in md,
           f"leaderboard.md has both families: {[l for l in md.splitlines() if l.startswith('#')]}")

    # The judge: a placement with two live rows on one byte is invalid, naming a row.
    loader = importlib.machinery.SourceFileLoader("place_leaderboard", script)
    spec = importlib.util.spec_from_loader("place_leaderboard", loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    os.environ["ARENACERT"] = arenacert
    good, bad = os.path.join(tmp, "good.csv"), os.path.join(tmp, "bad.csv")
    with open(good, "w") as f:
        f.write("id,lower,upper,size,offset\n0,0,4,64,0\n1,2,6,64,64\n2,4,8,64,0\n")
    with open(bad, "w") as f:
        f.write("id,lower,upper,size,offset\n0,0,4,64,0\n1,2,6,64,32\n2,4,8,64,0\n")
    valid, certified, height, bound, note = module.judge(good)
    expect(valid and certified and height == 128 and bound == 128, f"a valid placement: {valid} {certified} {height} {bound}")
    valid, certified, height, bound, note = module.judge(bad)
    expect(not valid and not certified and note, f"a spoiled placement is invalid and not certified: {valid} {certified} {note!r}")

print(f"FAILED ({len(failures)})" if failures else "ok: the leaderboard keeps every row")
sys.exit(1 if failures else 0)
