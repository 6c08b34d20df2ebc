"""What ggml computed (the recorder's VALUES.json) against numpy: V = reshape(2 a), Y = 12 a.
Prints 'right' or 'wrong (N of 16 values of V wrong)'. Usage: compare.py VALUES.json"""

import json
import sys

import numpy as np

got = json.load(open(sys.argv[1]))
a = np.asarray(got["a"], np.float32)
want = {"V": a * np.float32(2), "Y": (a * np.float32(2) * np.float32(3)) * np.float32(2)}
bad = {k: int(np.sum(np.asarray(got[k], np.float32) != v)) for k, v in want.items()}
wrong = [f"{n} of {len(a)} values of {k} wrong" for k, n in bad.items() if n]
print("wrong (" + "; ".join(wrong) + ")" if wrong else "right")
