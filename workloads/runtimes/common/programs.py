"""The program side of the captures' command lines (scripts/xla-plan, iree-plan and
executorch-plan), around common.cli.run: a program named by its family's name or as a user's
FILE.py:NAME, its sizes as options (the maker's keyword defaults), the family listed
(--list-programs), the bench's programs exported and cached (--export-all), and main's dispatch
to those. A capture brings its Family, what its maker must return, and its capture."""

import hashlib
import importlib
import importlib.util
import inspect
import json
import os
import sys
import time

from . import cli
from .trace import TraceError

VARIANTS = {"clean": [], "fault-B": ["--plant-fault", "--fault-rule", "B"],
            "fault-D": ["--plant-fault", "--fault-rule", "D"]}


def sizes(fn):
    """The sizes a program maker takes, with their defaults."""
    return {k: p.default for k, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty}


def getter(package, programs):
    """get(name) for a family package whose PROGRAMS maps name -> (module, function, ...)."""
    def get(name):
        module, function = programs[name][:2]
        return getattr(importlib.import_module(f"{package}.{module}"), function)
    return get


class Family:
    """A capture's programs: names (name -> (module, function[, requirements group])), get,
    label (a program's source in its trace), forms (how else a program is named, for messages)
    and have(group): whether a group's packages are installed (listing a program needs them)."""

    def __init__(self, names, get, label, forms="FILE.py:NAME", have=lambda group: True):
        self.names, self.get, self.label, self.forms, self.have = names, get, label, forms, have

    def listing(self):
        """--list-programs: NAME, its sizes and its doc's first line, tab-separated."""
        for name, entry in self.names.items():
            fn = self.get(name) if len(entry) < 3 or self.have(entry[2]) else None
            shown = ", ".join(f"{k}={v}" for k, v in sizes(fn).items()) if fn else \
                f"(needs the {entry[2]} group)"
            doc = (inspect.getdoc(fn) or "").split("\n")[0] if fn else ""
            print(f"{name}\t{shown}" + (f"\t{doc}" if doc else ""))


def load_user(spec, family):
    """FILE.py:NAME -> the NAME function."""
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise cli.UsageError(f"{spec}: expected {family.forms} or a program's name "
                             f"({', '.join(family.names)})")
    if not os.path.isfile(path):
        raise cli.UsageError(f"{path}: no such file")
    mod_name = "arenaref_user_" + hashlib.sha256(os.path.abspath(path).encode()).hexdigest()[:8]
    try:
        loader = importlib.util.spec_from_file_location(mod_name, path)
        if loader is None:
            raise ImportError("not a Python file")
        module = importlib.util.module_from_spec(loader)
        sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
        loader.loader.exec_module(module)
    except Exception as e:  # the user's code: whatever it raises is reported, not a traceback
        raise cli.UsageError(f"{path}: importing it failed: {type(e).__name__}: {e}")
    fn = getattr(module, name, None)
    if fn is None:
        raise cli.UsageError(f"{path} defines no {name}")
    if not callable(fn):
        raise cli.UsageError(f"{path}: {name} is not a function")
    return fn


def make(spec, given, family):
    """Run the maker spec names (a family program, or FILE.py:NAME) with the sizes given:
    (name, what it returned, its sizes, source); the caller checks what it returned."""
    if spec in family.names:
        name, maker, source = spec, family.get(spec), family.label
    elif ":" in spec:
        name, maker = spec.rpartition(":")[2], load_user(spec, family)
        source = os.path.abspath(spec.rpartition(":")[0])
    else:
        raise cli.UsageError(f"{spec}: no such program (the family's: "
                             f"{', '.join(family.names)}; or {family.forms})")
    accepted = sizes(maker)
    extra = sorted(k for k in given if k not in accepted)
    if extra:
        raise cli.UsageError(
            f"{spec} takes no --{', --'.join(k.replace('_', '-') for k in extra)} "
            f"(its sizes: {', '.join(accepted) or 'none'})")
    try:
        made = maker(**given)
    except Exception as e:
        raise cli.UsageError(f"{spec}: making the program failed: {type(e).__name__}: {e}")
    return name, made, dict(accepted, **given), source


def add_size_arguments(p, options):
    for k in options:
        p.add_argument("--" + k.replace("_", "-"), type=int, dest=k, metavar="N",
                       help=f"the program's {k.replace('_', ' ')} (where it takes one)")


def given_sizes(a, options, family):
    """(program, {size: value}) from parsed arguments: a program is named, each size >= 1."""
    if not a.program:
        raise cli.UsageError(f"no program: {family.forms} or a family program's name")
    given = {k: getattr(a, k) for k in options if getattr(a, k) is not None}
    for k, v in given.items():
        if v < 1:
            raise cli.UsageError(f"--{k.replace('_', '-')} {v}: must be at least 1")
    return a.program, given


def code_digest(*dirs):
    """The .py files of dirs and of the shared layer: an export cache's key follows them."""
    h = hashlib.sha256()
    for d in (*dirs, os.path.dirname(os.path.abspath(__file__))):
        for f in sorted(os.listdir(d)):
            if f.endswith(".py"):
                with open(os.path.join(d, f), "rb") as fh:
                    h.update(f.encode() + b"\0" + fh.read())
    return h.hexdigest()[:16]


def export_all(directory, prog, bench, trace, code, versions, refusals=False):
    """The bench's programs ([(name, sizes)]) as clean, fault-B and fault-D plans plus the
    placement problem, cached under directory by program, sizes, versions and code;
    directory/index.tsv lists them. trace(name, sizes) -> the raw trace. With refusals, a
    program trace refuses (UsageError) is cached as refused and listed in directory/refused.tsv
    with the reason; otherwise a refusal fails the export."""
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    vers = json.dumps(versions, sort_keys=True)
    index, refused = ["model\tvariant\tplan\tproblem"], ["model\treason"]
    for name, given in bench:
        key = name + "-" + hashlib.sha256(
            f"{code} {vers} {json.dumps(given, sort_keys=True)}".encode()).hexdigest()[:12]
        base = os.path.join(directory, key)
        if refusals and os.path.exists(base + ".refused"):
            with open(base + ".refused") as f:
                refused.append(f"{name}\t{f.read().strip()}")
            continue
        if not all(os.path.exists(f"{base}-{v}.json") for v in VARIANTS) or \
                not os.path.exists(f"{base}.problem.csv"):
            start = time.perf_counter()
            try:
                raw = trace(name, given)
            except cli.UsageError as e:
                if not refusals:
                    raise
                reason = str(e).replace("\t", " ").replace("\n", " ")
                cli.write(base + ".refused", reason + "\n")
                refused.append(f"{name}\t{reason}")
                print(f"{prog}: refused {name}: {reason}", file=sys.stderr)
                continue
            secs = time.perf_counter() - start
            for v, extra in VARIANTS.items():
                argv = ["--out", f"{base}-{v}.tmp"] + extra
                if v == "clean":
                    argv += ["--problem-out", f"{base}.problem.tmp"]
                if cli.run(argv, prog, "", capture=lambda _a: raw):
                    raise cli.UsageError(f"exporting {name} ({v}) failed")
            with open(f"{base}-clean.tmp") as f:
                plan = json.load(f)
            plan["meta"]["export_seconds"] = round(secs + plan["meta"]["plan_seconds"], 3)
            cli.write(f"{base}-clean.tmp", json.dumps(plan) + "\n")
            for v in VARIANTS:
                os.replace(f"{base}-{v}.tmp", f"{base}-{v}.json")
            os.replace(f"{base}.problem.tmp", f"{base}.problem.csv")
            print(f"{prog}: exported {name} in {secs:.1f} s", file=sys.stderr)
        index += [f"{name}\t{v}\t{base}-{v}.json\t{base}.problem.csv" for v in VARIANTS]
    if refusals:
        cli.write(os.path.join(directory, "refused.tsv"), "\n".join(refused) + "\n")
    cli.write(os.path.join(directory, "index.tsv"), "\n".join(index) + "\n")
    return 0


def main(argv, prog, description, family, export_all, capture, add_arguments, errors=(),
         run=cli.run):
    """--list-programs, --export-all DIR, or run(argv, ...) (common.cli.run's signature): one
    program captured and planned. errors: what else export_all may raise (exit 2)."""
    if argv[:1] == ["--list-programs"]:
        if len(argv) != 1:
            print(f"usage: scripts/{prog} --list-programs", file=sys.stderr)
            return 2
        family.listing()
        return 0
    if argv[:1] == ["--export-all"]:
        if len(argv) != 2:
            print(f"usage: scripts/{prog} --export-all DIR", file=sys.stderr)
            return 2
        try:
            return export_all(argv[1])
        except (cli.UsageError, TraceError, *errors) as e:
            print(f"{prog}: {e}", file=sys.stderr)
            return 2
    return run(argv, prog, description, capture=capture, add_arguments=add_arguments)
