"""Run every LiteRT alias-chain model (models.py): LiteRT's output (builtin resolver, no default
delegates) against numpy's, then scripts/tflite-plan and arenacert certify. A bug variant must
compute wrongly, export (exit 0) and get rule D, its message naming both LiteRT nodes and the
tensors; its output must be right with experimental_preserve_all_tensors=True (no arena reuse:
the planner is the cause). A control must compute right and certify 0. Writes one report row
per model (bug, runtime, version, output, verdict, message) to OUT/report.tsv.
With --other-python PY (tflite-runtime's venv, other_runtime.sh): the same models run on
tflite-runtime 2.14.0 instead, output only (the exporter runs ai-edge-litert): the bug variants
must be wrong there too, the controls right.
Usage (the build venv's Python): check.py ROOT ARENACERT OUT [--other-python PY]"""

import json
import os
import subprocess
import sys
from importlib import metadata

import numpy as np
from ai_edge_litert import interpreter as litert

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.dirname(HERE))
import models  # noqa: E402
from verdict import certify  # noqa: E402  (bugs/verdict.py)


def run_litert(path, x, preserve=False):
    it = litert.Interpreter(
        model_path=path,
        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
        experimental_preserve_all_tensors=preserve,
    )
    it.allocate_tensors()
    it.set_tensor(it.get_input_details()[0]["index"], x)
    it.invoke()
    return it.get_tensor(it.get_output_details()[0]["index"]).copy()


def other_runtime(python, out):
    """Every model on tflite-runtime (another venv): rows with its output, no verdict."""
    rows, failures = [], []
    version = None
    for name in models.VARIANTS:
        path = os.path.join(out, f"{name}.tflite")
        x, ref, expect = models.build(name, path)
        np.save(os.path.join(out, "input.npy"), x)
        r = subprocess.run([python, os.path.join(HERE, "run_tflite_runtime.py"), path,
                            os.path.join(out, "input.npy"), os.path.join(out, "output.npy")],
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{name}: tflite-runtime failed: {r.stderr.strip()[-300:]}")
            continue
        version = r.stdout.strip()
        got = np.load(os.path.join(out, "output.npy"))
        right = bool(np.array_equal(got, ref))
        before = len(failures)
        if right != (expect == "right"):
            failures.append(f"{name}: tflite-runtime {version} computed it "
                            f"{'right' if right else 'wrong'}, expected {expect}")
        diff = "" if right else f" (off by {', '.join(f'{d:g}' for d in np.unique(got - ref))})"
        rows.append([f"litert-alias/{name}", "TensorFlow Lite", f"tflite-runtime {version}",
                     ("right" if right else "wrong") + diff, "-",
                     "not exported: the exporter runs ai-edge-litert"])
        print(f"{'ok' if len(failures) == before else 'FAIL'}: {name}: tflite-runtime {version}: "
              f"{rows[-1][3]}")
    return rows, failures


def main(root, cert, out, other=None):
    os.makedirs(out, exist_ok=True)
    if other:
        rows, failures = other_runtime(other, out)
        write_report(out, rows)
        for f in failures:
            print(f"FAIL: {f}")
        return 1 if failures else 0
    version = metadata.version("ai-edge-litert")
    rows, failures = [], []
    for name in models.VARIANTS:
        path = os.path.join(out, f"{name}.tflite")
        x, ref, expect = models.build(name, path)
        got = run_litert(path, x)
        right = bool(np.array_equal(got, ref))
        plan = os.path.join(out, f"{name}.plan.json")
        r = subprocess.run([os.path.join(root, "scripts", "tflite-plan"), path, "--out", plan],
                           capture_output=True, text=True)
        problems = []
        if r.returncode != 0:
            problems.append(f"tflite-plan exit {r.returncode}: {r.stderr.strip()}")
            verdict, message = None, ""
        else:
            verdict, message = certify(cert, plan)
            n = len(json.load(open(plan))["launches"])
        if expect == "wrong":
            if right:
                problems.append(f"LiteRT computed it right: {got.ravel()}")
            if not np.array_equal(run_litert(path, x, preserve=True), ref):
                problems.append("wrong even with experimental_preserve_all_tensors")
            if name.endswith("_rule_B"):
                if verdict != 1 or not (message.startswith("rule B: phase ")
                                        and "(node " in message):
                    problems.append(f"verdict {verdict}, expected rule B naming the LiteRT "
                                    f"node: {message}")
            elif verdict is not None and verdict < 2 + n:
                problems.append(f"verdict {verdict}, expected rule D (>= {2 + n}): {message}")
            elif verdict is not None and not (
                message.startswith("rule D:") and message.count("(node ") == 2
                and "updated in place into" in message
            ):
                problems.append(f"the message does not name both LiteRT nodes: {message}")
            if verdict is not None and "(y, v" not in message:
                problems.append(f"the message does not name tensor y and its view: {message}")
        else:
            if not right:
                problems.append(f"LiteRT computed the control wrongly: {got.ravel()} "
                                f"against {ref.ravel()}")
            if verdict != 0:
                problems.append(f"the control got verdict {verdict}: {message}")
        diff = "" if right else f" (off by {', '.join(f'{d:g}' for d in np.unique(got - ref))})"
        rows.append([f"litert-alias/{name}", "LiteRT", f"ai-edge-litert {version}",
                     ("right" if right else "wrong") + diff,
                     "export failed" if verdict is None else str(verdict), message])
        status = "FAIL" if problems else "ok"
        print(f"{status}: {name}: output {rows[-1][3]}, verdict {rows[-1][4]}: {message}")
        failures += [f"{name}: {p}" for p in problems]
    write_report(out, rows)
    for f in failures:
        print(f"FAIL: {f}")
    return 1 if failures else 0


def write_report(out, rows):
    with open(os.path.join(out, "report.tsv"), "w") as f:
        f.write("bug\truntime\tversion\toutput\tverdict\tmessage\n")
        f.write("".join("\t".join(r) + "\n" for r in rows))


if __name__ == "__main__":
    if len(sys.argv) == 6 and sys.argv[4] == "--other-python":
        sys.exit(main(*sys.argv[1:4], other=sys.argv[5]))
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
