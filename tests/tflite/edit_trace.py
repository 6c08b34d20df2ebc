"""Hand-edit an arena-trace/1 from `scripts/tflite-plan --trace-out` into one the shared layer
must refuse. where="op": the next op reads the value the first in-place update overwrote;
"outputs": the readback reads it; "overlap": the value that update writes is moved onto the
bytes of a value live at the same time (the update's own input excepted). Prints what it edited
and the value id the refusal must name. Usage: edit_trace.py SRC DST WHERE"""

import json
import sys

src, dst, where = sys.argv[1:4]
trace = json.load(open(src))
ops = trace["ops"]
found = next(
    ((k, u) for k, o in enumerate(ops) for u in o.get("updates", []) if u["from"] != u["to"]),
    None,
)
if found is None:
    sys.exit("no in-place update in the trace")
k, u = found
if where == "op":
    ops[k + 1].setdefault("reads", []).append(u["from"])
    victim = u["from"]
elif where == "outputs":
    ops[-1].setdefault("reads", []).append(u["from"])
    victim = u["from"]
else:
    # a value op k reads that is not the update's input, on other bytes: both live at op k
    values = {v["id"]: v for v in trace["values"]}
    other = next(
        v for v in ops[k]["reads"]
        if v != u["from"] and not values[v]["whole_program"]
        and values[v]["offset"] != values[u["to"]]["offset"]
    )
    for v in (u["from"], u["to"]):
        values[v]["offset"] = values[other]["offset"]
    victim = other
print(f"edited ({where}): op {k} ({ops[k]['kernel']}) updates {u['from']} into {u['to']}")
print(victim)
json.dump(trace, open(dst, "w"))
