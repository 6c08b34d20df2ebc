"""In-place updates that read across elements (inplace_programs.py): for each program, XLA's
output against numpy, the capture's reads/writes, and `arenacert certify` (and --exact) on the
plan. A program XLA computes wrong must get rule D (a miss otherwise), whose message names the
phase and both byte ranges; a clean one must be computed right and certify 0; `order` and
`limit` ones are right and get rule D, as inplace_programs.py says why. No update may be
undecided. Prints one row per program. One process: jax is imported once.
Usage: check_inplace.py ROOT ARENACERT DIR   (the build venv's Python)"""

import os
import sys

import numpy as np

root, arenacert, work = sys.argv[1:4]
sys.path.insert(0, os.path.join(root, "workloads/runtimes"))
sys.path.insert(0, os.path.join(root, "tests/common"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import jax  # noqa: E402
import common  # noqa: E402
import xla.capture  # noqa: E402
import plan_checks  # noqa: E402
from bench_checks import expect, finish  # noqa: E402
import inplace_programs  # noqa: E402

os.makedirs(work, exist_ok=True)
WANT = {"wrong": "D", "clean": "0", "order": "D", "limit": "D"}
only = sys.argv[4:]


def wrong_values(got, want):
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    bad = total = 0
    for g, w in zip(got, want):
        g, w = np.asarray(g), np.asarray(w)
        g = g.reshape(w.shape)
        ok = np.isclose(g, w, rtol=1e-5) if g.dtype.kind == "f" else g == w
        bad += int((~ok).sum())
        total += ok.size
    return bad, total


print("program\tkind\tXLA's output\tin place\twith reads\tundecided\tverdict")
for name, (kind, ref, maker) in inplace_programs.CASES.items():
    if only and name not in only:
        continue
    fn, args = maker()
    want = ref(*jax.tree_util.tree_map(np.array, args))  # first: a donated argument is gone after
    got = fn(*args) if hasattr(fn, "lower") else jax.jit(fn)(*args)
    bad, total = wrong_values(got, want)
    if kind == "wrong":
        expect(bad > 0, f"{name}: XLA computes {bad} of {total} values wrong, as on jaxlib 0.10.2")
    else:
        expect(bad == 0, f"{name}: XLA computes it right ({bad} of {total} values wrong)")
    _, args = maker()
    try:
        raw = xla.capture.capture(fn, args, name=name)
        plan, _ = common.export(raw)
    except (xla.capture.ExportError, common.TraceError) as e:
        expect(False, f"{name}: export failed: {e}")
        continue
    v = plan_checks.certify(arenacert, work, plan, name)
    ve = plan_checks.certify(arenacert, work, plan, name, exact=True)
    n = len(plan["launches"])
    got_class = plan_checks.verdict_class(v, n)
    c, cap = plan["meta"]["counts"], plan["meta"]["capture"]
    print(f"{name}\t{kind}\t{bad} of {total} wrong\t{c['in_place_updates']}\t"
          f"{c['updates_with_reads']}\t{cap['reads_undecided']}\t{v}")
    expect(got_class == WANT[kind] and v == ve,
           f"{name} ({kind}): verdict {v} ({got_class}), exact {ve}, expected {WANT[kind]}")
    expect(not (bad and got_class == "0"), f"{name}: no miss (XLA wrong and certified 0)")
    expect(cap["reads_undecided"] == 0, f"{name}: no update undecided {cap.get('undecided', '')}")
    if got_class == "D":
        import subprocess

        r = subprocess.run([arenacert, "certify", os.path.join(work, name + ".json")],
                           capture_output=True, text=True)
        msg = r.stdout.splitlines()[1] if len(r.stdout.splitlines()) > 1 else ""
        phases = [ph["id"] for ph in plan["phases"] if any("reads" in p for p in ph["planes"])]
        expect(any(f'phase "{p}"' in msg for p in phases) and "reads[" in msg
               and " with writes" in msg, f"{name}: the message names the phase whose update "
               f"reads across elements, and both ranges: {msg}")
    if kind in ("wrong", "order", "limit"):
        expect(c["updates_with_reads"] >= 1, f"{name}: no update reads across elements")

finish()
