"""ExecuTorch's run_reinplace_pass (ExecutorchBackendConfig(run_reinplace_pass=True)) rewrites
index_put into index_put_, writing the result over its input, when the input has no later user
in the graph. It is not reported upstream (Inductor's reinplace pass had the same two hazards,
fixed there: pytorch/pytorch#160311 and #185450). Two ways it computes wrong on 1.5.1:
- view_read_after: the input's view_copy, made before the index_put and read after it, counts as
  an earlier user; after the pass to_executorch turns view_copy into a view of the same bytes,
  so the later read sees the index_put's result: [9 9 9 9] for [1 2 3 4];
- values_alias_self: index_put(y, [None, idx], y): y's only later user is the index_put itself,
  which then reads y (its values) while it writes y in place, across elements (a permutation):
  [1 2 2 1] for [4 3 2 1] on the first row.
Controls: the same programs without the pass (right, 0), the view read before the index_put,
and the values a copy of y."""

import torch


class ViewReadAfter(torch.nn.Module):
    def forward(self, x, idx, vals):
        y = x + 1
        v = y.view(4)
        z = y.index_put([idx], vals)
        return v * 1, z


class ControlViewReadBefore(torch.nn.Module):
    def forward(self, x, idx, vals):
        y = x + 1
        w = y.view(4) * 1  # read before the index_put
        z = y.index_put([idx], vals)
        return w, z


class ValuesAliasSelf(torch.nn.Module):
    def forward(self, x, idx):
        y = x + 1
        return torch.ops.aten.index_put.default(y, [None, idx], y)


class ControlValuesCopy(torch.nn.Module):
    def forward(self, x, idx):
        y = x + 1
        return torch.ops.aten.index_put.default(y, [None, idx], y * 1.0)


VIEW_IN = (torch.arange(4.0).view(2, 2), torch.tensor([1, 0]), torch.full((2, 2), 9.0))
PERM_IN = (torch.arange(8.0).view(2, 4), torch.tensor([3, 2, 1, 0]))
REINPLACE = {"run_reinplace_pass": True}

VARIANTS = {
    "view_read_after": (ViewReadAfter, "wrong", [(VIEW_IN, [])], REINPLACE),
    "values_alias_self": (ValuesAliasSelf, "wrong", [(PERM_IN, [])], REINPLACE),
    "control_view_read_after_no_pass": (ViewReadAfter, "right", [(VIEW_IN, [])], None),
    "control_values_alias_self_no_pass": (ValuesAliasSelf, "right", [(PERM_IN, [])], None),
    "control_view_read_before": (ControlViewReadBefore, "right", [(VIEW_IN, [])], REINPLACE),
    "control_values_copy": (ControlValuesCopy, "right", [(PERM_IN, [])], REINPLACE),
}
FIXED = {}
