"""XLA capture: what XLA's CPU compiler planned for a JAX function, as an arena-trace/1.

`jax.jit(f).lower(*args).compile()` gives the scheduled HloModuleProto (each computation's
instruction order is the order its thunks run) and the BufferAssignmentProto (every value's
allocation, offset and size). Regions are XLA's allocations; one op per instruction that
launches a thunk, in schedule order, a while loop with a known trip count written once as a
loop (XLA:CPU's WhileThunk then runs the body as a for loop); values are XLA's buffers (the
values alias analysis keeps on one slice: loop state is one value across init, body and
result). Anything the trace cannot say (a data-dependent loop, a conditional) is an
ExportError naming the instruction.
"""

import json
import sys
import time

from . import hlo_proto, inplace

# Instructions that launch nothing (thunk_emitter.cc: "fully defined by the buffer assignment",
# dataflow-only, or constants resolved from their allocation).
NO_LAUNCH = {"parameter", "constant", "bitcast", "get-tuple-element", "tuple", "after-all",
             "add-dependency", "domain", "opt-barrier"}
TUPLE_TYPE = 13  # xla_data.proto PrimitiveType TUPLE
TOKEN_TYPE = 17
ALIGNMENT_CAP = 64  # the trace's alignment: the largest power of two (up to this) dividing every offset


class ExportError(Exception):
    """The program cannot be exported (exit 2): the message says why and where."""


def versions():
    from importlib import metadata

    out = {"python": sys.version.split()[0]}
    for name in ("jax", "jaxlib", "numpy", "protobuf", "penzai"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def _leaves(shape, index=()):
    """(shape index, array shape) of every non-tuple leaf."""
    if shape.element_type == TUPLE_TYPE:
        out = []
        for i, s in enumerate(shape.tuple_shapes):
            out.extend(_leaves(s, index + (i,)))
        return out
    return [(index, shape)]


# XLA's PrimitiveType numbers (xla_data.proto) as its HLO text names them: labels read as the
# HLO dump does (f32[4,32]); a type not listed keeps its number (t<N>).
ELEMENT_TYPES = {1: "pred", 2: "s8", 3: "s16", 4: "s32", 5: "s64", 6: "u8", 7: "u16", 8: "u32",
                 9: "u64", 10: "f16", 11: "f32", 12: "f64", 15: "c64", 16: "bf16", 18: "c128",
                 19: "f8e5m2", 20: "f8e4m3fn", 21: "s4", 22: "u4"}


def _shape_text(shape):
    if shape.element_type == TUPLE_TYPE:
        return "(" + ", ".join(_shape_text(s) for s in shape.tuple_shapes) + ")"
    kind = ELEMENT_TYPES.get(shape.element_type, f"t{shape.element_type}")
    return f"{kind}[{','.join(str(d) for d in shape.dimensions)}]"


class _Module:
    """The scheduled module and its buffer assignment, indexed."""

    def __init__(self, module, assignment):
        self.m, self.ba = module, assignment
        self.comps = {c.id: c for c in module.computations}
        self.instr, self.comp_of = {}, {}
        for c in module.computations:
            for i in c.instructions:
                self.instr[i.id] = i
                self.comp_of[i.id] = c.id
        self.sequence = {e.key: list(e.value.instruction_ids) for e in module.schedule.sequences}
        # The instruction that calls each computation (a while's body and condition, a call).
        self.caller = {}
        for i in self.instr.values():
            for cid in i.called_computation_ids:
                self.caller.setdefault(cid, i.id)
        self.alloc = {a.index: a for a in assignment.buffer_allocations}
        self.slice_of = {}  # logical buffer id -> (allocation, offset, size)
        for a in assignment.buffer_allocations:
            for s in a.assigned:
                self.slice_of[s.logical_buffer_id] = (a.index, s.offset, s.size)
        # Positions -> logical buffers (defined there, or aliased there); buffers that share a
        # position are one XLA buffer (alias analysis): union them.
        self.at = {}
        parent = {}

        def find(x):
            while parent.setdefault(x, x) != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for b in assignment.logical_buffers:
            self.at.setdefault((b.defined_at.instruction_id, tuple(b.defined_at.shape_index)),
                               []).append(b.id)
        for al in assignment.buffer_aliases:
            self.at.setdefault((al.location.instruction_id, tuple(al.location.shape_index)),
                               []).append(al.source_buffer_id)
        for ids in self.at.values():
            for b in ids[1:]:
                parent[find(b)] = find(ids[0])
        self.buffer = {b.id: find(b.id) for b in assignment.logical_buffers}
        self.defined = {b.id: (b.defined_at.instruction_id, tuple(b.defined_at.shape_index))
                        for b in assignment.logical_buffers}

    def name(self, iid):
        return self.instr[iid].name

    def where(self, iid):
        return f"instruction {self.name(iid)} ({self.instr[iid].opcode}) in computation " \
               f"{self.comps[self.comp_of[iid]].name}"

    def position(self, iid, index, depth=0):
        """(XLA buffer id, allocation, offset, size) of the array at (instruction, index)."""
        if depth > 10000:
            raise ExportError(f"{self.where(iid)}: cannot resolve its buffer (a cycle)")
        ids = [b for b in self.at.get((iid, index), []) if b in self.slice_of]
        if ids:
            slices = {self.slice_of[b] for b in ids}
            if len(slices) != 1:
                raise ExportError(f"{self.where(iid)} at index {list(index)}: "
                                  f"{len(slices)} slices, expected one")
            return (self.buffer[ids[0]],) + slices.pop()
        i = self.instr[iid]
        op = i.opcode
        if op == "get-tuple-element":
            return self.position(i.operand_ids[0], (i.tuple_index,) + index, depth + 1)
        if op == "bitcast":
            return self.position(i.operand_ids[0], index, depth + 1)
        if op == "tuple" and index:
            return self.position(i.operand_ids[index[0]], index[1:], depth + 1)
        if op == "while":
            return self.position(i.operand_ids[0], index, depth + 1)
        if op == "call":
            # A call's output is its computation's root (XLA lists no position at the call for
            # a leaf the callee forwards, such as a while's state under a small call).
            return self.position(self.comps[i.called_computation_ids[0]].root_id, index,
                                 depth + 1)
        if op == "parameter":
            cid = self.comp_of[iid]
            caller = self.caller.get(cid)
            if caller is not None:
                c = self.instr[caller]
                if c.opcode == "while":
                    return self.position(c.operand_ids[0], index, depth + 1)
                return self.position(c.operand_ids[i.parameter_number], index, depth + 1)
        raise ExportError(f"{self.where(iid)} at index {list(index)}: no buffer assigned "
                          "(the assignment does not say where it lives)")


def _compile(fn, args, donate_argnums):
    import jax

    jitted = fn if hasattr(fn, "lower") else jax.jit(fn, donate_argnums=donate_argnums)
    try:
        lowered = jitted.lower(*args)
        compiled = lowered.compile()
    except Exception as e:  # jax raises many kinds: say what failed, not a traceback
        raise ExportError(f"jax could not compile the function: {type(e).__name__}: "
                          f"{str(e).splitlines()[0] if str(e) else ''}")
    ma = compiled.memory_analysis()
    ba = hlo_proto.parse("BufferAssignmentProto", ma.serialized_buffer_assignment_proto)
    modules = compiled.runtime_executable().hlo_modules()
    if len(modules) != 1:
        raise ExportError(f"the executable has {len(modules)} HLO modules, expected one")
    mod = hlo_proto.parse("HloModuleProto", modules[0].as_serialized_hlo_module_proto())
    return compiled, ma, mod, ba


def _trip_count(instr, where):
    try:
        cfg = json.loads(instr.backend_config.decode() or "{}")
    except ValueError:
        cfg = {}
    n = cfg.get("known_trip_count", {}).get("n")
    if n is None:
        raise ExportError(
            f"{where}: a while loop without a known trip count (data-dependent: it runs until "
            "its condition says stop, so the launches it makes are not known before it runs); "
            "an arena plan needs a fixed schedule: use lax.scan or lax.fori_loop with static bounds")
    return int(n)


def capture(fn, args, name=None, donate_argnums=(), shapes=None, flags=None):
    """The arena-trace/1 (a dict) of what XLA planned for fn(*args); fn may be jitted already
    (then its own donation holds). Raises ExportError for what the trace cannot express."""
    import jax

    compiled, ma, mod, ba = _compile(fn, args, donate_argnums)
    M = _Module(mod, ba)
    if not mod.HasField("schedule"):
        raise ExportError("the compiled module carries no schedule")
    entry = mod.entry_computation_id
    if entry not in M.sequence:
        raise ExportError("the module has no schedule for its entry computation")

    # Regions: XLA's allocations, classified.
    donated = {e.parameter_number for e in mod.input_output_alias.entries}
    regions, region_of, skipped = [], {}, {"thread_local": 0, "empty": 0}
    temp = 0
    for a in sorted(ba.buffer_allocations, key=lambda a: a.index):
        if a.is_thread_local:
            skipped["thread_local"] += 1
            continue
        if a.size == 0:
            skipped["empty"] += 1
            continue
        r = {"name": f"alloc{a.index}", "size": a.size}
        if a.is_constant:
            r["kind"], r["role"] = "constants", "constant"
        elif a.is_entry_computation_parameter:
            if a.maybe_live_out or a.parameter_number in donated:
                r["kind"], r["role"] = "io", f"parameter {a.parameter_number} (donated)"
            else:
                r["kind"], r["role"] = "weights", f"parameter {a.parameter_number}"
        elif a.maybe_live_out:
            r["kind"], r["role"] = "io", "output"
        else:
            r["kind"], r["role"] = "arena", "temp"
            r["planned_size"] = a.size
            temp += a.size
        region_of[a.index] = r
        regions.append(r)
    whole = {r["name"] for r in regions if r["kind"] in ("constants", "weights")}

    values, ops, loops = {}, [], []
    counts = {"launches_written": 0, "whiles": 0, "calls_inlined": 0, "in_place": 0}
    # In-place updates: what each reads across elements and writes (inplace.py), by pattern.
    ranges = {"reads_derived": 0, "reads_undecided": 0, "writes_derived": 0, "patterns": {},
              "undecided": []}

    def value(iid, index, shape):
        buf, alloc, off, size = M.position(iid, index)
        if alloc not in region_of:
            a = M.alloc[alloc]
            raise ExportError(f"{M.where(iid)}: its buffer lies in allocation {alloc} "
                              f"({'thread-local' if a.is_thread_local else 'empty'}), "
                              "which a launch cannot name")
        r = region_of[alloc]
        vid = f"b{buf}"
        v = values.get(vid)
        if v is None:
            at, idx = M.defined.get(buf, (iid, index))
            at = at if at in M.instr else iid
            v = values[vid] = {"id": vid, "region": r["name"], "offset": off, "size": size,
                               "whole_program": r["name"] in whole,
                               "label": f"{M.name(at)}{list(idx) if idx else ''} "
                                        f"{_shape_text(shape)}"}
        elif (v["region"], v["offset"], v["size"]) != (r["name"], off, size):
            raise ExportError(f"{M.where(iid)}: XLA buffer {buf} on two slices")
        return vid

    def leaf_values(iid):
        i = M.instr[iid]
        return [value(iid, idx, s) for idx, s in _leaves(i.shape)
                if s.element_type != TOKEN_TYPE]

    def emit(cid):
        for iid in M.sequence.get(cid, []):
            i = M.instr[iid]
            op = i.opcode
            if op in NO_LAUNCH:
                continue
            if op == "while":
                counts["whiles"] += 1
                n = _trip_count(i, M.where(iid))
                body, cond = i.called_computation_ids[0], i.called_computation_ids[1]
                if M.comps[body].root_id not in M.instr:
                    raise ExportError(f"{M.where(iid)}: its body has no root")
                # Loop state is one slice across init, body parameter, body root and result.
                init, result = leaf_values(i.operand_ids[0]), leaf_values(iid)
                root = leaf_values(M.comps[body].root_id)
                if not (init == result == root):
                    raise ExportError(f"{M.where(iid)}: the loop state does not stay on one "
                                      "slice across init, body and result")
                if n == 0:
                    continue
                first = len(ops)
                emit(body)  # the condition is not run when the trip count is known
                if len(ops) > first and n > 1:
                    loops.append({"first": first, "count": len(ops) - first, "iterations": n,
                                  "while": M.name(iid)})
                continue
            if op == "conditional":
                raise ExportError(
                    f"{M.where(iid)}: a conditional (lax.cond / lax.switch): which branch runs "
                    "is known only when it runs, and an arena plan needs a fixed schedule")
            if op == "call":
                counts["calls_inlined"] += 1
                emit(i.called_computation_ids[0])
                continue
            if op in ("async-start", "async-update", "async-done", "send", "recv",
                      "infeed", "outfeed"):
                raise ExportError(f"{M.where(iid)}: {op} is not expressible as a launch")
            reads, operand_leaves = [], []
            for n, o in enumerate(i.operand_ids):
                idxs = [idx for idx, sh in _leaves(M.instr[o].shape)
                        if sh.element_type != TOKEN_TYPE]
                for idx, v in zip(idxs, leaf_values(o)):
                    operand_leaves.append((n, idx, v))
                    if v not in reads:
                        reads.append(v)
            writes, out_leaves = [], []
            idxs = [idx for idx, sh in _leaves(i.shape) if sh.element_type != TOKEN_TYPE]
            for idx, v in zip(idxs, leaf_values(iid)):
                out_leaves.append((idx, v))
                if v not in writes:
                    writes.append(v)
            # An output on an operand's bytes overwrites it in place: what the kernel reads of
            # it across elements, and the bytes it writes, from its HLO (inplace.py).
            updates = []
            for idx, w in out_leaves:
                vw = values[w]
                for r in reads:
                    vr = values[r]
                    if (vr["region"], vr["offset"], vr["size"]) == \
                            (vw["region"], vw["offset"], vw["size"]) and vw["size"] and \
                            not vr["whole_program"]:
                        u = {"from": r, "to": w}
                        got = inplace.analyse(M, i, {(n, x) for n, x, v in operand_leaves
                                                     if v == r}, idx, vr["size"])
                        _record(u, got, ranges, i.name, vr["size"])
                        updates.append(u)
                        break
            counts["in_place"] += len(updates)
            words = [{"value": v, "offset": 0}
                     for v in [x for o in i.operand_ids for x in leaf_values(o)] + writes
                     if values[v]["size"]]
            kind = i.opcode
            if op == "fusion":
                kind = f"fusion:{i.fusion_kind or ''}"
                cfg = i.backend_config.decode(errors="replace")
                if "__ynn_fusion" in cfg:
                    kind = "fusion:ynn"
            elif op == "custom-call":
                kind = f"custom-call:{i.custom_call_target}"
            ops.append({"kernel": i.name, "reads": reads, "writes": writes,
                        "updates": updates, "words": words, "hlo": kind})

    # Host transfers: donated parameters are uploaded, outputs read back.
    upload_writes = []
    for a in sorted(ba.buffer_allocations, key=lambda a: a.index):
        r = region_of.get(a.index)
        if r is None or not a.is_entry_computation_parameter or r["kind"] != "io":
            continue
        for c in M.comps[entry].instructions:
            if c.opcode == "parameter" and c.parameter_number == a.parameter_number:
                upload_writes += [v for v in leaf_values(c.id) if values[v]["size"]]
    if upload_writes:
        ops.append({"kernel": "upload", "writes": upload_writes, "hlo": "host"})
    emit(entry)
    counts["launches_written"] = sum(1 for o in ops if o.get("hlo") != "host")
    outs = leaf_values(M.comps[entry].root_id)
    ops.append({"kernel": "readback", "reads": outs, "hlo": "host"})

    # The trace's alignment: the offsets XLA chose, as coarse as they all allow.
    align = ALIGNMENT_CAP
    for v in values.values():
        while v["size"] and v["offset"] % align:
            align //= 2
    ops_out = []
    for o in ops:
        o = dict(o)
        o.pop("hlo", None)
        ops_out.append(o)
    used = {v["region"] for v in values.values()}
    shapes = shapes if shapes is not None else _arg_shapes(args)
    program = {"name": name or getattr(fn, "__name__", "function"), "shapes": shapes,
               "flags": dict(flags or {}, donated_parameters=sorted(donated)),
               "hlo_module": mod.name}
    return {
        "format": "arena-trace/1",
        "runtime": {"name": "xla", "version": f"jaxlib {versions().get('jaxlib', '?')}",
                    "backend": jax.default_backend(), "packages": versions()},
        "program": program,
        "capture": {
            "source": "jax.jit(f).lower(*args).compile(): scheduled HloModuleProto and "
                      "BufferAssignmentProto",
            "temp_size_in_bytes": ma.temp_size_in_bytes,
            "argument_size_in_bytes": ma.argument_size_in_bytes,
            "output_size_in_bytes": ma.output_size_in_bytes,
            "alias_size_in_bytes": ma.alias_size_in_bytes,
            "temp_regions_size": temp,
            "allocations": len(ba.buffer_allocations),
            "allocations_skipped": skipped,
            "regions_unused": sorted(r["name"] for r in regions if r["name"] not in used),
            "region_roles": {r["name"]: r["role"] for r in regions},
            "kernels": _kernel_kinds(ops),
            **counts,
            "reads_derived": ranges["reads_derived"],
            "reads_undecided": ranges["reads_undecided"],
            "writes_derived": ranges["writes_derived"],
            "in_place_patterns": dict(sorted(ranges["patterns"].items())),
            **({"undecided": ranges["undecided"]} if ranges["undecided"] else {}),
        },
        "alignment": align,
        "regions": [{k: r[k] for k in ("name", "kind", "size", "planned_size") if k in r}
                    for r in regions],
        "values": sorted(values.values(), key=lambda v: (v["region"], v["offset"], v["id"])),
        "ops": ops_out,
        "loops": [{k: l[k] for k in ("first", "count", "iterations")} for l in loops],
    }


def _record(update, got, ranges, name, size):
    """An analysed update's reads/writes into the trace's update and the capture's counts."""
    ranges["patterns"][got["pattern"]] = ranges["patterns"].get(got["pattern"], 0) + 1
    if got["writes"] is not None and got["writes"] != [(0, size)]:  # all of it: absent
        update["writes"] = [{"offset": o, "size": n} for o, n in got["writes"]]
        ranges["writes_derived"] += 1
    if got["reads"] is not None:
        update["reads"] = [{"offset": o, "size": n} for o, n in got["reads"]]
        if got["undecided"]:
            ranges["reads_undecided"] += 1
            ranges["undecided"].append(f"{name}: {got['undecided']}")
        else:
            ranges["reads_derived"] += 1


def _kernel_kinds(ops):
    out = {}
    for o in ops:
        out[o["hlo"]] = out.get(o["hlo"], 0) + 1
    return dict(sorted(out.items()))


def _arg_shapes(args):
    import jax

    leaves = jax.tree_util.tree_leaves_with_path(args)
    return {jax.tree_util.keystr(p) or "arg": f"{getattr(x, 'dtype', type(x).__name__)}"
            f"{list(getattr(x, 'shape', ()))}" for p, x in leaves}


def export(fn, args, name=None, out=None, fault_rule=None, fault_seed=0, fault_kind=None,
           donate_argnums=(), flags=None):
    """The Python call: fn (jitted or not) on args as an arena-plan/1 (a dict), written to out
    if given. Raises ExportError (what XLA compiled cannot be said) or common.TraceError."""
    import common

    start = time.perf_counter()
    raw = capture(fn, args, name=name, donate_argnums=donate_argnums, flags=flags)
    plan, t = common.export(raw, fault_rule, fault_seed, fault_kind)
    prob = common.problem(t)
    plan["meta"]["placement"] = {k: prob[k] for k in ("planned_size", "max_live", "order")}
    plan["meta"]["placement"]["rows"] = len(prob["rows"])
    plan["meta"]["placement"]["buffers"] = len(prob["buffers"])
    plan["meta"]["export_seconds"] = round(time.perf_counter() - start, 3)
    if out:
        from common.cli import write

        write(out, json.dumps(plan) + "\n")
    return plan
