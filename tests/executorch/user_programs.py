"""Programs as a user writes them for scripts/executorch-plan FILE.py:NAME: NAME() returns
(module, tuple of example inputs) or (module, inputs, ExecutorchBackendConfig fields). Some
export and certify 0 (one with conditionals: a folder of plans, one with many ops the family
does not use, one delegated to XNNPACK), some are refused (a loop, too many paths), one returns
the wrong thing."""

import torch
from torch import nn


def mlp(layers=2):
    """A plain MLP: layers x (Linear, ReLU)."""
    torch.manual_seed(1)
    return nn.Sequential(*[m for _ in range(layers) for m in (nn.Linear(16, 16), nn.ReLU())]), \
        (torch.randn(4, 16),)


class Conds(nn.Module):
    """Two conds on one predicate, the first's output consumed before the second runs."""

    def forward(self, x, p):
        pred = p.sum() > 0
        r1 = torch.cond(pred, lambda v: v * 2, lambda v: v.sin(), [x])
        s = r1 + 1
        r2 = torch.cond(pred, lambda v: v.cos(), lambda v: v - 10, [x])
        return s * r2


def conds():
    return Conds(), (torch.arange(4.0), torch.ones(1))


class ManyConds(nn.Module):
    """n conds on n predicates: 2^n paths."""

    def __init__(self, n):
        super().__init__()
        self.n = n

    def forward(self, x):
        for i in range(self.n):
            x = torch.cond(x[i] > 0, lambda v: v + 1, lambda v: v - 1, [x])
        return x


def many_conds(n=9):
    return ManyConds(n), (torch.arange(16.0),)


class Zoo(nn.Module):
    """Ops the family does not use: slice_scatter, index_copy, narrow, expand, cumsum, a dtype
    cast, masked_fill, topk (two outputs), embedding, layer_norm, a clamp, a transpose."""

    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(10, 8)
        self.ln = nn.LayerNorm(8)

    def forward(self, x, ids, idx):
        e = self.ln(self.emb(ids))                      # [4, 8]
        y = torch.slice_scatter(x, e[:2], dim=0, start=1, end=3)
        y = y.index_copy(0, idx, e[2:])
        n = y.narrow(1, 2, 4).cumsum(1)
        m = n.masked_fill(n > 1.0, 0.5).to(torch.float64).to(torch.float32)
        v, i = torch.topk(y, 3, dim=1)
        z = v.expand(2, 4, 3).transpose(0, 1).reshape(4, 6)
        return m.clamp(-1, 1), z, i


def zoo():
    torch.manual_seed(2)
    return Zoo(), (torch.randn(4, 8), torch.tensor([1, 3, 5, 7]), torch.tensor([3, 0]))


def xnnpack():
    """An MLP whose linears ExecuTorch delegates to XNNPACK (DelegateCall)."""
    torch.manual_seed(3)
    return nn.Sequential(nn.Linear(8, 8), nn.ReLU(), nn.Linear(8, 8)), (torch.randn(2, 8),), \
        {"xnnpack": True}


class Mapped(nn.Module):
    def forward(self, xs, y):
        from functorch.experimental.control_flow import map as cf_map

        return cf_map(lambda x, y: x * 2 + y, xs, y)


def mapped():
    """torch.map: ExecuTorch emits a loop (a JumpFalseCall back): refused."""
    return Mapped(), (torch.randn(3, 4), torch.randn(4))


def not_a_pair():
    return nn.Linear(2, 2)
