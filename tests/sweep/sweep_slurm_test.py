"""scripts/sweep --slurm on a real one-node cluster (scripts/slurm-local, features kindA, kindB):
two host kinds x 2 shards of a few certify/ benchmarks with --instructions. Each merged file (one
per host kind) must record its kind and 2 shards, and its deterministic digest and instruction
counts must equal one unsharded scripts/bench --instructions run of the same binary (the build
the tasks made in the sweep's scratch). Then --resume after a shard file is removed must rerun
that one task only (reusing the build) and merge again; --dry-run must submit nothing. The
cluster is stopped whatever happens. Exit 77 only where the packages cannot be installed.
"""

import glob
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

root = sys.argv[1]
sys.path.insert(0, os.path.join(root, "scripts", "lib"))
from results import Results, deterministic_digest  # noqa: E402

FILTER = r"^certify/(decoder|encoder|moe)/(tiny|small)/"
KINDS = ("kindA", "kindB")
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL", what, flush=True)


def run(args, env=None, **kw):
    return subprocess.run(args, capture_output=True, text=True, cwd=root, env=env, **kw)


if run(["bash", "-c", f"source {root}/scripts/lib/slurm.sh && ensure_slurm_packages"]).returncode != 0:
    print("SKIP: cannot install Debian's slurmctld slurmd slurm-client munge")
    sys.exit(77)

tmp = tempfile.mkdtemp(prefix="arenaref-sweep-test.")
cluster = os.path.join(tmp, "cluster")
slurm_local = os.path.join(root, "scripts", "slurm-local")
signal.signal(signal.SIGTERM, lambda *_: sys.exit(1))  # ctest's timeout: still stop the cluster
try:
    begin = time.time()
    started = run([slurm_local, "start", cluster, "--features", ",".join(KINDS)])
    match = re.search(r"^export SLURM_CONF=(\S+)$", started.stdout, re.M)
    if started.returncode != 0 or not match:
        raise SystemExit(f"FAIL: slurm-local start: {started.returncode} {started.stderr[-1500:]}")
    env = dict(os.environ, SLURM_CONF=match.group(1))
    print(f"cluster up in {time.time() - begin:.1f} s", flush=True)
    out, scratch = os.path.join(tmp, "out"), os.path.join(tmp, "scratch")
    sweep = [os.path.join(root, "scripts", "sweep"), "--slurm", "--shards", "2", "--instructions",
             "--filter", FILTER, "--out", out, "--scratch", scratch]
    for kind in KINDS:
        sweep += ["--constraint", kind]

    dry = run(sweep + ["--dry-run"], env)
    queue = run(["squeue", "-h"], env)
    expect(dry.returncode == 0 and dry.stdout.count("#SBATCH --array=0-1") == 2
           and "--constraint=kindB" in dry.stdout and queue.stdout.strip() == ""
           and not os.path.exists(os.path.join(out, "sweep.json")),
           f"--dry-run prints two arrays and submits nothing: {dry.returncode} {dry.stderr[-500:]} queue {queue.stdout!r}")

    t0 = time.time()
    done = run(sweep, env)
    took = time.time() - t0
    print(f"scripts/sweep --slurm (2 kinds x 2 shards, building the commit once): {took:.1f} s", flush=True)
    print(done.stderr[-3000:], done.stdout, flush=True)
    merged = re.findall(r"^merged: (\S+)$", done.stdout, re.M)
    expect(done.returncode == 0 and len(merged) == 2, f"sweep exit {done.returncode}, merged {merged}")
    with open(os.path.join(out, "sweep.json")) as handle:
        sha = json.load(handle)["commits"][0]
    build = os.path.join(scratch, "arenaref-sweep", f"build-{sha}")
    if not failures:
        whole_dir = os.path.join(tmp, "whole")
        t0 = time.time()
        single = run([os.path.join(root, "scripts", "bench"), "--instructions", "--no-build", "--no-report",
                      "--filter", FILTER, "--out", whole_dir],
                     dict(os.environ, BUILD_DIR=build, ARENAREF_COMMIT=sha, ARENAREF_DIRTY="false"))
        print(f"single-process scripts/bench --instructions: {time.time() - t0:.1f} s", flush=True)
        whole = glob.glob(os.path.join(whole_dir, "*.json"))
        expect(single.returncode == 0 and len(whole) == 1, f"single run: {single.returncode} {single.stderr[-1000:]}")
        a = Results(whole, counters_of_instruction_files=True)
        expect(len(a.instructions) == 6, f"the single run counted {sorted(a.instructions)}")
        for kind in KINDS:
            path = [m for m in merged if os.path.basename(m).startswith(kind + "-")]
            expect(len(path) == 1, f"one merged file for {kind}: {merged}")
            if not path:
                continue
            with open(path[0]) as handle:
                context = json.load(handle)["context"]
            expect(context.get("arenaref_host_kind") == kind and context["arenaref_merged"]["count"] == 2,
                   f"{path[0]}: host kind {context.get('arenaref_host_kind')}, merged {context.get('arenaref_merged')}")
            b = Results(path, counters_of_instruction_files=True)
            expect(deterministic_digest(a) == deterministic_digest(b),
                   f"{kind}: digest {deterministic_digest(b)} vs single {deterministic_digest(a)}")
            # The suite's own judge of one commit against itself: every count equal, exactly, and
            # none counted in one file only (it names each difference).
            exact = run([os.path.join(root, "scripts", "compare"), "--exact", whole[0], path[0]])
            expect(exact.returncode == 0 and "equal: 6 instruction counts equal" in exact.stdout,
                   f"{kind}: instruction counts differ from the single run (scripts/compare --exact,"
                   f" exit {exact.returncode}): {exact.stdout[-1200:]}")
            if exact.returncode:  # what the two processes saw differently: skipped entries, shard logs
                for label, files in (("single", whole), (kind, path)):
                    with open(files[0]) as handle:
                        data = json.load(handle)
                    skipped = sorted(e.get("name", "?") for e in data.get("arenaref_skipped", []))
                    print(f"  {label}: {len(data.get('benchmarks', []))} entries, skipped {skipped[:12]}")
                for log in sorted(glob.glob(os.path.join(out, "logs", kind + "-task*.log"))):
                    with open(log) as handle:
                        print(f"  {log}:\n" + "".join(handle.readlines()[-15:]))
            print(f"{kind}: digest {deterministic_digest(b)} = single run's; {len(b.instructions)} counts equal", flush=True)
            expect(os.path.isfile(os.path.join(out, "reports", os.path.basename(path[0])[:-5], "report.md")),
                   f"{kind}: no report beside the merged file")

        # A lost shard: --resume reruns that task alone, on the build already in scratch.
        lost = glob.glob(os.path.join(out, "shards", "kindB", sha[:12], "*-shard2of2.json"))
        for path in lost:
            os.remove(path)
        t0 = time.time()
        again = run([os.path.join(root, "scripts", "sweep"), "--slurm", "--resume", "--out", out], env)
        print(f"scripts/sweep --slurm --resume (one task): {time.time() - t0:.1f} s", flush=True)
        print(again.stderr[-1500:], flush=True)
        expect(len(lost) == 1 and again.returncode == 0 and "kindB: job array" in again.stderr
               and "kindA: job array" not in again.stderr and ", 1 tasks" in again.stderr
               and len(re.findall(r"^merged: ", again.stdout, re.M)) == 2,
               f"--resume: exit {again.returncode}: {again.stderr[-800:]}")
        with open(os.path.join(out, "logs", "kindB-task1.log")) as handle:
            expect("reusing" in handle.read(), "the rerun task did not reuse the scratch build")
        # A failed task is named with its log: a filter that matches nothing fails every task.
        bad = run([os.path.join(root, "scripts", "sweep"), "--slurm", "--shards", "1", "--constraint", "kindA",
                   "--filter", "^nosuchbenchmark/", "--scratch", scratch, "--out", os.path.join(tmp, "bad")], env)
        expect(bad.returncode == 1 and re.search(r"FAILED: kindA, commit \w+, shard 1/1 \(task 0\): no results file; log \S+kindA-task0.log", bad.stderr)
               and "--resume" in bad.stderr,
               f"a failing task is named with its log: {bad.returncode} {bad.stderr[-800:]}")
finally:
    stopped = run([slurm_local, "stop", cluster])
    expect(stopped.returncode == 0, f"slurm-local stop: {stopped.returncode} {stopped.stderr}")
    subprocess.run(["rm", "-rf", tmp])

print(f"FAILED ({len(failures)})" if failures else f"ok: sweep on a local cluster in {time.time() - begin:.1f} s")
sys.exit(1 if failures else 0)
