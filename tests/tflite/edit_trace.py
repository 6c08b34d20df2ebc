"""Hand-edit a trace from `scripts/tflite-plan --trace-out`: make the value the first in-place
op overwrites be read later, by the next op (where="op") or by the model's outputs."""

import json
import sys

src, dst, where = sys.argv[1:4]
trace = json.load(open(src))
tensors, ops = trace["tensors"], trace["ops"]
for o in ops:
    out = o["outputs"][0] if o["outputs"] else None
    shared = [
        i
        for i in o["inputs"]
        if out is not None
        and i != out
        and tensors[i]["addr"] == tensors[out]["addr"]
        and o["op"] not in ("RESHAPE",)
    ]
    if shared:
        victim = shared[0]
        if where == "op":
            ops[o["index"] + 1]["inputs"].append(victim)
        else:
            trace["outputs"].append(victim)
        print(
            f"edited: op {o['index']} ({o['op']}) overwrites tensor {victim}; "
            f"now read after it ({where})"
        )
        break
else:
    sys.exit("no in-place op in the trace")
json.dump(trace, open(dst, "w"))
