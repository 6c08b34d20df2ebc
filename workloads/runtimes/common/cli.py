"""The command line every runtime's exporter shares: capture (or --from-trace), then plan,
fault, problem. Exit 0 a plan was written (recorded as the runtime planned it, sound or not:
the certificate judges it), 2 a malformed trace, bad input or a program it cannot express."""

import argparse
import json
import os
import tempfile
import sys
import time

from . import export, problem, validate
from .faults import FAULT_KINDS
from .trace import TraceError, load


def write(path, text):
    """Whole or not at all: a reader (or another writer of the same file) never sees a part.
    A path that is not a regular file (/dev/null, /dev/stdout, a FIFO) is written to as it is:
    renaming a temporary over it would replace the device with a file."""
    if os.path.exists(path) and not os.path.isfile(path):
        with open(path, "w") as f:
            f.write(text)
        return
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(os.path.abspath(path)), prefix=".tmp-")
    mask = os.umask(0)
    os.umask(mask)
    try:
        os.fchmod(fd, 0o666 & ~mask)  # as open() would make it, not mkstemp's 0600
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def add_common_arguments(p):
    p.add_argument("--out", help="write the plan here (default: standard output)")
    p.add_argument("--plant-fault", action="store_true",
                   help="plant one fault; meta.fault says which and the verdict class expected")
    p.add_argument("--fault-rule", choices=["any", "B", "C", "D"], default="any",
                   help="with --plant-fault: the class wanted: B (a value moved onto one live "
                   "at once, meeting in a phase), D (an op made in place over an input read "
                   "later), C (a word moved off its phase's planes); any: a moved value, B or D")
    p.add_argument("--fault-kind", choices=list(FAULT_KINDS),
                   help="with --plant-fault: the fault itself (default from --fault-rule): move, "
                   "inplace, word, or reads (an in-place update made to read, across elements, "
                   "the bytes it writes: rule D)")
    p.add_argument("--fault-seed", type=int, default=0,
                   help="with --plant-fault: which candidate (default 0)")
    p.add_argument("--problem-out", help="also write the placement problem "
                   "(id,lower,upper,size,alignment; a row per run of a buffer's lifetime)")
    p.add_argument("--problem-info-out",
                   help="also write the problem's planned_size, max_live and rows as JSON")
    p.add_argument("--trace-out", help="also write the captured trace (arena-trace/1)")


class UsageError(Exception):
    """Bad input that is not the trace's fault (exit 2)."""


def run(argv, prog, description, capture=None, add_arguments=None):
    """capture(args) -> a raw trace (dict), raising TraceError or UsageError to refuse; without
    capture, the program reads the trace file given as its argument."""
    p = argparse.ArgumentParser(prog=prog, description=description)
    if capture is None:
        p.add_argument("trace", help="an arena-trace/1 file (- for standard input)")
    else:
        p.add_argument("--from-trace", help="plan a trace written by --trace-out, not a capture")
    if add_arguments:
        add_arguments(p)
    add_common_arguments(p)
    a = p.parse_args(argv)
    try:
        if a.fault_seed < 0:
            raise UsageError(f"--fault-seed {a.fault_seed}: must be at least 0")
        start = time.perf_counter()
        src = a.trace if capture is None else a.from_trace
        if src == "-":
            try:
                raw = json.load(sys.stdin)
            except ValueError as e:
                raise TraceError(f"standard input: not JSON: {e}")
        elif src:
            raw = load(src)
        else:
            raw = capture(a)
        captured = time.perf_counter()
        if a.trace_out:
            write(a.trace_out, json.dumps(raw, indent=1) + "\n")
        clean = validate(raw)
        prob = problem(clean)
        if a.plant_fault:
            plan, _ = export(raw, a.fault_rule, a.fault_seed, a.fault_kind)
        else:
            plan, _ = export(raw)
        done = time.perf_counter()
        plan["meta"]["capture_seconds"] = round(captured - start, 3)
        plan["meta"]["plan_seconds"] = round(done - captured, 3)
        plan["meta"]["placement"] = {"planned_size": prob["planned_size"],
                                     "max_live": prob["max_live"], "rows": len(prob["rows"]),
                                     "buffers": len(prob["buffers"]), "order": prob["order"]}
        text = json.dumps(plan) + "\n"
        if a.out:
            write(a.out, text)
        else:
            sys.stdout.write(text)
        if a.problem_out:
            write(a.problem_out, prob["csv"])
        if a.problem_info_out:
            info = {k: prob[k] for k in ("planned_size", "max_live", "order", "regions")}
            info["rows"] = [{k: r[k] for k in ("id", "group", "lower", "upper", "size",
                                               "alignment", "values")} for r in prob["rows"]]
            write(a.problem_info_out, json.dumps(info) + "\n")
        c, m = plan["meta"]["counts"], plan["meta"]
        loops = ", ".join(f"{l['iterations']}x[{l['first']},{l['first'] + l['count']})"
                          for l in m["loops"]) or "none"
        print(f"{prog}: {m['program']['name']}: {c['ops']} ops ({c['ops_executed']} executed), "
              f"loops {loops}, {c['globals']} globals, {c['planes']} planes, "
              f"{c['in_place_updates']} in-place updates; planned size {prob['planned_size']}, "
              f"max-live bound {prob['max_live']}"
              + (f"; fault {m['fault']['kind']} (expect rule {m['fault']['expect_class']})"
                 if "fault" in m else ""), file=sys.stderr)
        return 0
    except (TraceError, UsageError) as e:
        print(f"{prog}: {e}", file=sys.stderr)
        return 2


def main():
    sys.exit(run(sys.argv[1:], "trace-plan",
                 "Plan an arena-trace/1 (workloads/runtimes/TRACE.md) as an arena-plan/1."))
