"""The xla family's programs at several loop counts (layers 1/2/4, tokens 1/3): each compiles,
exports, and certifies 0 with `arenacert certify` and `--exact` agreeing; its loops are the
trip counts asked for (nested where XLA nests them: decode is tokens x layers); XLA's temp
allocation is the arena region's planned size. Planted faults (B, C, D; two seeds) get the class
their meta names from both. One process: jax is imported once.
Usage: check_programs.py ROOT ARENACERT DIR   (the build venv's Python)"""

import json
import os
import subprocess
import sys

root, arenacert, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "workloads/runtimes"))
import common  # noqa: E402
import xla.capture  # noqa: E402
from xla import programs  # noqa: E402

os.makedirs(work, exist_ok=True)
failures = []


def expect(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def certify(plan, tag, exact=False):
    path = os.path.join(work, tag + ".json")
    with open(path, "w") as f:
        json.dump(plan, f)
    r = subprocess.run([arenacert, "certify", path] + (["--exact"] if exact else []),
                       capture_output=True, text=True)
    line = (r.stdout.splitlines() or [""])[0]
    if r.returncode == 2 or not line.startswith("verdict: "):
        return None
    return int(line.split()[1])


def verdict_class(v, n):
    return "?" if v is None else "0" if v == 0 else "B" if v == 1 else "C" if v < 2 + n else "D"


# program, sizes, the loops expected: [(iterations, depth)] (decode: tokens outside layers)
CASES = [
    ("gpt2-forward", {"layers": 1}, []),
    ("gpt2-forward", {"layers": 2}, [(2, 0)]),
    ("gpt2-forward", {"layers": 4}, [(4, 0)]),
    ("gpt2-decode", {"layers": 1, "tokens": 1}, []),
    ("gpt2-decode", {"layers": 2, "tokens": 3}, [(3, 0), (2, 1)]),
    ("gpt2-decode", {"layers": 4, "tokens": 3}, [(3, 0), (4, 1)]),
    ("gpt2-train", {"layers": 1}, []),
    ("gpt2-train", {"layers": 2}, [(2, 0), (2, 0)]),
    ("penzai-llama-forward", {"layers": 1}, []),
    ("penzai-llama-forward", {"layers": 2}, []),
    ("penzai-llama-decode", {"layers": 1, "tokens": 1}, []),
    ("penzai-llama-decode", {"layers": 2, "tokens": 3}, [(3, 0)]),
    ("penzai-gptneox-forward", {"layers": 2}, []),
]
FAULTED = {("gpt2-forward", 4), ("gpt2-decode", 2), ("gpt2-train", 2), ("penzai-llama-forward", 2),
           ("penzai-llama-decode", 2)}

for name, sizes, loops in CASES:
    tag = name + "-" + "-".join(f"{k}{v}" for k, v in sizes.items())
    fn, args = programs.get(name)(**sizes)
    try:
        raw = xla.capture.capture(fn, args, name=name, flags=sizes)
        plan, t = common.export(raw)
    except (xla.capture.ExportError, common.TraceError) as e:
        expect(False, f"{tag}: export failed: {e}")
        continue
    v, ve = certify(plan, tag), certify(plan, tag, exact=True)
    c = plan["meta"]["counts"]
    expect(v == 0 and ve == 0, f"{tag}: verdict {v}, exact {ve} ({c['ops']} ops, "
           f"{c['ops_executed']} executed, {c['in_place_updates']} in place)")
    got = sorted(((l["iterations"], l["depth"]) for l in plan["meta"]["loops"]),
                 key=lambda x: (x[1], -x[0]))
    expect(got == sorted(loops, key=lambda x: (x[1], -x[0])),
           f"{tag}: loops (iterations, depth) {got}, expected {loops}")
    arena = [r for r in raw["regions"] if r["kind"] == "arena"]
    temp = raw["capture"]["temp_size_in_bytes"]
    expect(len(arena) == 1 and arena[0]["planned_size"] == temp,
           f"{tag}: one temp allocation, planned size {temp} = XLA's temp_size_in_bytes")
    written = sum(1 for o in raw["ops"] if o["kernel"] not in ("upload", "readback"))
    expect(written == raw["capture"]["launches_written"] and c["ops_executed"] > 0,
           f"{tag}: {written} launches written")
    if (name, sizes.get("layers")) not in FAULTED:
        continue
    for rule in ("B", "C", "D"):
        for seed in (0, 1):
            try:
                bad, _ = common.export(raw, rule, seed)
            except common.TraceError as e:
                expect(False, f"{tag}: no {rule} fault with seed {seed}: {e}")
                continue
            n = len(bad["launches"])
            v, ve = certify(bad, f"{tag}-{rule}{seed}"), certify(bad, f"{tag}-{rule}{seed}", True)
            want = bad["meta"]["fault"]["expect_class"]
            ok = verdict_class(v, n) == want == rule and v == ve
            if rule == "C":
                ok = ok and v == bad["meta"]["expect"]
            expect(ok, f"{tag}: fault {rule} seed {seed} ({bad['meta']['fault']['kind']}): "
                   f"verdict {v} ({verdict_class(v, n)}), exact {ve}, meta expects {want}")

print(f"{len(failures)} failed")
sys.exit(1 if failures else 0)
