"""Printed MLIR's small pieces, as the capture (the host's stream dialect) and dispatch.py (the
executables) read them: the result names of a statement's left-hand side, and a list split at
its top-level commas."""

import re


def results(lhs):
    """'%a, %b' or '%x:3' or '%x' -> the result names ('%x#0', '%x#1', '%x#2' for '%x:3')."""
    names = []
    for part in lhs.split(","):
        part = part.strip()
        m = re.match(r"(%[\w$.-]+):(\d+)$", part)
        if m:
            names += [f"{m.group(1)}#{k}" for k in range(int(m.group(2)))]
        elif part:
            names.append(part)
    return names


def split_top(text):
    """The items of a comma-separated list, split at commas outside brackets (the '>' of '->'
    closes nothing), stripped, blank ones dropped."""
    out, depth, cur = [], 0, ""
    for ch in text:
        depth += ch in "([{<"
        depth -= ch in ")]}" or (ch == ">" and not cur.endswith("-"))
        if ch == "," and depth == 0:
            out.append(cur)
            cur = ""
        else:
            cur += ch
    return [c.strip() for c in out + [cur] if c.strip()]
