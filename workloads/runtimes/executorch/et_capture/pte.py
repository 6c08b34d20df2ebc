"""Reading an ExecuTorch program (.pte) with the wheel alone: the method's values (each tensor's
dtype, shape, and where its bytes are: a memory id and offset in the planned arenas, a constant
buffer, or memory the runtime gets elsewhere), its arenas (non_const_buffer_sizes, index 0
reserved), and its instructions decoded into what each reads and writes.

What a KernelCall reads and writes comes from its operator's torch schema: an argument with a
write alias (`Tensor(a!)`) is written, kwarg-only (an out variant's `out`) without being read,
positional (an in-place op's `self`) read and updated; a return with an alias that is not an
argument's value is a view of that argument; a return without one is written. TensorLists are
expanded into their tensors. ExecuTorch's own prim ops without a torch schema are described here.
"""

import struct

# ExecuTorch's ScalarType (executorch/exir/scalar_type.py) -> (bytes per element, short name)
SCALAR_TYPES = {
    0: (1, "u8"), 1: (1, "i8"), 2: (2, "i16"), 3: (4, "i32"), 4: (8, "i64"), 5: (2, "f16"),
    6: (4, "f32"), 7: (8, "f64"), 8: (4, "c32"), 9: (8, "c64"), 10: (16, "c128"), 11: (1, "bool"),
    12: (1, "qi8"), 13: (1, "qu8"), 14: (4, "qi32"), 15: (2, "bf16"), 16: (1, "qu4x2"),
    17: (1, "qu2x4"), 22: (2, "bits16"), 23: (1, "f8e5m2"), 24: (1, "f8e4m3fn"),
    25: (1, "f8e5m2fnuz"), 26: (1, "f8e4m3fnuz"), 27: (2, "u16"), 28: (4, "u32"), 29: (8, "u64"),
}

# ExecuTorch's own operators that torch has no schema for: argument roles by position.
# et_view(Tensor self, int[] size, Tensor out): `out` is made a view of `self` (no bytes move).
# et_copy_index(Tensor(a!) copy_to, Tensor copy_from, int index): copy_from into copy_to[index]
# (the loops torch.map and torch.scan emit, which the paths refuse).
PRIM_ROLES = {
    "executorch_prim::et_view.default": ("read", "scalar", "view0"),
    "executorch_prim::et_copy_index.tensor": ("mutate", "read", "scalar"),
}

# Modules whose import registers the schemas of ExecuTorch's custom operators with torch.
SCHEMA_MODULES = (
    "executorch.exir.passes.executorch_prim_ops_registry",
    "executorch.exir.passes.dim_order_ops_registry",
    "executorch.exir.passes._device_copy_ops_registry",
    "executorch.extension.llm.custom_ops.custom_ops",
    "executorch.kernels.quantized",
    "torch.ao.quantization.fx._decomposed",
)


class PteError(Exception):
    """A malformed .pte, or one this capture cannot describe: the message says what and where."""


class Tensor:
    """A tensor value: index, dtype, sizes, nbytes; kind "planned" (mem_id, offset), "constant"
    (const_key) or "unplanned" (the runtime gets its memory elsewhere: a user's input or output,
    a dynamic tensor, a view the runtime makes)."""

    def __init__(self, index, t):
        self.index = index
        if t.scalar_type not in SCALAR_TYPES:
            raise PteError(f"value {index}: scalar type {int(t.scalar_type)} is not one this "
                           "capture knows the size of")
        elem, self.dtype = SCALAR_TYPES[int(t.scalar_type)]
        self.sizes = list(t.sizes)
        numel = 1
        for s in self.sizes:
            if s < 0:
                raise PteError(f"value {index}: negative size {s} in {self.sizes}")
            numel *= s
        self.nbytes = numel * elem
        info = t.allocation_info
        extra = t.extra_tensor_info
        self.fqn = getattr(extra, "fully_qualified_name", None) if extra else None
        external = extra is not None and int(getattr(extra, "location", 0)) == 1
        self.mem_id = self.offset = self.const_key = None
        if info is not None:
            self.kind = "planned"
            self.mem_id = info.memory_id
            self.offset = info.memory_offset_low + (info.memory_offset_high << 32)
        elif t.data_buffer_idx > 0:
            self.kind = "constant"
            self.const_key = f"c{t.data_buffer_idx}"
        elif external:
            self.kind = "constant"
            self.const_key = f"x:{self.fqn}"
        else:
            self.kind = "unplanned"
        self.dynamic = int(t.shape_dynamism) != 0

    def shape_text(self):
        return f"{self.dtype}[{','.join(str(s) for s in self.sizes)}]"

    def span(self):
        return (self.mem_id, self.offset, self.nbytes)


class Arg:
    """One tensor an instruction touches: the value index, its role ("read", "out": written
    without being read, "mutate": read and updated in place, "view": the instruction makes it a
    view of tensor `of`), the schema argument's name and its position among the tensors."""

    def __init__(self, value, role, name, of=None):
        self.value, self.role, self.name, self.of = value, role, name, of

    def __repr__(self):
        return f"Arg({self.value}, {self.role}, {self.name})"


class Instr:
    """A decoded instruction: kind kernel|delegate|move|jump|free; kernel: the operator's name
    (`aten::add.out`), args ([Arg]) and the scalar flags the kernel model reads; move: src, dst;
    jump: cond, dest; delegate: args, backend."""

    def __init__(self, index, kind):
        self.index, self.kind = index, kind
        self.kernel, self.args, self.refs = None, [], []
        self.flags, self.writes_scalar = {}, set()


def read_program(data, source="program"):
    """The deserialized Program of .pte bytes; PteError if they are not a whole one."""
    if len(data) < 8 or data[4:6] != b"ET":
        raise PteError(f"{source}: not an ExecuTorch program (no 'ET' flatbuffer identifier "
                       f"at byte 4; {len(data)} bytes)")
    if data[8:12] == b"eh00" and len(data) >= 32:
        _, program_size, seg_base, seg_size = struct.unpack_from("<IQQQ", data, 12)
        end = max(program_size, seg_base + seg_size if seg_base else 0)
        if len(data) < end:
            raise PteError(f"{source}: truncated: its header says {end} bytes (program "
                           f"{program_size}, segments at {seg_base} of {seg_size} bytes), the "
                           f"file has {len(data)}")
    from executorch.exir._serialize._program import deserialize_pte_binary

    try:
        pte = deserialize_pte_binary(data)
    except Exception as e:  # the flatbuffer reader's own errors: a clear refusal
        raise PteError(f"{source}: not a readable ExecuTorch program: {type(e).__name__}: "
                       f"{str(e)[:200]}")
    return getattr(pte, "program", pte)


_schemas_loaded = False


def _load_schema_modules():
    global _schemas_loaded
    if _schemas_loaded:
        return
    import importlib

    for m in SCHEMA_MODULES:
        try:
            importlib.import_module(m)
        except Exception:  # an optional library (custom ops) that does not load here
            pass
    _schemas_loaded = True


def schema_of(name, overload):
    _load_schema_modules()
    import torch

    try:
        return torch._C._get_schema(name, overload or "")
    except RuntimeError:
        return None


class Method:
    """One execution plan of a program, decoded: name, values (index -> Tensor or the EValue's
    kind), inputs, outputs, arenas (bytes per memory id), instrs ([Instr]), operators, delegates,
    and the structural facts the trace needs: written (value indices some instruction writes),
    moved_to, first_ref (value index -> first instruction that names it)."""

    def __init__(self, program, method=None, source="program"):
        plans = list(program.execution_plan)
        names = [p.name for p in plans]
        if not plans:
            raise PteError(f"{source}: holds no method")
        if method is None:
            method = "forward" if "forward" in names else names[0]
        if method not in names:
            raise PteError(f"{source}: no method {method!r} (it has {', '.join(names)})")
        plan = plans[names.index(method)]
        self.name, self.methods, self.source = method, names, source
        self.arenas = list(plan.non_const_buffer_sizes)
        self.inputs, self.outputs = list(plan.inputs), list(plan.outputs)
        self.operators = [(o.name, o.overload) for o in plan.operators]
        self.delegates = [d.id for d in plan.delegates]
        self.values, self.tensors, self.kinds = [], {}, {}
        for i, ev in enumerate(plan.values):
            kind = type(ev.val).__name__
            self.kinds[i] = kind
            self.values.append(ev.val)
            if kind == "Tensor":
                self.tensors[i] = Tensor(i, ev.val)
        for i in self.inputs + self.outputs:
            if not 0 <= i < len(self.values):
                raise PteError(f"method {method}: input or output value {i} does not exist "
                               f"({len(self.values)} values)")
        if not plan.chains:
            raise PteError(f"method {method}: no chain of instructions")
        if len(plan.chains) > 1:
            raise PteError(f"method {method}: {len(plan.chains)} chains; this capture reads "
                           "one (ExecuTorch's emitter writes one)")
        for t in self.tensors.values():
            if t.kind == "planned":
                if not 0 < t.mem_id < len(self.arenas):
                    raise PteError(f"value {t.index}: memory id {t.mem_id}, but the method has "
                                   f"arenas 1..{len(self.arenas) - 1} (non_const_buffer_sizes "
                                   f"{self.arenas})")
                if t.offset + t.nbytes > self.arenas[t.mem_id]:
                    raise PteError(f"value {t.index}: bytes [{t.offset}, {t.offset + t.nbytes})"
                                   f" run past arena {t.mem_id} ({self.arenas[t.mem_id]} bytes)")
        self.instrs = [self._decode(k, ins.instr_args)
                       for k, ins in enumerate(plan.chains[0].instructions)]
        self.first_ref = {}
        for ins in self.instrs:
            for v in ins.refs:
                self.first_ref.setdefault(v, ins.index)
        for ins in self.instrs:
            if ins.kind == "delegate":
                self._delegate_roles(ins)
        self.written, self.moved_to = set(), set()
        for ins in self.instrs:
            if ins.kind in ("kernel", "delegate"):
                self.written.update(a.value for a in ins.args if a.role in ("out", "mutate"))
            elif ins.kind == "move":
                self.moved_to.add(ins.dst)
        self.scalars_written = set().union(*(ins.writes_scalar for ins in self.instrs)) \
            if self.instrs else set()

    def _delegate_roles(self, ins):
        """A DelegateCall's arguments are its inputs, then its outputs (the emitter's order); the
        .pte does not say where one ends. Its outputs are the trailing tensors it names first
        that are no input, placeholder or constant (made for it, as the emitter makes them)."""
        end = self.placeholders_end() or 0
        outs = 0
        for i in reversed(ins.raw_args):
            t = self.tensors.get(i)
            if (t is None or t.kind == "constant" or i in self.inputs or i < end
                    or self.first_ref.get(i) != ins.index or ins.raw_args.count(i) > 1):
                break
            outs += 1
        n = len(ins.raw_args)
        for j, i in enumerate(ins.raw_args):
            for t in self._tensors_of(ins.index, i, f"argument {j}"):
                ins.args.append(Arg(t, "out" if j >= n - outs else "read", f"arg{j}"))
        ins.flags["outputs_inferred"] = outs

    # ---- decoding ---------------------------------------------------------------------------

    def _value(self, k, i, what):
        if not isinstance(i, int) or not 0 <= i < len(self.values):
            raise PteError(f"instruction {k}: {what} names value {i}, which does not exist "
                           f"({len(self.values)} values)")
        return i

    def _tensors_of(self, k, i, what):
        """The tensor value indices an argument value stands for (lists expanded)."""
        kind = self.kinds[self._value(k, i, what)]
        if kind == "Tensor":
            return [i]
        if kind in ("TensorList", "OptionalTensorList"):
            out = []
            for j in self.values[i].items:
                if j == -1:
                    continue
                if self.kinds.get(self._value(k, j, f"{what} (list item)")) != "Tensor":
                    raise PteError(f"instruction {k}: {what} lists value {j}, a "
                                   f"{self.kinds.get(j)}, not a tensor")
                out.append(j)
            return out
        return []

    def _decode(self, k, a):
        kind = type(a).__name__
        if kind == "KernelCall":
            return self._kernel(k, a)
        if kind == "DelegateCall":
            ins = Instr(k, "delegate")
            if not 0 <= a.delegate_index < len(self.delegates):
                raise PteError(f"instruction {k}: DelegateCall of delegate {a.delegate_index}, "
                               f"which does not exist ({len(self.delegates)} delegates)")
            ins.kernel = f"delegate:{self.delegates[a.delegate_index]}"
            ins.backend = self.delegates[a.delegate_index]
            ins.raw_args = [self._value(k, i, "an argument") for i in a.args]
            ins.refs = list(ins.raw_args)
            return ins
        if kind == "MoveCall":
            ins = Instr(k, "move")
            ins.src = self._value(k, a.move_from, "move_from")
            ins.dst = self._value(k, a.move_to, "move_to")
            ins.refs = [ins.src, ins.dst]
            ins.writes_scalar = {ins.dst}
            return ins
        if kind == "JumpFalseCall":
            ins = Instr(k, "jump")
            ins.cond = self._value(k, a.cond_value_index, "cond_value_index")
            ins.dest = a.destination_instruction
            if self.kinds[ins.cond] not in ("Bool", "Tensor"):
                raise PteError(f"instruction {k}: JumpFalseCall on value {ins.cond}, a "
                               f"{self.kinds[ins.cond]} (the runtime takes a Bool or a bool "
                               "tensor)")
            return ins
        if kind == "FreeCall":
            ins = Instr(k, "free")
            ins.value = self._value(k, a.value_index, "value_index")
            return ins
        raise PteError(f"instruction {k}: a {kind}, which this capture cannot describe")

    def _kernel(self, k, a):
        ins = Instr(k, "kernel")
        if not 0 <= a.op_index < len(self.operators):
            raise PteError(f"instruction {k}: KernelCall of operator {a.op_index}, which does "
                           f"not exist ({len(self.operators)} operators)")
        name, overload = self.operators[a.op_index]
        ins.kernel = f"{name}.{overload or 'default'}"
        args = [self._value(k, i, "an argument") for i in a.args]
        ins.refs = []
        for i in args:
            ins.refs.append(i)
            if self.kinds[i] in ("TensorList", "OptionalTensorList"):
                ins.refs.extend(j for j in self.values[i].items if j != -1)
        if ins.kernel in PRIM_ROLES:
            roles = PRIM_ROLES[ins.kernel]
            if len(args) != len(roles):
                raise PteError(f"instruction {k}: {ins.kernel} with {len(args)} arguments, "
                               f"expected {len(roles)}")
            for j, (i, role) in enumerate(zip(args, roles)):
                if role == "scalar":
                    continue
                of = None
                if role.startswith("view"):
                    of = self._tensors_of(k, args[int(role[4:])], "a view's base")
                    of, role = (of[0] if of else None), "view"
                for t in self._tensors_of(k, i, f"argument {j}"):
                    ins.args.append(Arg(t, role, f"arg{j}", of))
            return ins
        schema = schema_of(name, overload)
        if schema is None:
            raise PteError(f"instruction {k}: operator {ins.kernel}: torch knows no schema for "
                           "it, so what it writes cannot be told (load the library that "
                           "registers it)")
        params, rets = list(schema.arguments), list(schema.returns)
        ret_args = args[len(params):]
        if len(rets) > 1 and len(args) == len(params) + 1 and \
                self.kinds[args[-1]] in ("TensorList", "OptionalTensorList"):
            ret_args = list(self.values[args[-1]].items)  # several returns, as one list value
            if len(ret_args) != len(rets):
                raise PteError(f"instruction {k}: {ins.kernel} returns {len(ret_args)} values in "
                               f"its list, its schema {len(rets)}")
        elif len(args) > len(params) + len(rets) and all(
                self._same_as_out(i, params, args) for i in args[len(params) + len(rets):]):
            ret_args = args[len(params):len(params) + len(rets)]  # the out list given back
        elif len(args) != len(params) + len(rets):
            raise PteError(f"instruction {k}: {ins.kernel} has {len(args)} arguments, its "
                           f"schema {len(params)} arguments and {len(rets)} returns")
        alias_arg = {}
        for p, i in zip(params, args):
            ai = p.alias_info
            write = bool(ai and ai.is_write)
            role = "read"
            if write:
                role = "out" if p.kwarg_only else "mutate"
            if ai:
                for s in ai.before_set:
                    alias_arg.setdefault(s, i)
            if self.kinds[i] in ("Bool", "Int", "Double"):
                ins.flags[p.name] = getattr(self.values[i], {"Bool": "bool_val", "Int": "int_val",
                                                             "Double": "double_val"}
                                            [self.kinds[i]])
            for t in self._tensors_of(k, i, f"argument {p.name}"):
                ins.args.append(Arg(t, role, p.name))
        for r, i in zip(rets, ret_args):
            kind = self.kinds[i]
            if kind in ("Bool", "Int", "Double", "Null", "String"):
                ins.writes_scalar.add(i)
                continue
            ai = r.alias_info
            base = None
            if ai:
                for s in ai.before_set:
                    if s in alias_arg:
                        base = alias_arg[s]
            for t in self._tensors_of(k, i, "a return"):
                if base is not None and t in self._tensors_of(k, base, "an aliased argument"):
                    continue  # the return is the argument it aliases (an out variant's `out`)
                if ai and base is not None:
                    ins.args.append(Arg(t, "view", "return", self._tensors_of(k, base, "")[0]))
                else:
                    ins.args.append(Arg(t, "out", "return"))
        return ins

    def _same_as_out(self, i, params, args):
        """Whether value i is (or lists the same tensors as) one of the written arguments."""
        mine = self._tensors_of(-1, i, "a return")
        for p, j in zip(params, args):
            if p.alias_info and p.alias_info.is_write and (j == i or (
                    mine and self._tensors_of(-1, j, "an out argument") == mine)):
                return True
        return False

    # ---- facts ------------------------------------------------------------------------------

    def placeholders_end(self):
        """Value indices below this were emitted for the graph's placeholders (parameters,
        buffers, constants, then user inputs: the emitter writes them first)."""
        return max(self.inputs) + 1 if self.inputs else None
