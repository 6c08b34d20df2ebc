"""What scripts/compare, scripts/report and scripts/reproduce say they leave out, on made-up
files: each file or benchmark they do not use is named with its reason (`TOOL: left out WHAT:
WHY`) on the run that succeeds and on the one that fails, and the failing one names the option
that would keep it. scripts/reproduce runs on a made-up repository whose commit holds a stub
scripts/bench (writes a results file), so no build is needed."""

import json
import os
import stat
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
LIB = os.path.join(ROOT, "scripts", "lib")
failures = []
checks = 0


def check(condition, what):
    global checks
    checks += 1
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}")


def write(path, names, context, skipped=(), instructions=None):
    runs = []
    for name in names:
        for i in range(3):
            entry = {
                "name": name,
                "run_name": name,
                "run_type": "iteration",
                "iterations": 10,
                "cpu_time": 10.0 + i,
                "real_time": 11.0 + i,
                "time_unit": "us",
                "words": 164.0,
                "verdict": 0.0,
            }
            if instructions is not None:
                entry["instructions"] = instructions
            runs.append(entry)
    data = {"context": dict({"profile": "quick", "arenaref_dirty": "false"}, **context)}
    data["benchmarks"] = runs
    data["arenaref_skipped"] = [
        {"name": n, "run_name": n, "error_occurred": True, "error_message": why}
        for n, why in skipped
    ]
    with open(path, "w") as handle:
        json.dump(data, handle)


def tool(cwd, script, *args):
    return subprocess.run(
        ["/usr/bin/python3", os.path.join(LIB, script), *args],
        cwd=cwd,
        capture_output=True,
        text=True,
    )


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", repo, *args], check=True, capture_output=True, text=True
    ).stdout.strip()


with tempfile.TemporaryDirectory() as tmp:
    # ---- compare: not like with like names each fact, both files, and --force ----
    a = {"arenaref_mode": "time", "cpu_model": "CPU A", "compiler": "gcc 12"}
    write(os.path.join(tmp, "a.json"), ["certify/decoder/tiny"], a)
    write(os.path.join(tmp, "b.json"), ["certify/decoder/tiny"], dict(a, cpu_model="CPU B"))
    done = tool(tmp, "compare_results.py", "a.json", "b.json")
    check(done.returncode == 2, f"compare of two CPU models is exit 2: {done.returncode}")
    check(
        "scripts/compare: left out a.json and b.json: cpu_model differs: 'CPU A' in a.json,"
        " 'CPU B' in b.json" in done.stdout,
        f"compare names the differing fact and each file's value: {done.stdout}",
    )
    check(
        "--force keeps them" in done.stdout and "compiler differs" not in done.stdout,
        f"compare names --force, and only the facts that differ: {done.stdout}",
    )
    write(
        os.path.join(tmp, "c.json"),
        ["certify/decoder/tiny", "certify/decoder/small"],
        dict(a, cpu_model="CPU B"),
        skipped=[("gpu/fixed/arena", "no CUDA device")],
    )
    done = tool(tmp, "compare_results.py", "--force", "a.json", "c.json")
    check(
        "scripts/compare: left out certify/decoder/small: only in new" in done.stdout
        and "scripts/compare: left out gpu/fixed/arena: skipped: no CUDA device" in done.stdout,
        f"compare --force names each benchmark it leaves out and why: {done.stdout}",
    )

    # ---- report: another mode's times, a replaced benchmark, the pool refusal ----
    out = os.path.join(tmp, "report")
    write(os.path.join(tmp, "t.json"), ["certify/decoder/tiny"], {"arenaref_mode": "time"})
    write(
        os.path.join(tmp, "i.json"),
        ["certify/decoder/tiny"],
        {"arenaref_mode": "instructions"},
        instructions=5000,
    )
    done = tool(tmp, "report.py", "t.json", "i.json", "--out", out)
    check(done.returncode == 0, f"report of a timed and a counted file: {done.stderr}")
    check(
        "scripts/report: left out i.json (its times and counters): another mode (instructions"
        in done.stderr,
        f"report says it left out the counted file's times: {done.stderr}",
    )
    check(
        "t.json" not in done.stderr.replace("wrote", ""),
        f"report leaves nothing of the timed file out: {done.stderr}",
    )
    write(os.path.join(tmp, "odd.json"), ["oddity/x"], {"arenaref_mode": "time"})
    done = tool(tmp, "report.py", "t.json", "odd.json", "--out", out)
    check(
        done.returncode == 0
        and "scripts/report: left out oddity/x: no section of the report shows its group"
        in done.stderr
        and "certify/decoder/tiny" not in done.stderr,
        f"report names a benchmark no table shows: {done.stderr}",
    )
    text = open(os.path.join(out, "report.md")).read()
    check(
        "| `oddity/x` | no section of the report shows its group" in text,
        "the report's own Left out table repeats it",
    )
    write(os.path.join(tmp, "t2.json"), ["certify/decoder/tiny"], {"arenaref_commit": "other"})
    done = tool(tmp, "report.py", "t.json", "t2.json", "--duplicates", "last", "--out", out)
    check(
        done.returncode == 0
        and "scripts/report: left out certify/decoder/tiny of t.json: replaced by t2.json's"
        " (--duplicates last)" in done.stderr,
        f"report names the benchmark --duplicates last replaced: {done.stderr}",
    )
    done = tool(tmp, "report.py", "t.json", "t2.json", "--duplicates", "pool", "--out", out)
    check(
        done.returncode == 2
        and "differ in arenaref_commit" in done.stderr
        and "--duplicates last keeps" in done.stderr,
        f"report's refusal to pool two commits names the option that keeps them: {done.stderr}",
    )

    # ---- reproduce: a made-up repository whose commit's scripts/bench is a stub ----
    repo = os.path.join(tmp, "repo")
    os.makedirs(os.path.join(repo, "scripts"))
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.org")
    git(repo, "config", "user.name", "t")
    rerun = os.path.join(tmp, "rerun.json")
    bench = os.path.join(repo, "scripts", "bench")
    with open(bench, "w") as handle:
        handle.write(
            "#!/bin/sh\n# writes the rerun's results file into --out\n"
            'while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done\n'
            f'mkdir -p "$out" && cp {rerun} "$out/rerun.json"\n'
        )
    os.chmod(bench, os.stat(bench).st_mode | stat.S_IEXEC)
    git(repo, "add", "scripts/bench")
    git(repo, "commit", "-q", "-m", "stub bench")
    sha = git(repo, "rev-parse", "HEAD")
    context = {"arenaref_commit": sha, "arenaref_mode": "time", "planted_slowdown": "2"}
    write(
        os.path.join(tmp, "orig.json"),
        ["certify/decoder/tiny", "certify/decoder/gone"],
        context,
        skipped=[("gpu/fixed/arena", "no CUDA device")],
    )
    write(rerun, ["certify/decoder/tiny", "certify/decoder/new"], context)
    work = os.path.join(tmp, "work")
    done = tool(tmp, "reproduce.py", "orig.json", "--root", repo, "--work", work)
    said = done.stderr
    check(done.returncode == 0 and "REPRODUCED" in done.stdout, f"stub rerun: {said}")
    for what, why in (
        ("certify/decoder/gone", "not in the rerun's results"),
        ("gpu/fixed/arena", "skipped in orig.json: no CUDA device"),
        ("certify/decoder/new", "only in the rerun"),
        ("orig.json (its times)", "a planted slowdown (x2)"),
    ):
        line = f"scripts/reproduce: left out {what}: {why}"
        check(
            any(l.startswith(line) for l in said.splitlines()),
            f"reproduce says it left out {what} ({why}): {said}",
        )
    check(
        "left out certify/decoder/tiny" not in said,
        f"reproduce leaves out nothing it compared: {said}",
    )
    dirty = dict(context, arenaref_dirty="true")
    write(os.path.join(tmp, "dirty.json"), ["certify/decoder/tiny"], dirty)
    done = tool(tmp, "reproduce.py", "dirty.json", "--root", repo, "--work", work)
    check(
        done.returncode == 2
        and "scripts/reproduce: left out dirty.json: made from a dirty tree" in done.stderr
        and "no option keeps it" in done.stderr,
        f"reproduce refuses a dirty tree: the file, the reason, and no option: {done.stderr}",
    )
    stranger = dict(context, arenaref_commit="f" * 40)
    write(os.path.join(tmp, "stranger.json"), ["certify/decoder/tiny"], stranger)
    done = tool(tmp, "reproduce.py", "stranger.json", "--root", repo, "--work", work)
    check(
        done.returncode == 2
        and f"scripts/reproduce: left out stranger.json: commit {'f' * 12} is not in this"
        " repository" in done.stderr,
        f"reproduce refuses a commit the repository lacks: {done.stderr}",
    )

print(f"{checks - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
