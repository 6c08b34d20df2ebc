"""scripts/xla-plan's body: a program (a user's FILE.py:NAME or one of the family's, by name)
compiled by XLA and planned through the shared layer (common.cli); the family's programs
listed, or the bench's plans exported and cached (--export-all): common.programs."""

import importlib.util
import os
import sys

import common
import common.cli
import common.programs

from . import programs
from .capture import ExportError, capture, versions

SIZE_OPTIONS = ("layers", "d_model", "heads", "vocab", "seq", "batch", "tokens")
# The bench's programs (scripts/bench): small, so the export is seconds; decode 8 tokens.
BENCH = [("gpt2-forward", {"layers": 4}), ("gpt2-decode", {"layers": 4, "tokens": 8}),
         ("gpt2-train", {"layers": 2}), ("penzai-llama-forward", {"layers": 2}),
         ("penzai-llama-decode", {"layers": 2, "tokens": 8}),
         ("penzai-gptneox-forward", {"layers": 2}), ("llama-decode", {"layers": 6, "tokens": 12})]
FAMILY = common.programs.Family(
    programs.PROGRAMS, programs.get, "the xla family",
    have=lambda group: group != "xla-penzai" or importlib.util.find_spec("penzai") is not None)
HERE = os.path.dirname(os.path.abspath(__file__))


def build(spec, given):
    """Run the program maker with the sizes given; (name, fn, args, sizes, source)."""
    name, made, sizes, source = common.programs.make(spec, given, FAMILY)
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
    common.programs.add_size_arguments(p, SIZE_OPTIONS)


def sizes_given(a):
    """The program and the sizes its options give (checked), from parsed arguments."""
    return common.programs.given_sizes(a, SIZE_OPTIONS, FAMILY)


def capture_args(a):
    return trace_of(*sizes_given(a))


def code_digest():
    return common.programs.code_digest(HERE, os.path.join(HERE, "programs"))


def export_all(directory):
    return common.programs.export_all(directory, "xla-plan", BENCH, trace_of, code_digest(),
                                      versions())


def main(argv):
    return common.programs.main(
        argv, "xla-plan",
        "What XLA (jax, CPU) planned for a program, as an arena-plan/1: FILE.py:NAME, where "
        "NAME() returns (function, tuple of example arguments), or a family program by name.",
        FAMILY, export_all, capture_args, add_arguments)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
