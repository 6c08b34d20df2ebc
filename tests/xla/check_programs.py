"""The xla family's programs at several loop counts (layers 1/2/4, tokens 1/3): each compiles,
exports, and certifies 0 with `arenacert certify` and `--exact` agreeing; its loops are the
trip counts asked for (nested where XLA nests them: decode is tokens x layers); XLA's temp
allocation is the arena region's planned size. Planted faults (B, C, D; two seeds) get the class
their meta names from both. One process: jax is imported once.
Usage: check_programs.py ROOT ARENACERT DIR   (the build venv's Python)"""

import os
import sys

root, arenacert, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "workloads/runtimes"))
sys.path.insert(0, os.path.join(root, "tests/common"))
import common  # noqa: E402
import xla.capture  # noqa: E402
from xla import programs  # noqa: E402
import plan_checks  # noqa: E402
from bench_checks import expect, finish  # noqa: E402

os.makedirs(work, exist_ok=True)


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
    ("llama-decode", {"layers": 2, "tokens": 3}, [(3, 0), (2, 1)]),
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
    c = plan_checks.check_clean(arenacert, work, tag, plan, loops)
    arena = [r for r in raw["regions"] if r["kind"] == "arena"]
    temp = raw["capture"]["temp_size_in_bytes"]
    expect(len(arena) == 1 and arena[0]["planned_size"] == temp,
           f"{tag}: one temp allocation, planned size {temp} = XLA's temp_size_in_bytes")
    written = sum(1 for o in raw["ops"] if o["kernel"] not in ("upload", "readback"))
    expect(written == raw["capture"]["launches_written"] and c["ops_executed"] > 0,
           f"{tag}: {written} launches written")
    if (name, sizes.get("layers")) not in FAULTED:
        continue
    plan_checks.check_faults(arenacert, work, tag, raw)

finish()
