"""The paths through a method's JumpFalseCalls: ExecuTorch emits `torch.cond` as a jump over
the true branch on a false predicate, the true branch, and an unconditional jump (on a constant
False) over the false branch. A jump on a value no instruction writes is constant; one on a
tensor (or a Bool an instruction computes) is a choice, taken both ways. A predicate tested
again before anything rewrites it takes the same way (sibling conds on one predicate: two
paths, not four). A jump backwards (the loops torch.map and torch.scan emit, whose trip count
the program decides) is refused: arena-trace/1 has no such loop.
"""

from .pte import PteError


class Path:
    """steps: instruction indices in executed order; choices: [(instruction, taken)] where taken
    is True when the predicate was true (falls through) and False when it jumped."""

    def __init__(self, steps, choices):
        self.steps, self.choices = steps, choices

    def name(self):
        """`i2-true_i10-true` (each choice: instruction and the predicate's value); `main`
        when the method has no choice."""
        return "_".join(f"i{k}-{'true' if v else 'false'}" for k, v in self.choices) or "main"


def _check(method):
    n = len(method.instrs)
    for ins in method.instrs:
        if ins.kind != "jump":
            continue
        if ins.dest <= ins.index:
            raise PteError(
                f"instruction {ins.index}: JumpFalseCall on value {ins.cond} jumps back to "
                f"instruction {ins.dest} (a loop, as torch.map and torch.scan are emitted): "
                "arena-trace/1 has no loop whose trip count the program computes")
        if ins.dest > n:
            raise PteError(f"instruction {ins.index}: JumpFalseCall to instruction {ins.dest}, "
                           f"past the method's {n} instructions")


def constant_jump(method, ins):
    """None for a choice, else whether the jump is taken (its value is a constant Bool)."""
    if method.kinds[ins.cond] == "Bool" and ins.cond not in method.scalars_written:
        return not method.values[ins.cond].bool_val
    return None


def _writes(method, ins):
    out = set(ins.writes_scalar)
    out.update(a.value for a in ins.args if a.role in ("out", "mutate", "view"))
    if ins.kind == "move":
        out.add(ins.dst)
    return out


def count(method):
    """How many paths (with consistent predicates), counted without listing them."""
    _check(method)
    memo = {}

    def walk(pc, known):
        key = (pc, known)
        if key in memo:
            return memo[key]
        total, k, kn = 0, pc, dict(known)
        while k < len(method.instrs):
            ins = method.instrs[k]
            for v in _writes(method, ins):
                kn.pop(v, None)
            if ins.kind == "jump":
                c = constant_jump(method, ins)
                if c is None and ins.cond in kn:
                    c = not kn[ins.cond]
                if c is None:
                    f = frozenset(kn.items())
                    total = walk(k + 1, frozenset(f | {(ins.cond, True)})) + \
                        walk(ins.dest, frozenset(f | {(ins.cond, False)}))
                    memo[key] = total
                    return total
                k = ins.dest if c else k + 1
                continue
            k += 1
        memo[key] = 1
        return 1

    return walk(0, frozenset())


def enumerate_paths(method, max_paths):
    """Every path, or PteError saying how many there are when they are more than max_paths."""
    n = count(method)
    if n > max_paths:
        raise PteError(f"method {method.name}: {n} paths through its JumpFalseCalls, more than "
                       f"the bound of {max_paths} (--max-paths)")
    out = []

    def walk(pc, known, steps, choices):
        k = pc
        known = dict(known)
        steps = list(steps)
        while k < len(method.instrs):
            ins = method.instrs[k]
            steps.append(k)
            for v in _writes(method, ins):
                known.pop(v, None)
            if ins.kind == "jump":
                c = constant_jump(method, ins)
                if c is None and ins.cond in known:
                    c = not known[ins.cond]
                    choices = choices + [(k, known[ins.cond])]
                if c is None:
                    for taken in (True, False):
                        walk(k + 1 if taken else ins.dest, {**known, ins.cond: taken}, steps,
                             choices + [(k, taken)])
                    return
                k = ins.dest if c else k + 1
                continue
            k += 1
        out.append(Path(steps, choices))

    walk(0, {}, [], [])
    return out
