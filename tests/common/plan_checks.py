"""Shared by the compilers' program checks (tests/xla and tests/iree check_programs.py): a plan
certified by arenacert and by its --exact oracle, its loops as asked, and planted faults of each
rule getting the class their meta names from both. The caller puts workloads/runtimes on the
path first (for `common`)."""

import json
import os
import subprocess

import common
from bench_checks import expect


def certify(arenacert, work, plan, tag, exact=False):
    """arenacert's verdict on the plan (written to work/tag.json), None when it refused it."""
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


def check_clean(arenacert, work, tag, plan, loops):
    """Verdict 0 from both, and the loops (iterations, depth) expected; the plan's counts."""
    v, ve = certify(arenacert, work, plan, tag), certify(arenacert, work, plan, tag, exact=True)
    c = plan["meta"]["counts"]
    expect(v == 0 and ve == 0, f"{tag}: verdict {v}, exact {ve} ({c['ops']} ops, "
           f"{c['ops_executed']} executed, {c['in_place_updates']} in place)")
    got = sorted(((l["iterations"], l["depth"]) for l in plan["meta"]["loops"]),
                 key=lambda x: (x[1], -x[0]))
    expect(got == sorted(loops, key=lambda x: (x[1], -x[0])),
           f"{tag}: loops (iterations, depth) {got}, expected {loops}")
    return c


def check_faults(arenacert, work, tag, raw):
    """Faults of rules B, C and D (seeds 0 and 1) planted in the trace: each gets its class; where
    the trace has in-place updates, a reads fault (an update made to read across elements what it
    writes) gets rule D at exactly the verdict its meta names."""
    for rule in ("B", "C", "D"):
        for seed in (0, 1):
            try:
                bad, _ = common.export(raw, rule, seed)
            except common.TraceError as e:
                expect(False, f"{tag}: no {rule} fault with seed {seed}: {e}")
                continue
            n = len(bad["launches"])
            name = f"{tag}-{rule}{seed}"
            v, ve = certify(arenacert, work, bad, name), certify(arenacert, work, bad, name, True)
            want = bad["meta"]["fault"]["expect_class"]
            ok = verdict_class(v, n) == want == rule and v == ve
            if rule == "C":
                ok = ok and v == bad["meta"]["expect"]
            expect(ok, f"{tag}: fault {rule} seed {seed} ({bad['meta']['fault']['kind']}): "
                   f"verdict {v} ({verdict_class(v, n)}), exact {ve}, meta expects {want}")
    if not any(op.get("updates") for op in raw["ops"]):
        return
    for seed in (0, 1):
        try:
            bad, _ = common.export(raw, "D", seed, "reads")
        except common.TraceError as e:
            expect(False, f"{tag}: no reads fault with seed {seed}: {e}")
            continue
        name = f"{tag}-reads{seed}"
        v, ve = certify(arenacert, work, bad, name), certify(arenacert, work, bad, name, True)
        expect(v == ve == bad["meta"]["expect"],
               f"{tag}: fault reads seed {seed} (phase {bad['meta']['fault']['phase']}): verdict "
               f"{v}, exact {ve}, meta expects {bad['meta']['expect']}")
