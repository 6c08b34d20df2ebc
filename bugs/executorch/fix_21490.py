"""The fix for pytorch/executorch#21490 that PRs #21494 and #21818 propose (both open), applied
to ExecuTorch 1.5.1's planner in this process only (a monkeypatch; no ExecuTorch code is
copied or changed on disk): each torch.cond's branch arena gets a lifespan at its call site
that runs through the last use of the cond's outputs, and a cond whose call meets an earlier
cond's live outputs plans its branches past that cond's arena instead of from offset 0. The
true and false branches of one cond still share their arena (they never run together); a cond
inside a branch moves with its branch. Written here from the PRs' descriptions: their diffs
were not read."""

import contextlib
import operator


def _users_through_views(node, pos):
    """The last graph position where node's outputs are read (through getitem and views)."""
    from executorch.exir import memory

    last, todo, seen = pos[node], list(node.users), set()
    while todo:
        u = todo.pop()
        if u in seen:
            continue
        seen.add(u)
        last = max(last, pos.get(u, last))
        if u.target is operator.getitem or u.target is memory.view:
            todo.extend(u.users)
    return last


def _shift(graph_module, by):
    """Move every planned tensor of a branch (and of the branches nested in it) up by bytes."""
    if not by:
        return
    from executorch.exir.tensor import TensorSpec
    from torch.utils import _pytree as pytree

    seen = set()
    for gm in graph_module.modules():
        if not hasattr(gm, "graph"):
            continue
        for n in gm.graph.nodes:
            if n.op == "placeholder":
                continue
            for spec in pytree.tree_leaves(n.meta.get("spec")):
                if isinstance(spec, TensorSpec) and id(spec) not in seen and \
                        spec.mem_id is not None and spec.mem_offset is not None:
                    seen.add(id(spec))
                    spec.mem_offset += by


def _apply_algo_to_submodules(algo, graph_module, alignment, graph_signature=None):
    """ExecuTorch 1.5.1's function of that name, with conds planned past live outputs."""
    import torch
    from executorch.exir import memory_planning as mp

    bufsizes = []
    nodes = list(graph_module.graph.nodes)
    pos = {n: i for i, n in enumerate(nodes)}
    live = []  # (last position an earlier cond's outputs are read, end of its arena)
    for node in nodes:
        if node.target is torch.ops.higher_order.cond:
            base = max([end for last, end in live if last >= pos[node]], default=0)
            size = 0
            for branch in (node.args[1], node.args[2]):
                got = mp._handle_submodule(algo, graph_module, alignment, branch,
                                           graph_signature)
                _shift(getattr(graph_module, branch.target), base)
                size = max(size, got[1] if len(got) > 1 else 0)
            live.append((_users_through_views(node, pos), base + size))
            mp._merge_bufsizes(bufsizes, [0, base + size])
        elif node.target is torch.ops.higher_order.while_loop:
            for sub in node.args[:2]:
                mp._merge_bufsizes(bufsizes, mp._handle_submodule(
                    algo, graph_module, alignment, sub, graph_signature))
        elif node.target in (torch.ops.higher_order.map_impl, torch.ops.higher_order.scan):
            mp._merge_bufsizes(bufsizes, mp._handle_submodule(
                algo, graph_module, alignment, node.args[0], graph_signature,
                alloc_graph_input=True))
    return bufsizes


@contextlib.contextmanager
def applied():
    """ExecuTorch's planner with the fix, inside the block."""
    from executorch.exir import memory_planning as mp

    before = mp._apply_algo_to_submodules
    mp._apply_algo_to_submodules = _apply_algo_to_submodules
    try:
        yield
    finally:
        mp._apply_algo_to_submodules = before
