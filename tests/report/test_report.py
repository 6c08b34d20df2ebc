"""scripts/lib/report.py on made-up results files: what a reader relies on.

Times are CPU times with their IQR, instruction counts sit beside them, clashing files are
refused (exit 2) unless a policy is named, pooled runs give the pooled quartiles, and a file
that is not a results file is exit 2 with its name in the message.
"""

import json
import os
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
REPORT = os.path.join(ROOT, "scripts", "lib", "report.py")
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
        print(f"FAIL: {what}")


def results(path, cpu_times, commit="c0ffee", instructions=None, mode="time"):
    runs = []
    for i, cpu in enumerate(cpu_times):
        entry = {
            "name": "certify/decoder/tiny/repeats:9",
            "run_name": "certify/decoder/tiny/repeats:9",
            "run_type": "iteration",
            "repetitions": len(cpu_times),
            "repetition_index": i,
            "iterations": 100,
            "real_time": cpu * 3,
            "cpu_time": cpu,
            "time_unit": "us",
            "words": 164.0,
            "launches": 30.0,
            "executed_launches": 78.0,
            "verdict": 0.0,
        }
        if instructions is not None:
            entry["instructions"] = instructions
        runs.append(entry)
    context = {
        "arenaref_commit": commit,
        "arenaref_dirty": "false",
        "profile": "quick",
        "arenaref_mode": mode,
    }
    with open(path, "w") as handle:
        json.dump({"context": context, "benchmarks": runs}, handle)


def run(*args):
    return subprocess.run([sys.executable, REPORT, *args], capture_output=True, text=True)


with tempfile.TemporaryDirectory() as tmp:
    a, b, i = (os.path.join(tmp, n) for n in ("a.json", "b.json", "i.json"))
    results(a, [10, 11, 12, 13, 14])
    results(b, [20, 21, 22])
    results(i, [999, 999, 999], instructions=177246, mode="instructions")
    out = os.path.join(tmp, "r")
    done = run(a, i, "--out", out)
    check(done.returncode == 0, f"report of a time file and an instruction file: {done.stderr}")
    text = open(os.path.join(out, "report.md")).read()
    # CPU time (not real time, three times larger), median 12 with quartiles 11 and 13.
    check("12 µs [11–13]" in text, "certify time is the CPU-time median with its IQR")
    check("36 µs" not in text, "wall time is not shown")
    check("177,246" in text, "the instruction count is shown beside the time")
    check("999" not in text, "times taken under callgrind are not shown")
    check(os.path.exists(os.path.join(out, "cert_time.png")), "cert_time.png is drawn")
    clash = run(a, b, "--out", out)
    check(
        clash.returncode == 2 and "--duplicates" in clash.stderr,
        "two files with one benchmark: exit 2",
    )
    pooled = run(a, b, "--out", out, "--duplicates", "pool")
    text = open(os.path.join(out, "report.md")).read()
    check(
        pooled.returncode == 0 and "13.5 µs [11.8–20.2]" in text,
        "pooled runs give the pooled quartiles",
    )
    results(b, [20, 21, 22], commit="other")
    mixed = run(a, b, "--out", out, "--duplicates", "pool")
    check(
        mixed.returncode == 2 and "arenaref_commit" in mixed.stderr,
        "pooling two commits is refused",
    )
    last = run(a, b, "--out", out, "--duplicates", "last")
    text = open(os.path.join(out, "report.md")).read()
    check(
        last.returncode == 0 and "21 µs [20.5–21.5]" in text and "--duplicates last" in text,
        "--duplicates last keeps the later file and says so",
    )
    # A placement leaderboard (scripts/place-leaderboard's table) as a section of the report.
    board = os.path.join(tmp, "leaderboard.tsv")
    fields = ["family", "instance", "mode", "strategy", "threads", "time_limit", "buffers", "height",
              "bound", "optimum", "capacity", "over_bound", "over_optimum", "fits", "seconds",
              "valid", "certified", "status", "note"]
    rows = [["minimize", "A", "minimize", "search", "1", "5", "154", "1000", "1000", "", "",
             "1.000000", "", "yes", "0.500", "yes", "yes", "ok", ""],
            ["minimize", "A", "minimize", "omnimalloc:supermalloc", "1", "5", "154", "1100", "1000",
             "", "", "1.100000", "", "yes", "5.000", "no", "no", "invalid", "lines 2 and 3"]]
    with open(board, "w") as handle:
        handle.write("\t".join(fields) + "\n" + "".join("\t".join(r) + "\n" for r in rows))
    done = run(a, "--out", out, "--leaderboard", board)
    text = open(os.path.join(out, "report.md")).read()
    check(done.returncode == 0 and "## Placement against the field" in text
          and "invalid" in text and "omnimalloc:supermalloc" in text,
          f"--leaderboard adds its section, a peer's invalid answer shown as such: {done.stderr}")
    missing = run(a, "--out", out, "--leaderboard", os.path.join(tmp, "none.tsv"))
    check(missing.returncode == 2 and "none.tsv" in missing.stderr, "--leaderboard of no file: exit 2")
    with open(b, "w") as handle:
        handle.write("{\"context\": {}}")
    bad = run(b, "--out", out)
    check(bad.returncode == 2 and "b.json" in bad.stderr, "not a results file: exit 2 naming it")

    # Placement: a set named in the benchmark (placement/SET/INSTANCE/STRATEGY) and one taken from
    # the instance's name; a table and a plot per set, heights against the bound.
    entries = []
    for name, height in (
        ("placement/tflite/face_a/greedy", 1200),
        ("placement/tflite/face_a/litert", 1500),
        ("placement/minimalloc-A/greedy", 1000),
        ("placement/minimalloc-B/greedy", 2000),
    ):
        entries.append(
            {
                "name": name,
                "run_name": name,
                "run_type": "iteration",
                "iterations": 1,
                "real_time": 5,
                "cpu_time": 4,
                "time_unit": "ms",
                "height_bytes": height,
                "lower_bound_bytes": 1000,
                "valid": 1,
            }
        )
    with open(a, "w") as handle:
        json.dump({"context": {"arenaref_commit": "c0ffee"}, "benchmarks": entries}, handle)
    placed = run(a, "--out", out)
    text = open(os.path.join(out, "report.md")).read()
    check(
        placed.returncode == 0 and "### tflite" in text and "### minimalloc" in text,
        "one table per set",
    )
    check(
        "| face_a | litert | 1.46 KiB | 1000 B | 1.5 |" in text,
        "height / bound of the runtime's planner",
    )
    check(
        os.path.exists(os.path.join(out, "placement_tflite.png"))
        and os.path.exists(os.path.join(out, "placement_minimalloc.png")),
        "a plot per set",
    )

    # Two compilers' plans of one program side by side (certify/xla and certify/iree), and a
    # program one of them refused: a row each, our best the lowest verdict-0 height.
    def entry(name, **counters):
        return dict({"name": name, "run_name": name, "run_type": "iteration", "iterations": 1,
                     "real_time": 5, "cpu_time": 4, "time_unit": "us"}, **counters)

    side = [
        entry("certify/xla/prog", kernel_launches=45, executed_launches=151, loops=1,
              in_place_updates=1, planned_size=213496, lower_bound_bytes=213256, verdict=0),
        entry("certify/iree/prog", kernel_launches=22, executed_launches=82, loops=1,
              in_place_updates=0, planned_size=28672, lower_bound_bytes=28000, verdict=0),
        entry("placement/xla/prog/xla-temp", height_bytes=213496, verdict=0),
        entry("placement/xla/prog/search", height_bytes=213316, verdict=0),
        entry("placement/xla/prog/first-fit", height_bytes=213000, verdict=1),
        entry("placement/iree/prog/iree-pack", height_bytes=28672, verdict=0),
        entry("placement/iree/prog/best-fit", height_bytes=28000, verdict=0),
        entry("certify/xla/other", kernel_launches=5, executed_launches=7, loops=0,
              in_place_updates=0, planned_size=100, lower_bound_bytes=90, verdict=0),
    ]
    skipped = [dict(entry("certify/iree/other"), error_occurred=True, skipped=True,
                    error_message="refused: other: iree-compile could not compile it")]
    with open(a, "w") as handle:
        json.dump({"context": {"arenaref_commit": "c0ffee"}, "benchmarks": side,
                   "arenaref_skipped": skipped}, handle)
    sided = run(a, "--out", out)
    text = open(os.path.join(out, "report.md")).read()
    check(sided.returncode == 0 and "## Two compilers' plans of the same programs" in text,
          f"the side-by-side section: {sided.stderr}")
    check("| prog | XLA | 45 / 151 | 1 | 1 | 213,496 B | 213,256 B | 213,316 B (search) | 0.9992 | 0 |"
          in text, "XLA's row: launches, loops, in place, own size, bound, best (verdict 0 only)")
    check("| prog | IREE | 22 / 82 | 1 | 0 | 28,672 B | 28,000 B | 28,000 B (best-fit) | 0.9766 | 0 |"
          in text, "IREE's row")
    check("| other | IREE | refused: other: iree-compile could not compile it |" in text,
          "a refused program's row says why")

    # scripts/reproduce refuses what it cannot rebuild, before building anything.
    reproduce = os.path.join(ROOT, "scripts", "lib", "reproduce.py")
    results(a, [10, 11, 12])
    with open(a) as handle:
        data = json.load(handle)
    data["context"]["arenaref_dirty"] = "true"
    with open(a, "w") as handle:
        json.dump(data, handle)
    refused = subprocess.run(
        [sys.executable, reproduce, a, "--root", ROOT], capture_output=True, text=True
    )
    check(
        refused.returncode == 2 and "dirty tree" in refused.stderr,
        "reproduce refuses a dirty-tree result",
    )
    data["context"].update(arenaref_dirty="false", arenaref_commit="f" * 40)
    with open(a, "w") as handle:
        json.dump(data, handle)
    unknown = subprocess.run(
        [sys.executable, reproduce, a, "--root", ROOT], capture_output=True, text=True
    )
    check(
        unknown.returncode == 2 and "not in this repository" in unknown.stderr,
        "reproduce refuses a commit this repository does not have",
    )

print(f"{18 - len(failures)} passed, {len(failures)} failed")
sys.exit(1 if failures else 0)
