"""Run a .tflite model with tflite-runtime (its own venv: numpy 1.x) the way the corpus runs
LiteRT: the builtin op resolver without default delegates, one input, one output.
Usage: run_tflite_runtime.py MODEL.tflite INPUT.npy OUTPUT.npy   (prints the version)"""

import sys

import numpy as np
from tflite_runtime import __version__
from tflite_runtime import interpreter as tfl

model, inp, out = sys.argv[1:4]
it = tfl.Interpreter(model_path=model,
                     experimental_op_resolver_type=tfl.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES)
it.allocate_tensors()
it.set_tensor(it.get_input_details()[0]["index"], np.load(inp))
it.invoke()
np.save(out, it.get_tensor(it.get_output_details()[0]["index"]))
print(__version__)
