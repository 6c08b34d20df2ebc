"""scripts/iree-plan's body: a program (a user's FILE.py:NAME or one of the xla family's, by
name) lowered by jax, compiled by IREE and planned through the shared layer (common.cli); the
programs listed; or the bench's plans exported and cached (--export-all). The program convention
and the sizes are scripts/xla-plan's (xla.cli)."""

import hashlib
import json
import os
import sys
import tempfile
import time

import common
import common.cli
from xla import cli as xla_cli

from .capture import ExportError, capture, versions

# The bench's programs: the xla family's at the xla bench's sizes, so that the report puts the
# two compilers' plans side by side (gpt2-train is refused by iree-compile 3.13.0: the bench
# lists the refusal with its reason).
BENCH = xla_cli.BENCH


def trace_of(spec, given):
    name, fn, args, sizes, source = xla_cli.build(spec, given)
    try:
        raw = capture(fn, args, name=name, flags=sizes)
    except ExportError as e:
        raise common.cli.UsageError(f"{spec}: {e}")
    raw["program"]["source"] = source
    return raw


def capture_args(a):
    if not a.program:
        raise common.cli.UsageError("no program: FILE.py:NAME or a family program's name")
    given = {k: getattr(a, k) for k in xla_cli.SIZE_OPTIONS if getattr(a, k) is not None}
    for k, v in given.items():
        if v < 1:
            raise common.cli.UsageError(f"--{k.replace('_', '-')} {v}: must be at least 1")
    return trace_of(a.program, given)


def code_digest():
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256(xla_cli.code_digest().encode())
    for f in sorted(os.listdir(here)):
        if f.endswith(".py"):
            with open(os.path.join(here, f), "rb") as fh:
                h.update(f.encode() + b"\0" + fh.read())
    return h.hexdigest()[:16]


def export_all(directory):
    """The bench's programs as clean, fault-B and fault-D plans plus the placement problem,
    cached under directory by program, sizes, versions and code; directory/index.tsv lists
    them, directory/refused.tsv the programs IREE or the capture refused, with the reason."""
    directory = os.path.abspath(directory)
    os.makedirs(directory, exist_ok=True)
    code = code_digest()
    vers = json.dumps(versions(), sort_keys=True)
    index, refused = ["model\tvariant\tplan\tproblem"], ["model\treason"]
    for name, given in BENCH:
        key = name + "-" + hashlib.sha256(
            f"{code} {vers} {json.dumps(given, sort_keys=True)}".encode()).hexdigest()[:12]
        base = os.path.join(directory, key)
        variants = {"clean": [], "fault-B": ["--plant-fault", "--fault-rule", "B"],
                    "fault-D": ["--plant-fault", "--fault-rule", "D"]}
        if os.path.exists(base + ".refused"):
            with open(base + ".refused") as f:
                refused.append(f"{name}\t{f.read().strip()}")
            continue
        if not all(os.path.exists(f"{base}-{v}.json") for v in variants) or \
                not os.path.exists(f"{base}.problem.csv"):
            start = time.perf_counter()
            try:
                raw = trace_of(name, given)
            except common.cli.UsageError as e:
                reason = str(e).replace("\t", " ").replace("\n", " ")
                common.cli.write(base + ".refused", reason + "\n")
                refused.append(f"{name}\t{reason}")
                print(f"iree-plan: refused {name}: {reason}", file=sys.stderr)
                continue
            secs = time.perf_counter() - start
            with tempfile.TemporaryDirectory() as tmp:
                trace = os.path.join(tmp, "trace.json")
                common.cli.write(trace, json.dumps(raw))
                for v, extra in variants.items():
                    argv = ["--from-trace", trace, "--out", f"{base}-{v}.tmp"] + extra
                    if v == "clean":
                        argv += ["--problem-out", f"{base}.problem.tmp"]
                    if common.cli.run(argv, "iree-plan", "", capture=capture_args,
                                      add_arguments=xla_cli.add_arguments):
                        raise common.cli.UsageError(f"exporting {name} ({v}) failed")
            with open(f"{base}-clean.tmp") as f:
                plan = json.load(f)
            plan["meta"]["export_seconds"] = round(secs + plan["meta"]["plan_seconds"], 3)
            common.cli.write(f"{base}-clean.tmp", json.dumps(plan) + "\n")
            for v in variants:
                os.replace(f"{base}-{v}.tmp", f"{base}-{v}.json")
            os.replace(f"{base}.problem.tmp", f"{base}.problem.csv")
            print(f"iree-plan: exported {name} in {secs:.1f} s", file=sys.stderr)
        index += [f"{name}\t{v}\t{base}-{v}.json\t{base}.problem.csv" for v in variants]
    common.cli.write(os.path.join(directory, "refused.tsv"), "\n".join(refused) + "\n")
    common.cli.write(os.path.join(directory, "index.tsv"), "\n".join(index) + "\n")
    return 0


def main(argv):
    if argv[:1] == ["--list-programs"]:
        if len(argv) != 1:
            print("usage: scripts/iree-plan --list-programs", file=sys.stderr)
            return 2
        xla_cli.list_programs()
        return 0
    if argv[:1] == ["--export-all"]:
        if len(argv) != 2:
            print("usage: scripts/iree-plan --export-all DIR", file=sys.stderr)
            return 2
        try:
            return export_all(argv[1])
        except (common.cli.UsageError, common.TraceError) as e:
            print(f"iree-plan: {e}", file=sys.stderr)
            return 2
    return common.cli.run(
        argv, "iree-plan",
        "What IREE (iree-compile, llvm-cpu) planned for a JAX program, as an arena-plan/1: "
        "FILE.py:NAME, where NAME() returns (function, tuple of example arguments), or an xla "
        "family program by name.",
        capture=capture_args, add_arguments=xla_cli.add_arguments)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
