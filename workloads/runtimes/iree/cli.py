"""scripts/iree-plan's body: a program (a user's FILE.py:NAME or one of the xla family's, by
name) lowered by jax, compiled by IREE and planned through the shared layer (common.cli); the
programs listed; or the bench's plans exported and cached (--export-all). The program convention
and the sizes are scripts/xla-plan's (xla.cli)."""

import os
import sys

import common.programs
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


def export_all(directory):
    """xla-plan's export of the bench's programs, compiled by IREE; directory/refused.tsv lists
    the programs IREE or the capture refused, with the reason (a refusal is cached too)."""
    code = common.programs.code_digest(xla_cli.HERE, os.path.join(xla_cli.HERE, "programs"),
                                       os.path.dirname(os.path.abspath(__file__)))
    return common.programs.export_all(directory, "iree-plan", BENCH, trace_of, code, versions(),
                                      refusals=True)


def main(argv):
    return common.programs.main(
        argv, "iree-plan",
        "What IREE (iree-compile, llvm-cpu) planned for a JAX program, as an arena-plan/1: "
        "FILE.py:NAME, where NAME() returns (function, tuple of example arguments), or an xla "
        "family program by name.",
        xla_cli.FAMILY, export_all, capture_args, xla_cli.add_arguments)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
