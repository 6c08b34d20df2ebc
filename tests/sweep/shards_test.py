"""scripts/bench --instructions --shard 1/2 and 2/2 on a small filter, merged by scripts/merge,
against one unsharded run of the same binary: the deterministic digest and every benchmark's
instruction counts must be equal, scripts/compare must find them like with like (exit 0) and
scripts/report must read the merged file. scripts/merge must refuse (exit 2, with the reason)
a missing shard, a shard given twice, an unsharded file and shards of another filter.
"""

import glob
import json
import os
import subprocess
import sys
import tempfile

root, build_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "scripts", "lib"))
from results import Results, deterministic_digest  # noqa: E402

FILTER = r"^(certify|floor|load)/(decoder|moe)/(tiny|small)|^arena/small/(arena|floor)/"
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL", what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, cwd=root,
                          env=dict(os.environ, BUILD_DIR=build_dir), **kw)


def bench(out, *extra):
    done = run([os.path.join(root, "scripts", "bench"), "--instructions", "--no-build",
                "--filter", FILTER, "--out", out, *extra])
    expect(done.returncode == 0, f"scripts/bench {' '.join(extra)}: exit {done.returncode}: {done.stderr[-1500:]}")
    return sorted(glob.glob(os.path.join(out, "*.json")))


with tempfile.TemporaryDirectory() as tmp:
    whole = bench(os.path.join(tmp, "whole"))
    bench(os.path.join(tmp, "s"), "--shard", "1/2")
    shards = bench(os.path.join(tmp, "s"), "--shard", "2/2")
    expect(len(whole) == 1 and len(shards) == 2, f"files: {whole} {shards}")
    merged = os.path.join(tmp, "merged.json")
    merge = os.path.join(root, "scripts", "merge")
    done = run([merge, merged] + shards)
    expect(done.returncode == 0, f"scripts/merge: {done.returncode} {done.stderr}")
    if not failures:
        a = Results(whole, counters_of_instruction_files=True)
        b = Results([merged], counters_of_instruction_files=True)
        expect(deterministic_digest(a) == deterministic_digest(b),
               f"digest {deterministic_digest(a)} vs {deterministic_digest(b)}")
        expect(sorted(a.instructions) == sorted(b.instructions) and len(a.instructions) == 14,
               f"benchmarks {sorted(a.instructions)} vs {sorted(b.instructions)}")
        differ = {k: (a.instructions[k], b.instructions.get(k)) for k in a.instructions
                  if a.instructions[k] != b.instructions.get(k)}
        expect(not differ, f"instruction counts differ: {differ}")
        done = run([os.path.join(root, "scripts", "compare"), whole[0], merged])
        expect(done.returncode == 0 and "NOT LIKE WITH LIKE" not in done.stdout,
               f"scripts/compare whole merged: {done.returncode} {done.stdout[-800:]}")
        done = run([os.path.join(root, "scripts", "report"), merged, "--out", os.path.join(tmp, "report")])
        expect(done.returncode == 0, f"scripts/report merged: {done.returncode} {done.stderr[-800:]}")
        # Each shard's skipped benchmarks (arenaref_skipped) must all reach the merged file.
        planted = []
        for k, path in enumerate(shards):
            with open(path) as handle:
                data = json.load(handle)
            data["arenaref_skipped"] = (data.get("arenaref_skipped") or []) + [
                {"name": f"planted/skip{k}", "error_occurred": True, "skipped": True, "error_message": f"why {k}"}]
            planted.append(os.path.join(tmp, f"planted{k}.json"))
            with open(planted[-1], "w") as handle:
                json.dump(data, handle)
        done = run([merge, os.path.join(tmp, "planted.json")] + planted)
        with open(os.path.join(tmp, "planted.json")) as handle:
            skipped = [e["name"] for e in json.load(handle).get("arenaref_skipped", [])]
        expect(done.returncode == 0 and "planted/skip0" in skipped and "planted/skip1" in skipped,
               f"scripts/merge keeps every shard's arenaref_skipped: {done.returncode} {skipped}")
        for args, why in (
            ([shards[0]], "missing"),
            ([shards[0], shards[0], shards[1]], "given twice"),
            ([whole[0]], "not a shard"),
        ):
            done = run([merge, os.path.join(tmp, "bad.json")] + args)
            expect(done.returncode == 2 and why in done.stderr,
                   f"scripts/merge refuses '{why}': {done.returncode} {done.stderr}")
        other = os.path.join(tmp, "other")
        done = run([os.path.join(root, "scripts", "bench"), "--instructions", "--no-build",
                    "--filter", "^floor/(decoder|moe)/", "--shard", "2/2", "--out", other])
        odd = sorted(glob.glob(os.path.join(other, "*.json")))
        done = run([merge, os.path.join(tmp, "bad.json"), shards[0]] + odd)
        expect(done.returncode == 2 and "arenaref_filter" in done.stderr,
               f"scripts/merge refuses another filter's shard: {done.returncode} {done.stderr}")

print("FAILED" if failures else "ok: merged shards equal the unsharded run")
sys.exit(1 if failures else 0)
