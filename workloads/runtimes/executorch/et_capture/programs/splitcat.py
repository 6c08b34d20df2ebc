"""Split and concatenate: a tensor split into unequal parts along one dimension and chunks
along another, each part through its own op, the parts concatenated back in another order,
unbound into rows and stacked: many tensors made from and into one (TensorList arguments)."""

import torch
from torch import nn


class SplitCat(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.proj = nn.Linear(d, d)
        self.d = d

    def forward(self, x):
        q = self.d // 4
        a, b, c = self.proj(x).split([q, q, 2 * q], dim=1)
        y = torch.cat([torch.sigmoid(c), torch.relu(a), b * 2.0], dim=1)
        parts = y.chunk(4, dim=0)
        z = torch.cat([p * float(i + 1) for i, p in enumerate(parts)], dim=0)
        out = z + 1.0
        rows = z.unbind(0)  # z read again after out, which has its size
        s = torch.stack([rows[0], rows[-1], rows[len(rows) // 2]], dim=0)
        return out, s.sum(dim=0)


def split_cat(d_model=64, seq=16):
    """split / chunk / unbind into parts, per-part ops, cat / stack back (TensorLists)"""
    torch.manual_seed(0)
    return SplitCat(d_model), (torch.randn(seq, d_model),)
