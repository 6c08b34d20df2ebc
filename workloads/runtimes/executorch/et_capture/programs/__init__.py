"""The executorch family: programs by name, each a function of its sizes returning (module,
example inputs, ExecutorchBackendConfig fields), the shape a user's FILE.py:NAME has."""

import importlib
import inspect

# name -> (module, function)
PROGRAMS = {
    "llama-forward": ("llama", "llama_forward"),
    "llama-decode": ("llama", "llama_decode"),
    "llama-decode-reinplace": ("llama", "llama_decode_reinplace"),
    "convnet": ("convnet", "convnet"),
    "split-cat": ("splitcat", "split_cat"),
}


def get(name):
    module, function = PROGRAMS[name]
    return getattr(importlib.import_module(f"{__name__}.{module}"), function)


def sizes(fn):
    """The sizes a program takes, with their defaults."""
    return {k: p.default for k, p in inspect.signature(fn).parameters.items()
            if p.default is not inspect.Parameter.empty}
