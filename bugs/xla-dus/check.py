"""XLA:CPU's in-place dynamic-update-slice fusion, the certificate's known limit: jax computes
the program wrongly ([1 1 1 1], numpy says [1 1 2 3]), scripts/xla-plan records XLA's plan (the
fusion updating its operand's buffer in place, one kernel launch), and that plan is sound at
kernel level: arenacert certify gives 0. The hazard lies inside the kernel (it reads elements of
its own output buffer it has already written), below the certificate's model, which sees a
kernel's reads and writes as happening at once. Writes OUT/report.tsv.
Usage (the build venv's Python with jax): check.py ROOT ARENACERT OUT"""

import json
import os
import subprocess
import sys
from importlib import metadata

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import program  # noqa: E402


def main(root, cert, out):
    import jax

    os.makedirs(out, exist_ok=True)
    fails = []
    f, args = program.dus()
    got = np.asarray(jax.jit(f)(*args))
    ref = program.reference(program.example())
    right = bool(np.array_equal(got, ref))
    if right:
        fails.append(f"jax computed it right ({got.ravel()}): is the bug fixed in this jaxlib?")
    plan = os.path.join(out, "dus.plan.json")
    r = subprocess.run([os.path.join(root, "scripts", "xla-plan"),
                        os.path.join(HERE, "program.py") + ":dus", "--out", plan],
                       capture_output=True, text=True)
    verdict, message = None, ""
    if r.returncode != 0:
        fails.append(f"xla-plan exit {r.returncode}: {r.stderr.strip()}")
    else:
        c = subprocess.run([cert, "certify", plan], capture_output=True, text=True)
        lines = c.stdout.splitlines()
        verdict, message = int(lines[0].split()[1]), lines[1] if len(lines) > 1 else ""
        if verdict != 0:
            fails.append(f"verdict {verdict}, expected 0 (the plan is sound at kernel level): "
                         f"{message}")
        p = json.load(open(plan))
        fusion = [ph for ph in p["phases"] if "dynamic-update-slice" in ph["id"]]
        if not fusion or len(fusion[0]["planes"]) != 1 or not fusion[0]["planes"][0]["carried"]:
            fails.append(f"the fusion is not one launch updating one buffer in place: {fusion}")
    version = f"jaxlib {metadata.version('jaxlib')}"
    print(f"xla-dus: {version}: output {got.ravel()} (numpy {ref.ravel()}), verdict {verdict}: "
          f"{message}")
    with open(os.path.join(out, "report.tsv"), "w") as fh:
        fh.write("bug\truntime\tversion\toutput\tverdict\tmessage\n")
        fh.write(f"xla-dus\tXLA:CPU\t{version}\t{'right' if right else 'wrong'} "
                 f"({' '.join(map(str, got.ravel()))} for {' '.join(map(str, ref.ravel()))})"
                 f"\t{verdict}\t{message} (known limit: a hazard inside one kernel)\n")
    for x in fails:
        print(f"FAIL: {x}")
    return 1 if fails else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
