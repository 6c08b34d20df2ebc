"""scripts/iree-plan's body: a program (a user's FILE.py:NAME or one of the xla family's, by
name) lowered by jax, compiled by IREE and planned through the shared layer (common.cli); the
programs listed; or the bench's plans exported and cached (--export-all). The program convention
and the sizes are scripts/xla-plan's (xla.cli)."""

import hashlib
import os
import sys

import common
import common.cli
from xla import cli as xla_cli

from .capture import ExportError, capture, versions

# The bench's programs: the xla family's at the xla bench's sizes, so that the report puts the
# two compilers' plans side by side (gpt2-train is refused by iree-compile 3.13.0: the bench
# lists the refusal with its reason).
BENCH = xla_cli.BENCH


def trace_of(spec, given):
    return xla_cli.trace_of(spec, given, capture_fn=capture, refusal=ExportError)


def capture_args(a):
    return trace_of(*xla_cli.sizes_given(a))


def code_digest():
    here = os.path.dirname(os.path.abspath(__file__))
    h = hashlib.sha256(xla_cli.code_digest().encode())
    for f in sorted(os.listdir(here)):
        if f.endswith(".py"):
            with open(os.path.join(here, f), "rb") as fh:
                h.update(f.encode() + b"\0" + fh.read())
    return h.hexdigest()[:16]


def export_all(directory):
    """xla-plan's export of the bench's programs, compiled by IREE; directory/refused.tsv lists
    the programs IREE or the capture refused, with the reason (a refusal is cached too)."""
    return xla_cli.export_all(directory, "iree-plan", trace_of, code_digest, versions,
                              refusals=True)


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
