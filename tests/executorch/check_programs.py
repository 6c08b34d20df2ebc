"""The executorch family's programs (at their defaults and other sizes) and the user programs that
export: ExecuTorch's runtime output equals eager torch (this checks the models, not the plan);
every path's plan certifies 0 with `arenacert certify` and `--exact` agreeing; the plan made
from the .pte alone is the plan made with the exported graph's hints, but for names (views,
mutable buffers and delegate outputs inferred from the .pte agree with the graph); the arena
region's planned size is ExecuTorch's non_const_buffer_sizes; planted faults (B, C, D; two
seeds) get the class their meta names from both. One process: torch is imported once.
Usage: check_programs.py ROOT ARENACERT DIR   (the executorch group's Python)"""

import logging
import os
import sys

root, arenacert, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "tests/common"))
sys.path.insert(0, os.path.join(root, "tests/executorch"))
logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
import torch  # noqa: E402

import common  # noqa: E402
import et_capture  # noqa: E402
import plan_checks  # noqa: E402
import user_programs  # noqa: E402
from bench_checks import expect, finish  # noqa: E402
from et_capture import lowering, programs  # noqa: E402

os.makedirs(work, exist_ok=True)

CASES = [(n, {}) for n in programs.PROGRAMS] + [
    ("llama-forward", {"layers": 1, "seq": 8}),
    ("llama-forward", {"layers": 3, "d_model": 32, "heads": 2, "kv_heads": 1}),
    ("llama-decode", {"layers": 3, "cache": 8}),
    ("llama-decode-reinplace", {"layers": 1, "cache": 32}),
    ("convnet", {"channels": 4, "size": 8, "batch": 2}),
    ("split-cat", {"d_model": 32, "seq": 8}),
]
USERS = [("mlp", user_programs.mlp), ("conds", user_programs.conds),
         ("zoo", user_programs.zoo), ("xnnpack", user_programs.xnnpack)]
# (zoo has no op whose output a D fault could put over an input read later)
FAULTED = {"llama-forward", "llama-decode", "llama-decode-reinplace", "convnet", "split-cat"}


def shape(plan):
    """The plan without names: phases' planes by bytes, launches' words (the view and buffer
    inference from the .pte alone must give what the graph's hints give)."""
    return ([sorted((p["base"], p["size"], p.get("carried", False), "becomes" in p)
                    for p in ph.get("planes", [])) for ph in plan["phases"]],
            [ln["words"] for ln in plan["launches"]], plan["globals"] and len(plan["globals"]))


def equal_outputs(got, want):
    return len(got) == len(want) and all(
        g.shape == w.shape and (torch.equal(g, w) if not g.is_floating_point()
                                else torch.allclose(g, w, atol=1e-4, rtol=1e-4))
        for g, w in zip(got, want))


def check(tag, made, fault):
    module, inputs = made[0], made[1]
    config = made[2] if len(made) > 2 else None
    try:
        pte, hints = lowering.lower(module, inputs, config)
        with_hints = et_capture.capture(pte, tag, hints=hints)
        alone = et_capture.capture(pte, tag)
    except (et_capture.ExportError, lowering.ModelError) as e:
        expect(False, f"{tag}: export failed: {e}")
        return
    got, want = lowering.run(pte, inputs), lowering.eager(module, inputs)
    expect(equal_outputs(got, want), f"{tag}: ExecuTorch's output equals eager torch")
    for (path, raw), (path2, raw2) in zip(with_hints, alone):
        name = f"{tag}-{path}"
        plan, _ = common.export(raw)
        plan2, _ = common.export(raw2)
        plan_checks.check_clean(arenacert, work, name, plan, [])
        expect(plan_checks.certify(arenacert, work, plan2, name + "-pte") == 0,
               f"{name}: the plan from the .pte alone certifies 0")
        expect(path == path2 and shape(plan) == shape(plan2),
               f"{name}: the .pte alone gives the plan the graph's hints give")
        arenas = [r for r in raw["regions"] if r["kind"] == "arena"]
        expect(sum(r["planned_size"] for r in arenas) == raw["capture"]["executorch_own"] > 0,
               f"{name}: arena planned sizes {[r['planned_size'] for r in arenas]} = "
               f"non_const_buffer_sizes {raw['capture']['arenas']}")
        if fault:
            plan_checks.check_faults(arenacert, work, name, raw)


for name, sizes in CASES:
    tag = name + "".join(f"-{k}{v}" for k, v in sizes.items())
    check(tag, programs.get(name)(**sizes), not sizes and name in FAULTED)
for name, maker in USERS:
    check(name, maker(), name in FAULTED)
finish()
