"""gpu_report.py on synthetic device runs: a good run passes with the right ratios; each way a
run can fail (a GPU test skipped on a GPU machine, a failing test, memcheck errors, the arena
allocating after warm-up) is reported and exits 1; --import files the run."""

import json
import os
import subprocess
import sys
import tempfile

REPORT = sys.argv[1]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def entry(stream, strategy, rep, us, allocs=0.0):
    return {
        "name": f"gpu/{stream}/{strategy}/manual_time",
        "run_name": f"gpu/{stream}/{strategy}/manual_time",
        "run_type": "iteration",
        "repetition_index": rep,
        "real_time": us,
        "cpu_time": us,
        "time_unit": "us",
        "allocations_per_call": allocs,
        "high_water_bytes": 1000.0,
        "reserved_bytes": 1000.0,
    }


def make_run(
    folder,
    name,
    *,
    arena_allocs=0.0,
    tests=None,
    memcheck="== arena_test_gpu: exit 0\n" "========= ERROR SUMMARY: 0 errors\n",
):
    benchmarks = []
    for stream in ("fixed", "heavy"):
        for rep in range(5):
            benchmarks.append(entry(stream, "arena", rep, 20.0 + rep, arena_allocs))
            benchmarks.append(entry(stream, "cudaMalloc", rep, 2200.0 + rep, 4.0))
            benchmarks.append(entry(stream, "cudaMallocAsync", rep, 44.0 + rep, 4.0))
        benchmarks.append(
            {
                "name": f"gpu/{stream}/arena/manual_time_median",
                "run_type": "aggregate",
                "aggregate_name": "median",
                "real_time": 22.0,
                "time_unit": "us",
            }
        )
    with open(os.path.join(folder, name + ".json"), "w") as f:
        json.dump(
            {
                "context": {"arenaref_commit": "abc", "gpus": "0: NVIDIA H200"},
                "benchmarks": benchmarks,
            },
            f,
        )
    tests = tests or [
        ("arena_test_gpu", 0),
        ("arena_test_cpu_gpu_identical", 0),
        ("arena_test_values", 0),
    ]
    with open(os.path.join(folder, name + ".tests.tsv"), "w") as f:
        f.write("test\texit\tms\n" + "".join(f"{t}\t{c}\t5\n" for t, c in tests))
    with open(os.path.join(folder, name + ".memcheck.txt"), "w") as f:
        f.write(memcheck)
    with open(os.path.join(folder, name + ".gpu.csv"), "w") as f:
        f.write("index, name\n0, NVIDIA H200\n")


def summarize(folder, name, *extra):
    p = subprocess.run(
        [sys.executable, REPORT, "summarize", folder, name, *extra], capture_output=True, text=True
    )
    with open(os.path.join(folder, name + ".report.md")) as f:
        return p.returncode, p.stdout, f.read()


with tempfile.TemporaryDirectory() as d:
    make_run(d, "good")
    rc, out, md = summarize(d, "good")
    check(rc == 0, f"a good run exits 0 (got {rc}: {out.strip()})")
    check(
        "| fixed | 22.00 (2.00) | 2202.00 (2.00) | 46.00 (2.00) | 100.1x | 2.1x | 0.0 | 1.000 |"
        in md,
        "the fixed stream's medians, IQRs and ratios are those of the repetitions",
    )
    check("Every check passed." in md, "the report says every check passed")

    make_run(d, "allocates", arena_allocs=0.5)
    rc, out, _ = summarize(d, "allocates")
    check(
        rc == 1 and "allocations per call after warm-up" in out,
        "steady-state allocations fail the run",
    )

    make_run(d, "skipped", tests=[("arena_test_gpu", 77), ("arena_test_values", 0)])
    rc, out, _ = summarize(d, "skipped")
    check(
        rc == 1 and "skipped (exit 77) on a machine with a GPU" in out,
        "a GPU test skipping fails the run",
    )
    rc, out, _ = summarize(d, "skipped", "--no-device")
    check(rc == 0 and "no device" in out, "without a device (--allow-no-device) a skip is expected")

    make_run(d, "failing", tests=[("arena_test_gpu", 0), ("arena_test_values", 1)])
    rc, out, _ = summarize(d, "failing")
    check(rc == 1 and "arena_test_values failed (exit 1)" in out, "a failing test fails the run")

    make_run(
        d, "memcheck", memcheck="== arena_test_gpu: exit 99\n========= ERROR SUMMARY: 3 errors\n"
    )
    rc, out, _ = summarize(d, "memcheck")
    check(rc == 1 and "ERROR SUMMARY: 3 errors" in out, "memcheck errors fail the run")

    root = os.path.join(d, "root")
    os.makedirs(root)
    src = os.path.join(d, "src")
    os.makedirs(src)
    make_run(src, "gpu-x")
    summarize(src, "gpu-x")
    p = subprocess.run(
        [sys.executable, REPORT, "import", src, root], capture_output=True, text=True
    )
    check(
        p.returncode == 0
        and os.path.isfile(os.path.join(root, "reports/gpu/gpu-x/report.md"))
        and os.path.isfile(os.path.join(root, "results/gpu/gpu-x.json")),
        "--import files results and report",
    )
    p = subprocess.run(
        [sys.executable, REPORT, "import", root, root], capture_output=True, text=True
    )
    check(
        p.returncode == 2 and "not the output" in p.stderr,
        "--import of another folder exits 2 and says why",
    )

sys.exit(1 if failures else 0)
