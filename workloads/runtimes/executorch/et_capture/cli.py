"""scripts/executorch-plan's body: a program (a .pte file; a user's FILE.py:NAME; or one of the
executorch family's, by name) captured and planned through the shared layer (common.cli): one
plan, or a folder of one plan per path where the program has conditionals; the family's programs
listed; or the bench's plans exported and cached (--export-all): common.programs."""

import os
import shutil
import sys

import common
import common.cli
import common.programs

from . import programs
from .capture import MAX_PATHS, ExportError, capture, capture_module, versions

PROG = "executorch-plan"
SIZE_OPTIONS = ("layers", "d_model", "heads", "kv_heads", "vocab", "seq", "cache", "channels",
                "size", "batch")
# The bench's programs (scripts/bench): small, so an export is seconds.
BENCH = [("llama-forward", {}), ("llama-decode", {}), ("llama-decode-reinplace", {}),
         ("convnet", {}), ("split-cat", {})]
PER_PATH = ("out", "problem_out", "problem_info_out", "trace_out")
FAMILY = common.programs.Family(programs.PROGRAMS, programs.get, "the executorch family",
                                forms="MODEL.pte, FILE.py:NAME")


def build(spec, given):
    """(name, module, inputs, config, sizes, source) of a family program or FILE.py:NAME."""
    name, made, sizes, source = common.programs.make(spec, given, FAMILY)
    ok = isinstance(made, tuple) and len(made) in (2, 3) and callable(made[0]) and \
        isinstance(made[1], (tuple, list))
    if not ok:
        raise common.cli.UsageError(
            f"{spec}: returned {type(made).__name__}, expected (module, tuple of example inputs)"
            " or (module, inputs, ExecutorchBackendConfig fields)")
    config = made[2] if len(made) == 3 else None
    return name, made[0], tuple(made[1]), config, sizes, source


def traces_of(a):
    """[(path, trace)] for the parsed arguments' program."""
    spec, given = common.programs.given_sizes(a, SIZE_OPTIONS, FAMILY)
    if a.max_paths < 1:
        raise common.cli.UsageError(f"--max-paths {a.max_paths}: must be at least 1")
    if spec.endswith(".py") and os.path.isfile(spec):
        raise common.cli.UsageError(f"{spec}: a Python file: name the function too, "
                                    f"{spec}:NAME")
    try:
        if spec.endswith(".pte") or (os.path.isfile(spec) and ":" not in spec):
            if given:
                raise common.cli.UsageError(f"{spec}: a .pte takes no sizes")
            try:
                with open(spec, "rb") as f:
                    data = f.read()
            except OSError as e:
                raise common.cli.UsageError(f"{spec}: cannot read it: {e.strerror}")
            try:
                out = capture(data, os.path.basename(spec), a.method, a.max_paths,
                              program_meta={"source": os.path.abspath(spec)}, source=spec)
            except ExportError as e:  # its message names the file already
                raise common.cli.UsageError(str(e))
            pte = None
        else:
            if a.method not in (None, "forward"):
                raise common.cli.UsageError(f"{spec}: an exported module has one method, "
                                            "forward")
            out, pte = module_traces(spec, given, a.max_paths)
    except ExportError as e:
        raise common.cli.UsageError(f"{spec}: {e}")
    if a.pte_out:
        if pte is None:
            raise common.cli.UsageError("--pte-out: the program is a .pte already")
        common.cli.write(a.pte_out, pte)
    return out


def module_traces(spec, given, max_paths=MAX_PATHS):
    """(traces, pte bytes) of a family program or FILE.py:NAME, exported and lowered."""
    name, module, inputs, config, sizes, source = build(spec, given)
    text = config if config is None or isinstance(config, dict) else repr(config)
    return capture_module(module, inputs, config, name, max_paths,
                          {"source": source, "sizes": sizes, "config": text})


def add_arguments(p):
    p.add_argument("program", nargs="?",
                   help="MODEL.pte, FILE.py:NAME (NAME() returns (module, tuple of example "
                   "inputs) or (module, inputs, ExecutorchBackendConfig fields)) or one of the "
                   "family's programs (--list-programs)")
    p.add_argument("--method", help="the .pte's method (default: forward, or its only one)")
    p.add_argument("--max-paths", type=int, default=MAX_PATHS, metavar="N",
                   help=f"refuse a program with more paths through its conditionals (default "
                   f"{MAX_PATHS})")
    p.add_argument("--pte-out", metavar="FILE",
                   help="also write the .pte made from FILE.py:NAME or a family program")
    common.programs.add_size_arguments(p, SIZE_OPTIONS)


class Paths(Exception):
    """Raised out of common.cli.run's capture when the program has several paths."""

    def __init__(self, traces, args):
        super().__init__("paths")
        self.traces, self.parsed = traces, args


def capture_args(a):
    traces = traces_of(a)
    if len(traces) == 1 and traces[0][0] == "main":
        if a.out and os.path.isdir(a.out):
            raise common.cli.UsageError(f"--out {a.out}: a folder, and the program has no "
                                        "conditional: name a plan file")
        return traces[0][1]
    raise Paths(traces, a)


def _per_path(argv, option, value):
    """argv with option's value replaced (or the option dropped where value is None)."""
    out, skip = [], False
    flag = "--" + option.replace("_", "-")
    for x in argv:
        if skip:
            skip = False
            continue
        if x == flag:
            skip = True
            continue
        if x.startswith(flag + "="):
            continue
        out.append(x)
    return out + ([flag, value] if value is not None else [])


def run_paths(argv, e, description):
    """One plan per path into the folder --out names (and the other outputs' folders), each
    through common.cli.run; nothing is written unless every path's trace is valid."""
    a = e.parsed
    if not a.out:
        print(f"{PROG}: the program has {len(e.traces)} paths through its conditionals "
              f"({', '.join(n for n, _ in e.traces)}): --out must name a folder", file=sys.stderr)
        return 2
    for opt in PER_PATH:
        d = getattr(a, opt)
        if d and os.path.exists(d) and not os.path.isdir(d):
            print(f"{PROG}: --{opt.replace('_', '-')} {d}: a file, and the program has "
                  f"{len(e.traces)} paths: name a folder (one file per path)", file=sys.stderr)
            return 2
    try:
        for _, raw in e.traces:
            common.validate(raw)
    except common.TraceError as err:
        print(f"{PROG}: {err}", file=sys.stderr)
        return 2
    made = [getattr(a, o) for o in PER_PATH if getattr(a, o) and not os.path.isdir(getattr(a, o))]
    for d in made:
        os.makedirs(d)
    ext = {"out": ".json", "problem_out": ".problem.csv", "problem_info_out": ".problem.json",
           "trace_out": ".trace.json"}
    index = ["path\tplan\tchoices"]
    for pname, raw in e.traces:
        args = list(argv)
        for opt in PER_PATH:
            d = getattr(a, opt)
            args = _per_path(args, opt, os.path.join(d, pname + ext[opt]) if d else None)
        args = _per_path(args, "pte_out", None)
        rc = common.cli.run(args, PROG, description, capture=lambda _a, raw=raw: raw,
                            add_arguments=add_arguments)
        if rc:
            for d in made:
                shutil.rmtree(d, ignore_errors=True)
            return rc
        choices = ", ".join(f"instruction {c['instruction']}: "
                            f"{'true' if c['predicate'] else 'false'}"
                            for c in raw["capture"]["choices"])
        index.append(f"{pname}\t{pname}.json\t{choices}")
    common.cli.write(os.path.join(a.out, "paths.tsv"), "\n".join(index) + "\n")
    return 0


def trace_of(name, given):
    """A bench program's one trace (the bench takes programs without conditionals)."""
    try:
        traces, _ = module_traces(name, given)
    except ExportError as e:
        raise common.cli.UsageError(str(e))
    if len(traces) != 1:
        raise common.cli.UsageError(f"{name}: {len(traces)} paths; the bench takes one")
    return traces[0][1]


def export_all(directory):
    here = os.path.dirname(os.path.abspath(__file__))
    code = common.programs.code_digest(here, os.path.join(here, "programs"))
    return common.programs.export_all(directory, PROG, BENCH, trace_of, code, versions())


DESCRIPTION = ("What ExecuTorch planned for a program, as an arena-plan/1 (a folder of one plan "
               "per path where it has conditionals): MODEL.pte, FILE.py:NAME (NAME() returns "
               "(module, tuple of example inputs[, ExecutorchBackendConfig fields])), or a "
               "family program by name.")


def _run(argv, prog, description, **kw):
    """common.cli.run, a program with several paths planned one plan per path."""
    try:
        return common.cli.run(argv, prog, description, **kw)
    except Paths as e:
        return run_paths(argv, e, description)


def main(argv):
    return common.programs.main(argv, PROG, DESCRIPTION, FAMILY, export_all, capture_args,
                                add_arguments, run=_run)
