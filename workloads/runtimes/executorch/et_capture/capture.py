"""ExecuTorch capture: what ExecuTorch planned for a program, as arena-trace/1 traces, one per
path through its JumpFalseCalls (a program without conditionals has one, `main`).

`capture(pte)` reads a .pte (bytes) with the wheel alone; `capture_module(module, inputs,
config)` makes the .pte first (lowering.lower) and adds what the exported graph knows (node names,
views and their bases, mutable buffers). `export(...)` is the Python call: the plans (dicts),
written where asked. A program the traces cannot say is an ExportError naming the instruction.
"""

import json
import sys
import time

from . import paths as paths_mod
from . import trace as trace_mod
from .pte import Method, PteError, read_program

MAX_PATHS = 256


class ExportError(Exception):
    """Bad input or a program the format cannot express (exit 2): what and where."""


def versions():
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for name in ("torch", "executorch", "flatbuffers"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def capture(pte, name="program", method=None, max_paths=MAX_PATHS, hints=None,
            program_meta=None, source="program"):
    """[(path name, trace dict)] for the .pte bytes; ExportError if it cannot be said."""
    try:
        program = read_program(pte, source)
        m = Method(program, method, source)
        found = paths_mod.enumerate_paths(m, max_paths)
        vers = versions()
        runtime = {"name": "executorch", "version": f"executorch {vers.get('executorch', '?')}",
                   "packages": vers}
        meta = dict(program_meta or {}, method=m.name, pte_bytes=len(pte),
                    paths=len(found))
        out = []
        for p in found:
            raw = trace_mod.build(m, p, name if len(found) == 1 else f"{name} [{p.name()}]",
                                  runtime, meta, hints)
            out.append((p.name(), raw))
        return out
    except PteError as e:
        msg = str(e)
        raise ExportError(msg if msg.startswith(source) else f"{source}: {msg}")


def capture_module(module, inputs, config=None, name="program", max_paths=MAX_PATHS,
                   program_meta=None):
    """(traces, pte bytes): the module exported, lowered and captured with the graph's hints."""
    from .lowering import ModelError, lower

    try:
        pte, hints = lower(module, inputs, config)
    except ModelError as e:
        raise ExportError(str(e))
    return capture(pte, name, None, max_paths, hints, program_meta), pte


def export(source, inputs=None, config=None, name=None, out=None, fault_rule=None,
           fault_seed=0, fault_kind=None, max_paths=MAX_PATHS, method=None):
    """The Python call: source is .pte bytes, a .pte path, or a module (with inputs and an
    optional ExecutorchBackendConfig or dict of its fields). Returns {path name: plan dict};
    with out, writes the plan there (one path) or one plan per path into the folder out."""
    import common

    start = time.perf_counter()
    if isinstance(source, (bytes, bytearray)):
        traces = capture(bytes(source), name or "program", method, max_paths)
    elif isinstance(source, str):
        with open(source, "rb") as f:
            traces = capture(f.read(), name or source, method, max_paths, source=source)
    else:
        traces, _ = capture_module(source, inputs, config, name or type(source).__name__,
                                   max_paths)
    plans = {}
    for pname, raw in traces:
        plan, t = common.export(raw, fault_rule, fault_seed, fault_kind)
        prob = common.problem(t)
        plan["meta"]["placement"] = {k: prob[k] for k in ("planned_size", "max_live", "order")}
        plan["meta"]["placement"]["rows"] = len(prob["rows"])
        plan["meta"]["placement"]["buffers"] = len(prob["buffers"])
        plan["meta"]["export_seconds"] = round(time.perf_counter() - start, 3)
        plans[pname] = plan
    if out:
        import os

        from common.cli import write

        if list(plans) == ["main"]:
            write(out, json.dumps(plans["main"]) + "\n")
        else:
            os.makedirs(out, exist_ok=True)
            for pname, plan in plans.items():
                write(os.path.join(out, pname + ".json"), json.dumps(plan) + "\n")
    return plans
