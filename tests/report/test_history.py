"""scripts/lib/history.py on a made-up repository: commits in git's order, a change point that
names the commit it lies at, every exact step listed, and what it must leave out (a dirty tree, a
commit outside HEAD's history, another CPU). Run with the build folder's environment (see
test_history.sh, which installs the pinned group 'history')."""

import json
import os
import subprocess
import sys
import tempfile

HISTORY = os.path.join(sys.argv[1], "scripts", "lib", "history.py")
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}")


def git(repo, *args):
    return subprocess.run(
        ["git", "-C", repo, *args], check=True, capture_output=True, text=True
    ).stdout.strip()


def results(path, sha, count, cpu="Test CPU", dirty="false"):
    runs = [
        {
            "name": "certify/decoder/medium/repeats:3",
            "run_name": "certify/decoder/medium/repeats:3",
            "run_type": "iteration",
            "iterations": 10,
            "cpu_time": count / 100 + i,
            "real_time": 1,
            "time_unit": "us",
            "instructions": count,
        }
        for i in range(3)
    ]
    context = {
        "arenaref_commit": sha,
        "arenaref_dirty": dirty,
        "cpu_model": cpu,
        "profile": "quick",
        "instructions_per": "call",
    }
    with open(path, "w") as handle:
        json.dump({"context": context, "benchmarks": runs}, handle)


with tempfile.TemporaryDirectory() as repo:
    git(repo, "init", "-q")
    git(repo, "config", "user.email", "t@example.org")
    git(repo, "config", "user.name", "t")
    shas = []
    for i in range(8):
        git(repo, "commit", "-q", "--allow-empty", "-m", f"commit {i}")
        shas.append(git(repo, "rev-parse", "HEAD"))
    os.makedirs(os.path.join(repo, "results"))
    # Written in reverse so that file order and dates disagree with git's order.
    for i in reversed(range(8)):
        results(os.path.join(repo, "results", f"r{i}.json"), shas[i], 1000 if i < 4 else 500)
    results(os.path.join(repo, "results", "dirty.json"), shas[2], 7, dirty="true")
    results(os.path.join(repo, "results", "stranger.json"), "f" * 40, 7)
    results(os.path.join(repo, "results", "other-cpu.json"), shas[5], 7, cpu="Other CPU")
    out = os.path.join(repo, "report")
    done = subprocess.run(
        [sys.executable, HISTORY, "--root", repo, "--out", out], capture_output=True, text=True
    )
    check(done.returncode == 0, f"history of 8 commits: {done.stderr}")
    text = open(os.path.join(out, "history.md")).read()
    check("8 commits" in text, "eight commits counted")
    order = [text.index(f"`{sha[:10]}`") for sha in shas]
    check(order == sorted(order), "commits listed in git's order, not the files' order")
    check(f"| -50.0% | {shas[4][:10]} |" in text, "the exact step names the commit that made it")
    check(
        f"instructions | -50.0% | {shas[4][:10]} |" in text,
        "e-divisive's change point names that commit",
    )
    check(
        "dirty tree" in text and "not in HEAD's history" in text and "another CPU" in text,
        "a dirty tree, a stranger commit and another CPU are left out, with the reason",
    )
    for name, why in (
        ("dirty.json", "made from a dirty tree"),
        ("stranger.json", "not in HEAD's history"),
        ("other-cpu.json", "another CPU (Other CPU"),
    ):
        check(
            any(f"left out results/{name}: " in l and why in l for l in done.stderr.splitlines()),
            f"the run that succeeds says it left out {name} ({why}): {done.stderr}",
        )
    check(os.path.exists(os.path.join(out, "certify.png")), "the group's plot is drawn")
    for name in os.listdir(os.path.join(repo, "results")):
        if name.startswith("r") and name != "r0.json":
            os.remove(os.path.join(repo, "results", name))
    alone = subprocess.run(
        [sys.executable, HISTORY, "--root", repo, "--out", out], capture_output=True, text=True
    )
    check(
        alone.returncode == 2 and "two or more" in alone.stderr,
        "one commit is not a history: exit 2",
    )
    # r0.json (Test CPU, commit 0) and other-cpu.json (Other CPU, commit 5): a tie, which goes
    # to the newest commit's CPU on every run (it was once decided by set order).
    check(
        "left out results/r0.json: another CPU (Test CPU; kept: Other CPU, as many files, the"
        " newest commit's)"
        in alone.stderr
        and "3 file(s) left out" in alone.stderr,
        f"the failing run names the files it left out and why: {alone.stderr}",
    )

print(f"{9 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
