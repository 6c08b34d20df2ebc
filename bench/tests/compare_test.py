"""scripts/compare on tiny made-up results files whose verdicts are certain.

Instructions: equal counts pass, +3% on the certificate fails (and names it), +0.5% passes the
default 1% threshold and fails --threshold 0.002, +3% on another allocator is not judged.
Times, in quiet runs (load average under the CPU count): a 20% slowdown fails, identical times
pass; the same slowdown in a run whose load passed the CPU count, or with a CV too large to see
5%, is "too noisy to judge" and passes. Counters: allocations up and precision down fail.
Like with like: another profile, host kind or benchmark set is exit 2 (0 with --force). Nothing
compared, a missing file, a non-results JSON and a non-JSON file are exit 2.
"""

import json
import os
import random
import subprocess
import sys
import tempfile

compare = sys.argv[1]
rng = random.Random(7)
CERT = "certify/decoder/tiny/repeats:9"


def results(
    times=None,
    name=CERT,
    instructions=None,
    allocations=0.0,
    precision=1.0,
    load=1.0,
    profile="quick",
    cpu="Test CPU",
    extra=(),
):
    times = times or [100.0] * 9
    runs = []
    for i, t in enumerate(times):
        run = {
            "name": name,
            "run_name": name,
            "run_type": "iteration",
            "repetitions": len(times),
            "repetition_index": i,
            "threads": 1,
            "iterations": 1000,
            "real_time": t,
            "cpu_time": t,
            "time_unit": "us",
            "allocations_per_call": allocations,
            "site_precision": precision,
        }
        if instructions is not None:
            run["instructions"] = instructions
        runs.append(run)
    for other in extra:
        runs.append(
            {
                "name": other,
                "run_name": other,
                "run_type": "iteration",
                "iterations": 10,
                "real_time": 5.0,
                "cpu_time": 5.0,
                "time_unit": "us",
            }
        )
    mode = "instructions" if instructions is not None else "time"
    context = {
        "profile": profile,
        "cpu_model": cpu,
        "compiler": "gcc 12",
        "build_type": "RelWithDebInfo",
        "cpu_count": "2",
        "arenaref_mode": mode,
        "arenaref_filter": "",
    }
    noise = {
        "samples": 5,
        "load_average_1min": {"min": load, "median": load, "max": load},
        "cpu_steal_percent": 0.1,
    }
    return {"context": context, "arenaref_noise": noise, "benchmarks": runs}


failures = 0


def check(label, base, new, expected, *extra, expect_text=None):
    global failures
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, content in (("base", base), ("new", new)):
            path = os.path.join(tmp, name + ".json")
            if isinstance(content, str) and content.startswith("@missing"):
                paths.append(os.path.join(tmp, "missing.json"))
                continue
            with open(path, "w") as handle:
                handle.write(content if isinstance(content, str) else json.dumps(content))
            paths.append(path)
        done = subprocess.run([compare, *paths, *extra], capture_output=True, text=True)
        output = done.stdout + done.stderr
        ok = done.returncode == expected and (expect_text is None or expect_text in output)
        if not ok:
            failures += 1
            print(
                f"FAIL {label}: exit {done.returncode}, expected {expected}"
                f"{'' if expect_text is None else f' with {expect_text!r}'}\n{output}"
            )
        else:
            print(f"ok   {label}: exit {done.returncode}")


base_ir = results(instructions=1_000_000)
check("instructions equal", base_ir, results(instructions=1_000_000), 0)
check(
    "instructions +3%",
    base_ir,
    results(instructions=1_030_000),
    1,
    expect_text="instructions +3.00%",
)
check("instructions +0.5%", base_ir, results(instructions=1_005_000), 0)
check(
    "instructions +0.5% threshold",
    base_ir,
    results(instructions=1_005_000),
    1,
    "--threshold",
    "0.002",
)
other = "arena/fixed/jemalloc/repeats:9"
check(
    "instructions other allocator",
    results(name=other, instructions=1000),
    results(name=other, instructions=1030),
    0,
    expect_text="not judged",
)
# --exact: one commit against itself; any difference, either way, judged or not, fails.
check("exact equal", base_ir, results(instructions=1_000_000), 0, "--exact",
      expect_text="equal: 1 instruction counts equal")
check("exact one more", base_ir, results(instructions=1_000_001), 1, "--exact",
      expect_text="DIFFERS")
check("exact one fewer", base_ir, results(instructions=999_999), 1, "--exact",
      expect_text="NOT EQUAL (1)")
check("exact not judged by the gate", results(name=other, instructions=1000),
      results(name=other, instructions=1001), 1, "--exact", expect_text="DIFFERS")
one_more = results(instructions=1_000_000)
one_more["benchmarks"].append(dict(results(name=other, instructions=5)["benchmarks"][0]))
check("exact counted in one file only", base_ir, one_more, 1, "--exact", "--force",
      expect_text="counted in one file only")
check("exact on time files", results(), results(), 2, "--exact",
      expect_text="--exact: no instruction count in both files")

quiet = [100.0 + rng.uniform(-0.5, 0.5) for _ in range(9)]
check(
    "times same", results(quiet), results([t * (1 + rng.uniform(-0.002, 0.002)) for t in quiet]), 0
)
check(
    "times 20% slower", results(quiet), results([t * 1.2 for t in quiet]), 1, expect_text="SLOWER"
)
check(
    "times under load",
    results(quiet, load=3.5),
    results([t * 1.2 for t in quiet], load=3.5),
    0,
    expect_text="too noisy to judge (load average reached 3.5 on 2 CPUs)",
)
wide = [100.0 * (1 + rng.uniform(-0.3, 0.3)) for _ in range(9)]
check(
    "times high CV",
    results(wide),
    results([t * 1.2 for t in wide]),
    0,
    expect_text="too noisy to judge (CV",
)
check(
    "counters",
    results(quiet),
    results(quiet, allocations=1.0, precision=0.9),
    1,
    expect_text="REGRESSED",
)

check(
    "profile mismatch",
    base_ir,
    results(instructions=1_000_000, profile="full"),
    2,
    expect_text="NOT LIKE WITH LIKE",
)
check(
    "profile mismatch forced",
    base_ir,
    results(instructions=1_000_000, profile="full"),
    0,
    "--force",
)
check("host mismatch", results(quiet), results(quiet, cpu="Other CPU"), 2, expect_text="cpu_model")
check(
    "set mismatch",
    base_ir,
    results(instructions=1_000_000, extra=["floor/decoder/tiny"]),
    2,
    expect_text="only in new",
)
check("mode mismatch", base_ir, results(quiet), 2, expect_text="mode differs: instructions in ")
check("nothing compared", {"benchmarks": []}, {"benchmarks": []}, 2, expect_text="nothing compared")
check("missing file", base_ir, "@missing", 2, expect_text="cannot read")
check("not results", base_ir, '{"runs": []}', 2, expect_text="not a results file")
check("not JSON", base_ir, "NaN, garbage", 2, expect_text="not JSON")
check("bad threshold", base_ir, base_ir, 2, "--threshold", "5")
sys.exit(1 if failures else 0)
