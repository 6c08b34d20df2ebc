"""The executorch family: programs by name, each a function of its sizes returning (module,
example inputs, ExecutorchBackendConfig fields), the shape a user's FILE.py:NAME has."""

from common.programs import getter

# name -> (module, function)
PROGRAMS = {
    "llama-forward": ("llama", "llama_forward"),
    "llama-decode": ("llama", "llama_decode"),
    "llama-decode-reinplace": ("llama", "llama_decode_reinplace"),
    "convnet": ("convnet", "convnet"),
    "split-cat": ("splitcat", "split_cat"),
}
get = getter(__name__, PROGRAMS)
