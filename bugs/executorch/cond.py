"""ExecuTorch's control flow and its arena (pytorch/executorch#21490, open; fix PRs #21494 and
#21818, open). torch.cond's branches are planned as submodules from offset 0 of one shared
region and their outputs reach the caller by MoveCall, which rebinds the caller's value to the
branch's bytes without copying them. So:
- sibling: a second cond runs its branch over the bytes the first cond's output still holds
  (read after): ExecuTorch returns 2 * r2 for r1 + r2, on both paths;
- nested: a cond inside the second cond's true branch does the same to the first's output;
- view_of_output: a static view of a cond's output is elided to the caller's own planned bytes
  for that value, which MoveCall never fills: the view reads what lies there (unreported).
Each bug has a control that computes right: the first cond's output consumed before the second
cond runs; the view taken of a copy of the output. Inputs take each program down every path
(p > 0: the outer predicates true; p < 0: false; x < 0: a nested predicate false), with the
predicates' values listed per input."""

import torch


class Sibling(torch.nn.Module):
    def forward(self, x, p):
        pred = p.sum() > 0
        r1 = torch.cond(pred, lambda v: v * 2, lambda v: v * 3, [x])
        r2 = torch.cond(pred, lambda v: v + 10, lambda v: v - 10, [x])
        return r1 + r2


class ControlSibling(torch.nn.Module):
    def forward(self, x, p):
        pred = p.sum() > 0
        r1 = torch.cond(pred, lambda v: v * 2, lambda v: v * 3, [x])
        s = r1 * 1.0  # consumed (copied) before the second cond runs
        r2 = torch.cond(pred, lambda v: v + 10, lambda v: v - 10, [x])
        return s + r2


class Nested(torch.nn.Module):
    def forward(self, x, p):
        pred = p.sum() > 0
        r1 = torch.cond(pred, lambda v: v * 2, lambda v: v * 3, [x])
        r2 = torch.cond(pred,
                        lambda r: torch.cond(r.sum() > 0, lambda u: u + 1, lambda u: u - 1, [r]),
                        lambda r: r * 5, [r1])
        return r1 + r2


class ControlNested(torch.nn.Module):
    """A cond nested in a branch, with no outer cond output live across it."""

    def forward(self, x, p):
        pred = p.sum() > 0

        def outer_true(v):
            a = v * 2
            b = torch.cond(v.sum() > 0, lambda u: u + 100, lambda u: u - 100, [v])
            return a + b

        return torch.cond(pred, outer_true, lambda v: v * 3, [x])


class ViewOfOutput(torch.nn.Module):
    def forward(self, x, p):
        pred = p.sum() > 0
        r = torch.cond(pred, lambda v: v * 2, lambda v: v * 3, [x])
        return r.view(2, 2) + 1


class ControlViewOfOutput(torch.nn.Module):
    def forward(self, x, p):
        pred = p.sum() > 0
        r = torch.cond(pred, lambda v: v * 2, lambda v: v * 3, [x])
        return (r * 1.0).view(2, 2) + 1


def inputs(sign, x_sign=1):
    return (x_sign * (torch.arange(4.0) + 1), torch.full((1,), float(sign)))


POS, NEG, POS_XNEG = inputs(1), inputs(-1), inputs(1, -1)

# name -> (module, expected output, [(inputs, the predicates' values along its path)], config)
VARIANTS = {
    "sibling": (Sibling, "wrong", [(POS, [True, True]), (NEG, [False, False])], None),
    "nested": (Nested, "wrong", [(POS, [True, True, True]), (POS_XNEG, [True, True, False]),
                                 (NEG, [False, False])], None),
    "view_of_output": (ViewOfOutput, "wrong", [(POS, [True]), (NEG, [False])], None),
    "control_sibling": (ControlSibling, "right", [(POS, [True, True]), (NEG, [False, False])],
                        None),
    "control_nested": (ControlNested, "right", [(POS, [True, True]), (POS_XNEG, [True, False]),
                                                (NEG, [False])], None),
    "control_view_of_output": (ControlViewOfOutput, "right", [(POS, [True]), (NEG, [False])],
                               None),
}
# The variants the fix is applied to, and what they compute with it.
FIXED = {"sibling": "right", "nested": "right", "view_of_output": "wrong",
         "control_sibling": "right"}
