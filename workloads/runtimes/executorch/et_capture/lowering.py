"""A PyTorch module made into an ExecuTorch program the way a user makes one (torch.export.export,
to_edge, to_executorch with their ExecutorchBackendConfig), and what the exported graph knows
that the .pte does not say, read while ExecuTorch's emitter runs (its output is not changed):
which graph node each instruction and value comes from, which values are the graph's views and
of which base, made before which instruction, and which are the mutable buffers. Also the .pte
run by ExecuTorch's runtime from the wheel, for comparing its output with eager torch.
"""

import contextlib
import dataclasses


class ModelError(Exception):
    """The module cannot be exported (exit 2): the message says what failed."""


def backend_config(config):
    """(ExecutorchBackendConfig, partitioners) from None, a config, or a dict of its fields;
    the dict's key "xnnpack": true also delegates what XNNPACK takes (XnnpackPartitioner)."""
    from executorch.exir import ExecutorchBackendConfig

    if config is None:
        return ExecutorchBackendConfig(), []
    if isinstance(config, ExecutorchBackendConfig):
        return config, []
    if isinstance(config, dict):
        config = dict(config)
        parts = []
        if config.pop("xnnpack", False):
            from executorch.backends.xnnpack.partition.xnnpack_partitioner import \
                XnnpackPartitioner

            parts.append(XnnpackPartitioner())
        fields = {f.name for f in dataclasses.fields(ExecutorchBackendConfig)}
        bad = sorted(k for k in config if k not in fields)
        if bad:
            raise ModelError(f"config: {', '.join(bad)} not a field of ExecutorchBackendConfig")
        return ExecutorchBackendConfig(**config), parts
    raise ModelError(f"config: a {type(config).__name__}, expected a dict or an "
                     "ExecutorchBackendConfig")


@contextlib.contextmanager
def _observe_emitter(hints):
    """Record, while ExecuTorch emits the method, each node's instructions and values and each
    view's base; the emitter's behaviour is unchanged (its methods are wrapped, then restored)."""
    from executorch.exir.emit import _emitter as em

    run_node, emit_view = em._Emitter.run_node, em._Emitter._emit_view

    def at(self):
        return self.instruction_start_offset + len(self.chain.instructions)

    def run_node_observed(self, n):
        k0, v0 = at(self), len(self.emitter_state.values)
        out = run_node(self, n)
        k1, v1 = at(self), len(self.emitter_state.values)
        target = getattr(n.target, "__name__", str(n.target))
        if n.op == "placeholder" and type(self) is not em._Emitter:
            for v in range(v0, v1):
                hints["value_names"][v] = n.name
        elif n.op == "call_function" and target not in ("alloc", "cond", "map_impl", "scan"):
            for k in range(k0, k1):
                hints["instr_names"].setdefault(k, n.name)
        return out

    def emit_view_observed(self, args):
        k0 = at(self)
        out = emit_view(self, args)
        base = getattr(args[0], "id", None)
        if at(self) == k0 and base is not None and out.id != base:
            hints["views"][out.id] = (base, k0)
            hints["value_names"][out.id] = self.node.name
        return out

    em._Emitter.run_node, em._Emitter._emit_view = run_node_observed, emit_view_observed
    try:
        yield
    finally:
        em._Emitter.run_node, em._Emitter._emit_view = run_node, emit_view


def lower(module, inputs, config=None):
    """(pte bytes, hints) for module(*inputs) under ExecutorchBackendConfig config."""
    import torch
    from executorch.exir import to_edge, to_edge_transform_and_lower

    cfg, partitioners = backend_config(config)
    hints = {"value_names": {}, "instr_names": {}, "views": {}}
    try:
        with torch.no_grad():
            ep = torch.export.export(module.eval() if hasattr(module, "eval") else module,
                                     tuple(inputs))
            buffers = dict(ep.graph_signature.inputs_to_buffers)
            with _observe_emitter(hints):
                edge = to_edge_transform_and_lower(ep, partitioner=partitioners) \
                    if partitioners else to_edge(ep)
                prog = edge.to_executorch(cfg)
            pte = prog.buffer
            hints["verify_storage_reuse"] = verify_storage_reuse(prog)
    except ModelError:
        raise
    except Exception as e:  # export or lowering failed: the user's model, said plainly
        raise ModelError(f"exporting it failed: {type(e).__name__}: {str(e).strip()[:600]}")
    # The buffers' values (placeholders the signature names buffers): the planned ones are
    # the mutable buffers (ExecuTorch plans a buffer exactly when it is mutable).
    names = {n: v for v, n in hints["value_names"].items()}
    hints["buffers"] = sorted(names[n] for n in buffers if n in names)
    hints["buffer_names"] = {names[n]: b for n, b in buffers.items() if n in names}
    hints["input_names"] = {}
    return pte, hints


def verify_storage_reuse(prog):
    """ExecuTorch's own check of its plan (memory_planning.Verifier.verify_storage_reuse, as
    its MemoryPlanningPass runs it for the greedy algorithm; the default algorithm suite skips
    it) on the method's graph: the number of tensor pairs sharing storage it accepted, or the
    error it raised (a string)."""
    from executorch.exir.memory_planning import Verifier

    ep = prog.exported_program()
    try:
        return Verifier(ep.graph_module, True, True, True, ep.graph_signature) \
            .verify_storage_reuse()
    except Exception as e:  # its refusal is the answer
        return f"{type(e).__name__}: {str(e).strip()[:300]}"


def run(pte, inputs, method="forward"):
    """The method's outputs as ExecuTorch's runtime (the wheel's) computes them."""
    from executorch.runtime import Runtime

    program = Runtime.get().load_program(pte)
    return list(program.load_method(method).execute(list(inputs)))


def eager(module, inputs):
    import torch

    with torch.no_grad():
        out = module(*inputs)
    return list(out) if isinstance(out, (tuple, list)) else [out]
