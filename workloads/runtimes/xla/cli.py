"""scripts/xla-plan's body: a program (a user's FILE.py:NAME or one of the family's, by name)
compiled by XLA and planned through the shared layer (common.cli), the family's programs listed,
or the bench's plans exported and cached (--export-all)."""

import hashlib
import importlib.util
import inspect
import json
import os
import sys
import tempfile
import time

import common
import common.cli

from . import programs
from .capture import ExportError, capture, versions

SIZE_OPTIONS = ("layers", "d_model", "heads", "vocab", "seq", "batch", "tokens")
# The bench's programs (scripts/bench): small, so the export is seconds; decode 8 tokens.
BENCH = [("gpt2-forward", {"layers": 4}), ("gpt2-decode", {"layers": 4, "tokens": 8}),
         ("gpt2-train", {"layers": 2}), ("penzai-llama-forward", {"layers": 2}),
         ("penzai-llama-decode", {"layers": 2, "tokens": 8}),
         ("penzai-gptneox-forward", {"layers": 2}), ("llama-decode", {"layers": 6, "tokens": 12})]


def load_user(spec):
    """FILE.py:NAME -> the NAME function (it returns (function, example arguments))."""
    path, _, name = spec.rpartition(":")
    if not path or not name:
        raise common.cli.UsageError(f"{spec}: expected FILE.py:NAME or a program's name "
                                    f"({', '.join(programs.PROGRAMS)})")
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


def resolve(spec):
    """(program name, the function returning (function, args), source)."""
    if spec in programs.PROGRAMS:
        return spec, programs.get(spec), "the xla family"
    if ":" not in spec:
        raise common.cli.UsageError(f"{spec}: no such program (the family's: "
                                    f"{', '.join(programs.PROGRAMS)}; or FILE.py:NAME)")
    fn = load_user(spec)
    return spec.rpartition(":")[2], fn, os.path.abspath(spec.rpartition(":")[0])


def build(spec, given):
    """Run the program maker with the sizes given; (name, fn, args, sizes, source)."""
    name, maker, source = resolve(spec)
    accepted = programs.sizes(maker)
    extra = sorted(k for k in given if k not in accepted)
    if extra:
        raise common.cli.UsageError(
            f"{spec} takes no --{', --'.join(k.replace('_', '-') for k in extra)} "
            f"(its sizes: {', '.join(accepted) or 'none'})")
    sizes = dict(accepted, **given)
    try:
        made = maker(**given)
    except Exception as e:
        raise common.cli.UsageError(f"{spec}: making the program failed: {type(e).__name__}: {e}")
    if not (isinstance(made, tuple) and len(made) == 2 and callable(made[0])
            and isinstance(made[1], tuple)):
        raise common.cli.UsageError(
            f"{spec}: returned {type(made).__name__}, expected (function, tuple of example "
            "arguments)")
    return name, made[0], made[1], sizes, source


def trace_of(spec, given, capture_fn=capture, refusal=ExportError):
    """The program's trace by a compiler's capture (XLA's; IREE's passes its own)."""
    name, fn, args, sizes, source = build(spec, given)
    try:
        raw = capture_fn(fn, args, name=name, flags=sizes)
    except refusal as e:
        raise common.cli.UsageError(f"{spec}: {e}")
    raw["program"]["source"] = source
    return raw


def add_arguments(p):
    p.add_argument("program", nargs="?",
                   help="FILE.py:NAME (NAME() returns (function, tuple of example arguments)) "
                   "or one of the family's programs (--list-programs)")
    for k in SIZE_OPTIONS:
        p.add_argument("--" + k.replace("_", "-"), type=int, dest=k, metavar="N",
                       help=f"the program's {k.replace('_', ' ')} (where it takes one)")


def sizes_given(a):
    """The program and the sizes its options give (checked), from parsed arguments."""
    if not a.program:
        raise common.cli.UsageError("no program: FILE.py:NAME or a family program's name")
    given = {k: getattr(a, k) for k in SIZE_OPTIONS if getattr(a, k) is not None}
    for k, v in given.items():
        if v < 1:
            raise common.cli.UsageError(f"--{k.replace('_', '-')} {v}: must be at least 1")
    return a.program, given


def capture_args(a):
    return trace_of(*sizes_given(a))


def list_programs():
    for name, (module, function, group) in programs.PROGRAMS.items():
        fn = programs.get(name) if group == "xla" or _have(group) else None
        sizes = ", ".join(f"{k}={v}" for k, v in programs.sizes(fn).items()) if fn else \
            f"(needs the {group} group)"
        doc = (inspect.getdoc(fn) or "").split("\n")[0] if fn else ""
        print(f"{name}\t{sizes}" + (f"\t{doc}" if doc else ""))


def _have(group):
    return group != "xla-penzai" or importlib.util.find_spec("penzai") is not None


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


def export_all(directory, prog="xla-plan", trace=trace_of, digest=code_digest,
               versions_of=versions, refusals=False):
    """The bench's programs as clean, fault-B and fault-D plans plus the placement problem,
    cached under directory by program, sizes, versions and code; directory/index.tsv lists them.
    With refusals (IREE's), a program the compiler or the capture refuses is cached as refused
    and listed in directory/refused.tsv with the reason; otherwise a refusal fails the export."""
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    code = digest()
    vers = json.dumps(versions_of(), sort_keys=True)
    index, refused = ["model\tvariant\tplan\tproblem"], ["model\treason"]
    for name, given in BENCH:
        key = name + "-" + hashlib.sha256(
            f"{code} {vers} {json.dumps(given, sort_keys=True)}".encode()).hexdigest()[:12]
        base = os.path.join(directory, key)
        variants = {"clean": [], "fault-B": ["--plant-fault", "--fault-rule", "B"],
                    "fault-D": ["--plant-fault", "--fault-rule", "D"]}
        if refusals and os.path.exists(base + ".refused"):
            with open(base + ".refused") as f:
                refused.append(f"{name}\t{f.read().strip()}")
            continue
        if not all(os.path.exists(f"{base}-{v}.json") for v in variants) or \
                not os.path.exists(f"{base}.problem.csv"):
            start = time.perf_counter()
            try:
                raw = trace(name, given)
            except common.cli.UsageError as e:
                if not refusals:
                    raise
                reason = str(e).replace("\t", " ").replace("\n", " ")
                common.cli.write(base + ".refused", reason + "\n")
                refused.append(f"{name}\t{reason}")
                print(f"{prog}: refused {name}: {reason}", file=sys.stderr)
                continue
            secs = time.perf_counter() - start
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "trace.json")
                common.cli.write(path, json.dumps(raw))
                for v, extra in variants.items():
                    argv = ["--from-trace", path, "--out", f"{base}-{v}.tmp"] + extra
                    if v == "clean":
                        argv += ["--problem-out", f"{base}.problem.tmp"]
                    if common.cli.run(argv, prog, "", capture=capture_args,
                                      add_arguments=add_arguments):
                        raise common.cli.UsageError(f"exporting {name} ({v}) failed")
            with open(f"{base}-clean.tmp") as f:
                plan = json.load(f)
            plan["meta"]["export_seconds"] = round(secs + plan["meta"]["plan_seconds"], 3)
            common.cli.write(f"{base}-clean.tmp", json.dumps(plan) + "\n")
            for v in variants:
                os.replace(f"{base}-{v}.tmp", f"{base}-{v}.json")
            os.replace(f"{base}.problem.tmp", f"{base}.problem.csv")
            print(f"{prog}: exported {name} in {secs:.1f} s", file=sys.stderr)
        index += [f"{name}\t{v}\t{base}-{v}.json\t{base}.problem.csv" for v in variants]
    if refusals:
        common.cli.write(os.path.join(directory, "refused.tsv"), "\n".join(refused) + "\n")
    common.cli.write(os.path.join(directory, "index.tsv"), "\n".join(index) + "\n")
    return 0


def main(argv):
    if argv[:1] == ["--list-programs"]:
        if len(argv) != 1:
            print("usage: scripts/xla-plan --list-programs", file=sys.stderr)
            return 2
        list_programs()
        return 0
    if argv[:1] == ["--export-all"]:
        if len(argv) != 2:
            print("usage: scripts/xla-plan --export-all DIR", file=sys.stderr)
            return 2
        try:
            return export_all(argv[1])
        except (common.cli.UsageError, common.TraceError) as e:
            print(f"xla-plan: {e}", file=sys.stderr)
            return 2
    return common.cli.run(
        argv, "xla-plan",
        "What XLA (jax, CPU) planned for a program, as an arena-plan/1: FILE.py:NAME, where "
        "NAME() returns (function, tuple of example arguments), or a family program by name.",
        capture=capture_args, add_arguments=add_arguments)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
