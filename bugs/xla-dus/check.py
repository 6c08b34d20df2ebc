"""XLA:CPU's in-place dynamic-update-slice fusion, caught: for each program of program.py, jax's
output against numpy, scripts/xla-plan's plan (the fusion updating its operand's buffer in place,
with the bytes it reads across elements and those it writes, derived from the HLO) and
`arenacert certify` (and --exact). A wrong program must be wrong on this jaxlib and get rule D,
its message naming the fusion and both byte ranges; a clean twin must be right and certify 0.
Writes OUT/report.tsv. Usage (the build venv's Python with jax): check.py ROOT ARENACERT OUT"""

import json
import os
import subprocess
import sys
from importlib import metadata

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import program  # noqa: E402


def compare(got, want):
    """(wrong values, all values, text): exact for integers, float32 rounding for sums."""
    got = got if isinstance(got, (tuple, list)) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    bad = total = 0
    for g, w in zip(got, want):
        g = np.asarray(g).reshape(np.shape(w))
        ok = np.isclose(g, w, rtol=1e-6, atol=0) if g.dtype.kind == "f" else g == w
        bad += int((~ok).sum())
        total += ok.size
    return bad, total


def certify(cert, plan, exact=False):
    c = subprocess.run([cert, "certify", plan] + (["--exact"] if exact else []),
                       capture_output=True, text=True)
    lines = c.stdout.splitlines()
    if c.returncode == 2 or not lines or not lines[0].startswith("verdict: "):
        return None, c.stderr.strip()
    return int(lines[0].split()[1]), lines[1] if len(lines) > 1 else ""


def main(root, cert, out):
    import jax

    os.makedirs(out, exist_ok=True)
    fails, rows = [], []
    version = f"jaxlib {metadata.version('jaxlib')}"
    for name, (maker, ref, wrong_expected) in program.ENTRIES.items():
        f, args = maker()
        want = ref(*[np.array(a) for a in args])  # first: a donated argument is gone after
        got = f(*args) if hasattr(f, "lower") else jax.jit(f)(*args)
        bad, total = compare(got, want)
        if wrong_expected and not bad:
            fails.append(f"{name}: jax computed it right: is the bug fixed in this jaxlib?")
        if not wrong_expected and bad:
            fails.append(f"{name}: jax computed {bad} of {total} values wrong (a clean twin)")
        plan = os.path.join(out, f"{name}.plan.json")
        r = subprocess.run([os.path.join(root, "scripts", "xla-plan"),
                            os.path.join(HERE, "program.py") + ":" + name, "--out", plan],
                           capture_output=True, text=True)
        verdict, message = None, ""
        if r.returncode != 0:
            fails.append(f"{name}: xla-plan exit {r.returncode}: {r.stderr.strip()}")
        else:
            verdict, message = certify(cert, plan)
            exact, _ = certify(cert, plan, exact=True)
            p = json.load(open(plan))
            n = len(p["launches"])
            cap = p["meta"]["capture"]
            if exact != verdict:
                fails.append(f"{name}: verdict {verdict}, --exact {exact}")
            if cap.get("reads_undecided"):
                fails.append(f"{name}: {cap['reads_undecided']} updates undecided: "
                             f"{cap.get('undecided')}")
            if wrong_expected:
                fusion = [ph["id"] for ph in p["phases"] if any(
                    "reads" in pl for pl in ph["planes"])]
                if verdict is None or verdict < 2 + n:
                    fails.append(f"{name}: verdict {verdict}, expected rule D (>= {2 + n}): "
                                 f"{message}")
                elif not fusion or f'phase "{fusion[0]}"' not in message or \
                        "reads[0]" not in message or "writes[0]" not in message:
                    fails.append(f"{name}: the message does not name the fusion ({fusion}) and "
                                 f"both ranges: {message}")
            elif verdict != 0:
                fails.append(f"{name}: verdict {verdict}, expected 0: {message}")
            elif not p["meta"]["counts"]["in_place_updates"]:
                fails.append(f"{name}: no in-place update in the plan (no twin of the bug)")
            if name == "control_scan_cache" and not (p["meta"]["loops"] and
                                                     p["meta"]["counts"]["in_place_updates"]):
                fails.append(f"{name}: no loop or no in-place update in the plan")
        flat = np.asarray(got[0] if isinstance(got, tuple) else got).ravel()
        wflat = np.asarray(want[0] if isinstance(want, tuple) else want).ravel()
        if name == "dus":
            output = f"{' '.join(map(str, flat))} for {' '.join(map(str, wflat))}"
            output = f"{'wrong' if bad else 'right'} ({output})"
        else:
            output = f"wrong ({bad} of {total} values)" if bad else "right"
        rule = "" if verdict in (None, 0) else " (rule D)" if verdict >= 2 + n else " (rule B)" \
            if verdict == 1 else " (rule C)"
        print(f"xla-dus/{name}: {version}: {output}, verdict {verdict}{rule}: {message}")
        rows.append(f"{'xla-dus' if name == 'dus' else 'xla-dus/' + name}\tXLA:CPU\t{version}\t"
                    f"{output}\t{verdict}{rule}\t{message}\n")
    with open(os.path.join(out, "report.tsv"), "w") as fh:
        fh.write("bug\truntime\tversion\toutput\tverdict\tmessage\n")
        fh.writelines(rows)
    for x in fails:
        print(f"FAIL: {x}")
    return 1 if fails else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
