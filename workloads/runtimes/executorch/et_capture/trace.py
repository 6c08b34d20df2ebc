"""One path through a decoded ExecuTorch method as an arena-trace/1 (../TRACE.md), recorded as
ExecuTorch planned it, right or wrong: the certificate judges.

Regions: an arena per memory id (kind `arena`, planned size its non_const_buffer_sizes entry),
the constants (kind `constants`, whole-program values laid out one after another), and a region
of its own for each tensor the runtime gets memory for elsewhere (unplanned inputs and outputs:
`io`; dynamic tensors: `dynamic`). Trace values are versions of ExecuTorch's values: `v15` is
value 15 as its first writer left it, `v2@6` value 2 after instruction 6 updated it in place,
`c3` constant buffer 3. An `upload` op writes the inputs and the mutable buffers as the call
starts; a `readback` op reads the outputs and the mutable buffers' last versions as it ends (a
KV cache lives the whole method). Each KernelCall, DelegateCall and JumpFalseCall on a tensor
is an op; MoveCall is no op: it rebinds a value to another's bytes, so later readers of
`move_to` read what `move_from` names. A view (a value on its base's bytes that no instruction
writes, as ExecuTorch elides static views) stands for the version of its base it was made from:
read after the base is updated, it is a read of a value the update took away (rule D). A view
whose base's data is not at its planned bytes, and a tensor read that nothing wrote, are values
never written.
"""

from . import kernels

ALIGNMENT_CAP = 16  # ExecuTorch's MemoryPlanningPass aligns to 16 bytes unless told otherwise


class Builder:
    def __init__(self, method, hints=None):
        self.m = method
        self.h = hints or {}
        self.values = {}  # trace id -> trace value dict
        self.owner = {}  # trace id -> ExecuTorch value index
        self.nversions = {}
        self.bind = {}  # value index -> (trace id, word offset)
        self.ops = []
        self.counts = {"views_folded": 0, "views_off_base": 0, "unwritten_reads": 0,
                       "reads_undecided": 0, "reads_derived": 0, "moves": 0, "kernel_calls": 0, "delegate_calls": 0,
                       "jumps_on_tensors": 0, "jumps_constant": 0, "in_place_updates": 0}
        self.regions = []
        self.region_of_mem = {}
        for mid, size in enumerate(method.arenas):
            if mid == 0:
                continue
            name = f"arena{mid}"
            self.region_of_mem[mid] = name
            self.regions.append({"name": name, "kind": "arena", "size": size,
                                 "planned_size": size})
        self.writer = {}  # value index -> the first instruction that writes it
        for ins in method.instrs:
            for a in ins.args:
                if a.role in ("out", "mutate"):
                    self.writer.setdefault(a.value, ins.index)
        self.buffers = self._mutable_buffers()
        self._views()
        # the views in the order they are made (by instruction, then value index)
        self._pending = sorted(self.view_of.items(), key=lambda x: (x[1][1], x[0]))
        self._next = 0

    # ---- facts about values ---------------------------------------------------------------

    def _mutable_buffers(self):
        """Planned placeholders that are no user input: the mutable buffers (ExecuTorch plans
        no other placeholder). With the exported graph's hints, its signature's buffers."""
        if "buffers" in self.h:
            return [v for v in self.h["buffers"] if v in self.m.tensors
                    and self.m.tensors[v].kind == "planned" and v not in self.m.inputs]
        end = self.m.placeholders_end()
        out = []
        for i, t in sorted(self.m.tensors.items()):
            if t.kind != "planned" or i in self.m.inputs:
                continue
            if end is not None and i < end:
                out.append(i)
            elif end is None and i not in self.m.written and i not in self.m.moved_to and \
                    i in self.m.first_ref and i < min(self.m.written or {i + 1}):
                out.append(i)
        return out

    def _views(self):
        """value -> (base value, instruction before which it is made) for the values that are
        views: from the exported graph where the hints carry it; else from the .pte alone (a
        planned tensor no instruction writes, no input or buffer: its base is the latest value
        made before it whose bytes hold its bytes, the same bytes first; it is made before the
        first instruction that names a later value)."""
        m = self.m
        self.view_of = {}
        if "views" in self.h:
            self.view_of = {int(v): tuple(b) for v, b in self.h["views"].items()}
            return
        real = set(m.inputs) | set(self.buffers) | m.written | m.moved_to
        reach, best = [], -1
        for ins in m.instrs:
            if ins.kind in ("kernel", "delegate", "move") and ins.refs:
                best = max(best, max(ins.refs))
            reach.append(best)
        for u, t in m.tensors.items():
            if u in real or t.kind != "planned" or u not in m.first_ref:
                continue
            same, holds = None, None
            for b in sorted(real):
                if b >= u:
                    break
                bt = m.tensors.get(b)
                if bt is None or bt.kind != "planned" or bt.mem_id != t.mem_id:
                    continue
                if (bt.offset, bt.nbytes) == (t.offset, t.nbytes):
                    same = b
                elif bt.offset <= t.offset and t.offset + t.nbytes <= bt.offset + bt.nbytes:
                    holds = b
            base = same if same is not None else holds
            made = next((k for k, r in enumerate(reach) if r >= u), len(m.instrs))
            self.view_of[u] = (base, made)

    def _label(self, u, extra=""):
        t = self.m.tensors[u]
        name = self.h.get("value_names", {}).get(u)
        if not name and u in self.writer:
            name = self.h.get("instr_names", {}).get(self.writer[u])
        parts = [f"value {u} {t.shape_text()}"]
        if name:
            parts.append(name)
        if extra:
            parts.append(extra)
        return ", ".join(parts)

    def _region_for(self, u):
        t = self.m.tensors[u]
        if t.kind == "planned":
            return self.region_of_mem[t.mem_id], t.offset
        name = f"value{u}"
        if not any(r["name"] == name for r in self.regions):
            kind = "io" if u in self.m.inputs or u in self.m.outputs else "dynamic"
            self.regions.append({"name": name, "kind": kind, "size": t.nbytes})
        return name, 0

    def _version(self, u, k, extra=""):
        """A new trace value: value u as instruction k (None: the upload) writes it."""
        n = self.nversions.get(u, 0)
        self.nversions[u] = n + 1
        tid = f"v{u}" if n == 0 else f"v{u}@{k}"
        region, off = self._region_for(u)
        self.values[tid] = {"id": tid, "region": region, "offset": off,
                            "size": self.m.tensors[u].nbytes, "label": self._label(u, extra)}
        self.owner[tid] = u
        return tid

    def _successor(self, tid, k):
        """A new version of the trace value tid, on its bytes, as instruction k updates it."""
        u = self.owner[tid]
        new = f"v{u}@{k}"
        old = self.values[tid]
        self.values[new] = dict(old, id=new, label=self._label(u, f"after instruction {k}"))
        self.owner[new] = u
        return new

    def _constant(self, u):
        t = self.m.tensors[u]
        key = t.const_key
        if key not in self.values:
            self.values[key] = {"id": key, "region": "constants", "offset": 0, "size": t.nbytes,
                                "whole_program": True,
                                "label": f"constant {key[1:] if key[0] == 'c' else key[2:]}"
                                         f" {t.shape_text()}"}
            self.owner[key] = u
        else:
            self.values[key]["size"] = max(self.values[key]["size"], t.nbytes)
        return key

    def resolve(self, u, k):
        """(trace id, word offset) of what value u holds as instruction k reads it."""
        if u in self.bind:
            return self.bind[u]
        t = self.m.tensors[u]
        if t.kind == "constant":
            self.bind[u] = (self._constant(u), 0)
            return self.bind[u]
        self.counts["unwritten_reads"] += 1
        tid = self._version(u, k, "never written")
        self.bind[u] = (tid, 0)
        return self.bind[u]

    def _make_views(self, k):
        """Bind the views made before instruction k to the versions of their bases then."""
        while self._next < len(self._pending) and self._pending[self._next][1][1] <= k:
            u, (base, made) = self._pending[self._next]
            self._next += 1
            if u in self.bind:
                continue
            t = self.m.tensors[u]
            got = self.bind.get(base) if base is not None else None
            if got is not None:
                tid, _ = got
                v = self.values[tid]
                region, off = self._region_for(u) if t.kind != "constant" else (None, 0)
                if v["region"] == region and v["offset"] <= off and \
                        off + t.nbytes <= v["offset"] + v["size"]:
                    self.bind[u] = (tid, off - v["offset"])
                    self.counts["views_folded"] += 1
                    continue
            if t.kind == "constant":
                continue
            self.counts["views_off_base"] += 1
            why = f"view of value {base}" if base is not None else "view of no value"
            where = "its data elsewhere" if got is not None else "not written yet"
            tid = self._version(u, made, f"{why}, {where}")
            self.bind[u] = (tid, 0)

    # ---- ops ---------------------------------------------------------------------------------

    def _op_label(self, k):
        node = self.h.get("instr_names", {}).get(k) or self.h.get("instr_names", {}).get(str(k))
        return f"instruction {k}" + (f": {node}" if node else "")

    def upload(self):
        writes = []
        names = self.h.get("input_names", {})
        for j, u in enumerate(self.m.inputs):
            if u in self.m.tensors and self.m.tensors[u].kind != "constant":
                nm = names.get(u) or names.get(str(u))
                tid = self._version(u, None, f"input {j}" + (f" ({nm})" if nm else ""))
                self.bind[u] = (tid, 0)
                writes.append(tid)
        fqn = self.h.get("buffer_names", {})
        for u in self.buffers:
            if u in self.bind:
                continue
            nm = fqn.get(u) or fqn.get(str(u)) or self.m.tensors[u].fqn
            tid = self._version(u, None, "mutable buffer" + (f" {nm}" if nm else ""))
            self.bind[u] = (tid, 0)
            writes.append(tid)
        self.ops.append({"kernel": "upload", "writes": writes,
                         "label": "inputs and mutable buffers as the call starts"})

    def readback(self):
        reads = []
        for u in self.m.outputs:
            if u in self.m.tensors:
                tid, _ = self.resolve(u, len(self.m.instrs))
                reads.append(tid)
        for u in self.buffers:
            tid, _ = self.resolve(u, len(self.m.instrs))
            reads.append(tid)
        self.ops.append({"kernel": "readback", "reads": list(dict.fromkeys(reads)),
                         "label": "outputs and mutable buffers as the call returns"})

    def step(self, k, taken=None):
        ins = self.m.instrs[k]
        self._make_views(k)
        if ins.kind == "move":
            if ins.src in self.m.tensors:
                self.bind[ins.dst] = self.resolve(ins.src, k)
                self.counts["moves"] += 1
            return
        if ins.kind == "free":
            return
        if ins.kind == "jump":
            if ins.cond not in self.m.tensors:
                self.counts["jumps_constant"] += 1
                return
            self.counts["jumps_on_tensors"] += 1
            tid, off = self.resolve(ins.cond, k)
            way = "true: falls through" if taken else f"false: jumps to {ins.dest}"
            self.ops.append({"kernel": "JumpFalseCall", "reads": [tid],
                             "words": [{"value": tid, "offset": off}],
                             "label": f"instruction {k}: value {ins.cond} {way}"})
            return
        self.counts["kernel_calls" if ins.kind == "kernel" else "delegate_calls"] += 1
        self._kernel(k, ins)

    def _kernel(self, k, ins):
        m = self.m
        reads, words, writes, updates = [], [], [], []
        got = {}  # arg position -> (trace id, offset)
        for j, a in enumerate(ins.args):
            if a.role == "read":
                got[j] = self.resolve(a.value, k)
                reads.append(got[j][0])
        upd = {}  # from trace id -> (to, the writing arg)
        for j, a in enumerate(ins.args):
            if a.role == "view":
                if a.of is not None:
                    self.bind[a.value] = self.resolve(a.of, k)
                continue
            if a.role == "mutate":
                tid, off = self.resolve(a.value, k)
                if self.values[tid].get("whole_program"):
                    from .pte import PteError

                    raise PteError(f"instruction {k}: {ins.kernel} writes value {a.value} in "
                                   f"place, and that value is a constant ({tid})")
                if tid in upd:
                    to = upd[tid][0]
                else:
                    to = self._successor(tid, k)
                    upd[tid] = (to, j, off)
                got[j] = (to, off)
                self.bind[a.value] = (to, off)
            elif a.role == "out":
                t = m.tensors[a.value]
                new = self._version(a.value, k)
                nv = self.values[new]
                same = [r for r in dict.fromkeys(reads)
                        if r not in upd and self.values[r]["region"] == nv["region"]
                        and (self.values[r]["offset"], self.values[r]["size"])
                        == (nv["offset"], nv["size"]) and not self.values[r].get("whole_program")]
                if same and t.nbytes:
                    # written over an operand's bytes: an in-place update of that operand
                    del self.values[new]
                    self.nversions[a.value] -= 1
                    to = self._successor(same[0], k)
                    self.values[to]["label"] = self._label(a.value, f"written over "
                                                           f"{same[0]} by instruction {k}")
                    self.owner[to] = a.value
                    upd[same[0]] = (to, j, 0)
                    new = to
                else:
                    writes.append(new)
                got[j] = (new, 0)
                self.bind[a.value] = (new, 0)
        for j in range(len(ins.args)):
            if j in got:
                tid, off = got[j]
                if self.values[tid]["size"]:
                    words.append({"value": tid, "offset": off})
        entry = []
        for src, (to, j, off) in upd.items():
            u = {"from": src, "to": to}
            reads_r, undecided = self._reads_across(ins, src, j, got)
            if reads_r:
                u["reads"] = reads_r
                self.counts["reads_undecided" if undecided else "reads_derived"] += 1
            size = self.values[src]["size"]
            wa = ins.args[j]
            wsize = m.tensors[wa.value].nbytes
            if wa.role == "mutate" and (off, wsize) != (0, size) and wsize:
                u["writes"] = [{"offset": off, "size": min(wsize, size - off)}]
            entry.append(u)
            self.counts["in_place_updates"] += 1
        op = {"kernel": ins.kernel, "reads": list(dict.fromkeys(reads)), "writes": writes,
              "words": words, "label": self._op_label(k)}
        if entry:
            op["updates"] = entry
        self.ops.append(op)

    def _reads_across(self, ins, src, j, got):
        """The bytes of src's old contents the kernel reads across elements, and whether that
        was decided by the kernel model (False: an operator it does not know, read whole)."""
        m = self.m
        wa = ins.args[j]
        wt = m.tensors[wa.value]
        out_off = got[j][1]
        size = self.values[src]["size"]
        ranges = []
        delegate = ins.kind == "delegate"
        for i, a in enumerate(ins.args):
            if i == j and a.role == "mutate":
                if delegate or kernels.reads_across(ins.kernel, "mutate", True):
                    ranges.append((out_off, wt.nbytes))
                continue
            if a.role != "read" or got.get(i, (None,))[0] != src:
                continue
            rt = m.tensors[a.value]
            off = got[i][1]
            same = (rt.sizes == wt.sizes and rt.nbytes == wt.nbytes and off == out_off)
            if delegate or kernels.reads_across(ins.kernel, "read", same):
                ranges.append((off, rt.nbytes))
        out = []
        for off, n in sorted(set(ranges)):
            n = min(n, size - off)
            if n > 0:
                out.append({"offset": off, "size": n})
        return out, bool(out) and (delegate or not kernels.known(ins.kernel))

    # ---- the trace -----------------------------------------------------------------------

    def finish(self, name, path, runtime, program_meta):
        m = self.m
        align = ALIGNMENT_CAP
        for t in m.tensors.values():
            while t.kind == "planned" and t.nbytes and t.offset % align:
                align //= 2
        consts = [v for v in self.values.values() if v.get("whole_program")]
        top = 0
        for v in sorted(consts, key=lambda v: v["id"]):
            v["offset"] = top
            top += -(-v["size"] // align) * align
        if consts:
            self.regions.append({"name": "constants", "kind": "constants", "size": top})
        used = {v["region"] for v in self.values.values()}
        regions = [r for r in self.regions if r["kind"] == "arena" or r["name"] in used]
        capture = dict(self.counts)
        capture.update({
            "source": "executorch.exir._serialize._program.deserialize_pte_binary: "
                      "execution_plan values, non_const_buffer_sizes, chains[0].instructions",
            "method": m.name, "methods": m.methods, "path": path.name(),
            "choices": [{"instruction": k, "predicate": v} for k, v in path.choices],
            "instructions": len(m.instrs), "instructions_on_path": len(path.steps),
            "arenas": m.arenas[1:], "executorch_own": sum(m.arenas[1:]),
            "launches_written": sum(1 for o in self.ops
                                    if o["kernel"] not in ("upload", "readback")),
            "mutable_buffers": len(self.buffers), "constants": len(consts),
            "hints": "exported graph" if self.h else "none (the .pte alone)",
        })
        return {
            "format": "arena-trace/1",
            "runtime": runtime,
            "program": dict(program_meta, name=name, path=path.name()),
            "capture": capture,
            "alignment": align,
            "regions": regions,
            "values": sorted(self.values.values(), key=lambda v: (v["region"], v["offset"],
                                                                  v["id"])),
            "ops": self.ops,
        }


def build(method, path, name, runtime, program_meta, hints=None):
    """The arena-trace/1 (a dict) of one path through the method."""
    b = Builder(method, hints)
    b.upload()
    for k, taken in _walk(path):
        b.step(k, taken)
    b._make_views(len(method.instrs))
    b.readback()
    return b.finish(name, path, runtime, program_meta)


def _walk(path):
    chosen = dict(path.choices)
    for k in path.steps:
        yield k, chosen.get(k)
