"""scripts/reproduce's engine: rebuild the commit a results file names and rerun what it ran.

What a run needs is read from the file's context: the commit (a dirty tree is refused: the commit
does not hold the code that ran), the profile, the filter (written by scripts/bench since it
records its command line; older files get one made of the benchmark names they hold), the mode
(time or instructions) and the seeds and build options to check against. The commit is checked
out in its own worktree and benchmarked with its own scripts/bench, so the rerun is what that
commit's users would get. Verdicts: the deterministic digest over the benchmarks both files
hold (exit 1 if it differs), instruction counts equal or not, times through scripts/compare.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from results import (  # noqa: E402
    DETERMINISTIC,
    BadInput,
    Results,
    deterministic_digest,
    entries,
    kept_by,
    left_out_line,
    load_file,
    say_left_out,
)

PROG = "scripts/reproduce"
CHECKED = (
    "seeds",
    "profile",
    "build_type",
    "c_flags",
    "compiler",
    "benchmark_version",
    "jansson_version",
    "hwloc_version",
    "sanitizers",
    "cpu_model",
    "num_cpus",
)


def say(message):
    print(f"{PROG}: {message}", file=sys.stderr, flush=True)


def git(root, *args):
    return subprocess.run(["git", "-C", root, *args], capture_output=True, text=True)


def restricted(results, names):
    """A copy of results holding only `names` (the digest over what both files hold)."""
    copy = Results.__new__(Results)
    copy.runs = {n: results.runs[n] for n in names if n in results.runs}
    return copy


def filter_of(data, context):
    recorded = context.get("arenaref_filter")
    if recorded is not None:
        return recorded, "recorded"
    names = sorted(
        {
            re.sub(
                r"/(repeats|iterations|min_time|threads):[^/]+|/(manual_time|real_time|process_time)",
                "",
                b.get("run_name", b.get("name", "")),
            )
            for b in entries(data)
        }
    )
    escaped = [re.sub(r"([][.*^$+?(){}|\\])", r"\\\1", n) for n in names]
    return "^(" + "|".join(escaped) + ")(/|$)", "made from the file's benchmark names"


def main():
    parser = argparse.ArgumentParser(
        prog=PROG,
        description=(
            "Rebuild the commit a results file names, rerun the same benchmarks, and say "
            "whether the deterministic figures, the instruction counts and the times agree."
        ),
        epilog=(
            "Exit: 0 reproduced (digest equal), 1 the digest differs or the rebuild/rerun failed, "
            "2 bad input (not a results file, a dirty-tree result, an unknown commit)."
        ),
    )
    parser.add_argument("result", help="the results file to reproduce (scripts/bench's JSON)")
    parser.add_argument(
        "--filter", help="rerun only the benchmarks matching this regex as well (quicker)"
    )
    parser.add_argument(
        "--work", help="where the worktree and its build go (default build/reproduce-work)"
    )
    parser.add_argument(
        "--keep", action="store_true", help="keep the worktree and its build afterwards"
    )
    parser.add_argument(
        "--root", default=".", help="the repository root (scripts/reproduce passes it)"
    )
    args = parser.parse_args()
    started = time.time()
    try:
        data = load_file(args.result)
    except BadInput as error:
        say(error)
        return 2
    context = data.get("context", {})
    commit = context.get("arenaref_commit", "")
    # A refused file is said in the shape every tool uses for input it leaves out.
    refused = lambda why: print(
        left_out_line(PROG, args.result, why) + "; no option keeps it (exit 2)",
        file=sys.stderr,
    )
    if not commit or commit in ("unknown", "nocommit"):
        refused("names no commit (context.arenaref_commit): nothing to rebuild")
        return 2
    if str(context.get("arenaref_dirty", "")).lower() == "true":
        refused(
            f"made from a dirty tree at {commit[:12]}: the commit does not hold the code that"
            " ran (rerun scripts/bench from a clean tree)"
        )
        return 2
    if git(args.root, "cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        refused(f"commit {commit[:12]} is not in this repository (fetch it first)")
        return 2
    profile = context.get("profile", "quick")
    mode = context.get("arenaref_mode", "time")
    bench_filter, origin = filter_of(data, context)
    say(
        f"{args.result}: commit {commit[:12]}, profile {profile}, mode {mode}, filter {origin}"
        + (f", command '{context['arenaref_command']}'" if context.get("arenaref_command") else "")
    )
    work = os.path.abspath(args.work or os.path.join(args.root, "build", "reproduce-work"))
    tree = os.path.join(work, f"wt-{commit[:12]}")
    out = os.path.join(work, f"out-{commit[:12]}-{int(started)}")
    os.makedirs(work, exist_ok=True)
    if not os.path.isdir(tree):
        added = git(args.root, "worktree", "add", "--detach", "-q", tree, commit)
        if added.returncode != 0:
            say(f"git worktree add failed: {added.stderr.strip()}")
            return 1
    command = ["scripts/bench", "--out", out, "--no-report"]
    if profile == "full":
        command.append("--full")
    if mode == "instructions":
        command.append("--instructions")
    # Google Benchmark's filter takes one regex: --filter narrows by requiring both to match.
    if args.filter:
        command += ["--filter", args.filter]
        wanted = re.compile(bench_filter)
    else:
        command += ["--filter", bench_filter] if bench_filter else []  # "": the whole profile ran
        wanted = None
    shown = [c if len(c) < 120 else c[:60] + f"…({len(c)} characters)" for c in command]
    say(f"building and running in {tree}: {' '.join(shown)}")
    env = dict(os.environ, BUILD_DIR="build")
    env.pop("ARENAREF_BENCH_SLOWDOWN", None)
    ran = subprocess.run(command, cwd=tree, env=env)
    news = [os.path.join(out, f) for f in sorted(os.listdir(out))] if os.path.isdir(out) else []
    news = [f for f in news if f.endswith(".json")]
    if ran.returncode != 0 or not news:
        say(
            f"the rerun failed (scripts/bench exit {ran.returncode}); the worktree is kept in"
            f" {tree}"
        )
        return 1
    new_path = news[-1]
    try:
        original = Results([args.result], counters_of_instruction_files=True)
        rerun = Results([new_path], counters_of_instruction_files=True)
    except BadInput as error:
        say(error)
        return 1
    new_context = rerun.files[0][1]
    both = sorted(set(original.runs) & set(rerun.runs))
    if wanted is not None:
        both = [n for n in both if re.search(args.filter, n)]
    only_original = sorted(
        n
        for n in set(original.runs) - set(rerun.runs)
        if wanted is None or re.search(args.filter, n)
    )
    # Every benchmark outside the digest is said, with the reason, on every run.
    kept = lambda n: wanted is None or re.search(args.filter, n)
    left_out = [
        (n, f"outside --filter {args.filter}")
        for n in sorted(set(original.runs) | set(rerun.runs))
        if not kept(n)
    ]
    for n in only_original:
        if n in rerun.errors:
            left_out.append((n, f"skipped in the rerun: {rerun.errors[n]}"))
        else:
            left_out.append((n, "not in the rerun's results (that commit's bench did not run it)"))
    left_out += [
        (n, f"skipped in {args.result}: {original.errors[n]}")
        for n in sorted(original.errors)
        if kept(n)
    ]
    left_out += [
        (n, f"only in the rerun {new_path}")
        for n in sorted(set(rerun.runs) - set(original.runs) - set(original.errors))
        if kept(n)
    ]
    say_left_out(PROG, left_out)
    lines = [
        f"reproduce {os.path.basename(args.result)} at {commit[:12]} ({profile} profile, {mode})",
        f"  rerun: {new_path}",
    ]
    for key in CHECKED:
        if key in context and context.get(key) != new_context.get(key):
            lines.append(
                f"  differs: {key}: {context.get(key)!r} then, {new_context.get(key)!r} now"
            )
    if only_original:
        lines.append(f"  not rerun: {len(only_original)} benchmark(s), e.g. {only_original[0]}")
    digest_then, count = deterministic_digest(restricted(original, both))
    digest_now, _ = deterministic_digest(restricted(rerun, both))
    same_digest = digest_then == digest_now and count > 0
    lines.append(
        f"  deterministic digest over {len(both)} benchmarks ({count} counters): "
        f"{digest_then} then, {digest_now} now: {'EQUAL' if same_digest else 'DIFFERENT'}"
    )
    if not same_digest and count:
        for name in both:
            a, b = original.runs[name][0], rerun.runs[name][0]
            keys = [k for k in DETERMINISTIC if k in a and k in b and a[k] != b[k]]
            if keys:
                lines.append(f"    {name}: {keys[0]} {a[keys[0]]!r} then, {b[keys[0]]!r} now")
                break
    counted = [n for n in both if n in original.instructions and n in rerun.instructions]
    if counted:
        moved = [
            n for n in counted if original.instructions_of(n)[0] != rerun.instructions_of(n)[0]
        ]
        gap = lambda n: abs(rerun.instructions_of(n)[0] / original.instructions_of(n)[0] - 1)
        worst = max(moved, key=gap) if moved else None
        lines.append(
            f"  instruction counts (medians): {len(counted) - len(moved)} of {len(counted)} equal"
            + (
                f"; the farthest apart: {worst}: {original.instructions_of(worst)[0]:,.0f} then, "
                f"{rerun.instructions_of(worst)[0]:,.0f} now ({100 * gap(worst):.3g}%)"
                if moved
                else ""
            )
        )
    else:
        lines.append("  instruction counts: none in both files")
    print("\n".join(lines), flush=True)
    slowdown = context.get("planted_slowdown", "1")
    if mode == "time" and str(slowdown) not in ("1", "1.0"):
        say_left_out(
            PROG,
            [
                (
                    f"{args.result} (its times)",
                    f"a planted slowdown (x{slowdown}); the rerun has none, so times are not"
                    " compared",
                )
            ],
        )
    elif mode == "time":
        compare = os.path.join(os.path.abspath(args.root), "scripts", "compare")
        gate = subprocess.run([compare, args.result, new_path], capture_output=True, text=True)
        tail = [l for l in (gate.stdout + gate.stderr).strip().splitlines() if l.strip()][-3:]
        print(f"  times, scripts/compare (exit {gate.returncode}): " + " | ".join(tail), flush=True)
    if mode == "instructions":  # one commit against itself: every count equal, exactly
        compare = os.path.join(os.path.abspath(args.root), "scripts", "compare")
        gate = subprocess.run([compare, "--exact", args.result, new_path], capture_output=True, text=True)
        tail = [l for l in (gate.stdout + gate.stderr).strip().splitlines() if l.strip()][-3:]
        print(f"  instructions, scripts/compare --exact (exit {gate.returncode}): " + " | ".join(tail),
              flush=True)
        same_digest = same_digest and gate.returncode == 0
    if not args.keep:
        git(args.root, "worktree", "remove", "--force", tree)
    print(
        f"  took {time.time() - started:.0f} s: {'REPRODUCED' if same_digest else 'NOT REPRODUCED'}"
        + (
            f" (no deterministic counter in both files; {kept_by(f'{len(left_out)} benchmark(s)')})"
            if not count and left_out
            else ""
        )
    )
    return 0 if same_digest else 1


if __name__ == "__main__":
    sys.exit(main())
