"""scripts/executorch-plan's body: a program (a .pte file; a user's FILE.py:NAME; or one of the
executorch family's, by name) captured and planned through the shared layer (common.cli): one
plan, or a folder of one plan per path where the program has conditionals; the family's programs
listed; or the bench's plans exported and cached (--export-all)."""

import hashlib
import importlib.util
import inspect
import json
import os
import shutil
import sys
import tempfile
import time

import common
import common.cli

from . import programs
from .capture import MAX_PATHS, ExportError, capture, capture_module, versions

PROG = "executorch-plan"
SIZE_OPTIONS = ("layers", "d_model", "heads", "kv_heads", "vocab", "seq", "cache", "channels",
                "size", "batch")
# The bench's programs (scripts/bench): small, so an export is seconds.
BENCH = [("llama-forward", {}), ("llama-decode", {}), ("llama-decode-reinplace", {}),
         ("convnet", {}), ("split-cat", {})]
PER_PATH = ("out", "problem_out", "problem_info_out", "trace_out")


def load_user(spec):
    """FILE.py:NAME -> the NAME function."""
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise common.cli.UsageError(f"{spec}: expected MODEL.pte, FILE.py:NAME or a program's "
                                    f"name ({', '.join(programs.PROGRAMS)})")
    if not os.path.isfile(path):
        raise common.cli.UsageError(f"{path}: no such file")
    mod_name = "arenaref_user_" + hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:8]
    try:
        loader = importlib.util.spec_from_file_location(mod_name, path)
        if loader is None:
            raise ImportError("not a Python file")
        module = importlib.util.module_from_spec(loader)
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        loader.loader.exec_module(module)
    except Exception as e:  # the user's code: whatever it raises is reported, not a traceback
        raise common.cli.UsageError(f"{path}: importing it failed: {type(e).__name__}: {e}")
    fn = getattr(module, name, None)
    if fn is None:
        raise common.cli.UsageError(f"{path} defines no {name}")
    if not callable(fn):
        raise common.cli.UsageError(f"{path}: {name} is not a function")
    return fn


def build(spec, given):
    """(name, module, inputs, config, sizes, source) of a family program or FILE.py:NAME."""
    if spec in programs.PROGRAMS:
        name, maker, source = spec, programs.get(spec), "the executorch family"
    elif ":" in spec:
        name, maker = spec.rpartition(":")[2], load_user(spec)
        source = os.path.abspath(spec.rpartition(":")[0])
    else:
        raise common.cli.UsageError(f"{spec}: no such program (the family's: "
                                    f"{', '.join(programs.PROGRAMS)}; or MODEL.pte, or "
                                    "FILE.py:NAME)")
    accepted = programs.sizes(maker)
    extra = sorted(k for k in given if k not in accepted)
    if extra:
        raise common.cli.UsageError(
            f"{spec} takes no --{', --'.join(k.replace('_', '-') for k in extra)} "
            f"(its sizes: {', '.join(accepted) or 'none'})")
    try:
        made = maker(**given)
    except Exception as e:
        raise common.cli.UsageError(f"{spec}: making the program failed: {type(e).__name__}: {e}")
    ok = isinstance(made, tuple) and len(made) in (2, 3) and callable(made[0]) and \
        isinstance(made[1], (tuple, list))
    if not ok:
        raise common.cli.UsageError(
            f"{spec}: returned {type(made).__name__}, expected (module, tuple of example inputs)"
            " or (module, inputs, ExecutorchBackendConfig fields)")
    config = made[2] if len(made) == 3 else None
    return name, made[0], tuple(made[1]), config, dict(accepted, **given), source


def traces_of(a):
    """[(path, trace)] for the parsed arguments' program."""
    spec, given = a.program, {k: getattr(a, k) for k in SIZE_OPTIONS
                              if getattr(a, k, None) is not None}
    if not spec:
        raise common.cli.UsageError("no program: MODEL.pte, FILE.py:NAME or a family program")
    for k, v in given.items():
        if v < 1:
            raise common.cli.UsageError(f"--{k.replace('_', '-')} {v}: must be at least 1")
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
            name, module, inputs, config, sizes, source = build(spec, given)
            if a.method not in (None, "forward"):
                raise common.cli.UsageError(f"{spec}: an exported module has one method, "
                                            "forward")
            out, pte = capture_module(module, inputs, config, name, a.max_paths,
                                      {"source": source, "sizes": sizes,
                                       "config": _config_text(config)})
    except ExportError as e:
        raise common.cli.UsageError(f"{spec}: {e}")
    if a.pte_out:
        if pte is None:
            raise common.cli.UsageError("--pte-out: the program is a .pte already")
        _write_bytes(a.pte_out, pte)
    return out


def _config_text(config):
    if config is None or isinstance(config, dict):
        return config
    return repr(config)


def _write_bytes(path, data):
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, path)


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
    for k in SIZE_OPTIONS:
        p.add_argument("--" + k.replace("_", "-"), type=int, dest=k, metavar="N",
                       help=f"the program's {k.replace('_', ' ')} (where it takes one)")


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


def list_programs():
    for name in programs.PROGRAMS:
        fn = programs.get(name)
        sizes = ", ".join(f"{k}={v}" for k, v in programs.sizes(fn).items())
        doc = (inspect.getdoc(fn) or "").split("\n")[0]
        print(f"{name}\t{sizes}\t{doc}")


def code_digest():
    here = os.path.dirname(os.path.abspath(__file__))
    common_dir = os.path.dirname(common.__file__)
    h = hashlib.sha256()
    for d in (here, os.path.join(here, "programs"), common_dir):
        for f in sorted(os.listdir(d)):
            if f.endswith(".py"):
                with open(os.path.join(d, f), "rb") as fh:
                    h.update(f.encode() + b"\0" + fh.read())
    return h.hexdigest()[:16]


def export_all(directory):
    """The bench's programs as clean, fault-B and fault-D plans plus the placement problem,
    cached under directory by program, sizes, versions and code; directory/index.tsv lists
    them."""
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    code, vers = code_digest(), json.dumps(versions(), sort_keys=True)
    index = ["model\tvariant\tplan\tproblem"]
    variants = {"clean": [], "fault-B": ["--plant-fault", "--fault-rule", "B"],
                "fault-D": ["--plant-fault", "--fault-rule", "D"]}
    for name, given in BENCH:
        key = name + "-" + hashlib.sha256(
            f"{code} {vers} {json.dumps(given, sort_keys=True)}".encode()).hexdigest()[:12]
        base = os.path.join(directory, key)
        if not all(os.path.exists(f"{base}-{v}.json") for v in variants) or \
                not os.path.exists(f"{base}.problem.csv"):
            start = time.perf_counter()
            made = build(name, given)
            traces, _ = capture_module(made[1], made[2], made[3], name, MAX_PATHS,
                                       {"source": made[5], "sizes": made[4],
                                        "config": _config_text(made[3])})
            if len(traces) != 1:
                raise common.cli.UsageError(f"{name}: {len(traces)} paths; the bench takes one")
            raw = traces[0][1]
            secs = time.perf_counter() - start
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "trace.json")
                common.cli.write(path, json.dumps(raw))
                for v, extra in variants.items():
                    argv = ["--from-trace", path, "--out", f"{base}-{v}.tmp"] + extra
                    if v == "clean":
                        argv += ["--problem-out", f"{base}.problem.tmp"]
                    if common.cli.run(argv, PROG, "", capture=capture_args,
                                      add_arguments=add_arguments):
                        raise common.cli.UsageError(f"exporting {name} ({v}) failed")
            with open(f"{base}-clean.tmp") as f:
                plan = json.load(f)
            plan["meta"]["export_seconds"] = round(secs + plan["meta"]["plan_seconds"], 3)
            common.cli.write(f"{base}-clean.tmp", json.dumps(plan) + "\n")
            for v in variants:
                os.replace(f"{base}-{v}.tmp", f"{base}-{v}.json")
            os.replace(f"{base}.problem.tmp", f"{base}.problem.csv")
            print(f"{PROG}: exported {name} in {secs:.1f} s", file=sys.stderr)
        index += [f"{name}\t{v}\t{base}-{v}.json\t{base}.problem.csv" for v in variants]
    common.cli.write(os.path.join(directory, "index.tsv"), "\n".join(index) + "\n")
    return 0


DESCRIPTION = ("What ExecuTorch planned for a program, as an arena-plan/1 (a folder of one plan "
               "per path where it has conditionals): MODEL.pte, FILE.py:NAME (NAME() returns "
               "(module, tuple of example inputs[, ExecutorchBackendConfig fields])), or a "
               "family program by name.")


def main(argv):
    if argv[:1] == ["--list-programs"]:
        if len(argv) != 1:
            print(f"usage: scripts/{PROG} --list-programs", file=sys.stderr)
            return 2
        list_programs()
        return 0
    if argv[:1] == ["--export-all"]:
        if len(argv) != 2:
            print(f"usage: scripts/{PROG} --export-all DIR", file=sys.stderr)
            return 2
        try:
            return export_all(argv[1])
        except (common.cli.UsageError, common.TraceError, ExportError) as e:
            print(f"{PROG}: {e}", file=sys.stderr)
            return 2
    try:
        return common.cli.run(argv, PROG, DESCRIPTION, capture=capture_args,
                              add_arguments=add_arguments)
    except Paths as e:
        return run_paths(argv, e, DESCRIPTION)
