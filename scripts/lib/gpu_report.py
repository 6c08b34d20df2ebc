"""The report of scripts/gpu-check: what a device run found, judged against the GPU goals.

summarize OUT NAME [--no-device]: reads NAME.{json,tests.tsv,memcheck.txt,gpu.csv} in OUT,
writes NAME.report.md beside them, prints the verdict lines, exits 0 when every goal that
can fail did not (tests, memcheck, steady-state allocations), 1 otherwise.
import DIR ROOT: files a device run's output under ROOT/results/gpu/ and its report under
ROOT/reports/gpu/NAME/report.md. Plain Python 3 (no scipy): the device machine runs it too.
"""

import json
import os
import shutil
import statistics
import sys

GPU_TESTS = ("arena_test_gpu", "arena_test_cpu_gpu_identical")
STRATEGIES = ("arena", "cudaMalloc", "cudaMallocAsync")
GOALS = {"cudaMalloc": 50.0, "cudaMallocAsync": 1.5}  # arena at least this many times faster


def read(path, default=""):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except OSError:
        return default


def load_results(path):
    text = read(path)
    if not text:
        return None
    # Google Benchmark writes bare NaN for undefined aggregates; read them as None.
    return json.loads(text, parse_constant=lambda c: None)


def runs_by_name(results):
    """name -> list of per-repetition entries (iterations only), plus skipped reasons."""
    runs, skipped = {}, {}
    # skipped ones apart in "arenaref_skipped" (results_post.py), or in "benchmarks" (older files)
    results = results or {}
    for b in results.get("benchmarks", []) + (results.get("arenaref_skipped") or []):
        if b.get("run_type", "iteration") != "iteration":
            continue
        # gpu/STREAM/STRATEGY, without the "/manual_time" or "/repeats:N" Google Benchmark adds
        name = "/".join(b.get("run_name", b.get("name", "")).split("/")[:3])
        if b.get("error_occurred") or b.get("skipped"):
            skipped[name] = b.get("error_message", "skipped")
            continue
        runs.setdefault(name, []).append(b)
    return runs, skipped


def scaled_us(entry):
    unit = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}.get(entry.get("time_unit", "ns"), 1e-3)
    return entry["real_time"] * unit  # manual time (CUDA events) is reported as real_time


def iqr(values):
    if len(values) < 2:
        return 0.0
    q = statistics.quantiles(values, n=4, method="inclusive")
    return q[2] - q[0]


def summarize(out, name, no_device):
    results = load_results(os.path.join(out, name + ".json"))
    runs, skipped = runs_by_name(results)
    context = (results or {}).get("context", {})
    problems, lines = [], []

    tests = []
    for row in read(os.path.join(out, name + ".tests.tsv")).splitlines()[1:]:
        test, code, ms = row.split("\t")
        tests.append((test, int(code), int(ms)))
    for test, code, _ in tests:
        gpu = test in GPU_TESTS
        if code == 77 and gpu and not no_device:
            problems.append(f"{test} skipped (exit 77) on a machine with a GPU")
        elif code not in (0, 77):
            problems.append(f"{test} failed (exit {code})")
    if not tests:
        problems.append("no test ran")

    memcheck = read(os.path.join(out, name + ".memcheck.txt")).strip()
    for line in memcheck.splitlines():
        if "ERROR SUMMARY:" in line and "ERROR SUMMARY: 0 errors" not in line:
            problems.append("memcheck: " + line.strip())
        if line.startswith("== ") and not line.endswith("exit 0"):
            problems.append("memcheck run " + line[3:])

    streams = sorted({n.split("/")[1] for n in list(runs) + list(skipped) if n.startswith("gpu/")})
    table = []
    for stream in streams:
        medians, spreads, allocs, reserved, high = {}, {}, {}, None, None
        for strategy in STRATEGIES:
            entries = runs.get(f"gpu/{stream}/{strategy}", [])
            if not entries:
                continue
            times = [scaled_us(e) for e in entries]
            medians[strategy] = statistics.median(times)
            spreads[strategy] = iqr(times)
            allocs[strategy] = max(e.get("allocations_per_call", 0) for e in entries)
            if strategy == "arena":
                reserved = entries[-1].get("reserved_bytes")
                high = entries[-1].get("high_water_bytes")
        if "arena" in allocs and allocs["arena"] != 0:
            problems.append(
                f"gpu/{stream}/arena: {allocs['arena']} allocations per call after warm-up"
            )
        table.append((stream, medians, spreads, allocs, reserved, high))

    md = [f"# GPU check {name}", ""]
    md.append(
        f"Commit `{context.get('arenaref_commit', '?')}` (dirty:"
        f" {context.get('arenaref_dirty', '?')}), {context.get('date', '?')}."
    )
    md.append("")
    md.append("## The GPU")
    md.append("")
    md.append(f"- CUDA: {context.get('cuda_version', '?')}")
    md.append(f"- devices (CUDA): {context.get('gpus', '?')}")
    md.append(f"- host: {context.get('cpu_model', '?')}, {context.get('cpu_count', '?')} CPUs")
    md.append("- nvidia-smi (before the tests):")
    md.append("")
    md.append("```")
    md.append(read(os.path.join(out, name + ".gpu.csv")).strip() or "(not recorded)")
    md.append("```")
    md.append("")
    md.append("## Tests")
    md.append("")
    md.append("| test | exit | result | ms |")
    md.append("| --- | ---: | --- | ---: |")
    for test, code, ms in tests:
        result = {0: "pass", 77: "skipped"}.get(code, "FAIL")
        md.append(f"| `{test}` | {code} | {result} | {ms} |")
    md.append("")
    md.append(
        "CPU and GPU outputs bit-identical: `arena_test_cpu_gpu_identical` "
        + next(
            (
                ("passed" if c == 0 else "skipped" if c == 77 else "FAILED")
                for t, c, _ in tests
                if t == "arena_test_cpu_gpu_identical"
            ),
            "not run",
        )
        + "."
    )
    md.append("")
    md.append("## compute-sanitizer memcheck")
    md.append("")
    md.append("```")
    md.append(memcheck or "(not run)")
    md.append("```")
    md.append("")
    md.append("## Arena vs allocating per call")
    md.append("")
    md.append(
        "Manual time per call (CUDA events around the whole call), median over the repetitions "
        "of one run, with the interquartile range; the ratios divide medians of that one run. "
        "Goals: arena at least 50x faster than cudaMalloc+cudaFree and 1.5x faster than "
        "cudaMallocAsync/cudaFreeAsync per call, and 0 allocations per call after warm-up."
    )
    md.append("")
    md.append(
        "| stream | arena µs (IQR) | cudaMalloc µs (IQR) | cudaMallocAsync µs (IQR) | "
        "cudaMalloc / arena | cudaMallocAsync / arena | arena allocations per call | "
        "reserved / high water |"
    )
    md.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for stream, medians, spreads, allocs, reserved, high in table:
        cells = []
        for s in STRATEGIES:
            cells.append(f"{medians[s]:.2f} ({spreads[s]:.2f})" if s in medians else "skipped")
        ratios = []
        for s in ("cudaMalloc", "cudaMallocAsync"):
            if s in medians and "arena" in medians and medians["arena"] > 0:
                r = medians[s] / medians["arena"]
                ratios.append(f"{r:.1f}x" + ("" if r >= GOALS[s] else " (below goal)"))
            else:
                ratios.append("n/a")
        res = f"{reserved / high:.3f}" if reserved and high else "n/a"
        md.append(
            f"| {stream} | "
            + " | ".join(cells)
            + " | "
            + " | ".join(ratios)
            + f" | {allocs.get('arena', 'n/a')} | {res} |"
        )
    if skipped:
        md.append("")
        md.append("Skipped benchmarks:")
        md.append("")
        for n, why in sorted(skipped.items()):
            md.append(f"- `{n}`: {why}")
    md.append("")
    md.append("## Verdict")
    md.append("")
    if no_device:
        md.append("Run without a device (--allow-no-device): nothing about the GPU was measured.")
    md.extend(f"- {p}" for p in problems)
    if not problems:
        md.append("Every check that could run passed." if no_device else "Every check passed.")
    path = os.path.join(out, name + ".report.md")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(md) + "\n")
    print(f"gpu-check: report {path}")
    for p in problems:
        print(f"gpu-check: PROBLEM: {p}")
    if problems:
        print(f"gpu-check: {len(problems)} problem(s)")
    else:
        print(
            "gpu-check: "
            + (
                "no device: the script ran, the GPU was not measured"
                if no_device
                else "every check passed"
            )
        )
    return 1 if problems else 0


def do_import(src, root):
    names = sorted({f[: -len(".report.md")] for f in os.listdir(src) if f.endswith(".report.md")})
    if not names:
        print(
            f"gpu-check: no NAME.report.md in {src}: not the output of scripts/gpu-check --out",
            file=sys.stderr,
        )
        return 2
    for name in names:
        results = os.path.join(root, "results", "gpu")
        report = os.path.join(root, "reports", "gpu", name)
        os.makedirs(results, exist_ok=True)
        os.makedirs(report, exist_ok=True)
        for f in os.listdir(src):
            if f.startswith(name + ".") and not f.endswith(".report.md"):
                shutil.copy(os.path.join(src, f), os.path.join(results, f))
        shutil.copy(os.path.join(src, name + ".report.md"), os.path.join(report, "report.md"))
        print(f"gpu-check: filed {name} under results/gpu/ and reports/gpu/{name}/report.md")
    return 0


def main(argv):
    if len(argv) >= 3 and argv[0] == "summarize":
        return summarize(argv[1], argv[2], "--no-device" in argv[3:])
    if len(argv) == 3 and argv[0] == "import":
        if not os.path.isdir(argv[1]):
            print(f"gpu-check: {argv[1]} is not a folder", file=sys.stderr)
            return 2
        return do_import(argv[1], argv[2])
    print(
        "usage: gpu_report.py summarize OUT NAME [--no-device] | import DIR ROOT", file=sys.stderr
    )
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
