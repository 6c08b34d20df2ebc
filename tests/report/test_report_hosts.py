"""scripts/report on results files from two host kinds, made from real runs of scripts/bench.

One timed run and one --instructions run of a small filter are copied under two host kinds:
kind A named by arenaref_host_kind (as scripts/sweep records it), kind B by its CPU model alone
(the fallback), with every time of B doubled (a slower host: raw times differ, times over the
host's own floor do not) and one instruction count of B changed (must be flagged). The report
must hold the table of kinds, the side-by-side judged tables, each kind's section with its plots
in its own folder; the unmodified pair must still give the single-kind report.
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

root, build_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(root, "scripts", "lib"))
from report_format import fmt_ratio, fmt_spread  # noqa: E402
from results import Results  # noqa: E402

FILTER = r"^(certify/decoder/tiny|load/decoder/tiny|floor/[^/]+/[^/]+)(/|$)"
failures = []


def expect(condition, what):
    if not condition:
        failures.append(what)
        print("FAIL", what)


def run(args):
    return subprocess.run(
        args, capture_output=True, text=True, cwd=root, env=dict(os.environ, BUILD_DIR=build_dir)
    )


def bench(out, *extra):
    done = run(
        [os.path.join(root, "scripts", "bench"), "--no-build", "--no-report", "--filter", FILTER]
        + ["--out", out, *extra]
    )
    expect(done.returncode == 0, f"scripts/bench {extra}: exit {done.returncode}: {done.stderr[-1500:]}")
    return sorted(glob.glob(os.path.join(out, "*.json")))


def relabel(path, out, kind=None, cpu_model=None, time_factor=1.0, extra_instructions=None):
    with open(path) as handle:
        data = json.load(handle)
    if kind:
        data["context"]["arenaref_host_kind"] = kind
    if cpu_model:
        data["context"]["cpu_model"] = cpu_model
    for entry in data["benchmarks"]:
        for key in ("cpu_time", "real_time"):
            if isinstance(entry.get(key), (int, float)):
                entry[key] *= time_factor
        if extra_instructions and entry["name"].startswith(extra_instructions[0]):
            if "instructions" in entry:
                entry["instructions"] += extra_instructions[1]
    with open(out, "w") as handle:
        json.dump(data, handle)
    return out


def report(files, out):
    done = run([os.path.join(root, "scripts", "report"), *files, "--out", out])
    expect(done.returncode == 0, f"scripts/report {files}: {done.returncode} {done.stderr[-800:]}")
    path = os.path.join(out, "report.md")
    return open(path).read() if os.path.exists(path) else ""


def row(text, name):
    found = [l for l in text.splitlines() if l.startswith(f"| `{name}` |")]
    return [c.strip() for c in found[0].strip("|").split("|")] if found else []


with tempfile.TemporaryDirectory() as tmp:
    timed = bench(os.path.join(tmp, "time"))
    counted = bench(os.path.join(tmp, "instr"), "--instructions")
    expect(len(timed) == 1 and len(counted) == 1, f"results files: {timed} {counted}")
    if not failures:
        a = relabel(timed[0], os.path.join(tmp, "a.json"), kind="kind-a")
        ai = relabel(counted[0], os.path.join(tmp, "a-instr.json"), kind="kind-a")
        b = relabel(timed[0], os.path.join(tmp, "b.json"), cpu_model="Made-up CPU", time_factor=2)
        bi = relabel(
            counted[0],
            os.path.join(tmp, "b-instr.json"),
            cpu_model="Made-up CPU",
            extra_instructions=("certify/decoder/tiny", 1000),
        )
        out = os.path.join(tmp, "r")
        text = report([a, ai, b, bi], out)
        ra, rb = Results([a, ai]), Results([b, bi])

        expect("## Across host kinds" in text, "the table of host kinds")
        expect("## Host kind kind-a" in text, "a section for the kind named by arenaref_host_kind")
        expect("## Host kind Made-up CPU" in text, "a section for the kind named by its CPU model")
        expect(
            "| benchmark | floor | kind-a: CPU time | Made-up CPU: CPU time | kind-a: ÷ floor |"
            " Made-up CPU: ÷ floor |" in text,
            "the side-by-side time table's header",
        )
        cells = row(text, "certify/decoder/tiny")
        name, floor = "certify/decoder/tiny", "floor/decoder/tiny"
        ratio = ra.time_ns(name) / ra.time_ns(floor)
        expect(
            cells[:6]
            == [
                f"`{name}`",
                f"`{floor}`",
                fmt_spread(ra.time_stats(name)),
                fmt_spread(rb.time_stats(name)),
                fmt_ratio(ratio),
                fmt_ratio(rb.time_ns(name) / rb.time_ns(floor)),
            ],
            f"the certify row: raw times per kind, then each over its own floor: {cells}",
        )
        expect(cells[2] != cells[3], "raw times differ between the kinds (B is twice as slow)")
        expect(cells[4] == cells[5], f"times over each host's floor agree: {cells[4:6]}")
        expect(
            rb.time_ns(name) == 2 * ra.time_ns(name), "the fixture doubled kind B's times"
        )
        instr = [l for l in text.splitlines() if l.startswith("| `certify/decoder/tiny` |")]
        expect(len(instr) == 4, f"certify/decoder/tiny: time, instruction and each kind's tables: {instr}")
        count_a = ra.instructions_of(name)[0]
        count_b = rb.instructions_of(name)[0]
        expect(count_b == count_a + 1000, f"fixture changed B's count: {count_a} {count_b}")
        expect(
            len(instr) > 1
            and instr[1].startswith(f"| `{name}` | {count_a:,.0f} | {count_b:,.0f} | **DIFFERS** by"),
            f"the changed count is flagged: {instr}",
        )
        load = [l for l in text.splitlines() if l.startswith("| `load/decoder/tiny` |")]
        expect(
            any(l.endswith("| equal |") for l in load),
            f"an unchanged count reads equal: {load}",
        )
        expect(
            "**1 benchmark(s) disagree between host kinds:** `certify/decoder/tiny`." in text,
            "the disagreement is summed up and named",
        )
        expect("### Certificate time" in text, "each kind's sections, one heading level down")
        for sub in ("kind-a", "Made-up-CPU"):
            expect(f"]({sub}/cert_time.png)" in text, f"kind {sub}'s plot linked from its folder")
            expect(os.path.exists(os.path.join(out, sub, "cert_time.png")), f"{sub}/cert_time.png")
        expect(text.count("## Environment") == 2, "each kind's environment")

        single = report([timed[0], counted[0]], os.path.join(tmp, "single"))
        expect(
            "Across host kinds" not in single and "## Certificate time" in single,
            "one host kind: the single-kind report",
        )
        missing = run([os.path.join(root, "scripts", "report"), a, os.path.join(tmp, "none.json")])
        expect(
            missing.returncode == 2 and "none.json" in missing.stderr,
            f"a missing file: exit 2 naming it: {missing.returncode} {missing.stderr}",
        )

print("FAILED" if failures else "ok: the report across host kinds")
sys.exit(1 if failures else 0)
