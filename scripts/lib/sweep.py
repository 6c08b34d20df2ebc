"""scripts/sweep --slurm: the suite as Slurm job arrays, one per host kind, and a merge job.

A task is (host kind, commit, shard): task T of a kind's array is commit T // N, shard T % N + 1.
It builds its commit in node-local scratch (git archive into SCRATCH/src-SHA, built in
SCRATCH/build-SHA under a lock; a finished build there is reused) and runs scripts/bench --shard
into OUT/shards/KIND/SHA12/. The merge job (afterany on the arrays) merges each (kind, commit)
group whose shards are all there into OUT/merged/ and reports it. A task is judged by its
results file alone (with proctrack/cgroup a job that never ran reads COMPLETED 0:0). The plan
and the job ids are kept in OUT/sweep.json, which --resume reads to rerun only failed tasks.
"""

import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FEATURE = re.compile(r"^[A-Za-z0-9_.-]+$")
DEFAULT_KIND = "default"  # no --constraint: any node


class Bad(Exception):
    """Bad arguments or input: exit 2."""


def say(message):
    print(f"scripts/sweep: {message}", file=sys.stderr, flush=True)


def git(*args):
    done = subprocess.run(["git", "-C", ROOT, *args], capture_output=True, text=True)
    return done.returncode, done.stdout.strip(), done.stderr.strip()


def resolve(commit):
    rc, sha, err = git("rev-parse", "--verify", "--quiet", f"{commit}^{{commit}}")
    if rc != 0 or not re.fullmatch(r"[0-9a-f]{40}", sha):
        raise Bad(f"--commits: '{commit}' is not a commit of {ROOT}")
    return sha


def group_name(plan, kind, sha):
    return f"{kind}-{sha[:12]}" + ("-instructions" if plan["instructions"] else "")


def shard_dir(plan, kind, sha):
    return os.path.join(plan["out"], "shards", kind, sha[:12])


def log_path(plan, kind, task):
    return os.path.join(plan["out"], "logs", f"{kind}-task{task}.log")


def merged_path(plan, kind, sha):
    return os.path.join(plan["out"], "merged", group_name(plan, kind, sha) + ".json")


def tasks(plan):
    n = plan["shards"]
    for kind in plan["kinds"]:
        for c, sha in enumerate(plan["commits"]):
            for s in range(1, n + 1):
                yield kind, c * n + s - 1, sha, s


def judge(plan, kind, sha, shard):
    """None when the task's results file is there and is its shard, else why not."""
    n = plan["shards"]
    found = glob.glob(os.path.join(shard_dir(plan, kind, sha), f"*-shard{shard}of{n}.json"))
    if not found:
        return "no results file"
    if len(found) > 1:
        return f"{len(found)} results files for one shard"
    try:
        with open(found[0]) as handle:
            data = json.load(handle)
        context = data["context"]
        record = context["arenaref_shard"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        return f"{found[0]} is not a finished shard ({type(error).__name__}: {error})"
    mode = "instructions" if plan["instructions"] else "time"
    checks = (
        (record.get("index") == shard and record.get("count") == n, f"holds shard {record.get('index')}/{record.get('count')}"),
        (str(context.get("arenaref_commit", "")).startswith(sha[:12]), f"is of commit {context.get('arenaref_commit')}"),
        (kind == DEFAULT_KIND or context.get("arenaref_host_kind") == kind, f"is of host kind {context.get('arenaref_host_kind')}"),
        (context.get("arenaref_mode") == mode, f"is in mode {context.get('arenaref_mode')}"),
        (isinstance(data.get("benchmarks"), list), "has no benchmarks list"),
    )
    for ok, why in checks:
        if not ok:
            return f"{found[0]} {why}"
    return None


def task_script(plan, kind, indices):
    """The sbatch script of one host kind's array (indices: the tasks to run)."""
    q = shlex.quote
    lines = ["#!/bin/bash", f"#SBATCH --job-name=arenaref-sweep-{kind}", f"#SBATCH --array={array_spec(indices)}"]
    if kind != DEFAULT_KIND:
        lines.append(f"#SBATCH --constraint={kind}")
    lines += [f"#SBATCH --output={os.path.join(plan['out'], 'logs', kind)}-task%a.log", "#SBATCH --open-mode=append"]
    lines += sbatch_common(plan)
    bench = ["--no-build", "--no-report", "--shard", '"$shard/$n"']
    if plan["instructions"]:
        bench.append("--instructions")
    if plan["filter"]:
        bench += ["--filter", q(plan["filter"])]
    scratch = q(plan["scratch"]) if plan["scratch"] else '"${TMPDIR:-/tmp}"'
    host_kind = "" if kind == DEFAULT_KIND else f"ARENAREF_HOST_KIND={q(kind)} "
    lines += [
        "# Task T: commit T / N, shard T % N + 1. Judged by its results file, not its exit status.",
        "set -euo pipefail",
        f"repo={q(ROOT)} out={q(plan['out'])} kind={q(kind)} n={plan['shards']}",
        f"commits=({' '.join(plan['commits'])})",
        "t=$SLURM_ARRAY_TASK_ID",
        "commit=${commits[t / n]} shard=$((t % n + 1))",
        'echo "arenaref sweep: task $t on $(hostname): kind $kind, commit $commit, shard $shard/$n, $(date -u +%FT%TZ)"',
        f"scratch={scratch}/arenaref-sweep",
        'mkdir -p "$scratch"',
        'src=$scratch/src-$commit build=$scratch/build-$commit',
        "# One build per commit and node: tasks of one node wait for the first one's build. The",
        "# runtimes' plans are exported by scripts/bench, under its own lock in that build folder.",
        "(",
        "  flock 9",
        '  if [ -f "$build/.arenaref-sweep-built" ] && [ -x "$build/bin/arenaref_bench" ]; then',
        '    echo "arenaref sweep: reusing $build"',
        "  else",
        '    rm -rf "$src" "$build" && mkdir -p "$src"',
        '    git -C "$repo" archive "$commit" | tar -x -C "$src"',
        '    cmake -S "$src" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DARENAREF_BENCH=ON > "$scratch/configure-$commit.log" 2>&1 \\',
        '      || { cat "$scratch/configure-$commit.log"; exit 1; }',
        '    cmake --build "$build" --target arenaref_bench -j "$(nproc 2> /dev/null || echo 2)" | tail -3',
        '    [ -x "$build/bin/arenaref_bench" ] && touch "$build/.arenaref-sweep-built"',
        "  fi",
        ') 9> "$scratch/build-$commit.lock"',
        'dest=$out/shards/$kind/${commit:0:12}',
        'mkdir -p "$dest" && rm -f "$dest"/*-shard${shard}of$n.*  # a rerun replaces the earlier try',
        f'{host_kind}ARENAREF_COMMIT=$commit ARENAREF_DIRTY=false BUILD_DIR=$build \\',
        f'  "$repo/scripts/bench" {" ".join(bench)} --out "$dest"',
        'echo "arenaref sweep: task $t done, $(date -u +%FT%TZ)"',
    ]
    return "\n".join(lines) + "\n"


def merge_script(plan):
    lines = ["#!/bin/bash", "#SBATCH --job-name=arenaref-sweep-merge",
             f"#SBATCH --output={os.path.join(plan['out'], 'logs', 'merge.log')}", "#SBATCH --open-mode=append"]
    lines += sbatch_common(plan)
    lines += [
        "# Merges every (host kind, commit) group whose shards are all there, and reports it.",
        f"exec /usr/bin/python3 {shlex.quote(os.path.abspath(__file__))} --finish {shlex.quote(plan['out'])}",
    ]
    return "\n".join(lines) + "\n"


def sbatch_common(plan):
    out = []
    for key in ("partition", "account", "time"):
        if plan.get(key):
            out.append(f"#SBATCH --{key}={plan[key]}")
    return out


def array_spec(indices):
    indices = sorted(indices)
    if indices == list(range(indices[0], indices[-1] + 1)) and len(indices) > 1:
        return f"{indices[0]}-{indices[-1]}"
    return ",".join(str(i) for i in indices)


def finish(out):
    """The merge job: scripts/merge and scripts/report for each complete group."""
    plan = load_plan(out)
    status = 0
    for kind in plan["kinds"]:
        for sha in plan["commits"]:
            n = plan["shards"]
            why = [f"shard {s}/{n}: {w}" for s in range(1, n + 1) if (w := judge(plan, kind, sha, s))]
            if why:
                print(f"{group_name(plan, kind, sha)}: not merged: {'; '.join(why)}", flush=True)
                status = 1
                continue
            files = [glob.glob(os.path.join(shard_dir(plan, kind, sha), f"*-shard{s}of{n}.json"))[0]
                     for s in range(1, n + 1)]
            target = merged_path(plan, kind, sha)
            done = subprocess.run([os.path.join(ROOT, "scripts", "merge"), target] + files)
            if done.returncode != 0:
                status = 1
                continue
            report = os.path.join(plan["out"], "reports", group_name(plan, kind, sha))
            done = subprocess.run([os.path.join(ROOT, "scripts", "report"), target, "--out", report],
                                  stdout=subprocess.DEVNULL)
            print(f"{group_name(plan, kind, sha)}: merged {target}; report {report}/report.md"
                  + ("" if done.returncode == 0 else f" FAILED (scripts/report exit {done.returncode})"), flush=True)
            status |= done.returncode != 0
    return status


def load_plan(out):
    path = os.path.join(out, "sweep.json")
    try:
        with open(path) as handle:
            return json.load(handle)
    except OSError as error:
        raise Bad(f"{path}: {error.strerror} (--resume needs the --out folder of an earlier sweep)")
    except ValueError as error:
        raise Bad(f"{path} is not JSON: {error}")


def save_plan(plan):
    path = os.path.join(plan["out"], "sweep.json")
    with open(path + ".tmp", "w") as handle:
        json.dump(plan, handle, indent=2)
    os.replace(path + ".tmp", path)


def sbatch(args):
    done = subprocess.run(["sbatch", "--parsable", *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"sbatch {' '.join(args)}: {done.stderr.strip() or done.returncode}")
    return done.stdout.strip().split(";")[0]


def wait(jobs, poll):
    """Until squeue lists none of the jobs (every `poll` s: sbatch --wait polls at 2, 10, 42 s)."""
    last, failures = None, 0
    while True:
        done = subprocess.run(["squeue", "-h", "-o", "%i %T", "-j", ",".join(jobs)], capture_output=True, text=True)
        if done.returncode != 0 and "Invalid job id" not in done.stderr:
            failures += 1
            if failures > 50:
                raise RuntimeError(f"squeue keeps failing: {done.stderr.strip()}")
        else:
            failures = 0
            states = {}
            for line in done.stdout.split("\n") if done.returncode == 0 else []:
                if line.strip():
                    states[line.split()[1]] = states.get(line.split()[1], 0) + 1
            summary = ", ".join(f"{v} {k.lower()}" for k, v in sorted(states.items()))
            if summary != last:
                say(f"{time.strftime('%H:%M:%S')} {summary or 'all jobs finished'}")
                last = summary
            if not states:
                return
        time.sleep(poll)


def main(argv):
    parser = argparse.ArgumentParser(prog="scripts/sweep", description=__doc__.split("\n")[0])
    parser.add_argument("--slurm", action="store_true", help="submit to Slurm (the only mode)")
    parser.add_argument("--shards", type=int, default=1, help="shards per host kind and commit")
    parser.add_argument("--constraint", action="append", default=[], metavar="FEATURE",
                        help="one host kind each (a node feature); none: any node")
    parser.add_argument("--commits", nargs="+", default=["HEAD"], metavar="C")
    parser.add_argument("--filter", default="", metavar="RE")
    parser.add_argument("--instructions", action="store_true")
    parser.add_argument("--partition"), parser.add_argument("--account"), parser.add_argument("--time")
    parser.add_argument("--scratch", help="node-local build folder (default $TMPDIR or /tmp on the node)")
    parser.add_argument("--out", help="shared folder for shards, logs, merged files (default results/sweep-DATE)")
    parser.add_argument("--dry-run", action="store_true", help="print the sbatch scripts, submit nothing")
    parser.add_argument("--resume", action="store_true", help="rerun only the failed tasks of --out's sweep")
    parser.add_argument("--poll", type=float, default=0.25, help=argparse.SUPPRESS)
    parser.add_argument("--finish", metavar="OUT", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.finish:
        return finish(os.path.abspath(args.finish))
    if not args.slurm:
        raise Bad("only --slurm exists: scripts/sweep --slurm [options] (see --help)")
    if args.resume:
        if not args.out:
            raise Bad("--resume needs --out DIR, the folder of the sweep to resume")
        given = [a.split("=")[0] for a in argv if a.split("=")[0] in
                 ("--shards", "--constraint", "--commits", "--filter", "--instructions", "--scratch")]
        if given:
            raise Bad(f"--resume reruns the recorded sweep: {', '.join(sorted(set(given)))} cannot change it")
        plan = load_plan(os.path.abspath(args.out))
        for key in ("partition", "account", "time"):
            if getattr(args, key):
                plan[key] = getattr(args, key)
    else:
        if args.shards < 1:
            raise Bad(f"--shards {args.shards}: at least 1")
        for feature in args.constraint:
            if not FEATURE.match(feature) or feature == DEFAULT_KIND:
                raise Bad(f"--constraint '{feature}': one node feature (letters, digits, _ . -), not '{DEFAULT_KIND}'")
        if len(set(args.constraint)) != len(args.constraint):
            raise Bad("--constraint: a host kind given twice")
        try:
            re.compile(args.filter)
        except re.error as error:
            raise Bad(f"--filter '{args.filter}': {error}")
        commits = [resolve(c) for c in args.commits]
        if len(set(commits)) != len(commits):
            raise Bad("--commits: a commit given twice")
        out = os.path.abspath(args.out or os.path.join(ROOT, "results", "sweep-" + time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())))
        if not args.dry_run and os.path.exists(os.path.join(out, "sweep.json")):
            raise Bad(f"{out} already holds a sweep (rerun its failed tasks with --resume --out {out})")
        plan = {
            "out": out, "repo": ROOT, "commits": commits, "kinds": args.constraint or [DEFAULT_KIND],
            "shards": args.shards, "filter": args.filter, "instructions": args.instructions,
            "scratch": os.path.abspath(args.scratch) if args.scratch else None,
            "partition": args.partition, "account": args.account, "time": args.time, "submissions": [],
        }
    todo = {}
    for kind, task, sha, shard in tasks(plan):
        if not args.resume or judge(plan, kind, sha, shard):
            todo.setdefault(kind, []).append(task)
    scripts = {kind: task_script(plan, kind, indices) for kind, indices in todo.items()}
    if args.dry_run:
        for kind, text in scripts.items():
            print(f"# sbatch --parsable {plan['out']}/jobs/{kind}.sbatch   ({len(todo[kind])} tasks)\n{text}")
        print(f"# sbatch --parsable --dependency=afterany:<the arrays> {plan['out']}/jobs/merge.sbatch\n{merge_script(plan)}")
        return 0
    began = time.time()
    jobs = []
    try:
        for sub in ("jobs", "logs", "shards", "merged"):
            os.makedirs(os.path.join(plan["out"], sub), exist_ok=True)
        for kind, text in scripts.items():
            path = os.path.join(plan["out"], "jobs", f"{kind}.sbatch")
            with open(path, "w") as handle:
                handle.write(text)
            jobs.append(sbatch([path]))
            say(f"{kind}: job array {jobs[-1]}, {len(todo[kind])} tasks ({path})")
        path = os.path.join(plan["out"], "jobs", "merge.sbatch")
        with open(path, "w") as handle:
            handle.write(merge_script(plan))
        merge_job = sbatch(([f"--dependency=afterany:{':'.join(jobs)}"] if jobs else []) + [path])
        say(f"merge job {merge_job} after {', '.join(jobs) or 'nothing (no task to rerun)'}")
        plan["submissions"].append({"arrays": dict(zip(scripts, jobs)), "merge": merge_job,
                                    "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())})
        save_plan(plan)
        wait(jobs + [merge_job], args.poll)
    except (RuntimeError, OSError) as error:
        say(f"{error}")
        return 1
    failed = [(kind, task, sha, shard, why) for kind, task, sha, shard in tasks(plan)
              if (why := judge(plan, kind, sha, shard))]
    for kind, task, sha, shard, why in failed:
        say(f"FAILED: {kind}, commit {sha[:12]}, shard {shard}/{plan['shards']} (task {task}): {why};"
            f" log {log_path(plan, kind, task)}")
    merged = [merged_path(plan, k, c) for k in plan["kinds"] for c in plan["commits"]]
    missing = [m for m in merged if not os.path.isfile(m)]
    say(f"{len(jobs)} arrays and the merge job finished in {time.time() - began:.1f} s;"
        f" {len(failed)} failed tasks; merge log {os.path.join(plan['out'], 'logs', 'merge.log')}")
    for path in merged:
        if path not in missing:
            print(f"merged: {path}")
    if failed or missing:
        say(f"{len(missing)} groups not merged; rerun the failed tasks: scripts/sweep --slurm --resume --out {plan['out']}")
        return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Bad as error:
        say(str(error))
        sys.exit(2)
    except KeyboardInterrupt:
        sys.exit(130)
