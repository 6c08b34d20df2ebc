"""Results files as other readers take them: Google Benchmark's compare.py, a strict JSON parser
and the tracker export, on files the suite wrote.

A small timed run of scripts/bench whose filter takes a gpu/ benchmark (skipped on a machine
without a device, so the file has a skipped entry there) and a small instruction-counted run,
plus the committed baseline (both files). Each must parse with NaN/Infinity refused, pass
Debian's /usr/share/benchmark/compare.py (exit 0, the comparison printed, the geomean row
included: a skipped entry read as a time of 0 would drop it) and scripts/export for both
trackers. The suite's own tools must still see the skipped entry as skipped (scripts/report's
table, scripts/compare's list) and must read a file of the older format (skipped entries inside
"benchmarks", marked "skipped", no times) as before.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

root, build_dir = sys.argv[1], sys.argv[2]
COMPARE_PY = "/usr/share/benchmark/compare.py"
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL", what)


def strict(path):
    def refuse(constant):
        raise ValueError(f"{constant} in {path}")

    with open(path) as handle:
        return json.load(handle, parse_constant=refuse)


def run(*command):
    return subprocess.run(list(command), capture_output=True, text=True, cwd=root)


def bench(out, *args):
    done = subprocess.run(
        [os.path.join(root, "scripts", "bench"), "--no-build", "--no-report", "--out", out, *args],
        capture_output=True,
        text=True,
        env=dict(os.environ, BUILD_DIR=build_dir),
        cwd=root,
    )
    expect(done.returncode == 0, f"scripts/bench {args}: exit {done.returncode}: {done.stderr[-800:]}")
    files = sorted(f for f in os.listdir(out) if f.endswith(".json")) if os.path.isdir(out) else []
    expect(len(files) == 1, f"one results file in {out}: {files}")
    return os.path.join(out, files[0]) if files else None


def compare_py(base, new):
    done = run("/usr/bin/python3", COMPARE_PY, "--no-color", "benchmarks", base, new)
    expect(
        done.returncode == 0,
        f"compare.py {os.path.basename(base)} {os.path.basename(new)}: exit {done.returncode}: "
        f"{done.stderr[-600:]}",
    )
    lines = done.stdout.splitlines()
    expect(
        any(l.startswith("Comparing ") for l in lines) and any("Time Old" in l for l in lines),
        f"compare.py prints the comparison header: {done.stdout[:300]}",
    )
    expect(
        any(l.startswith(("certify/", "precision/", "load/")) for l in lines),
        f"compare.py prints benchmark rows: {done.stdout[:300]}",
    )
    expect(
        any(l.startswith("OVERALL_GEOMEAN") for l in lines),
        f"compare.py prints the geomean row (no zero time among the entries): {done.stdout[-300:]}",
    )
    skipped = {
        e.get("name") for p in (base, new) for e in strict(p).get("arenaref_skipped", []) or []
    }
    shown = {l.split()[0] for l in lines if l.strip()}
    expect(not (skipped & shown), f"compare.py compares no skipped benchmark: {skipped & shown}")
    return done.stdout


def check_file(path):
    try:
        data = strict(path)
    except ValueError as error:
        expect(False, f"strict parse: {error}")
        return None
    for entry in data["benchmarks"]:
        expect(
            not entry.get("error_occurred") and not entry.get("skipped"),
            f"{path}: {entry.get('name')}: no skipped entry in 'benchmarks'",
        )
        expect(
            all(k in entry for k in ("real_time", "cpu_time", "time_unit")),
            f"{path}: {entry.get('name')} has real_time, cpu_time and time_unit",
        )
    expect(isinstance(data.get("arenaref_skipped"), list), f"{path}: an arenaref_skipped list")
    compare_py(path, path)
    for tracker in ("googlecpp", "bencher"):
        done = run(os.path.join(root, "scripts", "export"), "--tracker", tracker, path)
        expect(done.returncode == 0, f"export {tracker} {path}: {done.stderr}")
        if done.returncode == 0:
            try:
                json.loads(done.stdout, parse_constant=lambda c: 1 / 0)
            except (ValueError, ZeroDivisionError) as error:
                expect(False, f"export {tracker}: not strict JSON: {error}")
    return data


if not os.path.exists(COMPARE_PY):
    print(f"FAIL {COMPARE_PY} is missing (libbenchmark-tools: scripts/test installs it)")
    sys.exit(1)

with tempfile.TemporaryDirectory() as tmp:
    timed = bench(os.path.join(tmp, "timed"), "--filter", "^(certify/decoder/tiny|gpu/fixed/arena)/")
    counted = bench(os.path.join(tmp, "counted"), "--instructions", "--filter", "^certify/decoder/tiny/")
    baseline = sorted(
        os.path.join(root, "results", "baseline", f)
        for f in os.listdir(os.path.join(root, "results", "baseline"))
        if f.endswith(".json")
    )
    expect(len(baseline) == 2, f"two baseline files: {baseline}")
    for path in [p for p in (timed, counted) if p] + baseline:
        check_file(path)
    if timed:
        data = strict(timed)
        skipped = [e["name"] for e in data.get("arenaref_skipped", [])]
        gpu_ran = any(e["name"].startswith("gpu/") for e in data["benchmarks"])
        expect(gpu_ran or skipped == ["gpu/fixed/arena/manual_time"], f"gpu/ skipped apart: {skipped}")
        # the baseline's timed file against the small run: different sets, both read
        compare_py([b for b in baseline if not b.endswith("-instructions.json")][0], timed)
        # the suite's own tools still see it as skipped
        report = os.path.join(tmp, "report")
        done = run(os.path.join(root, "scripts", "report"), timed, "--out", report)
        expect(done.returncode == 0, f"scripts/report: {done.stderr}")
        if done.returncode == 0 and not gpu_ran:
            text = open(os.path.join(report, "report.md")).read()
            expect(
                "## Skipped benchmarks" in text and "| gpu/fixed/arena | no CUDA device" in text,
                "scripts/report lists the skipped benchmark with its reason",
            )
        done = run(os.path.join(root, "scripts", "compare"), timed, timed)
        expect(done.returncode == 0, f"scripts/compare on itself: {done.stdout[-400:]}")
        if not gpu_ran:
            expect(
                "skipped in base (1): gpu/fixed/arena/manual_time" in done.stdout
                and "left out gpu/fixed/arena/manual_time: skipped: no CUDA device" in done.stdout,
                f"scripts/compare lists the skipped benchmark: {done.stdout[-400:]}",
            )
        # the older format: skipped entries in "benchmarks", no times
        old = os.path.join(tmp, "old.json")
        data = strict(timed)
        data["benchmarks"] += data.pop("arenaref_skipped")
        with open(old, "w") as handle:
            json.dump(data, handle)
        done = run(os.path.join(root, "scripts", "compare"), old, timed)
        expect(
            done.returncode == 0 and "benchmark set differs" not in done.stdout,
            f"scripts/compare reads the older format like the new one: {done.stdout[-600:]}",
        )
        converted = os.path.join(tmp, "converted.json")
        shutil.copy(old, converted)
        done = run("/usr/bin/python3", os.path.join(root, "scripts", "lib", "results_post.py"),
                   "--reformat", converted)
        expect(done.returncode == 0, f"results_post.py --reformat: {done.stderr}")
        expect(strict(converted)["arenaref_skipped"] == strict(timed)["arenaref_skipped"],
               "--reformat moves the older format's skipped entries apart as bench does")
        check_file(converted)

print(f"{len(failures)} failures")
sys.exit(1 if failures else 0)
