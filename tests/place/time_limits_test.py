"""scripts/place-time-limits end to end on small instances: a row per strategy (search and lns
also with two workers) and instance, each valid by `place --check`, its seconds, overrun and
height filled in; the worst overrun and the workers-against-one line printed; a placement the
judge finds invalid makes the exit 1, and a missing CSV exit 2."""
import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "common"))
from bench_checks import expect, failures  # noqa: E402

root, arenacert = sys.argv[1], sys.argv[2]
script = os.path.join(root, "scripts", "place-time-limits")


def run(tmp, *args, env=None):
    return subprocess.run([sys.executable, script, "--out", os.path.join(tmp, "tl"), *args],
                          env=env or dict(os.environ, ARENACERT=arenacert),
                          capture_output=True, text=True, timeout=600)


with tempfile.TemporaryDirectory() as tmp:
    small = os.path.join(tmp, "small.csv")
    with open(small, "w") as f:  # a staircase: every strategy places it, the search at the bound
        f.write("id,lower,upper,size\n")
        for i in range(60):
            f.write("%d,%d,%d,%d\n" % (i, i, i + 7 + i % 5, 16 * (1 + i % 7)))
    done = run(tmp, "--families", "packing", "--packings", "40", "--csv", small,
               "--time-limit", "0.5", "--threads", "2")
    expect(done.returncode == 0, f"exit {done.returncode}"
           + ("" if done.returncode == 0 else f": {done.stderr[-600:]}"))
    rows = list(csv.DictReader(open(os.path.join(tmp, "tl", "time-limits.tsv")), delimiter="\t"))
    expect(len(rows) == 2 * (6 + 2), f"16 rows (2 instances x 6 strategies + search and lns on 2 "
           f"workers): {len(rows)}")
    expect(all(r["valid"] == "yes" and r["status"] == "ok" and r["height"].isdigit()
               and float(r["seconds"]) >= 0 and r["overrun"] for r in rows),
           f"every row valid, with seconds, overrun and height: "
           f"{[(r['instance'], r['strategy'], r['status']) for r in rows if r['valid'] != 'yes']}")
    expect(sorted({r["family"] for r in rows}) == ["csv", "packing"], "both families")
    expect("worst overrun of --time-limit 0.5" in done.stdout and "--threads 2 higher than one "
           "thread: 0 of 4 runs" in done.stdout, f"the summary lines: {done.stdout[-400:]}")

    # A judge that finds every placement invalid (a stand-in arenacert whose --check fails).
    fake = os.path.join(tmp, "arenacert")
    with open(fake, "w") as f:
        f.write('#!/bin/sh\nfor a in "$@"; do [ "$a" = --check ] && exit 1; done\n'
                'exec "%s" "$@"\n' % arenacert)
    os.chmod(fake, 0o755)
    done = run(tmp, "--families", "", "--csv", small, "--time-limit", "0.2",
               "--strategies", "greedy-by-size", env=dict(os.environ, ARENACERT=fake))
    rows = list(csv.DictReader(open(os.path.join(tmp, "tl", "time-limits.tsv")), delimiter="\t"))
    expect(done.returncode == 1 and [r["valid"] for r in rows] == ["no"],
           f"an invalid placement: exit 1 and a row saying so ({done.returncode}, {rows})")
    done = run(tmp, "--families", "", "--csv", os.path.join(tmp, "missing.csv"))
    expect(done.returncode == 2 and "missing.csv" in done.stderr,
           f"a missing CSV: exit 2 naming it ({done.returncode}: {done.stderr[-200:]})")

print("%d failed" % len(failures))
sys.exit(1 if failures else 0)
