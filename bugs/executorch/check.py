"""Run every program of an ExecuTorch corpus entry (cond.py or reinplace.py): ExecuTorch 1.5.1's
output (its runtime, from the wheel) against eager torch on inputs that take each path, and the
certificate's verdict on every path of what ExecuTorch planned (scripts/executorch-plan's
capture and the shared layer, `arenacert certify`, `--exact` agreeing). A bug must compute
wrong on each input and get a nonzero verdict on the path that input takes; a control must
compute right and certify 0 on every path. Where the entry has a fix (cond: #21490's, in
fix_21490.py), the programs it lists are planned again with it and checked the same way.
ExecuTorch's own check, Verifier.verify_storage_reuse, runs inside to_executorch on every
program and passes each of them. Writes one report row per program and path to OUT/report.tsv.
Usage (the executorch group's Python): check.py ROOT ARENACERT OUT ENTRY   (ENTRY cond|reinplace)"""

import importlib
import json
import os
import subprocess
import sys
from importlib import metadata

HERE = os.path.dirname(os.path.abspath(__file__))


def certify(cert, plan, exact=False):
    r = subprocess.run([cert, "certify", plan] + (["--exact"] if exact else []),
                       capture_output=True, text=True)
    lines = r.stdout.splitlines()
    if r.returncode == 2 or not lines or not lines[0].startswith("verdict: "):
        raise AssertionError(f"{plan}: arenacert refused it (exit {r.returncode}): {r.stderr}")
    return int(lines[0].split()[1]), (lines[1] if len(lines) > 1 else "")


def describe(got, want):
    import torch

    g = torch.cat([t.flatten().float() for t in got])
    w = torch.cat([t.flatten().float() for t in want])
    if g.shape == w.shape and torch.allclose(g, w, atol=1e-5):
        return True, "right"
    bad = int((g - w).abs().gt(1e-5).sum()) if g.shape == w.shape else g.numel()
    fmt = lambda t: " ".join(f"{x:g}" for x in t[:8].tolist())  # noqa: E731
    return False, f"wrong ({bad} of {w.numel()} values: {fmt(g)} for {fmt(w)})"


def rule(verdict, plan):
    if verdict == 0:
        return "0"
    if verdict == 1:
        return "1 (rule B)"
    n = len(plan["launches"])
    return f"{verdict} (rule {'C' if verdict < 2 + n else 'D'})"


def run_variant(root, cert, out, entry, name, spec, fixed=None):
    """Rows and failures for one program (with fix: planned with the fix applied)."""
    import common
    import common.cli
    import et_capture
    from et_capture import lowering

    cls, expect, runs, config = spec
    if fixed is not None:
        expect = fixed
    module = cls()
    tag = name + ("-fixed" if fixed is not None else "")
    pte, hints = lowering.lower(module, runs[0][0], config)
    traces = et_capture.capture(pte, tag, hints=hints)
    rows, failures = [], []
    reuse = hints["verify_storage_reuse"]
    if not isinstance(reuse, int):
        failures.append(f"{entry}/{tag}: ExecuTorch's verify_storage_reuse refused it: {reuse}")
    print(f"{entry}/{tag}: ExecuTorch's Verifier.verify_storage_reuse: {reuse} pairs reuse "
          "storage, passed" if isinstance(reuse, int) else "")
    outputs = {}
    for inputs, choices in runs:
        got = lowering.run(pte, inputs)
        want = lowering.eager(module, inputs)
        outputs[tuple(choices)] = describe(got, want)
    for pname, raw in traces:
        plan, _ = common.export(raw)
        path = os.path.join(out, f"{tag}.{pname}.json")
        common.cli.write(path, json.dumps(plan) + "\n")
        verdict, message = certify(cert, path)
        exact, _ = certify(cert, path, exact=True)
        choices = tuple(c["predicate"] for c in raw["capture"]["choices"])
        right, text = outputs.get(choices, (None, "not run (no input takes this path)"))
        label = f"executorch-{entry}/{name}" + (f" [{pname}]" if pname != "main" else "") + \
            (" with the fix of #21494/#21818" if fixed is not None else "")
        if right is None:  # a path no input takes: a control must still certify 0
            ok = expect == "wrong" or verdict == 0
        elif expect == "right":
            ok = right and verdict == 0
        else:
            ok = not right and verdict != 0
        ok = ok and exact == verdict
        if not ok:
            failures.append(f"{label}: ExecuTorch's output {text}, verdict {verdict} "
                            f"(exact {exact}), expected {expect}: {message}")
        print(f"{'ok' if ok else 'FAIL'}: {label}: {text}; verdict {rule(verdict, plan)}: "
              f"{message}")
        rows.append([label, "ExecuTorch", VERSION, text, rule(verdict, plan), message])
    missing = set(outputs) - {tuple(c["predicate"] for c in raw["capture"]["choices"])
                              for _, raw in traces}
    if missing:
        failures.append(f"executorch-{entry}/{name}: inputs took paths the capture did not list: {missing}")
    return rows, failures


def main(root, cert, out, entry):
    global VERSION
    sys.path.insert(0, HERE)
    os.makedirs(out, exist_ok=True)
    VERSION = f"executorch {metadata.version('executorch')} (torch {metadata.version('torch')})"
    mod = importlib.import_module(entry)
    rows, failures = [], []
    for name, spec in mod.VARIANTS.items():
        r, f = run_variant(root, cert, out, entry, name, spec)
        rows += r
        failures += f
    if mod.FIXED:
        import fix_21490

        with fix_21490.applied():
            for name, expect in mod.FIXED.items():
                r, f = run_variant(root, cert, out, entry, name, mod.VARIANTS[name], expect)
                rows += r
                failures += f
    with open(os.path.join(out, "report.tsv"), "w") as fh:
        fh.write("bug\truntime\tversion\toutput\tverdict\tmessage\n")
        for row in rows:
            fh.write("\t".join(str(x).replace("\t", " ") for x in row) + "\n")
    for f in failures:
        print(f"FAIL: {f}")
    print(f"{len(rows)} rows, {len(failures)} failed")
    return 1 if failures else 0


VERSION = ""

if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[4] not in ("cond", "reinplace"):
        sys.exit(__doc__)
    import logging

    logging.getLogger("torch.utils._pytree").setLevel(logging.ERROR)
    sys.exit(main(*sys.argv[1:]))
