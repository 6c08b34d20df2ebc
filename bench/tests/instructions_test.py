"""scripts/bench --instructions end to end on one tiny benchmark, twice, and the strict JSON.

Both runs must give every run an instruction count, the same counts (deterministic), and a
record of what reproduction needs; the files and scripts/export's output for both trackers
must parse with a strict reader (NaN/Infinity refused). results_post.py on a made-up Google
Benchmark file with NaN counters and a skipped benchmark must drop the NaNs and move the skipped
one, without times, into "arenaref_skipped".
"""

import json
import os
import subprocess
import sys
import tempfile

root, build_dir = sys.argv[1], sys.argv[2]
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL", what)


def strict(text, what):
    def refuse(constant):
        raise ValueError(f"{constant} in {what}")

    return json.loads(text, parse_constant=refuse)


with tempfile.TemporaryDirectory() as tmp:
    counts = []
    for run in range(2):
        out = os.path.join(tmp, f"run{run}")
        done = subprocess.run(
            [
                os.path.join(root, "scripts", "bench"),
                "--instructions",
                "--no-build",
                "--filter",
                "^certify/decoder/tiny/",
                "--out",
                out,
            ],
            capture_output=True,
            text=True,
            env=dict(os.environ, BUILD_DIR=build_dir),
            cwd=root,
        )
        expect(
            done.returncode == 0,
            f"scripts/bench --instructions exit {done.returncode}: {done.stderr[-1500:]}",
        )
        files = [f for f in os.listdir(out) if f.endswith(".json")] if os.path.isdir(out) else []
        expect(len(files) == 1, f"one results file in {out}: {files}")
        if not files:
            continue
        path = os.path.join(out, files[0])
        with open(path) as handle:
            data = strict(handle.read(), path)
        runs = [e for e in data["benchmarks"] if e.get("run_type") != "aggregate"]
        expect(
            len(runs) >= 1 and all(e.get("instructions", 0) > 0 for e in runs),
            "every run has instructions",
        )
        counts.append([e.get("instructions") for e in runs])
        context = data["context"]
        for key in (
            "arenaref_mode",
            "arenaref_command",
            "arenaref_filter",
            "arenaref_commit",
            "arenaref_dirty",
            "seeds",
            "profile",
            "build_type",
            "compiler",
            "valgrind_version",
            "instructions_per",
        ):
            expect(context.get(key) not in (None, ""), f"context records {key}")
        expect(context.get("arenaref_mode") == "instructions", "mode instructions")
        expect("jansson hash seed" in context.get("seeds", ""), "the jansson seed is recorded")
        expect(
            "load_average_1min" in data.get("arenaref_noise", {}), "the load average is recorded"
        )
        for tracker in ("googlecpp", "bencher"):
            done = subprocess.run(
                [os.path.join(root, "scripts", "export"), "--tracker", tracker, path],
                capture_output=True,
                text=True,
            )
            expect(done.returncode == 0, f"export {tracker}: {done.stderr}")
            if done.returncode == 0:
                exported = strict(done.stdout, f"export {tracker}")
                if tracker == "googlecpp":
                    names = [e["name"] for e in exported["benchmarks"]]
                    expect(
                        names == ["certify/decoder/tiny/instructions"], f"googlecpp names {names}"
                    )
                    expect(exported["benchmarks"][0]["real_time"] > 0, "googlecpp value")
                else:
                    expect(
                        exported.get("certify/decoder/tiny", {})
                        .get("instructions", {})
                        .get("value", 0)
                        > 0,
                        f"bencher instructions measure: {exported}",
                    )
    expect(len(counts) == 2 and counts[0] == counts[1], f"identical counts run to run: {counts}")

    made_up = {
        "context": {"profile": "quick"},
        "benchmarks": [
            {
                "name": "arena/fixed/jemalloc/repeats:3_cv",
                "run_name": "arena/fixed/jemalloc/repeats:3",
                "run_type": "aggregate",
                "aggregate_name": "cv",
                "real_time": 0.01,
                "cpu_time": 0.01,
                "time_unit": "us",
                "numa_node": float("nan"),
                "verdict": float("inf"),
            },
            {
                "name": "exact/moe/medium",
                "run_name": "exact/moe/medium",
                "run_type": "iteration",
                "error_occurred": True,
                "error_message": "over the limit",
                "real_time": 0,
                "cpu_time": 0,
                "time_unit": "us",
            },
        ],
    }
    path = os.path.join(tmp, "made_up.json")
    with open(path, "w") as handle:
        json.dump(made_up, handle)  # Python writes bare NaN/Infinity, as Google Benchmark does
    done = subprocess.run(
        [
            sys.executable,
            os.path.join(root, "scripts", "lib", "results_post.py"),
            path,
            "--command",
            "made up",
        ],
        capture_output=True,
        text=True,
    )
    expect(done.returncode == 0, f"results_post.py: {done.stderr}")
    with open(path) as handle:
        text = handle.read()
    try:
        data = strict(text, path)
        (cv,) = data["benchmarks"]
        (skipped,) = data["arenaref_skipped"]
        expect(
            "numa_node" not in cv and "verdict" not in cv and cv["cpu_time"] == 0.01,
            "NaN fields dropped",
        )
        expect(
            skipped.get("skipped") is True
            and skipped.get("error_message") == "over the limit"
            and "real_time" not in skipped
            and "cpu_time" not in skipped,
            "a skipped benchmark is apart in arenaref_skipped, with its reason and no time",
        )
    except ValueError as error:
        expect(False, f"strict parse: {error}")

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
